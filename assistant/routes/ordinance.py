"""Facts about the ordinances themselves (issue 23 item 4): when a named ordinance was heard,
introduced, adopted or takes effect, its number or file number, and who applied for it, as its own
text states them (its recitals, effective-date section and clerk's certificate). Gives
``ordinance_fact``; a fact the ordinance prints as a blank ("held on ______") is declined with the
line that leaves it blank, since a wrong date costs more than none.

The question must name the ordinance (``timepoint.named_document``: its number, its title's words or
its year) and ask for a date, a number or an applicant; the sentence chosen is one of that
document's own parts (never a code section it amends) that holds the kind of fact asked and the
most of the question's word weight."""

from __future__ import annotations

import re

from .. import compose, timepoint
from .. import ordinance_facts as facts
from ..passages import SENTENCE, question_weight
from ..permits import STOP, words_of
from ..resources import Resources
from ..types import Answer, Candidate, Query

GIVES = "ordinance_fact"
MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
DATE = re.compile(rf"\b{MONTH}\s+\d{{1,2}},\s+\d{{4}}\b")
BLANK = re.compile(r"_{3,}|\bheld on\s*,|\bNumber\s+and\b")
# What the question asks for (general English), and what a sentence holds to answer it.
ASKS = (
    ("date", re.compile(r"\bwhen\b|\bwhat (?:calendar )?(?:date|day)\b|\bwhich date\b|\bon what (?:calendar )?date\b", re.I),
     re.compile(rf"{DATE.pattern}|_{{3,}}|\bheld on\s*,|\bdays? after\b", re.I)),
    ("number", re.compile(r"\b(?:ordinance|file|planning file) (?:number|no\.?)\b|\bwhat number\b|\bnumber (?:was|did)\b", re.I),
     re.compile(r"\b(?:FILE|Ordinance|ORDINANCE)\s+(?:NO\.|No\.|Number)\s*[A-Z]*\d|\bOrd\.\s*\d{3}|\bNumber\s+and\b|\bNO\.\s*$", re.M)),
    ("applicant", re.compile(r"\bwho (?:applied|filed|asked|requested|initiated)\b|\bapplicant\b|\bwhich company\b", re.I),
     re.compile(r"\bapplicant\b", re.I)),
    # "who is the city clerk named on Ord. 939?": the signature block ("Kevin Patterson, City Clerk")
    ("officer", re.compile(r"\bwho\s+(?:is|was|signed)\b[^?]*\b(?:clerk|mayor|attorney)\b", re.I),
     re.compile(r",\s+(?:City\s+)?(?:Clerk|Mayor|Attorney)\b")),
)
# Words of the event asked about, to prefer the sentence that states that event.
# An ordinance's introduction and adoption are stated by the clerk's certificate at its end ("IT IS
# HEREBY CERTIFIED that the foregoing ordinance was introduced ... held on ..."); its recitals speak
# of other documents' adoption (a general plan, a housing element).
CERTIFIED_EVENTS = ("adopt", "pass", "introduc")
CERTIFICATE = re.compile(r"\bCERTIFIED\b")
EVENTS = {"adopt": ("adopted", "adoption"), "pass": ("adopted",), "introduc": ("introduced",),
          "hearing": ("hearing",), "hear": ("hearing",), "effect": ("take effect", "effective"),
          "filed": ("filed", "application"), "appl": ("application", "applicant")}
# A history note states the day an ordinance was adopted and its number (ordinance_facts.history_notes);
# a "file number" is the planning file's, which no note states.
NOTED_DATE = re.compile(r"\b(?:adopt|pass)", re.I)
NOT_NOTED = re.compile(r"\bintroduc|\bfile\b|\bhear", re.I)


def candidates(query: Query, res: Resources) -> list[Candidate]:
    text = query.corrected or query.text
    document = timepoint.named_document(text, list(res.corpus.documents.values()))
    return for_document(query, res, document) if document is not None else []


def for_document(query: Query, res: Resources, document) -> list[Candidate]:
    """The fact the question asks of ``document`` (the one it names, or the question bank's unit's)."""
    text = query.corrected or query.text
    asked = next(((name, holds) for name, cue, holds in ASKS if cue.search(text)), None)
    if asked is None:
        return []
    parts = [s for s in res.corpus.sections if s.document == document.id and s.id.startswith(f"{document.id}:")]
    found = _best_sentence(text, asked[1], parts, res.corpus.idf, document)
    # An ordinance's number is its own header's, which may be blank ("ORDINANCE NO."): a sentence of
    # its body holding a number names another ordinance, so the history notes come first.
    if asked[0] == "number" or found is None or BLANK.search(found[1]):
        noted = _noted(query, asked[0], document, res)
        if noted is not None:
            return [Candidate(GIVES, noted)]
    if found is None and _asks_certified(text) and asked[0] == "date":
        reason = f"{_label(document)} ({document.date}) does not state when it was introduced or adopted."
        return [_declined(query, [p.id for p in parts[-1:]], reason, res)]
    if found is None:
        return []
    section, sentence, coverage = found
    if BLANK.search(sentence):
        return [_declined(query, [section.id], f"{_label(document)} prints this as a blank: \"{sentence}\"", res)]
    fact = facts.fact_of(asked[0], text, sentence, _event_words(text))
    if not fact and asked[0] == "officer":
        return [_declined(query, [section.id], f"{_label(document)} names no one for that office.", res)]
    if not fact and asked[0] == "date":
        reason = f"{_label(document)} states no calendar date for this, only: \"{sentence}\""
        return [_declined(query, [section.id], reason, res)]
    citation = res.corpus.citation(section, sentence)
    lines = [f"{fact}: {sentence}" if fact else sentence, compose.source_line([citation], res.corpus)]
    answer = Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=(citation,),
                    route="ordinance", signals={"quote_coverage": coverage, "event_named": float(_asks_event(text))},
                    interpretation={"document": document.id, "asks": asked[0]})
    return [Candidate(GIVES, answer)]


