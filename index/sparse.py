"""BM25 as sparse vectors, for an engine that scores sparse dot products with an IDF modifier
(Qdrant, server or edge): pure functions, no engine imported.

A chunk's sparse value for a term is BM25's term-frequency part, tf * (k1 + 1) / (tf + k1 * (1 - b
+ b * dl / avgdl)), from this project's tokenizer; a query's is 1 per distinct term, and the engine
multiplies it by the term's IDF, ln(1 + (N - n + 0.5) / (n + 0.5)) (the Lucene IDF
``bm25.BM25Index`` uses). The sum over the query's terms is then BM25.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from typing import Sequence

from .backend import Ranked, by_score_then_id
from .bm25 import B, K1

_NAMESPACE = uuid.UUID("6f1c9a4e-2b1d-4c55-9a55-0c07a7a1c0de")  # point ids: uuid5(corpus/chunk id)
# BM25 returns only chunks holding a query term (score > 0), as bm25.BM25Index.top does
MATCHING = 1e-12


def term_id(token: str) -> int:
    """A token's sparse dimension: 32 bits of its blake2b hash (Qdrant's indices are u32). Stable
    across processes and machines, so any writer and reader of a shared collection agree."""
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=4).digest(), "little")


def doc_length(tokens: Sequence[str]) -> int:
    return max(1, len(tokens))  # bm25.BM25Index counts an empty chunk as one (placeholder) token


def average_length(token_lists: Sequence[Sequence[str]]) -> float:
    return sum(doc_length(t) for t in token_lists) / len(token_lists) if token_lists else 1.0


def doc_sparse(tokens: Sequence[str], avgdl: float, k1: float = K1, b: float = B) -> tuple[list[int], list[float]]:
    """(indices, values) of a chunk's sparse vector: BM25's per-term weight without the IDF."""
    norm = k1 * (1.0 - b + b * doc_length(tokens) / avgdl)
    weights: dict[int, float] = {}
    for term, tf in sorted(Counter(tokens).items()):
        tid = term_id(term)  # two terms on one id (a hash collision) share the dimension
        weights[tid] = weights.get(tid, 0.0) + tf * (k1 + 1.0) / (tf + norm)
    ids = sorted(weights)
    return ids, [weights[i] for i in ids]


def query_sparse(tokens: Sequence[str]) -> tuple[list[int], list[float]]:
    """A query's sparse vector: each distinct term once, weight 1 (the engine applies the IDF)."""
    ids = sorted({term_id(t) for t in tokens})
    return ids, [1.0] * len(ids)


def point_id(corpus: str, chunk_id: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{corpus}/{chunk_id}"))


def matching(ranked: Ranked) -> Ranked:
    """The chunks that hold a query term, in the backends' order (score, then id)."""
    return by_score_then_id([p for p in ranked if p[1] > MATCHING])


def point_parts(corpus: str, entry, avgdl: float, k1: float, b: float) -> tuple[list[int], list[float], list[float], dict]:
    """One chunk's point, the same for the server and the edge engine: its BM25 sparse vector (ids,
    values), its dense vector (as float32) and its payload."""
    import numpy as np

    ids, values = doc_sparse(entry.tokens, avgdl, k1, b)
    payload = {"corpus": corpus, "document": entry.document, "chunk_id": entry.id}
    if entry.chunk is not None:  # the passage itself, so a service can answer from the engine alone
        payload["chunk"] = entry.chunk.to_dict()
    return ids, values, np.asarray(entry.vector, dtype=np.float32).tolist(), payload
