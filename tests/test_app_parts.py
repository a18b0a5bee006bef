"""The web app's parts without a server: rendering, the engine adapter, settings, lazy imports."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from assistant.types import Answer, Citation
from ingest.tables.types import Cell, EffectiveCell, Footnote, HistoryEntry
from webapp import views
from webapp.engine import Engine

REPO = Path(__file__).resolve().parent.parent
LABELS = {"000": "Telecommunications facilities ordinance", "002": "Ord. 939 (Santero Way and TOC districts)",
          "003": "Codified Chapter 17.20", "001": "Corrections and streamlining ordinance"}


def label(document: str) -> str:
    return LABELS.get(document, document)


# -- rendering -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,escaped",
    [("Marked * in the table", "Marked \\* in the table"), ("a_b [x](y) <b>", "a\\_b \\[x\\](y) \\<b\\>"),
     ("1. first", "1\\. first"), ("- - -", "\\- - -"), ("17.30.030 Fences", "17.30.030 Fences"), ("# h", "\\# h"),
     ("a | b", "a \\| b")],
)
def test_markdown_escape_shows_text_as_written(text, escaped):
    assert views.md_escape(text) == escaped


def test_citation_strings():
    assert views.citation_string("17.22.020", "2-3", [(label("000"), "ordinance", "2023-11-06", "SECTION 5")]) == (
        "Cotati Municipal Code § 17.22.020, Table 2-3, as amended by Telecommunications facilities ordinance, "
        "Section 5 (2023-11-06)")
    assert views.citation_string("17.22.020", "Table 2-4", [
        (label("002"), "ordinance", "2025-12-09", "SECTION 7"), (label("001"), "ordinance", "2026-08-11", "")]) == (
        "Cotati Municipal Code § 17.22.020, Table 2-4, as amended by Ord. 939 (Santero Way and TOC districts), "
        "Section 7 (2025-12-09) and Corrections and streamlining ordinance (2026-08-11)")
    assert views.citation_string("17.20.030", "", [(label("003"), "codified chapter", "2026-05-11", "")]) == (
        "Cotati Municipal Code § 17.20.030, as codified in Codified Chapter 17.20 (2026-05-11)")
    assert views.citation_string("001:SECTION-17", "", [(label("001"), "ordinance", "2026-08-11", "SECTION 17")]) == (
        "Corrections and streamlining ordinance, Section 17 (2026-08-11)")
    assert views.ordinance_part("SECTION 11; SECTION 12") == "Sections 11, 12"


def test_answer_markdown_direct_answer_reasons_then_numbered_citations():
    answer = Answer(
        question="q", abstained=False, route="permit",
        answer="A use permit (UP) is required.\nBar in CE: UP (Table 2-3, § 17.22.020).\nMarked * in the table: an "
               "interim use only.\nSource: § 17.22.020, Table 2-3 — Telecommunications facilities ordinance, 2023-11-06",
        citations=(Citation("17.22.020", "Allowable land uses", "000", "2023-11-06", "Bar UP", "Table 2-3", "SECTION 5"),
                   Citation("17.42.165", "Retail floor area", "001", "2026-08-11", "…")),
    )
    assert views.answer_markdown(answer, label) == "\n".join([
        "**A use permit (UP) is required.**", "",
        "- Bar in CE: UP (Table 2-3, § 17.22.020).",
        "- Marked \\* in the table: an interim use only.", "",
        "**Citations**", "",
        "1. § 17.22.020 Allowable land uses, Table 2-3 — Telecommunications facilities ordinance, Section 5, 2023-11-06",
        "2. § 17.42.165 Retail floor area — Corrections and streamlining ordinance, 2026-08-11",
    ])


def test_abstention_keeps_its_lines_and_has_no_citations():
    answer = Answer(question="q", abstained=True, route="abstain",
                    answer="The Cotati code documents in this corpus do not answer this question.\n"
                           "Nearest sections: 17.36.090.\nPlease ask the City of Cotati Planning Department.")
    assert views.answer_markdown(answer, label).split("\n") == [
        "**The Cotati code documents in this corpus do not answer this question.**", "",
        "- Nearest sections: 17.36.090.", "- Please ask the City of Cotati Planning Department."]


@pytest.mark.parametrize(
    "quote,marked",
    [("Each fence shall comply with the height limits.", ["Each fence shall\n  comply with the height limits."]),
     ("17.30.030 Fences, walls. … Each fence shall comply", ["17.30.030 Fences, walls.", "Each fence shall\n  comply"]),
     ("Bar, tavern UP UP UP - - -", ["Bar, tavern UP UP"]),
     ("Nothing like this is in the text", [])],
)
def test_highlight_finds_quote_pieces_across_whitespace(quote, marked):
    text = "17.30.030 Fences, walls.\nB. Heights. Each fence shall\n  comply with the height limits.\nBar, tavern UP UP(3) MUP"
    assert [text[a:b] for a, b in views.highlight_spans(text, quote)] == marked


def test_section_html_escapes_and_marks():
    class S:
        id, title, document, date, pages, excerpt, ordinance_section = "17.1.1", "A <b>", "001", "2026-08-11", (2,), True, "SECTION 3"
        text = "Intro <script>x</script>. The quoted words here."

    page = views.section_html(S, label("001"), "Cotati Municipal Code § 17.1.1", "The quoted words here.", ["Older (2020)"])
    assert "<script>" not in page and "&lt;script&gt;" in page and "A &lt;b&gt;" in page
    assert '<mark id="quoted-1">The quoted words here.</mark>' in page
    assert "Section 3 · page 2 · excerpt" in page and "Also stated in: Older (2020)." in page
    S.text = "Shown in Table 2-4 below.\nTable 2-4 Parcel Size\nrows"
    assert '<mark id="quoted-1">Table 2-4 Parcel Size</mark>' in views.section_html(S, "d", "c", table="2-4")


def _entry(column, value, document="002", date="2025-12-09", history=(), footnotes=(), **kw):
    cell = Cell(table="2-4", section="17.22.020", category="Retail Trade", row="Bar, tavern", column=column, value=value,
                document=document, date=date, footnotes=footnotes, ordinance_section="SECTION 7", **kw)
    return EffectiveCell(cell=cell, history=history)


def test_permit_markdown_every_district_with_notes_source_and_history():
    note = Footnote("3", "See Section 17.42.165, Retail use maximum floor area.", "category")
    cells = [
        _entry("HC", "UP", history=(HistoryEntry("UP", "000", "2023-11-06"),), footnotes=(note,)),
        _entry("NG", "MUP", document="001", date="2026-08-11", history=(HistoryEntry("UP", "000", "2023-11-06"),)),
        _entry("SW", None, review=True, review_reason="merged cell"),
    ]
    names = {"HC": "Historic Core", "NG": "Northern Gateway"}
    text = views.permit_markdown("2-4", "Bar, tavern", cells, lambda s: names.get(s, ""), label)
    lines = text.split("\n")
    assert lines[0] == "### Bar, tavern — Table 2-4 (§ 17.22.020)"
    assert ("| **HC** Historic Core | use permit (UP) | (3) | Ord. 939 (Santero Way and TOC districts), 2025-12-09, "
            "Section 7 | use permit (UP) — Telecommunications facilities ordinance, 2023-11-06 |") in lines
    assert ("| **NG** Northern Gateway | minor use permit (MUP) | — | Corrections and streamlining ordinance, "
            "2026-08-11, Section 7 | use permit (UP) — Telecommunications facilities ordinance, 2023-11-06 "
            "(changed) |") in lines
    assert "| **SW** | unreadable (could not be read with confidence: merged cell) | — |" in text
    assert "- (3) See Section 17.42.165, Retail use maximum floor area." in lines
    sources = views.row_sources(cells, label, lambda d: "ordinance")
    assert [s[0] for s in sources] == [label("002"), label("001")]


# -- the engine over the real corpus -----------------------------------------------------------
@pytest.fixture(scope="module")
def loaded():
    from assistant.service import load_assistant

    return load_assistant()


def _engine(loaded, open_index, wait=0.2):
    return Engine(loaded.corpus, loaded.tables, open_index, wait_seconds=wait, echo=lambda line: None)


@pytest.mark.parametrize(
    "query,kind,first",
    [("17.44.065", "section", "17.44.065"), ("§17.44.065", "section", "17.44.065"), ("see 17.30.030 please", "section", "17.30.030"),
     ("Table 3-7", "table", "17.36.050"), ("table 2-4", "table", "17.24.020"), ("2-4", "table", "17.24.020"),
     ("001:section-17", "section", "001:SECTION-17"), ("17.99.999", "none", None), ("Table 9-9", "none", None),
     ("", "none", None), ("x" * 500, "none", None)],
)
def test_lookup_by_section_or_table(loaded, query, kind, first):
    found = _engine(loaded, lambda progress: None).lookup(query)
    assert found.kind == kind
    assert (found.sections[0].id if found.sections else None) == first
    if kind == "none":
        assert found.message


def test_table_lookup_lists_every_section_printing_it(loaded):
    found = _engine(loaded, lambda progress: None).lookup("Table 2-4")
    assert {s.id for s in found.sections} >= {"17.22.020", "17.24.020"}


def test_documents_are_listed_oldest_first(loaded):
    documents = _engine(loaded, lambda progress: None).documents()
    assert [d.id for d in documents] == ["000", "002", "003", "001"]
    text = views.documents_markdown(documents)
    assert text.split("\n")[0].startswith("- **2023-11-06** — Telecommunications facilities ordinance: Ordinance amending")


def test_land_uses_cover_every_permit_row(loaded):
    engine = _engine(loaded, lambda progress: None)
    uses = engine.land_uses()
    assert len(uses) == sum(len(rows) for rows in loaded.tables.rows.values())
    assert ("2-4", "Bar, tavern") in uses
    cells = engine.permit_row("2-4", "Bar, tavern")
    assert [c.cell.column for c in cells] == loaded.tables.columns["2-4"]


def test_permit_answers_work_before_the_index_is_ready(loaded):
    release = threading.Event()

    def slow_open(progress):
        progress("embedding", 1, 10)
        release.wait(10)
        raise OSError("never built in this test")

    engine = _engine(loaded, slow_open)
    engine.start_index()
    assert engine.ask("Can I open a bar on East Cotati Avenue?").first_line == "A use permit (UP) is required."
    waiting = engine.ask("How tall can a fence be?")
    assert waiting.route == "unavailable" and "Building the search index (first run only) — embedding 1/10" in waiting.answer
    release.set()
    engine.wait_ready(5)


def test_failed_index_is_reported_not_raised(loaded):
    from index import IndexStoreError

    def broken(progress):
        raise IndexStoreError(Path("/nowhere"), "damaged")

    engine = _engine(loaded, broken)
    engine.start_index()
    assert engine.wait_ready(5) is False
    assert engine.status.state == "failed" and "Search index unavailable" in engine.status.text()
    answer = engine.ask("How tall can a fence be?")
    assert answer.route == "unavailable" and answer.abstained


def test_too_long_question_is_refused_before_any_work(loaded):
    def never(progress):
        raise AssertionError("the index must not be opened")

    engine = _engine(loaded, never)
    answer = engine.ask("y" * 2001)
    assert answer.route == "invalid" and answer.answer == "The question is 2,001 characters long; the limit is 2,000."


# -- settings and imports --------------------------------------------------------------------
def test_settings_default_to_this_machine_only(monkeypatch):
    from webapp.server import parse_args

    for name in ("COTATI_HOST", "COTATI_PORT", "COTATI_CONCURRENCY", "COTATI_QUEUE_SIZE"):
        monkeypatch.delenv(name, raising=False)
    args = parse_args([])
    assert (args.host, args.port, args.concurrency, args.queue_size) == ("127.0.0.1", 7860, 4, 64)
    monkeypatch.setenv("COTATI_HOST", "0.0.0.0")
    monkeypatch.setenv("COTATI_PORT", "8000")
    assert (parse_args([]).host, parse_args([]).port) == ("0.0.0.0", 8000)
    assert parse_args(["--port", "9000", "--host", "127.0.0.1"]).port == 9000
    monkeypatch.setenv("COTATI_PORT", "eighty")
    with pytest.raises(SystemExit):
        parse_args([])


def test_importing_app_loads_nothing_heavy():
    code = ("import json, sys, app, webapp.server, webapp.engine; print(json.dumps(sorted(m for m in "
            "('gradio', 'torch', 'sentence_transformers', 'faiss', 'ingest', 'index.search') if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(out.stdout) == []


def test_engine_answers_standards_questions_as_the_assistant_does():
    """The app's assistant carries the standards tables too (height, parking, fences ...)."""
    from webapp.engine import Engine

    engine = Engine.load(echo=lambda line: None, wait_seconds=0)
    answer = engine.ask("What is the height limit in the TOC zone?")
    assert answer.route == "standards"
    assert answer.first_line == "Maximum height in TOC: 45 ft.; 55 ft. with use permit"
