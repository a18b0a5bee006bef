"""Chunking: one chunk per section; long sections split into passages that fit the encoder.

all-MiniLM-L6-v2 reads 256 word pieces and silently drops the rest, so every chunk (heading +
passage + the two special tokens) must fit. The build counts pieces with the model's own
tokenizer; without one (tests, fake encoders) a conservative estimate is used instead.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, Callable, Iterable, Sequence

from .types import Chunk, TableRowText

CHUNKER_VERSION = 1  # bump when splitting rules change: part of the index key
MAX_PIECES = 256  # all-MiniLM-L6-v2 max_seq_length
SPECIAL_PIECES = 2  # [CLS] and [SEP]
MAX_HEADING_PIECES = 48  # a runaway title must not eat the passage budget

CountPieces = Callable[[str], int]

_RUN = re.compile(r"[A-Za-z]+|\d+|\S")
_SENTENCE_END = re.compile(r"(?<=[.;:!?])\s+(?=[\"'“(•]?[A-Z0-9•])")
_CAPTION = re.compile(
    r"(?:^|(?<=\s))Tables?\s+(\d+\s?[-\u2010-\u2015\u2212]\s?\d+)\s*$|^\s*Tables?\s+(\d+\s?[-\u2010-\u2015\u2212]\s?\d+)\b",
    re.MULTILINE,
)


def estimate_pieces(text: str) -> int:
    """Upper estimate of the WordPiece count of ``text`` (no special tokens).

    Rule: a run of ASCII letters costs ceil(len/4), a run of digits ceil(len/3), any other
    character 1. On the Cotati corpus it overestimates every 150-word window (lowest ratio
    1.04, median 1.44), so chunks cut by it are never truncated by the real tokenizer.
    """
    n = 0
    for m in _RUN.finditer(text):
        t = m.group()
        c = t[0]
        if c.isascii() and c.isalpha():
            n += math.ceil(len(t) / 4)
        elif c.isdigit():
            n += math.ceil(len(t) / 3)
        else:
            n += 1
    return n


def table_captions(text: str) -> tuple[str, ...]:
    """Table numbers captioned in ``text``: a line that starts or ends with "Table 2-4"
    (a mention inside a sentence is a reference, not the table)."""
    found: list[str] = []
    for m in _CAPTION.finditer(text):
        num = re.sub(r"\s?[-\u2010-\u2015\u2212]\s?", "-", m.group(1) or m.group(2))
        if num not in found:
            found.append(num)
    return tuple(found)


def _heading(section: Any, count: CountPieces) -> str:
    label = section.id
    if getattr(section, "kind", "code") == "ordinance" and getattr(section, "ordinance_section", ""):
        label = section.ordinance_section
    heading = f"{label} {section.title}".strip()
    if count(heading) > MAX_HEADING_PIECES:
        words, kept = heading.split(), []
        for w in words:
            if count(" ".join(kept + [w])) > MAX_HEADING_PIECES:
                break
            kept.append(w)
        heading = " ".join(kept)
    return heading


def _hard_cut(word: str, budget: int, count: CountPieces) -> list[str]:
    """Cut a token with no spaces (extraction garbage) into slices that each fit the budget."""
    out, start, size = [], 0, max(1, budget)
    while start < len(word):
        piece = word[start : start + size]
        while count(piece) > budget and len(piece) > 1:
            piece = piece[: max(1, len(piece) // 2)]
        out.append(piece)
        start += len(piece)
    return out


def _units(text: str, budget: int, count: CountPieces) -> list[tuple[str, str, int]]:
    """(separator, text, pieces) units no larger than ``budget``; the separator ("\\n" or " ")
    lets the passage be re-joined exactly as the lines and sentences were."""
    units: list[tuple[str, str, int]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        c = count(line)
        if c <= budget:
            units.append(("\n", line, c))
            continue
        sep = "\n"
        for sentence in _SENTENCE_END.split(line):
            c = count(sentence)
            if c <= budget:
                units.append((sep, sentence, c))
                sep = " "
                continue
            words: list[str] = []
            for w in sentence.split():
                words.extend(_hard_cut(w, budget, count) if count(w) > budget else [w])
            cur: list[str] = []
            cc = 0
            for w in words:
                wc = count(w)
                if cur and cc + wc > budget:
                    units.append((sep, " ".join(cur), cc))
                    sep, cur, cc = " ", [], 0
                cur.append(w)
                cc += wc
            if cur:
                units.append((sep, " ".join(cur), cc))
                sep = " "
    return units


def split_passages(text: str, budget: int, count: CountPieces = estimate_pieces) -> list[str]:
    """Split ``text`` into passages of at most ``budget`` pieces, of roughly equal size
    (so a section does not end in a three-word stub), cutting at lines, then sentences, then words."""
    units = _units(text, budget, count)
    if not units:
        return []
    total = sum(c for _, _, c in units)
    target = math.ceil(total / math.ceil(total / budget)) if total else budget
    passages: list[str] = []
    cur: list[tuple[str, str]] = []
    cc = 0
    for sep, unit, c in units:
        if cur and (cc + c > budget or cc >= target):
            passages.append(_join(cur))
            cur, cc = [], 0
        cur.append((sep, unit))
        cc += c
    if cur:
        passages.append(_join(cur))
    return passages


def _join(units: Sequence[tuple[str, str]]) -> str:
    return "".join((sep if i else "") + text for i, (sep, text) in enumerate(units))


def as_table_row(row: Any) -> TableRowText:
    if isinstance(row, TableRowText):
        return row
    if isinstance(row, dict):
        return TableRowText(**{k: v for k, v in row.items() if k in TableRowText.__dataclass_fields__})
    section, document, text = row  # (section id, document, text)
    return TableRowText(section=section, document=document, text=text)


def chunk_corpus(
    sections: Iterable[Any],
    table_rows: Iterable[Any] = (),
    *,
    max_pieces: int = MAX_PIECES,
    count_pieces: CountPieces | None = None,
) -> tuple[Chunk, ...]:
    """Chunks for all sections (``ingest.types.Section`` or look-alikes) and optional table rows
    (``TableRowText``, a dict with its fields, or a ``(section, document, text)`` tuple)."""
    if max_pieces < MAX_HEADING_PIECES + SPECIAL_PIECES + 16:
        raise ValueError(f"max_pieces={max_pieces} leaves no room for a passage after the heading")
    count = count_pieces or estimate_pieces
    chunks: list[Chunk] = []
    seen: Counter[tuple[str, str]] = Counter()
    meta: dict[tuple[str, str], Any] = {}
    by_id: dict[str, Any] = {}  # fallback owner: the section in any document (the latest seen)
    for s in sections:
        key = (s.document, s.id)
        seen[key] += 1
        meta.setdefault(key, s)
        by_id[s.id] = s
        stem = f"{s.document}/{s.id}" + (f"@{seen[key]}" if seen[key] > 1 else "")
        heading = _heading(s, count)
        budget = max_pieces - SPECIAL_PIECES - count(heading)
        passages = split_passages(s.text, budget, count) or [""]
        for i, passage in enumerate(passages, 1):
            chunks.append(
                Chunk(
                    id=f"{stem}/p{i:02d}",
                    section=s.id,
                    document=s.document,
                    title=s.title,
                    chapter=getattr(s, "chapter", ""),
                    date=getattr(s, "date", ""),
                    pages=tuple(getattr(s, "pages", ())),
                    heading=heading,
                    text=passage,
                    part=i,
                    parts=len(passages),
                    kind="section",
                    tables=table_captions(passage),
                    excerpt=bool(getattr(s, "excerpt", False)),
                )
            )
    rows_seen: Counter[tuple[str, str]] = Counter()
    for raw in table_rows:
        row = as_table_row(raw)
        if not row.text.strip():
            continue
        owner = meta.get((row.document, row.section)) or by_id.get(row.section)
        title = row.title or (owner.title if owner else "")
        label = f"{row.section} {title}".strip()
        heading = f"{label} \u2014 Table {row.table}" if row.table else label
        budget = max_pieces - SPECIAL_PIECES - count(heading)
        for passage in split_passages(row.text, budget, count):
            rows_seen[(row.document, row.section)] += 1
            n = rows_seen[(row.document, row.section)]
            chunks.append(
                Chunk(
                    id=f"{row.document}/{row.section}/r{n:03d}",
                    section=row.section,
                    document=row.document,
                    title=title,
                    chapter=owner.chapter if owner else "",
                    date=row.date or (owner.date if owner else ""),
                    pages=tuple(row.pages) or (tuple(owner.pages) if owner else ()),
                    heading=heading,
                    text=passage,
                    part=n,
                    parts=0,  # rows are not parts of a passage sequence
                    kind="table_row",
                    tables=(row.table,) if row.table else (),
                )
            )
    return tuple(chunks)
