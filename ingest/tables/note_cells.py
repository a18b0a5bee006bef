"""Table notes that exclude districts, as cells of their table.

The cannabis table prints only some districts' columns for its commercial uses; its notes say
where those uses are not allowed ("(1) Commercial cannabis uses are not allowed in any residential
zones."). A note becomes cells only when it states the exclusion plainly:
- the whole note is one statement "<uses> are not allowed in|within <places>." (the pattern is
  data: ``ingest/data/tables_note_exclusions.json``);
- its marker is printed on a heading, and the note's uses are that heading's words
  ("Commercial cannabis uses" on "COMMERCIAL CANNABIS USES, ..."): the rows under the heading are
  the rows the note speaks about;
- every place it names is known: the table's own part of that kind ("residential zones": the
  district columns of the Residential part) or districts the data file lists with the passages
  that fix them ("Downtown Specific Plan": HC LP NG CA, Table 2-1).
Each derived cell is "-" (not allowed), carries the note as its footnote and as ``from_note``, and
is never put over a printed cell. What is not read is returned with the reason (``LeftOut``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from .text import letters_key, squash
from .types import Cell, Footnote, TableError
from .vocab import DATA_DIR

EXCLUSIONS_FILE = DATA_DIR / "tables_note_exclusions.json"


@dataclass(frozen=True)
class Part:
    """One part of a table: its kind ("Residential"), its printed district columns, and the
    footnote numbers printed on each of its headings."""

    kind: str
    columns: tuple[str, ...]
    heading_notes: tuple[tuple[str, tuple[str, ...]], ...]  # (heading, note numbers)


@dataclass(frozen=True)
class Row:
    """A printed row under a heading: the cells it prints (its columns) and its identity."""

    heading: str  # the heading the note's marker may sit on
    category: str
    label: str
    printed: dict  # column -> printed value


@dataclass(frozen=True)
class LeftOut:
    """A note, or one district of a note, that gives no cell, and why."""

    note: str  # "(3)"
    district: str  # "" when the whole note is left out
    reason: str


@lru_cache(maxsize=1)
def exclusions() -> dict:
    try:
        return json.loads(EXCLUSIONS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise TableError(str(EXCLUSIONS_FILE), f"cannot read note exclusions: {error}") from error


def places_of(text: str) -> tuple[str, list[str]] | None:
    """(uses, places) of a note that says "<uses> are not allowed in <places>.", else None."""
    data = exclusions()
    match = re.match(data["statement"], squash(text), flags=re.I)
    if not match:
        return None
    places = []
    for piece in re.split(data["place_separators"], match.group("places"), flags=re.I):
        previous = None
        while piece != previous:
            previous, piece = piece, re.sub(data["place_filler"], "", piece.strip(), flags=re.I)
        if piece:
            places.append(piece)
    return match.group("uses"), places


def excluded_districts(note: str, text: str, parts: list[Part]) -> tuple[list[tuple[str, str]], list[LeftOut]]:
    """(district, basis) pairs the note excludes, and what it leaves out."""
    read = places_of(text)
    if read is None:
        return [], [LeftOut(note, "", "not a plain statement '<uses> are not allowed in <places>'")]
    known = {key.lower(): value for key, value in exclusions()["places"].items()}
    found: list[tuple[str, str]] = []
    left: list[LeftOut] = []
    for place in read[1]:
        entry = known.get(place.lower())
        if entry is None:
            return [], [LeftOut(note, "", f"place not known: {place!r}")]
        if "part" in entry:
            kinds = [p for p in parts if p.kind.lower() == entry["part"].lower()]
            if not kinds:
                return [], [LeftOut(note, "", f"the table prints no {entry['part']} part")]
            districts = [c for p in kinds for c in p.columns]
        else:
            districts = list(entry["districts"])
        found.extend((d, entry["basis"]) for d in districts if d not in [f[0] for f in found])
        left.extend(LeftOut(note, item["district"], item["reason"]) for item in exclusions()["left_out"]
                    if item["place"].lower() == place.lower())
    return found, left


def _uses_match(uses: str, heading: str) -> bool:
    """The note's uses are the heading's words ("Commercial cannabis uses" in "COMMERCIAL CANNABIS USES, ...")."""
    return letters_key(heading).startswith(letters_key(uses))


def note_cells(parts: list[Part], rows: list[Row], notes: dict[str, str], common: dict,
               lines_of=lambda number: (0, 0)) -> tuple[list[Cell], list[LeftOut]]:
    """Cells the table's notes state by excluding districts, and what was left out.

    ``common`` holds the fields every cell of the table shares (table, section, document, date,
    ordinance_section); ``lines_of(number)`` gives the note's (first, last) source line.
    """
    cells: list[Cell] = []
    left: list[LeftOut] = []
    taken: set[tuple[str, str, str]] = set()
    for part in parts:
        for heading, numbers in part.heading_notes:
            for number in numbers:
                text = notes.get(number, "")
                marker = f"({number})"
                districts, out = excluded_districts(marker, text, parts)
                if districts and not _uses_match(places_of(text)[0], heading):
                    uses = places_of(text)[0]
                    districts, out = [], [LeftOut(marker, "", f"its uses {uses!r} are not the heading {heading!r} it is printed on")]
                left.extend(out)
                if not districts:
                    continue
                for row in (r for r in rows if r.heading == heading):
                    for district, basis in districts:
                        printed = row.printed.get(district)
                        if printed is not None:
                            if printed != "-":
                                left.append(LeftOut(marker, district, f"{row.category} / {row.label} prints {printed!r} there"))
                            continue
                        if (row.category, row.label, district) in taken:
                            continue
                        taken.add((row.category, row.label, district))
                        cells.append(_cell(row, district, number, text, basis, common, lines_of(number)))
    return cells, _unique(left)


def _cell(row: Row, district: str, number: str, text: str, basis: str, common: dict, lines: tuple[int, int]) -> Cell:
    return Cell(
        category=row.category, row=row.label, column=district, value="-", raw=text,
        source=f"({number}) {text}", footnotes=(Footnote(number, text, "category"),), kind="permit",
        note=f"not printed; from note ({number}): {basis}", from_note=f"({number})", note_lines=lines, **common,
    )


def _unique(items: list[LeftOut]) -> list[LeftOut]:
    return list(dict.fromkeys(items))
