"""The Qdrant backend on Qdrant Edge: Qdrant's own engine in this process, one shard per corpus.

The layout is the Qdrant server's collection layout (``qdrant_backend``): each chunk is one point
with a named dense vector ``dense`` (dot product on L2-normalised vectors, i.e. cosine), a sparse
vector ``bm25`` with the IDF modifier (``sparse``: BM25 without its IDF, which the engine applies),
and the payload ``corpus`` (a keyword index marked as the tenant field), ``document`` (indexed, for
removing a document), ``chunk_id`` and the chunk itself. Hybrid search is the engine's prefetch +
RRF (k=60). Each corpus is its own shard, so the engine's IDF is the corpus's (no IDF scope needed);
every search still filters by ``corpus``, as against a shared collection.

Dense search is exact by default (``exact``), as the builtin FAISS flat index is, so the two rank
alike; ``exact=False`` lets the engine use its HNSW index once ``optimize`` has built one (the
benchmark's approximate rows). Shards are shared between processes by generations
(``edge_shards``): readers never write, one writer at a time, a second refused in one line.
qdrant_edge (``qdrant-edge-py``, beta, pinned) is imported here only, when a backend is opened.
"""

from __future__ import annotations

import functools
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .backend import BackendError, Entry, Fused, Ranked, by_score_then_id
from .bm25 import B, K1
from .edge_shards import SHARD, CorpusShards, Opened, read_record, write_record
from .fusion import RRF_K, fused_order
from .sparse import MATCHING, average_length, matching, point_id, point_parts, query_sparse

DENSE = "dense"
SPARSE = "bm25"
BATCH = 1024  # points per update call: bounded memory for the Python-side point objects


def _edge():
    try:
        import qdrant_edge
    except ImportError:
        raise BackendError("qdrant", "qdrant-edge-py is not installed; pip install -e '.[qdrant]'") from None
    return qdrant_edge


def _engine_errors(method):
    """The engine raises plain ``Exception`` ("Service runtime error: ...") and ``ValueError``:
    re-raise them as one BackendError naming the shard folder."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except BackendError:
            raise
        except Exception as e:  # noqa: BLE001 - the engine's own errors have no narrower type
            first = (str(e).strip().splitlines() or [""])[0][:200]
            raise BackendError("qdrant", f"{self.where}: {type(e).__name__}: {first}") from e

    return wrapper


@dataclass
class _Served:
    """A corpus's published shard, open in this process."""

    opened: Opened
    shard: Any  # qdrant_edge.EdgeShard

    def close(self) -> None:
        try:
            self.shard.close()
        except Exception:  # noqa: BLE001 - its folder may be gone (an index rebuilt by another process)
            pass
        self.opened.release()


