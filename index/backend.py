"""The retrieval backend interface: what the Searcher asks of an engine, whichever engine it is.

A backend holds, per corpus (one city's code), each chunk's BM25 tokens and its dense vector, and
answers three searches over one corpus at a time: BM25, dense, and hybrid (both fused by
reciprocal rank). Results are chunk ids with scores, best first; ties go to the smaller id, so two
backends scoring alike rank alike. Two backends exist:

* ``builtin`` (``builtin_backend``): rank-bm25 + FAISS in this process, the default;
* ``qdrant``: Qdrant's engine, embedded (Qdrant Edge, ``qdrant_edge_backend``: one shard per
  corpus beside the index folder) unless ``$COTATI_QDRANT_URL`` names a server or cluster
  (``qdrant_backend``: one collection for every corpus). ``qdrant_engine`` chooses.

Everything above the engine (query hygiene, direct hits for a named section, Hit records) stays in
``search.Searcher``, so it is the same for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from .types import Chunk, IndexStoreError

BACKENDS = ("builtin", "qdrant")

Ranked = list[tuple[str, float]]  # (chunk id, score), best first


class BackendError(IndexStoreError):
    """A backend cannot be chosen, reached or used; the message names the backend (and its location).
    An IndexStoreError, so every entry point that reports an unusable index reports it in one line."""

    def __init__(self, backend: str, reason: str):
        super().__init__(f"index backend {backend!r}", reason)
        self.backend = backend


@dataclass(frozen=True)
class Entry:
    """One chunk as a backend stores it: its id, its document (what ``remove`` goes by), its BM25
    tokens and its L2-normalised vector."""

    id: str
    document: str
    tokens: tuple[str, ...]
    vector: np.ndarray
    chunk: Chunk | None = None  # stored with the point by an engine that serves the text too


@dataclass(frozen=True)
class Fused:
    """A hybrid search: the fused list and the two lists it was fused from (their ranks and scores
    go into each Hit, so a caller can tell how well supported a hit is)."""

    fused: Ranked
    bm25: Ranked
    dense: Ranked


class Backend(Protocol):
    name: str

    def build(self, corpus: str, entries: Sequence[Entry], key: str = "") -> None:
        """Replace everything held for ``corpus`` by ``entries``; ``key`` names the index they come
        from, for a backend that outlives the process to tell whether it holds it."""

    def add(self, corpus: str, entries: Sequence[Entry]) -> None:
        """Add (or replace, by id) chunks of ``corpus``."""

    def remove(self, corpus: str, document: str) -> int:
        """Remove every chunk of ``document`` from ``corpus``; how many were removed."""

    def bm25(self, corpus: str, tokens: Sequence[str], n: int) -> Ranked: ...

    def dense(self, corpus: str, vector: np.ndarray, n: int) -> Ranked: ...

    def hybrid(self, corpus: str, tokens: Sequence[str], vector: np.ndarray, fetch: int) -> Fused:
        """The best ``fetch`` of each list, fused by RRF (k=60) over all of them."""

    def close(self) -> None: ...


def backend_name(name: str | None = None) -> str:
    """The backend in force: the argument, else ``$COTATI_INDEX_BACKEND``, else ``builtin``."""
    import settings

    chosen = str(name or settings.value("index_backend") or "builtin").strip().lower()
    if chosen not in BACKENDS:
        raise BackendError(chosen, f"unknown (use one of {', '.join(BACKENDS)})")
    return chosen


def qdrant_engine(index_dir: Path) -> Backend:
    """The ``qdrant`` backend for the index folder ``index_dir``: the server ``$COTATI_QDRANT_URL``
    when set, else Qdrant Edge in this process, its shards under ``settings.default_edge_path``."""
    import settings

    if settings.value("qdrant_url"):
        from .qdrant_backend import QdrantBackend

        return QdrantBackend()
    from .qdrant_edge_backend import EdgeBackend

    return EdgeBackend(settings.default_edge_path(index_dir))


def qdrant_where(index_dir: Path) -> str:
    """Where the ``qdrant`` backend keeps this index (a server's URL or the edge shards' folder)."""
    import settings

    return str(settings.value("qdrant_url") or settings.default_edge_path(index_dir))


def by_score_then_id(ranked: Ranked) -> Ranked:
    """The deterministic order every backend returns: score descending, then id ascending (an engine
    may return equal scores in any order)."""
    return sorted(ranked, key=lambda p: (-p[1], p[0]))
