"""The standards route: the standards-table row a question names (height, setbacks, parking,
fences, who decides ...), or the whole small table when it names the topic and no row. Gives the
measure its cells state (``length``, ``area``, ``count``, ``percent``, ``duration`` ...), or
``body`` for Table 6-1 (who decides) and ``list`` for Table 2-1 (which districts fit a General
Plan designation)."""

from __future__ import annotations

import re
from dataclasses import replace

from .. import answer_type, comparison, compose
from ..permit_cells import ASKING_WORDS, district_words
from ..permits import QUANTITY_WORDS, words_beside, words_of
from ..resources import STANDARDS_TOPICS, Resources, readable
from ..standards import gives
from ..types import Candidate, Query

# Verbs of deciding (general English): "who approves / hears / signs off on / makes the call".
DECIDING = re.compile(r"\b(?:decid\w*|decision\w*|authorit\w*|approv\w*|hear\w*|grant\w*|review\w*|sign\w*|rul\w*|call|issu\w*|den\w+|vote\w*|"
                      r"make\w*|say|says|authoriz\w*|allow\w*|permit\w*|handle\w*|oversee\w*|in charge|final)\b")


def deciding_reading(query: Query) -> Query:
    """"who makes the call on ...": a question that asks who decides is asking Table 6-1;
    "who is the director?" asks for a person, whom the code does not name (it names roles)."""
    if query.detected != "who":
        return query
    deciding = DECIDING.search(query.normalized) is not None
    topics = tuple(t for t in query.topics if t != "who_decides" or deciding)
    return replace(query, topics=topics + (("who_decides",) if deciding and "who_decides" not in topics else ()))


def _values(lookup) -> str:
    return " ".join(str(e.cell.value or "") for e in (lookup.entries if lookup else ())
                    if not e.cell.column.startswith("Applicable"))


def candidates(query: Query, res: Resources) -> list[Candidate]:
    if not set(query.topics) & STANDARDS_TOPICS:
        return []
    compared = per_district(query, res)
    if compared:
        return compared
    return _one_row(query, res)


def per_district(query: Query, res: Resources) -> list[Candidate]:
    """Two or more districts whose own tables or rows state the standard ("which is taller, TOC or
    SW?", "minimum lot size NL vs NM"): each district's value, side by side, each cited; nothing
    when any district's value is not its own (a table for all districts answers once)."""
    if len(query.districts) < 2:
        return []
    found = []
    for district in query.districts:
        lookup = res.standards.lookup(replace(query, districts=(district,)))
        if lookup is None or lookup.district != district or not lookup.readable:
            return []
        found.append(lookup)
    values = " ".join(_values(lookup) for lookup in found)
    if not answer_type.units_agree(query.text, values):
        return []
    answers = [compose.standards_answer(query, lookup, res.corpus) for lookup in found]
    joined = compose.joined(query, answers, res.corpus)
    # "which is taller": the comparison leads, each value after it (assistant/comparison.py)
    lead = comparison.lead(query.text, {l.district: a.lookups for l, a in zip(found, answers)})
    if lead:
        joined = replace(joined, answer=f"{lead} {joined.answer}")
    return [Candidate(gives(found[0].table, values), replace(joined, signals={
        "row_share": min(l.share for l in found), "row_margin": min(min(l.margin, 5.0) for l in found),
        "row_tied": float(any(l.margin < res.settings.standards_tie for l in found)), "district_named": 1.0,
        "cell_readable": readable(joined.lookups)}))]


def _unexplained(query: Query, res: Resources, lookup) -> float:
    """What the question says besides the row's label, its cells, the topics it was read as and the districts
    (``words_beside``): "the 20-foot *stacking* area at a *shop*'s driveway" is not the storage-area ratio."""
    stated = [lookup.row, *query.topics, *(f"{e.cell.category} {e.cell.column} {e.cell.value or ''}" for e in lookup.entries)]
    named = set(words_of(" ".join(stated)))
    named |= district_words(query, res)
    return words_beside(query.corrected or query.text, named, res.corpus.idf, ASKING_WORDS | QUANTITY_WORDS)


def _one_row(query: Query, res: Resources) -> list[Candidate]:
    asks = query.detected
    lookup = res.standards.lookup(query)
    values = _values(lookup)
    if lookup is not None and not answer_type.units_agree(query.text, values):
        lookup = None  # the row gives another measure than the one asked ("what share ..." -> "8 feet")
    elif lookup is not None and asks in answer_type.QUANTITIES and not answer_type.present(
            "number" if asks == "duration" else asks, values):
        lookup = None  # "what is the deadline ...": a row of roles or a cross-reference states no quantity
    if lookup is not None and lookup.readable:
        found = compose.standards_answer(query, lookup, res.corpus)
        return [Candidate(gives(lookup.table, values), replace(found, signals={
            "row_share": lookup.share, "row_margin": min(lookup.margin, 5.0),
            # another row fits the question's words as well, and only fewer unexplained words chose this one
            "row_tied": float(lookup.margin < res.settings.standards_tie),
            "district_named": float(bool(query.districts)), "cell_readable": readable(found.lookups),
            "question_unexplained": _unexplained(query, res, lookup)}))]
    if lookup is None and asks != "other" and len(res.other_words(query)) <= 1:
        rows = res.standards.overview(query)
        if rows:
            found = compose.standards_overview(query, rows, res.corpus)
            return [Candidate(gives(rows[0].table, " ".join(_values(row) for row in rows)),
                              replace(found, signals={"cell_readable": readable(found.lookups)}))]
    return []
