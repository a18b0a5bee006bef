"""The ranking route (assistant/routes/ranking.py, issue 44): extremes and comparisons over the standards
tables, proposed as the ranked cells.

Hermetic: the bundled corpus and tables, the fake searcher of test_assistant (no index, no model).
"""

from __future__ import annotations

import pytest

from assistant import answer_type, choose, chooser, confidence
from assistant.routes import ranking
from tests.route_proposals import proposed, res  # noqa: F401  (res: the module's fixture)


def _proposed(res, question):
    found = proposed(ranking, res, question)
    assert all(set(c.answer.signals) == set(confidence.FEATURES["ranking"]) for c in found)
    return found


def _ranked(candidate):
    return [(cell["table"], cell["row"], cell["value"]) for cell in candidate.answer.lookups]


def test_which_district_allows_the_tallest_buildings(res):
    (found,) = _proposed(res, "Which district allows the tallest buildings?")
    assert found.answer_type == "length"
    assert _ranked(found) == [("2-18", "Maximum height", "45 ft.; 55 ft. with use permit"), ("2-17", "Maximum height", "40 ft.")]
    assert found.answer.first_line.startswith("Most of those compared: TOC (")
    assert "(TOC, SW)" in found.answer.answer  # it says which districts the loaded tables let it compare
    assert found.answer.signals["by_district"] == 1.0 and found.answer.signals["stated_share"] < 0.5


def test_a_bank_needs_more_parking_than_a_laundromat(res):
    (found,) = _proposed(res, "Which needs more parking, a bank or a laundromat of the same size?")
    rows = _ranked(found)
    assert [r[0] for r in rows] == ["3-7", "3-7"]
    assert rows[0][1].startswith("Banks, financial services") and "180 sq. ft." in rows[0][2]
    assert "laundromats" in rows[1][1] and "250 sq. ft." in rows[1][2]
    assert answer_type.answers(res.read("Which needs more parking, a bank or a laundromat of the same size?").asked,
                               found.answer_type)


def test_least_and_ties(res):
    (found,) = _proposed(res, "Which district has the smallest minimum lot size?")
    first = _ranked(found)[:2]
    assert all(cell[0] == "2-4" and cell[2] == "2,000 sq. ft." for cell in first)
    assert found.answer.signals["tied"] == 2.0 and found.answer.signals["margin"] == 0.0
    assert found.answer.first_line.startswith("Least of those compared: CD (") and "; TOC (" in found.answer.first_line
    # acres and square feet compared in one unit: RR's 1.5 acres is the largest
    (largest,) = _proposed(res, "which district has the largest minimum lot size?")
    assert _ranked(largest)[0][1].startswith("RR")


@pytest.mark.parametrize("question", ["Can I open a bar in CE?", "How tall can a fence be?",
                                      "how many parking spaces does a gym need", "Table 2-4"])
def test_nothing_ranked_no_candidate(res, question):
    assert _proposed(res, question) == []


def test_it_is_registered(res):
    assert ranking.candidates in chooser.ROUTES_RANKED
    assert ranking.candidates not in chooser.ROUTES + chooser.ROUTES_DECIDING
    assert "ranking" in choose.ROUTES
    found = chooser.candidates(res.read("Which district allows the tallest buildings?"), res)
    assert any(c.answer.route == "ranking" for c in found)


def test_a_superlative_of_one_subject_is_a_maximum_not_a_ranking(res):
    assert _proposed(res, "Re: TOC project - per our call, what's the most residential parking we can allow per unit?") == []


@pytest.mark.slow
@pytest.mark.parametrize("question,first", [("Which district allows the tallest buildings?", "Maximum height"),
                                            ("Which needs more parking, a bank or a laundromat of the same size?",
                                             "Banks, financial services (not within a retail complex)")])
def test_with_the_real_index_the_chooser_is_offered_the_ranking(question, first):
    from assistant.service import load_assistant

    resources = load_assistant().resources
    found = chooser.candidates(resources.read(question), resources)
    assert any(c.answer.route == "ranking" and c.answer.lookups[0]["row"] == first for c in found)


@pytest.mark.parametrize("question,ranks", [
    ("Which needs more parking, a bank or a laundromat of the same size?", "most"),
    ("Which district allows the tallest buildings?", "most"),
    ("Which district has the smallest minimum lot size?", "least"),
    ("minimum lot size NL vs NM - which is bigger?", "most"),
    ("Re: TOC project - per our call, what's the most residential parking we can allow per unit?", ""),
    ("Which districts allow a bar?", ""),
    ("How many parking spaces does a bank need, more or less?", ""),
    ("Which zone should I ask more about, CG or CE?", ""),
    ("Which setback applies to a fence more than 6 feet tall, front or rear?", ""),
    ("Which districts allow more than 10 units per acre?", ""),
    ("Does a bank need more parking than a laundromat, which one?", "most"),
])
def test_the_question_is_read_once_as_asking_which_ranks_first(res, question, ranks):
    assert res.read(question).ranks == ranks


def test_a_ranking_asked_is_never_answered_by_one_row(res):
    """The laundromat's row alone (the bank's vote) once answered "which needs more parking, a bank or a
    laundromat?": it says nothing of which needs more. Only a candidate stating both is admissible."""
    query = res.read("Which needs more parking, a bank or a laundromat of the same size?")
    found = [c for c in chooser.candidates(query, res) if not c.answer.abstained]
    kept = [c for c in found if choose.admissible(c, query.asked, query.ranks)]
    assert kept and all(choose.states_several(c) for c in kept)
    assert any(c.answer.route == "ranking" for c in kept)
    single = [c for c in found if len({cell["row"] for cell in c.answer.lookups}) == 1]
    assert all(not choose.admissible(c, query.asked, query.ranks) for c in single)
    assert all(not choose.admissible(c, query.asked, query.ranks) for c in found if not c.answer.lookups)
    # the laundromat's own row answers the question that asks for it, not the one that ranks
    plain = res.read("how much parking does a laundromat need?")
    (row,) = [c for c in chooser.candidates(plain, res) if c.answer.route == "standards"]
    assert "laundromats" in row.answer.first_line
    assert choose.admissible(row, plain.asked, plain.ranks) and not choose.admissible(row, query.asked, query.ranks)
