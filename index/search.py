"""The search API: ``open_index()`` returns a ``Searcher``; ``Searcher.search()`` returns Hits.

Modes: ``bm25`` and ``dense`` are the plain baselines; ``hybrid`` fuses both with reciprocal
rank fusion (k=60) over an over-fetched candidate list, then puts direct hits first: chunks of a
section or table the query names by number ("17.44.065", "Table 3-7").
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from . import dense, store
from .backend import Backend, Entry, backend_name, qdrant_engine
from .builtin_backend import BuiltinBackend
from .corpus import CorpusLike, as_corpus, corpus_hash, source_fingerprint
from .query import MAX_QUERY_CHARS, Ref, clean_query, refs_in
from .tokenize import tokenize
from .types import MODES, Chunk, Hit, IndexBuildError, IndexStoreError, Progress, QueryError

RECENT_VECTORS = 32  # query vectors kept: enough for the searches of one answer, on any thread

FETCH_MIN = 50  # candidates taken from each list before fusion (or 5 * k if larger)
DIRECT_PER_REF = 3  # chunks promoted per named section/table: enough to show it, not to flood
MAX_K = 1000
BUILTIN_CORPUS = "default"  # the builtin backend holds one folder's corpus under this name


class Searcher:
    """A loaded index. Thread-safe for searching; the encoder is loaded on first dense use
    (or by ``warm()``) and shared by every Searcher in the process. The engine that ranks is a
    backend (``backend``): the builtin one over this folder's files unless another is attached
    with ``use_backend``."""

    def __init__(self, path: Path, stored: store.Stored, model: str | None, load_seconds: float):
        self.path = path
        self.manifest: dict[str, Any] = stored.manifest
        self.chunks: tuple[Chunk, ...] = stored.chunks
        self.model = dense.model_setting(model)
        self.load_seconds = load_seconds  # reading and checking the stored index (no model)
        self.embed_query_ms: float | None = None  # time of the most recent query embedding
        self._tokens = stored.tokens
        self.corpus = BUILTIN_CORPUS
        builtin = BuiltinBackend(k1=self.manifest["settings"]["bm25"]["k1"], b=self.manifest["settings"]["bm25"]["b"])
        # the FAISS file is read on first dense use when not loaded yet (no faiss import before)
        builtin.attach(self.corpus, [c.id for c in self.chunks], [c.document for c in self.chunks], stored.tokens,
                       lambda: stored.faiss if stored.faiss is not None else store.load_faiss(path, self.manifest))
        self._builtin = builtin
        self.backend: Backend = builtin
        self._encoder: dense.Encoder | None = None
        self._lock = threading.Lock()
        self._recent: dict[str, np.ndarray] = {}  # query text -> vector, the last few (insertion order)
        self._by_section: dict[str, list[int]] = {}
        self._by_table: dict[str, list[int]] = {}
        self._by_id = {c.id: row for row, c in enumerate(self.chunks)}
        for row, c in enumerate(self.chunks):
            self._by_section.setdefault(c.section, []).append(row)
            for t in c.tables:
                self._by_table.setdefault(t, []).append(row)

    # -- backend -------------------------------------------------------------------------------
    @property
    def index_key(self) -> str:
        """What this folder's index is: its settings key and corpus hash (a backend loaded from it
        records this, and is reloaded when it differs)."""
        return f"{self.manifest['key']}:{self.manifest['corpus']['hash']}"

    def entries(self) -> list[Entry]:
        """Every chunk with its tokens and stored vector, as a backend is built from."""
        vectors = dense.faiss_vectors(self._builtin.faiss_of(BUILTIN_CORPUS))
        return [Entry(c.id, c.document, tuple(t), vectors[row], c)
                for row, (c, t) in enumerate(zip(self.chunks, self._tokens))]

    def use_backend(self, backend: Backend, corpus: str) -> None:
        """Rank with ``backend``'s copy of ``corpus`` (loaded from this folder unless it holds this
        index already)."""
        holds = getattr(backend, "holds", None)  # only a backend that outlives the process can hold it already
        if holds is None or not holds(corpus, self.index_key):
            backend.build(corpus, self.entries(), key=self.index_key)
        self.backend, self.corpus = backend, corpus

    # -- model ---------------------------------------------------------------------------------
    @property
    def encoder(self) -> dense.Encoder:
        """The query encoder (``dense.query_encoder``): its identity is known at once, the model
        itself loads on the first ``encode``."""
        with self._lock:
            if self._encoder is None:
                enc = dense.query_encoder(self.model, self.path, self.manifest)
                if enc.model_id != self.manifest["settings"]["model"] or enc.dim != self.manifest["counts"]["dim"]:
                    raise IndexStoreError(self.path, f"stale: index built with {self.manifest['settings']['model']}, encoder is {enc.model_id}")
                self._encoder = enc
            return self._encoder

    def warm(self) -> float:
        """Load the encoder and embed one query so the first real search is not slow; seconds."""
        t0 = time.perf_counter()
        self.embed_query("warm up")
        return time.perf_counter() - t0

    def embed_query(self, query: str) -> np.ndarray:
        """One query embedded now (never from the cache: benchmarks time this)."""
        enc = self.encoder
        t0 = time.perf_counter()
        vec = enc.encode([query], batch_size=1)[0]
        self.embed_query_ms = (time.perf_counter() - t0) * 1000.0
        return vec

    def query_vector(self, query: str) -> np.ndarray:
        """The vector of ``query`` as the dense search embeds it (cleaned), reusing the one a search
        just computed: a caller that searched and then needs the vector does not embed twice."""
        text = clean_query(query)
        with self._lock:
            cached = self._recent.get(text)
        if cached is not None:
            return cached
        vec = self.embed_query(text)
        with self._lock:
            self._recent[text] = vec
            while len(self._recent) > RECENT_VECTORS:
                self._recent.pop(next(iter(self._recent)))
        return vec

    # -- lookups -------------------------------------------------------------------------------
    def chunk(self, chunk_id: str) -> Chunk:
        return self.chunks[self._by_id[chunk_id]]

    def section_chunks(self, section: str, document: str | None = None) -> list[Chunk]:
        rows = self._by_section.get(section, [])
        return [self.chunks[r] for r in rows if document is None or self.chunks[r].document == document]

    # -- search --------------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, mode: str = "hybrid") -> list[Hit]:
        """Ranked hits for ``query``. Raises QueryError for an unusable query (not a string,
        empty after removing control characters, longer than MAX_QUERY_CHARS, bad k or mode);
        returns [] for a query with nothing searchable in it (only stop words or punctuation)."""
        if not isinstance(query, str):
            raise QueryError(query, f"must be text, not {type(query).__name__}")
        if mode not in MODES:
            raise QueryError(query, f"unknown mode {mode!r} (use one of {', '.join(MODES)})")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise QueryError(query, f"k must be an integer from 1 to {MAX_K}, got {k!r}")
        text = clean_query(query)
        if not text:
            raise QueryError(query, "empty after removing control characters and spaces")
        if len(text) > MAX_QUERY_CHARS:
            raise QueryError(query, f"{len(text)} characters; the limit is {MAX_QUERY_CHARS}")
        tokens = tokenize(text)
        refs = refs_in(text)
        if not tokens and not refs:
            return []
        if mode == "bm25":
            return self._plain(self.backend.bm25(self.corpus, tokens, k), "bm25")
        if mode == "dense":
            return self._plain(self.backend.dense(self.corpus, self.query_vector(text), k), "dense")
        return self._hybrid(text, tokens, refs, k)

    def _rows(self, ranked: list[tuple[str, float]]) -> list[tuple[int, float]]:
        return [(self._by_id[chunk_id], score) for chunk_id, score in ranked]

    def _plain(self, ranked: list[tuple[str, float]], mode: str) -> list[Hit]:
        hits = []
        for rank, (row, score) in enumerate(self._rows(ranked), 1):
            comp = {"bm25_rank": rank, "bm25_score": score} if mode == "bm25" else {"dense_rank": rank, "dense_score": score}
            hits.append(Hit(rank=rank, score=score, chunk=self.chunks[row], mode=mode, **comp))
        return hits

    def _hybrid(self, text: str, tokens: list[str], refs: tuple[Ref, ...], k: int) -> list[Hit]:
        fetch = max(FETCH_MIN, 5 * k)
        found = self.backend.hybrid(self.corpus, tokens, self.query_vector(text), fetch)
        lexical, semantic, fused = self._rows(found.bm25), self._rows(found.dense), self._rows(found.fused)
        b_rank = {r: (i, s) for i, (r, s) in enumerate(lexical, 1)}
        d_rank = {r: (i, s) for i, (r, s) in enumerate(semantic, 1)}
        fused_score = dict(fused)
        fused_pos = {r: i for i, (r, _) in enumerate(fused)}

        direct = self._direct_rows(refs, tokens, fused_pos)
        direct_set = set(direct)
        order = direct + [r for r, _ in fused if r not in direct_set]
        hits = []
        for rank, row in enumerate(order[:k], 1):
            b = b_rank.get(row)
            d = d_rank.get(row)
            hits.append(
                Hit(
                    rank=rank,
                    score=fused_score.get(row, 0.0),
                    chunk=self.chunks[row],
                    mode="hybrid",
                    bm25_rank=b[0] if b else None,
                    bm25_score=b[1] if b else None,
                    dense_rank=d[0] if d else None,
                    dense_score=d[1] if d else None,
                    direct=row in direct_set,
                )
            )
        return hits

    def _direct_rows(self, refs: tuple[Ref, ...], tokens: list[str], fused_pos: dict[int, int]) -> list[int]:
        """Rows to put first, up to DIRECT_PER_REF per named section/table, in the order named.

        A bare identifier ("17.44.065") gets the newest document's version first, in part order;
        an identifier with other words gets its best fused passages first."""
        if not refs:
            return []
        ref_tokens = {r.value for r in refs} | {f"table:{r.value}" for r in refs if r.kind == "table"}
        bare = all(t in ref_tokens or t == "table" or t == "section" for t in tokens)
        out: list[int] = []
        for ref in refs:
            rows = (self._by_section if ref.kind == "section" else self._by_table).get(ref.value, [])
            if bare:
                key = lambda r: (_neg_date(self.chunks[r].date), self.chunks[r].document, self.chunks[r].kind != "section", r)
            else:
                key = lambda r: (fused_pos.get(r, len(fused_pos)), _neg_date(self.chunks[r].date), r)
            picked = [r for r in sorted(rows, key=key) if r not in out][:DIRECT_PER_REF]
            out.extend(picked)
        return out


def _neg_date(date: str) -> tuple[int, ...]:
    """Sort key putting newer ISO dates first (undated last)."""
    digits = [int(p) for p in date.split("-") if p.isdigit()] if date else []
    return tuple(-d for d in digits) if digits else (1,)


_OPEN_LOCK = threading.Lock()


def open_index(
    index_dir: str | os.PathLike[str] | None = None,
    *,
    build_if_missing: bool = True,
    progress: Progress | None = None,
    model: str | None = None,
    corpus: CorpusLike | None = None,
    backend: str | None = None,
    corpus_name: str | None = None,
) -> Searcher:
    """Open the index at ``index_dir`` (default: ``$COTATI_INDEX_DIR`` or ``var/index``).

    The manifest is checked against the current settings (model, libraries, chunker, tokenizer)
    and corpus (``corpus`` if given, else a fingerprint of the default corpus and ingest code).
    A missing, stale or damaged index is rebuilt when ``build_if_missing`` is true, otherwise
    ``IndexStoreError`` says why it cannot be used. Never embeds anything when the index is fresh.

    ``backend`` (else ``$COTATI_INDEX_BACKEND``): ``builtin`` ranks with this folder's files;
    ``qdrant`` with the corpus ``corpus_name`` (``default_corpus_name``) of Qdrant (``qdrant_engine``:
    Qdrant Edge's shard, or a server's collection), loaded from this folder when it does not hold this
    index yet.
    """
    chosen = backend_name(backend)
    searcher = _open(index_dir, build_if_missing=build_if_missing, progress=progress, model=model, corpus=corpus)
    if chosen == "qdrant":
        searcher.use_backend(qdrant_engine(searcher.path), default_corpus_name(corpus_name))
    return searcher


def fresh_model(index_dir: str | os.PathLike[str] | None = None, model: str | None = None) -> str | None:
    """The model id of the index at ``index_dir`` when ``open_index`` would open it as it stands (checked
    as it checks it: settings, corpus fingerprint, checksums), reading nothing else; None when it would
    not (missing, stale or damaged: opening it rebuilds it or says why)."""
    path = store.resolve_index_dir(index_dir)
    check = store.check_index(path, store.index_settings(dense.model_setting(model)), fingerprint=source_fingerprint())
    return check.manifest["settings"]["model"] if check.ok else None


def default_corpus_name(name: str | None = None) -> str:
    """A corpus's name in a shared collection: ``name``, else ``$COTATI_CORPUS_NAME``, else the name of
    the corpus folder (``cotati`` for the bundled one)."""
    import settings

    return str(name or settings.value("corpus_name") or Path(settings.value("corpus_dir") or "corpus/cotati").name)


def _open(
    index_dir: str | os.PathLike[str] | None,
    *,
    build_if_missing: bool,
    progress: Progress | None,
    model: str | None,
    corpus: CorpusLike | None,
) -> Searcher:
    t0 = time.perf_counter()
    path = store.resolve_index_dir(index_dir)
    spec = dense.model_setting(model)
    settings = store.index_settings(spec)
    given = as_corpus(corpus) if corpus is not None else None
    expected_hash = corpus_hash(given) if given is not None else ""
    fingerprint = "" if given is not None else source_fingerprint()
    with _OPEN_LOCK:
        check = store.check_index(path, settings, fingerprint=fingerprint, expected_corpus_hash=expected_hash)
        reason = check.reason
        if check.ok:
            try:
                return Searcher(path, store.load_files(path, check.manifest, dense_index=False), spec, time.perf_counter() - t0)
            except IndexStoreError as e:
                reason = e.reason
        if not build_if_missing:
            raise IndexStoreError(path, f"{reason}; build it with `python -m index build`")
        if given is None and _installed_prebuilt(path, spec):
            check = store.check_index(path, settings, fingerprint=fingerprint)
            if check.ok:
                return Searcher(path, store.load_files(path, check.manifest, dense_index=False), spec, time.perf_counter() - t0)
        if given is None:
            from .corpus import default_corpus

            given = default_corpus()
        try:
            store.build_index(path, given, dense.get_encoder(spec), settings=settings, fingerprint=fingerprint,
                              progress=progress)
        except IndexBuildError as e:  # say why it was being rebuilt, too: "damaged: ...; rebuilding it failed: ..."
            raise IndexBuildError(f"{path}: {reason}; rebuilding it failed: {str(e).removeprefix(f'{path}: ')}") from None
        check = store.check_index(path, settings, fingerprint=fingerprint, expected_corpus_hash=corpus_hash(given))
        if not check.ok:
            raise IndexStoreError(path, f"just built but {check.reason}")
        return Searcher(path, store.load_files(path, check.manifest, dense_index=False), spec, time.perf_counter() - t0)


def _installed_prebuilt(path: Path, spec: str) -> bool:
    """The shipped prebuilt index put at ``path`` instead of a build, when it is what a build would
    write now (``index.prebuilt``); False (build as before) otherwise."""
    from . import prebuilt

    try:
        return prebuilt.install(path, spec) == ""
    except Exception as e:  # noqa: BLE001 - an optimisation: the index is then built as before
        print(f"note: the prebuilt index was not used ({type(e).__name__}: {e})", file=sys.stderr)
        return False


def build(
    index_dir: str | os.PathLike[str] | None = None,
    *,
    progress: Progress | None = None,
    model: str | None = None,
    corpus: CorpusLike | None = None,
    backend: str | None = None,
    corpus_name: str | None = None,
) -> dict[str, Any]:
    """Build (or rebuild) the index unconditionally; returns the manifest. With the ``qdrant``
    backend the corpus is then (re)loaded into the collection from the folder just built."""
    chosen = backend_name(backend)
    manifest = _build(index_dir, progress=progress, model=model, corpus=corpus)
    if chosen == "qdrant":
        searcher = Searcher(store.resolve_index_dir(index_dir), _stored(index_dir, manifest), model, 0.0)
        name = default_corpus_name(corpus_name)
        qdrant = qdrant_engine(searcher.path)
        if progress:
            progress("qdrant", 0, 1)
        try:
            qdrant.build(name, searcher.entries(), key=searcher.index_key)
        finally:
            qdrant.close()
        if progress:
            progress("qdrant", 1, 1)
    return manifest


def _stored(index_dir: str | os.PathLike[str] | None, manifest: dict[str, Any]) -> store.Stored:
    return store.load_files(store.resolve_index_dir(index_dir), manifest, dense_index=False)


def _build(
    index_dir: str | os.PathLike[str] | None,
    *,
    progress: Progress | None,
    model: str | None,
    corpus: CorpusLike | None,
) -> dict[str, Any]:
    path = store.resolve_index_dir(index_dir)
    spec = dense.model_setting(model)
    given = as_corpus(corpus) if corpus is not None else None
    fingerprint = "" if given is not None else source_fingerprint()
    if given is None:
        if progress:
            progress("corpus", 0, 1)
        from .corpus import default_corpus

        given = default_corpus()
        if progress:
            progress("corpus", 1, 1)
    encoder = dense.get_encoder(spec)
    return store.build_index(path, given, encoder, settings=store.index_settings(spec), fingerprint=fingerprint, progress=progress)
