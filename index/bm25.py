"""BM25 scoring over token lists, with rank-bm25 and an IDF that never reaches zero.

rank-bm25's Okapi IDF is log((N - n + 0.5) / (n + 0.5)): zero when a term is in half the chunks
and negative above that, and its epsilon floor (a fraction of the mean IDF) can itself be zero or
negative on a small corpus, so a matching chunk can score 0 or below a non-matching one. We keep
rank-bm25's statistics and scoring loop but use the Lucene IDF, log(1 + (N - n + 0.5) / (n + 0.5)),
which is positive for every term (n <= N).

Every process that searches builds the index at open, so the statistics are counted here (the
same counts, lengths and IDF as rank-bm25's ``BM25Okapi``, which ``reference_scores`` still uses)
and the postings are flat arrays: rank-bm25's per-word loop, its multiprocessing import and a
pair of small arrays per term were about 50 ms of a cold answer (issue 25).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np

K1 = 1.2
B = 0.75
IDF_VARIANT = "lucene"  # recorded in the manifest


def positive_idf_bm25(docs: Sequence[Sequence[str]], k1: float = K1, b: float = B):
    """rank-bm25's ``BM25Okapi`` with the always-positive Lucene IDF (the reference the tests compare with)."""
    from rank_bm25 import BM25Okapi

    class PositiveIdfBM25(BM25Okapi):
        def _calc_idf(self, nd: dict[str, int]) -> None:
            n_docs = self.corpus_size
            for word, freq in nd.items():
                self.idf[word] = lucene_idf(n_docs, freq)
            self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0

    return PositiveIdfBM25([list(d) for d in docs], k1=k1, b=b)


def lucene_idf(n_docs: int, freq: int) -> float:
    return math.log(1.0 + (n_docs - freq + 0.5) / (freq + 0.5))


class BM25Index:
    """BM25 over a fixed list of tokenised chunks; rows are chunk positions.

    Scoring walks postings lists built once at load instead of rank-bm25's ``get_scores`` (a
    Python loop over every chunk for every query term), with the same formula:
    ``test_index_bm25`` checks both agree.
    """

    def __init__(self, corpus_tokens: Sequence[Sequence[str]], k1: float = K1, b: float = B):
        self.size = len(corpus_tokens)
        self.k1, self.b = k1, b
        # rank-bm25 divides by the mean length: an all-empty corpus would divide by zero
        self._docs = [list(t) if t else ["\x00empty"] for t in corpus_tokens]
        self._idf: dict[str, float] = {}
        self._postings: dict[str, tuple[int, int]] = {}  # term -> its slice of _rows / _weights
        self._rows, self._weights = np.zeros(0, np.int64), np.zeros(0)
        if self._docs:
            self._count(k1, b)

    def _count(self, k1: float, b: float) -> None:
        """Term counts per chunk, the IDF and the postings: rows ascending within each term."""
        freqs = [Counter(doc) for doc in self._docs]  # insertion order = first occurrence, as rank-bm25 counts
        lengths = np.asarray([len(doc) for doc in self._docs], dtype=np.float64)
        norm = k1 * (1.0 - b + b * lengths / (sum(len(doc) for doc in self._docs) / len(self._docs)))
        ids: dict[str, int] = {}
        term_of, rows, tfs = [], [], []
        for row, counts in enumerate(freqs):
            for term, tf in counts.items():
                term_of.append(ids.setdefault(term, len(ids)))
                rows.append(row)
                tfs.append(tf)
        order = np.argsort(np.asarray(term_of, dtype=np.int64), kind="stable")  # by term, rows stay ascending
        row_arr = np.asarray(rows, dtype=np.int64)[order]
        tf = np.asarray(tfs, dtype=np.float64)[order]
        # per-posting contribution without the IDF: tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
        self._rows, self._weights = row_arr, tf * (k1 + 1.0) / (tf + norm[row_arr])
        bounds = np.searchsorted(np.asarray(term_of, dtype=np.int64)[order], np.arange(len(ids) + 1)).tolist()
        n_docs = len(self._docs)
        for term, i in ids.items():
            self._postings[term] = (bounds[i], bounds[i + 1])
            self._idf[term] = lucene_idf(n_docs, bounds[i + 1] - bounds[i])

    def idf(self, term: str) -> float:
        return self._idf.get(term, 0.0)

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """Score of every chunk; 0 exactly when the chunk contains no query term. A term repeated
        in the query counts once (questions repeat words for grammar, not for weight)."""
        out = np.zeros(self.size)
        for term in dict.fromkeys(query_tokens):
            posting = self._postings.get(term)
            if posting is not None:
                lo, hi = posting
                out[self._rows[lo:hi]] += self._idf[term] * self._weights[lo:hi]
        return out

    def reference_scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """rank-bm25's own ``get_scores`` on the same (deduplicated) terms, for tests."""
        if not self._docs:
            return np.zeros(self.size)
        reference = positive_idf_bm25(self._docs, k1=self.k1, b=self.b)
        terms = [t for t in dict.fromkeys(query_tokens) if t in reference.idf]
        if not terms:
            return np.zeros(self.size)
        return np.asarray(reference.get_scores(terms), dtype=np.float64)

    def top(self, query_tokens: Sequence[str], n: int) -> list[tuple[int, float]]:
        """(row, score) of the best ``n`` matching chunks: score descending, then row ascending."""
        s = self.scores(query_tokens)
        rows = np.flatnonzero(s > 0)
        if rows.size == 0:
            return []
        order = np.lexsort((rows, -s[rows]))[:n]
        return [(int(rows[i]), float(s[rows[i]])) for i in order]
