"""Hybrid retrieval over the code: BM25 + dense vectors (FAISS), fused, persisted.

Public API (imported lazily, so ``import index`` loads nothing heavy)::

    from index import open_index
    searcher = open_index()                 # var/index or $COTATI_INDEX_DIR; builds if missing/stale
    hits = searcher.search("granny unit", k=10, mode="hybrid")   # list[Hit]
    searcher.embed_query_ms                 # time of the last query embedding

Also: ``build()``, ``Searcher``, ``Hit``, ``Chunk``, ``TableRowText``, ``CorpusInput``,
``QueryError``, ``IndexStoreError``, ``IndexBuildError``, ``EncoderError``, ``BackendError``.
The engine that ranks is a backend (``backend``): ``builtin`` (rank-bm25 + FAISS, the default) or
``qdrant`` (Qdrant Edge embedded, ``qdrant_edge_backend``, or a server, ``qdrant_backend``);
``open_index(backend=...)`` or ``$COTATI_INDEX_BACKEND`` chooses.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "open_index": "search",
    "build": "search",
    "Searcher": "search",
    "Hit": "types",
    "Chunk": "types",
    "TableRowText": "types",
    "CorpusInput": "types",
    "QueryError": "types",
    "IndexStoreError": "types",
    "IndexBuildError": "types",
    "EncoderError": "types",
    "BackendError": "backend",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        from importlib import import_module

        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
