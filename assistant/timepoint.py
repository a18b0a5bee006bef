"""A point in time named in a question: "in 2024", "as of 2025-03-01", "before the Santero Way
ordinance", "as the 2023 ordinance had it", "when Ord. 939 was adopted". The answer is then the
law as it stood on that day (the documents dated on or before it), with today's value beside it
where it changed since (``assistant/service.py``).

Pure functions over the question's text and the manifest's documents (``ingest.types.DocumentInfo``).
A document is named by its ordinance number ("Ord. 939", "Ordinance No. 939"), by the distinctive
words of its short title followed by "ordinance" ("the Santero Way ordinance", "the corrections
ordinance") or by its year ("the 2023 ordinance"), each read from the manifest, never listed here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

MONTHS = ("january february march april may june july august september october november december").split()
_YEAR = r"(20[0-4]\d)"
# "in 2024", "back in 2024", "during 2024", "as of 2024", "in early 2025": the law as the year began
# (a document dated within that year is then named with today's value, as a change since).
YEAR = re.compile(rf"\b(?:back\s+in|in|during|as\s+of|throughout)\s+(?:(?:early|late|mid)[-\s]+)?{_YEAR}\b(?![-/])",
                  re.I)
ISO = re.compile(r"\b(?:(?P<rel>before|prior\s+to|as\s+of|on|until)\s+)?(?P<date>20[0-4]\d-\d{2}-\d{2})\b", re.I)
WRITTEN = re.compile(rf"\b(?:(?P<rel>before|prior\s+to|as\s+of|on|until)\s+)?(?P<month>{'|'.join(MONTHS)})\s+"
                     rf"(?P<day>\d{{1,2}}),?\s+{_YEAR}\b", re.I)
# Relations to a named document: before it, or as it stood once it was made.
BEFORE = r"(?:before|prior\s+to|until)"
AS_OF_DOCUMENT = r"(?:as|under|when|in|per)"  # not "since": from then on is today's law
# "as the 2023 ordinance had it", "when Ord. 939 was adopted": words that end the time phrase.
_DOCUMENT_TAIL = r"(?:\s+(?:had\s+it|has\s+it|was\s+(?:adopted|passed|introduced|heard)|took\s+effect|came\s+in|stood|said))?"
_GENERIC_TITLE_WORDS = frozenset("ordinance ord no and the of in to for a an districts district chapter codified "
                                 "text amending".split())


@dataclass(frozen=True)
class TimePoint:
    date: str  # ISO date the question asks about
    said: str  # the words that said it
    rest: str  # the question without them
    document: str = ""  # the document named, when one was ("002")


def asked_time(text: str, documents: Sequence) -> TimePoint | None:
    """The point in time the question names, or None."""
    for finder in (_named_document, _written_date, _year):
        found = finder(text, documents)
        if found is not None:
            return found
    return None


def _year(text: str, documents: Sequence) -> TimePoint | None:
    match = YEAR.search(text)
    return _point(text, match, f"{match.group(1)}-01-01") if match else None


def _written_date(text: str, documents: Sequence) -> TimePoint | None:
    match = ISO.search(text)
    if match:
        value = match.group("date")
    else:
        match = WRITTEN.search(text)
        if not match:
            return None
        value = f"{match.group(4)}-{MONTHS.index(match.group('month').lower()) + 1:02d}-{int(match.group('day')):02d}"
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return None
    before = bool(match.group("rel")) and match.group("rel").lower().split()[0] in ("before", "prior", "until")
    return _point(text, match, (day - timedelta(days=1)).isoformat() if before else day.isoformat())


def _named_document(text: str, documents: Sequence) -> TimePoint | None:
    """"before the Santero Way ordinance", "as Ord. 939 had it", "the 2023 ordinance": its date (the
    day before it for "before")."""
    for document in documents:
        for pattern in _names_of(document):
            match = re.search(rf"\b(?P<rel>{BEFORE}|{AS_OF_DOCUMENT})\s+(?:the\s+)?(?:city'?s\s+)?{pattern}{_DOCUMENT_TAIL}",
                              text, re.I)
            if match:
                day = date.fromisoformat(document.date)
                before = re.fullmatch(BEFORE, match.group("rel"), re.I) is not None
                value = (day - timedelta(days=1)).isoformat() if before else day.isoformat()
                return _point(text, match, value, document.id)
    return None


def _names_of(document) -> list[str]:
    """Regular expressions that name the document: its ordinance number, its title's distinctive
    words before "ordinance", its year before "ordinance"."""
    names = []
    number = re.search(r"\b(?:Ordinance|Ord\.)\s*(?:No\.\s*)?(\d{3,4})\b", f"{document.title} {document.short_title}")
    if number:
        names.append(rf"(?:ord(?:inance)?\.?\s*(?:no\.?\s*)?){number.group(1)}\b")
    words = [w for w in re.findall(r"[A-Za-z]+", document.short_title) if w.lower() not in _GENERIC_TITLE_WORDS]
    if words and document.kind == "ordinance":
        names.append(r"(?:" + "|".join(re.escape(w) for w in words) + r")(?:\s+\w+){0,3}?\s+ordinance\b")
    if document.kind == "ordinance" and document.date:
        names.append(rf"{document.date[:4]}\s+ordinance\b")
    return names


def _point(text: str, match: re.Match, value: str, document: str = "") -> TimePoint:
    rest = (text[: match.start()] + text[match.end():]).strip(" ,")
    rest = re.sub(r"\s{2,}", " ", re.sub(r"^\s*[,;:]\s*|\s+([,?.!])", r"\1", rest)).strip()
    return TimePoint(value, match.group(0).strip(), rest, document)
