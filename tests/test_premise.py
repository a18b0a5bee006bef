"""The asker's premise in a leading or negated yes/no question (assistant/premise.py, issue 44): read once
into the Query, judged against the permit cells the chosen answer reads, said first.

Hermetic: the bundled corpus and tables, the fake searcher of test_assistant (no index, no model).
"""

from __future__ import annotations

import pytest

from assistant import chooser, premise
from assistant.routes import permit


@pytest.fixture(scope="module")
def res():
    from tests.test_assistant import hermetic_assistant

    return hermetic_assistant().resources


@pytest.mark.parametrize("question,claim", [
    ("A tattoo parlor can't open in CG, can it?", premise.NOT_ALLOWED),
    ("Isn't it true that I don't need any permit for a duplex in NM?", premise.NO_PERMIT),
    ("Multifamily plex housing is banned in the Northern Gateway district, isn't it?", premise.NOT_ALLOWED),
    ("Plex housing isn't allowed downtown, so I can't build a fourplex in the Commerce Avenue (CA) district, right?",
     premise.NOT_ALLOWED),
    ("Cell towers are allowed anywhere with a use permit, so I can lease part of my NL backyard to a carrier, right?",
     premise.ALLOWED),
    ("Is it true that a bar is allowed in CE?", premise.ALLOWED),
    ("Isn't a junior ADU allowed in NM?", premise.ALLOWED),
    ("Can't I open a bar in CE?", premise.ALLOWED),
    ("Isn't it true that a tattoo parlor can't open in CG?", premise.NOT_ALLOWED),
    # no premise asserted: a plain question, a tag-less "allowed by right?", a conclusion that says nothing of a permit
    ("Can I open a bar in CE?", ""),
    ("fourplex on an NM lot - is that allowed by right?", ""),
    ("Single-family houses are allowed by right in every neighborhood zone, so I don't need a use permit for one in NM, do I?",
     ""),
    ("I can't keep chickens in NL without a permit, right?", ""),
    ("Towers in PF can go to 60 ft, so a 60-foot tower behind the shopping center in CG is fine too, right?", ""),
])
def test_the_claim_is_read_once(res, question, claim):
    assert premise.claim_of(question) == claim
    assert res.read(question).claim == claim


@pytest.mark.parametrize("claim,values,right", [
    (premise.NOT_ALLOWED, ["-"], True), (premise.NOT_ALLOWED, ["P"], False), (premise.NOT_ALLOWED, ["UP", "-"], False),
    (premise.ALLOWED, ["MUP"], True), (premise.ALLOWED, ["-"], False),
    (premise.NO_PERMIT, ["P"], False),  # a permitted use still needs a zoning clearance (17.22.020's legend)
    (premise.NO_PERMIT, ["-"], False),
    (premise.NOT_ALLOWED, ["S"], None),  # set by the specific use regulations: the cell does not say
    (premise.ALLOWED, [], None), ("", ["P"], None),
])
def test_the_cells_judge_the_claim(claim, values, right):
    assert premise.verdict(claim, values) is right


@pytest.mark.parametrize("question,lead,value", [
    ("Isn't it true that I don't need any permit for a duplex in NM?", "Not so:", "P"),
    ("A tattoo parlor can't open in CG, can it?", "Not so:", "P"),
    ("A junior ADU isn't allowed in NM, is it?", "You are right:", "-"),
])
def test_the_lead_says_whether_the_asker_is_right_then_the_rule(res, question, lead, value):
    query = res.read(question)
    (candidate,) = permit.candidates(query, res)
    assert [c["value"] for c in candidate.answer.lookups] == [value]
    given = chooser._given(query, candidate, res)
    assert given.first_line.startswith(f"{lead} {candidate.answer.first_line}")
    # the same cells without a premise: the rule alone, as before
    assert chooser._given(res.read("Can a tattoo parlor open in CG?"), candidate, res).first_line == candidate.answer.first_line


def test_an_answer_without_permit_cells_is_not_judged():
    assert premise.lead(premise.NOT_ALLOWED, [{"kind": "standard", "column": "CG", "value": "-"}], ("CG",)) == ""
    assert premise.lead(premise.NOT_ALLOWED, [], ()) == ""

