"""Running the assistant and the retrievers over gold items, producing ``ItemResult`` records.

Both sides are injectable callables so tests need no model or index:

* ``ask(question) -> dict`` (or an object with ``to_dict()``): the assistant's answer object.
  ``default_ask()`` wraps ``assistant.load_assistant()``, imported only when called.
* ``search(query, k, mode) -> list`` of hits (``index.Hit``, dicts with ``section``, or section
  strings). ``default_search()`` wraps ``index.open_index().search``.

Saved answers (the output of ``python -m assistant ask --json --batch FILE``, one object per
line in gold order) can be scored instead of asking: ``load_answers()``.

Any failure becomes one ``EvalError`` line naming the gold item (or file and line).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .gold import EvalError, GoldItem, InputError, display_path
from .records import MODES, ItemResult, parse_answer, section_of
from .score import SEARCH_K

AskFn = Callable[[str], Any]
SearchFn = Callable[[str, int, str], Sequence[Any]]
Progress = Callable[[str, int, int], None]


def _where(item: GoldItem) -> str:
    return f"gold item {item.id}" + (f" (line {item.line})" if item.line else "")


def default_ask() -> AskFn:
    """``assistant.load_assistant()``'s ``ask``, returning answer dicts. Raises EvalError if unavailable."""
    try:
        from assistant import load_assistant
    except ImportError as e:
        raise EvalError(
            f"the assistant is not available (cannot import assistant.load_assistant: {e}); "
            "score saved answers with --answers FILE, or use --no-answers"
        ) from None
    try:
        assistant = load_assistant()
    except Exception as e:  # one line for the CLI; --traceback shows the chain
        raise EvalError(f"loading the assistant failed: {type(e).__name__}: {e}") from e

    # A dev question is scored with its own paraphrase group left out of the question bank, which
    # holds dev's questions (issue 34): its figures are of new wordings, not of the question itself.
    from .bank_eval import dev_groups

    assistant.resources.bank_left_out_by_question = dev_groups()

    def ask(question: str) -> Any:
        return assistant.ask(question)

    return ask


def default_search(index_dir: str | None = None) -> SearchFn:
    """``index.open_index(index_dir).search`` (builds a missing or stale index). Raises EvalError."""
    try:
        from index import open_index
    except ImportError as e:
        raise EvalError(f"the index is not available (cannot import index.open_index: {e}); use --no-retrieval") from None
    try:
        searcher = open_index(index_dir)
    except Exception as e:
        raise EvalError(f"opening the index failed: {type(e).__name__}: {e}") from e
    return searcher.search


def load_answers(path: str | Path) -> list[tuple[str, Any]]:
    """Saved answer objects, one JSON object per non-blank line: [(\"FILE line N\", object)]."""
    shown = display_path(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{shown}: answers file not found") from None
    except UnicodeDecodeError:
        raise InputError(f"{shown}: not UTF-8") from None
    except OSError as e:
        raise InputError(f"{shown}: cannot read ({e.strerror or e})") from None
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"{shown} line {n}"
        try:
            out.append((where, json.loads(line)))
        except json.JSONDecodeError as e:
            raise InputError(f"{where}: not valid JSON ({e.msg} at column {e.colno})") from None
    return out


def _as_dict(obj: Any) -> Any:
    to_dict = getattr(obj, "to_dict", None)
    return to_dict() if callable(to_dict) else obj


def run(
    items: Sequence[GoldItem],
    *,
    ask: AskFn | None = None,
    answers: Sequence[tuple[str, Any]] | None = None,
    answers_source: str = "saved answers",
    search: SearchFn | None = None,
    modes: Sequence[str] = MODES,
    progress: Progress | None = None,
) -> list[ItemResult]:
    """Answer every item (by ``ask``, or from saved ``answers`` in gold order; with neither, the
    results carry no answers) and, when ``search`` is given, rank sections for every answerable
    item in each of ``modes``."""
    if ask is not None and answers is not None:
        raise ValueError("give ask= or answers=, not both")
    if answers is not None and len(answers) < len(items):
        raise InputError(f"{answers_source}: {len(answers)} answers for {len(items)} questions")
    bad_modes = [m for m in modes if m not in MODES]
    if bad_modes:
        raise ValueError(f"unknown retrieval mode(s) {bad_modes}")

    results = []
    for n, item in enumerate(items, 1):
        wall_ms = None
        answer = None
        if ask is not None:
            where = _where(item)
            t0 = time.perf_counter()
            try:
                obj = _as_dict(ask(item.question))
            except Exception as e:
                raise EvalError(f"{where}: the assistant raised {type(e).__name__}: {e}") from e
            wall_ms = (time.perf_counter() - t0) * 1000.0
            answer = parse_answer(obj, where)
        elif answers is not None:
            where, obj = answers[n - 1]
            given = obj.get("question") if isinstance(obj, dict) else None
            if isinstance(given, str) and given.strip() != item.question.strip():
                raise InputError(f"{where}: answer is for {given.strip()[:60]!r}, but gold item {item.id} asks {item.question.strip()[:60]!r}")
            try:
                answer = parse_answer(obj, where)
            except EvalError as e:
                raise InputError(str(e)) from None

        retrieved: dict[str, tuple[str, ...]] = {}
        if search is not None and not item.abstain:
            for mode in modes:
                try:
                    hits = search(item.question, SEARCH_K, mode)
                except Exception as e:
                    raise EvalError(f"{_where(item)}: {mode} search raised {type(e).__name__}: {e}") from e
                retrieved[mode] = tuple(section_of(h) for h in list(hits)[:SEARCH_K])
        results.append(ItemResult(item=item, answer=answer, wall_ms=wall_ms, retrieved=retrieved))
        if progress:
            progress("questions", n, len(items))
    return results
