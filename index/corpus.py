"""Where an index's input comes from by default, and a cheap fingerprint of that input.

The default input is ``ingest.load_corpus()``. Table rows from ``ingest.tables`` are not wired in
here yet: the integration point is ``default_corpus`` (return them in ``CorpusInput.table_rows``).

Checking freshness at start-up must not re-run ingestion, so the manifest also records a
fingerprint of what ingestion reads: the corpus folder's files and the ``ingest`` package's code
and data. If either changes, the index is rebuilt (re-using stored vectors for unchanged chunks).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable, Iterable, Union

from .chunks import as_table_row
from .types import CorpusInput, IndexBuildError, TableRowText

CorpusLike = Union[CorpusInput, Callable[[], CorpusInput], Iterable[Any]]


def default_corpus() -> CorpusInput:
    """Sections of the configured corpus (``COTATI_CORPUS_DIR`` or the bundled one)."""
    from ingest import load_corpus

    result = load_corpus()
    if not result.sections:
        reasons = "; ".join(str(e) for e in result.errors) or "no sections found"
        raise IndexBuildError(f"corpus has nothing to index: {reasons}")
    return CorpusInput(sections=tuple(result.sections), table_rows=())


def table_rows_from_cells(cells: Iterable[Any]) -> tuple[TableRowText, ...]:
    """Table rows as text from parsed cells, duck-typed on ``ingest.tables`` records: a Cell or an
    EffectiveCell (anything with ``.cell``) with ``table``, ``section``, ``row``, ``column``,
    ``value``, ``document``, ``date`` and optionally ``category`` and ``regulation``.

    One row per (section, table, row label), cells in input order: "Retail Trade - Bar, tavern:
    HC UP; LP UP; NG MUP. Regulations 17.42.030". An effective row is credited to the newest
    document among its cells (the one a reader must cite for the row as it stands).
    """
    groups: dict[tuple[str, str, str, str], list[Any]] = {}
    for item in cells:
        cell = getattr(item, "cell", item)
        key = (cell.section, cell.table, getattr(cell, "category", "") or "", cell.row)
        groups.setdefault(key, []).append(cell)
    rows = []
    for (section, table, category, label), group in groups.items():
        newest = max(group, key=lambda c: (c.date or "", c.document))
        values = "; ".join(f"{c.column} {c.value if c.value is not None else '?'}" for c in group)
        regulation = next((c.regulation for c in group if getattr(c, "regulation", "")), "")
        text = f"{category} - {label}: {values}." if category else f"{label}: {values}."
        if regulation:
            text += f" Regulations {regulation}"
        rows.append(
            TableRowText(
                section=section, document=newest.document, text=text,
                table=str(table).split()[0], date=newest.date,
            )
        )
    return tuple(rows)


def as_corpus(corpus: CorpusLike) -> CorpusInput:
    """Accept a CorpusInput, a zero-argument callable returning one, an ``IngestResult``
    (anything with ``.sections``) or a plain iterable of sections."""
    if isinstance(corpus, CorpusInput):
        return corpus
    if callable(corpus):
        return as_corpus(corpus())
    if hasattr(corpus, "sections"):
        rows = getattr(corpus, "table_rows", ())
        return CorpusInput(sections=tuple(corpus.sections), table_rows=tuple(rows))
    return CorpusInput(sections=tuple(corpus))


def _hash_tree(h: "hashlib._Hash", root: Path, patterns: tuple[str, ...]) -> None:
    for pattern in patterns:
        for f in sorted(root.rglob(pattern)):
            if f.is_file() and "__pycache__" not in f.parts:
                h.update(f.relative_to(root).as_posix().encode())
                h.update(f.read_bytes())


def source_fingerprint() -> str:
    """Hash of the default corpus folder's files and the ingest package (code + data)."""
    import ingest
    from ingest.manifest import default_corpus_dir

    h = hashlib.sha256()
    corpus_dir = Path(default_corpus_dir())
    # the files, not where they are: a clone elsewhere (and the shipped prebuilt index) has the same
    if corpus_dir.is_dir():
        _hash_tree(h, corpus_dir, ("*",))
    _hash_tree(h, Path(ingest.__file__).resolve().parent, ("*.py", "*.json", "*.txt"))
    return h.hexdigest()[:16]


def corpus_hash(corpus: CorpusInput) -> str:
    """Content hash of the sections and table rows an index is built from."""
    h = hashlib.sha256()
    for s in corpus.sections:
        for value in (
            s.id, s.title, getattr(s, "chapter", ""), s.document, getattr(s, "date", ""), s.text,
            ",".join(str(p) for p in getattr(s, "pages", ())), str(getattr(s, "excerpt", False)),
            getattr(s, "ordinance_section", ""), getattr(s, "kind", ""),
        ):
            h.update(str(value).encode("utf-8", "surrogatepass"))
            h.update(b"\x1f")
        h.update(b"\x1e")
    for r in corpus.table_rows:
        r = as_table_row(r)
        for value in (r.section, r.document, r.text, r.table, r.title, r.date, ",".join(map(str, r.pages))):
            h.update(str(value).encode("utf-8", "surrogatepass"))
            h.update(b"\x1f")
        h.update(b"\x1d")
    return h.hexdigest()[:16]
