"""The section route: a section named by its number (or its subsection), a section found by its
title ("which section covers variances?"), and the section that prints a table named by number.
Gives ``section_text`` (the section's own text) or ``section`` (which section covers it)."""

from __future__ import annotations

import re
from dataclasses import replace

from .. import compose, definitions
from ..permits import STOP, words_of
from ..resources import Resources, clip
from ..types import Candidate, Query

# Words of a "which section covers ..." question that ask for a section rather than say about what.
SECTION_CUE_WORDS = frozenset(words_of("which what where section sections chapter part code ordinance land use covers cover "
                                       "covered has have deals deal talks talk about rules rule requirements requirement "
                                       "regulations regulation standards find look say says govern governs"))


def candidates(query: Query, res: Resources) -> list[Candidate]:
    """"17.44.065", "17.39.040(D)": the section (or the term it defines, when a definition is asked);
    a section number these documents do not hold is declined with that reason."""
    if not query.sections:
        return []
    section = res.corpus.section(query.sections[0])
    if section is None:
        return [Candidate("decline", compose.abstain(query, res.nearest(query), f"§ {query.sections[0]} is not in these "
                                                     "documents.", corpus=res.corpus))]
    defined = _defined_in(query, res, section)
    if defined:
        return defined
    found = compose.section_answer(query, section, res.corpus, subsection(section.text, query.subsection))
    return [Candidate("section_text", replace(found, signals={"section_found": 1.0}))]


def _defined_in(query: Query, res: Resources, section) -> list[Candidate]:
    """"does 'demolition' in 17.90.020 include ...": the term as that section defines it (a ``definition``
    answer, with the signals the definition route's answers carry)."""
    if query.detected != "definition":
        return []
    defined = definitions.lookup([d for d in res.definitions if d.section.id == section.id], query.text)
    if defined is None:
        return []
    found = compose.definition_answer(query, defined, res.corpus)
    term = [w for w in words_of(defined.term) if w not in STOP]
    return [Candidate("definition", replace(found, signals={
        "term_words": float(len(words_of(defined.term))), "term_quoted": 1.0,
        "question_share": definitions.question_share(query.text, term)}))]


def by_title(query: Query, res: Resources) -> list[Candidate]:
    """"Which section covers variances?": the code section whose title says what the question
    names (§ 17.62.060 Variance and minor variance), its rare words weighing more; the search's
    own ranking breaks ties and is a signal of the confidence."""
    if query.detected != "section" or query.tables:
        return []
    wanted = {w for w in words_of(query.corrected or query.text) if w not in STOP and w not in SECTION_CUE_WORDS}
    if not wanted:
        return []
    idf = res.corpus.idf
    weight = sum(idf.get(w, 1.0) for w in wanted)
    ranks = {}
    for rank, hit in enumerate(res.hits(query.corrected or query.text, res.settings.route_hits_k), start=1):
        ranks.setdefault(hit.section, rank)
    scored = []
    for section in res.corpus.latest.values():
        if section.kind != "code" or not section.title:
            continue
        share = sum(idf.get(w, 1.0) for w in wanted & set(words_of(section.title))) / weight
        if share:
            scored.append((share, -ranks.get(section.id, 9), section))
    if not scored:
        return []
    scored.sort(key=lambda item: (-item[0], -item[1], item[2].id))
    share, rank, section = scored[0]
    runner = scored[1][0] if len(scored) > 1 else 0.0
    found = compose.section_answer(query, section, res.corpus)
    return [Candidate("section", replace(found, route="section_title", signals={
        "title_share": round(share, 4), "title_margin": round(share - runner, 4), "hit_rank": float(-rank)}))]


def by_table(query: Query, res: Resources) -> list[Candidate]:
    """"Table 2-4": the section that prints the table."""
    if not query.tables:
        return []
    pattern = re.compile(rf"^Tables?\s+{re.escape(query.tables[0])}\b", re.M)
    holders = [s for s in res.corpus.sections if s.kind == "code" and pattern.search(s.text)]
    if not holders:
        return []
    section = max(holders, key=lambda s: (s.date, s.document))
    # A section can print several tables (17.24.030: Tables 2-17 and 2-18): quote from the one asked.
    printed = " ".join(section.text[pattern.search(section.text).start():].split())
    return [Candidate("section_text", compose.section_answer(query, section, res.corpus, clip(printed)))]


def subsection(text: str, path: tuple[str, ...]) -> str:
    """The paragraph of subsection (E) or (D)(5) of a section's text, "" if it is not printed."""
    if not path:
        return ""
    lines = text.split("\n")
    # "E. Title ..." in full text; "(17.39.040(D))" where an ordinance prints an excerpt.
    letter = re.compile(rf"^{re.escape(path[0])}\.\s|\([\d.]+\s*\({re.escape(path[0])}\)\)$")
    start = next((i for i, line in enumerate(lines) if letter.search(line)), None)
    if start is None:
        return ""
    if len(path) == 1:
        return clip(lines[start])
    item = re.compile(rf"^{re.escape(path[1])}\.\s")
    next_letter = re.compile(r"^[A-Z]\.\s|\([\d.]+\s*\([A-Z]\)\)$")
    taken: list[str] = []
    for line in lines[start + 1:]:
        if next_letter.search(line) or (taken and re.match(r"^\d+\.\s", line)):
            break
        if taken or item.match(line):
            taken.append(line)  # the item and its lettered parts (a., b., ...)
    return clip(" ".join(taken) if taken else lines[start])
