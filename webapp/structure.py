"""A section's text laid out by its structure: headings, subsections (A, 1, a, (1)), printed tables.

Pure functions over the cleaned text the corpus gives (``Section.text``); no gradio, no I/O.
Each block keeps its character range in the text, so a quote found in the text
(``views.highlight_spans``) is marked in the block that holds it, and a block's number is the
anchor a shareable link points to (``/?section=17.44.065#q2``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A subsection marker at a line start: "A. ", "1. ", "a. ", "(1) ", "(a) ".
MARKER = re.compile(r"^(?:([A-Z])\.|(\d{1,2})\.|([a-z])\.|\((\d{1,2}|[a-z]|[ivx]{1,4})\))\s+(?=\S)")
# A marker inside a line after a sentence end: "... made. a. When ...", "... street. b. Projects ...".
INLINE_MARKER = re.compile(r"(?<=[.;:])\s+(?:([A-Z])\.|(\d{1,2})\.|([a-z])\.)\s+(?=[A-Z“\"(])")
TABLE_HEAD = re.compile(r"^Tables?\s+(\d{1,2}-\d{1,2})\b")
SECTION_HEAD = re.compile(r"^(\d{1,2}\.\d{2}\.\d{3})\s")
NOTES = re.compile(r"^Notes?:")
LEVELS = {"upper": 1, "digit": 2, "lower": 3, "paren": 4}


@dataclass(frozen=True)
class Block:
    """One laid-out piece of a section: ``kind`` heading | para | item | table | notes."""

    kind: str
    start: int  # offsets into the section text
    end: int
    level: int = 0  # 1 for A., 2 for 1., 3 for a., 4 for (1); 0 for running text
    marker: str = ""  # "E", "1", "a", "(1)"
    path: tuple[str, ...] = ()  # ("E", "1") for 17.36.040(E)(1)
    table: str = ""  # "3-2" for a printed table


def _kind_of(match: re.Match) -> tuple[str, str]:
    upper, digit, lower, paren = (match.groups() + (None,))[:4]
    if upper:
        return "upper", upper
    if digit:
        return "digit", digit
    if lower:
        return "lower", lower
    return "paren", f"({paren})"


def _successor(previous: str, marker: str) -> bool:
    if previous.isdigit() and marker.isdigit():
        return int(marker) == int(previous) + 1
    return len(previous) == 1 and len(marker) == 1 and ord(marker) == ord(previous) + 1


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line, end without the newline."""
    out, at = [], 0
    for line in text.split("\n"):
        out.append((at, at + len(line)))
        at += len(line) + 1
    return out


def blocks(text: str, section_id: str = "", title: str = "") -> list[Block]:
    """The section's blocks in text order; together they cover every non-blank character once."""
    layout = _Layout(text, section_id, title)
    for index, (start, end) in enumerate(_lines(text)):
        layout.add_line(index, start, end)
    return layout.out


