"""Where in an answer a fact counts: the statement made for the thing asked.

Pure functions over the answer's text; no I/O. The rules (also in ``eval/README.md``), decided
before looking at any answer:

* An answer is read as *parts*: the whole answer, or, when it answers a compound question, each
  ``Part N ("..."):`` block; ``Part N ("...") is not answered`` marks a part it declined.
* Within a part, the *statement lines* are its lines without citation lines (``Source:``,
  ``Nearest sections:``, ...), quoted passages (``§ id (document, date): "..."`` and lines that are
  one quotation, after the first line), ``Read as:`` lines and the closing referral ("Please ask
  ..."). Quotes support an answer; they do not state it, except for a section look-up, which asks
  for the section's text. The first line always states (a definition's lead is the definition).
* A *row statement* is a statement line that cites a table row (``... (Table 2-3, § 17.22.020)``
  or ``Who decides ... (Table 6-1, § ...)``) with the note lines that follow it.
* The statement *for the thing asked* is the part's lead (its first statement line) plus, when
  the gold names a table row, the row statements that name that row (and district column, when
  the gold gives one), plus the part's other statement lines that belong to no row. Another
  row's statement never counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .match import canonical, statements

_PART_HEAD = re.compile(r'^\s*Part (\d+) \((?:"[^\n]*?"|[^\n]*?)\)(?P<rest>.*)$')
_NOT_ANSWERED = re.compile(r"^\s*is not answered\b", re.I)
_QUOTE_LINE = re.compile(r'^\s*(?:§[^\n]*?\)\s*:\s*)?["\u201c].*["\u201d]\s*$')
_SKIPPED = re.compile(r"^\s*(?:(?:read as|please ask)\b|\[\d+\])", re.I)
_ROW_CITE = re.compile(r"\(Table [^,()]+(?:\([^)]*\))?[^,()]*, § \d")
_DISTRICT = re.compile(r"^[A-Z]{2,4}$")
_NOTE = re.compile(r"^\s*(?:note\b|specific use|amended|conditions?\b|read from the printed table)", re.I)


@dataclass(frozen=True)
class Part:
    """One part of an answer: its statement lines, and whether the answer declined it."""

    lines: tuple[str, ...]
    answered: bool

    @property
    def lead(self) -> str:
        return self.lines[0] if self.lines else ""


def statement_lines(text: str, quotes_state: bool = False) -> list[str]:
    """The lines of ``text`` that state something (see the module docstring). The first line
    always does (a definition's lead is the definition, in the code's quotation marks);
    ``quotes_state``: quoted passages state too (a section look-up asks for the section's text)."""
    out = []
    for raw in text.split("\n"):
        if not raw.strip() or _SKIPPED.match(raw) or (out and not quotes_state and _QUOTE_LINE.match(raw)):
            continue
        line = statements(raw)
        if line.strip():
            out.append(line.strip())
    return out


def parts_of(text: str, quotes_state: bool = False) -> list[Part]:
    """The answer's parts: one for a plain answer, one per ``Part N`` block for a compound one
    (the lead before the first block is shared by every part)."""
    blocks: list[tuple[list[str], bool]] = []
    preamble: list[str] = []
    for raw in text.strip().split("\n"):
        head = _PART_HEAD.match(raw)
        if head:
            blocks.append(([], not _NOT_ANSWERED.match(head.group("rest"))))
            continue
        (blocks[-1][0] if blocks else preamble).append(raw)
    if not blocks:
        return [Part(tuple(statement_lines("\n".join(preamble), quotes_state)), True)]
    shared = statement_lines("\n".join(preamble), quotes_state)
    return [Part(tuple(shared + statement_lines("\n".join(lines), quotes_state)), answered) for lines, answered in blocks]


def _row_blocks(lines: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """(index of the row statement line, its lines with the notes after it) for each row statement."""
    blocks: list[tuple[int, list[str]]] = []
    for i, line in enumerate(lines):
        if i and _ROW_CITE.search(line):
            blocks.append((i, [line]))
        elif blocks and _NOTE.match(line) and i == blocks[-1][0] + len(blocks[-1][1]):
            blocks[-1][1].append(line)
    return blocks


def _names(line: str, label: str | None) -> bool:
    if not label:
        return True
    return canonical(re.sub(r"\(\w{1,3}\)|\*", "", label)).strip() in canonical(line)


def asked_statement(part: Part, row: str | None = None, column: str | None = None) -> tuple[str, str]:
    """(statement, claim) for the thing asked: ``statement`` is where an expected fact counts
    (lead, the asked row's statements with their notes, the lines that belong to no row);
    ``claim`` is where a contradiction counts (lead and the asked row's statement lines, without
    notes, which state conditions)."""
    if not part.lines:
        return "", ""
    blocks = _row_blocks(part.lines)
    in_rows = {i for start, block in blocks for i in range(start, start + len(block))}
    asked = [(start, block) for start, block in blocks
             if row and _names(part.lines[start], row) and _column_named(part.lines[start], column)]
    free = [line for i, line in enumerate(part.lines) if i and i not in in_rows]
    kept = [part.lead] + [line for _, block in asked for line in block] + free
    claim = [part.lead] + [part.lines[start] for start, _ in asked]
    return "\n".join(kept), "\n".join(claim)


def _column_named(line: str, column: str | None) -> bool:
    """Whether a row statement is for the district ``column`` (other columns, such as a standards
    table's "Minimum Parcel Size", are read from the row itself)."""
    if not column or not _DISTRICT.match(column.strip()):
        return True
    return re.search(r"(?<![\w-])" + re.escape(column.strip()) + r"(?![\w-])", line, re.I) is not None
