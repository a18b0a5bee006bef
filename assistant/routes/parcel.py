"""The parcel route: a parcel named by its assessor's number is answered from the passage that
names it (its rezoning); a question about what the parcel allows is asked again for the district
it is zoned (``Candidate.follow``) and joined here. A street address's zone is declined with the
reason (the zoning map is not among the documents). Gives ``section_text``."""

from __future__ import annotations

import re
from dataclasses import replace

from .. import compose
from ..interpretation import interpretation_of
from ..resources import STANDARDS_TOPICS, Resources
from ..types import Answer, Candidate, Query

# A street address: a house number and a street ("201 W Sierra Ave"), and a question for its zone.
STREET_ADDRESS = re.compile(r"\b\d{1,5}\s+(?:[NSEW]\.?\s+)?(?:[A-Za-z]+\s+){1,3}(?:st|street|ave|avenue|rd|road|dr|drive|way|ln|"
                            r"lane|ct|court|blvd|boulevard|hwy|highway|pl|place|cir|circle)\b\.?", re.I)
WHICH_ZONE = re.compile(r"\b(?:what|which)(?: zoning)? (?:zone|zoning|district)\b|\bzoned\b|\bzoning (?:of|for|on)\b")
# A parcel named by its assessor's number, with the words that introduce it ("APN", "parcel", "lot").
APN_PHRASE = re.compile(r"(?:\b(?:assessor(?:'s)? parcel(?: number)?|apn|parcel(?: number| no\.?)?|lot)\s*(?:\(apn\)\s*)?(?:#\s*)?)?"
                        r"\b\d{3}-\d{3}-\d{3}\b", re.I)
# "APN 144-720-061 is rezoned from the ... (CE) Zoning District to the ... (NM) Zoning District."
REZONED_TO = re.compile(r"\brezoned? (?:from\b.*?)?\bto the [^()]*?\(([A-Z]{2,4}(?:-[\d.]+)?)\) zoning district", re.I)


def candidates(query: Query, res: Resources) -> list[Candidate]:
    if not query.apn:
        return []
    holders = [s for s in res.corpus.sections if query.apn in s.text]
    if not holders:
        return [Candidate("decline", compose.abstain(query, res.nearest(query), f"Parcel {query.apn} is not named in these "
                                                     "documents.", corpus=res.corpus))]
    # The part that acts on the parcel, not the ordinance title that lists it.
    section = max(holders, key=lambda s: (not s.id.endswith(":PREAMBLE"), s.date, s.document))
    line = _apn_line(section.text, query.apn)
    found = compose.section_answer(query, section, res.corpus, line)
    zoned = _rezoned_to(line, query.apn, res.vocabulary)
    if zoned is None or not (query.land_uses or set(query.topics) & STANDARDS_TOPICS):
        return [Candidate("section_text", found)]
    # "could I build a fourplex on parcel X?": the parcel stands for the district it is zoned,
    # and the rest of the question is answered for that district.
    asked = res.read(APN_PHRASE.sub(f"the {zoned} district", query.text, count=1))
    if asked.apn or zoned not in asked.districts:
        return [Candidate("section_text", found)]
    return [Candidate("section_text", found, follow=asked)]


def joined(query: Query, found: Answer, asked: Query, answered: Answer, res: Resources) -> Answer:
    """The answer for the parcel's district, with the passage that zones the parcel so."""
    line = found.citations[0].quote
    zoned = _rezoned_to(line, query.apn, res.vocabulary)
    parcel = f"Parcel {query.apn} is in the {zoned} district: {line}"
    lines = answered.answer.split("\n")
    lines.insert(1, parcel)
    citations = (*answered.citations, *found.citations)
    lines[-1] = compose.source_line(list(citations), res.corpus) if lines[-1].startswith("Source:") else lines[-1]
    interpretation = interpretation_of(asked, answered, res.vocabulary)
    for district in interpretation["districts"]:
        district["words"] = f"parcel {query.apn}"  # the question named the parcel, not the district
    return replace(answered, question=query.text, answer="\n".join(lines), citations=citations,
                   interpretation=interpretation)


def street_address(query: Query, res: Resources) -> list[Candidate]:
    """"what zone is 201 W Sierra Ave in?": the zoning map, which is not among the documents, says."""
    if query.districts or not STREET_ADDRESS.search(query.text) or not WHICH_ZONE.search(query.normalized):
        return []
    return [Candidate("decline", compose.abstain(query, res.nearest(query), "Which district a street address is in is "
                                                 "shown on the City's zoning map, which these documents do not include.",
                                                 corpus=res.corpus))]


def _apn_line(text: str, apn: str) -> str:
    """The paragraph that names the parcel (sentences would split at "Commercial E.")."""
    line = next((line for line in text.split("\n") if apn in line), text.split("\n")[0])
    return line if len(line) <= 400 else line[:399].rsplit(" ", 1)[0] + "…"


def _rezoned_to(line: str, apn: str, vocabulary) -> str | None:
    """The district the passage that names the parcel rezones it to; None when it says none."""
    sentence = line[line.find(apn):] if apn in line else line
    match = REZONED_TO.search(sentence)
    if match is None or vocabulary.district(match.group(1).upper()) is None:
        return None
    return match.group(1).upper()
