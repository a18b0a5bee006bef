"""What every process used to derive from the corpus again before its first answer (the cleaned
sections, the effective table cells, the provisions in force, the words' IDF over the sections, the
cross-reference graph and the district and table names the text prints), kept in one file beside the index.

Reading four documents, cleaning their extraction damage, parsing the tables and the provisions
took most of a cold ``python -m assistant ask`` (issue 25: a cold answer at most 1.5x the
onnxruntime + one-query floor). All of them are functions of the corpus folder, the ``ingest``
package and the two assistant modules that count the words (``ASSISTANT_SOURCES``) alone, so the
file is keyed by a hash of exactly those (and Python's version and ``VERSION``): an edited document
or a change to that code means another key, and the records are derived again and rewritten.

The file (``derived.json``) is plain JSON that cannot run code when read (issue 37 item 3: it was
a pickle): each record is named by its class, and only the classes in ``RECORD_TYPES`` are rebuilt,
field by field. It does not vouch for itself: its sha256, the key, the corpus lock's stamp and the
code's hash are recorded in the index manifest (``caches``), and a file the manifest does not vouch
for (forged, damaged, from another corpus state or code) is derived again and rewritten. A folder
without an index manifest, or one that cannot be written, only means deriving as before. A
``derived.pickle`` left by an older version is never read, and is removed.

Nothing in the index folder vouches for itself (issue 45 item 4: a forger who rewrote ``derived.json``
and put its new sha256 into the manifest beside it decided the law). The manifest's entry carries an
HMAC-SHA256 of the file's sha256 and what it was made from, under a secret key kept outside the index
folder (``settings.cache_key_file()``: created on first use, 0600 in a 0700 folder, readable only by
the app's user). An entry whose HMAC does not verify is not used: the records are derived again. Where
the key cannot be read or made, nothing is vouched for and the records are derived every time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CACHE_FILE = "derived.json"
OLD_FILES = ("derived.pickle",)  # older versions' files: never read, removed when seen
VERSION = 3  # bump when what is stored changes shape
FORMAT = "cotati-derived"
MANIFEST = "manifest.json"  # only an index folder (it has one) gets the file: index build refuses other folders
INGEST_PATTERNS = ("*.py", "*.json", "*.txt")
# The assistant's own code the IDF and the printed names come from (passages.document_frequencies over
# permits.words_of; absent.printed_in_text), and this file (the format).
ASSISTANT_SOURCES = ("absent.py", "derived.py", "passages.py", "permits.py")


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


# -- keys ------------------------------------------------------------------------------------------
def corpus_hash(corpus_dir: Path) -> str:
    """Hash of the corpus folder's files (names and bytes; the lock among them), not of where it is:
    a clone elsewhere derives the same records."""
    h = hashlib.sha256()
    _hash_tree(h, corpus_dir, ("*",))
    return h.hexdigest()[:32]


def code_hash() -> str:
    """Hash of the code the records come from: the ingest package, the assistant modules that count
    the words, Python's version and ``VERSION``."""
    h = hashlib.sha256(f"{VERSION}:{sys.version_info[:2]}".encode())
    _hash_tree(h, Path(__file__).resolve().parents[1] / "ingest", INGEST_PATTERNS)
    _hash_tree(h, Path(__file__).resolve().parent, ASSISTANT_SOURCES, recursive=False)
    return h.hexdigest()[:32]


def source_key(corpus_dir: Path) -> str:
    """Hash of what the derived records depend on: the corpus folder's files and the code.
    (``index.corpus.source_fingerprint`` hashes the same for the index, but importing ``index``
    loads numpy, which a permit answer from the tables alone never needs.)"""
    return hashlib.sha256(f"{corpus_hash(corpus_dir)}:{code_hash()}".encode()).hexdigest()[:32]


