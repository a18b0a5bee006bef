"""Permit-table lookups: which row a question names, and what each district requires."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
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
                    "store shop ft sq more less than or fewer business".split())
# Heading words every row of a table shares: they tell no row apart.
HEADING_FILLER = frozenset("residential commercial zone zones agricultural open space industry manufacturing "
                           "processing retail trade recreation education public assembly services".split())
STOP = frozenset("can i we my a an the in on at to of for is are be it do does what which where how "
                 "build open put start allowed permitted permit need zone district zoning cotati "
                 "there any you there's please or and by with from than as if that this these those not "
                 "doe".split())  # "doe": "does" with its plural s folded


def _content_words(text: str) -> set[str]:
    return {word for word in words_of(text) if word not in STOP}


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
    own: float = 0.0  # share of the label's words the question itself says
    complete: bool = False  # the question itself says every word of the label ("adult day care")
    covered: float = 0.0  # share of the label's words said by the question or its everyday words' labels


class PermitTables:
    """Effective permit cells indexed by table, row and district column."""

    def __init__(self, effective: Iterable):
        self.cells: dict[tuple[str, str, str], object] = {}
        self.columns: dict[str, list[str]] = defaultdict(list)
        self.rows: dict[str, list[str]] = defaultdict(list)
        self.categories: dict[tuple[str, str], str] = {}
        entries = [e for e in effective if e.cell.kind == "permit" and not e.dropped_by]  # dropped: restated away
        headings: dict[tuple[str, str], set[str]] = defaultdict(set)
        for entry in entries:
            headings[(entry.cell.table, entry.cell.row)].add(entry.cell.category)
        for entry in entries:
            cell = entry.cell
            row = self.label(cell, len(headings[(cell.table, cell.row)]) > 1)
            self.cells[(cell.table, row, cell.column)] = entry
            if cell.column not in self.columns[cell.table]:
                self.columns[cell.table].append(cell.column)
            if row not in self.rows[cell.table]:
                self.rows[cell.table].append(row)
                self.categories[(cell.table, row)] = cell.category

    @staticmethod
    def label(cell, shared: bool) -> str:
        """The row's label, with the last part of its heading when several headings print the same
        label ("Large" under Outdoor, Indoor and Mixed Light Cultivation -> "Indoor Cultivation - Large")."""
        if not shared or not cell.category:
            return cell.row
        return f"{cell.category.rsplit(' - ', 1)[-1]} - {cell.row}"

    def category(self, table: str, row: str) -> str:
        return self.categories.get((table, row), "")

    def tables_for(self, district: str) -> list[str]:
        return [table for table, columns in self.columns.items() if district in columns]

    def row_words(self) -> set[str]:
        return {word for rows in self.rows.values() for row in rows for word in re.findall(r"[a-z]+", row.lower())}

    def match(self, phrase: str, tables: Iterable[str] | None = None, synonyms: str = "") -> list[RowMatch]:
        """Rows the question names, best first.

        Words of the question itself count twice: an everyday word's table label ("restaurant"
        for a "fast food restaurant") only helps a row the question's own words fit less well.
        """
        asked = _content_words(phrase)
        asked |= {a + b for a, b in zip(words_of(phrase), words_of(phrase)[1:])}  # "mobile home"
        wanted = asked | _content_words(synonyms)
        if not wanted:
            return []
        matches = []
        for table in tables if tables is not None else list(self.rows):
            needed = _tables_needing_words().get(table)
            if needed and not set(needed) & set(words_of(f"{phrase} {synonyms}")):
                continue
            for row in self.rows.get(table, []):
                label = set(words_of(row)) - STOP
                if len(label) > 2:
                    label -= GENERIC
                if not label:
                    continue
                shared = label & wanted
                if not shared - GENERIC or len(shared) / len(label) < 0.5:
                    continue
                own = len(label & asked) / len(label)
                score = own + len(shared) / len(label) + 0.25 * len(shared) / len(wanted)
                # The heading tells rows with the same label apart ("Indoor Cultivation" / "Large").
                heading = set(words_of(self.category(table, row))) - STOP - GENERIC - HEADING_FILLER
                if heading:
                    score += 0.3 * len(heading & wanted) / len(heading)
                label_words = set(words_of(row)) - STOP
                complete = len(label_words) >= 2 and label_words <= asked  # "Large" alone names nothing
                matches.append(RowMatch(table, row, round(score, 4), own, complete, round(len(shared) / len(label), 4)))
        matches.sort(key=lambda m: (-m.score, len(m.row), m.table, m.row))
        return by_count(matches, phrase)

    def cell(self, table: str, row: str, district: str):
        return self.cells.get((table, row, district))


COUNT_IN_QUESTION = re.compile(r"\b(\d+)[ -]?(?:units?|clients?|homes?|apartments?|dwellings?)\b")
RANGES = (
    (re.compile(r"(\d+) or more|(\d+)\+"), lambda a: (a, float("inf"))),
    (re.compile(r"(\d+) or fewer"), lambda a: (0, a)),
    (re.compile(r"up to (\d+)"), lambda a: (0, a)),
)
PAIRS = re.compile(r"(\d+) (?:to|or) (\d+)")
SINGLE = re.compile(r"(\d+) (?:units?|clients?)")


def label_range(label: str) -> tuple[float, float] | None:
    """The count a row label covers: "3 or 4 units" -> (3, 4), "10 or more units" -> (10, inf)."""
    for pattern, make in RANGES:
        match = pattern.search(label)
        if match:
            return make(int(next(group for group in match.groups() if group)))
    pair = PAIRS.search(label)
    if pair:
        return int(pair.group(1)), int(pair.group(2))
    single = SINGLE.search(label)
    return (int(single.group(1)),) * 2 if single else None


def by_count(matches: list[RowMatch], phrase: str) -> list[RowMatch]:
    """When the question gives a count ("12 unit"), rows whose label range holds it come first."""
    found = COUNT_IN_QUESTION.search(phrase)
    if not found:
        return matches
    count = int(found.group(1))
    fitting = []
    for match in matches:
        span = label_range(match.row)
        if span and span[0] <= count <= span[1]:
            fitting.append(match)
    return fitting + [m for m in matches if m not in fitting] if fitting else matches


@lru_cache(maxsize=1)
def _tables_needing_words() -> dict[str, tuple[str, ...]]:
    path = Path(__file__).resolve().parent / "data" / "permit_tables.json"
    data = json.loads(path.read_text(encoding="utf-8"))["tables_needing_words"]
    return {table: tuple(_fold(word) for word in words) for table, words in data.items()}
