"""Find known labels in flattened text, tolerant of the damage extraction did to spacing.

Labels are searched in a compact form (no whitespace, one dash, lower case) with a map back to
the original offsets, so "Tables 2-\n2 or 2-3" and "Single -family" still match, and a match
must start and end at a word boundary of the original text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BREAK = "\x1e"  # where a repeated header block was cut out
DASHES = {"\u2013": "-", "\u2014": "-", "\u201c": '"', "\u201d": '"', "\u2019": "'"}


@dataclass(frozen=True)
class Compact:
    text: str
    index: tuple[int, ...]  # compact position -> original offset


def compact(text: str) -> Compact:
    chars: list[str] = []
    index: list[int] = []
    for offset, char in enumerate(text):
        if char.isspace() or char == BREAK:
            continue
        char = DASHES.get(char, char).lower()
        if char == "-" and chars and chars[-1] == "-":
            continue  # "--" is one dash
        chars.append(char)
        index.append(offset)
    return Compact("".join(chars), tuple(index))


def compact_label(label: str) -> str:
    return compact(label).text


def find_label(text: str, packed: Compact, label: str, start: int = 0) -> tuple[int, int] | None:
    """(start, end) offsets in ``text`` of the first whole-word occurrence of ``label`` at or after ``start``."""
    needle = compact_label(label)
    if not needle:
        return None
    position = _compact_position(packed, start)
    while True:
        found = packed.text.find(needle, position)
        if found < 0:
            return None
        first = packed.index[found]
        last = packed.index[found + len(needle) - 1] + 1
        before = text[first - 1] if first > 0 else " "
        after = text[last] if last < len(text) else " "
        if not (before.isalnum() and needle[0].isalnum()) and not (after.isalnum() and needle[-1].isalnum()):
            return first, last
        position = found + 1


def _compact_position(packed: Compact, offset: int) -> int:
    for position, original in enumerate(packed.index):
        if original >= offset:
            return position
    return len(packed.text)


def rejoin_across_breaks(text: str, labels: list[str]) -> tuple[str, list[str]]:
    """Re-assemble rows whose label (and value) continue after a repeated header.

    "Laundry - Laundries and dry 1 space ... area." <header> "cleaning plants" becomes
    "Laundry - Laundries and dry cleaning plants 1 space ... area.": the first line after the
    break starts in lower case and a known label is exactly the prefix found before the break
    plus the start of that line. Returns the text and a note per repair.
    """
    notes: list[str] = []
    while True:
        repaired = _rejoin_once(text, labels)
        if repaired is None:
            return text, notes
        text, note = repaired
        notes.append(note)


def _rejoin_once(text: str, labels: list[str]) -> tuple[str, str] | None:
    for match in re.finditer(re.escape(BREAK), text):
        before_end = match.start()
        while before_end > 0 and text[before_end - 1] in "\n ":
            before_end -= 1  # the last non-blank line before the break
        before_start = text.rfind("\n", 0, before_end) + 1
        line_before = text[before_start:before_end]
        after_start = match.end()
        while after_start < len(text) and text[after_start] in "\n ":
            after_start += 1
        after_end = text.find("\n", after_start)
        after_end = len(text) if after_end < 0 else after_end
        line_after = text[after_start:after_end]
        if not line_after[:1].islower() or not line_before.strip():
            continue
        best = None
        packed_before, packed_after = compact(line_before), compact(line_after)
        for label in labels:
            needle = compact_label(label)
            for cut in range(len(needle) - 1, 0, -1):
                prefix, suffix = needle[:cut], needle[cut:]
                if not packed_after.text.startswith(suffix):
                    continue
                at = packed_before.text.find(prefix)
                if at < 0:
                    continue
                if best is None or len(needle) > best[0]:
                    best = (len(needle), at, cut, len(suffix), label)
                break
        if best is None:
            continue
        _, at, cut, suffix_len, label = best
        p_start = packed_before.index[at]
        p_end = packed_before.index[at + cut - 1] + 1
        s_end = packed_after.index[suffix_len - 1] + 1
        joined = (
            line_before[:p_start] + line_before[p_start:p_end] + " " + line_after[:s_end]
            + " " + line_before[p_end:].strip() + " " + line_after[s_end:].strip()
        ).rstrip()
        new_text = text[:before_start] + joined + "\n" + text[after_end:]
        return new_text, f"row {label!r} continued after a repeated header"
    return None
