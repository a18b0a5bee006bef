"""A section's printed outline (A. / 1. / a. / i. / (1)) read from its lines.

Markers are read at the start of a line, or glued inside a line after the end of a sentence
("... existing structure. b. A ground-mounted ..."), where extraction ran list items together.
A glued marker counts only when it continues a list already open (b after a) or opens a list
after a colon; a line-start marker also when it opens a new level or repeats a number the print
repeats. Every marker-like token that is not taken is kept with the reason (``Rejected``), so a
test can check that nothing that looks like a list item was silently lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10,
         "xi": 11, "xii": 12}
LINE_MARKER = re.compile(r"^(?:(?P<dot>\d{1,2}[a-z]?|[A-Za-z]|[ivx]{2,4})\.{1,2}|\((?P<paren>\d{1,2}|[A-Za-z]|[ivx]{2,4})\)|"
                         r"(?P<close>\d{1,2}|[a-z]|[ivx]{2,4})\))"
                         r"(?:\s+|$|(?<=[A-Z]\.)(?=[A-Z][a-z]))")  # "4.." and "H.Screening" as printed
GLUED_MARKER = re.compile(r"(?<=[.;:])[\"”)]?\s+(?:(?P<dot>\d{1,2}[a-z]?|[A-Za-z]|[ivx]{2,4})\.|"
                          r"\((?P<paren>\d{1,2}|[A-Za-z]|[ivx]{2,4})\))\s+(?=[\"“(]?[A-Z])")


@dataclass(frozen=True)
class Marker:
    token: str  # "A", "1", "1a", "ii", "(1)"
    style: str  # U D L R pU pD pL pR
    ordinal: int
    insert: bool = False  # "1a": an item inserted after 1


@dataclass(frozen=True)
class Rejected:
    token: str
    line: int  # index into the section text's lines
    reason: str


@dataclass
class Item:
    """A list item or an unnumbered paragraph while the outline is read."""

    path: tuple[str, ...]  # marker labels from the top ("A", "1", "a"); a paragraph: its parent's
    marker: str  # "" for a paragraph
    text: str
    first: int  # line indices into the section text
    last: int
    styles: tuple[str, ...] = ()
    children: int = 0
    parts: list[str] = field(default_factory=list)


def interpretations(token: str, paren: bool | str) -> list[Marker]:
    """Readings of a marker token; ``paren`` is "" / False for "A.", "paren" / True for "(1)", "close" for "a)"."""
    prefix = "c" if paren == "close" else "p" if paren else ""
    out: list[Marker] = []
    match = re.fullmatch(r"(\d{1,2})([a-z]?)", token)
    if match:
        return [Marker(token, prefix + "D", int(match.group(1)), bool(match.group(2)))]
    if len(token) == 1 and token.isupper():
        out.append(Marker(token, prefix + "U", ord(token) - 64))
    if len(token) == 1 and token.islower():
        out.append(Marker(token, prefix + "L", ord(token) - 96))
    if token in ROMAN:
        out.append(Marker(token, prefix + "R", ROMAN[token]))
    return out


@dataclass
class _Level:
    style: str
    ordinal: int
    label: str


class OutlineState:
    """The open levels while markers are read; ``take`` decides whether a token is a marker."""

    def __init__(self, seed: tuple[str, ...] = (), lenient_start: bool = False):
        self.stack: list[_Level] = []
        self.lenient_start = lenient_start  # an excerpt may start its list at any number
        self.seen: dict[tuple[str, ...], int] = {}
        for token in seed:
            self.stack.append(_Level(interpretations(token, False)[0].style, interpretations(token, False)[0].ordinal,
                                     token))

    def labels(self) -> tuple[str, ...]:
        return tuple(level.label for level in self.stack)

    def take(self, token: str, paren: bool, at_line_start: bool, after_colon: bool) -> tuple[bool, str]:
        """(taken, reason if not). Updates the open levels when taken."""
        options = interpretations(token, paren)
        if not options:
            return False, "not a marker form"
        for depth in range(len(self.stack) - 1, -1, -1):
            level = self.stack[depth]
            for option in options:
                if option.style != level.style:
                    continue
                if option.ordinal == level.ordinal + 1 and not option.insert:
                    return self._set(depth, option, token)
                if option.insert and option.ordinal == level.ordinal:
                    return self._set(depth, option, token)
        styles = {level.style for level in self.stack}
        for option in options:
            if option.style in styles:
                continue
            if option.ordinal == 1 and (at_line_start or after_colon):
                return self._push(option, token)
        if at_line_start and not self.stack:  # the first item of a section that prints only part of a list
            return self._push(options[0], token)
        if at_line_start:
            for depth in range(len(self.stack)):  # a list that starts again at 1 (a definition's own list)
                level = self.stack[depth]
                if any(o.style == level.style and o.ordinal == 1 for o in options):
                    return self._set(depth, next(o for o in options if o.style == level.style), token)
            for depth in range(len(self.stack) - 1, -1, -1):
                level = self.stack[depth]
                if any(o.style == level.style and o.ordinal == level.ordinal for o in options):
                    return self._set(depth, next(o for o in options if o.style == level.style), token)  # a repeat
            for option in options:
                if option.style not in styles and self.lenient_start:
                    return self._push(option, token)
            for depth in range(len(self.stack) - 1, -1, -1):  # a misprinted later letter ("c)" then "g)")
                level = self.stack[depth]
                ahead = [o for o in options if o.style == level.style and o.ordinal > level.ordinal]
                if ahead:
                    return self._set(depth, ahead[0], token)
        where = ".".join(self.labels()) or "top"
        return False, f"out of sequence at {where}" if at_line_start else f"not a list item in running text at {where}"

    def _set(self, depth: int, option: Marker, token: str) -> tuple[bool, str]:
        del self.stack[depth + 1:]
        self.stack[depth] = _Level(option.style, option.ordinal, token)
        return True, ""

    def _push(self, option: Marker, token: str) -> tuple[bool, str]:
        self.stack.append(_Level(option.style, option.ordinal, token))
        return True, ""


def line_marker(line: str) -> tuple[str, bool, int] | None:
    """(token, paren, end of the marker) at the start of a line."""
    match = LINE_MARKER.match(line)
    if not match:
        return None
    token = match.group("dot") or match.group("paren") or match.group("close")
    style = "paren" if match.group("paren") else "close" if match.group("close") else ""
    return token, style, match.end()


def glued_markers(line: str, start: int = 0):
    """(token, paren, start, end, after_colon) of each marker glued inside a line."""
    for match in GLUED_MARKER.finditer(line, start):
        token = match.group("dot") or match.group("paren")
        before = line[:match.start()].rstrip("\"”)")
        yield token, match.group("paren") is not None, match.start(), match.end(), before.endswith(":")
