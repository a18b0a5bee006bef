"""Split a cleaned document into code sections and ordinance sections.

An ordinance is a series of ``SECTION N:`` parts. A part whose header amends code sections
("Section 17.36.040 ... is amended", "Chapter 17.44 is amended") yields those code sections,
found by their headings inside the part; a part that restates one named section without a
heading yields that section whole. Every part also yields an ordinance section
(``<document>:SECTION-N``) holding its header and whatever text no code section claimed, so no
line of the document is lost.

Codified text (as downloaded from the online code) lost its section headings in extraction;
it is split at history notes ("(Ord. 766 ...)"), which end every section, and each block is
named by the running head printed at the page breaks inside it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .types import DocumentInfo, Line, Section

ORDINANCE_PART = re.compile(r"^SECTION\s+(\d+)\s*[:.]\s*(.*)$")
CODE_NUMBER = re.compile(r"\b(\d{1,2}\.\d{2}(?:\.\d{3})?)\b")
HEADING = re.compile(r"^(?:§\s*|Section\s+)?(\d{1,2}\.\d{2}\.\d{3})\s+([A-Z\"“].*)$")
TOC_START = re.compile(r"^Sections:\s*$")
HISTORY_NOTE = re.compile(r"^\(.*\bOrd\.?\s*\d+.*\)\.?$|^\(.*\(part\).*\)$")
EXCERPT = re.compile(r"\(excerpt\)", re.IGNORECASE)
TRAILING_REFERENCE = re.compile(r"\s*(?:\((?:\d+\.)+\d+\s*(?:\([^)]*\))*\)|Tables?\s+\d+-\d+(?:\s*(?:and|,)\s*\d+-\d+)*)\s*$")
HEADER_TITLE_END = re.compile(
    r"\s+(?:is|are)\s+(?:hereby\s+)?amended\b|,?\s+Tables?\s+\d|,\s*Subsection\b|\s+[A-Z]\.\s", re.IGNORECASE
)
FUNCTION_WORDS = frozenset("a an and as at by for from in of on or the to with".split())
LONG_TITLE_WORDS = 10
NUMBER_STEP = 10  # Cotati numbers sections 010, 020, 030 ...


@dataclass
class _Part:
    """Lines of one ordinance part or codified block while they are being assigned."""

    number: str
    header: str
    lines: list[tuple[int, Line]] = field(default_factory=list)  # (line index, line)


def split_sections(
    document: DocumentInfo, lines: Sequence[Line], known_titles: Mapping[str, str] | None = None
) -> list[Section]:
    """Sections of one cleaned document, in document order, same-id parts merged."""
    known_titles = known_titles or {}
    offsets = _line_offsets(lines)
    if document.kind == "codified chapter":
        raw = _codified_sections(document, lines, offsets, known_titles)
    else:
        raw = _ordinance_sections(document, lines, offsets, known_titles)
    return _merge_same_id(raw)


def headings_in(lines: Sequence[Line]) -> dict[str, str]:
    """Titles of every code-section heading in a document: the registry other documents borrow from."""
    titles: dict[str, str] = {}
    for line in lines:
        match = HEADING.match(line.text)
        if match:
            title, _ = parse_heading_title(match.group(2))
            if title and match.group(1) not in titles:
                titles[match.group(1)] = title
    return titles


def cleaned_text(lines: Sequence[Line]) -> str:
    """The document text that section offsets point into."""
    return "\n".join(line.text for line in lines)


def _line_offsets(lines: Sequence[Line]) -> list[int]:
    offsets, position = [], 0
    for line in lines:
        offsets.append(position)
        position += len(line.text) + 1
    return offsets


# --- ordinances -------------------------------------------------------------------------


def _ordinance_sections(document, lines, offsets, known_titles) -> list[Section]:
    parts = _ordinance_parts(lines)
    sections: list[Section] = []
    for part in parts:
        sections.extend(_part_sections(document, part, offsets, known_titles))
    return sections


def _ordinance_parts(lines: Sequence[Line]) -> list[_Part]:
    parts = [_Part(number="PREAMBLE", header="")]
    for index, line in enumerate(lines):
        match = ORDINANCE_PART.match(line.text)
        if match:
            parts.append(_Part(number=match.group(1), header=line.text))
        parts[-1].lines.append((index, line))
    return [part for part in parts if any(line.text for _, line in part.lines)]


def _part_sections(document, part: _Part, offsets, known_titles) -> list[Section]:
    scope = CODE_NUMBER.findall(part.header)
    named = [number for number in scope if number.count(".") == 2]
    chapters = {number.rsplit(".", 1)[0] if number.count(".") == 2 else number for number in scope}
    label = "" if part.number == "PREAMBLE" else f"SECTION {part.number}"
    starts = _heading_starts(part, named, chapters)
    claimed: list[tuple[str, str, list[tuple[int, Line]], bool]] = []  # id, title, lines, excerpt
    if starts:
        for n, (position, number, title, excerpt) in enumerate(starts):
            end = starts[n + 1][0] if n + 1 < len(starts) else len(part.lines)
            claimed.append((number, title, part.lines[position:end], excerpt))
        rest = part.lines[: starts[0][0]]
    elif len(named) == 1 and len(part.lines) > 1:
        # The header names one section and the body restates it without a heading.
        number = named[0]
        title = _title_from_header(part.header, number) or known_titles.get(number, "")
        claimed.append((number, title, part.lines[1:], bool(EXCERPT.search(part.header))))
        rest = part.lines[:1]
    else:
        rest = part.lines
    sections = [
        _make_section(document, number, title or known_titles.get(number, ""), body, offsets, excerpt, label)
        for number, title, body, excerpt in claimed
    ]
    if any(line.text for _, line in rest):
        sections.insert(0, _ordinance_record(document, part, rest, offsets, label))
    return sections


def _heading_starts(part: _Part, named: list[str], chapters: set[str]):
    """(position in part, section id, title, excerpt) for each code-section heading in scope."""
    starts = []
    opened: set[str] = set()
    in_toc = False
    for position, (_, line) in enumerate(part.lines):
        if TOC_START.match(line.text):
            in_toc = True
            continue
        match = HEADING.match(line.text)
        number = _in_scope(match.group(1), named, chapters) if match else None
        if in_toc:
            # The chapter's list of sections ends where a listed number appears a second time.
            if number and number not in opened:
                opened.add(number)
                continue
            in_toc = False
            opened.clear()
        if not number or number in {start[1] for start in starts}:
            continue
        title, excerpt = parse_heading_title(match.group(2))
        if not title:
            continue
        starts.append((position, number, title, excerpt))
    return starts


def _in_scope(number: str, named: list[str], chapters: set[str]) -> str | None:
    """The section id a heading number stands for, if the part's header covers it."""
    if number in named or number.rsplit(".", 1)[0] in chapters:
        return number
    # A heading that lost a leading digit in print ("7.88.040" for 17.88.040).
    repaired = [name for name in named if name.endswith("." + number.split(".", 1)[1]) and name.endswith(number)]
    return repaired[0] if len(repaired) == 1 else None


