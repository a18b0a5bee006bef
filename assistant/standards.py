"""Standards-table lookups: height, setbacks, coverage, density, lot size, parking, fences, stalls.

A topic of the question picks candidate tables (data/standards.json); the row whose printed
label shares most words with the question (everyday words mapped to the table's own words)
answers. Tables that hold one district's standards apply only when the question names it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from .permits import STOP, words_of
from .vocab import DATA


@dataclass(frozen=True)
class StandardsLookup:
    table: str
    section: str
    row: str
    entries: tuple  # EffectiveCell of the chosen columns
    district: str = ""
    several_columns: bool = False  # the table has more columns than the answer shows

    @property
    def readable(self) -> bool:
        """False when every cell that answers the question was flagged for review."""
        answers = [entry for entry in self.entries if not entry.cell.column.startswith("Applicable")]
        return any(entry.cell.value is not None and entry.cell.answered for entry in answers)


@lru_cache(maxsize=1)
def _spec() -> dict:
    return json.loads((DATA / "standards.json").read_text(encoding="utf-8"))


def _supported(label: set[str], heading: set[str], wanted: set[str], idf) -> bool:
    """One common word ("building" in "building parking") does not name a row by itself: the
    question must cover half the label, or share two words with the row and its heading, or share
    a word that only a few sections use."""
    shared = label & wanted
    if len(shared) / len(label) >= 0.5 or len(shared) + len(heading & wanted) >= 2:
        return True
    return idf is None or any(idf.get(word, RARE_IDF) >= RARE_IDF for word in shared)


RARE_IDF = 2.0  # log(1 + N/df): a word in at most about one section in seven


class StandardsTables:
    idf = None  # word -> IDF over the corpus sections, set by the assistant

    def __init__(self, effective):
        self.rows: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (section, table) -> [(category, row)]
        self.cells: dict[tuple[str, str, str], list] = {}  # (section, table, row) -> entries in column order
        for entry in effective:
            cell = entry.cell
            if cell.kind == "permit":
                continue
            key = (cell.section, cell.table)
            rows = self.rows.setdefault(key, [])
            if (cell.category, cell.row) not in rows:
                rows.append((cell.category, cell.row))
            self.cells.setdefault((cell.section, cell.table, cell.row), []).append(entry)

    def lookup(self, query) -> StandardsLookup | None:
        spec = _spec()
        wanted = _question_words(query, spec["word_synonyms"])
        best: tuple[float, int, StandardsLookup] | None = None
        for order, table in enumerate(spec["tables"]):
            if not set(table["topics"]) & set(query.topics):
                continue
            if table.get("district") and table["district"] not in query.districts:
                continue
            if set(table.get("not_with_topics", ())) & set(query.topics):
                continue
            for found in self._candidates(table, query, wanted, spec):
                score, lookup = found
                if best is None or (score, -order) > (best[0], -best[1]):
                    best = (score, order, lookup)
        return best[2] if best else None

    def _candidates(self, table: dict, query, wanted: set[str], spec: dict):
        key = (table["section"], table["table"])
        rows = self.rows.get(key, [])
        if table.get("rows_are_districts"):
            for district in query.districts:
                named = [row for _, row in rows if row.split("-")[0] == district]
                exact = [row for row in named if row.lower() in query.text.lower()]  # "RVL-0.5"
                for row in exact or named:
                    entries = self._columns(key, row, query, spec)
                    several = len(self.cells[(key[0], key[1], row)]) > 1
                    yield 10.0 + len(exact), StandardsLookup(table["table"], table["section"], row, entries, district, several)
            return
        wanted = wanted - set(table.get("ignore_words", ()))
        for category, row in rows:
            label = set(words_of(row)) - STOP
            heading = set(words_of(category)) - STOP
            score = 2 * len(label & wanted) + len(heading & wanted)
            if not label & wanted or not _supported(label, heading, wanted, self.idf):
                continue
            score -= 0.01 * len(label - wanted)  # prefer the row with fewer unexplained words
            entries = tuple(self.cells[(key[0], key[1], row)])
            yield score, StandardsLookup(table["table"], table["section"], row, entries, table.get("district", ""))

    def _columns(self, key, row, query, spec) -> tuple:
        entries = self.cells[(key[0], key[1], row)]
        chosen = [
            entry for entry in entries
            if any(word in query.normalized for word in spec["columns"].get(entry.cell.column, []))
        ]
        return tuple(chosen or entries)


def _question_words(query, synonyms: dict) -> set[str]:
    text = query.normalized
    for words in query.district_words:
        text = text.replace(words.lower(), " ")
    for phrase, replacement in synonyms.items():
        if " " in phrase:
            text = text.replace(phrase, replacement)
    words = {symbol.lower() for symbol in query.districts}  # a table heading may name the district
    for word in text.split():
        words.add(synonyms.get(word, word))
    words |= set(words_of(query.land_use))
    folded = set(words_of(" ".join(words)))
    return {word for word in folded if word not in STOP and len(word) > 1}


REVIEW_AUTHORITY = ("17.60.040", "6-1")


def authority_entries(tables: "StandardsTables", permit_code: str) -> tuple:
    """Table 6-1's row for a permit ("Use Permit (UP)"), its cells in column order; () if absent."""
    for _, row in tables.rows.get(REVIEW_AUTHORITY, []):
        if row.endswith(f"({permit_code})"):
            return tuple(tables.cells[(*REVIEW_AUTHORITY, row)])
    return ()
