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
# "in March 2026", "as of june 2026": the month's first day.
YEAR = re.compile(rf"\b(?:back\s+in|in|during|as\s+of|throughout|by)\s+(?:(?:early|late|mid|spring|summer|fall|autumn|"
                  rf"winter)[-\s]+(?:of\s+)?)?(?:(?P<month>{'|'.join(MONTHS)})\s+(?:of\s+)?)?{_YEAR}\b(?![-/])", re.I)
# A year before 2000 read as a time only where nothing else can be meant: at the question's end ("Could I
# open a bar in CE in 1990?") or after "as of" / "back in" ("since 1962" and "my dad started it in 1981" are
# the asker's story, not a time). No loaded document is that old, so the answer says so rather than give
# today's law for it.
OLD_YEAR = re.compile(r"\b(?:(?:back\s+)?in|during|as\s+of)\s+(1[6-9]\d\d)(?=\s*[?.!]*\s*$)|\b(?:back\s+in|as\s+of)\s+(1[6-9]\d\d)\b",
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


# A question about what changed: a verb of change ("did Ord. 939 change ...", "get easier with the
# Santero Way ordinance"), or "when did X become allowed" / "since when has X been allowed".
CHANGE = re.compile(r"\b(?:chang(?:e|ed|es)|alter(?:ed)?|amend(?:ed)?|modif(?:y|ied)|easier|harder|stricter|looser)\b",
                    re.I)
# Adding is a change when the document adds: "did the corrections ordinance add anything ...?",
# "which item did Ord. 939 add?", "what was added by Ord. 939?"; not "under Ord. 939, can I add a unit?".
ADD = re.compile(r"\badd(?:s|ed)?\b", re.I)
ASKED_OF_IT = re.compile(r"\b(?:did|does|do|has|have|will|would)\b", re.I)
ADDED_BY = re.compile(r"\badded\s+(?:by|with|in)\s+$", re.I)
BECAME = re.compile(r"\bwhen\s+(?:did|was|were)\b.*\b(?:(?:become|became|start(?:ed)?\s+(?:to\s+be|being)|get|got)\s+"
                    r"(?:allowed|possible|permitted|legal)|stop(?:ped)?\s+(?:being|needing)|stop(?:ped)?\s+\w+ing\s+allowed)\b"
                    r"|\bsince\s+when\b.*\b(?:allowed|possible|permitted|legal)\b", re.I)


@dataclass(frozen=True)
class ChangeAsked:
    document: str  # the document asked about ("002"); "" for "when did X become allowed"
    rest: str  # the question without the document's name


def asked_change(text: str, documents: Sequence) -> ChangeAsked | None:
    """A question about what a document changed, or since when something is allowed; else None."""
    if BECAME.search(text):
        # "stop being allowed" asks about the cell "allowed" names; its "stop being" names no row
        return ChangeAsked("", re.sub(r"\s{2,}", " ", re.sub(r"\bstop(?:ped)?\s+being\b", " ", text, flags=re.I)))
    changing = CHANGE.search(text)
    if not changing and not ADD.search(text) or not may_name_a_document(text):
        return None
    for document in documents:
        for pattern in _names_of(document):
            match = re.search(rf"\b(?:the\s+)?(?:city'?s\s+)?{pattern}", text, re.I)
            if match and (changing or _document_adds(text, match)):
                return ChangeAsked(document.id, without_change_words(_point(text, match, document.date).rest))
    return None


def _document_adds(text: str, named: re.Match) -> bool:
    """The document named is what adds: asked of it ("did X add", "what did X add") or "added by X"."""
    before, after = text[: named.start()], text[named.end():]
    return bool(ASKED_OF_IT.search(before) and ADD.search(after) or ADDED_BY.search(before))


def without_change_words(text: str) -> str:
    """The question as it asks for the value ("did change the permit for a bar in HC" -> "the permit
    for a bar in HC"): the words of change name no row."""
    text = ADD.sub(" ", CHANGE.sub(" ", text))
    text = re.sub(r"^\s*(?:(?:how|what|did|does|do|has|have|it|anything|about|the|make|get|got|any)\s+)+", "", text,
                  flags=re.I)
    return re.sub(r"\s{2,}", " ", text).strip()


def named_document(text: str, documents: Sequence):
    """The document the question names (by its number, its title's words or its year), or None."""
    if not may_name_a_document(text):
        return None
    for document in documents:
        if any(re.search(rf"\b{pattern}", text, re.I) for pattern in _names_of(document)):
            return document
    return None


def asked_time(text: str, documents: Sequence) -> TimePoint | None:
    """The point in time the question names, or None. A second time phrase that narrows the first
    ("under Ord. 939, before the 2026 corrections ordinance") is taken out of the rest too: the
    question is asked without any of its time words, as of the first one's day."""
    found = _first_time(text, documents)
    for _ in range(2):
        other = _first_time(found.rest, documents) if found is not None else None
        if other is None:
            break
        found = TimePoint(found.date, f"{found.said}; {other.said}", other.rest, found.document)
    return found


def _first_time(text: str, documents: Sequence) -> TimePoint | None:
    for finder in (_named_document, _written_date, _year, _year_then):
        found = finder(text, documents)
        if found is not None:
            return found
    return None


# "at that time", "back then", "what did the code then require": the question asks about the time
# its bare year names ("Re: a 2024 building permit file ... at that time"); a year is not a size.
THEN = re.compile(r"\bat (?:that|the) time\b|\bback then\b|\b(?:did|was|were|would)\b[^.?!]{0,30}\bthen\b", re.I)
BARE_YEAR = re.compile(rf"\b{_YEAR}\b(?![-/\d])(?!\s*(?:sq|square|ft|feet|foot|units?|acres?|gallons?|spaces?|%))", re.I)


def _year_then(text: str, documents: Sequence) -> TimePoint | None:
    match = BARE_YEAR.search(text) if THEN.search(text) else None
    return _point(text, match, f"{match.group(1)}-01-01") if match else None


def _year(text: str, documents: Sequence) -> TimePoint | None:
    match = YEAR.search(text)
    if not match:
        old = OLD_YEAR.search(text)
        return _point(text, old, f"{old.group(1) or old.group(2)}-01-01") if old else None
    month = MONTHS.index(match.group("month").lower()) + 1 if match.group("month") else 1
    return _point(text, match, f"{match.group(2)}-{month:02d}-01")


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
    if not may_name_a_document(text):
        return None
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


def may_name_a_document(text: str) -> bool:
    """Every name ``_names_of`` gives holds "ord" ("Ord. 939", "... ordinance"): a question without it
    names no document, and the patterns (compiled for each document: a fiftieth of a cold answer)
    need not be tried."""
    return "ord" in text.lower()


def _names_of(document) -> list[str]:
    """Regular expressions that name the document: its ordinance number, its title's distinctive
    words before "ordinance", its year before "ordinance"."""
    names = []
    number = re.search(r"\b(?:Ordinance|Ord\.)\s*(?:No\.\s*)?(\d{3,4})\b", f"{document.title} {document.short_title}")
    if number:
        names.append(rf"(?:ord(?:inance)?\.?\s*(?:no\.?\s*)?){number.group(1)}\b")
        names.append(rf"(?:the\s+)?{number.group(1)}\s+ordinance\b")  # "the 939 ordinance"
    words = [w for w in re.findall(r"[A-Za-z]+", document.short_title) if w.lower() not in _GENERIC_TITLE_WORDS]
    if words and document.kind == "ordinance":
        # A long word by its first six letters: "telecom" names "Telecommunications".
        stems = [re.escape(w[:6]) + r"\w*" if len(w) > 6 else re.escape(w) + r"\b" for w in words]
        # its title words in a run ("the santero way / TOC ordinance"), then up to three words more
        word = r"(?:" + "|".join(stems) + r")"
        names.append(rf"{word}(?:\s*(?:/|&|-|\band\b)?\s*{word})*(?:\s+\w+){{0,3}}?\s+ordinance\b")
    known_by = getattr(document, "introduced", "") or document.date  # "the 2025 ordinance": the year it is dated
    if document.kind == "ordinance" and known_by:
        names.append(rf"{known_by[:4]}(?:\s+\w+){{0,2}}?\s+ordinance\b")
    return names


def _point(text: str, match: re.Match, value: str, document: str = "") -> TimePoint:
    rest = (text[: match.start()] + text[match.end():]).strip(" ,")
    rest = re.sub(r"\s{2,}", " ", re.sub(r"^\s*[,;:]\s*|\s+([,?.!])", r"\1", rest)).strip()
    return TimePoint(value, match.group(0).strip(), rest, document)
