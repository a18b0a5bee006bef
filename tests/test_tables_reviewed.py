"""Reviewed readings (ingest/tables/data/reviewed.json): traceable to the print, never hiding a parser
regression, and leaving no flagged cell of the corpus unanswered."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from ingest.tables import Cell, TableError, apply_readings, load_readings, load_tables, reading_words, reviewed_line
from ingest.tables.reviewed import _entry, index_readings
from ingest.tables.amendments import label_key
from ingest.tables.cli import main
from ingest.tables.types import TableVersion

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "cotati"


@pytest.fixture(scope="module")
def tables():
    return load_tables()


@pytest.fixture(scope="module")
def readings():
    return load_readings()


def _flagged(tables, reading):
    return [
        cell for version in tables.versions if (version.section, version.table, version.document)
        == (reading.section, reading.table, reading.document)
        for cell in version.cells
        if label_key(cell.row) == label_key(reading.row) and label_key(cell.category) == label_key(reading.category)
        and cell.column == reading.column
    ]


def test_every_source_line_is_in_the_corpus(readings):
    files: dict[str, list[str]] = {}
    for reading in readings:
        for source in reading.source:
            lines = files.setdefault(source.file, (CORPUS / source.file).read_text(encoding="utf-8").split("\n"))
            assert 1 <= source.line <= len(lines), (reading.row, source)
            assert source.text in lines[source.line - 1], (reading.row, reading.column, source)


def test_every_reading_meets_a_cell_the_parser_still_flags(tables, readings):
    """A reading fills only a flagged cell: were the parser to read it (or lose it), this fails."""
    for reading in readings:
        cells = _flagged(tables, reading)
        assert len(cells) == 1, (reading.table, reading.row, reading.column, len(cells))
        assert cells[0].review, (reading.row, reading.column)
        assert cells[0].reading is None  # versions keep the parser's own output


def test_no_flagged_cell_is_left_unanswered(tables):
    flagged = [e for e in tables.effective if e.cell.review]
    assert len(flagged) == 112
    assert [e.cell.row for e in flagged if not e.cell.reviewed] == []
    assert all(e.cell.answered for e in tables.effective)


@pytest.mark.parametrize("table, count", [("6-1", 62), ("2-2 cannabis", 24), ("2-4", 20), ("2-1", 5), ("3-2", 1)])
def test_cells_reviewed_per_table(tables, table, count):
    assert sum(1 for e in tables.effective if e.cell.table == table and e.cell.reviewed) == count


def test_every_reading_has_a_note_and_a_status(readings):
    assert len(readings) == 112
    for reading in readings:
        assert reading.note and reading.basis in ("confirmed", "inferred")
        assert reading.status in ("read", "blank", "unreadable")
        assert (reading.value is None) == (reading.status != "read")
        assert reading.refer


def _cell(tables, table, row, column, section=None):
    found = [e for e in tables.effective if e.cell.table == table and e.cell.column == column
             and label_key(e.cell.row) == label_key(row) and (section is None or e.cell.section == section)]
    assert len(found) == 1, (table, row, column, len(found))
    return found[0]


def test_table_6_1_use_permit_reads_commission_decides(tables):
    roles = {c: _cell(tables, "6-1", "Use Permit (UP)", c).cell for c in
             ("Design Review Administration", "Director", "Planning Commission", "City Council")}
    assert {c: cell.value for c, cell in roles.items()} == {
        "Design Review Administration": None, "Director": "Recommend", "Planning Commission": "Decision",
        "City Council": "Appeal"}
    assert roles["Design Review Administration"].reading.status == "blank"
    assert all(cell.review and cell.reviewed for cell in roles.values())


def test_footnote_on_a_reading_carries_its_text(tables):
    cell = _cell(tables, "6-1", "Minor Use Permit (MUP)", "Director").cell
    assert cell.value == "Decision" and [f.number for f in cell.footnotes] == ["2"]
    assert "director" in cell.footnotes[0].text.lower()


def test_missing_cell_says_so_and_names_a_section(tables):
    cell = _cell(tables, "2-4", "School - Specialized education/training", "LP", "17.22.020").cell
    assert cell.value is None and cell.reading.status == "unreadable"
    assert "17.22.020" in reading_words(cell) and "cannot tell" in reading_words(cell)
    assert _cell(tables, "2-4", "School - Specialized education/training", "TOC", "17.22.020").cell.value == "UP"


def test_standards_reading_gets_quantities(tables):
    cell = _cell(tables, "3-2", "Within front or street side setback", "Maximum Height").cell
    assert cell.value.startswith("Solid wall, hedge, or fencing: 42 in.")
    assert (42.0, "in") in [(q.value, q.unit) for q in cell.quantities]


def test_brew_pub_retail_row_read_from_the_industry_row(tables):
    cells = [e for e in tables.effective if e.cell.table == "2-4" and e.cell.section == "17.22.020"
             and label_key(e.cell.row) == label_key("Brewery-Brew pub") and e.cell.category == "Retail Trade"]
    assert {e.cell.column: e.cell.value for e in cells} == {
        "HC": "MUP", "LP": "MUP", "NG": "MUP", "CA": "MUP", "TOC": "MUP", "SW": "-"}
    assert all(e.cell.reading.basis == "inferred" for e in cells)


def test_json_carries_reviewed_and_the_note(tables, monkeypatch):
    monkeypatch.setattr("ingest.tables.load_tables", lambda corpus=None: tables)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["--json", "--review", "--table", "6-1"]) == 0
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(records) == 62
    for record in records:
        assert record["review"] is True and record["reviewed"] is True
        assert record["reading"]["note"] and record["reading"]["source"][0]["line"] > 0


def test_reviewed_line_only_for_reviewed_cells(tables):
    read = _cell(tables, "6-1", "Variance", "Planning Commission").cell
    parsed = _cell(tables, "6-1", "Tree Permit - Native oak", "City Council").cell
    assert reviewed_line([parsed]) == ""
    assert "see note" in reviewed_line([parsed, read]) and "\n" not in reviewed_line([read])


def test_a_reading_never_overrides_a_cell_the_parser_read():
    cell = Cell(table="T", section="1.1", category="", row="Row", column="A", value="P", document="d", date="2020-01-01")
    version = TableVersion("T", "1.1", "", "d", "2020-01-01", ("A",), (cell,))
    reading = _entry({"table": "T", "section": "1.1", "document": "d", "row": "Row", "values": {"A": "UP"},
                      "note": "n", "source": [{"file": "f", "line": 1, "text": "t"}]}, "test")
    assert apply_readings([version], reading)[0].cells[0].value == "P"
    flagged = Cell(**{**cell.__dict__, "value": None, "review": True})
    version = TableVersion("T", "1.1", "", "d", "2020-01-01", ("A",), (flagged,))
    assert apply_readings([version], reading)[0].cells[0].value == "UP"


@pytest.mark.parametrize(
    "entry, words",
    [({"table": "T"}, "lacks"), ({"table": "T", "section": "1", "document": "d", "row": "r", "values": {"A": 3},
                                  "note": "n", "source": [{"file": "f", "line": 1, "text": "t"}]}, "not text"),
     ({"table": "T", "section": "1", "document": "d", "row": "r", "values": {}, "note": "n", "source": []}, "no source"),
     ({"table": "T", "section": "1", "document": "d", "row": "r", "values": {}, "note": "n", "basis": "guess",
       "source": [{"file": "f", "line": 1, "text": "t"}]}, "basis")],
)
def test_malformed_reading_is_one_domain_error(entry, words):
    with pytest.raises(TableError) as caught:
        _entry(entry, "reviewed.json reading 1")
    assert words in str(caught.value) and "reviewed.json reading 1" in str(caught.value)


def test_two_readings_for_one_cell_are_refused(readings):
    with pytest.raises(TableError, match="two readings"):
        index_readings([readings[0], readings[0]])


def test_unreadable_data_file_is_one_error(tmp_path):
    bad = tmp_path / "reviewed.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(TableError) as caught:
        load_readings(bad)
    assert str(bad) in str(caught.value)
