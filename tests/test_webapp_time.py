"""The app's "as of" date and its page per ordinance (issue 23), without a browser: the date box's
checks, the answer as of an earlier day through the engine, the "valid for" line, and the change
page holding what ``python -m ingest diff`` lists for the same document."""

from __future__ import annotations

from pathlib import Path

import pytest

from webapp import pages
from webapp.changes import changes_page, document_changes
from webapp.engine import Engine
from webapp.viewer import Viewer, as_of_day

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "cotati"
ORD_001 = CORPUS / "2026-08-11_ord-corrections-streamlining.txt"


@pytest.mark.parametrize("text,day,problem", [
    ("", "", ""), ("  ", "", ""), (None, "", ""),
    ("2024-06-01", "2024-06-01", ""), (" 2024-06-01 ", "2024-06-01", ""),
    ("2026-12-01", "", ""), ("2030-01-01", "", ""),  # today or later: the law now in force
    ("2024-13-01", "", "The \"as of\" date '2024-13-01': no such day."),
    ("2024-02-30", "", "The \"as of\" date '2024-02-30': no such day."),
    ("June 2024", "", "The \"as of\" date 'June 2024': not a date (YYYY-MM-DD)."),
])
def test_the_as_of_box_gives_a_day_or_one_line_saying_what_is_wrong(text, day, problem):
    assert as_of_day(text, today="2026-12-01") == (day, problem)


def test_valid_for_names_the_day_and_the_documents_then_in_force():
    earlier = {"date": "2024-06-01", "documents": [{"id": "000", "date": "2023-11-06", "title": "Telecom ordinance"}],
               "ignored": [{"id": "002", "date": "2025-12-09", "title": "Ord. 939"}]}
    assert pages.valid_for(earlier) == ("Valid for 2024-06-01: the law as it stood under Telecom ordinance (2023-11-06); "
                                        "later documents not applied.")
    assert pages.valid_for({"date": "2026-10-01", "documents": [{"date": "2026-08-11"}, {}], "ignored": []}) == (
        "Valid for 2026-10-01: the law as all 2 loaded documents state it.")
    assert pages.valid_for({"date": "2026-08-11", "documents": [{"date": "2026-08-11"}, {}], "ignored": []}) == (
        "Valid from 2026-08-11, the newest loaded document's date: the law as all 2 state it.")
    assert pages.valid_for({}) == "" and pages.valid_for(None) == ""


@pytest.fixture(scope="module")
def engine():
    from assistant.service import load_assistant

    loaded = load_assistant()
    return Engine(loaded.corpus, loaded.tables, lambda progress: None, wait_seconds=0.2, echo=lambda line: None,
                  standards=loaded.standards)


def test_an_earlier_day_is_answered_as_the_law_then_stood_and_says_so(engine):
    question = "Can I open a gym in the LP district?"
    then = engine.ask(question, as_of="2024-06-01")
    assert then.first_line == ("As of 2024-06-01: Not allowed. This rests only on a proposed ordinance, not shown "
                               "adopted: Telecommunications facilities ordinance (000, effective 2023-12-06 at the earliest).")
    assert then.as_of["date"] == "2024-06-01" and [d["id"] for d in then.as_of["documents"]] == ["000"]
    assert any(line.startswith("Since then (Ord. 939") for line in then.answer.split("\n"))
    now = engine.ask(question)
    assert now.first_line == "Permitted (P); a zoning clearance is required."
    card = Viewer(engine).cards([(question, then, None, {})])
    assert "Valid for 2024-06-01: the law as it stood under Telecommunications facilities ordinance (2023-12-06)" in card
    reader = Viewer(engine).citation_view(then, 0)
    assert "This grid shows the table as it stands now; the answer is as of 2024-06-01." in reader
    assert "stands now" not in Viewer(engine).citation_view(now, 0)
    # The question's own time words win over the box: "in March 2026" (Ord. 939 in effect from 2026-02-12).
    assert engine.ask("Can I open a gym in the LP district in March 2026?", as_of="2024-06-01").first_line.startswith(
        "As of 2026-03-01: Permitted (P)")


def _key(change) -> tuple:
    return (change.section, change.table, change.category, change.row, change.column, change.old, change.new,
            change.kind, change.old_document, change.review)