class EdgeBackend:
    name = "qdrant"
    engine = "edge"

    def __init__(self, root: str | Path, k1: float = K1, b: float = B, exact: bool = True):
        self.root = Path(root).expanduser()
        self.where = str(self.root)
        self.k1, self.b, self.exact = k1, b, exact
        self._served: dict[str, _Served] = {}
        self._lock = threading.RLock()  # opening and swapping shards; searches run on an open shard
        _edge()  # fail at once, in one line, when the package is missing

    # -- shards --------------------------------------------------------------------------------
    def _shards(self, corpus: str) -> CorpusShards:
        return CorpusShards(self.root, corpus)

    def _serve(self, corpus: str) -> _Served | None:
        """The corpus's published shard, opened on first use (None when there is none)."""
        with self._lock:
            if corpus not in self._served:
                opened = self._shards(corpus).open()
                if opened is None:
                    return None
                try:
                    shard = _edge().EdgeShard.load(str(opened.shard))
                except BaseException:
                    opened.release()
                    raise
                self._served[corpus] = _Served(opened, shard)
            return self._served[corpus]

    def _drop(self, corpus: str) -> None:
        with self._lock:
            served = self._served.pop(corpus, None)
            if served is not None:
                served.close()

    # -- writing -------------------------------------------------------------------------------
    @_engine_errors
    def build(self, corpus: str, entries: Sequence[Entry], key: str = "") -> None:
        if not entries:
            raise BackendError("qdrant", f"{self.where}: corpus {corpus!r}: nothing to build")
        edge = _edge()
        dim = len(entries[0].vector)
        avgdl = average_length([e.tokens for e in entries])
        with self._shards(corpus).writing() as gen:
            shard = edge.EdgeShard.create(str(gen / SHARD), self._config(dim))
            try:
                shard.update(edge.UpdateOperation.create_field_index("corpus", edge.KeywordIndexParams(is_tenant=True)))
                shard.update(edge.UpdateOperation.create_field_index("document", edge.PayloadSchemaType.Keyword))
                self._upsert(shard, corpus, entries, avgdl)
                if not self.exact:
                    shard.optimize()  # builds the HNSW index the approximate search uses
                shard.flush()
            finally:
                shard.close()
            _settle(gen / SHARD)
            write_record(gen, {"corpus": corpus, "key": key, "avgdl": avgdl, "chunks": len(entries), "dim": dim})
            self._drop(corpus)  # before publishing: the old generation, closed here, can then be deleted

    def _config(self, dim: int):
        edge = _edge()
        # no write-ahead log: a generation is durable once flushed, and never written after it is published
        return edge.EdgeConfig(vectors={DENSE: edge.EdgeVectorParams(size=dim, distance=edge.Distance.Dot)},
                               sparse_vectors={SPARSE: edge.EdgeSparseVectorParams(modifier=edge.Modifier.Idf)},
                               wal_enabled=False)

    def _upsert(self, shard, corpus: str, entries: Sequence[Entry], avgdl: float) -> None:
        edge = _edge()
        for start in range(0, len(entries), BATCH):
            points = []
            for e in entries[start:start + BATCH]:
                ids, values, dense, payload = point_parts(corpus, e, avgdl, self.k1, self.b)
                points.append(edge.Point(point_id(corpus, e.id), {DENSE: dense, SPARSE: edge.SparseVector(ids, values)}, payload))
            shard.update(edge.UpdateOperation.upsert_points(points))

    def _rewrite(self, corpus: str, change: Callable[[Any, dict[str, Any]], None]) -> None:
        """A new generation: a copy of the current one with ``change(shard, record)`` applied; its
        record says it no longer holds an index exactly as loaded (key "")."""
        shards = self._shards(corpus)
        with shards.writing() as gen:
            current = shards.current()  # read under the writer lock: no other writer moves it now
            record = _read(current)
            shutil.copytree(current / SHARD, gen / SHARD)
            shard = _edge().EdgeShard.load(str(gen / SHARD))
            try:
                change(shard, record)
                shard.flush()
                chunks = shard.count(_edge().CountRequest(exact=True, filter=_filter(corpus)))
            finally:
                shard.close()
            _settle(gen / SHARD)
            write_record(gen, {**record, "key": "", "chunks": chunks})
            self._drop(corpus)

    @_engine_errors
    def add(self, corpus: str, entries: Sequence[Entry]) -> None:
        """Chunks added keep the corpus's average length from its build (re-weighting every chunk
        on each addition would not scale); a rebuild brings it up to date."""
        rec = self.record(corpus)
        if not rec:
            return self.build(corpus, entries)
        if entries and len(entries[0].vector) != rec.get("dim"):
            raise BackendError("qdrant", f"{self.where}: corpus {corpus!r} holds {rec.get('dim')}-d vectors, "
                                         f"these are {len(entries[0].vector)}-d; rebuild it")
        self._rewrite(corpus, lambda shard, r: self._upsert(shard, corpus, entries, float(r["avgdl"])))

    @_engine_errors
    def remove(self, corpus: str, document: str) -> int:
        n = self.count(corpus, document)
        if n:
            edge = _edge()
            self._rewrite(corpus, lambda shard, _: shard.update(
                edge.UpdateOperation.delete_points_by_filter(_filter(corpus, document))))
        return n

    # -- what a shard holds --------------------------------------------------------------------
    @_engine_errors
    def record(self, corpus: str) -> dict[str, Any]:
        """What the corpus's shard says it holds: ``avgdl``, ``key`` (the index it was loaded from;
        "" once a document was added or removed), ``chunks``, ``dim``. {} when there is none."""
        served = self._serve(corpus)
        return dict(served.opened.record) if served else {}

    @_engine_errors
    def count(self, corpus: str, document: str | None = None) -> int:
        served = self._serve(corpus)
        return served.shard.count(_edge().CountRequest(exact=True, filter=_filter(corpus, document))) if served else 0

    def holds(self, corpus: str, key: str) -> bool:
        """Does the corpus's published shard hold exactly the index ``key``?"""
        rec = self.record(corpus)
        return bool(key) and rec.get("key") == key and self.count(corpus) == rec.get("chunks")

    # -- searching -----------------------------------------------------------------------------
    def _requests(self, corpus: str, tokens: Sequence[str] | None, vector: np.ndarray | None, n: int):
        """(bm25 request or None, dense request or None): plain searches for twice the ``n`` asked.
        The engine picks among equal scores in an order of its own that changes from one build to
        the next; asking for more and cutting here by (score, id) keeps exactly the chunks builtin
        keeps, unless more than ``n`` tie at the cut."""
        n = 2 * n
        edge = _edge()
        flt = _filter(corpus)
        sparse = None
        if tokens:
            ids, values = query_sparse(tokens)
            sparse = edge.QueryRequest(limit=n, query=edge.Query.Nearest(edge.SparseVector(ids, values), using=SPARSE),
                                       filter=flt, with_payload=["chunk_id"])
        dense = None if vector is None else edge.QueryRequest(
            limit=n, query=edge.Query.Nearest(np.asarray(vector, dtype=np.float32).reshape(-1).tolist(), using=DENSE),
            filter=flt, params=edge.SearchParams(exact=self.exact), with_payload=["chunk_id"])
        return sparse, dense

    def _points(self, corpus: str, requests: list) -> list[list]:
        served = self._serve(corpus)
        if served is None or not requests:
            return [[] for _ in requests]
        return served.shard.query_batch(_edge().QueryBatchRequest(requests))

    def _run(self, corpus: str, requests: list) -> list[Ranked]:
        return [_ranked(points) for points in self._points(corpus, requests)]

    @_engine_errors
    def bm25(self, corpus: str, tokens: Sequence[str], n: int) -> Ranked:
        sparse, _ = self._requests(corpus, tokens, None, n)
        return matching(self._run(corpus, [sparse])[0])[:n] if sparse else []

    @_engine_errors
    def dense(self, corpus: str, vector: np.ndarray, n: int) -> Ranked:
        _, dense = self._requests(corpus, None, vector, n)
        return by_score_then_id(self._run(corpus, [dense])[0])[:n]

    @_engine_errors
    def hybrid(self, corpus: str, tokens: Sequence[str], vector: np.ndarray, fetch: int) -> Fused:
        """The two plain searches (their ranks go into each Hit), then the engine's fusion of the
        same two as prefetches, each limited to the chunks its plain search kept, so the exact dense
        search does not run twice; the fusion is asked for every candidate so its limit cuts
        nothing, and ties are ordered here (score, then id)."""
        edge = _edge()
        sparse, dense = self._requests(corpus, tokens, vector, fetch)
        plain = [r for r in (sparse, dense) if r is not None]
        found = [_ranked(points) for points in self._points(corpus, plain)]
        lexical = matching(found[0])[:fetch] if sparse is not None else []
        semantic = by_score_then_id(found[-1])[:fetch] if dense is not None else []
        kept = [ranked for r, ranked in ((sparse, lexical), (dense, semantic)) if r is not None]
        prefetch = [edge.Prefetch(limit=fetch, query=r.query, params=r.params, filter=edge.Filter(must=[
                        *_filter(corpus).must, edge.HasIdCondition({point_id(corpus, i) for i, _ in ranked})]),
                        score_threshold=MATCHING if r is sparse else None) for r, ranked in zip(plain, kept)]
        # Qdrant's RRF scores 1 / (k + position), positions from 0; ours 1 / (k + rank), ranks from 1
        fused = edge.QueryRequest(limit=2 * fetch, prefetches=prefetch, query=edge.Fusion.Rrf(k=RRF_K + 1),
                                  with_payload=["chunk_id"])
        return Fused(fused_order(self._run(corpus, [fused])[0]), lexical, semantic)

    def close(self) -> None:
        with self._lock:
            for corpus in list(self._served):
                self._drop(corpus)


def _ranked(points) -> Ranked:
    return [(p.payload["chunk_id"], float(p.score)) for p in points]


def _settle(path: Path) -> None:
    """Open and close a written shard once before it is published: the first open consumes the
    engine's journals and rewrites its config, so readers' opens afterwards find nothing to change."""
    _edge().EdgeShard.load(str(path)).close()


def _read(gen: Path | None) -> dict[str, Any]:
    if gen is None:
        raise BackendError("qdrant", "no shard to change: build it first")
    return read_record(gen)


def _filter(corpus: str, document: str | None = None):
    edge = _edge()
    must = [edge.FieldCondition(key="corpus", match=edge.MatchValue(corpus))]
    if document is not None:
        must.append(edge.FieldCondition(key="document", match=edge.MatchValue(document)))
    return edge.Filter(must=must)