def _hash_tree(h, root: Path, patterns: tuple[str, ...], recursive: bool = True) -> None:
    for pattern in patterns:
        for f in sorted(root.rglob(pattern) if recursive else root.glob(pattern)) if root.is_dir() else ():
            if f.is_file() and "__pycache__" not in f.parts:
                h.update(f.relative_to(root).as_posix().encode())
                h.update(f.read_bytes())


def lock_stamp(corpus_dir: Path) -> str:
    """The corpus lock's stamp (its signature), "" without a readable lock."""
    from ingest.lock import stamp

    return stamp(corpus_dir)


# -- the format: JSON, only known records rebuilt --------------------------------------------------
def record_types() -> dict[str, type]:
    """Every class a stored record may be, by name: nothing else is ever built from the file."""
    from ingest.provisions import HistoryEntry as ProvisionHistory
    from ingest.provisions import Provision
    from ingest.references import Graph, Reference, Target
    from ingest.tables.types import Cell, EffectiveCell, Footnote, HistoryEntry, Quantity, Reading, SourceLine
    from ingest.types import Section
    from ingest.values import Untyped, Value

    from .absent import Printed

    found = {"Section": Section, "Cell": Cell, "EffectiveCell": EffectiveCell, "Footnote": Footnote,
             "CellHistory": HistoryEntry, "Quantity": Quantity, "Reading": Reading, "SourceLine": SourceLine,
             "Provision": Provision, "ProvisionHistory": ProvisionHistory, "Value": Value, "Untyped": Untyped,
             "Graph": Graph, "Reference": Reference, "Target": Target, "Printed": Printed, "Derived": Derived}
    return found


class FormatError(ValueError):
    """A stored value that is not one the format writes (a foreign or damaged file): derive again."""


def encode(value, names: dict[type, str]):
    """``value`` as JSON data: a record as {"@": class name, "f": [its fields in order]}, a tuple as a
    list, a frozenset as {"@fs": sorted items}, a dict as {"@d": [[key, value], ...]} (keys of any
    kind, order kept). Anything else than str, int, float, bool and None is refused."""
    kind = type(value)
    if value is None or kind in (str, int, float, bool):
        return value
    if kind is tuple:
        return [encode(v, names) for v in value]
    if kind is frozenset:
        return {"@fs": sorted((encode(v, names) for v in value), key=_order)}
    if kind is dict:
        return {"@d": [[encode(k, names), encode(v, names)] for k, v in value.items()]}
    name = names.get(kind)
    if name is None:
        raise TypeError(f"{kind.__module__}.{kind.__qualname__} is not a stored record type")
    return {"@": name, "f": [encode(getattr(value, f.name), names) for f in dataclasses.fields(value)]}


def _order(item) -> str:
    return json.dumps(item, sort_keys=True)


def _tuple(items: list) -> tuple:
    return tuple(_tuple(v) if type(v) is list else v for v in items)


def rebuild(types: dict[str, type]):
    """The ``json.loads`` object hook that rebuilds what ``encode`` wrote (innermost first): each
    record by its own class from its fields, lists as tuples; ``FormatError`` for an unknown class or
    fields that do not fit it. (A hook, not a walk over the parsed data: it runs once per object, not
    once per string, and reading stays a fifth of deriving.)"""

    def hook(data: dict):
        if "@" in data:
            cls = types.get(data["@"]) if isinstance(data["@"], str) else None
            values = data.get("f")
            if cls is None or type(values) is not list or len(data) != 2 or len(values) != len(_init_fields(cls)):
                raise FormatError(f"unknown record {str(data['@'])[:40]!r}")
            return cls(*(_tuple(v) if type(v) is list else v for v in values))
        if "@fs" in data:
            items = data["@fs"]
            if type(items) is not list or len(data) != 1:
                raise FormatError("a set that is not a list")
            return frozenset(_tuple(v) if type(v) is list else v for v in items)
        if "@d" in data:
            pairs = data["@d"]
            if type(pairs) is not list or len(data) != 1 or not all(type(p) is list and len(p) == 2 for p in pairs):
                raise FormatError("a dict entry that is not a pair")
            return {(_tuple(k) if type(k) is list else k): (_tuple(v) if type(v) is list else v) for k, v in pairs}
        return data  # the file's own header object

    return hook


