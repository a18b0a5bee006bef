"""Permit-table parser on small synthetic fixtures: the extraction damage the corpus shows."""

from __future__ import annotations

from ingest.tables.permits import parse_permit_table
from ingest.tables.segment import find_tables

HEADER = """P Permitted Use, Zoning Clearance required
MUP Minor Use Permit required
UP Use Permit required
S Permit requirement set by Specific Use Regulations
- Use not allowed
Permit Required by District
Land Use(1)
HC LP NG CA
Specific
Use
Regulations"""


def _parse(body: str, notes: str = "(1) See Article 9.\n(2) Upper floors only.", partial: bool = False):
    text = f"Table 2-4\nAllowed Land Uses and Permit Requirements for Downtown Specific Plan Districts {HEADER}\n{body}\nNotes:\n{notes}"
    (block,) = find_tables(text)
    return parse_permit_table(block, "2-4", "17.22.020", "T", "2000-01-01", partial=partial)


def _row(version, label):
    return {c.column: c for c in version.cells if c.row == label}


def test_simple_row_with_reference_and_footnotes():
    version = _parse("RESIDENTIAL USES\nHome occupation P UP(2) - S 17.42.080")
    cells = _row(version, "Home occupation")
    assert [cells[c].value for c in ("HC", "LP", "NG", "CA")] == ["P", "UP", "-", "S"]
    assert cells["LP"].footnotes[0].number == "2"
    assert cells["LP"].footnotes[0].text == "Upper floors only."
    assert cells["HC"].regulation == "17.42.080"
    assert cells["HC"].category == "RESIDENTIAL USES"


def test_dash_variants_all_mean_not_allowed():
    version = _parse("Retail\nBar, tavern - \u2013 \u2014 --")
    assert {c.value for c in version.cells} == {"-"}


def test_glued_tokens_and_label_footnote():
    version = _parse("Services\nTelecommunications facility (8)- S UP(2)- 17.44;\n17.44.065")
    cells = _row(version, "Telecommunications facility")
    assert [cells[c].value for c in ("HC", "LP", "NG", "CA")] == ["-", "S", "UP", "-"]
    assert cells["HC"].regulation == "17.44; 17.44.065"
    assert [f.number for f in cells["HC"].footnotes if f.scope == "row"] == ["8"]


def test_two_rows_glued_on_one_line_and_wrapped_label():
    version = _parse(
        "Retail\nAntique store UP UP UP UP 17.42.030 Artisan shop P P P P\n"
        "Groceries, specialty foods -\n10,000 sf or less\nP P - P"
    )
    assert [c.value for c in _row(version, "Antique store").values()] == ["UP"] * 4
    assert [c.value for c in _row(version, "Artisan shop").values()] == ["P"] * 4
    groceries = _row(version, "Groceries, specialty foods - 10,000 sf or less")
    assert [c.value for c in groceries.values()] == ["P", "P", "-", "P"]


def test_values_split_over_lines_with_footnote_on_next_line():
    version = _parse("Services\nBusiness support service P\n(2) P(2) P(2) P\nRestaurant(6) P/\nMUP\nP/\nMUP - -")
    cells = _row(version, "Business support service")
    assert [c.value for c in cells.values()] == ["P", "P", "P", "P"]
    assert [f.number for f in cells["HC"].footnotes] == ["2"]
    assert [c.value for c in _row(version, "Restaurant").values()] == ["P/MUP", "P/MUP", "-", "-"]


def test_label_continued_after_repeated_header():
    version = _parse(f"Uses\nCrop production, horticulture, - UP UP - 17.42.240 {HEADER}\norchard, vineyard(5)\nPark P P P P")
    cells = _row(version, "Crop production, horticulture, orchard, vineyard")
    assert [c.value for c in cells.values()] == ["-", "UP", "UP", "-"]
    assert [f.number for f in cells["HC"].footnotes] == ["5"]
    assert [c.value for c in _row(version, "Park").values()] == ["P"] * 4


def test_interim_star_and_stray_paren():
    version = _parse("Uses\nTheater UP - MUP UP*\nLibrary P P) P P", notes="*Interim use only.")
    theater = _row(version, "Theater")
    assert theater["CA"].interim and theater["CA"].value == "UP"
    assert theater["CA"].footnotes[-1].number == "*"
    assert theater["CA"].footnotes[-1].text == "Interim use only."
    library = _row(version, "Library")
    assert library["LP"].value == "P" and library["LP"].review
    assert not library["HC"].review


def test_missing_value_flags_every_column_for_review():
    version = _parse("Uses\nBrewery MUP MUP MUP\nBar P P P P")
    brewery = _row(version, "Brewery")
    assert len(brewery) == 4
    assert all(c.review and c.value is None and c.raw == "MUP MUP MUP" for c in brewery.values())
    assert [c.value for c in _row(version, "Bar").values()] == ["P"] * 4


def test_lone_dash_inside_label_is_not_a_value():
    version = _parse("Uses\nAdult day care - 6 or fewer clients - - P P")
    assert [c.value for c in _row(version, "Adult day care - 6 or fewer clients").values()] == ["-", "-", "P", "P"]
