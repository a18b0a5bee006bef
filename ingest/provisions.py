"""Provisions: every section's running text as records, one per list item or unnumbered sentence.

``section_provisions(section)`` reads one ``Section``: its printed outline (``ingest.outline``),
its unnumbered paragraphs split into sentences, its tables' notes; each provision carries its
heading path, label ("17.44.060(E)(1)"), scope, typed values (``ingest.values``), document, date
and source lines. ``effective_provisions`` applies amendments: the latest document's statement of
a label wins, earlier statements are its history; ``load_provisions(as_of=...)`` does it for the
corpus. Table bodies are cells (``ingest.tables``), not provisions; their notes are provisions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .outline import Item, OutlineState, Rejected, glued_markers, line_marker
from .sections import HEADING, HISTORY_NOTE
from .types import Section
from .values import Untyped, Value, read_values, vocab

SENTENCE_END = (".", ":", ";", "?", "!")
CONTEXT_HEADING = re.compile(r"\((\d{1,2}\.\d{2}\.\d{3})\s*((?:\([A-Za-z0-9]{1,4}\))+)\)\s*$")
NOTES_LINE = re.compile(r"^(?:Notes|NOTES)\s*:\s*(.*)$")
NOTE_START = re.compile(r"^(?:\(\d{1,2}\)|\*|\(Ord\.)\s")  # a history note may sit between two notes
HEAD_VERBS = re.compile(r"\b(?:shall|may|must|is|are|will|be|has|have|was|were|should|can|provide|includes?)\b", re.I)
MAX_HEAD_WORDS = 10
UNIT_ABBREVIATIONS = frozenset({"ft", "in"})  # "... 250 sq. ft. Done." ends a sentence before a capital word


@dataclass(frozen=True)
class HistoryEntry:
    text: str
    document: str
    date: str
    values: tuple[Value, ...] = ()


@dataclass(frozen=True)
class Provision:
    section: str
    label: str  # "17.44.060(E)(1)", "17.62.060(C)[s1]", "17.22.020 Table 2-2 note (6)"
    path: tuple[str, ...]  # heading path: section heading, then each list level's "A. Head"
    text: str
    kind: str  # "item" | "sentence" | "note"
    head: str  # the item's printed head ("Colors and Materials"), "" when none
    values: tuple[Value, ...]
    untyped: tuple[Untyped, ...]
    scope: tuple[str, ...]
    document: str
    date: str
    lines: tuple[int, int]  # first and last line in the source file (0: not known)
    history: tuple[HistoryEntry, ...] = ()
    restated: bool = True  # False: a later full restatement of the section does not print this label
    order: int = 0  # position in its section, for stable listing

    def to_json(self) -> dict:
        return {
            "section": self.section, "label": self.label, "path": list(self.path), "text": self.text,
            "kind": self.kind, "head": self.head, "values": [v.to_json() for v in self.values],
            "untyped": [u.to_json() for u in self.untyped], "scope": list(self.scope),
            "document": self.document, "date": self.date, "lines": list(self.lines),
            "history": [{"text": h.text, "document": h.document, "date": h.date,
                         "values": [v.to_json() for v in h.values]} for h in self.history],
            "restated": self.restated,
        }


@dataclass(frozen=True)
class SectionReading:
    """What reading one section gave: provisions, marker-like tokens not taken, skipped lines' numbers."""

    provisions: tuple[Provision, ...]
    rejected: tuple[Rejected, ...]
    skipped: tuple[Untyped, ...]  # numbers on lines that are not running text (history notes)
    table_lines: frozenset[int] = frozenset()


# --- regions of a section's lines ------------------------------------------------------------------


@dataclass
class _Regions:
    skip: set[int] = field(default_factory=set)  # headings, history notes, table bodies
    notes: list[tuple[str, list[int]]] = field(default_factory=list)  # (table number, line indices)
    contexts: dict[int, tuple[str, ...]] = field(default_factory=dict)  # line -> outline seed
    table_lines: set[int] = field(default_factory=set)


