"""The table route (assistant/routes/table.py, issue 44): a table asked for by number is proposed as the
table itself (title, section, cells), one candidate per table printed under that number.

Hermetic: the bundled corpus and tables, the fake searcher of test_assistant (no index, no model).
"""

from __future__ import annotations

import pytest

from assistant import choose, chooser, confidence
from assistant.routes import table
from tests.route_proposals import proposed, res  # noqa: F401  (res: the module's fixture)
from assistant.types import Query


def _proposed(res, question):
    found = proposed(table, res, question)
    return found


@pytest.mark.parametrize("question,section,key,title,cells", [
    ("Table 2-18", "17.24.030", "2-18", "TOC Zone Development Standards", 10),
    ("show me Table 3-2", "17.30.030", "3-2", "Maximum Height of Fences, Walls, and Hedges", 7),
    ("Table 3-7", "17.36.050", "3-7", "Parking Requirements by Land Use", 74),
])
def test_a_table_by_number_is_that_table(res, question, section, key, title, cells):
    (found,) = _proposed(res, question)
    answer = found.answer
    assert answer.first_line.startswith(f"Table {key} {title} (§ {section} ")
    assert {c["table"] for c in answer.lookups} == {key} and {c["section"] for c in answer.lookups} == {section}
    assert len(answer.lookups) == cells
    assert [(c.section, c.table) for c in answer.citations] == [(section, f"Table {key}")]
    assert "Table 2-17" not in answer.answer  # the other table the section prints is not this one


def test_table_2_2_is_the_land_use_table_and_its_cannabis_part_told_apart(res):
    """The number alone is the land-use table, which names its cannabis part (once the two tied and the
    cannabis part won by its text); the part is proposed when the question says its own words."""
    (plain,) = _proposed(res, "Table 2-2")
    assert plain.answer.citations[0].table == "Table 2-2"
    assert {c["table"] for c in plain.answer.lookups} == {"2-2"}
    assert plain.answer.signals["tables_numbered"] == 1.0
    # the legend printed on the title's line is not part of the title
    assert plain.answer.first_line.startswith("Table 2-2 Allowed Land Uses and Permit Requirements for Low Density "
                                              "and Neighborhood Zones (§ 17.22.020 ")
    assert 'Also printed as Table 2-2: Allowed Land Uses and Permit Requirements - Cannabis Uses (ask for "Table 2-2 cannabis")' \
        in plain.answer.answer
    found = _proposed(res, "show me Table 2-2 cannabis")
    keys = sorted(c.answer.citations[0].table for c in found)
    assert keys == ["Table 2-2", "Table 2-2 cannabis"]
    for candidate in found:
        assert {c["table"] for c in candidate.answer.lookups} == {candidate.answer.citations[0].table.removeprefix("Table ")}
        assert candidate.answer.signals["tables_numbered"] == 2.0
    share = {c.answer.citations[0].table: c.answer.signals["title_share"] for c in found}
    assert share["Table 2-2 cannabis"] > share["Table 2-2"]  # its own words pick it out: a signal for the ranker


def test_the_two_tables_2_4_are_told_apart(res):
    found = {c.answer.citations[0].section: c for c in _proposed(res, "Table 2-4")}
    assert set(found) == {"17.22.020", "17.24.020"}
    assert "Permit Requirements" in found["17.22.020"].answer.first_line
    assert "Parcel Size and Density Standards" in found["17.24.020"].answer.first_line
    # whichever answers names the other, by its section
    assert "Another Table 2-4 is printed in § 17.24.020: Parcel Size and Density Standards." in found["17.22.020"].answer.answer
    assert "Another Table 2-4 is printed in § 17.22.020: Allowed Land Uses" in found["17.24.020"].answer.answer
    assert all(cell["kind"] == "permit" for cell in found["17.22.020"].answer.lookups)
    assert all(cell["kind"] == "standard" for cell in found["17.24.020"].answer.lookups)
    # the question's own words pick one out: a signal for the ranker, not a decision here
    said = {c.answer.citations[0].section: c.answer.signals["title_share"] for c in _proposed(res, "Table 2-4 parcel size")}
    assert said["17.24.020"] > said["17.22.020"]


@pytest.mark.parametrize("question", ["Can I open a bar in CE?", "How tall can a fence be?", "Table 9-9"])
def test_no_table_named_no_candidate(res, question):
    assert _proposed(res, question) == []


def test_it_is_registered_once_with_its_signals(res):
    assert table.candidates in chooser.ROUTES_RANKED
    assert table.candidates not in chooser.ROUTES + chooser.ROUTES_DECIDING  # the hand order never reaches it
    assert "table" in choose.ROUTES
    (found,) = _proposed(res, "Table 2-18")
    assert set(found.answer.signals) == set(confidence.FEATURES["table"])
    features = choose.features(found, "other", [], [], [found], Query("Table 2-18", "table 2-18", tables=("2-18",)))
    assert features["route=table"] == 1.0 and "table.title_share" in features


def test_the_chooser_lists_its_candidates(res):
    found = chooser.candidates(res.read("Table 2-18"), res)
    assert any(c.answer.route == "table" and c.answer.citations[0].table == "Table 2-18" for c in found)


@pytest.mark.parametrize("question", ["Which Table 2-4 districts allow a transit station today?",
                                      "Under the current Table 2-4, what permit is required for a theater in HC?"])
def test_a_question_about_something_in_a_table_is_not_asking_for_the_table(res, question):
    assert _proposed(res, question) == []


@pytest.mark.slow
@pytest.mark.parametrize("question,section,table", [("Table 2-2", "17.22.020", "Table 2-2"),
                                                    ("show me Table 3-2", "17.30.030", "Table 3-2"),
                                                    ("Table 2-18", "17.24.030", "Table 2-18")])
def test_with_the_real_index_the_chooser_is_offered_the_table(question, section, table):
    # the ranker chooses among these; until it is refitted with this route's candidates, route=table weighs 0
    from assistant.service import load_assistant

    resources = load_assistant().resources
    found = chooser.candidates(resources.read(question), resources)
    assert any(c.answer.route == "table" and (c.answer.citations[0].section, c.answer.citations[0].table) == (section, table)
               for c in found)
