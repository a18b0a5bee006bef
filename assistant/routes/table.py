"""The table route: a table asked for by its number ("Table 2-2", "show me Table 3-2", "Table 2-18").

Proposes the table itself, as data: its number and printed title, the section that prints it, the
documents that printed it, and its effective cells (``lookups``). One candidate per table printed
under that number: "Table 2-4" is both the permit table of § 17.22.020 and the parcel size table of
§ 17.24.020, and "Table 2-2" both the land-use table and its cannabis part; each candidate names its
own section and title, and its signals say how far the question's words pick it out. The ranker chooses.
Gives ``table``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ingest.tables.segment import find_tables

from .. import compose
from ..permits import STOP, words_of
from ..resources import Resources
from ..types import Candidate, Query

# Words of a request for a table that say nothing of which table ("show me", "what is in ...").
# A permit table's legend printed on its title's line ("... Neighborhood Zones P Permitted Use, Zoning
# Clearance required"): where the title ends.
LEGEND = re.compile(r"\s(?:P|MUP|UP|S)\s+[A-Z][a-z]")
REQUEST_WORDS = frozenset(words_of("show me the table tables what is in does say says see pull up open display print "
                                   "give list read code cotati please can could you i"))


@dataclass(frozen=True)
class PrintedTable:
    number: str  # "2-4"
    key: str  # the cells' table key: "2-4", "2-2 cannabis"
    section: str
    title: str  # the newest print's title ("Parcel Size and Density Standards")
    prints: tuple[tuple[str, str], ...]  # (document, date) of each print, oldest first


def printed(number: str, res: Resources) -> list[PrintedTable]:
    """Every table the code sections print under ``number``, one per (section, cell table)."""
    keys = {key for key in res.tables.rows if _number_of(key) == number}
    keys |= {key for section, key in res.standards.rows if _number_of(key) == number}
    found: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for section in res.corpus.sections:
        if section.kind != "code":
            continue
        for block in find_tables(section.text):
            if block.number == number:
                key = _key_of(number, block.title, keys)
                found.setdefault((section.id, key), []).append((section.date, section.document, block.title))
    tables = []
    for (section_id, key), prints in sorted(found.items()):
        prints.sort()
        title = next((t for _, _, t in reversed(prints) if t), "")
        title = title[:LEGEND.search(title).start()] if LEGEND.search(title) else title
        tables.append(PrintedTable(number, key, section_id, title,
                                   tuple(dict.fromkeys((doc, date) for date, doc, _ in prints))))
    return tables


def _part_words(table: PrintedTable) -> set[str]:
    """The words a part's key says beyond the number ("cannabis"); none for the table itself."""
    return set(words_of(table.key.split(" ", 1)[1])) if " " in table.key else set()


def _number_of(key: str) -> str:
    return key.split(" ", 1)[0]


def _key_of(number: str, title: str, keys: set[str]) -> str:
    """The cell table a printed block is: the key whose words beyond the number its title says
    ("2-2 cannabis" for "... Permit Requirements - Cannabis Uses"), else the number itself."""
    said = set(words_of(title))
    named = [k for k in keys if k != number and set(words_of(k.split(" ", 1)[1])) <= said]
    return min(named) if named else number


def cells_of(table: PrintedTable, res: Resources) -> list:
    """The table's effective cells (ingest's EffectiveCell), in the printed order."""
    permit = [entry for (key, _, _), entry in res.tables.cells.items()
              if key == table.key and entry.cell.section == table.section]
    standards = [entry for (section, key, _), entries in res.standards.cells.items()
                 if section == table.section and key == table.key for entry in entries]
    return permit + standards


def candidates(query: Query, res: Resources) -> list[Candidate]:
    if not query.tables:
        return []
    tables = printed(query.tables[0], res)
    asked = {w for w in words_of(query.corrected or query.text) if w not in STOP and w not in REQUEST_WORDS}
    asked -= set(words_of(query.tables[0]))
    titles = {table: set(words_of(f"{table.title} {table.key}")) for table in tables}
    if not any(asked <= words for words in titles.values()):
        # It says more than which table ("which Table 2-4 districts allow a transit station?"): it asks
        # for something in the table, not the table; a whole table never answers that.
        return []
    # A part printed under the number ("2-2 cannabis") is named by the number and its own words: the
    # number alone is the table itself, whose answer names the part.
    said = {w for w in words_of(query.corrected or query.text)}
    parts = [t for t in tables if _part_words(t) and any(m.section == t.section and not _part_words(m) for m in tables)]
    shown = [t for t in tables if t not in parts or _part_words(t) <= said]
    found = []
    for table in shown:
        cells = cells_of(table, res)
        title_words = titles[table]
        signals = {
            "tables_numbered": float(len(shown)),  # more than one: the number alone does not say which
            "title_share": len(asked & title_words) / len(asked) if asked else 0.0,
            "other_words": float(len(asked - title_words)),
            "section_named": float(table.section in query.sections),
            "cells_found": float(bool(cells)),
        }
        its_parts = [p for p in parts if p.section == table.section and not _part_words(table) and p not in shown]
        # "Table 2-4" is printed by 17.22.020 and by 17.24.020: whichever answers names the other
        elsewhere = [t for t in shown if t.section != table.section and t.number == table.number]
        answer = compose.table_answer(query, table, cells, res.corpus, its_parts, elsewhere)
        found.append(Candidate("table", replace(answer, signals={k: round(v, 4) for k, v in signals.items()})))
    return found
