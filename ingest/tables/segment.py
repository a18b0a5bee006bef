"""Find the tables inside a section's text: where each starts, its number and title, and its text.

A "Table N" line starts a new table when its number differs from the table being read, or when
that table has already printed its end (its "Notes:" or its key). Otherwise it is the table's
header printed again after a page break, and stays inside the table's text for the parser to drop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TABLE_LINE = re.compile(r"^Table\s+(\d+-\d+)\b[:.]?\s*(.*)$")
TABLE_AT_END = re.compile(r"\bTable\s+(\d+-\d+)\s*$")
TABLE_END = re.compile(r"^(?:Notes:|NOTES:|Key to Zoning District Symbols)")


@dataclass(frozen=True)
class TableBlock:
    number: str  # "2-4"
    title: str  # text after the number on its line, else the next line
    lines: tuple[str, ...]  # the table's lines, title line first
    first_line: int  # index of the title line in the section text's lines


def find_tables(text: str) -> list[TableBlock]:
    lines = text.split("\n")
    starts: list[tuple[int, str, str]] = []
    current: str | None = None
    ended = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        number, title = _table_number(stripped, lines, index)
        if number is not None and (number != current or ended):
            starts.append((index, number, title))
            current, ended = number, False
            continue
        if current is not None and TABLE_END.match(stripped):
            ended = True
    blocks: list[TableBlock] = []
    for position, (index, number, title) in enumerate(starts):
        stop = starts[position + 1][0] if position + 1 < len(starts) else len(lines)
        block_lines = list(lines[index:stop])
        # A title glued after section text ("... (excerpt) Table 2-4"): keep the table part only.
        match = TABLE_AT_END.search(block_lines[0])
        if match and not TABLE_LINE.match(block_lines[0].strip()):
            block_lines[0] = block_lines[0][match.start():]
        blocks.append(TableBlock(number, title, tuple(block_lines), index))
    return blocks


def _table_number(stripped: str, lines: list[str], index: int) -> tuple[str | None, str]:
    match = TABLE_LINE.match(stripped)
    if match:
        title = match.group(2).strip() or _next_text(lines, index)
        return match.group(1), title
    match = TABLE_AT_END.search(stripped)
    # "... shown in Table 2-4" ends a sentence with a lowercase word before it; a glued title
    # follows a heading, a cell or "(excerpt)".
    if match and not re.search(r"\b(?:in|see|and|of|to)\s+Table\s+\d+-\d+\s*$", stripped, re.I):
        return match.group(1), _next_text(lines, index)
    return None, ""


def _next_text(lines: list[str], index: int) -> str:
    for line in lines[index + 1:]:
        if line.strip():
            return line.strip()
    return ""
