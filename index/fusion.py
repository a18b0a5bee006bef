"""Reciprocal rank fusion: a pure function over ranked lists (pyserini's habit)."""

from __future__ import annotations

from typing import Hashable, Iterable, Sequence, TypeVar

RRF_K = 60

Id = TypeVar("Id", bound=Hashable)


def rrf(ranked_lists: Sequence[Sequence[Id]], k: int = RRF_K) -> list[tuple[Id, float]]:
    """Fuse ranked lists of ids (best first) into (id, score), score = sum of 1 / (k + rank).

    Ties (equal fused score) are broken by id, ascending, so the result never depends on input
    order beyond the ranks themselves. A list that repeats an id counts only its first rank.
    """
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    scores: dict[Id, float] = {}
    for ranked in ranked_lists:
        seen: set[Id] = set()
        for rank, item in enumerate(ranked, 1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return fused_order(scores.items())


def fused_order(scored: Iterable[tuple[Id, float]]) -> list[tuple[Id, float]]:
    """Fused scores best first, ties by id ascending: ``rrf``'s order, also applied to an engine's own
    fusion so both rank alike. Rounding keeps float summation order (3+ lists) from deciding what is
    really a tie."""
    return sorted(scored, key=lambda p: (-round(p[1], 12), p[0]))
