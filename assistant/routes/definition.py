"""The definition route: the code's definition of the term a question asks about (put in quotes,
or named alone), or of a defined term whose definition states the quantity asked. Gives
``definition``."""

from __future__ import annotations

from dataclasses import replace

from .. import answer_type, compose, definitions
from ..permits import STOP, words_of
from ..resources import Resources
from ..types import Answer, Candidate, Query

GIVES = "definition"


def candidates(query: Query, res: Resources) -> list[Candidate]:
    """"are e-scooters micromobility?": a defined term alone can carry the question."""
    asks = query.detected
    if asks not in ("definition", "other", "yes_no"):
        return []
    if not ("definition" in query.topics or not (query.topics or query.districts or query.land_use)):
        return []
    return _given(query, res, definitions.lookup(res.definitions, query.text))


def quoted(query: Query, res: Resources) -> list[Candidate]:
    """"is a thrift store an 'antique or collectible store'?": the term put in quotes is the one
    asked about, and the code's definition of it answers (what it includes, excludes)."""
    term = definitions.quoted(query.text)
    if not term or query.detected not in ("definition", "other", "yes_no"):
        return []
    return _given(query, res, definitions.lookup(res.definitions, term))


def of_quantity(query: Query, res: Resources) -> list[Candidate]:
    """"How big can a microdistillery get?": a question that names nothing but a term the code
    defines, asking for a quantity its definition states ("limited to 10,000 cases"), is
    answered by that definition."""
    asks = query.detected
    if asks not in answer_type.QUANTITIES:
        return []
    definition = definitions.lookup(res.definitions, query.corrected or query.text)
    if definition is None or not answer_type.present(asks, definition.text):
        return []
    return _given(query, res, definition)


def _given(query: Query, res: Resources, definition) -> list[Candidate]:
    return [Candidate(GIVES, answer(query, res, definition))] if definition is not None else []


def answer(query: Query, res: Resources, definition) -> Answer:
    found = compose.definition_answer(query, definition, res.corpus)
    term = [w for w in words_of(definition.term) if w not in STOP]
    quoted_ = definition.term.lower() in definitions.quoted(query.text).lower()
    return replace(found, signals={"term_words": float(len(term)), "term_quoted": float(quoted_),
                                   "question_share": definitions.question_share(query.text, term)})

