"""The corpus lock: the signed-off state of a corpus, beside its manifest.

``corpus.lock.json`` records every document's id, date, file and sha256 as last signed off, and a
history of who signed what when. The folder, the manifest and the lock must agree: a file in the
folder the manifest does not list, a manifest entry the lock does not have (or the other way
round), a changed date, file or checksum is one ``LockError`` naming it, and every entry point
stops on it (``ingest.integrity.verify_corpus``). Only ``python -m ingest checksum`` (``sign``) and
``python -m ingest add`` (``record_added``) write the lock.
"""

from __future__ import annotations

import getpass
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .integrity import CorpusError
from .manifest import MANIFEST_NAME
from .types import DocumentInfo

LOCK_NAME = "corpus.lock.json"
FIELDS = ("id", "date", "file", "sha256")
SIGN = "run `python -m ingest checksum` if the change is intended, else restore it (git checkout corpus/)"
# Files of a corpus folder that are not documents: the manifest, the lock, notes.
NOT_DOCUMENTS = (MANIFEST_NAME, LOCK_NAME)


class LockError(CorpusError):
    """The folder, the manifest and the lock disagree; the message names the document or file."""

    def __init__(self, path: str, reason: str, document: str = ""):
        super().__init__(path, reason)
        self.document = document  # the manifest id it concerns, when it concerns one


@dataclass(frozen=True)
class LockedDocument:
    id: str
    date: str
    file: str
    sha256: str


def locked(document: DocumentInfo) -> LockedDocument:
    """What the lock records of a manifest document."""
    return LockedDocument(document.id, document.date, Path(document.path).name, document.sha256)


def read_lock(corpus: Path) -> tuple[dict[str, LockedDocument], list]:
    """(documents by id, history) of a corpus's lock, or ``LockError`` naming it when it is missing or
    does not parse."""
    path = corpus / LOCK_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        documents = {str(e["id"]): LockedDocument(*(str(e[f]) for f in FIELDS)) for e in data["documents"]}
        return documents, list(data.get("history", []))
    except FileNotFoundError:
        raise LockError(str(path), "the corpus has no lock; check the documents, then run "
                                   "`python -m ingest checksum` to sign it off") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LockError(str(path), f"the lock does not read ({type(exc).__name__}); "
                                   "restore it (git checkout corpus/)") from None


def differences(corpus: Path, documents: tuple[DocumentInfo, ...]) -> tuple[LockError, ...]:
    """One ``LockError`` per disagreement between the folder, the manifest and the lock."""
    try:
        lock, _ = read_lock(corpus)
    except LockError as error:
        return (error,)
    errors: list[LockError] = []
    manifest = {d.id: locked(d) for d in documents}
    for doc_id in sorted(lock.keys() - manifest.keys()):
        errors.append(LockError(str(corpus / MANIFEST_NAME), f"document {doc_id} ({lock[doc_id].file}) is in "
                                                             f"{LOCK_NAME} but not in {MANIFEST_NAME}; {SIGN}"))
    for doc_id, entry in sorted(manifest.items()):
        errors.extend(_entry_difference(corpus, entry, lock.get(doc_id)))
    named = {lock[doc_id].file for doc_id in lock.keys() - manifest.keys()}  # said above: one line per cause
    return tuple(errors + [e for e in unlisted_files(corpus, documents) if Path(e.path).name not in named])


def _entry_difference(corpus: Path, entry: LockedDocument, signed: LockedDocument | None) -> list[LockError]:
    where = str(corpus / MANIFEST_NAME)
    if signed is None:
        return [LockError(where, f"document {entry.id} ({entry.file}) is in {MANIFEST_NAME} but not in "
                                 f"{LOCK_NAME}; {SIGN}")]
    changed = [f"{name} {getattr(signed, name)!r} -> {getattr(entry, name)!r}" for name in FIELDS[1:]
               if getattr(signed, name) != getattr(entry, name)]
    if not changed:
        return []
    return [LockError(where, f"document {entry.id}'s {'; '.join(changed)} differs from {LOCK_NAME}; {SIGN}", entry.id)]


def unlisted_files(corpus: Path, documents: tuple[DocumentInfo, ...]) -> list[LockError]:
    """One ``LockError`` per file in the corpus folder that the manifest does not list."""
    listed = {Path(d.path).name for d in documents}
    return [LockError(str(corpus / name), f"{name} is in the corpus folder but not in {MANIFEST_NAME}; add it with "
                                          "`python -m ingest add` or move it out of the folder")
            for name in _folder_files(corpus) if name not in listed]


def _folder_files(corpus: Path) -> list[str]:
    """Names in the corpus folder that look like documents (not hidden, not notes, not manifest or lock)."""
    return sorted(p.name for p in corpus.iterdir() if not p.name.startswith(".") and p.name not in NOT_DOCUMENTS
                  and p.suffix.lower() != ".md" and not p.is_dir())


def sign(corpus: Path, documents: tuple[DocumentInfo, ...], action: str = "checksum") -> list[str]:
    """Write the lock from the manifest's documents (which the caller has verified); returns one line per
    change to the lock. The history records who signed what when."""
    try:
        before, history = read_lock(corpus)
    except LockError:
        before, history = {}, []
    after = {d.id: locked(d) for d in documents}
    changes = [f"{i}: removed from the lock" for i in sorted(before.keys() - after.keys())]
    changes += [f"{i}: {'added to' if i not in before else 'updated in'} the lock" for i, e in sorted(after.items())
                if before.get(i) != e]
    if changes or not (corpus / LOCK_NAME).exists():
        history.append({"action": action, "who": _who(), "when": _now(), "changes": changes})
        _write(corpus, after, history)
    return changes


def record_added(corpus: Path, document: DocumentInfo) -> None:
    """Add one document (just added by ``ingest add``) to the lock, leaving the other entries as signed."""
    try:
        lock, history = read_lock(corpus)
    except LockError:
        lock, history = {}, []
    lock[document.id] = locked(document)
    history.append({"action": "add", "who": _who(), "when": _now(), "changes": [f"{document.id}: added"]})
    _write(corpus, lock, history)


def _write(corpus: Path, documents: dict[str, LockedDocument], history: list) -> None:
    from .changes import _write_atomic

    data = {"comment": "The signed-off corpus: written only by `python -m ingest checksum` and `ingest add`.",
            "documents": [{f: getattr(e, f) for f in FIELDS} for _, e in sorted(documents.items())],
            "history": history}
    _write_atomic(corpus / LOCK_NAME, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _who() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()