def parse_heading_title(rest: str) -> tuple[str, bool]:
    """Title of a heading line's text after the number, and whether it is marked an excerpt."""
    excerpt = bool(EXCERPT.search(rest))
    text = EXCERPT.sub(" ", rest)
    text = " ".join(text.split())
    while True:
        trimmed = TRAILING_REFERENCE.sub("", text).strip()
        if trimmed == text:
            break
        text = trimmed
    period = re.search(r"\.(?:\s|$)", text)
    title = text[: period.start()] if period else text
    if not period or len(title.split()) > LONG_TITLE_WORDS:
        # No period, or a "title" that reads like a sentence: the heading ran into its text.
        title = _title_run(title.split()) or title
    if title.isupper():
        title = title.capitalize()
    return title.strip(" ,;:"), excerpt


def _title_run(words: list[str]) -> str:
    """Leading words of a heading that runs into its text without a period.

    "Limited Waiver to Avoid Prohibitions of Service In the event that ..." -> the title ends
    before the capitalised word that starts the sentence.
    """
    for index, word in enumerate(words):
        if word[:1].islower() and word.lower() not in FUNCTION_WORDS:
            start = index
            while start > 0 and words[start - 1].lower() in FUNCTION_WORDS and words[start - 1][:1].islower():
                start -= 1
            if start > 0 and words[start - 1][:1].isupper():
                start -= 1
            return " ".join(words[:start])
    return " ".join(words)


def _title_from_header(header: str, number: str) -> str:
    """Title written after the section number in an ordinance part's header, if any."""
    after = header.split(number, 1)[1] if number in header else ""
    after = after.lstrip(" ,")
    if not after:
        return ""
    if re.match(r"Tables?\s+\d", after):
        return ""
    end = HEADER_TITLE_END.search(after)
    title = after[: end.start()] if end else ""
    title = re.sub(r"\(.*?\)", "", title)
    return title.strip(" ,.;:")


