"""Amendment precedence: the latest-dated document states a cell; every earlier statement is history.

Rows are matched across documents by label (letters and digits only, so dash and case variants
agree), preferring the row under the same category: a table may print one label under two
categories (002's Table 2-4 has "Brewery - Brew pub" under Industry and under Retail Trade).
A full restatement that omits a row leaves the row in force, marked not restated; an excerpt
(``TableVersion.partial``) amends only the rows it prints.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .text import letters_key
from .types import Cell, EffectiveCell, HistoryEntry, TableVersion
from .vocab import vocabulary


@dataclass
class _Row:
    category: str
    label: str
    cells: dict[str, list[Cell]] = field(default_factory=dict)  # column -> statements, oldest first
    restated: bool = True
    dropped_by: list[str] = field(default_factory=list)


def effective_cells(versions: Iterable[TableVersion]) -> list[EffectiveCell]:
    groups: dict[tuple[str, str], list[TableVersion]] = {}
    for version in versions:
        groups.setdefault((version.section, version.table), []).append(version)
    out: list[EffectiveCell] = []
    for key in sorted(groups):
        out.extend(_apply(sorted(groups[key], key=lambda v: v.date)))  # stable: same date keeps order
    return out


def _apply(versions: list[TableVersion]) -> list[EffectiveCell]:
    rows: list[_Row] = []
    for version in versions:
        printed = _rows_of(version)
        matches = _match(rows, [(category, label) for category, label, _ in printed])
        seen: set[int] = set()
        for (category, label, cells), index in zip(printed, matches):
            if index is None:
                rows.append(_Row(category, label))
                index = len(rows) - 1
            row = rows[index]
            seen.add(index)
            row.category, row.label = category, label  # the latest wording names the row
            if not version.partial:
                row.restated = True  # printed again by a full restatement: in force as printed
            for cell in cells:
                row.cells.setdefault(cell.column, []).append(cell)
        if not version.partial:
            for index, row in enumerate(rows):
                if index not in seen:
                    row.restated = False
                    row.dropped_by.append(version.document)
    out: list[EffectiveCell] = []
    for row in rows:
        for statements in row.cells.values():
            latest = statements[-1]
            history = tuple(
                HistoryEntry(c.value, c.document, c.date, c.footnotes, c.interim, c.review, c.reviewed)
                for c in statements[:-1]
            )
            out.append(EffectiveCell(latest, history, row.restated, tuple(row.dropped_by)))
    return out


def label_key(label: str) -> str:
    """Row identity across documents: letters and digits only ("MHPS" = "MHP-S", "off-sale" =
    "off sale"), after the vocabulary's equivalent spellings ("sq. ft." = "sf")."""
    text = label.lower()
    for pattern, replacement in vocabulary().row_equivalents:
        text = re.sub(pattern, replacement, text, flags=re.I)
    return letters_key(text)


def _rows_of(version: TableVersion) -> list[tuple[str, str, list[Cell]]]:
    order: dict[tuple[str, str], list[Cell]] = {}
    for cell in (*version.cells, *version.derived):  # a row's cells stated by the table's notes join it
        order.setdefault((cell.category, cell.row), []).append(cell)
    return [(category, label, cells) for (category, label), cells in order.items()]


def _match(rows: list[_Row], printed: list[tuple[str, str]]) -> list[int | None]:
    """Index of the existing row each printed row restates, or None for a new row.

    First pass: same label under the same category. Second pass: same label, when exactly one
    unclaimed row carries it (a row that moved category, or an excerpt that prints no category).
    """
    taken: set[int] = set()
    result: list[int | None] = [None] * len(printed)
    for position, (category, label) in enumerate(printed):
        for index, row in enumerate(rows):
            if index in taken:
                continue
            if label_key(row.label) == label_key(label) and label_key(row.category) == label_key(category):
                result[position] = index
                taken.add(index)
                break
    for position, (category, label) in enumerate(printed):
        if result[position] is not None:
            continue
        candidates = [
            index for index, row in enumerate(rows)
            if index not in taken and label_key(row.label) == label_key(label)
        ]
        if len(candidates) == 1:
            result[position] = candidates[0]
            taken.add(candidates[0])
    return result
