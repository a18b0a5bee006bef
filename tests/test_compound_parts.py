"""Each part of a two-part question reads what the other names (issue 44's "Can I open a bank in CD, and
how much parking does it need?"). Hermetic: the bundled corpus and tables, the fake searcher of test_assistant."""

from __future__ import annotations

import pytest

from assistant.routes import permit


@pytest.fixture(scope="module")
def res():
    from tests.test_assistant import hermetic_assistant

    return hermetic_assistant().resources


def test_both_parts_of_a_bank_question_read_the_bank(res):
    """"Can I open a bank in CD, and how much parking does it need?": "bank" is the permit tables' Bank,
    financial services row (data/land_uses.json), so the second part takes it from the first."""
    from assistant import dialogue

    first, second = dialogue.split_questions("Can I open a bank in CD, and how much parking does it need?", res.read)
    assert first.land_uses == ("bank, financial services",) and first.districts == ("CD",)
    assert "bank" in second.text and second.districts == ("CD",) and "parking" in second.topics
    (cell,) = permit.candidates(first, res)[0].answer.lookups
    assert (cell["row"], cell["column"], cell["value"]) == ("Bank, financial services", "CD", "UP")
    assert res.read("food bank / nonprofit social services office in CE").land_uses[0] == "social service organization"


def test_a_follow_up_carries_the_rows_of_the_answer_shown(res, monkeypatch):
    """"what about NL?" takes the row the previous answer was given from by the one decider (the ranker when it
    applies), not the hand order's re-answer of the previous question (issue 44: ``chooser.routed`` off this path)."""
    from assistant import chooser
    from assistant.types import Answer

    shown = Answer("Can I open a gym in CD?", "A use permit (UP) is required.", False, route="permit",
                   lookups=({"row": "Health/fitness facility", "column": "CD", "value": "UP", "kind": "permit"},))
    monkeypatch.setattr(chooser, "decided", lambda query, res, previous="": shown)
    monkeypatch.setattr(chooser, "routed", lambda *a: pytest.fail("the hand order re-answered the previous question"))
    assert chooser._rows_answered("Can I open a gym in CD?", res) == ("Health/fitness facility",)
