"""The cannabis table of 17.22.020 ("Table 2-2: ... Cannabis Uses").

Extraction broke it one word (or half-word) per line, so it is read as one token stream per part
(residential districts, then commercial districts: each part's header ends with the district
symbols after "Med/AU"). A row is anchored on its state license type ("Exempt", "1/1", "2A/2A");
before the anchor come the label, the maximum cultivation area and the minimum parcel size;
after it, one value per district column and any specific-use reference. Labels and headings are
recognised by their letters against the layout's vocabulary ("Specialt y" is "Specialty");
a cell whose boundaries the text does not fix is flagged for review.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .labelled import BREAK
from .note_cells import Part, Row, note_cells
from .segment import TableBlock
from .text import footnotes_for, parse_notes, squash
from .tokens import Token, _values
from .types import Cell, Footnote, TableError, TableVersion
from .vocab import vocabulary

LICENSE = re.compile(r"^(?:Exempt|\d{1,2}[A-C]?/\d{1,2}[A-C]?)$")
FOOT = re.compile(r"\((\d+(?:,\d+)*)\)")
PARCEL_WORDS = ("None", "N/A")


@dataclass
class _Row:
    category: str
    category_notes: tuple[str, ...]
    before: list[str]  # tokens between the previous row (or heading) and the license
    license: str
    top: str = ""  # the top heading the row sits under ("COMMERCIAL CANNABIS USES, ..."), see the layout
    values: list[Token] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)  # fragments printed after the values


def _alnum(token: str, keep_case: bool = True) -> str:
    token = FOOT.sub("", token)
    out = re.sub(r"[^A-Za-z0-9]", "", token)
    return out if keep_case else out.lower()


def parse(block: TableBlock, spec: dict, section) -> TableVersion:
    where = f"{section.id} Table {block.number} cannabis ({section.document})"
    vocab = vocabulary()
    text = "\n".join(block.lines)
    notes_at = re.search(r"^NOTES:", text, flags=re.M | re.I)
    notes = parse_notes(text[notes_at.end():] if notes_at else "")
    body = text[: notes_at.start()] if notes_at else text
    header = re.compile(spec["header"].replace("{symbols}", vocab.symbol_pattern), re.S)
    parts: list[tuple[tuple[str, ...], str]] = []
    last = 0
    columns: tuple[str, ...] = ()
    zone = ""
    for match in header.finditer(body):
        if columns:
            parts.append((columns, zone, body[last: match.start()]))
        columns = tuple(match.group("columns").split())
        zone = match.group("zone").title()  # "Residential" / "Commercial": the part's district kind
        last = match.end()
    if not columns:
        raise TableError(where, "no part header ending in 'Med/AU <districts>'")
    parts.append((columns, zone, body[last:]))
    merged: list[tuple[tuple[str, ...], str, str]] = []
    for cols, kind, chunk in parts:  # a repeated header with the same districts continues the part
        if merged and merged[-1][0] == cols:
            merged[-1] = (cols, kind, merged[-1][2] + " " + chunk)
        else:
            merged.append((cols, kind, chunk))
    cells: list[Cell] = []
    unparsed: list[str] = []
    all_columns: list[str] = list(spec["columns"])
    note_parts: list[Part] = []
    note_rows: list[Row] = []
    for cols, kind, chunk in merged:
        all_columns.extend(c for c in cols if c not in all_columns)
        marks: list[tuple[str, tuple[str, ...]]] = []
        rows, leftover = _rows(_prepare(chunk, spec), spec, cols, marks)
        unparsed.extend(leftover)
        note_parts.append(Part(kind, cols, tuple(marks)))
        for row in rows:
            # the two parts print the same headings and labels: the part names the row apart
            row.category = f"{kind} zones - {row.category}" if row.category else f"{kind} zones"
            made = _cells(row, cols, spec, notes, section)
            cells.extend(made)
            printed = {c.column: c.value for c in made if c.column in cols}
            note_rows.append(Row(row.top, made[0].category, made[0].row, printed))
    common = dict(table=spec["table"], section=section.id, document=section.document, date=section.date,
                  ordinance_section=getattr(section, "ordinance_section", ""))
    derived, left_out = note_cells(note_parts, note_rows, notes, common, lambda n: _note_lines(block, section, n))
    return TableVersion(
        table=spec["table"], section=section.id, title=block.title, document=section.document,
        date=section.date, columns=tuple(all_columns), cells=tuple(cells),
        notes=tuple(Footnote(n, t, "table") for n, t in notes.items()), unparsed=tuple(unparsed),
        derived=tuple(derived), notes_left_out=tuple(f"{o.note} {o.district or '(whole note)'}: {o.reason}" for o in left_out),
    )


def _note_lines(block: TableBlock, section, number: str) -> tuple[int, int]:
    """The source line (first, last) printing note ``number`` after the table's "NOTES:" line."""
    source = getattr(section, "source_lines", ())
    past_notes = False
    for index, line in enumerate(block.lines):
        past_notes = past_notes or bool(re.match(r"^NOTES:", line, flags=re.I))
        if past_notes and re.search(rf"(?:^|\s)\({re.escape(number)}\)\s", line):
            at = block.first_line + index
            return source[at] if at < len(source) else (0, 0)
    return (0, 0)


