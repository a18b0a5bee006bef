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
    assert one.answer.answer == route.answer.answer  # the route's answer, whole
    assert one.features == {"permit.row_covered": 1.0, "bank_similarity": 0.65, "from_bank": 1.0, "route_too": 1.0}
    assert chooser.one_per_answer([bank, route]) == [one]  # whatever order they were proposed in


def test_only_the_bank_copy_joins_a_route_answer_of_the_same_cells():
    other = {**CELL, "column": "CE", "value": "P"}
    whole = _permit("A use permit (UP) is required.\nWho decides: the Planning Commission.", {"permit.row_covered": 1.0})
    short = _permit("A use permit (UP) is required.", {"permit.row_covered": 0.5})
    elsewhere = _permit("Permitted (P).", {"bank_similarity": 0.6}, cells=(other,))
    found = chooser.one_per_answer([whole, short, elsewhere])
    assert found == [whole, short, elsewhere]  # two readings by routes stay two; a copy of other cells joins nothing
    copy = _permit("Use permit (UP).", {"bank_similarity": 0.65})
    joined = chooser.one_per_answer([copy, whole, short])
    assert {c.answer.answer: c.features for c in chooser.one_per_answer([short, whole, copy])} == {
        c.answer.answer: c.features for c in joined}  # whatever order they were proposed in
    assert [c.answer.answer for c in joined] == [whole.answer.answer, short.answer.answer]
    assert all(c.features["bank_similarity"] == 0.65 and c.features["route_too"] == 1.0 for c in joined)
    passage = lambda signals: Candidate("passage", Answer(question="q", answer="A quoted provision.", abstained=False,  # noqa: E731
                                                          route="provision", signals=signals))
    assert len(chooser.one_per_answer([passage({"a": 1.0}), passage({"b": 1.0})])) == 1  # the same text: one
