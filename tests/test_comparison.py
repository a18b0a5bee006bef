"""Standards compared across districts (assistant/comparison.py): one number each in one unit is
ranked in the direction asked; a value with its own condition, or notes that differ, is not."""

from __future__ import annotations

import pytest

from assistant.comparison import direction, lead


def _cell(value, number, unit="ft", notes=(), more=()):
    quantities = [{"value": number, "unit": unit, "text": value}] + [{"value": n, "unit": unit, "text": ""} for n in more]
    return {"value": value, "quantities": quantities, "footnotes": [{"number": n, "scope": "cell"} for n in notes]}


@pytest.mark.parametrize("question, expected", [
    ("which is taller, TOC or SW?", ("taller", 1)), ("which allows more units per acre, NU or NM?", ("higher", 1)),
    ("which has the smaller setback?", ("smaller", -1)), ("tell me more about heights in TOC and SW", None),
    ("max height in TOC versus SW?", None),
])
def test_the_direction_asked(question, expected):
    assert direction(question) == expected


def test_one_number_each_in_one_unit_is_ranked_in_the_direction_asked():
    heights = {"SW": [_cell("40 ft.", 40)], "NG": [_cell("35 ft.", 35)]}
    assert lead("which is taller, SW or NG?", heights) == "Taller in SW:"
    assert lead("which is lower, SW or NG?", heights) == "Lower in NG:"
    assert lead("which is taller?", {"SW": [_cell("40 ft.", 40)], "NG": [_cell("40 ft.", 40)]}) == "The same in SW and NG:"
    assert lead("SW vs NG height?", heights) == ""  # no direction asked: the values side by side


def test_a_conditioned_value_or_different_notes_are_not_ranked():
    toc = {"TOC": [_cell("45 ft.; 55 ft. with use permit", 45, more=(55,))], "SW": [_cell("40 ft.", 40)]}
    assert lead("which is taller?", toc).startswith("Not ranked here, as a value carries a condition (TOC:")
    noted = {"NL": [_cell("6,000 sq. ft.", 6000, "sq ft", notes=("4",))], "NM": [_cell("4,000 sq. ft.", 4000, "sq ft")]}
    assert lead("which lot is bigger?", noted).startswith("Not ranked here, as the districts' values carry different notes")
    same = {"NL": [_cell("6,000 sq. ft.", 6000, "sq ft", notes=("4",))], "NM": [_cell("4,000 sq. ft.", 4000, "sq ft", notes=("4",))]}
    assert lead("which lot is bigger?", same) == "Bigger in NL:"
    assert lead("which is bigger?", {"NL": [_cell("6,000 sq. ft.", 6000, "sq ft")], "NM": [_cell("50 ft.", 50)]}) == ""


def test_the_measure_asked_is_compared_when_a_district_states_several():
    lots = {"NL": [_cell("6,000 sq. ft.", 6000, "sq ft"), _cell("60 ft.", 60)],
            "NM": [_cell("4,000 sq. ft.", 4000, "sq ft"), _cell("50 ft.", 50)]}
    assert lead("minimum lot size NL vs NM - which is bigger?", lots) == "Bigger in NL:"
