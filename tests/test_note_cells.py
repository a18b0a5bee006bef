"""Table notes that exclude districts become cells (ingest/tables/note_cells.py).

Hermetic tests read a small synthetic cannabis table with notes; the corpus tests list the cells
the real cannabis table's notes give, and what is left out as not plainly stated.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from ingest.tables import build_tables
from ingest.tables.note_cells import LeftOut, Part, Row, exclusions, note_cells, places_of

from fake_section import FakeSection

REPO = Path(__file__).resolve().parent.parent
RESIDENTIAL = ("OSC", "OSR", "RR", "RVL", "NL", "NM", "NU")
PLAN_AREAS = ("HC", "LP", "NG", "CA", "SW")
NOTE_1 = "Commercial cannabis uses are not allowed in any residential zones."
NOTE_3 = "Commercial cannabis uses are not allowed within the Downtown Specific Plan or Santero Way Specific Plan areas."




HEADER = ("{zone} LAND USE MAXIMUM CULTIVATION AREA PER PARCEL MINIMUM PARCEL SIZE STATE LICENSE TYPE "
          "Med/AU {columns}")
SYNTHETIC = "\n".join([
    "Table 2-2: Allowed Land Uses and Permit Requirements - Cannabis Uses",
    HEADER.format(zone="RESIDENTIAL", columns=" ".join(RESIDENTIAL)),
    "PERSONAL CANNABIS CULTIVATION; No Permit Required",
    "Personal or Caregiver Cultivation (inside dwelling unit or accessory structure only) 6 plants/parcel None Exempt - - P P P P P",
    "COMMERCIAL CANNABIS USES, Commercial Cannabis Permit Required(1)",
    HEADER.format(zone="COMMERCIAL", columns="CE CG CD CI IG PF"),
    "PERSONAL CANNABIS CULTIVATION; No Permit Required",
    "Personal or Caregiver Cultivation (inside dwelling unit or accessory structure only) 6 plants/parcel None Exempt P P P - - -",
    "COMMERCIAL CANNABIS USES, Commercial Cannabis Permit Required(3)",
    "TESTING",
    "Testing Laboratories 8/8 - P - P P P",
    "DISTRIBUTOR",
    "Distributor(6) 11/11 - S - S S S 17.42.200",
    "NOTES:",
    "- Use Not Allowed P Permitted Use",
    f"(1) {NOTE_1} (2) Allowed only in residential use portions of mixed-use development. (3) {NOTE_3}",
    "(6) Includes transport-only distributor.",
])


def _synthetic():
    lines = SYNTHETIC.split("\n")
    section = FakeSection("17.22.020", "D", "2024-02-02", SYNTHETIC, ordinance_section="SECTION 5",
                          source_lines=tuple((100 + i, 100 + i) for i in range(len(lines))))
    return build_tables([section])


def test_synthetic_table_notes_become_not_allowed_cells():
    tables = _synthetic()
    (version,) = [v for v in tables.versions if v.table == "2-2 cannabis"]
    assert not any(c.from_note for c in version.cells)  # what is printed stays what is printed
    derived = {(c.row, c.column): c for c in version.derived}
    rows = ("Testing Laboratories", "Distributor")
    assert set(derived) == {(r, d) for r in rows for d in RESIDENTIAL + PLAN_AREAS}
    cell = derived[("Distributor", "NL")]
    assert (cell.value, cell.from_note, cell.document, cell.date) == ("-", "(1)", "D", "2024-02-02")
    assert cell.category == "Commercial zones - DISTRIBUTOR" and cell.note_lines == (115, 115)
    assert [(f.number, f.text) for f in cell.footnotes] == [("1", NOTE_1)]
    assert cell.source == f"(1) {NOTE_1}" and "residential part" in cell.note.lower()
    assert derived[("Testing Laboratories", "SW")].from_note == "(3)"
    # the personal-cultivation rows sit under another heading: no note speaks about them
    assert not any(c.row.startswith("Personal") for c in version.derived)


def test_synthetic_cells_join_their_row_and_print_their_provenance():
    tables = _synthetic()
    effective = {(e.cell.row, e.cell.column): e for e in tables.effective if e.cell.table == "2-2 cannabis"}
    record = effective[("Testing Laboratories", "HC")].to_json()
    assert record["value"] == "-" and record["from_note"] == "(3)" and record["districts"] == ["HC"]
    assert record["from_note_source"] == {
        "note": "(3)", "text": NOTE_3, "document": "D", "date": "2024-02-02", "lines": [115, 115],
        "basis": exclusions()["places"]["Downtown Specific Plan"]["basis"],
    }
    printed = effective[("Testing Laboratories", "CG")].to_json()
    assert printed["value"] == "P" and printed["from_note"] is None and printed["from_note_source"] is None
    for key in ("table", "section", "row", "column", "value", "footnotes", "document", "date", "history"):
        assert key in record  # the JSON contract's fields stay


def _row(printed=None, heading="COMMERCIAL CANNABIS USES, Commercial Cannabis Permit Required"):
    return Row(heading, "Commercial zones - TESTING", "Testing Laboratories", printed or {})


COMMON = dict(table="t", section="s", document="D", date="2024-01-01", ordinance_section="")
PARTS = [Part("Residential", ("RR", "NL"), (("COMMERCIAL CANNABIS USES, Commercial Cannabis Permit Required", ("1",)),))]


def test_a_printed_cell_is_never_replaced():
    cells, left = note_cells(PARTS, [_row({"NL": "-"})], {"1": NOTE_1}, COMMON)
    assert [c.column for c in cells] == ["RR"] and not [o for o in left if o.district == "NL"]
    cells, left = note_cells(PARTS, [_row({"NL": "P"})], {"1": NOTE_1}, COMMON)
    assert [c.column for c in cells] == ["RR"]
    assert any(o.district == "NL" and "prints 'P'" in o.reason for o in left)


def test_a_note_whose_uses_are_not_its_heading_gives_no_cell():
    parts = [Part("Residential", ("RR",), (("TESTING", ("1",)),))]
    cells, left = note_cells(parts, [_row(heading="TESTING")], {"1": NOTE_1}, COMMON)
    assert not cells and "not the heading" in left[0].reason


@pytest.mark.parametrize(
    "text, read",
    [(NOTE_1, ("Commercial cannabis uses", ["residential"])),
     (NOTE_3, ("Commercial cannabis uses", ["Downtown Specific Plan", "Santero Way Specific Plan"])),
     ("Bars are not permitted within the Downtown Specific Plan area.", ("Bars", ["Downtown Specific Plan"]))],
)
def test_plain_exclusions_are_read(text, read):
    assert places_of(text) == read


# Notes that say what is not allowed but not plainly where: no cell (the ambiguous ones).
NOT_PLAIN = [
    "Allowed only in residential use portions of mixed-use development.",  # a condition, not an exclusion
    "Nursery use is allowed as part of any city-issued indoor cultivation cannabis permit.\n"
    "Specialty cottage cultivation is not permitted.",  # a row excluded everywhere, two statements
    "Commercial cannabis uses are not allowed in residential zones, except as provided in Section 17.42.200.",
    "Commercial cannabis uses are generally not allowed near schools.",
]


@pytest.mark.parametrize("text", NOT_PLAIN)
def test_notes_not_plainly_excluding_districts_give_no_cell(text):
    cells, left = note_cells(PARTS, [_row()], {"1": text}, COMMON)
    assert not cells and left and left[0].district == ""


def test_an_unknown_place_leaves_the_whole_note_out():
    note = "Commercial cannabis uses are not allowed in residential zones or the Moon Specific Plan area."
    cells, left = note_cells(PARTS, [_row()], {"1": note}, COMMON)
    assert not cells and left == [LeftOut("(1)", "", "place not known: 'Moon Specific Plan'")]


# ---- the corpus ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus_tables():
    from ingest.tables import load_tables

    return load_tables()


def _cannabis(tables):
    (version,) = [v for v in tables.versions if v.table == "2-2 cannabis"]
    return version


COMMERCIAL_ROWS = 21  # Outdoor 5, Indoor 4, Mixed Light 5, Manufacturing 2, Testing, Retail 2, Distributor, Microbusiness


def test_corpus_cannabis_notes_give_these_cells(corpus_tables):
    version = _cannabis(corpus_tables)
    by_note = Counter((c.from_note, c.column) for c in version.derived)
    assert by_note == Counter({**{("(1)", d): COMMERCIAL_ROWS for d in RESIDENTIAL},
                               **{("(3)", d): COMMERCIAL_ROWS for d in PLAN_AREAS}})
    assert len(version.derived) == 252
    printed = {(c.category, c.row, c.column) for c in version.cells}
    lines = (REPO / "corpus/cotati/2023-11-06_ord-telecom-facilities.txt").read_text(encoding="utf-8").split("\n")
    for cell in version.derived:
        assert cell.value == "-" and cell.category.startswith("Commercial zones - ")
        assert (cell.category, cell.row, cell.column) not in printed
        assert (cell.document, cell.date) == ("000", "2023-12-06")
        first, last = cell.note_lines
        assert cell.raw in " ".join(lines[first - 1: last]), cell  # the note is printed on those lines
        assert cell.raw == {"(1)": NOTE_1, "(3)": NOTE_3}[cell.from_note]


def test_corpus_left_out_as_not_plain(corpus_tables):
    """Districts a note might be read to cover but does not name plainly: no cell for them."""
    version = _cannabis(corpus_tables)
    left = [re.match(r"(\(\d+\)) (\S+):", item).groups() for item in version.notes_left_out]
    assert sorted(left) == sorted([("(1)", "TOC"), ("(1)", "MHP"), ("(1)", "MHP-S"), ("(3)", "CD"), ("(3)", "TOC")])
    assert not any(c.column in ("TOC", "MHP", "MHP-S", "SWSP") for c in version.derived)
    # the table's other notes exclude no district: (2) conditions, (4) a row, (5) and (6) explain
    notes = {n.number: n.text for n in version.notes}
    assert [n for n in notes if places_of(notes[n])] == ["1", "3"]


def test_corpus_places_agree_with_table_2_1(corpus_tables):
    """The data file's districts per place are Table 2-1's: the residential part's columns are its
    Low Density and Neighborhood Zones; a plan's districts implement only that plan."""
    designation = {e.cell.row: e.cell.value for e in corpus_tables.effective
                   if e.cell.table == "2-1" and e.cell.column.startswith("General Plan Designation")
                   and e.cell.category == "Mixed Use Corridor and Downtown Zones"}
    low = {e.cell.row for e in corpus_tables.effective
           if e.cell.table == "2-1" and e.cell.category == "Low Density and Neighborhood Zones"}
    assert low == set(RESIDENTIAL)
    places = exclusions()["places"]
    for district in places["Downtown Specific Plan"]["districts"]:
        assert designation[district] == "Downtown Specific Plan", district
    assert places["Santero Way Specific Plan"]["districts"] == ["SW"]
    assert designation["SWSP"] == "Santero Way Specific Plan"  # Table 2-1's symbol of SW
    assert "Santero Way Specific Plan" in designation["TOC"] and designation["TOC"] != "Santero Way Specific Plan"
    assert "Downtown Specific Plan" not in designation["CD"]
