"""Persistence: an index directory of plain files plus a manifest that describes it.

Layout (``FORMAT_VERSION`` 1)::

    manifest.json      format version, index key and the settings behind it (model id, library
                       versions, chunker/tokenizer/BM25 parameters), corpus hash and fingerprint,
                       counts, and the sha256 of every other file
    chunks.jsonl       one Chunk per line, sorted by chunk id (row i of every other file)
    bm25_tokens.json   the BM25 input: one token list per chunk (BM25 statistics are rebuilt from
                       it at load, which takes milliseconds)
    dense.faiss        FAISS IndexFlatIP of the L2-normalised chunk embeddings
    query_encoder.onnx, query_tokenizer.json
                       the model as ONNX and its tokenizer, for queries without torch
                       (``onnx_encoder``; checksums in the manifest's ``query_encoder``)

A build writes everything into a fresh sibling temp directory and renames it into place, so a
crash mid-build leaves the previous index untouched. Loading checks the manifest first; a missing,
stale or damaged index is reported with a reason (and rebuilt by ``open_index``), never used.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import bm25 as bm25_mod
from .caches import fsync_dir, folder_lock
from . import chunks as chunks_mod
from . import dense, tokenize, vocab
from .corpus import corpus_hash
from .types import Chunk, CorpusInput, IndexBuildError, IndexStoreError, Progress

FORMAT_VERSION = 1
INDEX_ENV = "COTATI_INDEX_DIR"
MANIFEST = "manifest.json"
CHUNKS = "chunks.jsonl"
TOKENS = "bm25_tokens.json"
FAISS = "dense.faiss"
DATA_FILES = (CHUNKS, TOKENS, FAISS)
WRITE_ERRORS = (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT)


def default_index_dir() -> Path:
    """``$COTATI_INDEX_DIR``, else ``var/index`` in the repository (a source checkout), else a
    per-user cache folder (an installed package has no repository)."""
    import settings

    return settings.default_index_dir()


def resolve_index_dir(index_dir: str | os.PathLike[str] | None = None) -> Path:
    return Path(index_dir).expanduser() if index_dir else default_index_dir()


def check_index_dir(index_dir: str | os.PathLike[str] | None = None) -> Path:
    """The index folder, or ``IndexStoreError`` (one line: the path and what to do) when it cannot be
    one: a file stands there, or the folder above it is a file. Cheap: touches nothing."""
    path = resolve_index_dir(index_dir)
    import settings

    where = "--index-dir" if index_dir else INDEX_ENV if settings.source("index_dir") else "the default index folder"
    if path.exists() and not path.is_dir():
        raise IndexStoreError(path, f"is a file, not a folder; point {where} at a folder (it is created if missing)")
    parent = next((p for p in path.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise IndexStoreError(path, f"{parent} is a file, not a folder; point {where} at a folder")
    return path


def index_settings(model: str | None = None, max_pieces: int = chunks_mod.MAX_PIECES) -> dict[str, Any]:
    """Everything that shapes an index except the corpus; any change means a rebuild."""
    return {
        "format_version": FORMAT_VERSION,
        "model": dense.model_id(model),
        "libraries": dense.library_versions(),
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "chunker": {"version": chunks_mod.CHUNKER_VERSION, "max_pieces": max_pieces},
        "tokenizer": {"version": tokenize.TOKENIZER_VERSION, "vocabulary": vocab.fingerprint()},
        "bm25": {"k1": bm25_mod.K1, "b": bm25_mod.B, "idf": bm25_mod.IDF_VARIANT},
    }


def settings_key(settings: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class Check:
    """Result of checking an index directory against what it should be built from."""

    ok: bool
    reason: str  # "" when ok; else starts with "missing", "stale" or "damaged"
    manifest: dict[str, Any] | None = None


def read_manifest(path: Path) -> dict[str, Any]:
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IndexStoreError(path, "missing: no manifest.json") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise IndexStoreError(path, f"damaged: manifest.json unreadable ({e})") from None
    if not isinstance(manifest, dict):
        raise IndexStoreError(path, "damaged: manifest.json is not an object")
    return manifest


def check_index(
    path: Path, settings: dict[str, Any], *, fingerprint: str = "", expected_corpus_hash: str = "", vouch: bool = True
) -> Check:
    """Is the index at ``path`` complete, undamaged, built from these settings and this corpus, and its
    manifest vouched for by this installation's key (``vouch=False``: the shipped prebuilt folder, whose
    files are checked against ``prebuilt.json`` instead)?"""
    if not path.is_dir():
        return Check(False, "missing: no index directory")
    try:
        manifest = read_manifest(path)
    except IndexStoreError as e:
        return Check(False, e.reason)
    if manifest.get("format_version") != FORMAT_VERSION:
        return Check(False, f"stale: format version {manifest.get('format_version')!r}, expected {FORMAT_VERSION}")
    stored = manifest.get("settings")
    if stored != settings or manifest.get("key") != settings_key(settings):
        stored = stored if isinstance(stored, dict) else {}
        changed = sorted(k for k in settings if stored.get(k) != settings[k])
        return Check(False, f"stale: settings changed ({', '.join(changed) or 'key'})")
    corpus = manifest.get("corpus", {})
    if expected_corpus_hash and corpus.get("hash") != expected_corpus_hash:
        return Check(False, "stale: corpus content changed")
    if not expected_corpus_hash and fingerprint and corpus.get("fingerprint") != fingerprint:
        return Check(False, "stale: corpus files or ingest code changed")
    files = manifest.get("files", {})
    for name in DATA_FILES:
        f = path / name
        if not f.is_file():
            return Check(False, f"damaged: {name} missing")
        if files.get(name) != _sha256(f):
            return Check(False, f"damaged: {name} checksum mismatch")
    if vouch and not manifest_vouched(manifest):
        return Check(False, "damaged: manifest.json is not vouched for by this installation's key (edited, or "
                            "built elsewhere)")
    return Check(True, "", manifest)


# The manifest sits in the index folder beside the files whose sha256 it records: on its own it vouches for
# nothing against someone who can write the folder (issue 45). It carries an HMAC of everything but its
# caches (each cache entry carries its own) under the key kept outside every index folder (index.caches).
UNSIGNED = ("mac", "caches", "installed")


def _signed_body(manifest: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in manifest.items() if k not in UNSIGNED}


def sign_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with its HMAC under this installation's key (unchanged without a key)."""
    from .caches import mac, secret

    key = secret()
    return {**manifest, "mac": mac(_signed_body(manifest), key)} if key else dict(manifest)


