"""What every process used to derive from the corpus again before its first answer (the cleaned
sections, the effective table cells, the provisions in force, the words' IDF over the sections, the
cross-reference graph and the district and table names the text prints), kept in one file beside the index.

Reading four documents, cleaning their extraction damage, parsing the tables and the provisions
took most of a cold ``python -m assistant ask`` (issue 25: a cold answer at most 1.5x the
onnxruntime + one-query floor). All of them are functions of the corpus folder, the ``ingest``
package and the two assistant modules that count the words (``ASSISTANT_SOURCES``) alone, so the
file is keyed by a hash of exactly those (and Python's version and ``VERSION``): an edited document
or a change to that code means another key, and the file is derived again and rewritten. A damaged file (its payload no longer matches the checksum in its header)
or one that cannot be written (a read-only index folder) only means deriving as before.

The payload is a pickle: the records are ingest's own dataclasses, and unpickling them is about
a hundred times faster than re-parsing. It is read only from the index folder, which the project
itself writes (the same trust as the ONNX model beside it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CACHE_FILE = "derived.pickle"
VERSION = 2  # bump when what is stored changes shape
MANIFEST = "manifest.json"  # only an index folder (it has one) gets the file: index build refuses other folders
INGEST_PATTERNS = ("*.py", "*.json", "*.txt")
# The assistant's own code the IDF and the printed names come from (passages.document_frequencies over
# permits.words_of; absent.printed_in_text).
ASSISTANT_SOURCES = ("absent.py", "passages.py", "permits.py")


@dataclass(frozen=True)
class Derived:
    """The corpus's sections, its effective table cells and its provisions in force; the IDF of the
    sections' words, their cross-reference graph and the districts and tables their text names (None
    in a file that does not hold them)."""

    sections: tuple
    cells: tuple
    provisions: tuple
    idf: dict | None = None  # assistant.passages.document_frequencies of the sections' texts
    references: object = None  # ingest.references.Graph of the sections
    printed: object = None  # assistant.absent.printed_in_text of the sections


def source_key(corpus_dir: Path) -> str:
    """Hash of what the derived records depend on: the corpus folder's files and the ingest code.
    (``index.corpus.source_fingerprint`` hashes the same for the index, but importing ``index``
    loads numpy, which a permit answer from the tables alone never needs.)"""
    h = hashlib.sha256(f"{VERSION}:{sys.version_info[:2]}:{corpus_dir.resolve()}".encode())
    _hash_tree(h, corpus_dir, ("*",))
    _hash_tree(h, Path(__file__).resolve().parents[1] / "ingest", INGEST_PATTERNS)
    _hash_tree(h, Path(__file__).resolve().parent, ASSISTANT_SOURCES, recursive=False)
    return h.hexdigest()[:32]


def _hash_tree(h, root: Path, patterns: tuple[str, ...], recursive: bool = True) -> None:
    for pattern in patterns:
        for f in sorted(root.rglob(pattern) if recursive else root.glob(pattern)) if root.is_dir() else ():
            if f.is_file() and "__pycache__" not in f.parts:
                h.update(f.relative_to(root).as_posix().encode())
                h.update(f.read_bytes())


def load(folder: Path, key: str) -> Derived | None:
    """The stored records when the file beside the index holds this key and is intact; else None."""
    try:
        data = (folder / CACHE_FILE).read_bytes()
        header, _, payload = data.partition(b"\n")
        meta = json.loads(header)
        if meta.get("key") != key or meta.get("sha256") != hashlib.sha256(payload).hexdigest():
            return None
        found = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - missing, truncated or foreign: derive again, never fail an answer
        return None
    return found if isinstance(found, Derived) else None


def save(folder: Path, key: str, derived: Derived) -> None:
    """Write the records atomically beside the index; silently nothing where that cannot be done."""
    if not (folder / MANIFEST).is_file():
        return
    payload = pickle.dumps(derived, protocol=pickle.HIGHEST_PROTOCOL)
    header = json.dumps({"key": key, "sha256": hashlib.sha256(payload).hexdigest()}).encode()
    with contextlib.suppress(OSError):
        handle, temp = tempfile.mkstemp(dir=folder, prefix=f".{CACHE_FILE}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as f:
                f.write(header + b"\n" + payload)
            os.replace(temp, folder / CACHE_FILE)
        finally:
            Path(temp).unlink(missing_ok=True)


def derive(corpus_dir: Path) -> Derived:
    """Read, clean and parse the corpus: sections, effective cells, provisions in force, the words'
    IDF and the cross-reference graph (as ``resources.Corpus`` would compute them)."""
    from ingest import load_corpus, load_manifest
    from ingest.provisions import effective_provisions, provisions_of
    from ingest.references import build_graph
    from ingest.tables import build_tables

    from .absent import printed_in_text
    from .passages import document_frequencies

    sections = load_corpus(corpus_dir).sections
    found, _ = provisions_of(sections)
    excerpts = {(s.document, s.id): getattr(s, "excerpt", False) for s in sections}
    idf, _ = document_frequencies(section.text for section in sections)
    return Derived(tuple(sections), tuple(build_tables(sections).effective),
                   tuple(effective_provisions(found, excerpts)), idf,
                   build_graph(sections, codified_chapters(load_manifest(corpus_dir))), printed_in_text(sections))


def codified_chapters(documents) -> frozenset[str]:
    """The chapters a codified-chapter document holds whole (``ingest.references.build_graph``'s ``codified``)."""
    return frozenset(d.chapter for d in documents if d.kind == "codified chapter" and d.chapter)


def load_or_derive(corpus_dir: Path, index_dir: Path) -> Derived:
    """The derived records from the file beside the index, or derived now (and stored there)."""
    key = source_key(corpus_dir)
    found = load(index_dir, key)
    if found is None:
        found = derive(corpus_dir)
        save(index_dir, key, found)
    return found