_FIELDS: dict[type, tuple] = {}


def _init_fields(cls: type) -> tuple:
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(f for f in dataclasses.fields(cls) if f.init)
    return found


def to_bytes(key: str, derived: Derived) -> bytes:
    types = record_types()
    names = {cls: name for name, cls in types.items()}
    body = {"format": FORMAT, "version": VERSION, "key": key, "records": encode(derived, names)}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def from_bytes(data: bytes, key: str) -> Derived | None:
    """The records of a file's bytes when it is this format and version under ``key``; else None."""
    try:
        body = json.loads(data, object_hook=rebuild(record_types()))
        if not isinstance(body, dict) or body.get("format") != FORMAT or body.get("version") != VERSION \
                or body.get("key") != key:
            return None
        found = body.get("records")
    except (ValueError, TypeError, RecursionError):  # not JSON, not ours, or fields that do not fit: derive again
        return None
    return found if isinstance(found, Derived) else None


# -- the file beside the index, vouched for by the index manifest -----------------------------------
def _entry(folder: Path) -> dict | None:
    from index.caches import cache_entry

    return cache_entry(folder, CACHE_FILE)


def expected(corpus_dir: Path, key: str | None = None) -> dict:
    """What the manifest's entry must say for the records of ``corpus_dir`` under this code (all but
    the file's sha256)."""
    return {"key": key or source_key(corpus_dir), "lock": lock_stamp(corpus_dir), "code": code_hash(),
            "version": VERSION}


def vouched(entry: dict | None) -> bool:
    from index.caches import vouched as _vouched

    return _vouched(entry)


def load(folder: Path, key: str, want: dict | None = None) -> Derived | None:
    """The stored records when the index manifest vouches for the file beside it (its sha256, under
    this key, corpus lock and code) and it reads as this format; else None."""
    try:
        entry = _entry(folder)
        if entry is None or entry.get("key") != key:
            return None
        if want is not None and any(entry.get(name) != value for name, value in want.items()):
            return None
        if not vouched(entry):  # the manifest sits in the same folder: only the key outside it vouches
            return None
        data = (folder / CACHE_FILE).read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        return None  # changed since the manifest recorded it: forged or damaged
    return from_bytes(data, key)


def save(folder: Path, key: str, derived: Derived, want: dict | None = None) -> bool:
    """Write the records atomically beside the index and record their sha256 (with ``want``: the
    key, the corpus lock, the code) in its manifest; silently nothing where that cannot be done.
    True when written."""
    if not (folder / MANIFEST).is_file():
        return False
    from index.caches import secret, signed

    signing = secret()
    if signing is None:  # nothing could vouch for the file: not written, derived every time
        return False
    try:
        data = to_bytes(key, derived)
    except TypeError:  # a record type the format does not know: kept in memory only
        return False
    from index.caches import record_cache

    with contextlib.suppress(OSError):
        handle, temp = tempfile.mkstemp(dir=folder, prefix=f".{CACHE_FILE}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, folder / CACHE_FILE)
        finally:
            Path(temp).unlink(missing_ok=True)
        return record_cache(folder, CACHE_FILE, signed({**(want or {"key": key}), "key": key,
                                                         "sha256": hashlib.sha256(data).hexdigest()}, signing))
    return False


def remove_old(folder: Path) -> None:
    """Delete an older version's file (a pickle: never read)."""
    for name in OLD_FILES:
        with contextlib.suppress(OSError):
            (folder / name).unlink(missing_ok=True)


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
    remove_old(index_dir)
    key = source_key(corpus_dir)
    want = expected(corpus_dir, key)
    found = load(index_dir, key, want)
    if found is None:
        found = derive(corpus_dir)
        save(index_dir, key, found, want)
    return found
