"""Standards tables whose cells are free text (2-17, 2-18, 3-2, 3-7, 3-8, 3-9).

Their rows cannot be split by token shape: labels and values are both prose, glued on one line
("Side - Interior (each) 10 ft. ... Side - Street side 0-10 ft."). The layout spec lists each
row's label (and category) in printed order; the parser finds those labels in the text, and a
cell is the text between its label and the next label or heading. The values are always read
from the text; a label the text does not print, a value that does not look like one, or text no
row claims, is flagged for review.
"""

from __future__ import annotations

import re

from .labelled import BREAK, compact, find_label, rejoin_across_breaks
from .segment import TableBlock
from .text import footnotes_for, normalise_label, parse_notes, quantities, squash
from .types import Cell, Footnote, TableError, TableVersion

CELL_FOOTNOTE = re.compile(r"(?<=\S)\((\d+)\)")


def parse(block: TableBlock, spec: dict, section) -> TableVersion:
    where = f"{section.id} Table {block.number} ({section.document})"
    text, notes_text = _body(block, spec)
    for pattern in spec.get("header", []):
        text = re.sub(pattern, "\n" + BREAK + "\n", text, flags=re.I)
    rows = [(row[0], row[1]) for row in spec["rows"]]
    text, repairs = rejoin_across_breaks(text, [label for _, label in rows])
    notes = parse_notes(notes_text)
    packed = compact(text)
    headings = []
    for heading in spec.get("headings", []):
        found = [m.start() for m in re.finditer(heading, text, flags=re.M | re.I)]
        if not found:
            raise TableError(where, f"heading {heading!r} not found")
        headings.extend(found)
    # a heading runs to the end of its line; a label's words inside it are not the label
    heading_spans = [(start, _line_end(text, start)) for start in headings]
    spans: list[tuple[int, int] | None] = []
    position = 0
    for _, label in rows:
        span = find_label(text, packed, label, position)
        while span and any(start <= span[0] < end for start, end in heading_spans):
            span = find_label(text, packed, label, span[0] + 1)
        spans.append(span)
        if span:
            position = span[1]
    columns = tuple(spec["columns"])
    cells: list[Cell] = []
    claimed: list[tuple[int, int]] = []
    for index, ((category, label), span) in enumerate(zip(rows, spans)):
        common = dict(
            table=spec["table"], section=section.id, category=category, row=normalise_label(label),
            document=section.document, date=section.date, kind="standard",
            ordinance_section=getattr(section, "ordinance_section", ""),
        )
        if span is None:
            for column in columns:
                cells.append(Cell(column=column, value=None, review=True, raw="", **common,
                                  review_reason="row label not found in the text"))
            continue
        end = _value_end(span[1], spans[index + 1:], headings, len(text))
        raw = squash(text[span[1]:end])
        claimed.append((span[0], end))
        cells.extend(_row_cells(raw, columns, spec, notes, common, label, repairs))
    unparsed = _unclaimed(text, claimed, headings, spec)
    if unparsed and cells and cells[0].review:
        # text printed before the first label most likely belongs to it: show it to the reviewer
        first = cells[0]
        cells = [c if (c.row, c.category) != (first.row, first.category) else
                 Cell(**{**c.__dict__, "raw": f"{unparsed[0]} | {c.raw}"}) for c in cells]
    version_notes = tuple(Footnote(n, t, "table") for n, t in notes.items())
    return TableVersion(
        table=spec["table"], section=section.id, title=block.title, document=section.document,
        date=section.date, columns=columns, cells=tuple(cells),
        partial=bool(getattr(section, "excerpt", False)) and spec.get("excerpt_is_partial", False),
        notes=version_notes, unparsed=tuple(unparsed),
    )


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _body(block: TableBlock, spec: dict) -> tuple[str, str]:
    """The table text after its title line(s), up to its end marker; and its notes."""
    text = "\n".join(block.lines)
    end = len(text)
    for pattern in spec.get("end", []):
        match = re.search(pattern, text[1:], flags=re.M)
        if match:
            end = min(end, match.start() + 1)
    body, rest = text[:end], text[end:]
    notes = ""
    match = re.match(r"\s*Notes:", rest)
    if match:
        notes = rest[match.end():]
    return body, notes


def _value_end(start: int, later: list, headings: list[int], limit: int) -> int:
    candidates = [span[0] for span in later if span is not None and span[0] >= start]
    candidates += [h for h in headings if h >= start]
    return min(candidates, default=limit)


def _row_cells(raw: str, columns: tuple[str, ...], spec: dict, notes: dict, common: dict,
               label: str, repairs: list[str]) -> list[Cell]:
    column_notes = spec.get("column_footnotes", {})
    value_start = spec.get("value_start")
    repaired = [note for note in repairs if repr(label) in note]
    if len(columns) == 1:
        pieces: list[str] | None = [raw]
    else:
        pieces = _split_cells(raw, spec.get("cell_pattern", ""), len(columns))
    cells: list[Cell] = []
    for index, column in enumerate(columns):
        extra = footnotes_for(tuple(column_notes.get(column, ())), notes, "column")
        if pieces is None:
            cells.append(Cell(column=column, value=None, review=True, raw=raw, footnotes=extra, source=raw,
                              review_reason=f"cannot split the row text into {len(columns)} cells", **common))
            continue
        piece = pieces[index]
        numbers = tuple(CELL_FOOTNOTE.findall(piece))
        value = squash(CELL_FOOTNOTE.sub("", piece))
        reason = ""
        if not value:
            reason = "empty cell"
        elif value_start and not re.match(value_start, value, re.I):
            reason = "cell text does not read as a value of this table (label and value may be out of order)"
        cells.append(Cell(
            column=column, value=None if reason else value, review=bool(reason), review_reason=reason,
            raw=piece, source=raw, note=repaired[0] if repaired else "",
            footnotes=footnotes_for(numbers, notes, "cell") + extra,
            quantities=quantities(value) if not reason else (), **common,
        ))
    return cells


def _split_cells(raw: str, pattern: str, n: int) -> list[str] | None:
    if not pattern:
        return None
    found = list(re.finditer(pattern, raw))
    rest = re.sub(pattern, "", raw).strip()
    if len(found) != n or rest:
        return None
    return [m.group(0) for m in found]


def _unclaimed(text: str, claimed: list[tuple[int, int]], headings: list[int], spec: dict) -> list[str]:
    """Text before the first row that is neither title, header nor heading: reported, never dropped."""
    if not claimed:
        return [squash(text)] if text.strip() else []
    first = min(start for start, _ in claimed)
    lead = text[:first]
    for pattern in spec.get("lead", []):
        lead = re.sub(pattern, " ", lead, flags=re.I)
    for start in headings:
        if start < first:
            lead = lead.replace(text[start:first], " ")
    lead = squash(lead.replace(BREAK, " "))
    return [lead] if lead else []
