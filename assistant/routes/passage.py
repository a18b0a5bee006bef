"""The passage route: quotes from the sections the search finds, the sentence that answers the
question best first. Gives ``passage`` (or declines when no found text speaks to the question)."""

from __future__ import annotations

from dataclasses import replace

from .. import compose
from ..passages import split_sentences
from ..provision_choice import list_of, outline_lines
from ..provision_search import best_read
from ..resources import Resources
from ..types import Candidate, Query

GIVES = "passage"


def candidates(query: Query, res: Resources) -> list[Candidate]:
    """Nothing the vocabulary knows was named, or nothing else answered: the passages still answer,
    if the calibrated confidence trusts them; a keyword list does not decide what the code covers."""
    found = passages(query, res)
    return [Candidate("decline" if found.abstained else GIVES, found)]


def about_named(query: Query, res: Resources) -> list[Candidate]:
    """A topic, district or use was named and no table or definition answered: the passages do."""
    if not (query.topics or query.districts or query.land_use):
        return []
    return candidates(query, res)


def passages(query: Query, res: Resources):
    """The quoted passages of the sections the search finds (asked once per question: both passage
    routes propose them, so the last question's are kept)."""
    last = res.last_passages
    if last is not None and last[0] == (id(res.searcher), query):
        return last[1]
    found = _passages(query, res)
    res.last_passages = ((id(res.searcher), query), found)
    return found


def _passages(query: Query, res: Resources):
    hits = res.hits(query.corrected or query.text, res.settings.route_hits_k)
    preferred = {s for topic in query.topics for s in res.vocabulary.topics[topic][1]}
    ranked = sorted(hits, key=lambda h: (h.section not in preferred, h.rank))
    # Table-row chunks are text made from cells for retrieval: quotes come from the documents.
    supported = [h for h in ranked if (h.bm25_rank is not None or h.direct) and h.chunk.kind == "section"]
    if query.districts:
        # A question about a district is answered only by text that speaks of that district.
        supported = [h for h in supported if res.mentions_district(h.text, query.districts)]
    if not supported:  # the hits already fetched are the nearest sections: no second search
        return compose.abstain(query, list(dict.fromkeys(hit.section for hit in hits[:res.settings.nearest_hits_k]))[:res.settings.nearest_sections], corpus=res.corpus)
    chosen = [res.whole_section(hit) for hit in _distinct_sections(supported)[:4]]
    answer = compose.passage_answer(query, chosen, res.corpus, res.sentence_meaning(query.corrected or query.text, chosen))
    return _checked_by_reader(query, with_its_list(answer, res), res)


def with_its_list(answer, res: Resources):
    """A quote that ends by announcing a list ("shall be initiated by:", "the following findings:")
    stops before its answer: the list's items (the provisions' outline) follow it, one a line."""
    if answer.abstained or not answer.citations:
        return answer
    top = answer.citations[0]
    here = [p for p in res.provisions() if p.section == top.section and p.document == top.document]
    lead = next((p for p in here if _announces_list(p.text, answer.first_line)), None)
    items = list_of(lead, here)[1] if lead is not None else ()
    if not items:  # the signal is always measured: a fit reads an unmeasured one as 0, not as its mean
        return replace(answer, signals={**answer.signals, "list_attached": 0.0})
    lines = answer.answer.split("\n")
    announced = _last_sentence(lead.text)
    head = lines[0][: lines[0].index(announced) + len(announced)]  # what the quote adds after it is not the list
    listed = outline_lines(items[:res.settings.provision_max_items], here)
    return replace(answer, answer="\n".join([head] + listed + lines[1:]),
                   signals={**answer.signals, "list_attached": 1.0})


def _last_sentence(text: str) -> str:
    sentences = split_sentences(text)
    return sentences[-1][1] if sentences else ""


def _announces_list(text: str, quoted: str) -> bool:
    """Whether the provision ends with a sentence introducing a list, and the quote holds it."""
    last = _last_sentence(text)
    return last.rstrip().endswith(":") and last in quoted


def _checked_by_reader(query: Query, answer, res: Resources):
    """The answer with whether its lead quote is the provision the reader reads as the answer (a
    quote two ways of reading agree on is right more often)."""
    if answer.abstained:
        return answer
    best = best_read(query, res)
    if best is None:
        return answer
    agrees = best.text[:60] in answer.answer.split("\n", 1)[0]
    return replace(answer, signals={**answer.signals, "reader_agrees": float(agrees)})


def _distinct_sections(hits):
    seen, out = set(), []
    for hit in hits:
        if hit.section not in seen:
            seen.add(hit.section)
            out.append(hit)
    return out
