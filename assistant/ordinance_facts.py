"""The fact itself, out of the sentence that states it (issue 23 item 4): an ordinance fact's answer
leads with the date, number, applicant or time span asked for, and the sentence follows as its
evidence. Also what the codified text's history notes say of an ordinance: a note such as
"(Ord. 935, 6/24/2025; Ord. 939, 1/13/2026)" cites each ordinance that made the section by its
number and its adoption date (the usual form of a municipal code's history notes), so it states an
adoption date that the ordinance's own clerk's certificate may leave blank.

Pure functions over text; the route (``routes/ordinance.py``) chooses the sentence."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

MONTHS = ("January February March April May June July August September October November December").split()
DATE = re.compile(rf"\b(?:{'|'.join(MONTHS)})\s+\d{{1,2}},\s+\d{{4}}\b")
# "FILE NO. PA25-05", "Ordinance No. 939": the identifier after the word for number.
NUMBER = re.compile(r"\b(?:FILE|File|Ordinance|ORDINANCE)\s+(?:NO\.|No\.|Number)\s*(?P<id>[A-Z]*\d[\w-]*\d|[A-Z]*\d)")
# "the project applicant, T-Mobile filed ...": the name after the word applicant.
APPLICANT = re.compile(r"\bapplicant,?\s+(?P<name>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)*)")
# "thirty (30) days after its adoption": a time span and what it runs from.
AFTER = re.compile(r"\s+after\s+(?:its|the)\s+[a-z]+", re.I)
# A question that asks for a date as such ("on what calendar date", "what date"), not only "when".
ASKS_A_DATE = re.compile(r"\b(?:calendar\s+)?date\b|\bwhat\s+day\b", re.I)
WHEN = re.compile(r"\bwhen\b", re.I)
# The officers who sign an ordinance (its signature block): general English names of offices.
OFFICE = re.compile(r"\b(?:clerk|mayor|attorney)\b", re.I)


@dataclass(frozen=True)
class HistoryNote:
    """One ordinance cited in a history note: its number, its day (ISO) and the note as printed."""

    number: str
    day: str
    text: str


HISTORY_CITE = re.compile(r"\bOrd\.\s*(?P<number>\d{3,4}),\s*(?P<month>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4})\b")
HISTORY_NOTE = re.compile(r"\((?:[^()]|\([^()]*\))*\bOrd\.\s*\d{3,4}(?:[^()]|\([^()]*\))*\)")


# "FILE NO. PA25-05": the abbreviation of number ends no sentence, though the passage splitter
# (passages.split_sentences, shared with the sentence vectors) breaks after its full stop.
NUMBER_ABBREVIATION = re.compile(r"\b(?:NO|No|Nos)\.$")


def sentences(text: str, splitter: re.Pattern) -> list[tuple[int, str]]:
    """(position, sentence) of the passage split as ``splitter`` (passages.SENTENCE) splits it, a piece
    ending in "No." joined to the next, and those longer than 20 characters kept (as
    passages.split_sentences keeps them)."""
    pieces = [piece.strip() for piece in splitter.split(text) if piece and piece.strip()]
    joined: list[tuple[int, str]] = []
    for position, piece in enumerate(pieces):
        if joined and NUMBER_ABBREVIATION.search(joined[-1][1]):
            joined[-1] = (joined[-1][0], f"{joined[-1][1]} {piece}")
        else:
            joined.append((position, piece))
    return [(position, piece) for position, piece in joined if len(piece) > 20]


def fact_of(asked: str, question: str, sentence: str, events: Sequence[str] = ()) -> str:
    """The fact of kind ``asked`` (date, number, applicant, officer) the sentence states, as the answer's
    lead; "" when it states none it can lift out. A date is the one nearest the event the question
    names (``events``: the words of that event, "hearing", "introduced"); a relative time span
    ("thirty (30) days after its adoption") is given as "30 days after its adoption", unless the
    question asks for a date as such: a span is not a date."""
    if asked == "number":
        found = NUMBER.search(sentence)
        return found.group("id") if found else ""
    if asked == "applicant":
        found = APPLICANT.search(sentence)
        return found.group("name") if found else ""
    if asked == "officer":
        return officer_named(question, sentence)
    dates = list(DATE.finditer(sentence))
    if dates:
        return _nearest(dates, sentence.lower(), events).group(0)
    span = relative_span(sentence)
    if not ASKS_A_DATE.search(question):
        return span
    # "when does it take effect, and on what calendar date?": the span answers the "when"; no date is printed
    return f"{span}; no calendar date is stated" if span and WHEN.search(question) else ""


def officer_named(question: str, sentence: str) -> str:
    """The name signed above the office the question asks about ("Kevin Patterson, City Clerk"); ""
    when the sentence names no one for that office (an unsigned "Mayor" line)."""
    office = OFFICE.search(question)
    if not office:
        return ""
    found = re.search(rf"(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z.]*)+),\s+(?:City\s+)?{office.group(0)}\b", sentence, re.I)
    return found.group("name") if found else ""


def _nearest(found: list[re.Match], lowered: str, events: Sequence[str]) -> re.Match:
    at = [m.start() for word in events for m in re.finditer(re.escape(word), lowered)]
    if not at:
        return found[0]
    return min(found, key=lambda m: min(abs(m.start() - a) for a in at))


def relative_span(sentence: str) -> str:
    """"30 days after its adoption" from "shall take effect thirty (30) days after its adoption"; ""
    when the sentence states no time span running from an event."""
    from ingest.values import read_values

    values, _ = read_values(sentence)
    for value in values:
        tail = AFTER.match(sentence, value.end)
        if value.kind == "duration" and value.number is not None and tail:
            unit = value.unit if value.number == 1 else value.unit + "s"
            return f"{value.number:g} {unit}{tail.group(0)}"
    return ""


def history_notes(texts: Iterable[str]) -> list[HistoryNote]:
    """Every ordinance a history note cites with a full date ("Ord. 939, 1/13/2026"), in text order;
    a note giving only a year ("Ord. 918 § 5, 2023") states no day and is left out."""
    notes = []
    for text in texts:
        for note in HISTORY_NOTE.finditer(text):
            for cite in HISTORY_CITE.finditer(note.group(0)):
                try:
                    day = date(int(cite.group("year")), int(cite.group("month")), int(cite.group("day")))
                except ValueError:
                    continue
                notes.append(HistoryNote(cite.group("number"), day.isoformat(), cite.group(0)))
    return notes


def written(day: str) -> str:
    """"January 13, 2026" for "2026-01-13"."""
    value = date.fromisoformat(day)
    return f"{MONTHS[value.month - 1]} {value.day}, {value.year}"


def number_of(document) -> str:
    """The ordinance number its manifest title gives ("Ord. 939 (Santero Way ...)"), or ""."""
    found = re.search(r"\b(?:Ordinance|Ord\.)\s*(?:No\.\s*)?(\d{3,4})\b", f"{document.title} {document.short_title}")
    return found.group(1) if found else ""