def _regions(section: Section, lines: list[str]) -> _Regions:
    regions = _Regions()
    for index, line in enumerate(lines):
        heading = HEADING.match(line)
        if heading and (heading.group(1) == section.id or section.id.endswith(heading.group(1))) and (
                index == 0 or CONTEXT_HEADING.search(line) or _titled(heading.group(2), section.title)):
            regions.skip.add(index)
            context = CONTEXT_HEADING.search(line)
            if context:
                regions.contexts[index] = tuple(re.findall(r"\(([A-Za-z0-9]{1,4})\)", context.group(2)))
            elif index:
                regions.contexts[index] = ()
        elif HISTORY_NOTE.match(line) and not line_marker(line):
            regions.skip.add(index)
    for start, end, notes, number in _tables(section, lines):
        regions.table_lines.update(range(start, end))
        regions.skip.update(range(start, end))
        if notes:
            regions.skip.update(notes)
            regions.notes.append((number, notes))
    return regions


def _heading_run_on(line: str, section: Section) -> str:
    """The running text printed on the section's heading line after its title (PDF extraction
    joins a heading with no period to the first sentence), or ""."""
    heading = HEADING.match(line)
    title = section.title.strip()
    if not heading or not title or not heading.group(2).lower().startswith(title.lower()):
        return ""
    rest = heading.group(2)[len(title):].lstrip(" .:").strip()
    return rest if len(rest.split()) >= 3 and rest[:1].isupper() else ""


def _titled(rest: str, title: str) -> bool:
    """A section number inside the text heads a part only when the section's title follows it
    (not "... Section\n17.62.070 F. below.")."""
    first = title.split()[:2]
    return bool(first) and rest.lower().startswith(" ".join(first).lower())


def _tables(section: Section, lines: list[str]):
    """(first line, end line, note lines, number) of each table the section prints."""
    from .tables.extract import layout_for
    from .tables.segment import find_tables

    blocks = find_tables(section.text)
    for position, block in enumerate(blocks):
        start = block.first_line
        stop = blocks[position + 1].first_line if position + 1 < len(blocks) else len(lines)
        spec = layout_for(section.id, block) or {}
        end = stop
        for index in range(start + 1, stop):
            if NOTES_LINE.match(lines[index]) or any(re.match(p, lines[index]) for p in spec.get("end", [])):
                end = index
                break
        notes: list[int] = []
        if end < stop and NOTES_LINE.match(lines[end]):
            index = end + 1
            notes_open = True
            while index < stop and notes_open:
                text = lines[index]
                if not text.strip():
                    index += 1
                    continue
                continues = notes and not lines[notes[-1]].rstrip().endswith(SENTENCE_END)
                if NOTE_START.match(text) or continues:
                    notes.append(index)
                    index += 1
                else:
                    notes_open = False
            end += 1  # the "Notes:" line itself
        yield start, end, notes, block.number


# --- the outline -------------------------------------------------------------------------------


def read_outline(lines: Sequence[str], indices: Iterable[int], lenient: bool = False,
                 contexts: dict[int, tuple[str, ...]] | None = None) -> tuple[list[Item], list[Rejected]]:
    """Items and paragraphs of the given lines, in order, and the marker-like tokens not taken."""
    contexts = contexts or {}
    state = OutlineState(lenient_start=lenient)
    items: list[Item] = []
    rejected: list[Rejected] = []
    blank = True
    for index in sorted(set(indices) | set(contexts)):
        if index in contexts:
            state = OutlineState(contexts[index], lenient_start=True)
            blank = True
            continue
        text = lines[index].strip()
        if not text:
            blank = True
            continue
        position = 0
        found = line_marker(text)
        if found:
            token, paren, end = found
            previous = items[-1].text if items else ""
            taken, reason = state.take(token, paren, True, previous.rstrip().endswith(":"))
            if taken:
                items.append(_new_item(state, token, index, items))
                position = end
            else:
                rejected.append(Rejected(token, index, reason))
        for token, paren, start, end, after_colon in glued_markers(text, position):
            taken, reason = state.take(token, paren, False, after_colon)
            if not taken:
                rejected.append(Rejected(token, index, reason))
                continue
            _add_text(items, text[position:start], index, blank and position == 0, state)
            blank = False
            items.append(_new_item(state, token, index, items))
            position = end
        _add_text(items, text[position:], index, blank and position == 0 and not found_taken(items, index, found),
                  state)
        blank = False
    return items, rejected


