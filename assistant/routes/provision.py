"""The provision route: a value or a list stated in the code's running text, from the parsed
provisions (``ingest.provisions``) of the sections the search finds. Gives the asked value's kind
(``length``, ``duration``, ``count``, ``body``, ``permit_code`` ...) or ``list``.

The answer leads with the value, states the provision whole (its conditions and exceptions are in
it), lists a list's items one per line, and reads as the provision's heading path."""

from __future__ import annotations

from .. import answer_type, compose
from ..provision_choice import Choice, choose
from ..resources import Resources
from ..types import Answer, Candidate, Query

SECTIONS = 4  # the provisions of the first sections the search finds are read
# ingest/values.py kinds as the answer types the chooser knows (answer_type.GIVEN)
GIVEN_AS = {"percentage": "percent", "ratio": "count", "density": "count", "permit": "permit_code",
            "speed": "number", "decibel": "number", "floor area ratio": "number"}


def candidates(query: Query, res: Resources) -> list[Candidate]:
    text = query.corrected or query.text
    asked = answer_type.asked(text)
    hits = res.hits(text, 8)
    ranked = list(dict.fromkeys(hit.section for hit in hits))[:SECTIONS]
    rank = {section: i for i, section in enumerate(ranked)}
    provisions = [p for p in res.provisions() if p.section in rank]
    chosen = choose(text, asked, provisions, res.corpus.idf, res.provision_meaning(text, provisions), rank)
    if chosen is None:
        return []
    hit = next(h for h in hits if h.section == chosen.provision.section)
    answer = provision_answer(query, chosen, res)
    signals = {"provision_coverage": chosen.coverage, "provision_similarity": chosen.similarity,
               "provision_margin": min(chosen.margin, 2.0), "section_rank": float(rank[chosen.provision.section]),
               "list_answer": float(bool(chosen.items)),
               "both_retrievers": float(hit.bm25_rank is not None and hit.dense_rank is not None)}
    kind = chosen.values[0].kind if chosen.values else ""
    given = GIVEN_AS.get(kind, kind) if kind else "list"
    return [Candidate(given, Answer(**{**answer.__dict__, "signals": signals}))]


def provision_answer(query: Query, chosen: Choice, res: Resources) -> Answer:
    p = chosen.provision
    section = res.corpus.section(p.section, p.document) or res.corpus.section(p.section)
    said = "; ".join(dict.fromkeys(v.text for v in chosen.values))
    lead = f"{said}: {p.text}" if said else p.text
    lines = [lead] + [f"{item.label.removeprefix(p.label)} {item.text}" for item in chosen.items]
    citations = (res.corpus.citation(section, p.text),) if section is not None else ()
    lines.append(compose.source_line(list(citations), res.corpus))
    interpretation = {"provision": p.label, "heading_path": list(p.path), "answer_type": answer_type.asked(query.text)}
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=citations,
                  route="provision", interpretation=interpretation)
