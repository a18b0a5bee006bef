"""The provision route: a value or a list stated in the code's running text, from the parsed
provisions (``ingest.provisions``) of the sections the search finds. Gives the asked value's kind
(``length``, ``duration``, ``count``, ``body``, ``permit_code`` ...) or ``list``.

The answer leads with the value, states the provision whole (its conditions and exceptions are in
it), lists a list's items one per line, and reads as the provision's heading path."""

from __future__ import annotations

from .. import answer_type, compose, reader
from ..provision_choice import LIST_ASKS, Choice, choose, outline_lines, wanted_kinds
from ..provision_search import searched
from ..resources import Resources
from ..types import Answer, Candidate, Query

def candidates(query: Query, res: Resources) -> list[Candidate]:
    """The provision of the sections the search finds that holds what the question asks."""
    return _chosen(query, res, *searched(query, res))


def in_named_section(query: Query, res: Resources) -> list[Candidate]:
    """"Under Section 17.64.080, how long is a permit valid?": the section named, read for the value
    or list asked, before the section itself is shown (its heading would not answer)."""
    if not query.sections:
        return []
    return _chosen(query, res, list(dict.fromkeys(query.sections)), set(query.sections))


def _chosen(query: Query, res: Resources, ranked: list[str], both: set[str]) -> list[Candidate]:
    """The chosen provision as a candidate. Words alone choose poorly among a section's many items
    (a "21 years" for "when does my use permit expire?"), so without the model's closeness in
    meaning the route proposes nothing and the passages answer."""
    text = query.corrected or query.text
    asked = query.asked
    if not (wanted_kinds(asked, text) or asked in LIST_ASKS):
        return []  # asks for no value and no list: nothing to read (and no search opened for it)
    rank = {section: i for i, section in enumerate(ranked)}
    provisions = [p for p in res.provisions() if p.section in rank]
    meaning = res.provision_meaning(text, provisions)
    read = res.read_provisions(reader.Question(text, asked, rank, frozenset(both)), provisions)
    chosen = choose(text, asked, provisions, res.corpus.idf, meaning, rank, read) if meaning is not None else None
    if chosen is None:
        return []
    answer = provision_answer(query, chosen, res, provisions)
    signals = {"provision_coverage": chosen.coverage, "provision_similarity": chosen.similarity,
               "provision_margin": min(chosen.margin, 2.0), "section_rank": float(rank[chosen.provision.section]),
               "list_answer": float(bool(chosen.items)), "both_retrievers": float(chosen.provision.section in both)}
    if read is not None:  # the reader chose: how sure it is, and whether no other candidate read better
        signals |= {"reader_probability": chosen.score, "reader_top": float(chosen.score >= max(read.values()) - 1e-9)}
    kind = chosen.values[0].kind if chosen.values else ""
    given = answer_type.GIVEN_AS.get(kind, kind) if kind else "list"
    return [Candidate(given, Answer(**{**answer.__dict__, "signals": signals}))]


def provision_answer(query: Query, chosen: Choice, res: Resources, provisions) -> Answer:
    """The chosen provision quoted, with its list's items (and theirs); ``provisions``: those of the
    sections searched, which hold the items printed under it."""
    p = chosen.provision
    section = res.corpus.section(p.section, p.document) or res.corpus.section(p.section)
    said = "; ".join(dict.fromkeys(v.text for v in chosen.values))
    lead = f"{said}: {p.text}" if said else p.text
    lines = [lead] + outline_lines(chosen.items, provisions)
    citations = (res.corpus.citation(section, p.text),) if section is not None else ()
    lines.append(compose.source_line(list(citations), res.corpus))
    interpretation = {"provision": p.label, "heading_path": list(p.path), "answer_type": query.asked}
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=citations,
                  route="provision", interpretation=interpretation)