def _declined(query: Query, nearest: list[str], reason: str, res: Resources) -> Candidate:
    return Candidate(GIVES, compose.abstain(query, nearest, reason, corpus=res.corpus, first=compose.UNSURE_LINE))


def _noted(query: Query, asked: str, document, res: Resources) -> Answer | None:
    """The ordinance's adoption date or number as another loaded document's history note cites it
    ("Ord. 939, 1/13/2026"), when the question asks for one of those and the ordinance's own text
    leaves it blank or does not state it; None when no note cites the ordinance."""
    text = query.corrected or query.text
    number = facts.number_of(document)
    wanted = (asked == "date" and NOTED_DATE.search(text)) or asked == "number"
    if not number or not wanted or NOT_NOTED.search(text):
        return None
    for section in res.corpus.sections:
        if section.document == document.id:
            continue
        note = next((n for n in facts.history_notes([section.text]) if n.number == number), None)
        if note is None:
            continue
        fact = facts.written(note.day) if asked == "date" else f"Ord. {number}"
        quote = f"({note.text})"
        citation = res.corpus.citation(section, quote)
        said = f"{fact}: the history note of § {section.id} ({_label(res.corpus.documents[section.document])}) cites it as \"{note.text}\"."
        lines = [said, compose.source_line([citation], res.corpus)]
        return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=(citation,),
                      route="ordinance_note", interpretation={"document": document.id, "asks": asked})
    return None


def _best_sentence(question: str, holds: re.Pattern, parts, idf, document):
    """(section, sentence, coverage) of the part's sentence that holds the asked kind of fact and most
    of the question's word weight (the document's own name words aside); None when none holds it."""
    name_words = set(words_of(f"{document.title} {document.short_title}"))
    wanted = {w for w in words_of(question) if w not in STOP and w not in name_words and len(w) > 2}
    weight = question_weight(" ".join(wanted), idf) if wanted else 1.0
    scored = []
    for section in parts:
        for position, sentence in facts.sentences(section.text, SENTENCE):
            if not holds.search(sentence) or not _event_said(question, sentence):
                continue
            if _asks_certified(question) and not CERTIFICATE.search(sentence):
                continue
            shared = wanted & set(words_of(sentence))
            coverage = min(1.0, sum(idf.get(w, 1.0) for w in shared) / weight)
            scored.append((coverage - _distance(question, holds, sentence) / 1000, -position, section, sentence, coverage))
    if not scored:
        return None
    best = max(scored, key=lambda item: (item[0], item[1]))
    return best[2], best[3], best[4]


def _event_said(question: str, sentence: str) -> bool:
    """The sentence names every event the question asks about (adopted, introduced, a hearing ...);
    true when the question names none."""
    lowered, said = question.lower(), sentence.lower()
    events = [words for stem, words in EVENTS.items() if re.search(rf"\b{stem}", lowered)]
    return all(any(w in said for w in words) for words in events)


def _distance(question: str, holds: re.Pattern, sentence: str) -> int:
    """How far, in characters, the fact asked for stands from the event the question names (a
    recital's other dates are not the hearing's); 0 when no event is named."""
    lowered = sentence.lower()
    events = _event_words(question)
    at = [m.start() for w in events for m in re.finditer(re.escape(w), lowered)]
    facts = [m.start() for m in holds.finditer(sentence)]
    return min((abs(a - f) for a in at for f in facts), default=0)


def _event_words(question: str) -> list[str]:
    lowered = question.lower()
    return [w for stem, words in EVENTS.items() if re.search(rf"\b{stem}", lowered) for w in words]


def _asks_certified(question: str) -> bool:
    return any(re.search(rf"\b{stem}", question.lower()) for stem in CERTIFIED_EVENTS) and not re.search(
        r"\b(?:hearing|heard|hear)\b", question, re.I)


def _asks_event(question: str) -> bool:
    return any(re.search(rf"\b{stem}", question.lower()) for stem in EVENTS)


def _label(document) -> str:
    return document.short_title or document.title
