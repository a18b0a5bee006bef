"""The corpus lock: the signed-off state of a corpus, beside its manifest.

``corpus.lock.json`` records the whole manifest as last signed off (every field of every document
entry: id, date, file, sha256, and also kind, chapter, status, title, short title, date basis,
source ...; and the manifest's own fields), a ``signature`` (sha256 of all of it, the corpus
state's stamp) and a history of who signed what when. The folder, the manifest and the lock must
agree: a file in the folder the manifest does not list, a manifest entry the lock does not have
(or the other way round), any field that differs from its signed value is one ``LockError``
naming it, and every entry point stops on it (``ingest.integrity.verify_corpus``). Only ``python
-m ingest checksum`` (``sign``) and ``python -m ingest add`` (``record_added``) write the lock.
"""

from __future__ import annotations

import getpass
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .integrity import CorpusError
from .manifest import MANIFEST_NAME, manifest_fields
from .types import DocumentInfo

LOCK_NAME = "corpus.lock.json"
FIELDS = ("id", "date", "file", "sha256")  # the fields every lock entry has (a lock before issue 37 had only these)
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
    """A document's manifest entry as signed: ``fields`` holds every field (name -> JSON value)."""

    id: str
    date: str
    file: str
    sha256: str
    fields: tuple = ()  # ((name, value as canonical JSON), ...), sorted by name

    def value(self, name: str) -> object:
        found = dict(self.fields).get(name)
        return None if found is None else json.loads(found)


def _locked_entry(entry: dict) -> LockedDocument:
    fields = tuple(sorted((str(k), _canonical(v)) for k, v in entry.items()))
    return LockedDocument(*(str(entry.get(f, "")) for f in FIELDS), fields)


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def locked(document: DocumentInfo, entry: dict | None = None) -> LockedDocument:
    """What the lock records of a manifest document: its whole manifest entry (``entry``, as the
    manifest holds it), else the fields ``DocumentInfo`` carries."""
    if entry is None:
        entry = {"id": document.id, "date": document.date, "file": Path(document.path).name, "sha256": document.sha256}
    return _locked_entry(entry)


def signature(top: dict, documents: dict[str, LockedDocument]) -> str:
    """sha256 of a whole manifest as the lock records it (its own fields and every entry's fields; the
    order of the entries does not count): the corpus state's stamp."""
    body = {"manifest": top, "documents": {i: dict(d.fields) for i, d in sorted(documents.items())}}
    return hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Lock:
    documents: dict  # id -> LockedDocument
    history: list
    manifest: dict | None  # the manifest's own fields as signed; None in a lock from before issue 37
    signature: str


def read_lock(corpus: Path) -> tuple[dict[str, LockedDocument], list]:
    """(documents by id, history) of a corpus's lock, or ``LockError`` naming it when it is missing or
    does not parse."""
    lock = read(corpus)
    return lock.documents, lock.history


def read(corpus: Path) -> Lock:
    """The whole lock, or ``LockError`` naming it when it is missing or does not parse."""
    path = corpus / LOCK_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        documents = {}
        for e in data["documents"]:
            if not isinstance(e, dict) or any(f not in e for f in FIELDS):
                raise KeyError("id")
            documents[str(e["id"])] = _locked_entry(e)
        top = data.get("manifest")
        if top is not None and not isinstance(top, dict):
            raise TypeError("manifest")
        return Lock(documents, list(data.get("history", [])), top, str(data.get("signature", "")))
    except FileNotFoundError:
        raise LockError(str(path), "the corpus has no lock; check the documents, then run "
                                   "`python -m ingest checksum` to sign it off") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise LockError(str(path), f"the lock does not read ({type(exc).__name__}); "
                                   "restore it (git checkout corpus/)") from None


def stamp(corpus: Path) -> str:
    """The signed corpus state's stamp (the lock's signature), "" when the lock does not read: what a
    running app compares to notice a new signed corpus."""
    try:
        return read(corpus).signature
    except LockError:
        return ""


def differences(corpus: Path, documents: tuple[DocumentInfo, ...]) -> tuple[LockError, ...]:
    """One ``LockError`` per disagreement between the folder, the manifest and the lock."""
    try:
        lock = read(corpus)
    except LockError as error:
        return (error,)
    errors: list[LockError] = []
    top, entries = manifest_fields(corpus)
    manifest = {d.id: locked(d, entries.get(d.id)) for d in documents}
    errors.extend(_manifest_difference(corpus, top, lock.manifest))
    for doc_id in sorted(lock.documents.keys() - manifest.keys()):
        errors.append(LockError(str(corpus / MANIFEST_NAME), f"document {doc_id} ({lock.documents[doc_id].file}) is in "
                                                             f"{LOCK_NAME} but not in {MANIFEST_NAME}; {SIGN}"))
    for doc_id, entry in sorted(manifest.items()):
        errors.extend(_entry_difference(corpus, entry, lock.documents.get(doc_id), lock.manifest is None))
    if not errors and lock.signature != signature(top, lock.documents):
        errors.append(LockError(str(corpus / LOCK_NAME), f"the lock's signature does not match the entries it "
                                                         f"records; {SIGN}"))
    named = {lock.documents[doc_id].file for doc_id in lock.documents.keys() - manifest.keys()}
    return tuple(errors + [e for e in unlisted_files(corpus, documents) if Path(e.path).name not in named])


