"""The table stage on the bundled corpus: a hand-verified fixture, amendments, row counts, coverage.

The fixture (tests/fixtures/tables/hand_verified.json) was typed by reading the corpus files;
each entry records the file, line number and line text it was read from.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from ingest.tables import load_tables
from ingest.tables.cli import main
from ingest.tables.text import letters_key

FIXTURE = Path(__file__).parent / "fixtures" / "tables" / "hand_verified.json"
CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "cotati"

# Rows per printed table, counted by hand from the corpus text (see the module docstring of each parser).
ROW_COUNTS = {
    ("17.22.020", "2-2", "000"): 58,
    ("17.22.020", "2-2 cannabis", "000"): 23,
    ("17.22.020", "2-3", "000"): 121,
    ("17.22.020", "2-4", "000"): 69,
    ("17.22.020", "2-4", "002"): 124,
    ("17.22.020", "2-4", "001"): 2,
    ("17.20.020", "2-1", "002"): 22,
    ("17.20.020", "2-1", "003"): 22,
    ("17.24.020", "2-4", "001"): 16,
    ("17.24.030", "2-17", "002"): 9,
    ("17.24.030", "2-18", "002"): 10,
    ("17.30.030", "3-2", "001"): 7,
    ("17.36.050", "3-7", "002"): 74,
    ("17.36.090", "3-8", "001"): 2,
    ("17.36.090", "3-9", "001"): 5,
    ("17.60.040", "6-1", "002"): 20,
}
DISTRICT_COLUMNS = {
    ("2-2", "000"): ["OSC", "OSR", "RR", "RVL", "NL", "NM", "NU"],
    ("2-3", "000"): ["CE", "CG", "CD", "CI", "IG", "PF"],
    ("2-4", "000"): ["HC", "LP", "NG", "CA"],
    ("2-4", "002"): ["HC", "LP", "NG", "CA", "TOC", "SW"],
    ("2-4", "001"): ["HC", "LP", "NG", "CA", "TOC", "SW"],
}


@pytest.fixture(scope="module")
def tables():
    return load_tables()


@pytest.fixture(scope="module")
def fixture_rows():
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def _version(tables, document, section, table):
    found = [v for v in tables.versions if (v.document, v.section, v.table) == (document, section, table)]
    assert len(found) == 1, (document, section, table, len(found))
    return found[0]


def test_parses_without_errors(tables):
    assert tables.errors == ()


def test_fixture_is_large_and_traceable(fixture_rows):
    cells = sum(len(row["cells"]) for row in fixture_rows)
    assert cells >= 250
    for row in fixture_rows:
        lines = (CORPUS / row["file"]).read_text(encoding="utf-8").split("\n")
        assert lines[row["line"] - 1] == row["text"], (row["file"], row["line"])


def test_fixture_covers_every_table_and_district_column(fixture_rows, tables):
    covered = {(r["section"], r["table"]) for r in fixture_rows}
    assert covered == {(v.section, v.table) for v in tables.versions}
    for (table, document), columns in DISTRICT_COLUMNS.items():
        seen = {c for r in fixture_rows if (r["table"], r["document"], r["section"]) == (table, document, "17.22.020")
                for c in r["cells"]}
        assert set(columns) <= seen, (table, document)


def test_every_hand_verified_cell(fixture_rows, tables):
    failures = []
    for entry in fixture_rows:
        version = _version(tables, entry["document"], entry["section"], entry["table"])
        for column, expected in entry["cells"].items():
            matches = [
                c for c in version.cells
                if letters_key(c.row) == letters_key(entry["row"]) and c.column == column
                and ("category" not in entry or letters_key(c.category) == letters_key(entry["category"]))
            ]
            where = f"{entry['file']}:{entry['line']} {entry['row']!r} {column}"
            if len(matches) != 1:
                failures.append(f"{where}: {len(matches)} cells")
                continue
            cell = matches[0]
            if cell.value != expected:
                failures.append(f"{where}: {cell.value!r} != {expected!r}")
            if expected is None and not cell.review:
                failures.append(f"{where}: unreadable cell not flagged for review")
            if "regulation" in entry and cell.regulation != entry["regulation"]:
                failures.append(f"{where}: regulation {cell.regulation!r} != {entry['regulation']!r}")
            notes = entry.get("footnotes", {})
            if column in notes and sorted(f.number for f in cell.footnotes) != sorted(notes[column]):
                failures.append(f"{where}: footnotes {[f.number for f in cell.footnotes]} != {notes[column]}")
            interim = entry.get("interim", {})
            if column in interim and cell.interim != interim[column]:
                failures.append(f"{where}: interim {cell.interim} != {interim[column]}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("key, expected", sorted(ROW_COUNTS.items()))
def test_row_counts_match_the_source(tables, key, expected):
    section, table, document = key
    assert len(_version(tables, document, section, table).rows) == expected


def test_no_cell_silently_missing(tables):
    for version in tables.versions:
        by_row: dict = {}
        for cell in version.cells:
            by_row.setdefault((cell.category, cell.row), {})[cell.column] = cell
            assert cell.value is not None or cell.review, (version.table, cell.row, cell.column)
        expected = DISTRICT_COLUMNS.get((version.table, version.document))
        for row, cells in by_row.items():
            columns = expected if expected and version.section == "17.22.020" else None
            if columns is None and version.table != "2-2 cannabis":
                columns = list(version.columns)
            if columns is not None:
                assert set(cells) == set(columns), (version.table, version.document, row)
            else:  # cannabis: every row has its part's districts and the three text columns
                districts = [c for c in cells if c.isupper()]
                assert len(districts) in (6, 7) and len(cells) == len(districts) + 3, row


def _effective(tables, section, table, row, column):
    found = [e for e in tables.effective
             if (e.cell.section, e.cell.table, e.cell.column) == (section, table, column)
             and letters_key(e.cell.row) == letters_key(row)]
    assert len(found) == 1, (row, column, len(found))
    return found[0]


def test_amendment_multifamily_plex_in_ng(tables):
    cell = _effective(tables, "17.22.020", "2-4", "Multifamily plex housing", "NG")
    assert (cell.cell.value, cell.cell.document, cell.cell.date) == ("P", "001", "2026-09-10")
    assert [(h.value, h.document, h.date) for h in cell.history] == [("-", "002", "2026-02-12")]
    assert [f.number for f in cell.cell.footnotes] == ["10"]


def test_amendment_telecommunications_in_hc(tables):
    cell = _effective(tables, "17.22.020", "2-4", "Telecommunications facility", "HC")
    assert (cell.cell.value, cell.cell.document) == ("S", "002")
    assert [(h.value, h.document, h.date) for h in cell.history] == [("-", "000", "2023-12-06")]


def test_excerpt_does_not_drop_rows_but_a_restatement_does(tables):
    effective_2_4 = [e for e in tables.effective if (e.cell.section, e.cell.table) == ("17.22.020", "2-4")]
    rows = {(e.cell.category, e.cell.row): e for e in effective_2_4}
    # 002 prints 124 rows; 4 rows of 000 are not restated by 002 under the same wording
    assert len(rows) == 124 + 4
    assert {row for (_, row), e in rows.items() if not e.restated} == {
        "Theater (cinemas or performing arts)", "Parking facility", "Lodging - Boutique hotel and motel",
        "General retail - More than 20,000 sf (Max. 43,000 sf)",
    }
    dropped = {row for (category, row), e in rows.items() if not e.restated}
    assert "Theater (cinemas or performing arts)" in dropped
    assert all(rows[key].dropped_by == ("002",) for key in rows if key[1] in dropped)
    same_row = _effective(tables, "17.22.020", "2-4", "General retail - Less than 5,000 sq. ft.", "LP")
    assert same_row.restated and [h.document for h in same_row.history] == ["000"]  # "sf" = "sq. ft."
    kept = _effective(tables, "17.22.020", "2-4", "Accessory dwelling unit", "HC")
    assert kept.restated and kept.cell.document == "002"  # the 001 excerpt does not touch it


def test_same_number_in_two_sections_is_two_tables(tables):
    keys = {(e.cell.section, e.cell.table) for e in tables.effective if e.cell.table == "2-4"}
    assert keys == {("17.22.020", "2-4"), ("17.24.020", "2-4")}


def test_later_codified_table_2_1_supersedes_the_ordinance(tables):
    cell = _effective(tables, "17.20.020", "2-1", "MHP-S", "Location within Transect")
    assert cell.cell.document == "003"
    assert [h.document for h in cell.history] == ["002"]


def test_cli_json_lines_carry_the_contract_fields(tables, monkeypatch):
    monkeypatch.setattr("ingest.tables.load_tables", lambda corpus=None: tables)  # parsed once per module
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["--json"])
    lines = out.getvalue().splitlines()
    assert code == 0 and len(lines) == len(tables.effective)
    record = json.loads(lines[0])
    for key in ("table", "section", "row", "column", "value", "footnotes", "document", "date", "history"):
        assert key in record


def test_cli_summary_lists_review_cells(tables, monkeypatch):
    monkeypatch.setattr("ingest.tables.load_tables", lambda corpus=None: tables)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["--table", "2-4", "--section", "17.22.020"]) == 0
    text = out.getvalue()
    assert "17.22.020 Table 2-4" in text and "Cells flagged for review: 16" in text
    assert "School - Specialized education/training" in text
