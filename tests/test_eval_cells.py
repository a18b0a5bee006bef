"""eval.cells: did an answer use the gold table cell? Lookups are written the way
``python -m ingest tables --json`` prints cells; every expectation is hand-written."""

from __future__ import annotations

import pytest

from eval.cells import cell_matches, cell_problem, label_words, row_problem, table_key


def cell(table="Table 2-2", row="Accessory dwelling unit", column="NL", value="P", document="000",
         section="17.22.020", category=None):
    out = {"table": table, "section": section, "row": row, "column": column, "value": value, "document": document}
    if category is not None:
        out["category"] = category
    return out


# -- labels ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "label, key",
    [("Table 2-2 Cannabis", "2-2 cannabis"), ("2-2 cannabis", "2-2 cannabis"), ("TABLE  2-2   Cannabis", "2-2 cannabis"),
     ("Table 2-4", "2-4"), ("table 3-7", "3-7"), (None, ""), ("Table 2-4 ", "2-4")],
)
def test_table_key(label, key):
    assert table_key(label) == key


def test_label_words_drop_footnotes_dashes_and_filler():
    assert label_words("Outdoor Cultivation \u2013 Small (2)*") == {"outdoor", "cultivation", "small"}
    assert label_words("Banks and financial services") == {"banks", "financial", "services"}
    assert label_words("Minimum Lot Area (sq. ft.)") == {"minimum", "lot", "area", "sq", "ft"}
    assert label_words(None) == frozenset()


# -- cell_matches ---------------------------------------------------------------------------------
def test_same_table_written_two_ways():
    lk = cell(table="2-2 cannabis", row="Indoor", category="Cultivation", column="CG")
    assert cell_matches(lk, table="Table 2-2 Cannabis", row="Cultivation - Indoor", column="CG")
    assert not cell_matches(lk, table="Table 2-2", row="Cultivation - Indoor", column="CG")


def test_row_words_may_come_from_the_category():
    small = cell(table="2-2 cannabis", category="Commercial zones - Outdoor Cultivation", row="Small", column="CG", value="UP")
    mixed = cell(table="2-2 cannabis", category="Commercial zones - Mixed Light Cultivation", row="Small", column="CG", value="UP")
    gold = dict(table="Table 2-2 Cannabis", row="Outdoor Cultivation - Small", column="CG")
    assert cell_matches(small, **gold)
    assert not cell_matches(mixed, **gold)  # "outdoor" is in neither its category nor its row
    assert not cell_matches(small, **{**gold, "column": "CE"})


def test_row_words_fold_plurals_and_ignore_footnote_markers():
    lk = cell(table="Table 3-7", row="Bank, financial service (2)", column="Spaces required", value="1 per 300 sf")
    assert cell_matches(lk, table="Table 3-7", row="Banks and financial services", column="Spaces required")
    assert not cell_matches(lk, table="Table 3-7", row="Banks and credit unions", column="Spaces required")


def test_the_two_tables_2_4_are_told_apart_by_section():
    permits = cell(table="Table 2-4", section="17.22.020", row="Night club", column="TOC", value="UP")
    numbers = cell(table="Table 2-4", section="17.24.020", row="NM", column="Area", value="5,000 sf")
    assert cell_matches(permits, table="Table 2-4", row="Night club", column="TOC", sections=["17.22.020"])
    assert not cell_matches(permits, table="Table 2-4", row="Night club", column="TOC", sections=["17.24.020"])
    assert cell_matches(numbers, table="Table 2-4", row="NM", column="Area", sections=["17.24.020"])
    assert not cell_matches(numbers, table="Table 2-4", row="NM", column="Area", sections=["17.22.020", "17.42.071"])
    # without gold sections (or a lookup without one) the label alone decides
    assert cell_matches(numbers, table="Table 2-4", row="NM", column="Area")
    assert cell_matches({**numbers, "section": None}, table="Table 2-4", row="NM", column="Area", sections=["17.22.020"])


@pytest.mark.parametrize(
    "lookup",
    [
        # districts as rows, the two-line heading kept only as its last line
        cell(table="Table 2-4", section="17.24.020", row="NM", column="Area", value="5,000 sf"),
        # districts as columns, the heading in full as the row
        cell(table="Table 2-4", section="17.24.020", row="Minimum Parcel Size Area", column="NM", value="5,000 sf"),
    ],
)
def test_either_orientation_is_the_same_cell(lookup):
    assert cell_matches(lookup, table="Table 2-4", row="NM", column="Minimum Parcel Size Area", sections=["17.24.020"])
    assert cell_problem([lookup], table="Table 2-4", row="NM", column="Minimum Parcel Size Area", value="5,000 sf",
                        document="000", sections=["17.24.020"]) == ""


def test_a_column_heading_that_is_not_the_gold_one_does_not_match():
    lk = cell(table="Table 2-4", section="17.24.020", row="NM", column="Width", value="50 ft")
    assert not cell_matches(lk, table="Table 2-4", row="NM", column="Minimum Parcel Size Area")
    other_district = cell(table="Table 2-4", section="17.24.020", row="NL", column="Area", value="5,000 sf")
    assert not cell_matches(other_district, table="Table 2-4", row="NM", column="Minimum Parcel Size Area")


# -- cell_problem -----------------------------------------------------------------------------
GOLD = dict(table="Table 2-2", row="Accessory dwelling unit", column="NL", value="P", document="000", sections=["17.22.020"])


def test_the_gold_cell_with_the_gold_value_and_document_is_right():
    assert cell_problem([cell(value="P(2)")], **GOLD) == ""  # footnote markers do not change the code
    # one right cell among others is enough
    assert cell_problem([cell(column="NM", value="-"), cell()], **GOLD) == ""


