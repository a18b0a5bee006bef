"""Hermetic tests of the table stage's parts: text helpers, amendments, and each parser on
small synthetic tables shaped like the corpus damage."""

from __future__ import annotations


import pytest

from ingest.tables import build_tables
from ingest.tables.amendments import effective_cells
from ingest.tables.labelled import BREAK, rejoin_across_breaks
from ingest.tables.segment import find_tables
from ingest.tables.text import label_key, letters_key, normalise_label, parse_notes, quantities
from ingest.tables.types import Cell, TableVersion

from fake_section import FakeSection


# ---- text helpers

def test_normalise_label_one_dash_style_no_markers():
    assert normalise_label("Brewery \u2013 Brew pub(2)*") == "Brewery - Brew pub"
    assert normalise_label("Design Review \u2013 Single -family") == "Design Review - Single-family"
    assert label_key("Lodging - Bed & breakfast inn") == label_key("Lodging \u2013 Bed and breakfast inn")
    assert letters_key("MHP-S") == letters_key("MHPS")


def test_parse_notes_cuts_history_and_keeps_star():
    notes = parse_notes("(1) See Article 9. (2) Upper floors.\n(Ord. 917 § 4 (Exh. 1), 2022; Ord. 766, 2004). "
                        "(8) Telecom waiver.\n*Interim use only.")
    assert notes == {"1": "See Article 9.", "2": "Upper floors.", "8": "Telecom waiver.", "*": "Interim use only."}


@pytest.mark.parametrize("text, expected", [
    ("45 ft.; 55 ft. with use permit", [(45.0, "ft"), (55.0, "ft")]),
    ("0-10 ft.", [(0.0, "ft"), (10.0, "ft")]),
    ("1 unit per 1.5 acres", [(0.6667, "units/acre")]),
    ("6,000 sq. ft.", [(6000.0, "sq ft")]),
    ("42 in. for solid wall", [(42.0, "in")]),
    ("75%", [(75.0, "%")]),
    ("See CMC Section 17.42.020", []),
])
def test_quantities(text, expected):
    assert [(q.value, q.unit) for q in quantities(text)] == expected


# ---- segmentation

def test_repeated_title_stays_in_its_table_and_a_new_number_starts_a_new_one():
    text = "Table 2-4\nTitle\nrow A\nTable 2-4\nTitle\nrow B\nNotes:\n(1) x\nTable 2-2: Cannabis Uses\nrow C\nshown in Table 2-4"
    blocks = find_tables(text)
    assert [(b.number, b.title) for b in blocks] == [("2-4", "Title"), ("2-2", "Cannabis Uses")]
    assert "row B" in blocks[0].lines and "shown in Table 2-4" in blocks[1].lines


# ---- amendments

def _cell(row, column, value, document, date, category=""):
    return Cell(table="T", section="S", category=category, row=row, column=column, value=value,
                document=document, date=date)


def _version(document, date, cells, partial=False):
    return TableVersion(table="T", section="S", title="", document=document, date=date,
                        columns=("A",), cells=tuple(cells), partial=partial)


def test_latest_date_wins_and_history_is_kept_in_date_order():
    old = _version("a", "2020-01-01", [_cell("Bar", "A", "-", "a", "2020-01-01")])
    new = _version("b", "2024-01-01", [_cell("Bar", "A", "UP", "b", "2024-01-01")])
    (cell,) = effective_cells([new, old])  # order of input does not matter
    assert (cell.cell.value, cell.cell.document) == ("UP", "b")
    assert [(h.value, h.document) for h in cell.history] == [("-", "a")]


def test_restatement_drops_nothing_silently_and_excerpt_drops_nothing():
    first = _version("a", "2020", [_cell("Bar", "A", "P", "a", "2020"), _cell("Pub", "A", "P", "a", "2020")])
    restated = _version("b", "2021", [_cell("Bar", "A", "UP", "b", "2021")])
    excerpt = _version("c", "2022", [_cell("Bar", "A", "S", "c", "2022")], partial=True)
    cells = {c.cell.row: c for c in effective_cells([first, restated, excerpt])}
    assert cells["Pub"].cell.value == "P" and not cells["Pub"].restated and cells["Pub"].dropped_by == ("b",)
    assert cells["Bar"].restated and cells["Bar"].cell.value == "S"
    assert [h.document for h in cells["Bar"].history] == ["a", "b"]


