"""Reciprocal rank fusion: formula, determinism, tie-breaks."""

from __future__ import annotations

import itertools

import pytest

from index.fusion import rrf


def test_formula_k60():
    fused = dict(rrf([["a", "b"], ["b", "c"]]))
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 62)


def test_agreement_wins():
    assert [i for i, _ in rrf([["a", "b", "c"], ["d", "b", "e"]])][0] == "b"


def test_ties_break_by_id():
    # a and b have mirrored ranks: equal scores, so id order decides, whatever the list order
    for lists in (
        [["b", "a"], ["a", "b"]],
        [["a", "b"], ["b", "a"]],
    ):
        assert [i for i, _ in rrf(lists)] == ["a", "b"]


def test_same_result_for_any_order_of_the_lists():
    lists = [["d", "a", "c"], ["b", "c", "e"], ["a", "e", "d", "b"]]
    results = {tuple(rrf(list(p))) for p in itertools.permutations(lists)}
    assert len(results) == 1


def test_repeated_id_counts_once_per_list():
    assert dict(rrf([["a", "a", "b"]]))["a"] == pytest.approx(1 / 61)


def test_empty_and_bad_k():
    assert rrf([]) == []
    assert rrf([[], []]) == []
    with pytest.raises(ValueError):
        rrf([["a"]], k=-1)