def _ordinance_record(document, part: _Part, rest, offsets, label) -> Section:
    if part.number == "PREAMBLE":
        section_id = f"{document.id}:PREAMBLE"
        title = "Title and recitals"
    else:
        section_id = f"{document.id}:SECTION-{part.number}"
        title = ORDINANCE_PART.match(part.header).group(2).strip()
    return _build(document, section_id, title.rstrip(". "), "", rest, offsets, False, label, "ordinance")


def _make_section(document, number, title, body, offsets, excerpt, label) -> Section:
    chapter = number.rsplit(".", 1)[0]
    return _build(document, number, title, chapter, body, offsets, excerpt, label, "code")


def _build(document, section_id, title, chapter, body, offsets, excerpt, label, kind) -> Section:
    text_lines = [(index, line) for index, line in body if not line.page_break]
    while text_lines and not text_lines[-1][1].text:
        text_lines.pop()
    while text_lines and not text_lines[0][1].text:
        text_lines.pop(0)
    if not text_lines:
        text_lines = [body[0]]
    first, last = text_lines[0][0], text_lines[-1][0]
    kept = [line for n, (_, line) in enumerate(text_lines)
            if line.text or n == 0 or text_lines[n - 1][1].text]  # one blank line between paragraphs
    text = "\n".join(line.text for line in kept)
    return Section(
        id=section_id,
        title=title,
        chapter=chapter,
        document=document.id,
        date=document.date,
        text=text,
        start=offsets[first],
        end=offsets[last] + len(text_lines[-1][1].text),
        pages=tuple(sorted({line.page for _, line in text_lines})),
        excerpt=excerpt,
        ordinance_section=label,
        kind=kind,
        source_lines=tuple((line.number, line.last) for line in kept),
    )


# --- codified chapters --------------------------------------------------------------------


def _codified_sections(document, lines, offsets, known_titles) -> list[Section]:
    blocks: list[_Part] = [_Part(number="", header="")]
    for index, line in enumerate(lines):
        blocks[-1].lines.append((index, line))
        if HISTORY_NOTE.match(line.text):
            blocks.append(_Part(number="", header=""))
    blocks = [block for block in blocks if any(line.text for _, line in block.lines)]
    numbers = _number_blocks(blocks, document.chapter)
    return [
        _make_section(document, number, known_titles.get(number, ""), block.lines, offsets, False, "")
        for number, block in zip(numbers, blocks)
    ]


def _number_blocks(blocks: list[_Part], chapter: str) -> list[str]:
    """Section id of each history-note block, read from the running heads at its page breaks.

    The first running head of a break names the section at the top of the following page, so
    it belongs to the block the break sits in. A block with no break inside takes the number
    after (or before) its neighbour's.
    """
    found: list[str | None] = []
    for block in blocks:
        # A break after the block's last text line heads the next page, not this block.
        text_end = max(position for position, (_, line) in enumerate(block.lines) if line.text)
        heads_inside = [
            line.heads[0] for position, (_, line) in enumerate(block.lines)
            if line.page_break and line.heads and position < text_end
        ]
        found.append(heads_inside[0] if heads_inside else None)
    for index in range(len(found)):
        if found[index] is None:
            found[index] = _neighbour_number(found, index, chapter)
    return [number or f"{chapter}.{(index + 1) * NUMBER_STEP:03d}" for index, number in enumerate(found)]


def _neighbour_number(found: list[str | None], index: int, chapter: str) -> str | None:
    for step, direction in ((1, 1), (1, -1)):
        neighbour = index + direction
        if 0 <= neighbour < len(found) and found[neighbour]:
            prefix, last = found[neighbour].rsplit(".", 1)
            value = int(last) - direction * NUMBER_STEP
            if value > 0:
                return f"{prefix}.{value:03d}"
    return None


# --- merging --------------------------------------------------------------------------------


def _merge_same_id(sections: list[Section]) -> list[Section]:
    """One record per section id: a document that amends a section in two parts gives both texts."""
    merged: dict[str, Section] = {}
    for section in sections:
        earlier = merged.get(section.id)
        if earlier is None:
            merged[section.id] = section
            continue
        labels = [label for label in (earlier.ordinance_section, section.ordinance_section) if label]
        merged[section.id] = Section(
            id=earlier.id,
            title=earlier.title or section.title,
            chapter=earlier.chapter,
            document=earlier.document,
            date=earlier.date,
            text=f"{earlier.text}\n{section.text}",
            start=earlier.start,
            end=section.end,
            pages=tuple(sorted(set(earlier.pages) | set(section.pages))),
            excerpt=earlier.excerpt and section.excerpt,
            ordinance_section="; ".join(dict.fromkeys(labels)),
            kind=earlier.kind,
            source_lines=earlier.source_lines + section.source_lines,
        )
    return list(merged.values())
