"""BM25 scoring over token lists, with rank-bm25 and an IDF that never reaches zero.

rank-bm25's Okapi IDF is log((N - n + 0.5) / (n + 0.5)): zero when a term is in half the chunks
and negative above that, and its epsilon floor (a fraction of the mean IDF) can itself be zero or
negative on a small corpus, so a matching chunk can score 0 or below a non-matching one. We keep
rank-bm25's statistics and scoring loop but use the Lucene IDF, log(1 + (N - n + 0.5) / (n + 0.5)),
which is positive for every term (n <= N).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from rank_bm25 import BM25Okapi

K1 = 1.2
B = 0.75
IDF_VARIANT = "lucene"  # recorded in the manifest


class PositiveIdfBM25(BM25Okapi):
    """BM25Okapi with the always-positive Lucene IDF."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        n_docs = self.corpus_size
        for word, freq in nd.items():
            self.idf[word] = math.log(1.0 + (n_docs - freq + 0.5) / (freq + 0.5))
        self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0


class BM25Index:
    """BM25 over a fixed list of tokenised chunks; rows are chunk positions.

    Statistics (IDF, lengths) come from rank-bm25; scoring walks postings lists built once at
    load instead of rank-bm25's ``get_scores`` (a Python loop over every chunk for every query
    term), with the same formula: ``test_index_bm25`` checks both agree.
    """

    def __init__(self, corpus_tokens: Sequence[Sequence[str]], k1: float = K1, b: float = B):
        self.size = len(corpus_tokens)
        self.k1, self.b = k1, b
        # rank-bm25 divides by the mean length: an all-empty corpus would divide by zero
        docs = [list(t) if t else ["\x00empty"] for t in corpus_tokens]
        self._bm25 = PositiveIdfBM25(docs, k1=k1, b=b) if docs else None
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        if self._bm25 is None:
            return
        lengths = np.asarray(self._bm25.doc_len, dtype=np.float64)
        norm = k1 * (1.0 - b + b * lengths / self._bm25.avgdl)
        rows: dict[str, list[int]] = {}
        tfs: dict[str, list[float]] = {}
        for row, freqs in enumerate(self._bm25.doc_freqs):
            for term, tf in freqs.items():
                rows.setdefault(term, []).append(row)
                tfs.setdefault(term, []).append(tf)
        for term, r in rows.items():
            r_arr = np.asarray(r, dtype=np.int64)
            tf = np.asarray(tfs[term], dtype=np.float64)
            # per-posting contribution without the IDF: tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
            self._postings[term] = (r_arr, tf * (k1 + 1.0) / (tf + norm[r_arr]))

    def idf(self, term: str) -> float:
        return self._bm25.idf.get(term, 0.0) if self._bm25 else 0.0

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """Score of every chunk; 0 exactly when the chunk contains no query term. A term repeated
        in the query counts once (questions repeat words for grammar, not for weight)."""
        out = np.zeros(self.size)
        if not self._bm25:
            return out
        for term in dict.fromkeys(query_tokens):
            posting = self._postings.get(term)
            if posting is not None:
                rows, weights = posting
                out[rows] += self._bm25.idf[term] * weights
        return out

    def reference_scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """rank-bm25's own ``get_scores`` on the same (deduplicated) terms, for tests."""
        if not self._bm25:
            return np.zeros(self.size)
        terms = [t for t in dict.fromkeys(query_tokens) if t in self._bm25.idf]
        if not terms:
            return np.zeros(self.size)
        return np.asarray(self._bm25.get_scores(terms), dtype=np.float64)

    def top(self, query_tokens: Sequence[str], n: int) -> list[tuple[int, float]]:
        """(row, score) of the best ``n`` matching chunks: score descending, then row ascending."""
        s = self.scores(query_tokens)
        rows = np.flatnonzero(s > 0)
        if rows.size == 0:
            return []
        order = np.lexsort((rows, -s[rows]))[:n]
        return [(int(rows[i]), float(s[rows[i]])) for i in order]
