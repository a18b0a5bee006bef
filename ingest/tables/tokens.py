"""Split a flattened permit-table line into tokens: label words, permit values, footnote markers,
specific-use references.

Extraction glued tokens together ("UP(2)-", "(8)-", "SSS", "Market(5)-"), so a whitespace chunk
is decomposed before it is classified.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .vocab import Vocabulary

NOTE_REF = re.compile(r"See\s+Note\s+\(?(\d+)\)?(?:\s+below)?", re.I)
NOTE_TOKEN = "\u27e8see-note-{}\u27e9"
NOTE_TOKEN_RE = re.compile(r"^\u27e8see-note-(\d+)\u27e9$")
REF = re.compile(r"^§*\d{1,2}\.\d{2}(?:\.\d{1,3})?(?:\([A-Za-z]\))?[,;]?$")
REF_JOINERS = {"§", "§§", "&", "and"}
FOOT = r"\((\d+(?:,\d+)*)\)"


@dataclass(frozen=True)
class Token:
    kind: str  # "word" | "value" | "foot" | "stray" | "star" | "ref"
    text: str  # as printed (for values: the piece of the chunk)
    code: str = ""  # value: normalised code ("P", "MUP", "-")
    notes: tuple[str, ...] = ()  # value or foot: footnote numbers
    star: bool = False
    stray: bool = False  # value: a ")" printed after it
    unclosed: bool = False  # value: "UP(2" with its ")" lost


@lru_cache(maxsize=4)
def _value_piece(vocab: Vocabulary) -> re.Pattern:
    return re.compile(
        rf"(?P<code>{vocab.code_pattern}|{vocab.dash_pattern})"
        r"(?:\((?P<fn>\d+(?:,\d+)*)(?P<close>\))?)?(?P<star>\*)?(?P<stray>\))?"
    )


def prepare(text: str) -> str:
    """Undo splits that would otherwise cut one token in two: "P/" + "MUP", "(1, 2)", "See Note 5 Below"."""
    text = re.sub(r"\bP/\s*\n?\s*MUP\b", "P/MUP", text)
    text = re.sub(r"\((\d+)\s*,\s*(\d+)\)", r"(\1,\2)", text)
    return NOTE_REF.sub(lambda m: " " + NOTE_TOKEN.format(m.group(1)) + " ", text)


def tokenize(line: str, vocab: Vocabulary) -> list[Token]:
    tokens: list[Token] = []
    for chunk in line.split():
        tokens.extend(_chunk(chunk, vocab))
    return tokens


def _values(text: str, vocab: Vocabulary) -> list[Token] | None:
    """The chunk as a sequence of values, or None when it is not made only of values."""
    if not text:
        return []
    piece = _value_piece(vocab)
    out: list[Token] = []
    position = 0
    while position < len(text):
        match = piece.match(text, position)
        if not match or match.end() == position:
            return None
        code = match.group("code")
        if code in vocab.dashes:
            code = vocab.not_allowed
        notes = tuple(match.group("fn").split(",")) if match.group("fn") else ()
        out.append(
            Token(
                "value",
                match.group(0),
                code=code,
                notes=notes,
                star=bool(match.group("star")),
                stray=bool(match.group("stray")),
                unclosed=bool(match.group("fn")) and not match.group("close"),
            )
        )
        position = match.end()
    return out


def _chunk(chunk: str, vocab: Vocabulary) -> list[Token]:
    note = NOTE_TOKEN_RE.match(chunk)
    if note:
        return [Token("ref", f"See Note {note.group(1)}")]
    if REF.match(chunk) or chunk in REF_JOINERS:
        return [Token("ref", chunk)]
    if chunk == ")":
        return [Token("stray", chunk)]
    if chunk == "*":
        return [Token("star", chunk)]
    values = _values(chunk, vocab)
    if values:
        return values
    match = re.match(FOOT + r"(.*)$", chunk)
    if match:
        rest = _values(match.group(2), vocab)
        if rest is not None:
            return [Token("foot", match.group(0)[: len(match.group(0)) - len(match.group(2))],
                          notes=tuple(match.group(1).split(",")))] + rest
    match = re.match(r"^(.*[A-Za-z.,)])" + FOOT + r"(.*)$", chunk)
    if match:
        rest = _values(match.group(3), vocab)
        if rest is not None:
            return [
                Token("word", match.group(1)),
                Token("foot", f"({match.group(2)})", notes=tuple(match.group(2).split(","))),
            ] + rest
    return [Token("word", chunk)]