def test_same_label_under_two_categories_matches_by_category_first():
    first = _version("a", "2020", [_cell("Brew pub", "A", "P", "a", "2020", "Retail")])
    later = _version("b", "2021", [_cell("Brew pub", "A", "MUP", "b", "2021", "Industry"),
                                   _cell("Brew-pub", "A", "UP", "b", "2021", "RETAIL")])
    cells = effective_cells([first, later])
    retail = [c for c in cells if c.cell.category == "RETAIL"][0]
    industry = [c for c in cells if c.cell.category == "Industry"][0]
    assert [h.value for h in retail.history] == ["P"] and industry.history == ()


# ---- standards tables read by printed labels

def test_rejoin_label_continued_after_a_header():
    text = f"Laundry - Laundries and dry 1 space per 1,000 sq. ft.\n\n{BREAK}\ncleaning plants\nNext row 2 spaces."
    joined, notes = rejoin_across_breaks(text, ["Laundry - Laundries and dry cleaning plants", "Next row"])
    assert "Laundry - Laundries and dry cleaning plants 1 space per 1,000 sq. ft." in joined
    assert notes and BREAK not in joined


STANDARDS = """17.24.030 Standards.
Table 2-18
TOC Zone Development Standards
Development
Standard TOC Zone Requirement
Setbacks – See Section 17.30.020.
Front 0-10 ft.
Side – Interior (each) 10 ft. abutting a residential zone Side – Street side 0-10 ft.
Height limit – Maximum height of structures.
Maximum Height 45 ft.; 55 ft. with use permit
"""


def test_standards_table_from_synthetic_text(monkeypatch):
    spec = {
        "section": "17.24.030", "number": "2-18", "table": "2-18", "title": "TOC", "parser": "standards",
        "columns": ["TOC Zone Requirement"],
        "header": [r"Table\s+2-18\s+TOC\s+Zone\s+Development\s+Standards\s+Development\s+Standard\s+TOC\s+Zone\s+Requirement"],
        "headings": [r"(?<![A-Za-z])Setbacks\s+–", r"(?<![A-Za-z])Height limit\s+–"],
        "rows": [["Setbacks", "Front"], ["Setbacks", "Side – Interior (each)"], ["Setbacks", "Side – Street side"],
                 ["Setbacks", "Rear"], ["Height limit", "Maximum height"]],
    }
    monkeypatch.setattr("ingest.tables.extract.layouts", lambda: {"x": spec})
    tables = build_tables([FakeSection("17.24.030", "D", "2025-01-01", STANDARDS)])
    cells = {c.row: c for c in tables.versions[0].cells}
    assert cells["Side - Interior (each)"].value == "10 ft. abutting a residential zone"
    assert cells["Side - Street side"].value == "0-10 ft."
    assert cells["Maximum height"].value == "45 ft.; 55 ft. with use permit"
    assert [q.value for q in cells["Maximum height"].quantities] == [45.0, 55.0]
    assert cells["Rear"].value is None and cells["Rear"].review  # a listed row the text does not print


# ---- Table 2-1 name / designation split

def test_district_name_split_from_designation():
    from ingest.tables.districts import _split_name, _strip_marks

    name, rests = _split_name("Neighborhood, Low Density", ["Neighborhood, Low Low-Medium Density \u2014", "Density Residential"])
    assert name == "Neighborhood, Low Density" and rests == ["Low-Medium Density \u2014", "Residential"]
    assert _strip_marks("General Commercial, High MORE URBAN", ("MORE URBAN", "MORE", "URBAN")) == (
        "General Commercial, High", ["MORE URBAN"])
    assert _split_name("Historic Core", ["Downtown Specific Plan"]) is None


# ---- Table 6-1 roles

