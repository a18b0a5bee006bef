"""The ranking route: extremes and comparisons over the standards tables.

- Across districts: "Which district allows the tallest buildings?", "which district has the largest
  minimum lot size?": the measure asked, looked up for every district whose own table or row states it,
  ranked (the loaded tables state maximum heights only for SW and TOC: the candidate names what it compared).
- Across uses: "Which needs more parking, a bank or a laundromat of the same size?": the rows of the
  topic's table that the question names (Table 3-7: banks, one space per 180 sq. ft.; laundromats, one
  per 250), ranked by what they require per unit of size.

Data only: the ranked cells with their values; the ranker chooses. Gives the measure the cells state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .. import answer_type, compose
from ..permits import STOP, words_of
from ..resources import Resources
from ..standards import _spec as standards_spec
from ..types import Candidate, Query

# Which end is asked (general English): the greatest, or the least.
MOST = re.compile(r"\b(?:tallest|highest|largest|biggest|widest|deepest|greatest|most|taller|higher|larger|bigger|wider|"
                  r"deeper|more)\b")
LEAST = re.compile(r"\b(?:shortest|lowest|smallest|narrowest|shallowest|least|fewest|shorter|lower|smaller|narrower|"
                   r"less|fewer)\b")
# Alternatives named side by side ("a bank or a laundromat", "a gym vs a bank", "more than a bank"): a
# superlative of one subject ("the most parking we can allow") asks for a maximum, not a ranking.
ALTERNATIVES = re.compile(r"\b(?:or|vs|versus|than|compared)\b")
ACROSS_DISTRICTS = re.compile(r"\b(?:which|what) (?:district|districts|zone|zones|zoning district)\b")
# Words of height (general English): a superlative of height names the measure without naming it.
HEIGHT_WORDS = re.compile(r"\b(?:tallest|taller|highest|higher|height|tall|high)\b")
# Unit facts, not tuned numbers: an area stated in acres compared with one in square feet.
TO_COMMON = {"acre": ("sq ft", 43560.0), "acres": ("sq ft", 43560.0)}
COUNTS = frozenset({"space", "spaces", "unit", "units"})
AREAS = frozenset({"sq ft", "acre", "acres"})


@dataclass(frozen=True)
class Ranked:
    label: str  # the district symbol or the row's label
    entry: object  # the EffectiveCell whose value is compared
    value: float  # comparable magnitude (a count per unit of area as a count per square foot)
    unit: str


def candidates(query: Query, res: Resources) -> list[Candidate]:
    text = query.normalized
    most, least = MOST.search(text), LEAST.search(text)
    if not (most or least):
        return []
    # the first end word the question says is the one asked ("which has the largest minimum ...")
    highest = bool(most) and (not least or most.start() < least.start())
    if ACROSS_DISTRICTS.search(text):
        ranked, known = _across_districts(query, res)
        by_district = True
    elif ALTERNATIVES.search(text):
        ranked, known = _across_uses(query, res), 0
        by_district = False
    else:
        return []
    if len(ranked) < 2:
        return []
    ranked.sort(key=lambda r: (-r.value if highest else r.value, r.label))
    first, second = ranked[0], ranked[1]
    spread = abs(first.value - second.value) / max(abs(first.value), abs(second.value)) if first.value or second.value else 0.0
    tied = sum(1 for r in ranked if r.value == first.value)  # all equal firsts lead together
    answer = compose.ranking_answer(query, [(r.label, r.entry) for r in ranked], highest, by_district, res.corpus, tied)
    signals = {"compared": float(len(ranked)), "margin": round(spread, 4), "by_district": float(by_district),
               "tied": float(tied),
               "stated_share": round(len(ranked) / known, 4) if known else 1.0}
    values = " ".join(str(r.entry.cell.value or "") for r in ranked)
    return [Candidate(answer_type.measure_in(values), replace(answer, signals=signals))]


def _magnitude(entry) -> tuple[float, str] | None:
    """A cell's value as one comparable number: a count per area as a count per square foot (one space
    per 180 sq. ft. is more than one per 250), else its first quantity in a common unit."""
    found = list(entry.cell.quantities)
    if not found:
        return None
    if len(found) >= 2 and found[0].unit in COUNTS and found[1].unit in AREAS and found[1].value:
        unit, factor = TO_COMMON.get(found[1].unit, (found[1].unit, 1.0))
        return found[0].value / (found[1].value * factor), f"{found[0].unit} per {unit}"
    unit, factor = TO_COMMON.get(found[0].unit, (found[0].unit, 1.0))
    return found[0].value * factor, unit


def _comparable(items: list[tuple[str, object]], question: str) -> list[Ranked]:
    """The items whose cell states a magnitude, in the unit most of them state (others left out)."""
    measured = []
    asked = answer_type.units_asked(question)
    for label, entries in items:
        # the column whose values state the measure asked ("lot size": the area, not the width)
        chosen = next((e for e in entries if _magnitude(e) and (not asked or answer_type.units_in(str(e.cell.value)) & asked)),
                      next((e for e in entries if _magnitude(e)), None))
        if chosen is not None:
            value, unit = _magnitude(chosen)
            measured.append(Ranked(label, chosen, value, unit))
    units = [r.unit for r in measured]
    common = max(set(units), key=lambda u: (units.count(u), u)) if units else ""
    return [r for r in measured if r.unit == common]


def _across_districts(query: Query, res: Resources) -> tuple[list[Ranked], int]:
    """Each district's own value of the measure asked (its table or its row of a table by district)."""
    reading = query
    if HEIGHT_WORDS.search(query.normalized) and "height" not in query.topics:
        reading = replace(query, topics=query.topics + ("height",), normalized=f"{query.normalized} height",
                          corrected=f"{query.corrected or query.text} height")
    symbols = {c for columns in res.tables.columns.values() for c in columns}
    symbols |= {row for rows in res.standards.rows.values() for _, row in rows}
    districts = sorted(s for s in symbols if res.vocabulary.district(s) is not None)
    items = []
    for symbol in districts:
        found = res.standards.lookup(replace(reading, districts=(symbol,)))
        if found is not None and symbol in (found.district, found.row):
            items.append((symbol, found.entries))
    return _comparable(items, reading.normalized), len(districts)


def _across_uses(query: Query, res: Resources) -> list[Ranked]:
    """The rows of the topic's standards table that the question names by their own words, one per
    word named ("a bank or a laundromat": Banks ...; Laundry - ... laundromats)."""
    said = {w for w in words_of(query.corrected or query.text) if w not in STOP}
    said |= {w for use in query.land_uses for w in words_of(use)}
    items = []
    for table in standards_spec()["tables"]:
        if not set(table["topics"]) & set(query.topics) or table.get("district") or table.get("rows_are_districts"):
            continue
        key = (table["section"], table["table"])
        generic = set(words_of(" ".join(table["topics"]))) | {"space", "parking", "use", "uses", "all", "except", "following"}
        best: dict[str, tuple[float, str]] = {}
        for category, row in res.standards.rows.get(key, []):
            label = set(words_of(row)) - generic - STOP
            shared = label & said
            for word in shared:
                share = len(shared) / len(label)
                if share > best.get(word, (0.0, ""))[0]:
                    best[word] = (share, row)
        rows = list(dict.fromkeys(row for _, row in best.values()))
        if len(rows) >= 2:
            items = [(row, tuple(res.standards.cells[(key[0], key[1], row)])) for row in rows]
            break
    return _comparable(items, query.normalized)