def manifest_vouched(manifest: dict[str, Any]) -> bool:
    """True when the manifest's HMAC verifies under this installation's key; also True where there is no
    key to check it with (then nothing is vouched for, and a rebuild on every start would be no remedy)."""
    import hmac as _hmac

    from .caches import mac, secret

    key = secret()
    if key is None:
        return True
    found = manifest.get("mac")
    return isinstance(found, str) and _hmac.compare_digest(found, mac(_signed_body(manifest), key))


@dataclass(frozen=True)
class Stored:
    """The loaded contents of an index directory."""

    manifest: dict[str, Any]
    chunks: tuple[Chunk, ...]
    tokens: tuple[tuple[str, ...], ...]
    faiss: Any  # None when loaded with ``dense_index=False``: ``load_faiss`` reads it on first dense use


def load_files(path: Path, manifest: dict[str, Any], *, dense_index: bool = True) -> Stored:
    """Parse the data files (already checksummed by ``check_index``); any inconsistency is damage.
    ``dense_index=False`` leaves the FAISS file for ``load_faiss`` (no faiss import: a permit or
    section answer never needs it)."""
    try:
        with open(path / CHUNKS, encoding="utf-8") as f:
            chunk_list = tuple(Chunk.from_dict(json.loads(line)) for line in f if line.strip())
        tokens = tuple(tuple(t) for t in json.loads((path / TOKENS).read_text(encoding="utf-8")))
        index = dense.read_faiss(path / FAISS) if dense_index else None
    except Exception as e:  # any parse failure of a stored file means the index cannot be trusted
        raise IndexStoreError(path, f"damaged: cannot read stored files ({type(e).__name__}: {e})") from e
    n = manifest.get("counts", {}).get("chunks")
    vectors = index.ntotal if index is not None else n  # a deferred FAISS file is counted by load_faiss
    if not (len(chunk_list) == len(tokens) == vectors == n):
        raise IndexStoreError(
            path, f"damaged: counts disagree (manifest {n}, chunks {len(chunk_list)}, tokens {len(tokens)}, vectors {vectors})"
        )
    if any(a.id >= b.id for a, b in zip(chunk_list, chunk_list[1:])):
        raise IndexStoreError(path, "damaged: chunks are not sorted by id")
    return Stored(manifest, chunk_list, tokens, index)


def load_faiss(path: Path, manifest: dict[str, Any]):
    """The FAISS index of a loaded index folder, checked against the manifest's counts."""
    try:
        index = dense.read_faiss(path / FAISS)
    except Exception as e:  # the file passed its checksum at open: this is damage after the fact
        raise IndexStoreError(path, f"damaged: cannot read {FAISS} ({type(e).__name__}: {e})") from e
    counts = manifest.get("counts", {})
    if index.ntotal != counts.get("chunks") or index.d != counts.get("dim"):
        raise IndexStoreError(path, f"damaged: {FAISS} holds {index.ntotal} vectors of {index.d}, manifest says "
                                    f"{counts.get('chunks')} of {counts.get('dim')}")
    return index


