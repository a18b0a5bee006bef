"""``python -m ingest diff`` and ``python -m ingest add`` on a copy of the corpus without document 001:
what the corrections ordinance changes (Table 2-4 rows, fences, parking, rezoning), then adding it."""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from ingest.__main__ import main
from ingest.changes import add_document, diff_document, format_diff
from ingest.tables import load_tables
from ingest.tables.amendments import label_key

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "cotati"
ORD_001 = CORPUS / "2026-08-11_ord-corrections-streamlining.txt"


@pytest.fixture
def corpus_without_001(tmp_path) -> Path:
    from tests.corpus_copy import corpus_without

    return corpus_without(tmp_path, "001")


@pytest.fixture
def diff_001(corpus_without_001):
    return diff_document(ORD_001, "2026-08-11", corpus_without_001), corpus_without_001


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_diff_lists_sections_restated_and_added(diff_001):
    diff, _ = diff_001
    kinds = {change.section: change.kind for change in diff.sections}
    assert kinds["17.22.020"] == "restated" and kinds["17.44.040"] == "restated"
    for added in ("17.24.020", "17.30.030", "17.36.090", "17.36.100", "17.62.060"):
        assert kinds[added] == "added", added
    restated = next(c for c in diff.sections if c.section == "17.22.020")
    assert (restated.previous, restated.excerpt) == ("002", True)


def test_diff_lists_the_table_2_4_rows_it_changes(diff_001):
    diff, _ = diff_001
    plex = {c.column: c for c in diff.cells if c.section == "17.22.020"
            and label_key(c.row) == label_key("Multifamily plex housing")}
    assert (plex["NG"].old, plex["NG"].new, plex["NG"].kind, plex["NG"].old_document) == ("-", "P", "changed", "002")
    assert (plex["CA"].old, plex["CA"].new) == ("-", "P")
    assert plex["TOC"].kind == "restated"  # same value: listed apart from the changes
    assert plex["NG"].line == 57
    ten = [c for c in diff.cells if label_key(c.row) == label_key("Multifamily housing 10+ units")]
    assert len(ten) == 6 and all(c.kind == "restated" for c in ten)


def test_diff_lists_fences_and_parking_tables(diff_001):
    diff, _ = diff_001
    changed = diff.changed_cells
    fences = {c.row: c.new for c in changed if (c.section, c.table) == ("17.30.030", "3-2")}
    assert fences["Outside of a required setback"] == "8 ft." and len(fences) == 7
    stalls = {(c.row, c.column): c.new for c in changed if c.table == "3-8"}
    assert stalls[("Standard", "Width")] == "9 feet"
    assert any(c.table == "3-9" for c in changed)
    front = next(c for c in changed if c.row == "Within front or street side setback")
    assert front.review and front.kind == "unreadable"  # in a new document until a reading names it
    assert all(c.kind == "added" for c in changed if c.table in ("3-2", "3-8", "3-9") and c is not front)


def test_diff_lists_the_rezoning(diff_001):
    diff, _ = diff_001
    assert [(r.apn, r.old, r.new) for r in diff.rezonings] == [("144-720-061", "CE", "NM")]


def test_diff_changes_nothing_on_disk(corpus_without_001):
    before = {p.name: p.read_bytes() for p in corpus_without_001.iterdir()}
    code, out, err = _run(["diff", str(ORD_001), "--date", "2026-08-11", "--corpus", str(corpus_without_001)])
    assert code == 0 and err == ""
    assert "restates § 17.22.020 (excerpt)" in out and "'-' (002) -> 'P'" in out
    assert "APN 144-720-061: CE -> NM" in out and "§ 17.30.030 Table 3-2" in out
    assert {p.name: p.read_bytes() for p in corpus_without_001.iterdir()} == before


def test_diff_json(corpus_without_001):
    code, out, _ = _run(["diff", str(ORD_001), "--date", "2026-08-11", "--json", "--corpus", str(corpus_without_001)])
    record = json.loads(out)
    assert code == 0 and record["document"]["date"] == "2026-09-10"  # adopted 2026-08-11; in effect thirty days later
    assert {"sections", "cells", "rezonings", "restated_cells"} <= set(record)
    assert any(c["row"] == "Multifamily plex housing" and c["new"] == "P" for c in record["cells"])


def test_diff_against_the_full_corpus_finds_nothing_new_in_001():
    """001 is already in the bundled corpus: read again at its own date, it changes no cell."""
    diff = diff_document(ORD_001, "2026-08-11")
    assert [c for c in diff.changed_cells if c.kind in ("changed", "added")] == []
    # its flagged cells are read by readings named for 001; read as a new document, they are flagged again
    assert {c.row for c in diff.changed_cells} == {"SP", "Within front or street side setback"}


