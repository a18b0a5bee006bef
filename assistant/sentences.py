"""Sentence vectors: every sentence of the corpus's section chunks embedded once with the index's
own model, so a quote is chosen by what a sentence means as well as by the words it shares.

The vectors are kept next to the index (``sentences.npz`` in its folder), keyed by the model and
a hash of the sentences: a rebuilt index or another model gets new ones, never stale ones. The
file is written atomically; a damaged one is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from .passages import split_sentences

CACHE_NAME = "sentences.npz"


def corpus_sentences(texts: Iterable[str]) -> list[str]:
    """Every distinct sentence of the texts, in first-seen order."""
    return list(dict.fromkeys(sentence for text in texts for _, sentence in split_sentences(text)))


def _key(model: str, sentences: list[str]) -> str:
    digest = hashlib.sha256(model.encode())
    for sentence in sentences:
        digest.update(b"\0" + sentence.encode("utf-8"))
    return digest.hexdigest()


class SentenceVectors:
    """Unit vectors of sentences; ``similarities(query_vector, sentences)`` for any of them."""

    def __init__(self, sentences: list[str], vectors):
        self.row = {sentence: i for i, sentence in enumerate(sentences)}
        self.vectors = vectors

    def similarities(self, query_vector, sentences: Iterable[str]) -> dict[str, float]:
        import numpy as np

        query = np.asarray(query_vector, dtype="float32")
        query = query / max(float(np.linalg.norm(query)), 1e-9)
        found = [s for s in dict.fromkeys(sentences) if s in self.row]
        if not found:
            return {}
        sims = self.vectors[[self.row[s] for s in found]] @ query
        return {s: float(v) for s, v in zip(found, sims)}


def load_or_build(folder: Path | None, model: str, sentences: list[str],
                  encode: Callable[[list[str]], object], cache_name: str = CACHE_NAME) -> SentenceVectors:
    """The texts' vectors from ``folder/cache_name`` when it holds them for this model, else encoded
    (and saved there). Provisions use the same cache under another name."""
    import numpy as np

    from index.caches import DAMAGED

    key = _key(model, sentences)
    path = Path(folder) / cache_name if folder else None
    if path is not None and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as stored:
                if str(stored["key"]) == key and stored["vectors"].shape[0] == len(sentences):
                    return SentenceVectors(sentences, stored["vectors"])
        except DAMAGED:
            pass  # damaged (a bad zip, a truncated file) or from another layout: rebuilt below
    vectors = np.asarray(encode(sentences), dtype="float32")
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    if path is not None:
        _save(path, key, vectors)
    return SentenceVectors(sentences, vectors)


def _save(path: Path, key: str, vectors) -> None:
    import numpy as np

    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez(out, key=np.array(key), vectors=vectors)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except OSError:
        Path(temp).unlink(missing_ok=True)  # a read-only index folder: the vectors stay in memory
