"""Simple answerers scored beside the assistant, on the same questions, so its figures mean
something: "always abstain", and the top passage of a retriever quoted as the answer.

Each baseline is an ``ask(question) -> answer dict`` in the CLI contract; a retriever baseline
never abstains and uses no table cells, so it can be right only where a passage states the facts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from .records import section_of
from .score import SEARCH_K

SearchFn = Callable[[str, int, str], Sequence[Any]]
AskFn = Callable[[str], dict[str, Any]]

ABSTAIN_TEXT = "The code documents do not answer this question."
QUOTE_CHARS = 600  # a passage baseline quotes the head of its top hit, as a reader would skim it


def cached(search: SearchFn) -> SearchFn:
    """``search`` remembered per (query, k, mode): retrieval scoring and the baselines share hits."""

    @lru_cache(maxsize=None)
    def _search(query: str, k: int, mode: str) -> tuple[Any, ...]:
        return tuple(search(query, k, mode))

    return _search


def always_abstain(question: str) -> dict[str, Any]:
    return {"question": question, "answer": ABSTAIN_TEXT, "abstained": True, "citations": [], "lookups": []}


def _hit_text(hit: Any) -> str:
    text = hit.get("text") if isinstance(hit, dict) else getattr(hit, "text", "")
    return " ".join(str(text or "").split())


def top_passage(search: SearchFn, mode: str) -> AskFn:
    def ask(question: str) -> dict[str, Any]:
        hits = list(search(question, SEARCH_K, mode))
        if not hits:
            return always_abstain(question)
        top = hits[0]
        text = _hit_text(top)[:QUOTE_CHARS] or "(no text)"
        return {
            "question": question,
            "answer": text,
            "abstained": False,
            "citations": [{"section": section_of(top)}],
            "lookups": [],
            "route": "passage",
        }

    return ask


def baseline_answerers(search: SearchFn | None) -> dict[str, AskFn]:
    """The baselines to run: always abstain, and with a retriever its top BM25 and hybrid passage."""
    out: dict[str, AskFn] = {"always abstain": always_abstain}
    if search is not None:
        out["top BM25 passage"] = top_passage(search, "bm25")
        out["top hybrid passage"] = top_passage(search, "hybrid")
    return out