def test_add_makes_the_changes_effective(corpus_without_001):
    before = load_tables(corpus_without_001)
    code, out, err = _run(["add", str(ORD_001), "--date", "2026-08-11", "--title", "Corrections and streamlining",
                           "--corpus", str(corpus_without_001)])
    assert code == 0 and err == "" and out.startswith("added 004: 2026-08-11_corrections-and-streamlining.txt")
    manifest = json.loads((corpus_without_001 / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["documents"][-1]
    # dated 2026-08-11 (its adoption, as given); its Section 19: it takes effect thirty days later
    assert (entry["id"], entry["date"], entry["adopted"], entry["kind"]) == ("004", "2026-09-10", "2026-08-11", "ordinance")
    assert "It takes effect 2026-09-10: adopted 2026-08-11" in out
    assert (corpus_without_001 / entry["file"]).read_bytes() == ORD_001.read_bytes()
    after = load_tables(corpus_without_001)

    def plex_ng(tables):
        return next(e for e in tables.effective if e.cell.column == "NG" and e.cell.section == "17.22.020"
                    and label_key(e.cell.row) == label_key("Multifamily plex housing"))

    assert plex_ng(before).cell.value == "-"
    assert (plex_ng(after).cell.value, plex_ng(after).cell.document) == ("P", "004")
    assert any(e.cell.table == "3-2" for e in after.effective)


@pytest.mark.parametrize(
    "argv, words",
    [(["--date", "2026-8-11", "--title", "T"], "not a date"),
     (["--date", "2026-02-30", "--title", "T"], "no such day"),
     (["--date", "2026-08-11", "--title", " "], "--title: empty")],
)
def test_add_refuses_bad_input_with_one_line(corpus_without_001, argv, words):
    code, out, err = _run(["add", str(ORD_001), *argv, "--corpus", str(corpus_without_001)])
    assert code == 1 and out == "" and err.count("\n") == 1 and words in err


def test_add_refuses_a_duplicate_file(corpus_without_001, tmp_path):
    copy = tmp_path / "same.txt"
    shutil.copyfile(CORPUS / "2025-12-09_ord-939-santero-way-toc.txt", copy)
    code, _, err = _run(["add", str(copy), "--date", "2026-09-01", "--title", "T", "--corpus", str(corpus_without_001)])
    assert code == 1 and "already holds this file as 002" in err and err.count("\n") == 1


def test_add_refuses_a_taken_id_and_a_wrong_suffix(corpus_without_001, tmp_path):
    with pytest.raises(ValueError, match="already has that id"):
        add_document(ORD_001, "2026-08-11", "T", corpus_without_001, doc_id="002")
    doc = tmp_path / "x.docx"
    doc.write_text("text", encoding="utf-8")
    with pytest.raises(ValueError, match="not a .txt or .pdf"):
        add_document(doc, "2026-08-11", "T", corpus_without_001)


def test_unreadable_pdf_is_one_error_line(corpus_without_001, tmp_path):
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4 not really")
    code, out, err = _run(["diff", str(bad), "--date", "2026-09-01", "--corpus", str(corpus_without_001)])
    assert code == 1 and out == "" and err.startswith("error: ") and err.count("\n") == 1
    before = (corpus_without_001 / "manifest.json").read_bytes()
    code, _, err = _run(["add", str(bad), "--date", "2026-09-01", "--title", "T", "--corpus", str(corpus_without_001)])
    assert code == 1 and (corpus_without_001 / "manifest.json").read_bytes() == before
    assert not any(p.suffix == ".pdf" for p in corpus_without_001.iterdir())


def test_a_loaded_documents_diff_is_the_diff_it_made_as_a_new_document(diff_001):
    """``ingest diff --document 001`` on the full corpus lists what ``ingest diff FILE`` listed for 001
    against the corpus without it: the same cells (old -> new), sections and rezonings."""
    from ingest import load_corpus, load_manifest
    from ingest.changes import loaded_document_diff

    new, _ = diff_001
    document = next(d for d in load_manifest(CORPUS) if d.id == "001")
    loaded = loaded_document_diff(load_corpus().sections, document)

    # 001's flagged cells carry reviewed readings named for 001 once it is loaded: read, not flagged
    flagged = {(c.table, c.row, c.column) for c in new.changed_cells if c.kind == "unreadable"}

    def cells(diff):
        return sorted((c.table, c.row, c.column, c.old, c.new, c.kind, c.old_document) for c in diff.changed_cells
                      if (c.table, c.row, c.column) not in flagged)

    assert cells(loaded) == cells(new) and cells(loaded)
    assert [(c.section, c.kind) for c in loaded.sections] == [(c.section, c.kind) for c in new.sections]
    assert loaded.rezonings == new.rezonings
    out = format_diff(loaded)  # what `python -m ingest diff --document 001` prints
    assert "'-' (002) -> 'P'" in out and "APN 144-720-061: CE -> NM" in out
    assert _run(["diff", "--document", "999"])[0] == 1 and _run(["diff"])[0] == 1
