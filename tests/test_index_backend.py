"""Retrieval backends (builtin rank-bm25 + FAISS; Qdrant Edge, the ``qdrant`` backend without a
server; the server backend's code on qdrant-client's local mode, its test double) over the
synthetic corpus with the hashing encoder: build, search, corpus filter, add/remove, and the
Searcher and CLI on the Qdrant backend. Hermetic: a temp folder each, no model, no server."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest_index import FAKE_MODEL, open_fake

from index.backend import BackendError, Entry, backend_name
from index.builtin_backend import BuiltinBackend
from index.qdrant_backend import QdrantBackend
from index.qdrant_edge_backend import EdgeBackend
from index.sparse import doc_sparse, query_sparse, term_id

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ("cell tower setback", "fence height", "parking restaurant", "accessory dwelling unit", "bar tavern permit")
TIE_FREE = ("front yard fences", "transit density", "second unit single-family house")


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    return open_fake(tmp_path_factory.mktemp("backend") / "index")


@pytest.fixture
def entries(searcher):
    return searcher.entries()


def _backend(kind: str, tmp_path: Path):
    if kind == "builtin":
        return BuiltinBackend(k1=1.2, b=0.75)
    if kind == "edge":
        return EdgeBackend(tmp_path / "edge")
    return QdrantBackend(path=tmp_path / "qdrant", collection="test_code")  # the server code, on local mode


@pytest.fixture(params=["builtin", "edge", "server-code"])
def backend(request, tmp_path):
    b = _backend(request.param, tmp_path)
    yield b
    b.close()


def _vector(searcher, text):
    return searcher.query_vector(text)


def _tokens(text):
    from index.tokenize import tokenize

    return tokenize(text)


def _ids(ranked):
    return [i for i, _ in ranked]


def test_term_ids_are_stable_u32_and_query_terms_count_once():
    assert term_id("fence") == term_id("fence") != term_id("fences")
    assert 0 <= term_id("17.44.065") < 2**32
    ids, values = query_sparse(["fence", "height", "fence"])
    assert len(ids) == 2 and values == [1.0, 1.0] and ids == sorted(ids)


def test_sparse_weights_are_bm25_without_idf():
    ids, values = doc_sparse(["fence", "fence", "height"], avgdl=3.0, k1=1.2, b=0.75)
    weight = dict(zip(ids, values))
    assert weight[term_id("fence")] == pytest.approx(2 * 2.2 / (2 + 1.2))
    assert weight[term_id("height")] == pytest.approx(1 * 2.2 / (1 + 1.2))


def test_each_backend_ranks_like_the_builtin_one(searcher, entries, backend):
    reference = BuiltinBackend(k1=1.2, b=0.75)
    reference.build("cotati", entries)
    backend.build("cotati", entries)
    exact = 0
    for q in QUERIES + TIE_FREE:
        tokens, vec = _tokens(q), _vector(searcher, q)
        want, got = reference.bm25("cotati", tokens, 10), backend.bm25("cotati", tokens, 10)
        assert _ids(got) == _ids(want), q
        assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-5)
        want_d, got_d = reference.dense("cotati", vec, 5), backend.dense("cotati", vec, 5)
        assert _ids(got_d) == _ids(want_d) and [s for _, s in got_d] == pytest.approx([s for _, s in want_d], abs=1e-5)
        fused_want, fused_got = reference.hybrid("cotati", tokens, vec, 50), backend.hybrid("cotati", tokens, vec, 50)
        assert set(_ids(fused_got.fused)) == set(_ids(fused_want.fused)), q
        short_want, short_got = reference.hybrid("cotati", tokens, vec, 3), backend.hybrid("cotati", tokens, vec, 3)
        if _untied(short_want.bm25) and _untied(short_want.dense):
            # equal scores may come out of an engine in any order before it fuses them: only
            # lists without ties must fuse exactly alike
            assert _ids(short_got.fused) == _ids(short_want.fused), q
            assert [s for _, s in short_got.fused] == pytest.approx([s for _, s in short_want.fused])
            exact += 1
    assert exact >= 2  # the check above did run


def _untied(ranked) -> bool:
    scores = [round(s, 5) for _, s in ranked]
    return len(set(scores)) == len(scores)


def test_bm25_returns_only_chunks_holding_a_query_term(entries, backend):
    backend.build("cotati", entries)
    assert backend.bm25("cotati", _tokens("zebra xylophone"), 10) == []
    hits = backend.bm25("cotati", _tokens("fence"), 50)
    held = {e.id for e in entries if "fence" in e.tokens}
    assert hits and set(_ids(hits)) == held and all(s > 0 for _, s in hits)


def test_every_search_stays_in_its_corpus(searcher, entries, backend):
    """Two cities in one store: each search sees only its own, with its own BM25 statistics."""
    backend.build("cotati", entries)
    alone = {q: backend.bm25("cotati", _tokens(q), 20) for q in QUERIES}
    other = [Entry(f"x/{e.id}", e.document, e.tokens, e.vector) for e in entries if e.document == "002"]
    backend.build("elsewhere", other)
    for q in QUERIES:
        vec = _vector(searcher, q)
        mine = backend.hybrid("cotati", _tokens(q), vec, 50)
        theirs = backend.hybrid("elsewhere", _tokens(q), vec, 50)
        assert all(not i.startswith("x/") for i in _ids(mine.fused) + _ids(mine.bm25) + _ids(mine.dense))
        assert all(i.startswith("x/") for i in _ids(theirs.fused) + _ids(theirs.bm25) + _ids(theirs.dense))
        again = backend.bm25("cotati", _tokens(q), 20)  # the other corpus changes no score of this one
        assert _ids(again) == _ids(alone[q]) and [s for _, s in again] == pytest.approx([s for _, s in alone[q]])
    assert backend.bm25("nowhere", _tokens("fence"), 5) == []


def test_remove_and_add_a_document(searcher, entries, backend):
    backend.build("cotati", entries)
    before = {q: backend.hybrid("cotati", _tokens(q), _vector(searcher, q), 50) for q in QUERIES + TIE_FREE}
    short = {q: backend.hybrid("cotati", _tokens(q), _vector(searcher, q), 3) for q in QUERIES + TIE_FREE}
    gone = [e for e in entries if e.document == "001"]
    assert gone and backend.remove("cotati", "001") == len(gone)
    for q in QUERIES:
        found = backend.hybrid("cotati", _tokens(q), _vector(searcher, q), 50)
        assert not {i for i in _ids(found.fused)} & {e.id for e in gone}
    assert backend.remove("cotati", "001") == 0
    backend.add("cotati", gone)
    exact = 0
    for q in QUERIES + TIE_FREE:
        found, was = backend.hybrid("cotati", _tokens(q), _vector(searcher, q), 50), before[q]
        assert _ids(found.bm25) == _ids(was.bm25) and _ids(found.dense) == _ids(was.dense), q
        assert set(_ids(found.fused)) == set(_ids(was.fused)), q
        if _untied(short[q].bm25) and _untied(short[q].dense):  # re-added points sit elsewhere in the engine,
            found = backend.hybrid("cotati", _tokens(q), _vector(searcher, q), 3)  # which may order ties anew
            assert _ids(found.fused) == _ids(short[q].fused), q
            exact += 1
    assert exact  # the check above did run


@pytest.mark.parametrize("kind", ["edge", "server-code"])
def test_qdrant_records_which_index_it_holds(entries, tmp_path, kind):
    q = _backend(kind, tmp_path)
    q.build("cotati", entries, key="k1")
    assert q.holds("cotati", "k1") and not q.holds("cotati", "k2") and q.count("cotati") == len(entries)
    assert q.record("cotati")["avgdl"] > 1
    q.remove("cotati", "001")
    assert not q.holds("cotati", "k1")  # changed since it was loaded from the index: reloaded on next open
    q.close()
    reopened = _backend(kind, tmp_path)  # both persist on disk
    assert reopened.count("cotati") == len(entries) - sum(e.document == "001" for e in entries)
    reopened.close()


def test_edge_keeps_one_generation_and_refuses_vectors_of_another_size(entries, tmp_path):
    q = EdgeBackend(tmp_path / "edge")
    q.build("cotati", entries, key="k1")
    q.remove("cotati", "001")
    q.add("cotati", [e for e in entries if e.document == "001"])
    # each change published a new generation; the ones no process has open are gone
    assert len(list((tmp_path / "edge" / "cotati").glob("g-*"))) == 1
    short = [Entry(e.id, e.document, e.tokens, np.ones(8, dtype=np.float32) / np.sqrt(8)) for e in entries]
    with pytest.raises(BackendError, match="64-d vectors, these are 8-d"):
        q.add("cotati", short)
    q.build("small", short)  # another corpus is another shard: its own size
    assert q.count("small") == len(entries) and q.count("cotati") == len(entries)
    with pytest.raises(BackendError, match="corpus name '../x'"):
        q.bm25("../x", ["fence"], 5)
    q.close()


def test_a_server_collection_refuses_vectors_of_another_size(entries, tmp_path):
    q = QdrantBackend(path=tmp_path / "qdrant", collection="test_code")
    q.build("cotati", entries)
    short = [Entry(e.id, e.document, e.tokens, np.ones(8, dtype=np.float32) / np.sqrt(8)) for e in entries]
    with pytest.raises(BackendError, match="64-d vectors, these are 8-d"):
        q.build("small", short)
    q.close()


def test_backend_setting(monkeypatch):
    assert backend_name() == "builtin"
    monkeypatch.setenv("COTATI_INDEX_BACKEND", "qdrant")
    assert backend_name() == "qdrant"
    with pytest.raises(BackendError, match="'elastic'.*unknown"):
        backend_name("elastic")


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "dense"])
def test_searcher_on_qdrant_gives_the_same_hits(tmp_path, monkeypatch, searcher, mode):
    from conftest_index import corpus

    from index import open_index

    monkeypatch.setenv("COTATI_QDRANT_PATH", str(tmp_path / "edge"))
    monkeypatch.delenv("COTATI_QDRANT_URL", raising=False)
    q = open_index(searcher.path, model=FAKE_MODEL, corpus=corpus(), backend="qdrant", corpus_name="test")
    assert q.backend.name == "qdrant" and q.backend.engine == "edge" and q.backend.holds("test", q.index_key)
    for query in QUERIES + ("17.44.065", "Table 3-7", "what does 17.44.065 say about towers"):
        want = searcher.search(query, k=1000, mode=mode)
        got = q.search(query, k=1000, mode=mode)
        # every candidate, with the same component ranks
        assert {h.chunk.id: (h.bm25_rank, h.dense_rank) for h in got} == \
               {h.chunk.id: (h.bm25_rank, h.dense_rank) for h in want}, query
        if mode != "hybrid":
            assert [h.chunk.id for h in got] == [h.chunk.id for h in want], query
        elif query[0].isupper() or query[0].isdigit():  # a bare number: its chunks first, newest first
            assert [h.chunk.id for h in got if h.direct] == [h.chunk.id for h in want if h.direct], query
        # otherwise the fused order (and the direct hits it picks) may differ where the engine
        # orders equal scores its own way before fusing them
    q.backend.close()


def test_cli_build_and_search_on_qdrant_with_no_server(tmp_path):
    env = dict(os.environ, COTATI_INDEX_DIR=str(tmp_path / "index"), COTATI_EMBED_MODEL=FAKE_MODEL)
    for name in ("COTATI_QDRANT_URL", "COTATI_QDRANT_PATH"):
        env.pop(name, None)

    def run(*args):
        return subprocess.run([sys.executable, "-m", "index", *args], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120)

    r = run("build", "--backend", "qdrant", "--quiet")
    assert r.returncode == 0, r.stderr
    edge = tmp_path / "edge"  # Qdrant Edge, its shards beside the index folder
    assert f"loaded into Qdrant ({edge})" in r.stderr and (edge / "cotati" / "CURRENT").is_file()
    r = run("search", "17.44.065", "--json", "-k", "3", "--backend", "qdrant")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["section"] == "17.44.065"
    builtin = run("search", "cell tower setback", "--json", "-k", "5")
    qdrant = run("search", "cell tower setback", "--json", "-k", "5", "--backend", "qdrant")
    assert [h["chunk"] for h in json.loads(qdrant.stdout)] == [h["chunk"] for h in json.loads(builtin.stdout)]
    with open(edge / "cotati" / "writer.lock", "a+") as lock:  # as another process's build holds it
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = run("build", "--backend", "qdrant", "--quiet")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith(
        f"error: index backend 'qdrant': {edge / 'cotati'}: another process is writing this index")


def test_an_unreachable_server_is_one_line(tmp_path):
    env = dict(os.environ, COTATI_INDEX_DIR=str(tmp_path / "index"), COTATI_EMBED_MODEL=FAKE_MODEL,
               COTATI_QDRANT_URL="http://127.0.0.1:9")  # the discard port: nothing listens
    r = subprocess.run([sys.executable, "-m", "index", "search", "fence", "--backend", "qdrant"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip().splitlines()[-1].startswith("error: index backend 'qdrant': http://127.0.0.1:9: ")
    assert "Traceback" not in r.stderr


@pytest.mark.skipif(not os.environ.get("COTATI_QDRANT_URL"), reason="no Qdrant server given (COTATI_QDRANT_URL)")
def test_a_server_ranks_like_local_mode(searcher, entries, tmp_path):
    """Runs only where a server is reachable: the same code against it, in a collection of its own."""
    server = QdrantBackend(collection=f"cotati_test_{os.getpid()}")
    local = QdrantBackend(path=tmp_path / "qdrant", collection="test_code")
    try:
        server.build("cotati", entries)
        local.build("cotati", entries)
        for q in QUERIES:
            assert _ids(server.bm25("cotati", _tokens(q), 10)) == _ids(local.bm25("cotati", _tokens(q), 10))
            assert _ids(server.dense("cotati", _vector(searcher, q), 5)) == _ids(local.dense("cotati", _vector(searcher, q), 5))
    finally:
        server.client.delete_collection(server.collection)
        local.close()
