"""The law as of a date: amended cells before and after Ord. 939 (002) and the corrections ordinance (001),
through ``tables_as_of``, ``python -m ingest tables --as-of`` and ``python -m assistant ask --as-of``."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from ingest import load_manifest, default_corpus_dir
from ingest.asof import check_date, documents_in_force, in_force_line
from ingest.tables import load_tables, tables_as_of
from ingest.tables.amendments import label_key
from ingest.tables.cli import main


@pytest.fixture(scope="module")
def tables():
    return load_tables()


def _cell(tables, section, table, row, column):
    found = [e for e in tables.effective if (e.cell.section, e.cell.table, e.cell.column) == (section, table, column)
             and label_key(e.cell.row) == label_key(row)]
    assert len(found) == 1, (row, column, len(found))
    return found[0]


@pytest.mark.parametrize(
    "date, value, document",
    [("2023-12-06", "-", "000"), ("2025-12-08", "-", "000"), ("2026-02-11", "-", "000"), ("2026-02-12", "S", "002"),
     ("2026-09-01", "S", "002")],
)
def test_telecom_in_hc_before_and_after_002(tables, date, value, document):
    cell = _cell(tables_as_of(tables, date), "17.22.020", "2-4", "Telecommunications facility", "HC")
    assert (cell.cell.value, cell.cell.document) == (value, document)


@pytest.mark.parametrize(
    "date, value, document, history",
    [("2024-06-01", None, None, None), ("2026-01-01", None, None, None), ("2026-03-01", "-", "002", []),
     ("2026-08-10", "-", "002", []), ("2026-08-20", "-", "002", []), ("2026-09-09", "-", "002", []),
     ("2026-09-10", "P", "001", ["002"])],
)
def test_multifamily_plex_in_ng_before_and_after_001(tables, date, value, document, history):
    at = tables_as_of(tables, date)
    found = [e for e in at.effective if (e.cell.section, e.cell.table, e.cell.column) == ("17.22.020", "2-4", "NG")
             and label_key(e.cell.row) == label_key("Multifamily plex housing")]
    if value is None:  # 000 has no plex row: the row did not exist before 002
        assert found == []
        return
    (cell,) = found
    assert (cell.cell.value, cell.cell.document, [h.document for h in cell.history]) == (value, document, history)


def test_tables_new_in_001_do_not_exist_before_it(tables):
    before = {(e.cell.section, e.cell.table) for e in tables_as_of(tables, "2026-09-09").effective}
    after = {(e.cell.section, e.cell.table) for e in tables.effective}
    assert after - before == {("17.30.030", "3-2"), ("17.36.090", "3-8"), ("17.36.090", "3-9"), ("17.24.020", "2-4")}


def test_codified_table_2_1_replaces_002_after_its_date(tables):
    assert _cell(tables_as_of(tables, "2026-02-12"), "17.20.020", "2-1", "MHP-S", "Location within Transect"
                 ).cell.document == "002"
    assert _cell(tables_as_of(tables, "2026-05-11"), "17.20.020", "2-1", "MHP-S", "Location within Transect"
                 ).cell.document == "003"


def test_before_every_document_there_are_no_cells(tables):
    assert tables_as_of(tables, "2020-01-01").effective == ()


def test_reviewed_readings_hold_as_of_a_date(tables):
    cell = _cell(tables_as_of(tables, "2026-03-01"), "17.60.040", "6-1", "Use Permit (UP)", "Planning Commission")
    assert cell.cell.value == "Decision" and cell.cell.reviewed


def test_documents_in_force_mark_the_proposed_one():
    documents = load_manifest(default_corpus_dir())
    now, later = documents_in_force(documents, "2026-03-01")
    assert [d.id for d in now] == ["000", "002"] and [d.id for d in later] == ["003", "001"]
    assert now[0].proposed and not now[1].proposed
    line = in_force_line(documents, "2026-03-01")
    assert "000" in line and "proposed, no adoption date" in line and "Not yet: 003" in line
    assert "adopted 2026-01-13, effective 2026-02-12" in line


@pytest.mark.parametrize("day, in_force, pending", [
    ("2023-12-05", [], ["000", "002", "003", "001"]),  # 000: thirty days after 2023-11-06 at the earliest
    ("2026-02-11", ["000"], ["002", "003", "001"]),  # Ord. 939: adopted 2026-01-13, effective thirty days later
    ("2026-08-20", ["000", "002", "003"], ["001"]),  # 001: introduced 2026-08-11, not in force before 2026-09-10
    ("2026-09-10", ["000", "002", "003", "001"], []),
])
def test_documents_take_effect_on_their_effective_date(day, in_force, pending):
    now, later = documents_in_force(load_manifest(default_corpus_dir()), day)
    assert ([d.id for d in now], [d.id for d in later]) == (in_force, pending)
    line = in_force_line(load_manifest(default_corpus_dir()), day)
    assert all(f"{i} (pending: " in line for i in pending) if in_force else "no document" in line


@pytest.mark.parametrize("text", ["2026-1-1", "yesterday", "2026-02-30", ""])
def test_malformed_date_is_one_line(text):
    with pytest.raises(ValueError) as caught:
        check_date(text, "--as-of")
    assert "--as-of" in str(caught.value) and "\n" not in str(caught.value)


def _run(argv, tables, monkeypatch):
    monkeypatch.setattr("ingest.tables.load_tables", lambda corpus=None: tables)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_cli_as_of_json_marks_date_and_proposed_documents(tables, monkeypatch):
    code, out, _ = _run(["--json", "--as-of", "2025-01-01", "--table", "2-4", "--section", "17.22.020"], tables,
                        monkeypatch)
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and records and all(r["document"] == "000" for r in records)
    assert all(r["as_of"] == "2025-01-01" and r["proposed"] is True for r in records)


def test_cli_as_of_text_names_documents_in_force(tables, monkeypatch):
    code, out, _ = _run(["--as-of", "2026-03-01", "--table", "6-1"], tables, monkeypatch)
    assert code == 0 and out.startswith("As of 2026-03-01, in force: 000")


def test_cli_refuses_a_malformed_date(tables, monkeypatch):
    code, out, err = _run(["--as-of", "2026-13-01"], tables, monkeypatch)
    assert code == 2 and out == "" and err.count("\n") == 1 and "2026-13-01" in err


@pytest.fixture(scope="module")
def ask_as_of():
    from assistant import load_assistant

    cache: dict = {}

    def ask(date, question):
        if date not in cache:
            cache[date] = load_assistant(as_of=date)
        return cache[date].ask(question)

    return ask


@pytest.mark.parametrize(
    "date, first_line",
    [("2025-01-01", "Not allowed."), ("2026-01-01", "Not allowed."), ("2026-03-01", "specific use regulations (S)")],
)
def test_assistant_as_of_before_and_after_002(ask_as_of, date, first_line):
    answer = ask_as_of(date, "Is a telecommunications facility allowed in HC?")
    assert first_line in answer.first_line


@pytest.mark.parametrize("date, first_line", [("2026-03-01", "Not allowed."), ("2026-08-20", "Not allowed."),
                                              ("2026-09-10", "Permitted (P)")])
def test_assistant_as_of_before_and_after_001(ask_as_of, date, first_line):
    answer = ask_as_of(date, "is multifamily plex housing allowed in the Northern Gateway")
    assert first_line in answer.first_line


def test_assistant_cli_as_of_says_which_documents_were_in_force():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "assistant", "ask", "--json", "--as-of", "2026-03-01",
         "is multifamily plex housing allowed in the Northern Gateway"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["answer"].startswith("Not allowed.")
    assert "As of 2026-03-01, in force: 000" in answer["answer"]
    assert [d["id"] for d in answer["as_of"]["documents"]] == ["000", "002"]
    assert answer["as_of"]["documents"][0]["proposed"] is True
    assert [d["id"] for d in answer["as_of"]["ignored"]] == ["003", "001"]
