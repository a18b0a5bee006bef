"""The answers that say what is not there: a district Cotati does not have, a table no loaded
document prints, a term no loaded document defines (and where the code uses it), and the question
back when a first question names a district and nothing to ask about it. Each is a decline with
its reason (``abstained``): a wrong answer costs more than none. Detection is ``assistant/absent.py``."""

from __future__ import annotations

import re

from .. import absent, compose, definitions, dialogue
from ..permits import STOP, words_of
from ..resources import Resources
from ..types import Answer, Query



def said(query: Query, res: Resources) -> Answer | None:
    """The decline that names what the question names and the documents lack, else None."""
    for check in (unknown_district, unknown_table, undefined_term):
        found = check(query, res)
        if found is not None:
            return found
    return None


def unknown_district(query: Query, res: Resources) -> Answer | None:
    unknown = absent.unknown_districts(query.text, res.printed().districts)
    if not unknown:
        return None
    name = unknown[0]
    nearest = _nearest_symbols(name, res)
    districts = "; ".join(f"{d.symbol} ({d.name})" for d in res.vocabulary.districts)
    first = f"Cotati has no {name} zoning district in these documents. Its districts are: {districts}."
    options = tuple(dialogue.swap_districts(query.text, (name,), symbol) for symbol in nearest)
    answer = compose.abstain(query, ["17.20.020"] if res.corpus.section("17.20.020") else [], corpus=res.corpus,
                             first=first)
    return _marked(answer, "unknown_district", options)


def _nearest_symbols(name: str, res: Resources) -> list[str]:
    """The real district symbols closest in spelling to the one named (rapidfuzz)."""
    from rapidfuzz import fuzz, process

    symbols = [d.symbol for d in res.vocabulary.districts]
    found = process.extract(name.replace("-", ""), symbols, scorer=fuzz.ratio, limit=res.settings.absent_nearest)
    return [symbol for symbol, _, _ in found]


def unknown_table(query: Query, res: Resources) -> Answer | None:
    known = res.printed()
    missing = [number for number in query.tables if number not in known.tables]
    if not missing:
        return None
    number = missing[0]
    tables = ", ".join(sorted(known.tables, key=lambda t: tuple(int(p) for p in t.split("-"))))
    if number in known.tables_mentioned:
        first = f"Table {number} is referred to but not printed in these documents (they print Tables {tables})."
    else:
        first = f"These documents have no Table {number}; the tables they print are {tables}."
    return _marked(compose.abstain(query, [], corpus=res.corpus, first=first), "unknown_table")


# "what does the code mean by X": the code is who means, X the term asked ("the code" is not the term).
SPEAKER_MEANS = re.compile(
    r"\bwhat\s+(?:does|do)\s+(?:the\s+)?(?:zoning\s+|land\s+use\s+|municipal\s+)?(?:code|ordinance|city|chapter|law"
    r"|cotati|title\s+17)\s+mean\s+by\s+(?P<term>.+?)\s*(?:[?.!]|$)", re.I)


def term_asked(question: str) -> str:
    speaker = SPEAKER_MEANS.search(question)
    return absent.term_asked(f"what is meant by {speaker.group('term')}?") if speaker else absent.term_asked(question)


def undefined_term(query: Query, res: Resources) -> Answer | None:
    """"what does X mean?" where no loaded document defines X: say so, and where the code uses X."""
    term = term_asked(query.text)
    if not term or query.districts or query.sections or query.tables:
        return None
    if definitions.lookup(res.definitions, term) is not None:
        return None
    used = absent.uses_of(term, ((s.id, s.text) for s in res.corpus.latest.values()))
    if used:
        first = f"The loaded documents do not define “{term}”; the sections below use the term."
    else:
        first = f"The loaded documents neither define nor use “{term}”."
    answer = compose.abstain(query, used, corpus=res.corpus, first=first, label="Where the code uses it")
    return _marked(answer, "undefined_term")


def bare_district(query: Query, res: Resources) -> Answer | None:
    """A question that names a district and nothing to ask about it ("what about NL?", "NL?"),
    with no earlier question to take the rest from: which things about it the resident may ask."""
    if not query.districts or query.land_uses or query.topics or query.sections or query.tables or query.apn:
        return None
    own = [w for w in words_of(dialogue.without_words(query.normalized, query.district_words))
           if w not in STOP and w not in dialogue.FOLLOW_UP_WORDS]
    if own or not (dialogue.FOLLOW_UP.search(query.text) or not _question_words(query, res)):
        return None
    names = ", ".join(_district_name(symbol, res) for symbol in query.districts)
    symbol = query.districts[0]
    options = (f"What is the {symbol} district for?", f"How tall can a building be in {symbol}?",
               f"What are the setbacks in {symbol}?", f"Can I build an accessory dwelling unit in {symbol}?")
    first = f"What would you like to know about {names}? For example:"
    lines = [first, *(f"- {option}" for option in options)]
    return Answer(question=query.text, answer="\n".join(lines), abstained=True, route="clarify", clarify=options)


def _question_words(query: Query, res: Resources) -> list[str]:
    return [w for w in words_of(dialogue.without_words(query.normalized, query.district_words))]


def _district_name(symbol: str, res: Resources) -> str:
    district = res.vocabulary.district(symbol)
    return f"{symbol} ({district.name})" if district else symbol


def _marked(answer: Answer, reason: str, options: tuple[str, ...] = ()) -> Answer:
    from dataclasses import replace

    return replace(answer, route="abstain", signals={reason: 1.0}, clarify=options)