def found_taken(items: list[Item], index: int, found) -> bool:
    return bool(found) and bool(items) and items[-1].first == index and bool(items[-1].marker)


def _new_item(state: OutlineState, token: str, index: int, items: list[Item]) -> Item:
    path = state.labels()
    for item in reversed(items):
        if item.marker and item.path == path[:-1]:
            item.children += 1
            break
    return Item(path=path, marker=token, text="", first=index, last=index)


def _add_text(items: list[Item], text: str, index: int, new_paragraph: bool, state: OutlineState) -> None:
    text = text.strip()
    if not text:
        return
    current = items[-1] if items else None
    ended = current is not None and current.text.rstrip().endswith(SENTENCE_END)
    starts_new = current is None or (new_paragraph and (ended or not current.text)) or (
        current.text.rstrip().endswith(SENTENCE_END) and text[:1].isupper() and current.text
        and not (current.marker and not current.children and current.text.rstrip().endswith(":"))
    )
    if current is not None and current.first == index and current.marker and not current.text:
        starts_new = False  # the text right after a marker on the same line
    if not starts_new:
        current.text = f"{current.text} {text}".strip()
        current.last = index
        return
    items.append(Item(path=_paragraph_parent(current, text), marker="", text=text, first=index, last=index))


def _paragraph_parent(current: Item | None, text: str) -> tuple[str, ...]:
    """Where an unnumbered paragraph belongs: the item before it when that item is top-level and
    has no list yet (a lettered subsection's second paragraph) or when it introduces a list;
    else the parent of the list it follows."""
    if current is None:
        return ()
    if not current.marker:
        return current.path
    if (len(current.path) == 1 and not current.children) or text.rstrip().endswith(":"):
        return current.path
    return current.path[:-1]


def _merge_paragraphs(items: list[Item]) -> list[Item]:
    """A paragraph that belongs to an item (a subsection's second paragraph) is part of its text."""
    out: list[Item] = []
    for item in items:
        owner = next((o for o in reversed(out) if o.marker and o.path == item.path), None) if not item.marker else None
        if owner is not None and out and out[-1] is owner:
            owner.text = f"{owner.text}\n{item.text}"
            owner.last = item.last
            continue
        out.append(item)
    return out


# --- sentences and heads --------------------------------------------------------------------------


