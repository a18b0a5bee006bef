"""The citation route: a request for the citation itself rather than for what the code says.

- "Cite the section on cell tower setbacks.": the code section that speaks of the subject (among the
  search's hits, by how much of the subject's words its text says), with its title, the document that
  prints it and that document's date; gives ``section``.
- "Which ordinance last changed the fence table?": the table (named by number, or by its topic) or the
  section (by number, or found as above) asked about, and the newest document that changed it (a
  cell's value it first stated or restated differently; a section's text it printed); gives
  ``ordinance_fact``.

Data only, as any route: which section, table and document; the ranker chooses.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ingest.tables.segment import find_tables

from .. import compose
from ..permits import STOP, words_of
from ..resources import Resources
from ..standards import _spec as standards_spec
from ..types import Candidate, Query, SearchUnavailable

# A request for a citation (general English, not the code's vocabulary).
CITE = re.compile(r"\b(?:cite|citation|citations|cited|code reference|section number|section numbers)\b")
# "which ordinance last changed ...", "what document amended ...", "when was ... last amended"
WHICH_DOCUMENT = re.compile(r"\b(?:which|what) (?:ordinance|document|law)\b.*\b(?:chang|amend|revis|updat|restat|rewr|add)\w*"
                            r"|\bwhen (?:was|were|did)\b.*\blast (?:chang|amend|revis|updat|restat)\w*")
# Words of such a request that say nothing of its subject.
REQUEST_WORDS = frozenset(words_of("cite citation citations cited reference number section sections code ordinance "
                                   "ordinances document law which what when was were did last most recently changed "
                                   "change amended amend revised updated restated rewrote added give me please the "
                                   "table tables chapter municipal cotati on for about"))


def candidates(query: Query, res: Resources) -> list[Candidate]:
    text = query.normalized
    if WHICH_DOCUMENT.search(text):
        return _which_document(query, res)
    if CITE.search(text):
        return _cited_section(query, res)
    return []


def _subject(query: Query) -> set[str]:
    return {w for w in words_of(query.corrected or query.text) if w not in STOP and w not in REQUEST_WORDS}


def _found_section(query: Query, res: Resources):
    """The code section among the search's nearest whose text says the most of the subject's words
    (IDF-weighted), the search's order breaking ties: (section, share, margin, hit rank) or None."""
    subject = _subject(query)
    if not subject:
        return None
    try:
        nearest = res.nearest(query)  # the search a decline names, run once per question
    except SearchUnavailable:
        return None
    idf = res.corpus.idf
    weight = sum(idf.get(w, 1.0) for w in subject)
    scored = []
    for rank, section_id in enumerate(nearest, start=1):
        section = res.corpus.latest.get(section_id)
        if section is None or section.kind != "code":
            continue
        said = subject & set(words_of(f"{section.title} {section.text}"))
        scored.append((sum(idf.get(w, 1.0) for w in said) / weight, -rank, section))
    if not scored:
        return None
    scored.sort(key=lambda item: (-item[0], -item[1], item[2].id))
    share, rank, section = scored[0]
    runner = scored[1][0] if len(scored) > 1 else 0.0
    return section, share, share - runner, -rank


def _cited_section(query: Query, res: Resources) -> list[Candidate]:
    if query.sections:
        return []  # the section is named already: the section route gives it
    found = _found_section(query, res)
    if found is None:
        return []
    section, share, margin, rank = found
    answer = compose.citation_answer(query, section, res.corpus, " ".join(sorted(_subject(query))))
    return [Candidate("section", replace(answer, signals={
        "subject_share": round(share, 4), "subject_margin": round(margin, 4), "hit_recip": round(1.0 / rank, 4)}))]


# -- which document last changed it --------------------------------------------------------------------
def _tables_asked(query: Query, res: Resources) -> list[tuple[tuple[str, str], str]]:
    """((section, table), how it was named) of the tables the question asks about: by number, else
    the standards tables of its topic ("the fence table": Table 3-2)."""
    printed = set(res.standards.rows) | {(e.cell.section, e.cell.table) for e in res.tables.cells.values()}
    if query.tables:
        number = query.tables[0]
        return [(key, "number") for key in sorted(printed) if key[1].split(" ", 1)[0] == number]
    if not re.search(r"\btables?\b", query.normalized):
        return []
    topical = {(t["section"], t["table"]) for t in standards_spec()["tables"] if set(t["topics"]) & set(query.topics)}
    return [(key, "topic") for key in sorted(topical & printed)]


def _table_title(section_id: str, table: str, res: Resources) -> str:
    """The title the newest print of the section gives the table ("Maximum Height of Fences, Walls, and Hedges")."""
    number = table.split(" ", 1)[0]
    for section in sorted((s for s in res.corpus.sections if s.id == section_id), key=lambda s: s.date, reverse=True):
        titles = [b.title for b in find_tables(section.text) if b.number == number and b.title]
        if titles:
            return titles[0]
    return ""


def _changes(entries) -> dict[tuple[str, str], int]:
    """(date, document) -> how many of the cells it changed: first stated, or stated with another value."""
    counted: dict[tuple[str, str], int] = {}
    for entry in entries:
        statements = [(h.date, h.document, h.value) for h in entry.history] + [
            (entry.cell.date, entry.cell.document, entry.cell.value)]
        statements.sort(key=lambda s: (s[0], s[1]))
        previous = object()
        for date, document, value in statements:
            if value != previous:
                counted[(date, document)] = counted.get((date, document), 0) + 1
            previous = value
    return counted


def _which_document(query: Query, res: Resources) -> list[Candidate]:
    found = []
    tables = _tables_asked(query, res)
    for (section, table), named in tables:
        entries = [e for (key, _, _), e in res.tables.cells.items() if key == table and e.cell.section == section]
        entries += [e for (sec, key, _), cells in res.standards.cells.items() if (sec, key) == (section, table) for e in cells]
        changes = _changes(entries)
        if not changes:
            continue
        (date, document), changed = max(changes.items())
        answer = compose.last_change_answer(query, res.corpus, document, date, section, table=table, cells=entries,
                                            title=_table_title(section, table, res))
        found.append(Candidate("ordinance_fact", replace(answer, signals={
            "table_by_number": float(named == "number"), "table_by_topic": float(named == "topic"),
            "subjects": float(len(tables)), "changed_share": round(changed / len(entries), 4)})))
    if found or tables:
        return found
    if query.sections:
        section_id, named = query.sections[0], "number"
    else:
        located = _found_section(query, res)
        if located is None:
            return []
        section_id, named = located[0].id, "search"
    prints = sorted((s.date, s.document) for s in res.corpus.sections if s.id == section_id and s.date)
    if not prints:
        return []
    date, document = prints[-1]
    answer = compose.last_change_answer(query, res.corpus, document, date, section_id)
    return [Candidate("ordinance_fact", replace(answer, signals={
        "section_by_number": float(named == "number"), "subjects": 1.0, "prints": float(len(prints))}))]
