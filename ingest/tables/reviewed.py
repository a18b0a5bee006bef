"""Reviewed readings: cells the parser flags, read by a person from the printed table.

The data file (``ingest/tables/data/reviewed.json``) holds one entry per printed row: the values
read per column, the source lines they were read from and a note saying how. A reading only
ever fills a cell the parser flagged for review (``Cell.review``); a cell the parser reads is
never overridden, so a reading cannot hide a parser regression (the tests check that every
reading still meets a flagged cell).

A value of ``""`` is a cell the print leaves blank; ``null`` is a cell the print cannot tell
(the answer then names ``refer``, the section to read, instead of guessing).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from .text import footnotes_for, quantities
from .types import Cell, Reading, SourceLine, TableError, TableVersion

READINGS_FILE = Path(__file__).resolve().parent / "data" / "reviewed.json"
TRAILING_NOTE = re.compile(r"\((\d+(?:,\d+)*)\)$")
REQUIRED = ("table", "section", "document", "row", "values", "note", "source")
BASES = ("confirmed", "inferred")


@dataclass(frozen=True)
class _Key:
    section: str
    table: str
    document: str
    category: str
    row: str
    column: str


def _key(section: str, table: str, document: str, category: str, row: str, column: str) -> _Key:
    from .amendments import label_key  # one notion of "same row" for amendments and readings

    return _Key(section, table, document, label_key(category), label_key(row), column)


@lru_cache(maxsize=4)
def load_readings(path: Path = READINGS_FILE) -> tuple[Reading, ...]:
    """Every reading of the data file, one per cell."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise TableError(str(path), f"cannot read reviewed readings: {error}") from None
    entries = data.get("readings") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise TableError(str(path), "no 'readings' list")
    out: list[Reading] = []
    for number, entry in enumerate(entries, start=1):
        out.extend(_entry(entry, f"{path} reading {number}"))
    return tuple(out)


def _entry(entry: object, where: str) -> list[Reading]:
    if not isinstance(entry, dict):
        raise TableError(where, "a reading is not an object")
    missing = [name for name in REQUIRED if name not in entry]
    if missing:
        raise TableError(where, f"lacks {', '.join(missing)}")
    basis = entry.get("basis", "confirmed")
    if basis not in BASES:
        raise TableError(where, f"basis {basis!r} is not one of {', '.join(BASES)}")
    try:
        source = tuple(SourceLine(str(s["file"]), int(s["line"]), str(s["text"])) for s in entry["source"])
    except (KeyError, TypeError, ValueError):
        raise TableError(where, "each source needs file, line and text") from None
    if not source:
        raise TableError(where, "no source line")
    notes = entry.get("column_notes", {})
    out: list[Reading] = []
    for column, printed in entry["values"].items():
        if printed is None:
            status, value, numbers = "unreadable", None, ()
        elif not isinstance(printed, str):
            raise TableError(where, f"value of {column!r} is not text or null")
        elif not printed.strip():
            status, value, numbers = "blank", None, ()
        else:
            status = "read"
            match = TRAILING_NOTE.search(printed)
            numbers = tuple(match.group(1).split(",")) if match else ()
            value = printed[: match.start()].strip() if match else printed.strip()
        note = entry["note"] + (f" {notes[column]}" if column in notes else "")
        out.append(Reading(
            table=entry["table"], section=entry["section"], document=entry["document"],
            category=entry.get("category", ""), row=entry["row"], column=column, value=value,
            status=status, footnotes=numbers, note=note, basis=basis,
            refer=entry.get("refer", entry["section"]), source=source,
        ))
    return out


def index_readings(readings: Iterable[Reading]) -> dict[_Key, Reading]:
    out: dict[_Key, Reading] = {}
    for reading in readings:
        key = _key(reading.section, reading.table, reading.document, reading.category, reading.row, reading.column)
        if key in out:
            raise TableError(str(READINGS_FILE), f"two readings for {reading.table} {reading.row!r} {reading.column}")
        out[key] = reading
    return out


def apply_readings(versions: Iterable[TableVersion], readings: Iterable[Reading] | None = None) -> list[TableVersion]:
    """The versions with each flagged cell that has a reading filled from it; nothing else changes."""
    index = index_readings(load_readings() if readings is None else readings)
    out: list[TableVersion] = []
    for version in versions:
        notes = {note.number: note.text for note in version.notes}
        cells = tuple(
            _read(cell, index.get(_key(cell.section, cell.table, cell.document, cell.category, cell.row, cell.column)),
                  notes)
            if cell.review else cell
            for cell in version.cells
        )
        out.append(replace(version, cells=cells) if cells != version.cells else version)
    return out


def _read(cell: Cell, reading: Reading | None, notes: dict[str, str]) -> Cell:
    if reading is None:
        return cell
    own = footnotes_for(reading.footnotes, notes, "cell")
    inherited = tuple(note for note in cell.footnotes if note.scope != "cell")  # row, category, column notes
    standard = cell.kind == "standard" and reading.value is not None
    return replace(
        cell, value=reading.value, footnotes=own + inherited, reading=reading,
        quantities=quantities(reading.value) if standard else cell.quantities,
    )


def reading_words(cell: Cell) -> str:
    """A reviewed cell without a value, in words: blank in print, or not told by the print."""
    reading = cell.reading
    if reading is None or reading.value is not None:
        return ""
    if reading.status == "blank":
        return f"left blank in the printed table (see § {reading.refer})"
    return f"not printed legibly: the table cannot tell; read § {reading.refer}"


REVIEWED_LINE = "Read from the printed table by a reviewer (the parser could not); see note."


def reviewed_line(cells: Iterable[Cell]) -> str:
    """The one short line an answer built on reviewed cells carries ('' when none is reviewed)."""
    return REVIEWED_LINE if any(cell.reading is not None for cell in cells) else ""
