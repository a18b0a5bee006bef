"""Completeness against the print: every row and column printed in each table of the corpus is a cell.

tests/fixtures/tables/printed_rows.json lists, per printed table (section, table, document), its
column heads and each row with the source line it is printed on (located once by a helper that
walks the file forward from the table's title, then checked by eye; glued rows share a line).
The tests check the fixture against the corpus text and the parsed tables against the fixture,
and that standards cells are found by district whichever way the table is turned.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ingest.tables import load_tables
from ingest.tables.amendments import label_key
from ingest.tables.districts_of import districts_of, matches_district
from ingest.tables.labelled import compact
from ingest.tables.vocab import vocabulary

FIXTURE = Path(__file__).parent / "fixtures" / "tables" / "printed_rows.json"
CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "cotati"
PRINTED = json.loads(FIXTURE.read_text(encoding="utf-8"))
KEYS = [(t["section"], t["table"], t["document"]) for t in PRINTED]
# Rows per printed table, counted by hand from the corpus text.
HAND_COUNTS = {
    ("17.22.020", "2-2", "000"): 58, ("17.22.020", "2-2 cannabis", "000"): 23, ("17.22.020", "2-3", "000"): 121,
    ("17.22.020", "2-4", "000"): 69, ("17.22.020", "2-4", "002"): 124, ("17.22.020", "2-4", "001"): 2,
    ("17.20.020", "2-1", "002"): 22, ("17.20.020", "2-1", "003"): 22, ("17.24.020", "2-4", "001"): 16,
    ("17.24.030", "2-17", "002"): 9, ("17.24.030", "2-18", "002"): 10, ("17.30.030", "3-2", "001"): 7,
    ("17.36.050", "3-7", "002"): 74, ("17.36.090", "3-8", "001"): 2, ("17.36.090", "3-9", "001"): 5,
    ("17.60.040", "6-1", "002"): 20,
}
# District columns as printed on one header line (permit tables); the cannabis table prints two parts.
DISTRICT_HEADS = {
    ("17.22.020", "2-2", "000"): ["OSC OSR RR RVL NL NM NU"],
    ("17.22.020", "2-2 cannabis", "000"): ["AU OSC OSR RR RVL NL NM NU", "AU CE CG CD CI IG PF"],
    ("17.22.020", "2-3", "000"): ["CE CG CD CI IG PF"],
    ("17.22.020", "2-4", "000"): ["HC LP NG CA"],
    ("17.22.020", "2-4", "002"): ["HC LP NG CA TOC SW"],
    ("17.22.020", "2-4", "001"): ["HC LP NG CA TOC SW"],
}


@pytest.fixture(scope="module")
def tables():
    return load_tables()


def _lines(name: str) -> list[str]:
    return (CORPUS / name).read_text(encoding="utf-8").split("\n")


def _version(tables, key):
    found = [v for v in tables.versions if (v.section, v.table, v.document) == key]
    assert len(found) == 1, key
    return found[0]


def _printed(key):
    return next(t for t in PRINTED if (t["section"], t["table"], t["document"]) == key)


def test_fixture_covers_every_table_version(tables):
    assert sorted(KEYS) == sorted((v.section, v.table, v.document) for v in tables.versions)
    assert sorted(KEYS) == sorted(HAND_COUNTS)


@pytest.mark.parametrize("key", KEYS, ids=["/".join(k) for k in KEYS])
def test_each_row_is_printed_on_its_line(key):
    table = _printed(key)
    lines = _lines(table["file"])
    previous = 0
    assert len(table["rows"]) == HAND_COUNTS[key]
    for row in table["rows"]:
        line = lines[row["line"] - 1]
        assert line.strip().startswith(row["text"]), row
        assert row["line"] >= previous, ("rows out of printed order", row)
        previous = row["line"]
        if table["table"] == "2-2 cannabis":
            continue  # labels are broken a few letters per line; its license column is checked below
        if re.fullmatch(r"[A-Z]+(?:-[\d.]+)?(?:-S)?", row["row"]):
            assert re.search(rf"(?<![A-Za-z-]){re.escape(row['row'])}(?![A-Za-z])", line), row
        else:
            assert compact(row["row"]).text[:10] in compact(line.replace("\u2013", "-")).text, row


@pytest.mark.parametrize("key", KEYS, ids=["/".join(k) for k in KEYS])
def test_parsed_rows_and_columns_are_the_printed_ones(tables, key):
    table = _printed(key)
    version = _version(tables, key)
    parsed = [(label_key(c), label_key(r)) for c, r in version.rows]
    printed = [(label_key(r["category"]), label_key(r["row"])) for r in table["rows"]]
    assert parsed == printed
    assert list(version.columns) == table["columns"]
    cells = {(c.category, c.row, c.column) for c in version.cells}
    for category, row in version.rows:
        columns = {column for (cat, r, column) in cells if (cat, r) == (category, row)}
        if table["table"] == "2-2 cannabis":  # each part has its own districts, plus the three text columns
            assert set(table["columns"][:3]) <= columns and len(columns) in (3 + 6, 3 + 7), row
        else:
            assert columns == set(table["columns"]), row


@pytest.mark.parametrize("key", sorted(DISTRICT_HEADS), ids=["/".join(k) for k in sorted(DISTRICT_HEADS)])
def test_district_columns_are_printed_in_the_header(tables, key):
    table = _printed(key)
    lines = _lines(table["file"])
    start = table["rows"][0]["line"] - 60
    window = lines[max(start, 0): table["rows"][-1]["line"]]  # headers are printed again mid-table
    for head in DISTRICT_HEADS[key]:
        assert any(re.search(rf"(?<![A-Z]){head}(?![A-Z])", line) for line in window), head
    symbols = [s for head in DISTRICT_HEADS[key] for s in head.split() if s != "AU"]
    assert [c for c in _version(tables, key).columns if c in vocabulary().districts] == symbols


@pytest.mark.parametrize("key", [k for k in KEYS if k not in DISTRICT_HEADS], ids=lambda k: "/".join(k))
def test_standards_column_heads_are_printed(key):
    """Each column head's words are printed in the table's header, above its first row."""
    table = _printed(key)
    lines = _lines(table["file"])
    first = table["rows"][0]["line"]
    header = compact(" ".join(lines[max(first - 30, 0): first])).text
    for column in table["columns"]:
        for word in re.findall(r"[A-Za-z]{3,}", column):
            assert word.lower() in header, (column, word)


def test_cannabis_rows_by_license_type(tables):
    version = _version(tables, ("17.22.020", "2-2 cannabis", "000"))
    lines = _lines(_printed(("17.22.020", "2-2 cannabis", "000"))["file"])
    licenses = {(c.category, c.row): c.value for c in version.cells if c.column.startswith("State")}
    for row in _printed(("17.22.020", "2-2 cannabis", "000"))["rows"]:
        license = licenses[next(k for k in licenses if label_key(k[1]) == label_key(row["row"])
                                and label_key(k[0]) == label_key(row["category"]))]
        assert (license[:4] if license.startswith("Exem") else license) in lines[row["line"] - 1], row


def test_every_cell_is_answered(tables):
    for entry in tables.effective:
        cell = entry.cell
        assert cell.value is not None or cell.reviewed, (cell.table, cell.row, cell.column)


@pytest.mark.parametrize(
    "district, expected",
    # SW's cannabis cells are stated by the table's note (3), not printed (ingest/tables/note_cells.py)
    [("SW", {("17.24.030", "2-17"), ("17.22.020", "2-4"), ("17.22.020", "2-2 cannabis")}),
     ("TOC", {("17.24.030", "2-18"), ("17.22.020", "2-4"), ("17.24.020", "2-4"), ("17.36.050", "3-7"),
              ("17.20.020", "2-1")}),
     ("RR", {("17.22.020", "2-2"), ("17.22.020", "2-2 cannabis"), ("17.24.020", "2-4"), ("17.20.020", "2-1")}),
     ("CI", {("17.22.020", "2-3"), ("17.22.020", "2-2 cannabis"), ("17.24.020", "2-4"), ("17.20.020", "2-1")})],
)
def test_standards_found_by_district_either_way(tables, district, expected):
    found = {(e.cell.section, e.cell.table) for e in tables.effective if matches_district(e.cell, district)}
    assert found == expected


def test_district_as_row_and_as_table():
    from ingest.tables import Cell

    row = Cell(table="2-4", section="17.24.020", category="", row="RR-1.5", column="Area", value="1.5 acre",
               document="001", date="2026-08-11")
    assert districts_of(row) == ("RR",)
    whole = Cell(table="2-17", section="17.24.030", category="Setbacks", row="Front", column="SW Zone Requirement",
                 value="10 ft.", document="002", date="2025-12-09")
    assert districts_of(whole) == ("SW",)
    column = Cell(table="2-3", section="17.22.020", category="", row="Bar, tavern", column="CE", value="UP",
                  document="000", date="2023-11-06")
    assert districts_of(column) == ("CE",) and not matches_district(column, "CG")


def test_json_districts_field(tables):
    entry = next(e for e in tables.effective if e.cell.section == "17.24.020" and e.cell.row == "TOC")
    assert entry.to_json()["districts"] == ["TOC"]