def test_no_cell_or_another_cell():
    assert cell_problem([], **GOLD) == "did not use the cell Table 2-2 / Accessory dwelling unit / NL (no table cell)"
    assert cell_problem([cell(column="NM", value="P")], **GOLD) == (
        "did not use the cell Table 2-2 / Accessory dwelling unit / NL (used Table 2-2 / Accessory dwelling unit / NM)")
    assert cell_problem([cell(table="Table 2-3")], **GOLD).startswith("did not use the cell")
    assert cell_problem([cell(row="Accessory structure")], **GOLD).startswith("did not use the cell")


def test_a_printed_row_longer_than_the_gold_row_still_matches():
    # the gold row's words must all be among the cell's words (a gold row may shorten the printed one)
    lk = cell(table="Table 3-7", section="17.36.050", category="Services",
              row="Banks, financial services (not within a retail complex)", column="Vehicle Spaces Required",
              value="1 space for each 180 sq. ft. of floor area")
    assert cell_matches(lk, table="Table 3-7", row="Banks, financial services", column=None)
    assert not cell_matches(lk, table="Table 3-7", row="Banks, financial services, credit unions", column=None)


def test_wrong_value():
    assert cell_problem([cell(value="UP")], **GOLD) == "cell Table 2-2 / Accessory dwelling unit / NL read as 'UP', gold 'P'"
    assert cell_problem([cell(value="-")], **GOLD) == "cell Table 2-2 / Accessory dwelling unit / NL read as '-', gold 'P'"


def test_wrong_document():
    assert cell_problem([cell(document="001")], **GOLD) == (
        "cell Table 2-2 / Accessory dwelling unit / NL taken from document 001, in force is 000")
    # the right value from the document in force among older readings is right
    assert cell_problem([cell(document="001", value="UP"), cell(document="000")], **GOLD) == ""
    # without a gold document any document will do
    assert cell_problem([cell(document="001")], **{**GOLD, "document": None}) == ""


@pytest.mark.parametrize(
    "value, gold, ok",
    [
        ("40 ft.", "40 ft", True),  # each printed number is in the cell's value
        ("40'", "40 ft", True),
        ("35 ft", "40 ft", False),
        ("400 ft", "40 ft", False),
        ("5,000 sf", "5000 square feet", True),
        ("10,000 sf", "10000", True),
        ("8 ft; 16 ft", "8 feet; 16 feet", True),
        ("8 ft", "8 feet; 16 feet", False),
        ("None", "none", True),  # no number: the normalized texts must be equal
        ("None required", "none", False),
    ],
)
def test_printed_standards_compare_by_their_numbers(value, gold, ok):
    lk = cell(table="Table 2-5", section="17.24.030", row="Height", column="NL", value=value)
    problem = cell_problem([lk], table="Table 2-5", row="Height", column="NL", value=gold, document="000")
    assert (problem == "") is ok, problem


def test_a_row_printed_over_several_columns_is_read_together():
    lks = [cell(table="Table 2-5", section="17.24.030", row="Setback", column="NL Side", value="5 ft"),
           cell(table="Table 2-5", section="17.24.030", row="Setback", column="NL Rear", value="10 ft")]
    assert cell_problem(lks, table="Table 2-5", row="Setback", column="NL", value="5 ft; 10 ft", document=None) == ""
    assert cell_problem(lks[:1], table="Table 2-5", row="Setback", column="NL", value="5 ft; 10 ft", document=None) != ""


def test_no_gold_value_means_any_value():
    assert cell_problem([cell(value="UP")], **{**GOLD, "value": None}) == ""


# -- row_problem (which districts allow a use) ---------------------------------------------------
ROW = [("CE", "UP"), ("CG", "UP"), ("CD", "MUP(2)"), ("CI", "-"), ("IG", "\u2014")]


def bar(column, value):
    return cell(table="Table 2-3", row="Bar, tavern", column=column, value=value)


def test_row_problem_needs_every_allowing_district_with_its_value():
    full = [bar("CE", "UP"), bar("CG", "UP"), bar("CD", "MUP")]
    assert row_problem(full, table="Table 2-3", row="Bar, tavern", cells=ROW, sections=["17.22.020"]) == ""
    # the districts that do not allow the use need not be looked up
    assert row_problem(full + [bar("CI", "-")], table="Table 2-3", row="Bar, tavern", cells=ROW) == ""


def test_row_problem_names_missing_and_wrong_districts():
    assert row_problem([bar("CE", "UP")], table="Table 2-3", row="Bar, tavern", cells=ROW) == (
        "row Table 2-3 / Bar, tavern: missing or wrong CG=UP, CD=MUP(2)")
    wrong = [bar("CE", "UP"), bar("CG", "P"), bar("CD", "MUP")]
    assert row_problem(wrong, table="Table 2-3", row="Bar, tavern", cells=ROW) == (
        "row Table 2-3 / Bar, tavern: missing or wrong CG=UP")
    other_row = [cell(table="Table 2-3", row="Restaurant", column=c, value=v) for c, v in ROW]
    assert row_problem(other_row, table="Table 2-3", row="Bar, tavern", cells=ROW) == (
        "row Table 2-3 / Bar, tavern: missing or wrong CE=UP, CG=UP, CD=MUP(2)")
    assert row_problem([bar("CE", "UP"), bar("CG", "UP"), bar("CD", "MUP")], table="Table 2-3", row="Bar, tavern",
                       cells=ROW, sections=["17.24.020"]).startswith("row Table 2-3 / Bar, tavern: missing")