def split_sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) of each sentence; abbreviations ("sq. ft.", "e.g.", "Sec.") do not end one."""
    abbreviations = vocab().abbreviations
    out: list[tuple[int, str]] = []
    start = 0
    for match in re.finditer(r"[.?!][\"”')]*\s+(?=[\"“(]?[A-Z0-9])", text):
        before = text[start:match.start() + 1]
        word = re.search(r"([A-Za-z.]+)\.$", before)
        unit_end = word and word.group(1).lower() in UNIT_ABBREVIATIONS and text[match.end():match.end() + 1].isalpha()
        if word and (word.group(1).lower() in abbreviations or len(word.group(1)) == 1) and not unit_end:
            continue
        if re.search(r"\d\.$", before) and re.match(r"\d", text[match.end():]):
            continue
        out.append((start, text[start:match.end()].strip()))
        start = match.end()
    if text[start:].strip():
        out.append((start, text[start:].strip()))
    return out


def item_head(text: str) -> str:
    """ "Colors and Materials. All antennas ..." -> "Colors and Materials"; "" when the item has no head."""
    first = split_sentences(text)[0][1] if text else ""
    head = first.rstrip(" .:")
    words = head.split()
    if not words or len(words) > MAX_HEAD_WORDS or HEAD_VERBS.search(head) or not head[:1].isupper():
        return ""
    if len(first) < len(text.strip()) or first.rstrip().endswith((".", ":")) or len(words) <= MAX_HEAD_WORDS:
        return head
    return ""


# --- records -------------------------------------------------------------------------------------


def section_heading(section: Section) -> str:
    return f"{section.id} {section.title}".strip()


def _label(section_id: str, path: tuple[str, ...]) -> str:
    return section_id + "".join(f"({token})" for token in path)


def read_section(section: Section) -> SectionReading:
    lines = section.text.split("\n")
    regions = _regions(section, lines)
    opening = _heading_run_on(lines[0], section) if 0 in regions.skip else ""
    if opening:  # "17.44.065 Limited Waiver ... Service In the event that ...": the text after the title is text
        lines[0] = opening
        regions.skip.discard(0)
    running = [i for i in range(len(lines)) if i not in regions.skip]
    items, rejected = read_outline(lines, running, section.excerpt, regions.contexts)
    items = _merge_paragraphs(items)
    provisions: list[Provision] = []
    heads: dict[tuple[str, ...], str] = {}
    counters: dict[tuple[str, ...], int] = {}
    labels: dict[str, int] = {}
    for item in items:
        if item.marker:
            head = item_head(item.text)
            heads[item.path] = f"{item.marker}. {head}" if head else f"{item.marker}. {_gist(item.text)}"
            path = _heading_path(section, heads, item.path, head)
            label = _unique(_label(section.id, item.path), labels)
            provisions.append(_provision(section, label, path, item.text, "item", head, item.first, item.last))
            continue
        path = _heading_path(section, heads, item.path, "", include_self=True)
        for _, sentence in split_sentences(item.text):
            counters[item.path] = counters.get(item.path, 0) + 1
            label = f"{_label(section.id, item.path)}[s{counters[item.path]}]"
            provisions.append(_provision(section, label, path, sentence, "sentence", "", item.first, item.last))
    for number, note_lines in regions.notes:
        provisions.extend(_notes(section, lines, number, note_lines, rejected))
    skipped = tuple(u for i in sorted(regions.skip - regions.table_lines) for u in read_values(lines[i])[1])
    ordered = tuple(_replace(p, order=n) for n, p in enumerate(provisions))
    return SectionReading(ordered, tuple(rejected), skipped, frozenset(regions.table_lines))


def _notes(section: Section, lines: list[str], number: str, indices: list[int], rejected: list[Rejected]):
    items, more = read_outline(lines, indices, lenient=True)  # notes may run on from another page's
    rejected.extend(more)
    path = (section_heading(section), f"Table {number} notes")
    out = []
    for item in items:
        label = f"{section.id} Table {number} note ({item.marker or '-'})"
        out.append(_provision(section, label, path, item.text, "note", "", item.first, item.last))
    return out


def _gist(text: str, words: int = 8) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def _heading_path(section: Section, heads: dict, path: tuple[str, ...], head: str,
                  include_self: bool = False) -> tuple[str, ...]:
    out = [section_heading(section)]
    for depth in range(1, len(path) + (1 if include_self else 0)):
        out.append(heads.get(path[:depth], ""))
    if head and not include_self:
        out.append(heads[path])
    return tuple(part for part in out if part)


def _unique(label: str, seen: dict[str, int]) -> str:
    seen[label] = seen.get(label, 0) + 1
    return label if seen[label] == 1 else f"{label}#{seen[label]}"


def _provision(section: Section, label: str, path: tuple[str, ...], text: str, kind: str, head: str,
               first: int, last: int) -> Provision:
    values, untyped = read_values(text)
    lines = section.source_lines
    span = (lines[first][0], lines[last][1]) if lines and last < len(lines) else (0, 0)
    return Provision(section.id, label, path, text, kind, head, values, untyped,
                     scope_of(section.id, path, head), section.document, section.date, span)


def _replace(provision: Provision, **changes) -> Provision:
    return Provision(**{**provision.__dict__, **changes})


# --- scope ------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _scope_patterns() -> tuple[tuple[str, re.Pattern], ...]:
    data = vocab().raw["scope_terms"]
    return tuple((label, re.compile(pattern, re.I)) for label, pattern in data.items() if not label.startswith("_"))


@lru_cache(maxsize=1)
def _district_pattern() -> re.Pattern:
    from .tables.vocab import vocabulary

    return re.compile(rf"\b(?:{vocabulary().symbol_pattern})\b")


def scope_of(section_id: str, path: tuple[str, ...], head: str) -> tuple[str, ...]:
    """Districts, project and facility kinds, uses named in the heading path or the item's head."""
    chapter = section_id.rsplit(".", 1)[0]
    found: list[str] = list(vocab().raw["chapter_scope"].get(chapter, []))
    text = " ".join(path[1:]) + " " + (path[0] if path else "") + " " + head
    for label, pattern in _scope_patterns():
        if pattern.search(text) and label not in found:
            found.append(label)
    if "multifamily" in found and any(label.startswith("multifamily ") for label in found):
        found.remove("multifamily")
    for district in _district_pattern().findall(" ".join(path[1:]) + " " + head):
        if district not in found:
            found.append(district)
    return tuple(found)