def _prepare(chunk: str, spec: dict) -> list[str]:
    chunk = chunk.replace(BREAK, " ")
    chunk = re.sub(r"\bExem\s+pt\b", "Exempt", chunk)
    chunk = re.sub(r"(\d{2}\.\d{2}\.\d)\s+(\d{1,2})\b", r"\1\2", chunk)  # "17.42.2 00"
    chunk = re.sub(r"\((\d+)\s*,\s*(\d+)\)", r"(\1,\2)", chunk)
    chunk = re.sub(r"(?<=[a-z])(?=\d)", " ", chunk)  # "y2,501": a label fragment glued to a number
    for word in spec.get("area_words", []):  # "plants/par cel": a unit word split by the column edge
        pattern = r"\s*".join(re.escape(ch) for ch in word)
        chunk = re.sub(rf"(?<=/){pattern}\b", word, chunk)
    return chunk.split()


def _heading_at(tokens: list[str], position: int, headings: list[str]) -> tuple[int, str, tuple[str, ...]] | None:
    """(tokens used, heading, footnote numbers) when a heading's letters start at ``position``."""
    for heading in sorted(headings, key=len, reverse=True):
        target = _alnum(heading)
        built = ""
        notes: list[str] = []
        for used, token in enumerate(tokens[position:], start=1):
            built += _alnum(token)
            notes.extend(n for m in FOOT.finditer(token) for n in m.group(1).split(","))
            if built == target:
                return used, heading, tuple(notes)
            if not target.startswith(built):
                break
    return None


def _rows(tokens: list[str], spec: dict, columns: tuple[str, ...],
          marks: list | None = None) -> tuple[list[_Row], list[str]]:
    """The part's rows and the text no row claims; ``marks`` collects (top heading, note numbers)."""
    vocab = vocabulary()
    top = ""
    rows: list[_Row] = []
    leftover: list[str] = []
    category, category_notes = "", ()
    buffer: list[str] = []
    position = 0
    while position < len(tokens):
        heading = _heading_at(tokens, position, spec["headings"])
        if heading:
            used, name, numbers = heading
            if buffer:
                _attach_or_leave(buffer, rows, leftover, spec)
                buffer = []
            category, category_notes = name, numbers
            if name in spec.get("top_headings", ()):
                top = name
                if marks is not None and numbers:
                    marks.append((name, numbers))
            position += used
            continue
        token = tokens[position]
        if LICENSE.match(token):
            row = _Row(category, category_notes, buffer, token, top)
            buffer = []
            position += 1
            while position < len(tokens) and len(row.values) < len(columns):
                values = _values(tokens[position], vocab)
                foot = FOOT.fullmatch(tokens[position])
                if values:
                    row.values.extend(values)
                elif foot and row.values:
                    last = row.values[-1]
                    row.values[-1] = Token("value", last.text + tokens[position], code=last.code,
                                           notes=last.notes + tuple(foot.group(1).split(",")))
                else:
                    break
                position += 1
            while position < len(tokens) and FOOT.fullmatch(tokens[position]) and row.values:
                last = row.values[-1]  # "P" then "(1,2)": the marker belongs to the value before it
                row.values[-1] = Token("value", last.text + tokens[position], code=last.code,
                                       notes=last.notes + tuple(FOOT.fullmatch(tokens[position]).group(1).split(",")))
                position += 1
            while position < len(tokens) and re.fullmatch(r"\d{2}\.\d{2}(?:\.\d{1,3})?", tokens[position]):
                row.refs.append(tokens[position])
                position += 1
            # lower-case fragments right after the row continue its label and area ("y 5,000 sf")
            while position < len(tokens) and tokens[position][:1].islower():
                row.after.append(tokens[position])
                position += 1
                while position < len(tokens) and re.match(r"[\d,]", tokens[position]) or (
                    position < len(tokens) and tokens[position] in ("sf", "-", "or", "larger")
                ):
                    row.after.append(tokens[position])
                    position += 1
            rows.append(row)
            continue
        buffer.append(token)
        position += 1
    if buffer:
        _attach_or_leave(buffer, rows, leftover, spec)
    return rows, leftover


