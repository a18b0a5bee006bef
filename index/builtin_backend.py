"""The default backend: rank-bm25 (``bm25.BM25Index``) and a FAISS flat index, in this process.

One corpus is a list of chunk ids (sorted, as an index folder stores them), a BM25Index over
their tokens and a FAISS index over their vectors; adding or removing a document rebuilds both for
that corpus (milliseconds for a city's few hundred chunks). The FAISS index of an opened index
folder is read on first dense use (``loader``), so a permit answer never imports faiss.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from . import dense
from .backend import Entry, Fused, Ranked
from .bm25 import BM25Index
from .fusion import RRF_K, rrf


@dataclass
class _Corpus:
    ids: tuple[str, ...]  # row -> chunk id, ascending
    documents: tuple[str, ...]
    tokens: tuple[tuple[str, ...], ...]
    bm25: BM25Index
    loader: Callable[[], Any]  # -> the FAISS index (rows as ``ids``)
    _faiss: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def faiss(self):
        with self._lock:
            if self._faiss is None:
                self._faiss = self.loader()
            return self._faiss

    def entries(self) -> list[Entry]:
        vectors = dense.faiss_vectors(self.faiss)
        return [Entry(i, d, t, vectors[row]) for row, (i, d, t) in enumerate(zip(self.ids, self.documents, self.tokens))]


class BuiltinBackend:
    name = "builtin"

    def __init__(self, k1: float, b: float):
        self.k1, self.b = k1, b
        self._corpora: dict[str, _Corpus] = {}

    def attach(self, corpus: str, ids: Sequence[str], documents: Sequence[str], tokens: Sequence[Sequence[str]],
               loader: Callable[[], Any]) -> None:
        """Serve ``corpus`` from an opened index folder's data, the FAISS index read by ``loader`` when
        first needed."""
        tokens = tuple(tuple(t) for t in tokens)
        self._corpora[corpus] = _Corpus(tuple(ids), tuple(documents), tokens, BM25Index(tokens, k1=self.k1, b=self.b), loader)

    def build(self, corpus: str, entries: Sequence[Entry], key: str = "") -> None:
        """``key`` is not kept: this backend lives only as long as the process."""
        ordered = sorted(entries, key=lambda e: e.id)
        matrix = np.asarray([e.vector for e in ordered], dtype=np.float32).reshape(len(ordered), -1)
        index = dense.build_faiss(matrix)
        self.attach(corpus, [e.id for e in ordered], [e.document for e in ordered], [e.tokens for e in ordered],
                    lambda: index)

    def add(self, corpus: str, entries: Sequence[Entry]) -> None:
        new = {e.id: e for e in entries}
        kept = [e for e in self._held(corpus) if e.id not in new]
        self.build(corpus, kept + list(new.values()))

    def remove(self, corpus: str, document: str) -> int:
        held = self._held(corpus)
        kept = [e for e in held if e.document != document]
        self.build(corpus, kept)
        return len(held) - len(kept)

    def _held(self, corpus: str) -> list[Entry]:
        c = self._corpora.get(corpus)
        return c.entries() if c is not None else []

    def _ranked(self, c: _Corpus, pairs: list[tuple[int, float]]) -> Ranked:
        return [(c.ids[row], score) for row, score in pairs]

    def bm25(self, corpus: str, tokens: Sequence[str], n: int) -> Ranked:
        c = self._corpora.get(corpus)
        return self._ranked(c, c.bm25.top(tokens, n)) if c else []

    def dense(self, corpus: str, vector: np.ndarray, n: int) -> Ranked:
        c = self._corpora.get(corpus)
        return self._ranked(c, dense.faiss_top(c.faiss, vector, n)) if c else []

    def hybrid(self, corpus: str, tokens: Sequence[str], vector: np.ndarray, fetch: int) -> Fused:
        lexical = self.bm25(corpus, tokens, fetch)
        semantic = self.dense(corpus, vector, fetch)
        # ids sort as rows do (an index folder's chunks are sorted by id): rrf's tie-break is unchanged
        fused = rrf([[i for i, _ in lexical], [i for i, _ in semantic]], k=RRF_K)
        return Fused(fused, lexical, semantic)

    def faiss_of(self, corpus: str):
        return self._corpora[corpus].faiss

    def close(self) -> None:
        self._corpora.clear()