def test_the_change_page_lists_what_ingest_diff_lists_for_the_same_ordinance(engine, tmp_path):
    """For the corrections ordinance (001, the newest): ``ingest diff`` against the corpus without it and
    the app's page agree cell for cell and section for section."""
    from ingest.changes import diff_document
    from tests.corpus_copy import corpus_without

    diff = diff_document(ORD_001, "2026-08-11", corpus_without(tmp_path, "001"))
    found = engine.document_changes("001")
    # A cell ``ingest diff`` cannot read has a reviewed reading once its document is loaded (reviews name
    # the document's id, and a new document has none yet): the page gives that reading.
    reviewed = {_key(c)[:5] for c in diff.changed_cells if c.kind == "unreadable"}
    assert sorted(k for k in map(_key, found.cells) if k[:5] not in reviewed) == sorted(
        k for k in map(_key, diff.changed_cells) if k[:5] not in reviewed)
    assert {_key(c)[:5] for c in found.cells if c.kind in ("added", "changed")} >= reviewed
    assert [(s.section, s.kind, s.previous) for s in found.sections] == [(s.section, s.kind, s.previous) for s in diff.sections]
    assert found.restated == len(diff.cells) - len(diff.changed_cells)
    page = Viewer(engine).changes_view("001")
    assert "What Corrections and streamlining ordinance (2026-09-10) changed" in page
    assert "Multifamily plex housing | NG: - (Ord. 939 (Santero Way and TOC districts)) -&gt; P" in page
    assert 'href="?section=17.22.020&amp;table=2-4"' in page  # each table opens as a grid


def test_the_change_page_of_ord_939_and_of_an_unknown_document(engine):
    page = Viewer(engine).changes_view("002")
    assert ("Health/fitness facility (Recreation, Education and Public Assembly Uses) | LP: - (Telecommunications "
            "facilities ordinance) -&gt; P") in page
    assert "Cite as: <span>§ 17.22.020, Table 2-4 — Ord. 939 (Santero Way and TOC districts), 2026-02-12</span>" in page
    assert changes_page(document_changes([], [], "zzz"), "zzz", str, lambda c: None).startswith('<p class="section-note">')
    assert "No loaded document has the id" in Viewer(engine).changes_view("zzz")


@pytest.mark.parametrize("document", ["002", "003", "001"])
def test_a_change_answer_and_its_change_page_count_the_same_cells_in_the_same_words(engine, document):
    """Issue 46: "What did Ord. 939 change?" said 41 cells changed and 735 added where its page said 800. Both now
    give every cell the diff lists, by kind, in one wording; rows a restatement leaves out are said to be not
    restated, not to stay in force (a legal judgement the text does not make)."""
    import re

    from assistant.document_changes import NOT_RESTATED

    from assistant.document_changes import answer_changes
    from ingest.changes import loaded_document_diff

    corpus = engine.assistant.corpus  # the change answer as the assistant gives it ("what did Ord. 939 change?")
    answer = answer_changes("What did it change?", loaded_document_diff(corpus.sections, corpus.documents[document]), corpus)
    page = Viewer(engine).changes_view(document)
    lines = answer.answer.split("\n")
    said = re.match(r"^.*? \(\d{4}-\d\d-\d\d\): (\d+) table cells differ from the law before it, and it restates", lines[0])
    kinds = re.fullmatch(r"Table cells: (.*)\.", lines[1])
    assert said and kinds, lines[:2]
    counted = re.search(r"(\d+) table cells differ from the law before it: ([^;]*); (\d+) restated unchanged", page)
    assert counted and counted.group(1, 2) == (said.group(1), kinds.group(1))
    found = engine.document_changes(document)
    assert int(said.group(1)) == len(found.cells) == page.count('class="cell-change"')
    if any(c.kind == "dropped" for c in found.cells):
        assert f"Rows its full restatement does not print ({NOT_RESTATED}):" in answer.answer
        assert "stay in force" not in answer.answer and "stays" not in page
        assert page.count("the loaded text does not say it was repealed") == sum(c.kind == "dropped" for c in found.cells)


def test_a_change_page_and_an_as_of_day_have_urls(engine):
    """``/?changes=001`` opens that document's change page in the Browse tab (the browser test follows the
    coverage page's link); ``?as_of=`` fills the "as of" box."""
    from webapp.ui import Events, Parts

    events = Events(Viewer(engine), Parts())
    jump, view, cite = events.url_view({"changes": "001"})
    assert 'data-document="001"' in view and "Multifamily plex housing | NG: - (Ord. 939" in view and cite == ""

    class Request:
        query_params = {"changes": "001", "as_of": "2024-06-01"}

    shown = events.on_load(Request())
    assert 'data-document="001"' in shown[3] and shown[-1] == "2024-06-01"
