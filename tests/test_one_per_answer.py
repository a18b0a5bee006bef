"""The candidates the routes and the bank propose are one per answer (chooser.one_per_answer): the same table
cells are one candidate with both proposers' signals, though the bank's copy of a permit answer omits who decides."""

from __future__ import annotations

from assistant import chooser
from assistant.types import Answer, Candidate

CELL = {"table": "2-3", "row": "Bank, financial services", "column": "CD", "value": "UP"}


def _permit(text: str, signals: dict, cells=(CELL,)) -> Candidate:
    return Candidate("permit_code", Answer(question="Can I open a bank in CD?", answer=text, abstained=False,
                                           route="permit", lookups=tuple(cells), signals=signals))


def test_the_same_cells_from_a_route_and_the_bank_are_one_candidate_with_both_signals():
    route = _permit("A use permit (UP) is required.\nWho decides a Use Permit (UP): Planning Commission.",
                    {"permit.row_covered": 1.0})
    bank = _permit("A use permit (UP) is required.", {"bank_similarity": 0.65, "from_bank": 1.0})
    (one,) = chooser.one_per_answer([route, bank])
    assert one.answer.answer == route.answer.answer  # the first proposer's answer, whole
    assert one.features == {"permit.row_covered": 1.0, "bank_similarity": 0.65, "from_bank": 1.0, "route_too": 1.0}


def test_other_cells_or_other_text_stay_apart_and_the_same_text_without_cells_is_one():
    other = {**CELL, "column": "CE", "value": "P"}
    found = chooser.one_per_answer([_permit("UP.", {}), _permit("UP.", {}, cells=(other,))])
    assert len(found) == 2
    passage = lambda signals: Candidate("passage", Answer(question="q", answer="A quoted provision.", abstained=False,  # noqa: E731
                                                          route="provision", signals=signals))
    assert len(chooser.one_per_answer([passage({"a": 1.0}), passage({"b": 1.0})])) == 1
    assert len(chooser.one_per_answer([passage({}), Candidate("passage", Answer(
        question="q", answer="Another provision.", abstained=False, route="provision"))])) == 2
