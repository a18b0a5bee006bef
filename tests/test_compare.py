"""Permit comparisons (assistant/routes/compare.py): the code's order P < MUP < UP < not allowed, a
conditioned cell not ranked, "A but not B", and "where is X not allowed" leading with the districts
that do not allow it. Pure functions over lookup cells; no corpus."""

from __future__ import annotations

import pytest

from assistant.routes.compare import COMPARES, WHERE_NOT, but_not_line, comparison_line, not_allowed_first


def _cell(column, value, notes=()):
    return {"column": column, "value": value, "footnotes": [{"number": n, "text": "", "scope": s} for n, s in notes]}


@pytest.mark.parametrize("cells, line", [
    ([_cell("CG", "P"), _cell("CE", "UP")], "Easier in CG:"),
    ([_cell("CE", "UP"), _cell("CG", "MUP")], "Easier in CG:"),
    ([_cell("CE", "-"), _cell("CG", "UP")], "Easier in CG:"),
    ([_cell("CE", "UP"), _cell("CG", "UP")], "The same in CE and CG:"),
    ([_cell("NL", "P"), _cell("NM", "UP", [("4", "cell")])], "Not ranked here, as a cell carries conditions (NM: note 4); each value:"),
    ([_cell("CE", "S"), _cell("CG", "UP")], "Not ranked here, as a cell carries conditions (CE: its permit is set by other rules); each value:"),
    ([_cell("CE", "P", [("1", "row")]), _cell("CG", "UP", [("1", "row")])], "Easier in CE:"),  # a row note conditions neither
    ([_cell("CE", "P")], ""),
])
def test_permit_levels_compare_in_the_codes_order_unless_a_cell_is_conditioned(cells, line):
    assert comparison_line(cells) == line


def test_but_not_is_yes_only_when_the_first_allows_and_the_second_does_not():
    assert but_not_line([_cell("CE", "UP"), _cell("CI", "-")]) == "Yes:"
    assert but_not_line([_cell("CE", "UP"), _cell("CI", "P")]) == "No:"
    assert but_not_line([_cell("CE", "-"), _cell("CI", "-")]) == "No:"


def test_where_not_leads_with_the_districts_that_do_not_allow_it():
    line = "Junior accessory dwelling unit: permitted (P) in RR, RVL, NL; not allowed in OSC, OSR, NM, NU."
    assert not_allowed_first(line) == "Junior accessory dwelling unit: not allowed in OSC, OSR, NM, NU; permitted (P) in RR, RVL, NL."
    assert not_allowed_first("Permitted (P); a zoning clearance is required.") == "Permitted (P); a zoning clearance is required."


@pytest.mark.parametrize("question, compares", [
    ("Is a gym easier to get approved in CG or CE?", True), ("gym in SW vs TOC", True),
    ("dog kennel: CG or CE, which one can i even do?", True), ("Which of SW and TOC has the lower permit requirement?", True),
    ("Which of the commercial and industrial districts allow a hotel?", False), ("can I open a gym in CG or CE?", False),
])
def test_a_comparison_is_read_from_its_own_words(question, compares):
    assert bool(COMPARES.search(question)) is compares


@pytest.mark.parametrize("question, where_not", [
    ("where is a junior ADU not allowed?", True), ("which of HC, LP and SW say no to a triplex?", True),
    ("Which of the commercial/industrial districts don't allow an ADU?", True), ("where can I open a bar?", False),
    ("is a bar not allowed in CE?", False),
])
def test_a_question_about_where_a_use_is_not_allowed(question, where_not):
    assert bool(WHERE_NOT.search(question)) is where_not


def test_the_districts_of_a_named_permit_table():
    """"which Table 2-4 districts allow X?": the table's district columns (a fake permit table)."""
    from types import SimpleNamespace

    from assistant.routes.compare import _with_table_districts
    from assistant.types import Query

    res = SimpleNamespace(tables=SimpleNamespace(columns={"2-4": ["HC", "LP", "NG", "CA", "TOC", "SW"]}))
    read = _with_table_districts(Query("Which Table 2-4 districts allow a transit station?", "", tables=("2-4",)), res)
    assert read.districts == ("HC", "LP", "NG", "CA", "TOC", "SW") and read.tables == ()
    named = Query("Which Table 2-4 districts among HC and LP allow it?", "", districts=("HC", "LP"))
    assert _with_table_districts(named, res) is named  # districts named: they are the ones asked


def test_a_named_district_without_the_row_is_said_not_compared():
    from assistant.routes.compare import unlisted_line

    assert unlisted_line(["NL"], [_cell("CD", "UP") | {"row": "Health/fitness facility"}]) == (
        "Not compared: the permit table of NL has no Health/fitness facility row, so the tables do not say how it is "
        "treated there;")
