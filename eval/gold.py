"""Reading the gold set (``eval/gold.jsonl``) into typed items, with errors that name file and line.

Only the fields the scorer needs are checked here; ``tests/test_gold_set.py`` owns the full
structural checks of the shipped set. A missing file, a line that is not a JSON object, a missing
or mistyped field, or a repeated id raises ``GoldError("FILE line N: reason")``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EVAL_DIR = Path(__file__).resolve().parent
# ``holdout`` is a part of dev written blind (eval/GOLD.md): the calibration fits on it with the
# rest of dev, but, like ``test``, it is read in aggregate only, so its held-out figures stay an
# estimate for questions nobody tuning the answer layer has read.
SETS = {"dev": EVAL_DIR / "dev.jsonl", "test": EVAL_DIR / "test.jsonl", "holdout": EVAL_DIR / "holdout.jsonl"}
SEALED = frozenset({"test", "holdout"})  # no item, id or miss of these leaves the scorer
DEFAULT_GOLD = SETS["dev"]  # tuned on freely; ``test`` is frozen and only measured


class EvalError(Exception):
    """Evaluation cannot go on; the message is one line naming the file/line or gold item."""


class InputError(EvalError):
    """An input file (gold set, saved answers, baseline) is missing or malformed."""


class GoldError(InputError):
    """The gold file is missing or malformed."""


@dataclass(frozen=True)
class GoldPart:
    """One part of a multi-part question; ``answerable`` is false when the code does not answer it."""

    question: str
    answerable: bool
    expected_facts: tuple[str, ...] = ()
    contradicting_facts: tuple[str, ...] = ()
    expected_sections: tuple[str, ...] = ()


@dataclass(frozen=True)
class GoldItem:
    id: str
    question: str
    category: str
    expected_answer: str
    expected_facts: tuple[str, ...]
    expected_sections: tuple[str, ...]
    abstain: bool
    contradicting_facts: tuple[str, ...] = ()
    expected_document: str | None = None
    line: int = 0  # 1-based line in the gold file
    # table answers: the gold cell (table label, printed row, district column, printed value)
    table: str | None = None
    row: str | None = None
    column: str | None = None
    expected_value: str | None = None
    expected_cells: tuple[tuple[str, str], ...] = ()  # district_list items: (column, value) of the whole row
    group: str | None = None  # paraphrase group: three wordings of one question share it
    parts: tuple["GoldPart", ...] = ()  # a question that asks several things: each part, in order
    style: str | None = None  # how it is asked (resident, staff_memo, long_story, unit_conversion, ...)

    @property
    def expected_first_line(self) -> str:
        return self.expected_answer.strip().split("\n", 1)[0]


def display_path(path: str | Path) -> str:
    """``path`` relative to the working directory when it is under it (shorter error lines)."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(p)


def _strings(obj: dict[str, Any], key: str, where: str, *, required: bool = True) -> tuple[str, ...]:
    if key not in obj:
        if required:
            raise GoldError(f"{where}: missing field {key!r}")
        return ()
    value = obj[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise GoldError(f"{where}: field {key!r} must be a list of non-empty strings")
    return tuple(value)


def _string(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise GoldError(f"{where}: field {key!r} must be a non-empty string" if key in obj else f"{where}: missing field {key!r}")
    return value


def _optional_string(obj: dict[str, Any], key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise GoldError(f"{where}: field {key!r} must be a non-empty string or null")
    return value


def _cells(obj: dict[str, Any], where: str) -> tuple[tuple[str, str], ...]:
    value = obj.get("expected_cells")
    if value is None:
        return ()
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise GoldError(f"{where}: field 'expected_cells' must map column names to printed values")
    return tuple(value.items())


def _parts(obj: dict[str, Any], where: str) -> tuple[GoldPart, ...]:
    value = obj.get("parts")
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) < 2 or not all(isinstance(p, dict) for p in value):
        raise GoldError(f"{where}: field 'parts' must be a list of two or more objects")
    parts = []
    for n, part in enumerate(value, 1):
        here = f"{where} part {n}"
        answerable = part.get("answerable")
        if not isinstance(answerable, bool):
            raise GoldError(f"{here}: field 'answerable' must be true or false")
        facts = _strings(part, "expected_facts", here, required=False)
        if answerable and not facts:
            raise GoldError(f"{here}: an answerable part needs at least one expected fact")
        parts.append(GoldPart(
            question=_string(part, "question", here), answerable=answerable, expected_facts=facts,
            contradicting_facts=_strings(part, "contradicting_facts", here, required=False),
            expected_sections=_strings(part, "expected_sections", here, required=False)))
    return tuple(parts)


def parse_item(obj: Any, where: str, line: int = 0) -> GoldItem:
    if not isinstance(obj, dict):
        raise GoldError(f"{where}: not a JSON object")
    abstain = obj.get("abstain")
    if not isinstance(abstain, bool):
        raise GoldError(f"{where}: field 'abstain' must be true or false" if "abstain" in obj else f"{where}: missing field 'abstain'")
    doc = obj.get("expected_document")
    if doc is not None and not isinstance(doc, str):
        raise GoldError(f"{where}: field 'expected_document' must be a string or null")
    item = GoldItem(
        id=_string(obj, "id", where),
        question=_string(obj, "question", where),
        category=_string(obj, "category", where),
        expected_answer=_string(obj, "expected_answer", where),
        expected_facts=_strings(obj, "expected_facts", where),
        expected_sections=_strings(obj, "expected_sections", where),
        abstain=abstain,
        contradicting_facts=_strings(obj, "contradicting_facts", where, required=False),
        expected_document=doc,
        line=line,
        table=_optional_string(obj, "table", where),
        row=_optional_string(obj, "row", where),
        column=_optional_string(obj, "column", where),
        expected_value=_optional_string(obj, "expected_value", where),
        expected_cells=_cells(obj, where),
        group=_optional_string(obj, "group", where),
        parts=_parts(obj, where),
        style=_optional_string(obj, "style", where),
    )
    if not abstain and not item.expected_facts:
        raise GoldError(f"{where}: an answerable item needs at least one expected fact")
    return item


def load_gold(path: str | Path = DEFAULT_GOLD) -> list[GoldItem]:
    """All items of a gold JSONL file, in file order (blank lines are skipped)."""
    shown = display_path(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise GoldError(f"{shown}: gold file not found") from None
    except IsADirectoryError:
        raise GoldError(f"{shown}: is a directory, not a gold file") from None
    except OSError as e:
        raise GoldError(f"{shown}: cannot read ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise GoldError(f"{shown} line {line}: not UTF-8") from None
    items: list[GoldItem] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"{shown} line {n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise GoldError(f"{where}: not valid JSON ({e.msg} at column {e.colno})") from None
        item = parse_item(obj, where, n)
        if item.id in seen:
            raise GoldError(f"{where}: id {item.id!r} already used on line {seen[item.id]}")
        seen[item.id] = n
        items.append(item)
    if not items:
        raise GoldError(f"{shown}: no gold items")
    return items
