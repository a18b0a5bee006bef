"""The calibration fit: the confidence model and the answering threshold, fitted on dev.

Run by ``python -m assistant calibrate`` (which imports this module only when that command runs):
the fit needs the evaluation's scorer and gold set, and lives here so that the ``assistant``
package imports nothing of ``eval`` at module level (``eval`` uses the assistant; not the reverse).

Answers every dev question with the uncalibrated assistant and judges each answer with the
evaluation's strict scorer. One logistic model per route is fitted on the route's signals, and
the answering threshold is the lowest at which wrong answers stay within ``--max-wrong-rate`` of
the questions *as estimated on questions the fit did not see*: 5-fold cross-validation, repeated
with ten shuffles, picks how strict the in-sample threshold must be (an in-sample rate
understates the rate on new wording). The folds keep a paraphrase group on one side: with a
question's other wordings in the fit, the held-out estimate measured memory of that question, not
new wording.

Dev's holdout part (``eval/holdout.jsonl``, written blind and read in aggregate only) is fitted on
with the rest, but it also sets the policy: held out, its wrong answers must stay within the limit
too, and the "how sure" bands are fitted on its held-out answers. Answers to the rest of dev are
better than answers to new questions because the answer layer was written against them (its
held-out rate of 2.9% stood against 6.3% on the sealed test), so their held-out figures alone
promise more than new questions get. Writes ``assistant/data/calibration.json`` atomically.
The test set is never read.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from assistant.confidence import (CALIBRATION, FEATURES, MIN_BAND_ANSWERS, Calibration, choose_bands, choose_threshold,
                                  fit_route)

from . import atomic
from .gold import SETS, load_gold
from .records import parse_answer
from .score import judge_answer

MAX_WRONG_RATE = 0.03  # of the questions (issue 11: a wrong-answer rate of at most 3%)
# 0 to 3% of the questions, a step of 0.1 point: with a coarser step (0.25) the chosen target
# jumped a whole step, and dev accuracy two points, on a held-out rate of 3.02% against 2.92%.
IN_SAMPLE_TARGETS = tuple(round(0.001 * i, 4) for i in range(31))
FOLDS, SHUFFLES = 5, 10  # ten shuffles: the chosen target moves less with each small change
# The holdout part's answers weigh this many times the rest in the route models' fit and the
# in-sample threshold. Chosen by its held-out figures (1,943 dev questions, 311 of them holdout, 4
# shuffles): at held-out holdout wrong answers within 3%, its accuracy was 0.25 at weight 1, 0.28 at 3,
# 0.295 at 6, 0.29 at 10 and at 20.
HOLDOUT_WEIGHT = 6


@dataclass(frozen=True)
class Judged:
    route: str
    signals: dict
    outcome: str  # right, wrong, abstained (eval.score)
    should_abstain: bool
    abstained: bool
    group: str = ""  # paraphrase group (the item's id when it has none): folds keep a group together
    holdout: bool = False  # from dev's holdout part (written blind; see the module's docstring)

    @property
    def weight(self) -> int:
        """How many times the item counts in a fit: the holdout part's answers stand for the questions
        the assistant will be asked, the rest of dev's for questions it was written against."""
        return HOLDOUT_WEIGHT if self.holdout else 1

    @property
    def answered(self) -> bool:
        return not self.abstained and self.outcome != "abstained"


def fit(judged: list[Judged], target: float) -> Calibration:
    """Route models and the in-sample threshold for ``target`` (wrong answers / questions)."""
    return _fitted_models(judged).thresholded(target)


@dataclass(frozen=True)
class _Models:
    """Route models fitted on some answers, and those answers' confidences: each in-sample target
    then only chooses a threshold (the models do not depend on it)."""

    routes: dict
    scored: list[tuple[float, bool]]
    questions: int

    def thresholded(self, target: float) -> Calibration:
        return Calibration(choose_threshold(self.scored, self.questions, target), self.routes)


def _fitted_models(judged: list[Judged]) -> _Models:
    rows: dict[str, list[tuple[dict, bool]]] = defaultdict(list)
    for j in judged:
        if j.answered:
            rows[j.route].extend([(j.signals, j.outcome == "right")] * j.weight)
    models = {route: fit_route(found, FEATURES[route]) for route, found in sorted(rows.items())
              if route in FEATURES and len(found) >= 5}
    unthresholded = Calibration(0.0, models)
    # Every answer counts towards the wrong-answer rate, routes without a model by their prior.
    scored = [(confidence, right) for route, found in rows.items() for signals, right in found
              if (confidence := unthresholded.confidence(route, signals)) is not None]
    return _Models(models, scored, sum(j.weight for j in judged))


