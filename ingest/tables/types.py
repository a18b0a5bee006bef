"""Typed records of the table stage: parsed cells of one document, and effective cells after amendments."""

from __future__ import annotations

from dataclasses import dataclass, field


class TableError(Exception):
    """A table could not be located or its layout is not the one its parser expects.

    The message names the input (section, document, table) and the reason.
    """

    def __init__(self, where: str, reason: str):
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


@dataclass(frozen=True)
class Footnote:
    """A numbered note (or the "*" interim note) that conditions a cell.

    ``scope`` says where the marker was printed: on the cell itself, on the row label,
    or on the category heading the row sits under.
    """

    number: str  # "2", "*"
    text: str  # "" when the table's notes do not carry that number
    scope: str = "cell"  # "cell" | "row" | "category"


@dataclass(frozen=True)
class Quantity:
    """A number and its unit read from a standards cell ("45 ft." -> 45.0, "ft")."""

    value: float
    unit: str
    text: str  # the matched text


@dataclass(frozen=True)
class SourceLine:
    """A line of a corpus file a reading was made from (1-based, as ``sed -n 'Np'`` counts)."""

    file: str
    line: int
    text: str  # occurs verbatim on that line


@dataclass(frozen=True)
class Reading:
    """A person's reading of one cell the parser flagged (``ingest/tables/data/reviewed.json``)."""

    table: str
    section: str
    document: str
    category: str
    row: str
    column: str
    value: str | None  # None: blank in print, or the print cannot tell (see ``status``)
    status: str  # "read" | "blank" | "unreadable"
    footnotes: tuple[str, ...]  # footnote numbers printed on the cell
    note: str  # how the reading was made
    basis: str  # "confirmed" (the print or another passage fixes it) | "inferred" (the table's pattern)
    refer: str  # the section to read where the print does not tell
    source: tuple[SourceLine, ...]

    def to_json(self) -> dict:
        return {
            "status": self.status, "basis": self.basis, "note": self.note, "refer": self.refer,
            "source": [{"file": s.file, "line": s.line, "text": s.text} for s in self.source],
        }


@dataclass(frozen=True)
class Cell:
    """One cell of one table as one document states it."""

    table: str  # "2-4", "2-2 cannabis"; always read together with ``section``
    section: str  # "17.22.020"
    category: str  # heading the row sits under ("Retail Trade"), "" if none
    row: str  # row label, one dash style, footnote markers removed
    column: str  # district symbol or column heading
    value: str | None  # None when the cell could not be read (see ``review``)
    document: str
    date: str
    footnotes: tuple[Footnote, ...] = ()
    interim: bool = False  # "*": allowed only as an interim use in existing structures
    regulation: str = ""  # specific-use regulation reference of the row ("17.42.170")
    quantities: tuple[Quantity, ...] = ()
    review: bool = False
    review_reason: str = ""
    raw: str = ""  # the text the value was read from
    source: str = ""  # the row's text as printed (joined lines)
    kind: str = "permit"  # "permit" | "standard"
    ordinance_section: str = ""
    note: str = ""  # how a damaged print was read (merged cell, row continued after a header)
    reading: Reading | None = None  # a reviewed reading filled this flagged cell
    from_note: str = ""  # "(1)": not printed; the table's note of that number states it (note_cells.py)
    note_lines: tuple[int, int] = (0, 0)  # that note's first and last source line (0: not known)

    @property
    def reviewed(self) -> bool:
        """Flagged by the parser and read by a person (see ``reading``)."""
        return self.reading is not None

    @property
    def answered(self) -> bool:
        """Read by the parser, or flagged and carrying a reviewed reading."""
        return not self.review or self.reading is not None