# --- amendments ------------------------------------------------------------------------------------


def effective_provisions(provisions: Iterable[Provision], excerpts: dict[tuple[str, str], bool] | None = None,
                         as_of: str | None = None) -> list[Provision]:
    """The latest statement of each (section, label) wins; earlier ones become its history.

    A document that restates a whole section (not an excerpt, ``excerpts[(document, section)]``
    False) and does not print an earlier label leaves it in force, marked ``restated=False``
    (as tables do: a restatement that omits a row may be extraction damage, not a repeal).
    """
    excerpts = excerpts or {}
    chosen = [p for p in provisions if not as_of or (p.date and p.date <= as_of)]
    by_section: dict[str, list[Provision]] = {}
    for provision in chosen:
        by_section.setdefault(provision.section, []).append(provision)
    out: list[Provision] = []
    for section_id in by_section:
        out.extend(_apply(by_section[section_id], excerpts))
    return out


def _apply(provisions: list[Provision], excerpts: dict[tuple[str, str], bool]) -> list[Provision]:
    documents = sorted({(p.date, p.document) for p in provisions})
    current: dict[str, Provision] = {}
    for date, document in documents:
        stated = [p for p in provisions if p.document == document]
        full = not excerpts.get((document, stated[0].section), True) if stated else False
        printed = {p.label for p in stated}
        for provision in stated:
            earlier = current.get(provision.label)
            history = () if earlier is None else earlier.history + (
                HistoryEntry(earlier.text, earlier.document, earlier.date, earlier.values),)
            current[provision.label] = _replace(provision, history=history, restated=True)
        if full:
            for label, provision in current.items():
                if label not in printed:
                    current[label] = _replace(provision, restated=False)
    rank = {label: n for n, label in enumerate(_label_order(provisions, documents))}
    return sorted(current.values(), key=lambda p: rank.get(p.label, 0))


def _label_order(provisions: list[Provision], documents: list[tuple[str, str]]) -> list[str]:
    """Labels in reading order: the latest document's order, earlier-only labels after their predecessor."""
    order: list[str] = []
    for _, document in documents:
        for provision in sorted((p for p in provisions if p.document == document), key=lambda p: p.order):
            if provision.label not in order:
                order.append(provision.label)
    return order


def provisions_of(sections: Iterable[Section]) -> tuple[list[Provision], list[SectionReading]]:
    readings = [read_section(section) for section in sections]
    return [p for reading in readings for p in reading.provisions], readings


def load_provisions(corpus_dir: str | Path | None = None, as_of: str | None = None) -> list[Provision]:
    """Effective provisions of the corpus (amendments applied; documents dated after ``as_of`` ignored)."""
    from . import load_corpus

    sections = load_corpus(corpus_dir).sections
    provisions, _ = provisions_of(sections)
    excerpts = {(s.document, s.id): s.excerpt for s in sections}
    return effective_provisions(provisions, excerpts, as_of)