def outcome_with(calibration: Calibration, j: Judged) -> str:
    """What the item's outcome becomes when answers below the threshold are declined."""
    if not j.answered:
        return j.outcome
    confidence = calibration.confidence(j.route, j.signals)
    if confidence is None or confidence >= calibration.threshold:
        return j.outcome
    return "right" if j.should_abstain else "abstained"


@dataclass(frozen=True)
class Estimate:
    """Held-out figures of one in-sample target, averaged over the shuffles: on all of dev and on its
    holdout part; and each held-out answer as (its fold model's confidence over its fold's
    threshold, right), over all of dev and over the holdout part: what the bands are fitted on."""

    accuracy: float
    wrong_rate: float
    holdout_accuracy: float | None
    holdout_wrong_rate: float | None
    kept: list[tuple[float, bool]]
    kept_holdout: list[tuple[float, bool]]

    def within(self, max_wrong_rate: float) -> bool:
        """Held-out wrong answers within the limit on all of dev and on its holdout part."""
        return self.wrong_rate <= max_wrong_rate and (self.holdout_wrong_rate or 0.0) <= max_wrong_rate


def cross_validated(judged: list[Judged], targets: tuple[float, ...]) -> dict[float, Estimate]:
    """For each in-sample target, its held-out ``Estimate``. The route models are fitted once a
    fold, for every target."""
    tallies = {target: {"all": [0, 0, []], "holdout": [0, 0, []]} for target in targets}
    for seed in range(SHUFFLES):
        fold_of = folds_by_group([j.group for j in judged], seed)
        for fold in range(FOLDS):
            held = [judged[i] for i, f in enumerate(fold_of) if f == fold]
            held_holdout = [j for j in held if j.holdout]
            models = _fitted_models([j for j, f in zip(judged, fold_of) if f != fold])
            for target in targets:
                calibration = models.thresholded(target)
                _tally(calibration, held, tallies[target]["all"])
                _tally(calibration, held_holdout, tallies[target]["holdout"])
    total = SHUFFLES * len(judged)
    total_holdout = SHUFFLES * sum(j.holdout for j in judged)
    return {target: Estimate(parts["all"][0] / total, parts["all"][1] / total,
                             parts["holdout"][0] / total_holdout if total_holdout else None,
                             parts["holdout"][1] / total_holdout if total_holdout else None,
                             parts["all"][2], parts["holdout"][2])
            for target, parts in tallies.items()}


def _tally(calibration: Calibration, held: list[Judged], tally: list) -> None:
    """Add the held-out items' outcomes under ``calibration`` to ``tally`` ([right, wrong, kept])."""
    for j in held:
        outcome = outcome_with(calibration, j)
        tally[0] += outcome == "right"
        tally[1] += outcome == "wrong"
        confidence = calibration.confidence(j.route, j.signals)
        if j.answered and outcome != "abstained" and not j.should_abstain and confidence is not None:
            tally[2].append((confidence - calibration.threshold, outcome == "right"))


def _band_figures(held_out: list[tuple[float, bool]], bands: dict[str, float]) -> dict:
    """Held-out answers and their accuracy in each stated band (what the bands promise, measured)."""
    probe = Calibration(0.0, {}, {}, bands)
    figures: dict[str, dict] = {}
    for confidence, right in held_out:
        band = figures.setdefault(probe.how_sure(confidence), {"answers": 0, "right": 0})
        band["answers"] += 1
        band["right"] += right
    return {name: {**f, "accuracy": round(f["right"] / f["answers"], 4)} for name, f in sorted(figures.items())}


def folds_by_group(groups: list[str], seed: int) -> list[int]:
    """A fold for each item, the same for every item of a group: the groups are shuffled (seeded)
    and dealt round-robin, so the folds hold near-equal numbers of groups."""
    distinct = sorted(set(groups))
    random.Random(seed).shuffle(distinct)
    fold = {group: i % FOLDS for i, group in enumerate(distinct)}
    return [fold[group] for group in groups]


