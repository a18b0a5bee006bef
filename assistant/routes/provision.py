"""The provision route: a value or a list stated in the code's running text, from the parsed
provisions (``ingest.provisions``) of the sections the search finds. Gives the asked value's kind
(``length``, ``duration``, ``count``, ``body``, ``permit_code`` ...) or ``list``.

The answer leads with the value, states the provision whole (its conditions and exceptions are in
it), lists a list's items one per line, and reads as the provision's heading path."""

from __future__ import annotations

import re

from .. import compose, reader
from ..provision_choice import LIST_ASKS, Choice, choose, outline, wanted_kinds
from ..resources import Resources
from ..types import Answer, Candidate, Query

# ingest/values.py kinds as the answer types the chooser knows (answer_type.GIVEN)
GIVEN_AS = {"percentage": "percent", "ratio": "count", "density": "count", "permit": "permit_code",
            "speed": "number", "decibel": "number", "floor area ratio": "number"}


def candidates(query: Query, res: Resources) -> list[Candidate]:
    """The provision of the sections the search finds that holds what the question asks."""
    return _chosen(query, res, *_searched(query, res))


def _searched(query: Query, res: Resources) -> tuple[list[str], set[str]]:
    """The first sections the search finds, and those both retrievers found."""
    hits = res.hits(query.corrected or query.text, res.settings.route_hits_k)
    ranked = list(dict.fromkeys(hit.section for hit in hits))[:res.settings.provision_sections]
    return ranked, {h.section for h in hits if h.bm25_rank is not None and h.dense_rank is not None}


def best_read(query: Query, res: Resources):
    """The provision of the sections the search finds that the reader reads as the answer, whatever
    the question asks (None without a reader): the passage route's quote is checked against it."""
    if res.reader is None:
        return None  # no reader fitted: nothing to search or measure for it
    text = query.corrected or query.text
    ranked, both = _searched(query, res)
    rank = {section: i for i, section in enumerate(ranked)}
    provisions = [p for p in res.provisions() if p.section in rank]
    read = res.read_provisions(reader.Question(text, query.asked, rank, frozenset(both)), provisions)
    if not read:
        return None
    return max(provisions, key=lambda p: (read[reader.key_of(p)], -rank[p.section], -p.order))


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
    given = GIVEN_AS.get(kind, kind) if kind else "list"
    return [Candidate(given, Answer(**{**answer.__dict__, "signals": signals}))]


def marker(label: str) -> str:
    """An item's own outline marker ("(2)" of "17.44.040(B)(2)")."""
    found = re.search(r"\([A-Za-z0-9]{1,4}\)(?:#\d+)?$", label)
    return found.group(0) if found else label


def outline_lines(items, provisions) -> list[str]:
    """A list's items one a line, each followed by the items printed under it, indented."""
    return [f"{'  ' * depth}{marker(item.label)} {item.text}" for depth, item in outline(items, provisions)]


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
