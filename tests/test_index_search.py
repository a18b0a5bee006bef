"""Searcher over the synthetic corpus with the hashing encoder: modes, direct hits, bad queries."""

from __future__ import annotations

import time

import pytest
from conftest_index import open_fake

from index import Hit, QueryError
from index.query import MAX_QUERY_CHARS, clean_query, refs_in


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    return open_fake(tmp_path_factory.mktemp("idx") / "index")


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "dense"])
def test_modes_return_ranked_hits(searcher, mode):
    hits = searcher.search("parking spaces for a restaurant", k=3, mode=mode)
    assert 1 <= len(hits) <= 3
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(isinstance(h, Hit) and h.mode == mode for h in hits)
    assert hits[0].section == "17.36.050"


def test_scores_descend_outside_direct_hits(searcher):
    for mode in ("hybrid", "bm25", "dense"):
        scores = [h.score for h in searcher.search("fence height in a front yard", k=8, mode=mode)]
        assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize(
    "query, section",
    [
        ("17.44.065", "17.44.065"),
        ("setbacks 17.36.050", "17.36.050"),
        ("what does 17.42.170 say about fences", "17.42.170"),
        ("Table 3-7", "17.36.050"),
        ("table 2-4 bars", "17.22.020"),
        ("Table 2\u20134", "17.22.020"),
    ],
)
def test_direct_hits_come_first(searcher, query, section):
    hits = searcher.search(query, k=5)
    assert hits[0].section == section and hits[0].direct


def test_bare_section_number_gives_newest_document_first(searcher):
    hits = searcher.search("17.44.065", k=5)
    assert (hits[0].section, hits[0].document) == ("17.44.065", "001")
    assert sum(h.direct for h in hits) <= 3  # DIRECT_PER_REF


def test_two_named_sections_keep_their_order(searcher):
    hits = searcher.search("17.30.030 and 17.44.050", k=5)
    assert [h.section for h in hits[:2]] == ["17.30.030", "17.44.050"]


def test_unknown_section_number_is_not_an_error(searcher):
    hits = searcher.search("17.99.999", k=5)
    assert not any(h.direct for h in hits)


def test_table_rows_are_searchable(searcher):
    hits = searcher.search("bar tavern HC", k=5, mode="bm25")
    assert any(h.chunk.kind == "table_row" for h in hits)


def test_results_are_deterministic(searcher):
    q = "wireless tower setback from homes"
    first = [h.to_dict() for h in searcher.search(q, k=10)]
    for _ in range(3):
        assert [h.to_dict() for h in searcher.search(q, k=10)] == first


def test_hit_dict_has_the_contract_fields(searcher):
    d = searcher.search("fences", k=1)[0].to_dict()
    assert {"section", "document", "score", "text", "title", "pages", "chunk", "rank"} <= set(d)
    assert isinstance(d["score"], float) and isinstance(d["pages"], list)


def test_component_ranks_are_reported(searcher):
    h = searcher.search("parking restaurant", k=1)[0]
    assert h.bm25_rank is not None and h.dense_rank is not None


def test_k_caps_the_results(searcher):
    assert len(searcher.search("the TOC district", k=2)) == 2
    assert len(searcher.search("the TOC district", k=1000)) <= len(searcher.chunks)


def test_embed_query_time_is_recorded(searcher):
    searcher.search("fence", mode="dense")
    assert searcher.embed_query_ms is not None and searcher.embed_query_ms >= 0


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "\n\t", "\x00\x01\x02", "\u200b\u200b"])
def test_empty_queries_are_refused_clearly(searcher, query):
    with pytest.raises(QueryError, match="empty"):
        searcher.search(query)


def test_too_long_query_is_refused_quickly(searcher):
    t0 = time.perf_counter()
    with pytest.raises(QueryError, match=f"limit is {MAX_QUERY_CHARS}"):
        searcher.search("parking " * 1250)  # 10,000 characters
    assert time.perf_counter() - t0 < 1.0


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "dense"])
def test_stop_words_only_gives_empty_result(searcher, mode):
    assert searcher.search("what is the of and it", mode=mode) == []
    assert searcher.search("?!... ---", mode=mode) == []


@pytest.mark.parametrize(
    "query",
    ["fence\x00height", "\x1b[31mparking\x1b[0m", "fen\ud800ce", b"\xff\xfeparking".decode("latin-1"), "parking\u202e"],
)
def test_control_and_binary_characters_do_not_crash(searcher, query):
    hits = searcher.search(query, k=3)
    assert isinstance(hits, list)


@pytest.mark.parametrize("bad", [None, 42, b"parking", ["parking"]])
def test_non_text_query_is_refused(searcher, bad):
    with pytest.raises(QueryError, match="must be text"):
        searcher.search(bad)


@pytest.mark.parametrize("k", [0, -1, 1001, 2.5, True, "10"])
def test_bad_k_is_refused(searcher, k):
    with pytest.raises(QueryError, match="k must be"):
        searcher.search("parking", k=k)


def test_bad_mode_is_refused(searcher):
    with pytest.raises(QueryError, match="unknown mode"):
        searcher.search("parking", mode="magic")


def test_query_error_is_a_value_error_naming_the_query():
    err = QueryError("x" * 100, "too long")
    assert isinstance(err, ValueError) and "xxxx" in str(err) and "too long" in str(err)


def test_clean_query_and_refs():
    assert clean_query("  a\x00b \n c ") == "ab c"
    refs = refs_in("Is 17.44.065 in Table 3-7 or tables 2\u20134? Not 117.44.0655.")
    assert [(r.kind, r.value) for r in refs] == [("section", "17.44.065"), ("table", "3-7"), ("table", "2-4")]



def test_query_vector_reuses_the_vector_a_search_just_computed(searcher, monkeypatch):
    """The passage route searches and then needs the question's vector: it is embedded once."""
    calls = []
    real = searcher.embed_query

    def counting(text):
        calls.append(text)
        return real(text)

    monkeypatch.setattr(searcher, "embed_query", counting)
    searcher.search("  rear fence height limit  ", k=3, mode="hybrid")
    vector = searcher.query_vector("rear fence height limit")
    assert calls == ["rear fence height limit"]
    assert (vector == real("rear fence height limit")).all()
