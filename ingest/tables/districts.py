"""Table 2-1 (17.20.020): zoning districts, their names, general plan designations and transect.

Rows start at a district symbol. Each printed line of a row holds the next piece of the name
column, then the next piece of the general-plan column, then (on some lines) a mark of the
transect arrow. The name is recognised from the district vocabulary by its letters, line by line
(so "Open Space, Open Space MORE RURAL" / "Conservation" splits into name "Open Space,
Conservation" and designation "Open Space"); what follows the name on each line is the
designation, less the transect marks at its end. Anything that does not fit is flagged.
"""

from __future__ import annotations

import re

from .labelled import BREAK
from .segment import TableBlock
from .text import letters_key, squash
from .types import Cell, TableError, TableVersion
from .vocab import vocabulary


def parse(block: TableBlock, spec: dict, section) -> TableVersion:
    where = f"{section.id} Table {block.number} ({section.document})"
    vocab = vocabulary()
    text = "\n".join(block.lines)
    history = re.search(r"^\(Ord\.", text, flags=re.M)
    if history:
        text = text[: history.start()]
    text, count = re.subn(spec["header"], "\n" + BREAK + "\n", text, flags=re.S | re.I)
    if not count:
        raise TableError(where, "column header not found")
    headings = [re.compile(pattern, re.I) for pattern in spec["headings"]]
    row_start = re.compile(rf"^({vocab.symbol_pattern})(?=\s|$)")
    columns = tuple(spec["columns"])
    rows: list[tuple[str, str, list[str]]] = []
    category = ""
    for line in (line.strip() for line in text.split("\n")):
        if not line or line == BREAK:
            continue
        if any(h.fullmatch(line) for h in headings):
            category = line
            continue
        match = row_start.match(line)
        if match:
            rows.append((category, match.group(1), [line[match.end():].strip()]))
        elif rows:
            rows[-1][2].append(line)
    if not rows:
        raise TableError(where, "no district rows")
    cells: list[Cell] = []
    for category, symbol, lines in rows:
        common = dict(
            table=spec["table"], section=section.id, category=category, row=symbol,
            document=section.document, date=section.date, kind="standard",
            source=squash(" | ".join([symbol] + lines)),
            ordinance_section=getattr(section, "ordinance_section", ""),
        )
        cells.extend(_row_cells(symbol, lines, columns, vocab, common))
    return TableVersion(
        table=spec["table"], section=section.id, title=block.title, document=section.document,
        date=section.date, columns=columns, cells=tuple(cells),
    )


def _row_cells(symbol: str, lines: list[str], columns: tuple[str, ...], vocab, common: dict) -> list[Cell]:
    name_column, plan_column, transect_column = columns
    names = sorted(set((vocab.districts.get(symbol, ""),) + vocab.name_variants.get(symbol, ())),
                   key=len, reverse=True)
    split = None
    for name in names:
        split = _split_name(name, lines) if name else None
        if split:
            break
    if split is None:
        raw = squash(" ".join(lines))
        return [Cell(column=column, value=None, review=True, raw=raw, **common,
                     review_reason="district name not recognised in the row text")
                for column in columns]
    name, rests = split
    plan_parts: list[str] = []
    marks: list[str] = []
    for rest in rests:
        rest, found = _strip_marks(rest, vocab.transect_tokens)
        marks.extend(found)
        if rest:
            plan_parts.append(rest)
    plan = re.sub(r"/\s+", "/", _join(plan_parts))  # "Commercial/ Industrial": a break after the slash
    marks = ["\u2014" if mark in vocab.dashes else mark for mark in marks]  # arrow pieces: one dash style
    transect = " ".join(marks)
    cells = [Cell(column=name_column, value=name, raw=name, **common)]
    if plan:
        cells.append(Cell(column=plan_column, value=plan, raw=plan, **common))
    else:
        cells.append(Cell(column=plan_column, value=None, review=True, raw="", **common,
                          review_reason="no designation printed (blank or merged cell)"))
    if not marks:
        cells.append(Cell(column=transect_column, value=None, review=True, raw="", **common,
                          review_reason="no transect mark printed (blank or merged cell)"))
    elif len(marks) > 1 and transect.upper() not in ("MORE RURAL", "MORE URBAN"):
        cells.append(Cell(column=transect_column, value=None, review=True, raw=transect, **common,
                          review_reason="several transect marks printed for one row"))
    else:
        cells.append(Cell(column=transect_column, value=transect, raw=transect, **common))
    return cells


def _split_name(name: str, lines: list[str]) -> tuple[str, list[str]] | None:
    """The name as printed and each line's remainder, when the name's letters open the lines in order."""
    remaining = letters_key(name)
    taken: list[str] = []
    rests: list[str] = []
    for line in lines:
        tokens = line.split()
        used = 0
        while remaining and used < len(tokens):
            letters = letters_key(tokens[used])
            if not letters or not remaining.startswith(letters):
                break
            remaining = remaining[len(letters):]
            used += 1
        taken.extend(tokens[:used])
        rests.append(" ".join(tokens[used:]))
    if remaining:
        return None
    return _join(taken), rests


def _strip_marks(text: str, marks: tuple[str, ...]) -> tuple[str, list[str]]:
    """Remove transect marks printed at the end of a line; return the rest and the marks in order."""
    found: list[str] = []
    ordered = sorted(marks, key=len, reverse=True)
    changed = True
    while changed and text:
        changed = False
        for mark in ordered:
            if text == mark or text.endswith(" " + mark):
                found.insert(0, mark)
                text = text[: len(text) - len(mark)].strip()
                changed = True
                break
    return text, found


def _join(parts: list[str]) -> str:
    out = ""
    for part in parts:
        out = out + part if out.endswith("/") or not out else out + " " + part
    return squash(out)
