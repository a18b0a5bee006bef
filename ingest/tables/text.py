"""Small pure text helpers shared by the table parsers: labels, keys, footnotes, notes, quantities."""

from __future__ import annotations

import re

from .types import Footnote, Quantity

FOOTNOTE_MARK = re.compile(r"\((\d+(?:\s*,\s*\d+)*)\)")
ANY_DASH = re.compile(r"\s*(?:--|\u2014|\u2013)\s*|\s+-\s+")
SPACES = re.compile(r"\s+")
NON_ALNUM = re.compile(r"[^a-z0-9]+")


def squash(text: str) -> str:
    """Collapse whitespace (line breaks included) to single spaces."""
    return SPACES.sub(" ", text).strip()


def normalise_label(text: str) -> str:
    """One dash style (" - " between words), single spaces, no footnote markers or stars."""
    text = FOOTNOTE_MARK.sub(" ", text)
    text = text.replace("*", " ")
    text = re.sub(r"(?<=\w) -(?=\w)", "-", text)  # "Single -family": a hyphen that lost its word
    text = ANY_DASH.sub(" - ", text)
    text = re.sub(r"\s+([,.;:)])", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)
    return squash(text).strip(" -")


def label_key(text: str) -> str:
    """Identity of a label across documents: letters and digits only, lower case.

    "Alcoholic beverage sales - off-sale" and "Alcoholic beverage sales-off sale" share a key;
    "&" counts as "and" ("Bed & breakfast" = "Bed and breakfast").
    """
    text = FOOTNOTE_MARK.sub(" ", text).replace("&", " and ").lower()
    return NON_ALNUM.sub(" ", text).strip()


def letters_key(text: str) -> str:
    """Letters and digits with no separators: matches words that extraction split ("Specialt y")."""
    return NON_ALNUM.sub("", text.replace("&", "and").lower())


def footnote_numbers(text: str) -> tuple[str, ...]:
    """Numbers of every "(n)" or "(n, m)" marker in ``text``."""
    numbers: list[str] = []
    for match in FOOTNOTE_MARK.finditer(text):
        numbers.extend(part.strip() for part in match.group(1).split(","))
    return tuple(numbers)


HISTORY = re.compile(r"\(Ord\.\s.*?\d{4}\)\.?", re.S)
NOTE_START = re.compile(r"(?:(?<=\s)|^)\((\d{1,2})\)\s+(?=\S)")
STAR_NOTE = re.compile(r"(?:(?<=\s)|^)\*\s*(?=[A-Z])")


def parse_notes(text: str) -> dict[str, str]:
    """Numbered notes ("(1) See Article 9 ...") and the "*" note, keyed "1", "2", ..., "*".

    Ordinance history parentheticals ("(Ord. 917 § 4 ..., 2004).") are not notes and are cut out;
    a number printed twice keeps its first text.
    """
    text = HISTORY.sub(" ", text)
    marks = [(m.start(), m.end(), m.group(1)) for m in NOTE_START.finditer(text)]
    marks += [(m.start(), m.end(), "*") for m in STAR_NOTE.finditer(text)]
    marks.sort()
    notes: dict[str, str] = {}
    for index, (start, end, number) in enumerate(marks):
        stop = marks[index + 1][0] if index + 1 < len(marks) else len(text)
        body = squash(text[end:stop])
        body = re.sub(r"\s*Notes:\s*$", "", body, flags=re.I)
        notes.setdefault(number, body)
    return notes


def footnotes_for(numbers: tuple[str, ...], notes: dict[str, str], scope: str) -> tuple[Footnote, ...]:
    return tuple(Footnote(number, notes.get(number, ""), scope) for number in numbers)


UNIT_WORDS = (
    (r"sq\.?\s*ft\.?|sf\b|square\s+feet", "sq ft"),
    (r"acres?\b", "acre"),
    (r"ft\.|feet\b|foot\b", "ft"),
    (r"in\.|inches\b", "in"),
    (r"units?\s+per\s+acre", "units/acre"),
    (r"spaces?\b", "space"),
    (r"%", "%"),
)
NUMBER = r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
QUANTITY = re.compile(
    NUMBER + r"\s*(" + "|".join(f"(?:{pattern})" for pattern, _ in UNIT_WORDS) + r")", re.I
)


PER_ACRES = re.compile(r"(\d+(?:\.\d+)?)\s+units?\s+per\s+(\d+(?:\.\d+)?)\s+acres?", re.I)
RANGE_LOW = re.compile(NUMBER + r"\s*-\s*$")


def quantities(text: str) -> tuple[Quantity, ...]:
    """Every number-with-unit in a standards cell, in order. A range "0-10 ft." gives both ends
    (0 ft, then 10 ft), each with the range's text."""
    out: list[Quantity] = []
    for match in PER_ACRES.finditer(text):  # "1 unit per 1.5 acres": a density, in units per acre
        units, acres = float(match.group(1)), float(match.group(2))
        out.append(Quantity(round(units / acres, 4), "units/acre", match.group(0)))
    text = PER_ACRES.sub(lambda m: " " * len(m.group(0)), text)
    for match in QUANTITY.finditer(text):
        low = RANGE_LOW.search(text[: match.start()])
        if low:
            unit_text = match.group(2)
            unit = next(name for pattern, name in UNIT_WORDS if re.fullmatch(pattern, unit_text, re.I))
            span = text[low.start(): match.end()]
            out.append(Quantity(float(low.group(1).replace(",", "")), unit, span))
            out.append(Quantity(float(match.group(1).replace(",", "")), unit, span))
            continue
        number = float(match.group(1).replace(",", ""))
        unit_text = match.group(2)
        unit = next(
            name for pattern, name in UNIT_WORDS if re.fullmatch(pattern, unit_text, re.I)
        )
        out.append(Quantity(number, unit, match.group(0)))
    return tuple(out)
