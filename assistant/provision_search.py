"""The provisions of the sections the search finds for a question: which sections (``searched``), and the
provision the reader reads as the answer among them (``best_read``). The provision route chooses among
these sections' provisions; the passage route checks its quote against the reader's; the reader's fit
(``eval/reader_fit.py``) reads the same sections. Here so that no route imports another."""

from __future__ import annotations

from . import reader
from .resources import Resources
from .types import Query


def searched(query: Query, res: Resources) -> tuple[list[str], set[str]]:
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
    ranked, both = searched(query, res)
    rank = {section: i for i, section in enumerate(ranked)}
    provisions = [p for p in res.provisions() if p.section in rank]
    read = res.read_provisions(reader.Question(text, query.asked, rank, frozenset(both)), provisions)
    if not read:
        return None
    return max(provisions, key=lambda p: (read[reader.key_of(p)], -rank[p.section], -p.order))