def judge_dev(assistant, progress=None) -> list[Judged]:
    """Every dev question, its holdout part included, answered by ``assistant`` and judged."""
    parts = [(item, False) for item in load_gold(SETS["dev"])]
    if SETS["holdout"].exists():
        parts += [(item, True) for item in load_gold(SETS["holdout"])]
    judged = []
    for number, (item, holdout) in enumerate(parts, 1):
        answer = assistant.ask(item.question)
        judgement = judge_answer(item, parse_answer(answer.to_dict(), item.id))
        judged.append(Judged(answer.route, dict(answer.signals), judgement.outcome, item.abstain, answer.abstained,
                             item.group or item.id, holdout))
        if progress:
            progress(number, len(parts))
    return judged


def policy_target(estimates: dict[float, Estimate], max_wrong_rate: float) -> float:
    """The loosest in-sample target whose held-out wrong answers stay within ``max_wrong_rate`` on
    all of dev and on its holdout part (the strictest target when none does)."""
    safe = [t for t in sorted(estimates) if estimates[t].within(max_wrong_rate)]
    return max(safe) if safe else min(estimates)


def held_out_answers(estimate: Estimate, threshold: float) -> list[tuple[float, bool]]:
    """The held-out answers the bands are fitted on, as (confidence, right) against ``threshold``:
    the holdout part's when it holds enough for a band, since its figures are the ones new questions
    get; else all of dev's. Held-out confidences are measured against their fold's threshold; the
    bands sit as far above the final one."""
    kept = estimate.kept_holdout if len(estimate.kept_holdout) >= MIN_BAND_ANSWERS * SHUFFLES else estimate.kept
    return [(threshold + margin, right) for margin, right in kept]


def calibrate(max_wrong_rate: float = MAX_WRONG_RATE, path: Path = CALIBRATION, progress=None) -> Calibration:
    from assistant import load_assistant

    assistant = load_assistant(calibrated=False)
    judged = judge_dev(assistant, progress)
    estimates = cross_validated(judged, IN_SAMPLE_TARGETS)
    target = policy_target(estimates, max_wrong_rate)
    final = fit(judged, target)
    held_out = held_out_answers(estimates[target], final.threshold)
    bands = choose_bands(held_out, final.threshold, MIN_BAND_ANSWERS * SHUFFLES)  # each item is held out once a shuffle
    encoder = getattr(assistant.searcher, "encoder", None)
    fitted_on = {
        "set": "dev",
        "model": getattr(encoder, "model_id", None),  # meaning signals are comparable only under this model
        **_fit_figures(judged, estimates, target, final, max_wrong_rate),
        "bands_held_out": _band_figures(held_out, bands),
    }
    calibration = Calibration(final.threshold, final.routes, fitted_on, bands)
    atomic.write_text(path, json.dumps(calibration.to_json(), indent=2) + "\n")
    return calibration


def _fit_figures(judged: list[Judged], estimates: dict[float, Estimate], target: float, final: Calibration,
                 max_wrong_rate: float) -> dict:
    """What calibration.json records of the fit: the questions, the policy, the held-out figures of
    every target and the answers the final model keeps (in sample)."""
    kept = [j for j in judged if j.answered and outcome_with(final, j) == j.outcome]
    return {
        "questions": len(judged),
        "holdout_questions": sum(j.holdout for j in judged),
        "max_wrong_rate": max_wrong_rate,
        "in_sample_target": target,
        "cross_validated": {f"{t:g}": _rounded(e) for t, e in estimates.items()},
        "answers_by_route": {route: sum(j.route == route and j.answered for j in judged)
                             for route in sorted({j.route for j in judged if j.answered})},
        "kept_answers": len(kept),
        "kept_right": sum(j.outcome == "right" for j in kept),
        "kept_wrong": sum(j.outcome == "wrong" for j in kept),
    }


def _rounded(estimate: Estimate) -> dict:
    figures = {"accuracy": estimate.accuracy, "wrong_rate": estimate.wrong_rate}
    if estimate.holdout_accuracy is not None:
        figures |= {"holdout_accuracy": estimate.holdout_accuracy, "holdout_wrong_rate": estimate.holdout_wrong_rate}
    return {name: round(value, 4) for name, value in figures.items()}
