"""Repair what PDF-to-text extraction did to the documents, keeping each line's page.

Pure functions over lines. The order matters: page furniture goes first (it carries the running
heads that codified text needs for sectioning, so those are kept on a break marker), then
character fixes, split words, and paragraphs repeated or broken across page breaks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .types import Line, Page

# Furniture that ecode360 prints on every page: footer, running heads, chapter title.
FOOTER = re.compile(r"^Downloaded from https?://\S+ on \d{4}-\d{2}-\d{2}$")
SITE_HEAD = re.compile(r"^City of Cotati, CA(?:\s+§\s*(\d+\.\d+\.\d+))?$")
TITLE_HEAD = re.compile(r"^(?:LAND USE|COTATI CODE)$")
SECTION_HEAD = re.compile(r"^§\s*(\d+\.\d+\.\d+)$")
PICTURE_MARKERS = re.compile(
    r"^(?:-{3,}\s*(?:Start|End) of picture text\s*-{3,}|==> picture \[[^\]]*\] intentionally omitted <==)$"
)
BULLET = re.compile(r"^[•●▪]\s*")

CHARACTER_FIXES = (
    ("ß", "§"),  # a font mapping that turned the section sign into sharp s
    ("\u00a0", " "),
)
# "plan ís regulating plan": an apostrophe-s that came out as i-acute.
ACUTE_POSSESSIVE = re.compile(r"(?<=\w) ís\b")

MIN_REPEAT_CHARS = 40  # shorter lines repeat legitimately (table cells, "A. Purpose.")
SENTENCE_END = (".", ":", ";", ")", "!", "?")


def clean_pages(pages: Sequence[Page], vocabulary: Vocabulary | None = None) -> list[Line]:
    """Cleaned lines of one document; page-break markers (``page_break``) stay in place.

    ``vocabulary`` is built from the whole corpus when several documents are cleaned together
    (see ``first_pass``), so a word split in one document is recognised from the others.
    """
    lines = first_pass(pages)
    if vocabulary is None:
        vocabulary = build_vocabulary(line.text for line in lines)
    return second_pass(lines, vocabulary)


def first_pass(pages: Sequence[Page]) -> list[Line]:
    """Furniture removed and characters fixed: the text the vocabulary is counted on."""
    derive_pages = len(pages) == 1  # a .txt has no page breaks of its own; furniture marks them
    lines = strip_furniture(pages, derive_pages)
    return [_with_text(line, fix_characters(line.text)) for line in lines]


def second_pass(lines: Sequence[Line], vocabulary: Vocabulary) -> list[Line]:
    lines = [_with_text(line, join_split_words(line.text, vocabulary)) for line in lines]
    return merge_broken_paragraphs(lines)


def strip_furniture(pages: Sequence[Page], derive_pages: bool) -> list[Line]:
    """Drop footers, running heads and picture markers; leave one break marker per furniture block."""
    out: list[Line] = []
    extra_pages = 0
    number = 0  # source line, counted across pages (a .txt's form feeds do not end a line)
    for page in pages:
        in_furniture = False
        number -= 1 if page.number > 1 and not derive_pages else 0
        for raw in page.text.split("\n"):
            number += 1
            text = BULLET.sub("", raw.strip()).strip()
            if PICTURE_MARKERS.match(text):
                continue
            head = _running_head(text)
            if head is not None:
                if not in_furniture:
                    in_furniture = True
                    if FOOTER.match(text) and derive_pages:
                        extra_pages += 1
                    out.append(Line(page.number + extra_pages, "", page_break=True))
                if head:
                    last = out[-1]
                    out[-1] = Line(last.page, "", heads=last.heads + (head,), page_break=True)
                continue
            if not text:
                if not in_furniture:
                    out.append(Line(page.number + extra_pages, ""))
                continue
            in_furniture = False
            out.append(Line(page.number + extra_pages, text, number=number, last=number))
    return out


def _running_head(text: str) -> str | None:
    """'' for furniture without a section number, the number for a running head, None otherwise."""
    for pattern in (SITE_HEAD, SECTION_HEAD):
        match = pattern.match(text)
        if match:
            return match.group(1) or ""
    if FOOTER.match(text) or TITLE_HEAD.match(text):
        return ""
    return None


def fix_characters(text: str) -> str:
    for wrong, right in CHARACTER_FIXES:
        text = text.replace(wrong, right)
    return ACUTE_POSSESSIVE.sub("’s", text)


@dataclass(frozen=True)
class Vocabulary:
    """Word counts that tell a split fragment ("Perm", "Recom") from a word."""

    words: Counter  # every lower-cased alphabetic token
    undamaged: Counter  # tokens of lines that hold no lone letter, the sign of split words


def build_vocabulary(texts: Iterable[str]) -> Vocabulary:
    words: Counter = Counter()
    undamaged: Counter = Counter()
    for text in texts:
        for line in text.split("\n"):
            tokens = [token.lower() for token in WORD.findall(line)]
            words.update(tokens)
            if not LONE_LETTER.search(line):
                undamaged.update(tokens)
    return Vocabulary(words, undamaged)


WORD = re.compile(r"[A-Za-z]+")
LONE_LETTER = re.compile(r"(?<![A-Za-z0-9/.(])[b-z](?= [a-z])")
ALPHA_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]+(?: [A-Za-z]+)+(?![A-Za-z0-9])")


def join_split_words(text: str, vocabulary: Vocabulary, longest: int = 4) -> str:
    """Re-join words that extraction split with spaces ("Perm it", "Com m ission").

    Within each run of space-separated alphabetic tokens, pieces are joined when the joined
    word occurs elsewhere in the corpus and every piece is rarer than it in undamaged lines
    ("Perm"+"it" but not "set"+"back"). A run holding a lone lower-case letter is damaged
    for certain: there the letter joins its neighbours when that makes a corpus word or the
    stem of one ("Recom m end" from "recommendation"), and a left neighbour joins only if it
    is itself a fragment (never "the m atter" into "them"). All-capital runs are table cells.
    """
    def repair(match: re.Match) -> str:
        tokens = match.group(0).split(" ")
        # A letter after a slash is a unit ("km/h and"), not a fragment.
        keep_first = match.start() > 0 and text[match.start() - 1] == "/" and len(tokens[0]) == 1
        if keep_first:
            return tokens[0] + " " + _join_run(tokens[1:], vocabulary, longest) if len(tokens) > 1 else tokens[0]
        return _join_run(tokens, vocabulary, longest)

    return ALPHA_RUN.sub(repair, text)


def _join_run(tokens: list[str], vocabulary: Vocabulary, longest: int) -> str:
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for n in range(min(longest, len(tokens) - i), 1, -1):
            pieces = tokens[i:i + n]
            if _joinable(pieces, vocabulary):
                out.append("".join(pieces))
                i += n
                break
        else:
            out.append(tokens[i])
            i += 1
    return " ".join(out)


def _joinable(pieces: list[str], vocabulary: Vocabulary) -> bool:
    word = "".join(pieces)
    if word.isupper():
        return False
    target = vocabulary.words[word.lower()]
    if any(_lone_letter(piece) for piece in pieces):
        first = pieces[0]
        if not _lone_letter(first) and vocabulary.undamaged[first.lower()] >= max(target, 1):
            return False
        return target >= 1 or _is_stem(word.lower(), vocabulary.words)
    return target >= 2 and all(vocabulary.undamaged[piece.lower()] < target for piece in pieces)


def _lone_letter(piece: str) -> bool:
    return len(piece) == 1 and piece.islower() and piece != "a"


def _is_stem(word: str, words: Counter) -> bool:
    return len(word) >= 6 and any(other.startswith(word) and other != word for other in words)


def merge_broken_paragraphs(lines: Sequence[Line]) -> list[Line]:
    """Drop a line that repeats the tail of the previous one; re-join a paragraph a page break cut.

    Codified text downloaded as PDF repeats the end of a paragraph after a page break and cuts
    paragraphs mid-sentence at the break; a lower-case line after a break continues the last one.
    """
    out: list[Line] = []
    last_text: int | None = None  # index in out of the previous non-empty text line
    after_break = False
    for line in lines:
        if line.page_break:
            out.append(line)
            after_break = True
            continue
        if not line.text:
            out.append(line)
            continue
        if last_text is not None:
            previous = out[last_text]
            if _repeats_tail(previous.text, line.text):
                continue
            if after_break and _continues(previous.text, line.text):
                joined = _with_text(previous, f"{previous.text} {line.text}")
                out[last_text] = Line(joined.page, joined.text, joined.heads, joined.page_break, joined.number, line.last)
                after_break = False
                continue
        out.append(line)
        last_text = len(out) - 1
        after_break = False
    return out


def _with_text(line: Line, text: str) -> Line:
    return Line(line.page, text, line.heads, line.page_break, line.number, line.last)


def _repeats_tail(previous: str, current: str) -> bool:
    current_norm = " ".join(current.split())
    return len(current_norm) >= MIN_REPEAT_CHARS and " ".join(previous.split()).endswith(current_norm)


def _continues(previous: str, current: str) -> bool:
    return not previous.rstrip().endswith(SENTENCE_END) and current[:1].islower()
