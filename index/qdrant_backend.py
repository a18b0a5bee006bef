"""The Qdrant backend: one collection, every corpus (city) in it, searched one corpus at a time.

Each chunk is one point: a named dense vector (``dense``: the index's MiniLM vectors, dot product
on L2-normalised vectors, i.e. cosine) and a sparse vector (``bm25``) with Qdrant's IDF modifier.
The sparse values are BM25's term-frequency part, tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl /
avgdl)), from this project's tokenizer; the engine multiplies each query term by its IDF,
ln(1 + (N - n + 0.5) / (n + 0.5)) (the Lucene IDF ``bm25.BM25Index`` uses), counted over the
searched corpus only (``IdfCorpusParams``), so a city's BM25 scores do not depend on the other
cities in the collection. Hybrid search is the engine's own: two prefetches fused by RRF (k=60).
Every search filters by the ``corpus`` payload field.

This is the backend for a Qdrant server or cluster (``COTATI_QDRANT_URL``). Without a server the
``qdrant`` backend is Qdrant Edge (``qdrant_edge_backend``, same layout); this class's
``path=`` (qdrant-client's local mode, its in-process Python implementation of the same API) is
kept only as the test double that runs this code in CI. qdrant_client is imported here only, and
only when a backend is opened.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .backend import BackendError, Entry, Fused, Ranked, by_score_then_id
from .bm25 import B, K1
from .fusion import RRF_K, fused_order
from .sparse import MATCHING as _MATCHING
from .sparse import average_length, doc_sparse, point_id, point_parts, query_sparse, term_id  # noqa: F401 (tests import them here)
from .sparse import matching as _matching

DENSE = "dense"
SPARSE = "bm25"
BATCH = 512  # points per upsert: bounded requests to a server, few writes in local mode
_CLIENTS: dict[str, Any] = {}
_LOCK = threading.Lock()
_LOCAL_CALLS = threading.RLock()  # re-entrant: a method may call another


# -- the client ----------------------------------------------------------------------------------
def location(url: str | None = None, path: str | Path | None = None) -> str:
    """Where the backend's data is: the server ``url`` or local-mode folder ``path`` given, else
    ``$COTATI_QDRANT_URL``. Local mode (a folder) is this backend's test double only: without a
    server, ``engine`` opens Qdrant Edge instead."""
    import settings

    if url or path:
        return str(url or Path(path).expanduser())
    server = settings.value("qdrant_url")
    if not server:
        raise BackendError("qdrant", "no server given (COTATI_QDRANT_URL) and no local-mode folder")
    return str(server)


def _client(where: str):
    """One client per location and process: local mode locks its folder, so a second client on the
    same folder in this process would be refused."""
    with _LOCK:
        client = _CLIENTS.get(where)
        if client is None:
            try:
                from qdrant_client import QdrantClient
            except ImportError:
                raise BackendError("qdrant", "qdrant-client is not installed; pip install -e '.[qdrant]'") from None
            try:
                if where.startswith(("http://", "https://")):
                    client = QdrantClient(url=where)
                else:
                    Path(where).mkdir(parents=True, exist_ok=True)
                    client = QdrantClient(path=where)
            except Exception as e:  # a locked folder, a bad URL: one line naming where
                raise BackendError("qdrant", f"{where}: cannot open ({type(e).__name__}: {e})") from None
            if not _CLIENTS:  # close at exit: local mode writes its last changes and frees its folder lock
                atexit.register(_close_all)
            _CLIENTS[where] = client
        return client


def _close_all() -> None:
    with _LOCK:
        clients = list(_CLIENTS.values())
        _CLIENTS.clear()
    for client in clients:
        with contextlib.suppress(Exception):
            client.close()


def _engine_errors(method):
    """Re-raise what the client raises (a server not reachable, an HTTP error, local mode's missing
    collection) as one BackendError naming where the data is. Local mode is plain Python objects,
    not made for threads (the app answers several questions at once): one call at a time."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        from qdrant_client.http.exceptions import ApiException

        try:
            with _LOCAL_CALLS if self.local else contextlib.nullcontext():
                return method(self, *args, **kwargs)
        except BackendError:
            raise
        except (ApiException, OSError, ValueError, RuntimeError) as e:
            first = (str(e).strip().splitlines() or [""])[0][:200]
            raise BackendError("qdrant", f"{self.where}: {type(e).__name__}: {first}") from e

    return wrapper


