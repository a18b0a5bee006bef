"""What a new ordinance changes, and adding it to the corpus.

``diff_document`` reads a new document with the same pipeline as the corpus and compares the
corpus with and without it: each code section it restates (or adds), each effective table cell
whose value would change (old -> new, with the source line), and each parcel it rezones. Nothing
is written. ``add_document`` copies the file into the corpus folder and appends a validated
manifest entry (written atomically); the search index notices the changed corpus and rebuilds,
reusing the vectors of unchanged chunks.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from .asof import check_date
from .manifest import KINDS, MANIFEST_NAME, default_corpus_dir, load_manifest
from .types import DocumentInfo, IngestError

NEW_ID = "new"
SUFFIXES = (".txt", ".pdf")
REZONING = re.compile(
    r"(?:APN\)?|Assessor\s+Parcel\s+Numbers?)\s*(?P<apn>\d{3}-\d{3}-\d{3})[^.]*?\brezoned\s+from\s+(?:the\s+)?"
    r"(?P<old_name>[^()]*?)\s*\((?P<old>[A-Z][A-Z-]*)\)[^.]*?\bto\s+(?:the\s+)?(?P<new_name>[^()]*?)\s*"
    r"\((?P<new>[A-Z][A-Z-]*)\)", re.I,
)


@dataclass(frozen=True)
class SectionChange:
    section: str
    title: str
    kind: str  # "restated" | "added" | "superseded" (a later document already restates it)
    previous: str = ""  # document id of the statement in force before
    previous_date: str = ""
    excerpt: bool = False


@dataclass(frozen=True)
class CellChange:
    section: str
    table: str
    category: str
    row: str
    column: str
    old: str | None  # None: no such cell before
    new: str | None
    kind: str  # "changed" | "added" | "restated" (same value) | "dropped" (a full restatement omits the row)
    #            | "unreadable" (the parser flags the new cell: it needs a reviewed reading before it can answer)
    old_document: str = ""
    source: str = ""  # the new document's row as printed
    line: int | None = None  # 1-based line of the new file where the row is printed
    review: bool = False  # the parser could not read the new cell: it needs a reviewed reading


@dataclass(frozen=True)
class Rezoning:
    apn: str
    old: str
    new: str
    text: str


@dataclass(frozen=True)
class Diff:
    document: DocumentInfo
    sections: tuple[SectionChange, ...]
    cells: tuple[CellChange, ...]
    rezonings: tuple[Rezoning, ...]
    errors: tuple[str, ...] = field(default_factory=tuple)

    @property
    def changed_cells(self) -> tuple[CellChange, ...]:
        return tuple(c for c in self.cells if c.kind in ("changed", "added", "dropped", "unreadable"))

    def to_json(self) -> dict:
        doc = self.document
        return {
            "document": {"id": doc.id, "file": Path(doc.path).name, "title": doc.title, "date": doc.date},
            "sections": [change.__dict__ for change in self.sections],
            "cells": [change.__dict__ for change in self.changed_cells],
            "restated_cells": sum(1 for c in self.cells if c.kind == "restated"),
            "rezonings": [change.__dict__ for change in self.rezonings],
        }


def new_document(path: str | Path, date: str, title: str = "", doc_id: str = NEW_ID,
                 kind: str = "ordinance") -> DocumentInfo:
    path = Path(path)
    date = check_date(date, "--date")
    if kind not in KINDS:
        raise ValueError(f"--kind {kind!r}: one of {', '.join(KINDS)}")
    return DocumentInfo(id=doc_id, path=str(path), title=title or path.stem, kind=kind, date=date)


def diff_document(path: str | Path, date: str, corpus_dir: str | Path | None = None, title: str = "",
                  kind: str = "ordinance", effective: str = "") -> Diff:
    """What adding ``path`` (dated ``date``) to the corpus would change, placed at the day it takes
    effect as ``ingest add`` would take it (``effective_date``). Raises IngestError when the file
    cannot be read, ValueError for a malformed date."""
    from . import ingest_documents
    from .readers import read_document
    from .tables import build_tables

    corpus = Path(corpus_dir) if corpus_dir else default_corpus_dir()
    documents = load_manifest(corpus)
    taken = {doc.id for doc in documents}
    doc_id = NEW_ID if NEW_ID not in taken else f"{NEW_ID}-{len(taken)}"
    document = new_document(path, date, title, doc_id, kind)
    text = "\n".join(page.text for page in read_document(str(path)))
    document = replace(document, date=effective_date(text, document.date, effective).date)
    before = ingest_documents(documents)
    after = ingest_documents(list(documents) + [document])
    failed = [e for e in after.errors if e.path == str(document.path)]
    if failed:
        raise failed[0]
    ours = [s for s in after.sections if s.document == document.id]
    sections = tuple(_section_changes(ours, before.sections, document))
    new_tables = build_tables(after.sections)
    lines = Path(path).read_text(encoding="utf-8", errors="replace").split("\n") if Path(path).suffix == ".txt" else []
    cells = cell_changes(new_tables.effective, document.id, lines)
    rezonings = tuple(_rezonings(ours))
    return Diff(document, sections, tuple(cells), rezonings)


def cell_changes(effective, document_id: str, lines: list[str] = ()) -> list[CellChange]:
    """Each effective cell ``document_id`` states (changed, added, restated, unreadable) or whose row
    its full restatement drops, against the statement in force before it (the history's last)."""
    cells: list[CellChange] = []
    for entry in effective:
        cell = entry.cell
        if cell.document == document_id:
            was = entry.history[-1] if entry.history else None
            if cell.review and not cell.reviewed:
                kind_ = "unreadable"
            elif was is None:
                kind_ = "added"
            elif was.value != cell.value:
                kind_ = "changed"
            else:
                kind_ = "restated"
            cells.append(CellChange(
                cell.section, cell.table, cell.category, cell.row, cell.column,
                was.value if was else None, cell.value, kind_, was.document if was else "",
                cell.source, _line_of(list(lines), cell.section, cell.row), cell.review and not cell.reviewed,
            ))
        elif document_id in entry.dropped_by and entry.dropped_by[-1] == document_id:
            cells.append(CellChange(cell.section, cell.table, cell.category, cell.row, cell.column,
                                    cell.value, cell.value, "dropped", cell.document))
    return cells


def loaded_document_diff(sections, document: DocumentInfo) -> Diff:
    """What a document already in the corpus changed when it came in: the same comparison as
    ``diff_document`` (its sections against the other documents', its cells against the statements
    in force before it), over the tables as they stood on its date, so a cell a later document
    changed again is still listed. ``sections``: the corpus's sections (every document)."""
    from .tables import build_tables

    ours = [s for s in sections if s.document == document.id]
    others = [s for s in sections if s.document != document.id]
    tables = build_tables(tuple(s for s in sections if s.date and s.date <= document.date))
    path = Path(document.path)
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n") if path.suffix == ".txt" and path.is_file() else []
    cells = cell_changes(tables.effective, document.id, lines)
    return Diff(document, tuple(_section_changes(ours, others, document)), tuple(cells), tuple(_rezonings(ours)))


def _section_changes(ours, existing, document: DocumentInfo):
    for section in ours:
        if section.kind != "code":
            continue
        statements = [s for s in existing if s.id == section.id]
        earlier = [s for s in statements if s.date <= document.date]
        later = [s for s in statements if s.date > document.date]
        if later:
            newest = max(later, key=lambda s: (s.date, s.document))
            yield SectionChange(section.id, section.title, "superseded", newest.document, newest.date, section.excerpt)
        elif earlier:
            newest = max(earlier, key=lambda s: (s.date, s.document))
            yield SectionChange(section.id, section.title, "restated", newest.document, newest.date, section.excerpt)
        else:
            yield SectionChange(section.id, section.title, "added", excerpt=section.excerpt)


def _rezonings(sections) -> list[Rezoning]:
    found: dict[tuple[str, str, str], Rezoning] = {}
    for section in sections:
        text = " ".join(section.text.split())
        for match in REZONING.finditer(text):
            item = Rezoning(match.group("apn"), match.group("old").upper(), match.group("new").upper(),
                            match.group(0))
            found.setdefault((item.apn, item.old, item.new), item)
    return list(found.values())


def _line_of(lines: list[str], section: str, label: str) -> int | None:
    """1-based line of the raw file where a row label (its first words) is printed, after the first
    line that names the row's section."""
    words = re.findall(r"[A-Za-z0-9.+]+", label)[:3]
    if not words:
        return None
    pattern = re.compile(r"(?<![A-Za-z0-9-])" + r"\W+".join(re.escape(w) for w in words) + r"(?![A-Za-z])", re.I)
    start = next((n for n, line in enumerate(lines) if section in line), 0)
    for number, line in enumerate(lines[start:], start=start + 1):
        if pattern.search(line):
            return number
    return None


def format_diff(diff: Diff) -> str:
    doc = diff.document
    out = [f"{Path(doc.path).name} dated {doc.date}: what it would change in the corpus", ""]
    out.append(f"Sections ({len(diff.sections)}):")
    for change in diff.sections:
        part = " (excerpt)" if change.excerpt else ""
        if change.kind == "added":
            out.append(f"  adds § {change.section}{part} {change.title}")
        elif change.kind == "restated":
            out.append(f"  restates § {change.section}{part} {change.title} (in force from {change.previous},"
                       f" {change.previous_date})")
        else:
            out.append(f"  § {change.section}{part} {change.title}: a later document ({change.previous},"
                       f" {change.previous_date}) already restates it; no effect")
    changed = diff.changed_cells
    out.append("")
    out.append(f"Table cells whose effective value would change ({len(changed)}; "
               f"{len(diff.cells) - len(changed)} restated unchanged):")
    for change in changed:
        where = f"§ {change.section} Table {change.table} | {change.row} | {change.column}"
        line = f" [line {change.line}]" if change.line else ""
        new = "unreadable (flagged for review)" if change.review else repr(change.new)
        if change.kind == "unreadable":
            was = f" (was {change.old!r}, {change.old_document})" if change.old_document else ""
            out.append(f"  {where}: unreadable, needs a reviewed reading{was}{line}")
        elif change.kind == "added":
            out.append(f"  {where}: new cell {new}{line}")
        elif change.kind == "dropped":
            out.append(f"  {where}: row no longer printed by a full restatement (stays {change.old!r})")
        else:
            out.append(f"  {where}: {change.old!r} ({change.old_document}) -> {new}{line}")
    if diff.rezonings:
        out.append("")
        out.append("Rezonings:")
        for item in diff.rezonings:
            out.append(f"  APN {item.apn}: {item.old} -> {item.new}")
    return "\n".join(out) + "\n"


# ---- the day a new document takes effect ----------------------------------------------------------

# "This ordinance shall take effect thirty (30) days after its adoption" (001 Section 19, 002 Section 25)
TAKES_EFFECT = re.compile(r"\btake[s]?\s+effect\s+(?P<words>[a-z-]+)?\s*(?:\((?P<digits>\d{1,3})\)\s*|(?P<bare>\d{1,3})\s+)?"
                          r"days\s+(?:after|following|from)\s+(?:its|the\s+date\s+of\s+its|the)\s+(?:final\s+)?"
                          r"(?:adoption|passage)", re.I)
_NUMBER_WORDS = {"ten": 10, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45, "sixty": 60,
                 "ninety": 90}
FAR_AHEAD_DAYS = 365  # a date further ahead than this is refused unless the document is added as pending


@dataclass(frozen=True)
class Effective:
    date: str  # the day it takes effect
    basis: str  # why: what the text says, or that it was given


def effective_date(text: str, date: str, effective: str = "") -> Effective:
    """The day a document dated ``date`` (its adoption) takes effect: ``effective`` when given, else
    ``date`` plus the days its text says it takes effect after adoption, else ``date``."""
    import datetime as _dt

    if effective:
        effective = check_date(effective, "--effective")
        if effective < date:
            raise ValueError(f"--effective {effective}: before its --date {date}")
        return Effective(effective, f"takes effect {effective}, as given to `python -m ingest add --effective` "
                                    f"(dated {date})")
    said = TAKES_EFFECT.search(" ".join((text or "").split()))
    days = None
    if said:
        days = int(said.group("digits") or said.group("bare") or 0) or _NUMBER_WORDS.get((said.group("words") or "").lower())
    if days:
        day = (_dt.date.fromisoformat(date) + _dt.timedelta(days=days)).isoformat()
        return Effective(day, f"takes effect {day}: adopted {date} (the date given to `python -m ingest add`); "
                              f"its text: \"take effect {days} days after its adoption\"")
    return Effective(date, f"takes effect {date}, the date given to `python -m ingest add` (its text states no "
                           "other effective date)")


def far_ahead(day: str, today: str) -> bool:
    import datetime as _dt

    return _dt.date.fromisoformat(day) > _dt.date.fromisoformat(today) + _dt.timedelta(days=FAR_AHEAD_DAYS)


# ---- one copy of each text ---------------------------------------------------------------------------

RESTATES_SHARE = 0.5  # more than half of a new document's sections and cells the same as one loaded document's


def normal_text(text: str) -> str:
    """A text as compared for sameness: NFKC, case folded, only its letters and digits (a PDF's line breaks,
    hyphens at line ends, dashes and spacing do not make another text)."""
    import unicodedata

    folded = unicodedata.normalize("NFKC", text or "").casefold()
    return "".join(ch for ch in folded if ch.isalnum())


@dataclass(frozen=True)
class Restatement:
    document: str  # the loaded document it restates
    same: int  # sections and cells the same
    total: int  # the new document's sections and cells


def restated(sections, new_id: str) -> Restatement | None:
    """The loaded document whose text the new one (``new_id``, read together with the corpus) restates:
    more than half of its code sections and table cells the same after normalisation; None otherwise."""
    from .tables.extract import extract_versions

    ours = [s for s in sections if s.document == new_id and s.kind == "code"]
    others = [s for s in sections if s.document != new_id and s.kind == "code"]
    versions, _ = extract_versions([s for s in sections if s.kind == "code"])
    our_cells = {(c.section, c.table, c.row, c.column, c.value) for v in versions if v.document == new_id
                 for c in v.cells}
    total = len(ours) + len(our_cells)
    if not total:
        return None
    best = None
    for document in sorted({s.document for s in others}):
        texts = {(s.id, normal_text(s.text)) for s in others if s.document == document}
        cells = {(c.section, c.table, c.row, c.column, c.value) for v in versions if v.document == document
                 for c in v.cells}
        same = sum(1 for s in ours if (s.id, normal_text(s.text)) in texts) + len(our_cells & cells)
        if same > RESTATES_SHARE * total and (best is None or same > best.same):
            best = Restatement(document, same, total)
    return best


# ---- adding a document to the corpus ------------------------------------------------------------

def add_document(path: str | Path, date: str, title: str, corpus_dir: str | Path | None = None,
                 kind: str = "ordinance", doc_id: str = "", short_title: str = "", status: str = "",
                 effective: str = "", pending: bool = False, replaces: str = "") -> dict:
    """Copy ``path`` into the corpus folder and append its manifest entry; returns the entry (its
    ``date`` is the day it takes effect: ``effective``, else ``date`` plus the days its text says it
    takes effect after adoption, else ``date``; ``date_basis`` says which).

    Refused with ValueError (one line) when: the date is malformed, the title is empty, the file is
    missing or not .txt/.pdf, the corpus already holds a file with the same content or name, the id
    is taken, it takes effect more than a year ahead and ``pending`` is not set, or it restates a
    loaded document (most of its sections and cells the same) that ``replaces`` does not name. The
    file must read with the ingest pipeline (IngestError otherwise)."""
    from .corpus_writes import writer

    source = Path(path)
    date = check_date(date, "--date")
    if effective:
        check_date(effective, "--effective")
    if not title.strip():
        raise ValueError("--title: empty")
    if kind not in KINDS:
        raise ValueError(f"--kind {kind!r}: one of {', '.join(KINDS)}")
    suffix = _source_type(source)
    corpus = Path(corpus_dir) if corpus_dir else default_corpus_dir()
    try:
        with writer(corpus):  # the whole read-modify-write: a second add waits, or is told another is running
            return _add(source, suffix, date, title, corpus, kind, doc_id, short_title, status, effective, pending,
                        replaces)
    except OSError as error:  # a read-only corpus folder, a full disk: one line, not a traceback
        raise IngestError(str(corpus), f"cannot write the corpus folder ({error.strerror or error}); "
                                       "add to a writable copy or ask its owner") from None


def _add(source: Path, suffix: str, date: str, title: str, corpus: Path, kind: str, doc_id: str,
         short_title: str, status: str, effective: str = "", pending: bool = False, replaces: str = "") -> dict:
    from . import ingest_documents
    from .asof import today
    from .corpus_writes import begin_add, copy_atomic, end_add, remove, write_atomic

    manifest_path = corpus / MANIFEST_NAME
    documents = load_manifest(corpus)
    digest = _sha256(source)
    for document in documents:
        existing = Path(document.path)
        if existing.is_file() and existing.stat().st_size == source.stat().st_size and _sha256(existing) == digest:
            raise ValueError(f"{source}: the corpus already holds this file as {document.id} ({existing.name})")
    ids = {document.id for document in documents}
    doc_id = doc_id or _next_id(ids)
    if doc_id in ids:
        raise ValueError(f"--id {doc_id!r}: the manifest already has that id")
    name = f"{date}_{_slug(title)}{suffix}"  # named by its content: a PDF is a .pdf whatever it was called
    target = corpus / name
    if target.exists():
        raise ValueError(f"{target}: a file of that name is already in the corpus")
    if replaces and replaces not in ids:
        raise ValueError(f"--replaces {replaces!r}: not in the manifest ({', '.join(sorted(ids))})")
    document = DocumentInfo(id=doc_id, path=str(source), title=title, kind=kind, date=date)
    result = ingest_documents([document])
    if result.errors:
        raise result.errors[0]
    when = effective_date("\n".join(s.text for s in result.sections), date, effective)
    now = today()
    if far_ahead(when.date, now) and not pending:
        raise ValueError(f"{source}: takes effect {when.date}, more than a year after today ({now}); check the year, "
                         "or add it with --pending if it is law that takes effect then")
    together = ingest_documents(list(documents) + [replace(document, date=when.date)])
    again = restated(together.sections, doc_id)
    if again is not None and again.document != replaces:
        label = next((d.short_title or d.title for d in documents if d.id == again.document), again.document)
        raise ValueError(f"{source}: restates document {again.document} ({label}): {again.same} of its {again.total} "
                         f"sections and table cells are the same text; add it with --replaces {again.document} "
                         "if it supersedes that document")
    waiting = when.date > now
    entry = {"id": doc_id, "file": name, "title": title, "short_title": short_title or title, "kind": kind,
             "date": when.date, "adopted": date if kind == "ordinance" else "", "date_basis": when.basis,
             "status": status or ("pending: added with `python -m ingest add`, takes effect " + when.date
                                  if waiting else "added with `python -m ingest add`"),
             "source": source.name, "sha256": digest}
    if replaces:
        entry["replaces"] = replaces
    before = manifest_path.read_bytes()
    data = json.loads(before.decode("utf-8"))
    data["documents"].append(entry)
    # A kill from here on leaves the journal: every entry point names the unfinished add in one line,
    # and the next writer undoes it. Each write is fsynced (file, then folder) before the next.
    begin_add(corpus, doc_id, name, source.name)
    try:
        copy_atomic(source, target)
        write_atomic(manifest_path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        _verify_added(corpus, doc_id)  # the new manifest reads back and the copy verifies as every entry point will
    except BaseException:
        write_atomic(manifest_path, before.decode("utf-8"))
        remove(target)
        end_add(corpus)
        raise
    end_add(corpus)
    return entry


def _source_type(source: Path) -> str:
    """The suffix a document to add is stored under, by its content ('.pdf' for a file that starts
    %PDF-, whatever its name; else '.txt'); ValueError (one line) for a folder, a missing file, a
    device, FIFO or link to one (never opened: it could hang), or a file too large to be a document."""
    import stat

    from .readers import PDF_MAGIC, PdfLimits, _head

    if source.is_dir():
        raise ValueError(f"{source}: is a folder, not a document; name the .txt or .pdf file")
    try:
        info = source.stat()
    except OSError:
        raise ValueError(f"{source}: no such file") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{source}: not a regular file (a device, FIFO or link to one); name the document itself")
    if source.suffix.lower() not in SUFFIXES:
        raise ValueError(f"{source}: not a .txt or .pdf file")
    is_pdf = _head(source).startswith(PDF_MAGIC)
    cap = PdfLimits.max_bytes if is_pdf else 4 * PdfLimits.max_chars + 3
    if info.st_size > cap:
        raise ValueError(f"{source}: {info.st_size:,} bytes is larger than a document may be ({cap:,} bytes)")
    if source.suffix.lower() == ".pdf" and not is_pdf:
        raise ValueError(f"{source}: named .pdf but is not a PDF (no %PDF- header)")
    return ".pdf" if is_pdf else ".txt"


def _verify_added(corpus: Path, doc_id: str) -> None:
    """The added document passes the check every entry point makes; else its IngestError."""
    from .integrity import _check
    from .lock import record_added

    document = next(d for d in load_manifest(corpus) if d.id == doc_id)
    error = _check(document)
    if error is not None:
        raise error
    record_added(corpus, document)


def _sha256(path: Path) -> str:
    with open(path, "rb") as handle:  # streamed: a large file is never held in memory
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _next_id(ids: set[str]) -> str:
    numbers = [int(i) for i in ids if i.isdigit()]
    return f"{(max(numbers) + 1) if numbers else 0:03d}"


def _slug(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return slug[:60].rstrip("-") or "document"