def _manifest_difference(corpus: Path, top: dict, signed: dict | None) -> list[LockError]:
    where = str(corpus / MANIFEST_NAME)
    if signed is None:
        return [LockError(where, f"{LOCK_NAME} was signed before every manifest field was locked; check "
                                 f"{MANIFEST_NAME}, then run `python -m ingest checksum`")]
    changed = _changed(signed, top)
    if not changed:
        return []
    return [LockError(where, f"{MANIFEST_NAME}'s {'; '.join(changed)} differs from {LOCK_NAME}; {SIGN}")]


def _changed(signed: dict, now: dict) -> list[str]:
    """'name old -> new' for each field that differs (a field added or removed shows as (none))."""
    out = []
    for name in sorted(signed.keys() | now.keys(), key=lambda n: (n not in FIELDS, FIELDS.index(n) if n in FIELDS else 0, n)):
        old, new = signed.get(name), now.get(name)
        if _canonical(old) != _canonical(new):
            out.append(f"{name} {_shown(old)} -> {_shown(new)}")
    return out


def _shown(value: object) -> str:
    if value is None:
        return "(none)"
    text = repr(value) if isinstance(value, str) else _canonical(value)
    return text if len(text) <= 60 else text[:57] + "...'"


def _entry_difference(corpus: Path, entry: LockedDocument, signed: LockedDocument | None,
                      legacy: bool = False) -> list[LockError]:
    where = str(corpus / MANIFEST_NAME)
    if signed is None:
        return [LockError(where, f"document {entry.id} ({entry.file}) is in {MANIFEST_NAME} but not in "
                                 f"{LOCK_NAME}; {SIGN}")]
    before = {name: json.loads(value) for name, value in signed.fields}
    now = {name: json.loads(value) for name, value in entry.fields}
    if legacy:  # a lock from before issue 37 signed these only; its one line says to sign the rest
        before, now = ({k: v for k, v in d.items() if k in FIELDS} for d in (before, now))
    changed = _changed(before, now)
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
    """Write the lock from the manifest (whose documents the caller has verified): every field of
    every entry and the manifest's own; returns one line per change to the lock. The history records
    who signed what when."""
    try:
        lock = read(corpus)
        before, history, top_before = lock.documents, lock.history, lock.manifest
    except LockError:
        before, history, top_before = {}, [], None
    top, entries = manifest_fields(corpus)
    after = {d.id: locked(d, entries.get(d.id)) for d in documents}
    changes = [f"{i}: removed from the lock" for i in sorted(before.keys() - after.keys())]
    changes += [f"{i}: {'added to' if i not in before else 'updated in'} the lock" for i, e in sorted(after.items())
                if before.get(i) != e]
    if top_before != top:
        changes.append("manifest fields: " + ("signed" if top_before is None else "updated in the lock"))
    if changes or not (corpus / LOCK_NAME).exists():
        history.append({"action": action, "who": _who(), "when": _now(), "changes": changes})
        _write(corpus, top, after, history)
    return changes


def record_added(corpus: Path, document: DocumentInfo) -> None:
    """Add one document (just added by ``ingest add``) to the lock, leaving the other entries as signed."""
    try:
        lock = read(corpus)
        documents, history, top = lock.documents, lock.history, lock.manifest
    except LockError:
        documents, history, top = {}, [], None
    now_top, entries = manifest_fields(corpus)
    documents[document.id] = locked(document, entries.get(document.id))
    history.append({"action": "add", "who": _who(), "when": _now(), "changes": [f"{document.id}: added"]})
    _write(corpus, now_top if top is None else top, documents, history)


def _write(corpus: Path, top: dict, documents: dict[str, LockedDocument], history: list) -> None:
    from .corpus_writes import write_atomic

    data = {"comment": "The signed-off corpus: written only by `python -m ingest checksum` and `ingest add`.",
            "signature": signature(top, documents),
            "manifest": top,
            "documents": [_ordered({name: json.loads(value) for name, value in e.fields}) for _, e in sorted(documents.items())],
            "history": history}
    write_atomic(corpus / LOCK_NAME, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _ordered(entry: dict) -> dict:
    """An entry's fields as the lock prints them: id, date, file, sha256, then the rest by name."""
    return {k: entry[k] for k in sorted(entry, key=lambda n: (n not in FIELDS, FIELDS.index(n) if n in FIELDS else 0, n))}


def _who() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()
