"""Corpus integrity: every document the manifest lists is present, readable and unchanged.

The manifest records a sha256 per document. ``verify_corpus()`` checks each one and returns one
``IngestError`` per document that is missing, unreadable or changed; every entry point (``python -m
assistant ask``, ``app.py``, ``python -m ingest [tables]``, ``python -m index build|search``) calls
``check_corpus()`` before serving, so nothing is ever answered from a silently smaller corpus.
``python -m ingest checksum`` records the checksums after an intended edit.
"""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

from .readers import PdfLimits
from .manifest import MANIFEST_NAME, default_corpus_dir, load_manifest
from .types import DocumentInfo, IngestError

RESTORE = "restore it (git checkout corpus/) or, if the change is intended, run `python -m ingest checksum`"


class CorpusError(IngestError):
    """The corpus cannot be served as its manifest describes it; one per document."""


def file_sha256(path: str | Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def verify_corpus(corpus_dir: str | Path | None = None) -> tuple[CorpusError, ...]:
    """One error per manifest document that is missing, unreadable or not the file the manifest
    vouches for. A broken manifest raises ``IngestError`` (one line naming it)."""
    from .corpus_writes import reader

    corpus = Path(corpus_dir) if corpus_dir else default_corpus_dir()
    with reader(corpus):  # never halfway through another process's `ingest add`
        return _verify(corpus)


def _verify(corpus: Path) -> tuple[CorpusError, ...]:
    from .corpus_writes import interrupted
    from .lock import LockError, differences

    documents = load_manifest(corpus)
    killed = interrupted(corpus)
    if killed:  # one line for the whole unfinished add, not its file and entry named apart
        return (LockError(str(corpus / MANIFEST_NAME), killed),)
    errors = {document.id: error for document in documents if (error := _check(document)) is not None}
    # one line per cause: a document already named (missing, changed...) is not named again by the lock
    return tuple(errors.values()) + tuple(e for e in differences(corpus, documents) if e.document not in errors)


def check_corpus(corpus_dir: str | Path | None = None) -> None:
    """Raise the first ``CorpusError`` of ``verify_corpus`` (or the manifest's ``IngestError``)."""
    errors = verify_corpus(corpus_dir)
    if errors:
        raise errors[0]


def _check(document: DocumentInfo) -> CorpusError | None:
    path = Path(document.path)
    if not path.exists():
        return CorpusError(str(path), f"document {document.id} is missing; restore it (git checkout corpus/) "
                                      f"or remove its entry from {MANIFEST_NAME}")
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a link to /dev/zero, a FIFO: never opened (it would hang)
            return CorpusError(str(path), f"document {document.id} is not a regular file; {RESTORE}")
        if path.stat().st_size > 4 * PdfLimits.max_chars + 3 and path.suffix.lower() != ".pdf":
            return CorpusError(str(path), f"document {document.id} is larger than a document may be "
                                          f"({PdfLimits.max_chars:,} characters); {RESTORE}")
        digest = file_sha256(path)
        if path.suffix.lower() != ".pdf":  # a PDF is read in a sandboxed child: its checksum vouches for it
            path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return CorpusError(str(path), f"document {document.id} is not UTF-8 text (bad byte at offset {exc.start}); "
                                      f"{RESTORE}")
    except OSError as exc:
        return CorpusError(str(path), f"document {document.id} cannot be read ({exc.strerror or exc}); "
                                      "check the file's permissions")
    if not document.sha256:
        return CorpusError(str(path), f"document {document.id} has no sha256 in {MANIFEST_NAME}; "
                                      "check the file, then run `python -m ingest checksum`")
    if digest != document.sha256:
        return CorpusError(str(path), f"document {document.id} has changed since its sha256 was recorded; {RESTORE}")
    return None


def record_checksums(corpus_dir: str | Path | None = None) -> list[tuple[str, str, str]]:
    """Write each readable document's sha256 into the manifest (atomically); returns
    (id, old, new) for each entry whose checksum changed. A missing or unreadable document is
    refused with ``CorpusError``: a checksum vouches only for a file that reads."""
    from .corpus_writes import writer

    corpus = Path(corpus_dir) if corpus_dir else default_corpus_dir()
    with writer(corpus):  # the whole read-modify-write, one writer at a time
        return _record_checksums(corpus)


def _record_checksums(corpus: Path) -> list[tuple[str, str, str]]:
    import json

    from .corpus_writes import write_atomic

    documents = {doc.id: doc for doc in load_manifest(corpus)}
    for document in documents.values():
        error = _check(document)
        if error is not None and "sha256" not in error.reason:
            raise error
    manifest_path = corpus / MANIFEST_NAME
    data = json.loads(manifest_path.read_text(encoding="utf-8"))
    changed = []
    for entry in data["documents"]:
        new = file_sha256(documents[str(entry["id"])].path)
        if entry.get("sha256") != new:
            changed.append((str(entry["id"]), entry.get("sha256", ""), new))
            entry["sha256"] = new
    if changed:
        write_atomic(manifest_path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return changed


def sign_corpus(corpus_dir: str | Path | None = None) -> tuple[list[tuple[str, str, str]], list[str]]:
    """``python -m ingest checksum``: record the checksums in the manifest, then sign the lock from it
    (the folder must hold no file the manifest does not list). Returns (checksum changes, lock changes)."""
    from .corpus_writes import writer
    from .lock import sign, unlisted_files

    corpus = Path(corpus_dir) if corpus_dir else default_corpus_dir()
    with writer(corpus):  # the whole read-modify-write; a killed add is undone first
        unlisted = unlisted_files(corpus, load_manifest(corpus))
        if unlisted:
            raise unlisted[0]
        changed = record_checksums(corpus)
        return changed, sign(corpus, load_manifest(corpus))
