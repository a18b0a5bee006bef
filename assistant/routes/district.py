"""The district route: "What is the NM district?", "where is the CE zone?": the paragraph the code
prints under that district's heading in 17.20.030 (purposes of the zoning districts), found by the
heading. Gives ``district_description``."""

from __future__ import annotations

import re
from dataclasses import replace

from .. import compose
from ..definitions import ASKING_WORDS
from ..resources import STANDARDS_TOPICS, Resources, clip_sentences
from ..permits import words_beside, words_of
from ..types import Candidate, Query

GIVES = "district_description"
# What a question about a district itself asks (general English): what it is, means, is for, where.
ABOUT_A_DISTRICT = re.compile(r"\b(?:what(?:s| is| are| does| do)|where|purpose|intended|meant|mean|means|stand for|for)\b")
DISTRICT_PURPOSES = "17.20.030"  # "Purposes of the zoning districts": one printed paragraph per district


def candidates(query: Query, res: Resources) -> list[Candidate]:
    if len(query.districts) != 1 or query.land_uses or set(query.topics) & STANDARDS_TOPICS - {"definition"}:
        return []
    if query.detected not in ("definition", "other"):
        return []
    if not ABOUT_A_DISTRICT.search(query.normalized) or re.search(r"\bwhich\b", query.normalized):
        return []  # "which parcel was rezoned to NM?" asks for something else than what NM is
    found = paragraph_answer(query, res)
    return [found] if found is not None else []


def paragraph_answer(query: Query, res: Resources) -> Candidate | None:
    """The printed purpose of the one district the query names (17.20.030), or None."""
    section = res.corpus.section(DISTRICT_PURPOSES)
    if section is None:
        return None
    symbol = query.districts[0]
    district = res.vocabulary.district(symbol)
    names = [re.escape(n) for n in ((district.name,) if district else ())]
    heading = re.compile(rf"^(?:\d+\.\s*)?(?:{symbol}\s*\(|(?:{'|'.join(names) or '$^'})\s*\({symbol}\)\.)")
    paragraph = next((line.strip() for line in section.text.split("\n") if heading.match(line.strip())), None)
    if paragraph is None:
        return None
    found = compose.section_answer(query, section, res.corpus, clip_sentences(re.sub(r"^\d+\.\s*", "", paragraph)))
    named = set(words_of(" ".join([symbol, district.name if district else ""])))
    signals = {"heading_found": 1.0, "other_words": words_beside(query.text, named, res.corpus.idf, ASKING_WORDS)}
    return Candidate(GIVES, replace(found, route="district", signals=signals))