class QdrantBackend:
    name = "qdrant"

    def __init__(self, url: str | None = None, path: str | Path | None = None, collection: str | None = None,
                 k1: float = K1, b: float = B):
        import settings

        self.where = location(url, path)
        self.collection = collection or str(settings.value("qdrant_collection"))
        self.k1, self.b = k1, b
        self.client = _client(self.where)
        # local mode locks its folder: no other writer, so the corpora it holds are known here
        self.local = not self.where.startswith(("http://", "https://"))
        self._held: frozenset[str] | None = None

    # -- writing -------------------------------------------------------------------------------
    def _ensure(self, dim: int) -> None:
        from qdrant_client import models

        if self.client.collection_exists(self.collection):
            size = self.client.get_collection(self.collection).config.params.vectors[DENSE].size
            if size != dim:
                raise BackendError("qdrant", f"{self.where} collection {self.collection!r} holds {size}-d vectors, "
                                             f"these are {dim}-d; use another COTATI_QDRANT_COLLECTION")
            return
        self.client.create_collection(
            self.collection,
            vectors_config={DENSE: models.VectorParams(size=dim, distance=models.Distance.DOT)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        if not self.local:  # a server filters by keyword index (local mode has none); `corpus` is the tenant
            self.client.create_payload_index(self.collection, "corpus", models.KeywordIndexParams(
                type=models.KeywordIndexType.KEYWORD, is_tenant=True))
            self.client.create_payload_index(self.collection, "document", models.PayloadSchemaType.KEYWORD)

    def _upsert(self, corpus: str, entries: Sequence[Entry], avgdl: float) -> None:
        from qdrant_client import models

        for start in range(0, len(entries), BATCH):
            points = []
            for e in entries[start:start + BATCH]:
                ids, values, dense, payload = point_parts(corpus, e, avgdl, self.k1, self.b)
                points.append(models.PointStruct(id=point_id(corpus, e.id), payload=payload, vector={
                    DENSE: dense, SPARSE: models.SparseVector(indices=ids, values=values)}))
            self.client.upsert(self.collection, points=points, wait=True)

    def _set_record(self, corpus: str, record: dict[str, Any]) -> None:
        self.client.update_collection(self.collection, metadata={f"corpus:{corpus}": record})
        self._held = None

    def _metadata(self) -> dict[str, Any]:
        if not self.client.collection_exists(self.collection):
            return {}
        return dict(self.client.get_collection(self.collection).config.metadata or {})

    @_engine_errors
    def corpora(self) -> frozenset[str]:
        """The corpora the collection holds chunks of."""
        return frozenset(k.removeprefix("corpus:") for k, v in self._metadata().items()
                         if k.startswith("corpus:") and (v or {}).get("chunks"))

    def _idf_scope(self, corpus: str, flt):
        """IDF over ``corpus`` only. Skipped in local mode when the collection holds no other corpus:
        the collection-wide statistics are then the corpus's, and local mode computes a scope by
        checking every point's payload on every query."""
        from qdrant_client import models

        if self.local:
            if self._held is None:
                self._held = self.corpora()
            if self._held <= {corpus}:
                return None
        return models.SearchParams(idf=models.IdfCorpusParams(corpus=flt))

    @_engine_errors
    def record(self, corpus: str) -> dict[str, Any]:
        """What the collection says about ``corpus``: ``avgdl``, ``key`` (the index it was loaded
        from; "" once a document was added or removed), ``chunks``. {} when it holds none."""
        return dict(self._metadata().get(f"corpus:{corpus}") or {})

    @_engine_errors
    def build(self, corpus: str, entries: Sequence[Entry], key: str = "") -> None:
        if not entries:
            raise BackendError("qdrant", f"corpus {corpus!r}: nothing to build")
        self._ensure(len(entries[0].vector))
        self._delete(corpus)
        avgdl = average_length([e.tokens for e in entries])
        self._upsert(corpus, list(entries), avgdl)
        self._set_record(corpus, {"avgdl": avgdl, "key": key, "chunks": len(entries)})

    @_engine_errors
    def add(self, corpus: str, entries: Sequence[Entry]) -> None:
        """Chunks added keep the corpus's average length from its build (re-weighting every chunk
        on each addition would not scale); a rebuild brings it up to date."""
        rec = self.record(corpus)
        if not rec:
            return self.build(corpus, entries)
        self._upsert(corpus, list(entries), float(rec["avgdl"]))
        self._set_record(corpus, {**rec, "key": "", "chunks": self.count(corpus)})

    @_engine_errors
    def remove(self, corpus: str, document: str) -> int:
        rec = self.record(corpus)
        if not rec:
            return 0
        n = self.count(corpus, document)
        self._delete(corpus, document)
        self._set_record(corpus, {**rec, "key": "", "chunks": self.count(corpus)})
        return n

    def _delete(self, corpus: str, document: str | None = None) -> None:
        from qdrant_client import models

        if self.client.collection_exists(self.collection):
            self.client.delete(self.collection, points_selector=models.FilterSelector(filter=_filter(corpus, document)),
                               wait=True)

    @_engine_errors
    def count(self, corpus: str, document: str | None = None) -> int:
        if not self.client.collection_exists(self.collection):
            return 0
        return self.client.count(self.collection, count_filter=_filter(corpus, document), exact=True).count

    @_engine_errors
    def holds(self, corpus: str, key: str) -> bool:
        """Does the collection hold exactly the index ``key`` for ``corpus``?"""
        rec = self.record(corpus)
        return bool(key) and rec.get("key") == key and self.count(corpus) == rec.get("chunks")

    # -- searching -----------------------------------------------------------------------------
    def _requests(self, corpus: str, tokens: Sequence[str] | None, vector: np.ndarray | None, n: int):
        """(bm25 request or None, dense request or None): plain searches, also used as prefetches."""
        from qdrant_client import models

        flt = _filter(corpus)
        sparse = None
        if tokens:
            ids, values = query_sparse(tokens)
            sparse = models.QueryRequest(
                query=models.SparseVector(indices=ids, values=values), using=SPARSE, filter=flt, limit=n,
                params=self._idf_scope(corpus, flt), with_payload=["chunk_id"])
        dense = None if vector is None else models.QueryRequest(
            query=np.asarray(vector, dtype=np.float32).reshape(-1).tolist(), using=DENSE, filter=flt, limit=n,
            with_payload=["chunk_id"])
        return sparse, dense

    def _run(self, requests: list) -> list[Ranked]:
        if not requests:
            return []
        responses = self.client.query_batch_points(self.collection, requests=requests)
        return [[(p.payload["chunk_id"], float(p.score)) for p in r.points] for r in responses]

    @_engine_errors
    def bm25(self, corpus: str, tokens: Sequence[str], n: int) -> Ranked:
        sparse, _ = self._requests(corpus, tokens, None, n)
        return _matching(self._run([sparse])[0]) if sparse else []

    @_engine_errors
    def dense(self, corpus: str, vector: np.ndarray, n: int) -> Ranked:
        _, dense = self._requests(corpus, None, vector, n)
        return by_score_then_id(self._run([dense])[0])

    @_engine_errors
    def hybrid(self, corpus: str, tokens: Sequence[str], vector: np.ndarray, fetch: int) -> Fused:
        """One round trip: the two plain searches (their ranks go into each Hit) and the engine's
        fusion of the same two as prefetches, asked for every candidate so the engine's limit cuts
        nothing and ties are ordered here (score, then id)."""
        from qdrant_client import models

        sparse, dense = self._requests(corpus, tokens, vector, fetch)
        prefetch = [models.Prefetch(query=r.query, using=r.using, filter=r.filter, params=r.params, limit=fetch,
                                    score_threshold=_MATCHING if r is sparse else None)
                    for r in (sparse, dense) if r is not None]
        # Qdrant's RRF scores 1 / (k + position), positions from 0; ours 1 / (k + rank), ranks from 1
        # the prefetches filter by corpus: filtering their union again would cost a pass in local mode
        fused_request = models.QueryRequest(prefetch=prefetch, query=models.RrfQuery(rrf=models.Rrf(k=RRF_K + 1)),
                                            limit=2 * fetch, with_payload=["chunk_id"])
        plain = [r for r in (sparse, dense) if r is not None]
        results = self._run(plain + [fused_request])
        lexical = _matching(results[0]) if sparse is not None else []
        semantic = by_score_then_id(results[-2])
        return Fused(fused_order(results[-1]), lexical, semantic)

    def close(self) -> None:
        with _LOCK:
            if _CLIENTS.get(self.where) is self.client:
                del _CLIENTS[self.where]
        self.client.close()


def _filter(corpus: str, document: str | None = None):
    from qdrant_client import models

    must = [models.FieldCondition(key="corpus", match=models.MatchValue(value=corpus))]
    if document is not None:
        must.append(models.FieldCondition(key="document", match=models.MatchValue(value=document)))
    return models.Filter(must=must)
