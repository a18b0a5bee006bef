"""Standards-table lookups: height, setbacks, coverage, density, lot size, parking, fences, stalls.

A topic of the question picks candidate tables (data/standards.json); the row whose printed
label shares most words with the question (everyday words mapped to the table's own words)
answers. Tables that hold one district's standards apply only when the question names it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache

from . import answer_type
from .choose import TUNED
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
    share: float = 1.0  # share of the row label's words the question says
    margin: float = 0.0  # score over the best other row (how clearly this row was meant)

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
    return idf is None or any(idf.get(word, TUNED.standards_rare_idf) >= TUNED.standards_rare_idf for word in shared)




class StandardsTables:
    idf = None  # word -> IDF over the corpus sections, set by the assistant

    def __init__(self, effective):
        self.rows: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (section, table) -> [(category, row)]
        self.cells: dict[tuple[str, str, str], list] = {}  # (section, table, row) -> entries in column order
        for entry in effective:
            cell = entry.cell
            if cell.kind == "permit" or entry.dropped_by:
                continue  # permit cells, and rows a later restatement of the table left out
            key = (cell.section, cell.table)
            rows = self.rows.setdefault(key, [])
            if (cell.category, cell.row) not in rows:
                rows.append((cell.category, cell.row))
            self.cells.setdefault((cell.section, cell.table, cell.row), []).append(entry)

    def lookup(self, query) -> StandardsLookup | None:
        spec = _spec()
        wanted = _question_words(query, spec["word_synonyms"])
        found: list[tuple[float, int, StandardsLookup]] = []
        for order, table in enumerate(spec["tables"]):
            if not set(table["topics"]) & set(query.topics):
                continue
            if table.get("district") and table["district"] not in query.districts:
                continue
            if set(table.get("not_with_topics", ())) & set(query.topics):
                continue
            for score, lookup in self._candidates(table, query, wanted, spec):
                found.append((score, order, lookup))
        if not found:
            return None
        found.sort(key=lambda item: (-item[0], item[1]))
        score, _, best = found[0]
        runner = next((s for s, _, other in found[1:] if (other.table, other.row) != (best.table, best.row)), 0.0)
        return replace(best, margin=score - runner)

    def overview(self, query, max_rows: int = 10) -> tuple["StandardsLookup", ...]:
        """Every row of the one small table the question's topic names, when no row was named
        ("How tall can a fence be?" -> each location of Table 3-2 with its height)."""
        spec = _spec()
        tables = [t for t in spec["tables"] if set(t["topics"]) & set(query.topics) and not t.get("rows_are_districts")
                  and (not t.get("district") or t["district"] in query.districts)
                  and not set(t.get("not_with_topics", ())) & set(query.topics)]
        if len(tables) != 1:
            return ()
        table = tables[0]
        key = (table["section"], table["table"])
        rows = self.rows.get(key, [])
        if not rows or len(rows) > max_rows:
            return ()
        return tuple(StandardsLookup(table["table"], table["section"], row, tuple(self.cells[(key[0], key[1], row)]),
                                     table.get("district", ""), share=0.0) for _, row in rows)

    def _candidates(self, table: dict, query, wanted: set[str], spec: dict):
        key = (table["section"], table["table"])
        rows = self.rows.get(key, [])
        if table.get("rows_are_districts"):
            for district in query.districts:
                named = [row for _, row in rows if row.split("-")[0] == district]
                exact = [row for row in named if row.lower() in query.text.lower()]  # "RVL-0.5"
                for row in exact or named:
                    entries = self.columns_asked(key, row, query, spec)
                    several = len(self.cells[(key[0], key[1], row)]) > 1
                    yield 10.0 + len(exact), StandardsLookup(table["table"], table["section"], row, entries, district, several)
            return
        wanted = wanted - set(table.get("ignore_words", ()))
        # Words only the everyday word's label brought ("house" -> single family dwelling) count as
        # the one word the question said, not three; a row with part of that label gets that part.
        borrowed = set(words_of(query.land_use)) - set(words_of(query.normalized))
        for category, row in rows:
            label = set(words_of(row)) - STOP
            heading = set(words_of(category)) - STOP
            lent = len(label & borrowed) / len(borrowed) if borrowed else 0.0  # how much of that one word's label
            score = 2 * (len(label & wanted - borrowed) + lent) + len(heading & wanted)
            if not label & wanted or not _supported(label, heading, wanted, self.idf):
                continue
            score -= 0.01 * len(label - wanted)  # prefer the row with fewer unexplained words
            entries = tuple(self.cells[(key[0], key[1], row)])
            yield score, StandardsLookup(table["table"], table["section"], row, entries, table.get("district", ""),
                                         share=len(label & wanted) / len(label))

    def columns_asked(self, key, row, query, spec) -> tuple:
        """The row's cells in the columns the question names ("side", "rear"), else all of them."""
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


TABLE_GIVES = {"6-1": "body", "2-1": "list"}  # tables whose cells are not measures


def gives(table: str, values: str) -> str:
    """The answer type a standards table's cells give (the standards route's and the bank's answers alike)."""
    return TABLE_GIVES.get(table.removeprefix("Table ").strip()) or answer_type.measure_in(values)


REVIEW_AUTHORITY = ("17.60.040", "6-1")


def authority_entries(tables: "StandardsTables", permit_code: str) -> tuple:
    """Table 6-1's row for a permit ("Use Permit (UP)"), its cells in column order; () if absent."""
    for _, row in tables.rows.get(REVIEW_AUTHORITY, []):
        if row.endswith(f"({permit_code})"):
            return tuple(tables.cells[(*REVIEW_AUTHORITY, row)])
    return ()
