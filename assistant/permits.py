"""Permit-table lookups: which row a question names, and what each district requires."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

PERMIT_WORDS = {
    "P": "Permitted (P); a zoning clearance is required.",
    "MUP": "A minor use permit (MUP) is required.",
    "UP": "A use permit (UP) is required.",
    "S": "Allowed as set by the specific use regulations (S).",
    "P/MUP": "Permitted (P) or a minor use permit (MUP) is required, as the table's notes say (P/MUP).",
    "-": "Not allowed.",
}
SHORT_WORDS = {"P": "permitted (P)", "MUP": "minor use permit (MUP)", "UP": "use permit (UP)",
               "S": "specific use regulations (S)", "P/MUP": "P/MUP", "-": "not allowed"}
GENERIC = frozenset("and or of the a an with for in on to use uses facility facilities services service sales "
                    "store ft sq more less than or fewer".split())
STOP = frozenset("can i we my a an the in on at to of for is are be it do does what which where how "
                 "build open put start allowed permitted permit need zone district zoning cotati "
                 "there any you there's please".split())


def words_of(text: str) -> list[str]:
    return [_fold(word) for word in re.findall(r"[a-z0-9&]+", text.lower())]


def _fold(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class RowMatch:
    table: str
    row: str
    score: float


class PermitTables:
    """Effective permit cells indexed by table, row and district column."""

    def __init__(self, effective: Iterable):
        self.cells: dict[tuple[str, str, str], object] = {}
        self.columns: dict[str, list[str]] = defaultdict(list)
        self.rows: dict[str, list[str]] = defaultdict(list)
        for entry in effective:
            cell = entry.cell
            if cell.kind != "permit":
                continue
            self.cells[(cell.table, cell.row, cell.column)] = entry
            if cell.column not in self.columns[cell.table]:
                self.columns[cell.table].append(cell.column)
            if cell.row not in self.rows[cell.table]:
                self.rows[cell.table].append(cell.row)

    def tables_for(self, district: str) -> list[str]:
        return [table for table, columns in self.columns.items() if district in columns]

    def row_words(self) -> set[str]:
        return {word for rows in self.rows.values() for row in rows for word in re.findall(r"[a-z]+", row.lower())}

    def match(self, phrase: str, tables: Iterable[str] | None = None, strict: bool = False) -> list[RowMatch]:
        """Rows whose label the phrase names, best first: all label words covered wins."""
        wanted = [word for word in words_of(phrase) if word not in STOP]
        if not wanted:
            return []
        matches = []
        for table in tables if tables is not None else list(self.rows):
            for row in self.rows.get(table, []):
                label = [word for word in words_of(row) if word not in GENERIC or len(words_of(row)) <= 2]
                if not label:
                    continue
                shared = set(label) & set(wanted)
                if not shared or not (shared - GENERIC):
                    continue
                coverage = len(shared) / len(set(label))
                precision = len(shared) / len(set(wanted))
                if strict and coverage < 1.0:
                    continue
                if coverage < 0.5:
                    continue
                matches.append(RowMatch(table, row, round(coverage + 0.5 * precision, 4)))
        matches.sort(key=lambda m: (-m.score, len(m.row), m.table, m.row))
        return matches

    def cell(self, table: str, row: str, district: str):
        return self.cells.get((table, row, district))