def build_lock(path: Path):
    """One build at a time per index directory (another process waits, then finds it fresh)."""
    return folder_lock(path)


def _clean_leftovers(path: Path) -> None:
    """Remove temp/old directories left by builds that crashed (we hold the lock: none is live)."""
    for d in path.parent.glob(f".{path.name}.tmp-*"):
        shutil.rmtree(d, ignore_errors=True)
    for d in path.parent.glob(f".{path.name}.old-*"):
        shutil.rmtree(d, ignore_errors=True)


def _reusable_vectors(path: Path, model: str) -> dict[str, np.ndarray]:
    """embed_text -> vector from the previous index, if it is intact and made by the same model
    (a corpus or code change then re-embeds only the chunks whose text changed)."""
    try:
        manifest = read_manifest(path)
        if manifest.get("format_version") != FORMAT_VERSION or manifest.get("settings", {}).get("model") != model:
            return {}
        if manifest.get("settings", {}).get("libraries") != dense.library_versions():
            return {}
        if any(manifest.get("files", {}).get(n) != _sha256(path / n) for n in DATA_FILES):
            return {}
        stored = load_files(path, manifest)
    except (IndexStoreError, OSError):
        return {}
    vectors = dense.faiss_vectors(stored.faiss)
    return {c.embed_text: vectors[i] for i, c in enumerate(stored.chunks)}


def _write_json(path: Path, obj: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, sort_keys=True, indent=1 if path.name == MANIFEST else None)
        f.flush()
        os.fsync(f.fileno())