def _attach_or_leave(buffer: list[str], rows: list[_Row], leftover: list[str], spec: dict) -> None:
    """Words with no license after them: the end of the previous row's label when that makes a
    known label ("Storefro nt" ... "Retailer"), otherwise text no row claims."""
    if rows:
        label, _ = _label(rows[-1].before, spec)
        if label is None:
            candidate = [t for t in rows[-1].before if not re.match(r"\d", t)] + buffer
            joined = _alnum("".join(candidate), keep_case=False)
            if any(_alnum(known, keep_case=False) == joined for known in spec["labels"]):
                rows[-1].after.extend(buffer)
                return
    leftover.append(" ".join(buffer))


def _label(tokens: list[str], spec: dict) -> tuple[str | None, int]:
    """The known label spelled by the longest prefix of ``tokens``, and how many tokens it used."""
    best: tuple[str | None, int] = (None, 0)
    built = ""
    for used, token in enumerate(tokens, start=1):
        built += _alnum(token, keep_case=False)
        for known in spec["labels"]:
            if _alnum(known, keep_case=False) == built and used > best[1]:
                best = (known, used)
    return best


def _cells(row: _Row, columns: tuple[str, ...], spec: dict, notes: dict, section) -> list[Cell]:
    before = list(row.before)
    after_words = [t for t in row.after if not re.match(r"[\d,]|sf$|-$|or$|larger$", t)]
    after_area = [t for t in row.after if t not in after_words]
    label, used = _label(before, spec)
    rest = before[used:] if label else []
    label_review = ""
    if label is None:
        # the label may end after the values ("Storefro nt" ... "Retailer") or be interleaved ("Specialt" ... "y")
        words = [t for t in before if re.search(r"[A-Za-z]", t) and t not in PARCEL_WORDS]
        label, _ = _label(words + after_words, spec)
        if label is None:
            label = squash(" ".join(words + after_words))
            label_review = "row label not recognised"
        rest = [t for t in before if t not in words]
    label_notes = tuple(n for t in before[:used] + after_words for m in FOOT.finditer(t) for n in m.group(1).split(","))
    area, parcel, pre_reason = _area_parcel(rest, after_area)
    common = dict(
        table=spec["table"], section=section.id, category=_clean(row.category), row=label,
        document=section.document, date=section.date, kind="permit",
        regulation=" ".join(row.refs), source=squash(" ".join(row.before + [row.license] + [v.text for v in row.values] + row.refs + row.after)),
        ordinance_section=getattr(section, "ordinance_section", ""),
    )
    row_notes = footnotes_for(label_notes, notes, "row") + footnotes_for(row.category_notes, notes, "category")
    area_col, parcel_col, license_col = spec["columns"]
    cells = [
        _text_cell(area_col, area, pre_reason or label_review, row_notes, common),
        _text_cell(parcel_col, parcel, pre_reason or label_review, row_notes, common),
        _text_cell(license_col, row.license, label_review, row_notes, common),
    ]
    for index, column in enumerate(columns):
        if len(row.values) != len(columns):
            cells.append(Cell(column=column, value=None, review=True, raw=" ".join(v.text for v in row.values),
                              review_reason=f"{len(row.values)} values printed for {len(columns)} district columns",
                              footnotes=row_notes, **common))
            continue
        token = row.values[index]
        cells.append(Cell(column=column, value=token.code, raw=token.text, review=bool(label_review),
                          review_reason=label_review,
                          footnotes=footnotes_for(token.notes, notes, "cell") + row_notes, **common))
    return cells


def _area_parcel(rest: list[str], after_area: list[str]) -> tuple[str | None, str | None, str]:
    """Maximum cultivation area and minimum parcel size from the text between label and license."""
    parcel = rest[-1] if rest and rest[-1] in PARCEL_WORDS else None
    area_tokens = rest[:-1] if parcel else rest
    if after_area:
        area = squash(" ".join(area_tokens + after_area))
        return area, parcel, "area printed in two pieces around the row's values; re-assembled"
    area = squash(" ".join(area_tokens)) or None
    if parcel and not area:
        return None, None, f"only {parcel!r} printed before the license type: area or parcel column?"
    return area, parcel, ""


def _text_cell(column: str, value: str | None, reason: str, notes: tuple, common: dict) -> Cell:
    if value is None and not reason:
        reason = "blank in source (empty or merged cell)"
    return Cell(column=column, value=value if not reason or value else None, raw=value or "",
                review=bool(reason), review_reason=reason, footnotes=notes, **common)


def _clean(category: str) -> str:
    return squash(FOOT.sub("", category))
