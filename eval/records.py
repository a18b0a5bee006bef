"""Typed records passed from the runner to the scorer: what the assistant said, what retrieval ranked."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .gold import EvalError, GoldItem

MODES = ("bm25", "dense", "hybrid")  # retrieval modes compared, in report order


@dataclass(frozen=True)
class AnswerView:
    """The parts of an assistant answer object (``Answer.to_dict()``) that are scored."""

    text: str
    abstained: bool
    cited_sections: tuple[str, ...]  # unique, in citation order
    timing_ms: float | None = None
    lookups: tuple[dict[str, Any], ...] = ()  # table cells the answer used
    confidence: float | None = None  # the assistant's own, 0-1, when it gives one
    route: str | None = None
    how_sure: str = ""  # the band the answer states ("high", "medium", "low"), when it states one

    @property
    def first_line(self) -> str:
        return self.text.strip().split("\n", 1)[0]


@dataclass(frozen=True)
class ItemResult:
    """One gold item with the assistant's answer and, per retrieval mode, the ranked section ids."""

    item: GoldItem
    answer: AnswerView | None  # None when answers were not collected
    wall_ms: float | None = None  # measured around the in-process ask() call
    retrieved: dict[str, tuple[str, ...]] = field(default_factory=dict)  # mode -> sections, rank order


def _timing(value: Any) -> float | None:
    """``timing_ms`` as one number: a number as is, or the ``total``/``total_ms`` of a dict."""
    if isinstance(value, dict):
        value = value.get("total", value.get("total_ms"))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) and value >= 0 else None


def parse_answer(obj: Any, where: str) -> AnswerView:
    """Check an answer object (the ``--json`` contract) and keep what is scored.

    Raises EvalError naming ``where`` for a non-object, a missing/mistyped ``answer`` or
    ``abstained``, or citations that are not objects with a ``section`` string.
    """
    if not isinstance(obj, dict):
        raise EvalError(f"{where}: answer is not a JSON object")
    text = obj.get("answer")
    if not isinstance(text, str):
        raise EvalError(f"{where}: answer object has no text field 'answer'")
    abstained = obj.get("abstained")
    if not isinstance(abstained, bool):
        raise EvalError(f"{where}: answer object has no true/false field 'abstained'")
    citations = obj.get("citations", [])
    if not isinstance(citations, list):
        raise EvalError(f"{where}: 'citations' must be a list")
    sections: list[str] = []
    for i, c in enumerate(citations, 1):
        sec = c.get("section") if isinstance(c, dict) else None
        if not isinstance(sec, str):
            raise EvalError(f"{where}: citation {i} has no 'section' string")
        sec = sec.strip()
        if sec and sec not in sections:
            sections.append(sec)
    lookups = obj.get("lookups", [])
    if not isinstance(lookups, list) or not all(isinstance(lk, dict) for lk in lookups):
        raise EvalError(f"{where}: 'lookups' must be a list of objects")
    confidence = obj.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 <= confidence <= 1.0:
        confidence = None
    route = obj.get("route")
    return AnswerView(
        text=text,
        abstained=abstained,
        cited_sections=tuple(sections),
        timing_ms=_timing(obj.get("timing_ms")),
        lookups=tuple(lookups),
        confidence=float(confidence) if confidence is not None else None,
        route=route if isinstance(route, str) else None,
        how_sure=obj.get("how_sure") if isinstance(obj.get("how_sure"), str) else "",
    )


def section_of(hit: Any) -> str:
    """The section id of a search hit: an ``index.Hit`` (``.section``), a dict, or a plain string."""
    if isinstance(hit, str):
        return hit
    if isinstance(hit, dict):
        sec = hit.get("section")
    else:
        sec = getattr(hit, "section", None)
    if not isinstance(sec, str):
        raise EvalError(f"search hit {hit!r:.60} has no section id")
    return sec