AUTHORITY = """Table 6-1
Planning Permit Review Authority
Type of Decision
Applicable
Land Use
Code Section
Role of Review Authority(1)
Design Review
Adm inistration Director
Planning
Commission City Council
Administrative and Legislative
Interpretation 17.12 Decision(2) Appeal Appeal
Design Review – All other projects 17.62.040 Recom m end Recommend Decision Appeal Notes:
(1) Roles.
(2) The director may defer.
"""


def test_review_authority_rows(monkeypatch):
    from ingest.tables.vocab import layouts

    spec = dict(layouts()["17.60.040 6-1"])
    monkeypatch.setattr("ingest.tables.extract.layouts", lambda: {"x": spec})
    tables = build_tables([FakeSection("17.60.040", "D", "2025-01-01", AUTHORITY)])
    cells = {(c.row, c.column): c for c in tables.versions[0].cells}
    design = ("Design Review - All other projects", "Planning Commission")
    assert cells[design].value == "Decision" and cells[design].category == "Administrative and Legislative"
    assert cells[("Design Review - All other projects", "Design Review Administration")].value == "Recommend"
    interpretation = cells[("Interpretation", "Director")]
    assert interpretation.value is None and interpretation.review and interpretation.raw == "Decision(2) Appeal Appeal"
    assert cells[("Interpretation", "Applicable Land Use Code Section")].value == "17.12"


# ---- errors name their input

def test_a_table_without_header_is_an_error_naming_the_table(monkeypatch):
    text = "Table 2-4\nDowntown Specific Plan uses\nBar P P P P\nNotes:\n(1) x"
    tables = build_tables([FakeSection("17.22.020", "D", "2025-01-01", text)])
    assert tables.versions == () and len(tables.errors) == 1
    assert "17.22.020 Table 2-4 (D)" in str(tables.errors[0])


# ---- 17.24.020 parcel size and density: glued rows, merged cells per column group

DENSITY = """Table 2-4
Parcel Size and Density Standards
Zoning District Minimum Parcel Size(1) Residential Density Area(2) Width(1) Minimum Density Maximum Density
OSR Determined through subdivision review No residential units allowed RR-1.5 1.5 acre 100 ft. N.A. 1 unit per 1.5 acres
NL 6,000 sq. ft.(4) 60 ft. 4 units per acre(3) 6 units per acre SP Determined by applicable specific plan
Notes:
(1) Depth. (2) Net area. (3) Minimum density. (4) Condominiums.
"""


def test_density_rows_glued_and_merged_cells():
    from ingest.tables.vocab import layouts

    tables = build_tables([FakeSection("17.24.020", "D", "2026-01-01", DENSITY)])
    assert not tables.errors and layouts()["17.24.020 2-4"]["parser"] == "density"
    cells = {(c.row, c.column): c for c in tables.versions[0].cells}
    assert cells[("OSR", "Width")].value == "Determined through subdivision review"
    assert "merged cell" in cells[("OSR", "Width")].note
    assert cells[("OSR", "Maximum Density")].value == "No residential units allowed"
    assert cells[("RR-1.5", "Maximum Density")].quantities[0].unit == "units/acre"
    assert cells[("NL", "Area")].value == "6,000 sq. ft."
    assert sorted(f.number for f in cells[("NL", "Area")].footnotes) == ["1", "2", "4"]
    assert all(cells[("SP", c)].review and cells[("SP", c)].value is None
               for c in ("Area", "Width", "Minimum Density", "Maximum Density"))


# ---- cannabis: labels recognised by their letters

def test_cannabis_label_by_letters_and_glued_values():
    from ingest.tables.cannabis import _label
    from ingest.tables.tokens import _values
    from ingest.tables.vocab import layouts, vocabulary

    spec = layouts()["17.22.020 2-2 cannabis"]
    assert _label(["Specialt", "y", "5,000", "sf"], spec) == ("Specialty", 2)
    assert _label(["Manufac", "turer", "1:", "NonVolatile/", "No", "Solvents", "N/A"], spec)[0] == \
        "Manufacturer 1: NonVolatile/No Solvents"
    assert _label(["Unknown", "thing"], spec) == (None, 0)
    assert [t.code for t in _values("-SSS", vocabulary())] == ["-", "S", "S", "S"]
