"""Did an answer use the gold table cell? Comparing a gold item's (table, row, column) with the
``lookups`` an answer carries (cells as ``python -m ingest tables --json`` prints them).

Labels are compared by their words (lower case, dashes unified, footnote markers such as
``(2)`` and ``*`` dropped): the gold row's words must all be among the words of the cell's
category, row and column, and the gold column (a district symbol or a printed column heading)
among the cell's row and column words, so a standards table read with districts as rows or as
columns is the same cell. The two tables printed as "Table 2-4" are told apart by section.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .match import has_fact, normalize, normalize_code

_FOOTNOTE = re.compile(r"\(\d{1,2}\)|\*")
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")
# Words that carry no identity in a label ("Table 3-7 row 'Banks, financial services'").
_FILLER = frozenset({"and", "or", "the", "of", "a", "an", "for", "in", "to", "with"})


def label_words(label: str | None) -> frozenset[str]:
    text = normalize(_FOOTNOTE.sub(" ", label or ""))
    return frozenset(w for w in _WORD.findall(text) if w not in _FILLER)


def table_key(label: str | None) -> str:
    """"Table 2-2 Cannabis" / "2-2 cannabis" -> "2-2 cannabis"."""
    text = normalize(label or "")
    return re.sub(r"^table\s+", "", text).strip()


def _fold(word: str) -> str:
    """Plural folding for label comparison only ("Banks" ~ "Bank", "uses" ~ "use")."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _covers(needed: frozenset[str], have: frozenset[str]) -> bool:
    return {_fold(w) for w in needed} <= {_fold(w) for w in have}


def cell_matches(
    lookup: Mapping[str, Any],
    *,
    table: str,
    row: str | None,
    column: str | None,
    sections: Sequence[str] = (),
) -> bool:
    """``lookup`` is the gold cell (table, row, column; section where the table label is shared)."""
    if table_key(lookup.get("table")) != table_key(table):
        return False
    section = lookup.get("section")
    if sections and isinstance(section, str) and section not in sections:
        return False
    cell_words = label_words(lookup.get("category")) | label_words(lookup.get("row")) | label_words(lookup.get("column"))
    if row and not _covers(label_words(row), cell_words):
        return False
    if column:
        place = label_words(lookup.get("row")) | label_words(lookup.get("column"))
        printed = label_words(lookup.get("column"))
        # the parser may keep only the last line of a two-line heading ("Minimum Parcel Size" / "Area")
        if not (_covers(label_words(column), place) or (printed and _covers(printed, label_words(column)))):
            return False
    return True


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _value_agrees(lookup: Mapping[str, Any], expected: str | None, together: str = "") -> bool:
    """A permit code must be the same code; a printed standard ("40 ft", "8 feet; 16 feet") must
    have each of its numbers in the cell's value (or in ``together``, the values of every matched
    cell of a row printed over several columns)."""
    if expected is None:
        return True
    want = normalize_code(expected)
    value = str(lookup.get("value", "") or "")
    if want is not None:
        return normalize_code(value) == want
    numbers = _NUMBER.findall(expected)
    if not numbers:
        return normalize(value) == normalize(expected)
    return all(has_fact(f"{value} {together}", number) for number in numbers)


def cell_problem(
    lookups: Sequence[Mapping[str, Any]],
    *,
    table: str,
    row: str | None,
    column: str | None,
    value: str | None,
    document: str | None,
    sections: Sequence[str] = (),
) -> str:
    """Why the answer did not use the gold cell ("" when it did)."""
    same = [lk for lk in lookups if cell_matches(lk, table=table, row=row, column=column, sections=sections)]
    where = f"{table} / {row or '?'} / {column or '?'}"
    if not same:
        used = ", ".join(sorted({f"{lk.get('table')} / {lk.get('row')} / {lk.get('column')}" for lk in lookups})[:3])
        return f"did not use the cell {where}" + (f" (used {used})" if used else " (no table cell)")
    together = " ".join(str(lk.get("value", "") or "") for lk in same)
    if not any(_value_agrees(lk, value, together) for lk in same):
        return f"cell {where} read as {same[0].get('value')!r}, gold {value!r}"
    if document and not any(lk.get("document") == document for lk in same if _value_agrees(lk, value, together)):
        return f"cell {where} taken from document {same[0].get('document')}, in force is {document}"
    return ""


def row_problem(
    lookups: Sequence[Mapping[str, Any]],
    *,
    table: str,
    row: str,
    cells: Sequence[tuple[str, str]],
    sections: Sequence[str] = (),
) -> str:
    """For "which districts" items: every district where the row allows the use is among the
    lookups with its printed value ("" when so)."""
    missing = []
    for column, value in cells:
        if normalize_code(value) == "-":
            continue
        same = [lk for lk in lookups if cell_matches(lk, table=table, row=row, column=column, sections=sections)]
        if not any(_value_agrees(lk, value) for lk in same):
            missing.append(f"{column}={value}")
    return f"row {table} / {row}: missing or wrong {', '.join(missing)}" if missing else ""