def _write_chunks(path: Path, chunk_list: tuple[Chunk, ...]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for c in chunk_list:
            f.write(json.dumps(c.to_dict(), ensure_ascii=False, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())




def build_index(
    path: Path,
    corpus: CorpusInput,
    encoder: dense.Encoder,
    *,
    settings: dict[str, Any] | None = None,
    fingerprint: str = "",
    progress: Progress | None = None,
    batch_size: int = 32,
) -> dict[str, Any]:
    """Build the index for ``corpus`` into ``path`` atomically; returns the manifest."""
    t0 = time.perf_counter()
    settings = settings or index_settings(encoder.model_id)
    if settings["model"] != encoder.model_id:
        raise IndexBuildError(f"{path}: settings name model {settings['model']} but the encoder is {encoder.model_id}")
    _refuse_foreign(path)
    try:
        return _build(path, corpus, encoder, settings, fingerprint, progress, batch_size, t0)
    except OSError as e:  # a read-only folder, a full disk: one line naming the file, not a traceback
        if e.errno not in WRITE_ERRORS:
            raise
        where = e.filename or path
        raise IndexBuildError(f"{path}: cannot write the index ({e.strerror or e}: {where}); build it where the "
                              "folder can be written, or point --index-dir / COTATI_INDEX_DIR at a writable folder") from None


def _build(path: Path, corpus: CorpusInput, encoder: dense.Encoder, settings: dict[str, Any], fingerprint: str,
           progress: Progress | None, batch_size: int, t0: float) -> dict[str, Any]:
    max_pieces = settings["chunker"]["max_pieces"]
    with build_lock(path):
        _clean_leftovers(path)
        tmp = path.parent / f".{path.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            if progress:
                progress("chunk", 0, len(corpus.sections))
            count = encoder.count_pieces if encoder.count_pieces("x") is not None else None
            chunk_list = tuple(
                sorted(
                    chunks_mod.chunk_corpus(corpus.sections, corpus.table_rows, max_pieces=max_pieces, count_pieces=count),
                    key=lambda c: c.id,
                )
            )
            if not chunk_list:
                raise IndexBuildError(f"{path}: the corpus gave no chunks to index")
            if progress:
                progress("chunk", len(corpus.sections), len(corpus.sections))
            tokens = [tokenize.tokenize(c.embed_text) for c in chunk_list]

            reuse = _reusable_vectors(path, encoder.model_id)
            todo = [i for i, c in enumerate(chunk_list) if c.embed_text not in reuse]
            vectors = np.zeros((len(chunk_list), encoder.dim), dtype=np.float32)
            for i, c in enumerate(chunk_list):
                if c.embed_text in reuse:
                    vectors[i] = reuse[c.embed_text]
            if todo:
                fresh = encoder.encode([chunk_list[i].embed_text for i in todo], batch_size=batch_size, progress=progress)
                vectors[todo] = fresh
            elif progress:
                progress("embed", len(chunk_list), len(chunk_list))

            caches = _carry_caches(path, tmp)
            _write_chunks(tmp / CHUNKS, chunk_list)
            _write_json(tmp / TOKENS, tokens)
            dense.write_faiss(dense.build_faiss(vectors), tmp / FAISS)
            query_encoder = _query_encoder(path, tmp, encoder, progress)
            manifest = {
                "format_version": FORMAT_VERSION,
                "key": settings_key(settings),
                "settings": settings,
                "corpus": {
                    "hash": corpus_hash(corpus),
                    "fingerprint": fingerprint,
                    "sections": len(corpus.sections),
                    "table_rows": len(corpus.table_rows),
                    "documents": sorted({s.document for s in corpus.sections}),
                },
                "counts": {
                    "chunks": len(chunk_list),
                    "section_chunks": sum(c.kind == "section" for c in chunk_list),
                    "table_row_chunks": sum(c.kind == "table_row" for c in chunk_list),
                    "embedded": len(todo),
                    "reused_vectors": len(chunk_list) - len(todo),
                    "dim": int(encoder.dim),
                },
                "files": {name: _sha256(tmp / name) for name in DATA_FILES},
                **({"query_encoder": query_encoder} if query_encoder else {}),
                **({"caches": caches} if caches else {}),
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "build_seconds": round(time.perf_counter() - t0, 3),
            }
            manifest = sign_manifest(manifest)
            _write_json(tmp / MANIFEST, manifest)  # written last: a manifest means a complete index
            fsync_dir(tmp)
            _swap_into_place(tmp, path)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return manifest


def _carry_caches(previous: Path, tmp: Path) -> dict[str, Any]:
    """Keep the files other code caches beside the index (the assistant's ``sentences.npz``, keyed
    by model and text, so it checks itself) across a rebuild: the first answer after a rebuild
    then does not re-embed every sentence of the corpus. A damaged cache (its CRCs do not match)
    is left behind, to be rebuilt: never copied forward; so is a pickle (an older version's
    ``derived.pickle``: never read). Returns the previous manifest's ``caches`` entries of the files
    carried whose sha256 still matches (their readers check the rest of the entry)."""
    from .caches import CACHES, cache_intact

    own = {MANIFEST, *DATA_FILES, "query_encoder.onnx", "query_tokenizer.json"}
    carried = []
    with contextlib.suppress(OSError):
        for f in previous.iterdir() if previous.is_dir() else ():
            if f.is_file() and not f.name.startswith(".") and f.name not in own and f.suffix != ".pickle" \
                    and cache_intact(f):
                shutil.copy2(f, tmp / f.name)
                carried.append(f.name)
    try:
        entries = read_manifest(previous).get(CACHES, {}) if carried else {}
    except IndexStoreError:
        return {}
    entries = entries if isinstance(entries, dict) else {}
    return {name: entry for name, entry in entries.items()
            if name in carried and isinstance(entry, dict) and entry.get("sha256") == _sha256(tmp / name)}


def _query_encoder(previous: Path, tmp: Path, encoder: dense.Encoder, progress: Progress | None) -> dict[str, Any] | None:
    """The model as ONNX for torch-free queries (``onnx_encoder``): the previous index's export when
    it still fits, else a new one. Only for a sentence-transformers model; a failed export leaves
    the index without one (queries then use the model itself, as they did before)."""
    if not isinstance(encoder, dense.SentenceTransformerEncoder):
        return None
    from . import onnx_encoder

    entry = onnx_encoder.reuse(previous, tmp, encoder.model_id)
    if entry is not None:
        if progress:
            progress("onnx", 1, 1)
        return entry
    try:
        return onnx_encoder.export(encoder, tmp, progress)
    except Exception as e:  # no exporter (onnx missing) or the model does not trace: keep the torch path
        for name in onnx_encoder.FILES:
            (tmp / name).unlink(missing_ok=True)
        print(f"note: no ONNX query encoder written ({type(e).__name__}: {e}); queries will use sentence-transformers",
              file=sys.stderr)
        return None


def _refuse_foreign(path: Path) -> None:
    """Never rename aside (and delete) a directory that is not an index: --index-dir could
    point at someone's home folder."""
    if path.exists() and not path.is_dir():
        raise IndexBuildError(f"{path}: exists and is not a directory; choose another --index-dir or COTATI_INDEX_DIR")
    if path.is_dir():
        names = {p.name for p in path.iterdir()}
        if names and MANIFEST not in names and not set(DATA_FILES) <= names:  # ours: a manifest, or every data file
            raise IndexBuildError(f"{path}: not empty and not an index directory (no {MANIFEST}); refusing to replace it; "
                                  "choose an empty or new folder")


def _swap_into_place(tmp: Path, path: Path) -> None:
    """Rename the finished temp dir to ``path``. An existing index is first renamed aside (the
    only window without an index is between two renames; ``open_index`` then just rebuilds)."""
    old = None
    if path.exists():
        old = path.parent / f".{path.name}.old-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        os.rename(path, old)
    os.rename(tmp, path)
    fsync_dir(path.parent)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