@dataclass(frozen=True)
class TableVersion:
    """Every cell one document states for one table, plus what the parser could not place."""

    table: str
    section: str
    title: str
    document: str
    date: str
    columns: tuple[str, ...]
    cells: tuple[Cell, ...]
    partial: bool = False  # an excerpt amends some rows only; absent rows are not dropped
    notes: tuple[Footnote, ...] = ()
    unparsed: tuple[str, ...] = ()  # text inside the table that no row claimed
    # Cells the table does not print but its notes state ("not allowed in any residential zones"):
    # kept apart from ``cells`` (what is printed); amendments apply to both (note_cells.py).
    derived: tuple[Cell, ...] = ()
    notes_left_out: tuple[str, ...] = ()  # "(3) TOC: reason": a note's exclusion not made a cell

    @property
    def rows(self) -> list[tuple[str, str]]:
        """(category, row) in printed order, each once."""
        seen: dict[tuple[str, str], None] = {}
        for cell in self.cells:
            seen.setdefault((cell.category, cell.row), None)
        return list(seen)


@dataclass(frozen=True)
class HistoryEntry:
    """An earlier (or the same) statement of a cell by one document."""

    value: str | None
    document: str
    date: str
    footnotes: tuple[Footnote, ...] = ()
    interim: bool = False
    review: bool = False
    reviewed: bool = False


@dataclass(frozen=True)
class EffectiveCell:
    """The cell as the latest-dated document states it, with every earlier statement."""

    cell: Cell
    history: tuple[HistoryEntry, ...] = ()  # earlier documents, oldest first
    restated: bool = True  # False: a later full restatement of the table dropped this row
    dropped_by: tuple[str, ...] = ()  # documents whose restatement omitted the row

    def to_json(self) -> dict:
        cell = self.cell
        return {
            "table": cell.table,
            "section": cell.section,
            "category": cell.category,
            "row": cell.row,
            "column": cell.column,
            "value": cell.value,
            "footnotes": [_footnote_json(note) for note in cell.footnotes],
            "interim": cell.interim,
            "regulation": cell.regulation,
            "quantities": [{"value": q.value, "unit": q.unit, "text": q.text} for q in cell.quantities],
            "document": cell.document,
            "date": cell.date,
            "ordinance_section": cell.ordinance_section,
            "history": [
                {
                    "value": entry.value,
                    "document": entry.document,
                    "date": entry.date,
                    "footnotes": [_footnote_json(note) for note in entry.footnotes],
                    "interim": entry.interim,
                    "review": entry.review,
                    "reviewed": entry.reviewed,
                }
                for entry in self.history
            ],
            "restated": self.restated,
            "dropped_by": list(self.dropped_by),
            "review": cell.review,
            "review_reason": cell.review_reason,
            "raw": cell.raw,
            "note": cell.note,
            "kind": cell.kind,
            "reviewed": cell.reviewed,
            "reading": cell.reading.to_json() if cell.reading else None,
            "districts": list(self.districts),
            "from_note": cell.from_note or None,
            "from_note_source": _note_source(cell),
        }

    @property
    def districts(self) -> tuple[str, ...]:
        """The zoning districts this cell speaks about, whichever way the table is turned: a
        district column (permit tables), a district row (17.24.020, Table 2-1), or a table that
        holds one district's standards (Tables 2-17, 2-18)."""
        from .districts_of import districts_of

        return districts_of(self.cell)


def _note_source(cell: Cell) -> dict | None:
    """Where a cell derived from a note comes from: the note's text, document, date and lines."""
    if not cell.from_note:
        return None
    return {"note": cell.from_note, "text": cell.raw, "document": cell.document, "date": cell.date,
            "lines": list(cell.note_lines), "basis": cell.note.partition(": ")[2] or cell.note}


def _footnote_json(note: Footnote) -> dict:
    return {"number": note.number, "text": note.text, "scope": note.scope}


@dataclass(frozen=True)
class TableSet:
    """All table versions found, and the effective cells after applying amendments in date order."""

    versions: tuple[TableVersion, ...]
    effective: tuple[EffectiveCell, ...]
    errors: tuple[TableError, ...] = field(default_factory=tuple)
    as_of: str = ""  # ISO date the effective cells stand on; "" = every document of the corpus
