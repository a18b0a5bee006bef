"""Land-use permit tables of 17.22.020 (Tables 2-2, 2-3, 2-4): district columns of P/MUP/UP/S/-.

The table arrives flattened to lines. Header blocks (legend, column heads) are cut out wherever
they were printed, leaving a break marker. Lines are then read as a token stream:
label words, then a run of values (a run of two or more values is a row's cells; a lone dash
between words is part of the label), then any specific-use references. Category headings,
label lines wrapped or continued after a header break, and glued rows are told apart by the
shape of the lines around them (see ``_is_heading``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .segment import TABLE_END, TableBlock
from .text import footnotes_for, normalise_label, parse_notes, squash
from .tokens import Token, prepare, tokenize
from .types import Cell, Footnote, TableError, TableVersion
from .vocab import Vocabulary, vocabulary

BREAK = "\x1e"  # where a header block was cut out
INCOMPLETE_END = re.compile(r"(?:[-\u2013\u2014,(/&]|\b(?:and|or|the|of|for|a|with|to|in|than))$", re.I)


def header_pattern(vocab: Vocabulary) -> re.Pattern:
    """A header block: title, legend and column heads in any of the printed layouts."""
    dash, sym = vocab.dash_pattern, vocab.symbol_pattern
    start = [
        r"Table\s+\d+-\d+",
        r"Allowed\s+Land\s+Uses\s+and\s+Permit\s+Requirements\s+for\s+[^\n]*?(?:Zones|Districts)(?=\s|$)",
        r"P\s+Permitted\s+use,\s+zoning\s+clearance\s+required",
        rf"P\s+MUP\s+UP\s+S\s+(?:{dash})(?=\s)",
    ]
    pieces = start + [
        r"MUP\s+Minor\s+use\s+permit(?:\s+required)?",
        r"UP\s+Use\s+permit\s+required",
        r"S\s+Permit\s+requirement\s+set\s+by\s+specific\s+use(?:\s+regulations)?",
        rf"(?:{dash})\s+Use\s+not\s+allowed",
        r"Permitted\s+use,\s+zoning\s+clearance\s+required",
        r"Minor\s+use\s+permit(?:\s+required)?",
        r"Use\s+permit\s+required",
        r"Permit\s+requirement\s+set\s+by\s+specific\s+use\s+regulations",
        r"Use\s+not\s+allowed",
        r"Permit\s+Required\s+by(?:\s+District)?",
        r"Land\s+Use\s*\(1\)(?:\s+District)?",
        r"Specific\s+Use\s+Regulations",
    ]
    columns = rf"(?-i:(?:{sym})(?:[ \t]+(?:{sym}))+)(?=\s|$)"
    piece = "(?:" + "|".join(pieces + [columns]) + ")"
    return re.compile(r"(?i:(?:" + "|".join(start) + r")(?:\s+" + piece + r")*)")


def columns_in(header: str, vocab: Vocabulary) -> tuple[str, ...]:
    sym = vocab.symbol_pattern
    runs = re.findall(rf"(?<![A-Za-z])((?:{sym})(?:[ \t]+(?:{sym}))+)(?![A-Za-z])", header)
    return tuple(runs[-1].split()) if runs else ()


@dataclass
class _Row:
    category: str
    category_notes: tuple[str, ...]
    words: list[str] = field(default_factory=list)
    label_notes: list[str] = field(default_factory=list)
    values: list[Token] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    first_line: int = -1


def parse(block: TableBlock, spec: dict, section) -> TableVersion:
    """Entry point used by ``extract``: ``section`` is an ``ingest.types.Section``-like record."""
    return parse_permit_table(
        block, spec["table"], section.id, section.document, section.date,
        partial=bool(getattr(section, "excerpt", False)),
        ordinance_section=getattr(section, "ordinance_section", ""),
    )


def parse_permit_table(
    block: TableBlock, table: str, section: str, document: str, date: str, partial: bool = False,
    ordinance_section: str = "",
) -> TableVersion:
    vocab = vocabulary()
    where = f"{section} Table {block.number} ({document})"
    body, notes_text = _split_notes(block.lines)
    body_text = prepare("\n".join(body))
    pattern = header_pattern(vocab)
    headers = [m.group(0) for m in pattern.finditer(body_text)]
    if not headers:
        raise TableError(where, "no legend/column header found")
    columns = columns_in(headers[0], vocab)
    if not columns:
        raise TableError(where, "no district columns in the header")
    for header in headers[1:]:
        repeated = columns_in(header, vocab)
        if repeated and repeated != columns:
            raise TableError(where, f"repeated header has columns {repeated}, first had {columns}")
    body_text = pattern.sub("\n" + BREAK + "\n", body_text)
    notes = parse_notes(notes_text)
    rows, unparsed = _read_rows(body_text.split("\n"), len(columns), vocab)
    cells = tuple(
        cell
        for row in rows
        for cell in _cells(row, columns, notes, table, section, document, date, ordinance_section)
    )
    note_records = tuple(Footnote(number, text, "table") for number, text in notes.items())
    return TableVersion(
        table=table, section=section, title=block.title, document=document, date=date,
        columns=columns, cells=cells, partial=partial, notes=note_records, unparsed=tuple(unparsed),
    )


def _split_notes(lines: tuple[str, ...]) -> tuple[list[str], str]:
    """Table body up to its key or notes; the notes text (key lines are dropped)."""
    body: list[str] = []
    for index, line in enumerate(lines):
        if TABLE_END.match(line.strip()):
            rest = lines[index:]
            for offset, later in enumerate(rest):
                if later.strip().lower().startswith("notes:"):
                    return body, "\n".join(rest[offset:])[len("notes:"):]
            return body, ""
        body.append(line)
    return body, ""


def _line_info(lines: list[str], vocab: Vocabulary) -> list[tuple[str, list[Token], bool]]:
    """(text, tokens, after_break) for each non-blank, non-marker line."""
    out: list[tuple[str, list[Token], bool]] = []
    after_break = False
    for line in lines:
        text = line.strip()
        if not text:
            continue
        if text == BREAK:
            after_break = True
            continue
        out.append((text, tokenize(text, vocab), after_break))
        after_break = False
    return out


def _starts_new_label(tokens: list[Token], n_columns: int) -> bool:
    """The line opens with a capitalised label word (not values, a continuation, or a reference)."""
    if not tokens:
        return False
    first = tokens[0]
    return first.kind == "word" and first.text[:1].isupper()


def _is_heading(words_line: str, next_tokens: list[Token] | None, n_columns: int) -> bool:
    if not words_line[:1].isupper():
        return False
    if INCOMPLETE_END.search(words_line):
        return False
    return next_tokens is not None and _starts_new_label(next_tokens, n_columns)


def _read_rows(lines: list[str], n_columns: int, vocab: Vocabulary) -> tuple[list[_Row], list[str]]:
    info = _line_info(lines, vocab)
    rows: list[_Row] = []
    unparsed: list[str] = []
    category, category_notes = "", ()
    current: _Row | None = None  # the row being read: label words, then values
    closed: _Row | None = None  # the last row whose values are complete (refs may follow)

    def close() -> None:
        nonlocal current, closed
        if current is not None and current.values:
            rows.append(current)
            closed = current
        elif current is not None and current.words:
            unparsed.append(" ".join(current.lines))
        current = None

    for index, (text, tokens, after_break) in enumerate(info):
        nxt = info[index + 1][1] if index + 1 < len(info) else None
        only_words = all(t.kind in ("word", "foot") for t in tokens) or _lone_dash_words(tokens)
        # a row still reading its label (a lone dash so far may be part of it)
        pending = current is not None and len(current.values) < 2
        # A label continued after a header break (or wrapped after its values): lower-case start.
        if only_words and not pending and not text[:1].isupper() and (closed or current):
            if current is not None and current.values:
                close()
            if closed is None:
                unparsed.append(text)
                continue
            closed.words.extend(t.text for t in tokens if t.kind == "word")
            closed.label_notes.extend(n for t in tokens if t.kind == "foot" for n in t.notes)
            closed.lines.append(text)
            continue
        line_started_new = False
        for position, token in enumerate(tokens):
            if token.kind == "word":
                if current is not None and len(current.values) >= 2:
                    close()
                if current is not None and len(current.values) == 1:
                    # a lone dash (or letter) between label words belongs to the label
                    current.words.append(current.values.pop().text)
                if current is None:
                    current = _Row(category, category_notes, first_line=index)
                    line_started_new = True
                    current.lines.append(text)
                current.words.append(token.text)
            elif token.kind == "foot":
                if current is not None and current.values:
                    last = current.values[-1]
                    current.values[-1] = Token(
                        "value", last.text + token.text, code=last.code,
                        notes=last.notes + token.notes, star=last.star, stray=last.stray,
                    )
                elif current is not None:
                    current.label_notes.extend(token.notes)
                elif closed is not None:
                    closed.label_notes.extend(token.notes)
            elif token.kind in ("stray", "star"):
                if current is not None and current.values:
                    last = current.values[-1]
                    current.values[-1] = Token(
                        "value", last.text + token.text, code=last.code, notes=last.notes,
                        star=last.star or token.kind == "star",
                        stray=last.stray or token.kind == "stray", unclosed=last.unclosed,
                    )
            elif token.kind == "value":
                if current is None:
                    # values with no label before them: the row they belong to is unknown
                    current = _Row(category, category_notes, first_line=index)
                    current.lines.append(text)
                current.values.append(token)
            elif token.kind == "ref":
                if current is not None and len(current.values) >= 2:
                    close()
                target = closed if current is None else current
                if target is not None and target is closed:
                    target.refs.append(token.text)
                elif current is not None:
                    current.words.append(token.text)
        if current is not None and index != current.first_line and text not in current.lines:
            current.lines.append(text)
        # End of line: words that began on this line, after a complete row, may be a heading.
        if (
            current is not None and not current.values and current.words and line_started_new
            and current.first_line == index
        ):
            words_line = " ".join(current.words)
            if _is_heading(words_line, nxt, n_columns):
                category = normalise_label(words_line + "".join(f"({n})" for n in current.label_notes))
                category_notes = tuple(current.label_notes)
                current = None
    close()
    return rows, unparsed


def _lone_dash_words(tokens: list[Token]) -> bool:
    """Words with single dashes between them ("Services - General") hold no row values."""
    run = 0
    for token in tokens:
        if token.kind == "value":
            run += 1
            if run >= 2:
                return False
        elif token.kind == "ref":
            return False
        else:
            run = 0
    return bool(tokens) and tokens[0].kind == "word" and tokens[-1].kind in ("word", "foot")


def _cells(
    row: _Row, columns: tuple[str, ...], notes: dict[str, str], table: str, section: str,
    document: str, date: str, ordinance_section: str,
) -> list[Cell]:
    label = normalise_label(" ".join(row.words))
    category = re.sub(r"\(\d+(?:,\d+)*\)", "", row.category).strip()
    regulation = _regulation(row.refs)
    source = squash(" | ".join(row.lines))
    row_notes = footnotes_for(tuple(row.label_notes), notes, "row")
    category_notes = footnotes_for(tuple(row.category_notes), notes, "category")
    n = len(columns)
    raw_values = " ".join(v.text for v in row.values)
    cells: list[Cell] = []
    for index, column in enumerate(columns):
        common = dict(
            table=table, section=section, category=category, row=label, column=column,
            document=document, date=date, regulation=regulation, source=source,
            ordinance_section=ordinance_section, kind="permit",
        )
        if len(row.values) != n:
            cells.append(Cell(
                value=None, review=True, raw=raw_values,
                review_reason=f"{len(row.values)} values printed for {n} district columns: "
                "cannot tell which column each belongs to",
                footnotes=row_notes + category_notes, **common,
            ))
            continue
        if not label:
            cells.append(Cell(
                value=None, review=True, raw=raw_values,
                review_reason="values printed with no row label before them", **common,
            ))
            continue
        token = row.values[index]
        cell_notes = footnotes_for(token.notes, notes, "cell")
        if token.star:
            cell_notes += (Footnote("*", notes.get("*", ""), "cell"),)
        reason = ""
        if token.stray:
            reason = "stray ')' after the cell: a footnote marker may have been lost"
        cells.append(Cell(
            value=token.code, footnotes=cell_notes + row_notes + category_notes,
            interim=token.star, review=bool(reason), review_reason=reason, raw=token.text, **common,
        ))
    return cells


def _regulation(refs: list[str]) -> str:
    """"17.44;" "17.44.065" -> "17.44; 17.44.065"; "§§" dropped; a split "17.42.2 00" is not joined here."""
    parts = [ref for ref in refs if ref not in ("§", "§§")]
    text = " ".join(part.lstrip("§") for part in parts)
    return squash(text).rstrip(",;")
