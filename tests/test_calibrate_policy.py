"""The calibration policy over dev and its holdout part (eval/calibrate.py): hermetic, no model."""

from __future__ import annotations

from eval.calibrate import (HOLDOUT_WEIGHT, SHUFFLES, Estimate, Judged, cross_validated, held_out_answers, policy_target)
from assistant.confidence import MIN_BAND_ANSWERS


def _judged(n: int, right: bool, holdout: bool, prefix: str) -> list[Judged]:
    # "change" answers carry no fitted model: their confidence is the route's prior (0.9)
    return [Judged("change", {}, "right" if right else "wrong", False, False, f"{prefix}{i}", holdout) for i in range(n)]


def test_held_out_figures_are_kept_apart_for_the_holdout_part():
    judged = _judged(90, True, False, "dev") + _judged(5, True, True, "hold") + _judged(5, False, True, "bad")
    estimates = cross_validated(judged, (0.0, 0.1, 0.35))
    loose, strict = estimates[0.35], estimates[0.0]
    assert (loose.wrong_rate, loose.holdout_wrong_rate) == (0.05, 0.5)  # every answer kept
    assert (loose.accuracy, loose.holdout_accuracy) == (0.95, 0.5)
    assert (strict.wrong_rate, strict.holdout_wrong_rate) == (0.0, 0.0)  # every answer declined
    assert len(loose.kept) == SHUFFLES * 100 and len(loose.kept_holdout) == SHUFFLES * 10
    # in the fit the holdout part's 5 wrong answers weigh HOLDOUT_WEIGHT times: over 10% in sample
    assert HOLDOUT_WEIGHT > 2 and estimates[0.1].wrong_rate == 0.0


def test_without_a_holdout_part_its_figures_are_absent():
    estimate = cross_validated(_judged(20, True, False, "dev"), (0.1,))[0.1]
    assert estimate.holdout_wrong_rate is None and estimate.kept_holdout == []
    assert estimate.within(0.03)


def _estimate(wrong: float, holdout_wrong: float | None) -> Estimate:
    return Estimate(0.5, wrong, None if holdout_wrong is None else 0.5, holdout_wrong, [], [])


def test_the_policy_keeps_both_parts_within_the_limit():
    estimates = {0.01: _estimate(0.01, 0.02), 0.02: _estimate(0.02, 0.03), 0.03: _estimate(0.025, 0.05)}
    assert policy_target(estimates, 0.03) == 0.02  # 0.03 keeps dev within 3% but not the holdout part
    assert policy_target(estimates, 0.001) == 0.01  # none is within: the strictest


def test_bands_are_fitted_on_the_holdout_part_when_it_holds_enough_answers():
    enough = [(0.125, True)] * (MIN_BAND_ANSWERS * SHUFFLES)
    estimate = Estimate(0.5, 0.01, 0.5, 0.01, [(0.25, False)] * 5, enough)
    assert held_out_answers(estimate, 0.5) == [(0.625, True)] * len(enough)  # margins over the final threshold
    few = Estimate(0.5, 0.01, 0.5, 0.01, [(0.25, False)] * 5, enough[:3])
    assert held_out_answers(few, 0.5) == [(0.75, False)] * 5
