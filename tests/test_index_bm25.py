"""BM25: the IDF stays positive on tiny corpora; only matching chunks score; ties break by row."""

from __future__ import annotations

import math

import pytest
from rank_bm25 import BM25Okapi

from index.bm25 import BM25Index, positive_idf_bm25


def test_okapi_idf_really_is_broken_on_small_corpora():
    """The reason for our IDF: rank-bm25's Okapi gives 0 or less to a term in half the corpus."""
    okapi = BM25Okapi([["fence", "height"], ["parking", "space"]])
    assert okapi.idf["fence"] <= 0.0
    assert max(okapi.get_scores(["fence"])) <= 0.0  # the matching chunk does not win


@pytest.mark.parametrize(
    "docs",
    [
        [["fence"]],
        [["fence", "height"], ["parking", "space"]],
        [["fence"], ["fence"], ["fence", "wall"]],
        [["a", "b"], ["a", "c"], ["a", "d"], ["a", "e"]],
    ],
)
def test_idf_is_positive_for_every_term(docs):
    bm = positive_idf_bm25(docs)
    assert all(v > 0 for v in bm.idf.values())
    n = len(docs)
    for term, v in bm.idf.items():
        df = sum(term in d for d in docs)
        assert v == pytest.approx(math.log(1 + (n - df + 0.5) / (df + 0.5)))


def test_own_counts_give_rank_bm25s_idf_exactly():
    """The index counts the statistics itself (no rank-bm25 at open): the same IDF, bit for bit."""
    docs = [["fence", "height", "fence"], ["parking", "space"], [], ["fence", "wall", "parking"], ["a"] * 7]
    idx, reference = BM25Index(docs), positive_idf_bm25([d or ["\x00empty"] for d in docs])
    assert {t: idx.idf(t) for t in reference.idf} == reference.idf


def test_matching_chunk_beats_non_matching_even_when_term_is_everywhere():
    idx = BM25Index([["fence", "height"], ["fence", "wall"], ["parking"]])
    top = idx.top(["fence"], 10)
    assert [r for r, _ in top] == [0, 1]  # the non-matching chunk is not returned at all
    assert all(s > 0 for _, s in top)


def test_rarer_term_weighs_more():
    idx = BM25Index([["fence", "wall"], ["fence"], ["fence"], ["parking"]])
    assert idx.idf("wall") > idx.idf("fence") > 0


def test_unknown_and_empty_queries_give_no_hits():
    idx = BM25Index([["fence"], ["wall"]])
    assert idx.top([], 5) == []
    assert idx.top(["granny"], 5) == []
    assert not idx.scores(["granny"]).any()


def test_ties_break_by_row():
    idx = BM25Index([["x", "fence"], ["y", "fence"], ["z", "fence"]])
    assert [r for r, _ in idx.top(["fence"], 3)] == [0, 1, 2]


def test_empty_corpus_and_empty_documents():
    assert BM25Index([]).top(["fence"], 3) == []
    idx = BM25Index([[], ["fence"]])
    assert [r for r, _ in idx.top(["fence"], 3)] == [1]


def test_postings_scoring_equals_rank_bm25_scoring():
    from conftest_index import sections

    from index.chunks import chunk_corpus
    from index.tokenize import tokenize

    docs = [tokenize(c.embed_text) for c in chunk_corpus(sections())]
    idx = BM25Index(docs)
    for q in ("wireless tower setback 100 feet", "Table 3-7 parking", "fence fence height", "granny"):
        toks = tokenize(q)
        assert idx.scores(toks) == pytest.approx(idx.reference_scores(toks))