class _Layout:
    """Laying out one section line by line: the blocks so far, the open subsections, and whether
    the line before was blank or inside a printed table."""

    def __init__(self, text: str, section_id: str, title: str):
        self.text, self.section_id, self.title = text, section_id, title
        self.out: list[Block] = []
        self.last: dict[str, str] = {}  # marker kind -> last marker of that kind in the current branch
        self.path: list[tuple[int, str]] = []  # (level, marker) of the open subsections
        self.in_table = ""
        self.blank_before = True

    def open_item(self, kind: str, marker: str, start: int, end: int) -> None:
        level = LEVELS[kind]
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, marker.strip("()")))
        for deeper, number in LEVELS.items():
            if number > level:
                self.last.pop(deeper, None)
        self.last[kind] = marker.strip("()")
        self.out.append(Block("item", start, end, level, marker, tuple(m for _, m in self.path)))

    def add_line(self, index: int, start: int, end: int) -> None:
        line = self.text[start:end]
        if not line.strip():
            self.blank_before = True
            return
        lead = len(line) - len(line.lstrip())
        start += lead
        line = line.lstrip()
        head = SECTION_HEAD.match(line)
        # The first line is the section's heading, unless the text opens with a printed table (an excerpt that
        # restates only a table: Table 2-2 of 17.22.020 in the telecommunications ordinance).
        first = index == 0 and not (TABLE_HEAD.match(line) and not head)
        if first or (head and (not self.section_id or head.group(1) == self.section_id)):
            self._heading(line, start, end)
        elif not self._table_or_notes(line, start, end):
            self._running(line, start, end)

    def _heading(self, line: str, start: int, end: int) -> None:
        body = _heading_end(line, self.section_id, self.title)
        self.out.append(Block("heading", start, start + body))
        self.path.clear()
        self.last.clear()
        self.in_table = ""
        self.blank_before = True  # the next line starts a paragraph of its own ...
        if body < len(line.rstrip()):
            rest = start + body + (len(line[body:]) - len(line[body:].lstrip()))
            table = TABLE_HEAD.match(self.text[rest:end])
            if table:  # "17.22.020 Allowable land uses ... (excerpt) Table 2-4": a printed table starts there
                self.in_table = table.group(1)
                self.out.append(Block("table", rest, end, table=self.in_table))
            else:
                self.out.append(Block("para", rest, end))
            self.blank_before = False  # ... unless the body began on the heading's line

    def _table_or_notes(self, line: str, start: int, end: int) -> bool:
        """A printed table's head, its notes, or a line of the table: True when the line was one."""
        table = TABLE_HEAD.match(line)
        if table:
            self.in_table = table.group(1)
            self.out.append(Block("table", start, end, table=self.in_table))
        elif NOTES.match(line):
            self.in_table = ""
            self.out.append(Block("notes", start, end))
        elif self.in_table and not ((marker := MARKER.match(line)) and _kind_of(marker)[0] == "upper"):
            previous = self.out[-1]
            self.out[-1] = Block("table", previous.start, end, table=previous.table)
            return True  # a table's line leaves blank_before as it was
        else:
            return False
        self.blank_before = False
        return True

    def _running(self, line: str, start: int, end: int) -> None:
        """A subsection's first line, a paragraph's, or the next line of the block before."""
        self.in_table = ""
        marker = MARKER.match(line)
        out = self.out
        if marker:
            kind, value = _kind_of(marker)
            self.open_item(kind, value, start, end)
        elif self.blank_before or not out:
            level = self.path[-1][0] if self.path else 0
            out.append(Block("para", start, end, level, "", tuple(m for _, m in self.path)))
        else:
            previous = out[-1]
            out[-1] = Block(previous.kind, previous.start, end, previous.level, previous.marker, previous.path,
                            previous.table)
        self.blank_before = False
        _split_inline(self.text, out, self.open_item, self.last, self.path)


def _split_inline(text: str, out: list[Block], open_item, last: dict[str, str], path: list) -> None:
    """Split the last block where a following subsection marker was printed on the same line."""
    while True:
        block = out[-1]
        if block.kind not in ("item", "para"):
            return
        piece = text[block.start:block.end]
        offset = len(block.marker) + 1 if block.marker else 0
        for found in INLINE_MARKER.finditer(piece, offset):
            kind, value = _kind_of(found)
            previous = last.get(kind)
            first_child = value in ("a", "1") and path and path[-1][0] == LEVELS[kind] - 1
            if (previous and _successor(previous, value)) or first_child:
                cut = block.start + found.start()
                out[-1] = Block(block.kind, block.start, cut, block.level, block.marker, block.path, block.table)
                begin = block.start + found.start() + (len(found.group(0)) - len(found.group(0).lstrip()))
                open_item(kind, value, begin, block.end)
                break
        else:
            return


def _heading_end(line: str, section_id: str, title: str) -> int:
    """Where the heading ("17.44.065 Limited Waiver ... Service" [". (excerpt) (17.39.040(A))"]) ends in its line."""
    pattern = re.escape(section_id) + r"\s+" if section_id and line.startswith(section_id) else ""
    if title:
        words = r"\s+".join(re.escape(word) for word in title.split())
        found = re.match(pattern + words + r"\.?(?:\s*\(excerpt\))?(?:\s*\([\d.]+(?:\([A-Za-z0-9]+\))*\))?", line)
        if found:
            return found.end()
    found = re.match(r"SECTION\s+\d+[.:]?[^.]*\.", line)
    if found:
        return found.end()
    return len(line.rstrip())


def anchor_of(blocks_: list[Block], offset: int) -> int:
    """The 1-based number of the block holding ``offset`` (0 when none)."""
    for number, block in enumerate(blocks_, start=1):
        if block.start <= offset < block.end:
            return number
    return 0


def subsection_anchor(blocks_: list[Block], path: tuple[str, ...], text: str = "") -> int:
    """The block number of subsection ``path`` (("E",), ("D", "5")), 0 when it is not printed."""
    wanted = tuple(part.strip("()") for part in path)
    for number, block in enumerate(blocks_, start=1):
        if block.kind == "item" and block.path[-len(wanted):] == wanted and block.path[0] == wanted[0]:
            return number
    for number, block in enumerate(blocks_, start=1):  # an excerpt printing only (17.39.040(D))
        if block.kind == "heading" and re.search(r"\(" + re.escape(wanted[0]) + r"\)\)", text[block.start:block.end]):
            return number
    return 0
