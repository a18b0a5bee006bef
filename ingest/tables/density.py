"""Parcel size and density standards of 17.24.020 (printed as "Table 2-4", keyed by its section).

Rows start at a zoning district symbol (optionally with a suffix, "RR-1.5"); several rows are
often glued on one line. A row's text is cut into measurements (area, width, density) and
phrases; a phrase in place of a column group ("Determined through subdivision review") stands
for every column of that group, as the printed table merges those cells. A row whose pieces do
not fit the column groups is flagged for review with its text.
"""

from __future__ import annotations

import re

from .segment import TableBlock
from .text import footnotes_for, parse_notes, quantities, squash
from .types import Cell, Footnote, TableError, TableVersion
from .vocab import vocabulary

FOOTNOTE = r"(?:\(\d+\))?"


def parse(block: TableBlock, spec: dict, section) -> TableVersion:
    where = f"{section.id} Table {block.number} ({section.document})"
    text = "\n".join(block.lines)
    header = re.search(spec["header"], text, flags=re.I)
    if not header:
        raise TableError(where, "column header not found")
    notes_at = re.search(r"^Notes:", text, flags=re.M)
    body = text[header.end(): notes_at.start() if notes_at else len(text)]
    notes = parse_notes(text[notes_at.end():] if notes_at else "")
    symbol = vocabulary().symbol_pattern
    starts = list(re.finditer(rf"(?<![A-Za-z-])(?:{symbol})(?:-\d+(?:\.\d+)?)?(?![A-Za-z])", body))
    if not starts:
        raise TableError(where, "no district rows")
    lead = squash(body[: starts[0].start()])
    columns = tuple(spec["columns"])
    groups = [tuple(group) for group in spec["groups"]]
    measures = [re.compile(pattern) for pattern in spec["measures"]]
    cells: list[Cell] = []
    for index, start in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(body)
        row_text = squash(body[start.end(): end])
        pieces = _pieces(row_text, measures)
        assigned = _assign(pieces, groups)
        common = dict(
            table=spec["table"], section=section.id, category="", row=start.group(0),
            document=section.document, date=section.date, kind="standard", source=row_text,
            ordinance_section=getattr(section, "ordinance_section", ""),
        )
        column_notes = spec.get("column_footnotes", {})
        for column in columns:
            extra = footnotes_for(tuple(column_notes.get(column, ())), notes, "column")
            if assigned is None:
                cells.append(Cell(column=column, value=None, review=True, raw=row_text, footnotes=extra,
                                  review_reason="row text does not fit the column groups", **common))
                continue
            piece, spans = assigned[column]
            numbers = tuple(re.findall(r"\((\d+)\)", piece))
            value = squash(re.sub(r"\(\d+\)", "", piece))
            cells.append(Cell(
                column=column, value=value, raw=piece, quantities=quantities(value),
                footnotes=footnotes_for(numbers, notes, "cell") + extra,
                note=f"merged cell printed once across {', '.join(spans)}" if len(spans) > 1 else "",
                **common,
            ))
    return TableVersion(
        table=spec["table"], section=section.id, title=block.title, document=section.document,
        date=section.date, columns=columns, cells=tuple(cells),
        notes=tuple(Footnote(n, t, "table") for n, t in notes.items()),
        unparsed=(lead,) if lead else (),
    )


def _pieces(text: str, measures: list[re.Pattern]) -> list[tuple[str, str]]:
    """("measure", text) and ("phrase", text) pieces in order. Phrases split where a capital or a
    digit follows a lower-case word: the next merged cell begins ("... review No residential ...")."""
    combined = re.compile("|".join(f"(?:{m.pattern})" for m in measures))
    out: list[tuple[str, str]] = []
    position = 0
    for match in combined.finditer(text):
        out.extend(_phrases(text[position: match.start()]))
        out.append(("measure", match.group(0).strip()))
        position = match.end()
    out.extend(_phrases(text[position:]))
    return out


def _phrases(text: str) -> list[tuple[str, str]]:
    text = text.strip()
    if not text:
        return []
    parts = re.split(r"(?<=[a-z])\s+(?=[A-Z0-9])", text)
    return [("phrase", part.strip()) for part in parts if part.strip()]


def _assign(pieces: list[tuple[str, str]], groups: list[tuple[str, ...]]) -> dict | None:
    """column -> (text, columns it spans); None when the pieces do not fit the groups exactly."""
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    position = 0
    for group in groups:
        if position >= len(pieces):
            return None
        kind, text = pieces[position]
        if kind == "phrase":
            for column in group:
                out[column] = (text, group)
            position += 1
            continue
        taken = pieces[position: position + len(group)]
        if len(taken) < len(group) or any(kind != "measure" for kind, _ in taken):
            return None
        for column, (_, text) in zip(group, taken):
            out[column] = (text, (column,))
        position += len(group)
    return out if position == len(pieces) else None
