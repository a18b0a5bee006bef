"""The web app's parts without a server: rendering, the engine adapter, settings, lazy imports."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from corpus_copy import PROPOSED_000

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


def _entry(column, value, document="002", date="2025-12-09", history=(), footnotes=(), **kw):
    cell = Cell(table="2-4", section="17.22.020", category="Retail Trade", row="Bar, tavern", column=column, value=value,
                document=document, date=date, footnotes=footnotes, ordinance_section="SECTION 7", **kw)
    return EffectiveCell(cell=cell, history=history)


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
    assert text.split("\n")[0].startswith("- **2023-12-06** — Telecommunications facilities ordinance: Ordinance amending")


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
    assert engine.ask("Can I open a bar on East Cotati Avenue?").first_line == f"A use permit (UP) is required. {PROPOSED_000}"
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
    assert answer.route == "invalid" and answer.answer == ("The question is 2,001 characters long; the limit is 2,000. "
                                                           "Please shorten it and ask again.")


# -- settings and imports --------------------------------------------------------------------
def test_settings_default_to_this_machine_only(monkeypatch):
    from webapp.server import parse_args

    for name in ("COTATI_HOST", "COTATI_PORT", "COTATI_CONCURRENCY", "COTATI_QUEUE_SIZE", "GRADIO_SERVER_NAME",
                 "GRADIO_SERVER_PORT", "COTATI_PLANNING_CONTACT"):
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


def test_gradio_server_variables_are_honoured_below_flags_and_cotati_variables(monkeypatch):
    from webapp.server import parse_args

    for name in ("COTATI_HOST", "COTATI_PORT", "GRADIO_SERVER_NAME", "GRADIO_SERVER_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    monkeypatch.setenv("GRADIO_SERVER_PORT", "7911")
    assert (parse_args([]).host, parse_args([]).port) == ("0.0.0.0", 7911)
    monkeypatch.setenv("COTATI_PORT", "8000")
    monkeypatch.setenv("COTATI_HOST", "127.0.0.1")
    assert (parse_args([]).host, parse_args([]).port) == ("127.0.0.1", 8000)
    assert parse_args(["--port", "9000"]).port == 9000
    assert parse_args([]).planning_contact == ""
    monkeypatch.setenv("COTATI_PLANNING_CONTACT", "Planning Department, 707-555-0100")
    assert parse_args([]).planning_contact == "Planning Department, 707-555-0100"


def test_importing_app_loads_nothing_heavy():
    code = ("import json, sys, app, webapp.server, webapp.engine; print(json.dumps(sorted(m for m in "
            "('gradio', 'torch', 'sentence_transformers', 'faiss', 'ingest', 'index.search') if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(out.stdout) == []


def test_engine_answers_standards_questions_as_the_assistant_does():
    """The app's assistant carries the standards tables too (height, parking, fences ...)."""
    from webapp.engine import Engine

    engine = Engine.load(echo=lambda line: None, wait_seconds=0)
    answer = engine.ask("How many parking spaces does a bowling alley need?")
    assert answer.route == "standards"
    assert answer.first_line == "Bowling alley: 5 spaces for each lane."
    engine.settle(120)  # background index work, if this started any, is not left mid-load at exit


# -- section structure, pages, the engine's browsing ------------------------------------------
from webapp import pages, structure  # noqa: E402

STRUCTURED = ("17.1.010 Parking rules. In this chapter, parking means\nthe storage of cars.\n\n"
              "A. Location. Spaces shall be on site.\n1. Near the door.\na. Paved. b. Marked.\n2. Lit.\n"
              "B. Timing. Before occupancy.\nTable 3-2\nFence heights\nFront 42 in.\nNotes:\n(1) Open fences.")


def test_blocks_lay_out_subsections_and_tables():
    laid = structure.blocks(STRUCTURED, "17.1.010", "Parking rules")
    shown = [(b.kind, b.path, STRUCTURED[b.start:b.end].split("\n")[0][:18]) for b in laid]
    assert shown == [
        ("heading", (), "17.1.010 Parking r"), ("para", (), "In this chapter, p"),
        ("item", ("A",), "A. Location. Space"), ("item", ("A", "1"), "1. Near the door."),
        ("item", ("A", "1", "a"), "a. Paved."), ("item", ("A", "1", "b"), "b. Marked."),
        ("item", ("A", "2"), "2. Lit."), ("item", ("B",), "B. Timing. Before "),
        ("table", (), "Table 3-2"), ("notes", (), "Notes:"), ("item", ("B", "1"), "(1) Open fences."),
    ]
    assert laid[8].table == "3-2"
    assert structure.subsection_anchor(laid, ("A", "1")) == 4
    assert structure.anchor_of(laid, STRUCTURED.index("Marked")) == 6


def test_section_view_marks_the_quote_and_lays_out_levels():
    class S:
        id, title, document, date, pages, excerpt, ordinance_section = "17.1.010", "Parking rules", "001", "2026-08-11", (2,), False, ""
        text = STRUCTURED

    page = pages.section_view(S, "Ord", "Cite", quote="Near the door.", grids={"3-2": "17.30.030"})
    assert '<mark class="quote" data-scroll-to="center">Near the door.</mark>' in page
    assert 'class="b-item lvl-2" data-anchor="q4"' in page
    assert "Open Table 3-2 as a grid" in page and "section=17.30.030&amp;table=3-2" in page
    sub = pages.section_view(S, "Ord", "Cite", subsection=("B",))
    assert 'class="b-item lvl-1 cited" data-anchor="q8" data-scroll-to="center"' in sub


def test_answer_card_headline_sources_follow_ups_and_no_internal_ids():
    answer = Answer(question="q", abstained=False, route="permit",
                    answer="A use permit (UP) is required.\nRead as: use Bar, tavern; district CE\nNote (3): See § 17.42.165, "
                           "Retail use maximum floor area.\nSource: § 17.22.020",
                    citations=(Citation("17.22.020", "Allowable land uses", "000", "2023-11-06", "Bar UP", "Table 2-3", "SECTION 5"),))
    # The lead's answer fields (confidence, clarify) read with getattr, so any object carrying them renders.
    extra = type("A", (), {**{k: getattr(answer, k) for k in ("question", "answer", "abstained", "citations", "lookups", "route")},
                           "confidence": 0.91, "how_sure": "medium", "clarify": ["Can I open a bar in the CD district?"]})
    page = pages.answer_card(3, extra, label, lambda s: s != "17.42.165", [], latest=True, anchors=[5])
    assert '<h3 class="headline" id="turn-3-head" data-scroll-to="start">A use permit (UP) is required.</h3>' in page
    assert '<p class="read-as">Read as: use Bar, tavern; district CE</p>' in page
    # the band the calibration states, not a fixed cut of the number, and what it means; the number only in the JSON
    assert '<p class="confidence">How sure: medium: right for about 9 in 10 of the checked questions this sure</p>' in page
    assert "0.91" not in page
    assert 'class="not-in-corpus"' in page and "Source:" not in page
    assert 'href="?section=17.22.020&amp;doc=000#q5"' in page and "Table 2-3" in page
    assert '<button type="button" class="follow"' in page and "Can I open a bar in the CD district?" in page
    refusal = Answer(question="q", abstained=True, route="abstain", nearest=("000:PREAMBLE", "17.36.090"),
                     answer="The Cotati code documents in this corpus do not answer this question.\n"
                            "Nearest sections: 000:PREAMBLE, 17.36.090.\nPlease ask the City of Cotati Planning Department.")
    nearest = [("000:PREAMBLE", "Telecommunications facilities ordinance, preamble", True),
               ("17.36.090", "§ 17.36.090 Parking design and development standards", True)]
    page = pages.answer_card(0, refusal, label, lambda s: True, nearest, contact="Planning, 707-555-0100")
    text = re.sub(r"<[^>]+>", " ", page)
    assert "000:PREAMBLE" not in text and "§ 17.36.090 Parking design and development standards" in text
    assert "Ask the Planning Department: Planning, 707-555-0100" in text and "Please ask the City" not in text
    markdown = views.answer_markdown(refusal, label, nearest=nearest)
    assert "000:PREAMBLE" not in markdown and "Telecommunications facilities ordinance, preamble" in markdown


def test_interpretation_dict_becomes_a_read_as_line_in_plain_words():
    line = pages.interpretation_line({"use": [{"label": "Bar, tavern", "words": "bar"}], "districts": ["CE"]})
    assert line == "Read as: a question about Bar, tavern (your words “bar”) in CE."
    # Issue 36: a decline's reading names no field ("topics", "answer type"), only what was understood.
    line = pages.interpretation_line({"uses": [], "districts": [{"symbol": "TOC", "name": "Transit Oriented Community",
                                                                 "words": "TOC"}], "topics": ["allowed", "setback"],
                                      "answer_type": "number", "sections": [], "tables": []})
    assert line == ("Read as: a question about whether it is allowed, setbacks in TOC (Transit Oriented Community), "
                    "asking for a number.")
    assert not re.search(r"\b(?:topics?|answer type|uses|districts)\b", line)


def test_engine_browses_chapters_subsections_tables_and_uses(loaded):
    engine = _engine(loaded, lambda progress: None)
    chapter = engine.lookup("17.44")
    assert chapter.kind == "chapter" and [s.id for s in chapter.sections][:2] == ["17.44.010", "17.44.020"]
    sub = engine.lookup("17.36.040(E)(1)")
    assert sub.kind == "section" and sub.subsection == ("E", "1")
    assert {(s, t) for s, t, _ in engine.grid_list() if t == "2-4"} == {("17.22.020", "2-4"), ("17.24.020", "2-4")}
    grid = engine.grid("17.22.020", "2-3")
    assert grid.kind == "permit" and "CE" in grid.columns and ("Retail Trade", "Bar, tavern") in grid.rows
    assert grid.cells[("Retail Trade", "Bar, tavern", "CE")].cell.value == "UP"
    assert engine.resolve_uses("gym")[0][:2] == ("2-3", "Health/fitness facility")
    assert ("2-2", "Accessory dwelling unit") in [r[:2] for r in engine.resolve_uses("granny unit")]
    assert engine.referenced_title("17.42.165") == "Retail use maximum floor area"
    assert engine.section_label("000:PREAMBLE") == ("Telecommunications facilities ordinance, preamble", True)
    assert engine.section_label("17.42.165") == ("§ 17.42.165 Retail use maximum floor area", False)


def test_grid_view_and_cell_provenance(loaded):
    engine = _engine(loaded, lambda progress: None)
    grid = engine.grid("17.22.020", "2-3")
    page = pages.grid_view(grid, engine.district_name, engine.document_label, ("Bar, tavern",))
    assert '<th scope="col"><abbr title="' in page and 'data-scroll-to="center"' in page
    assert page.count('<button type="button" class="cell') == len(grid.cells)
    info = pages.cell_info(grid.cells[("Retail Trade", "Bar, tavern", "CE")], engine.district_name, engine.document_label)
    assert "Stated by" in info and "Source line" in info and "Earlier statements" in info


# -- issue 25: headlines, citations, clarifications, declines, coverage ------------------------
def test_headlines_drop_list_numbers_and_citations_show_no_internal_ids():
    assert views.headline("9. Stealth design means camouflaged.") == "Stealth design means camouflaged."
    assert views.headline("(c) The director decides.") == "The director decides."
    assert views.headline("A use permit (UP) is required.") == "A use permit (UP) is required."
    assert views.headline("17.44.065 Limited waiver") == "17.44.065 Limited waiver"
    part = Citation("000:SECTION-7", "Effective date", "000", "2023-11-06", "…")
    line = views.citation_line(2, part, label("000"))
    assert line == "2. Telecommunications facilities ordinance, Section 7: Effective date, 2023-11-06"
    assert "000:" not in line


def test_clarification_options_are_listed_once():
    from webapp import pages

    answer = Answer(question="is it legal?", abstained=True, route="clarify", clarify=("Can I keep chickens?", "Can I build an ADU?"),
                    answer="Which do you mean?\n- Can I keep chickens?\n- Can I build an ADU?\nThese documents cover the City.")
    card = pages.answer_card(0, answer, label, lambda s: True, [])
    assert card.count("Can I keep chickens?") == 2  # the button's command and its text, no "- " line
    assert "- Can I keep" not in card
    markdown = views.answer_markdown(answer, label)
    assert markdown.count("Can I keep chickens?") == 1 and "- \\- " not in markdown


def test_a_decline_leads_with_what_was_not_found_then_why_the_closest_passage_the_nearest_and_a_contact():
    from assistant.closest import Closest
    from webapp import pages

    first = ("No sure answer: the nearest passages and table rows of the Cotati code documents do not clearly answer this "
             "question, so none is given rather than a guess.")
    note = ('Not loaded: Chapter 17.84 (Appeals), which the loaded text cites but does not contain — § 17.62.070 Amendments: '
            '"... in compliance with Chapter 17.84 (Appeals)."')
    head, why, folded = pages.decline_parts(first, [note])
    assert head == pages.DECLINE_LEAD == "I could not find where the code answers this for certain."
    assert why == ["Not loaded: Chapter 17.84 (Appeals), which the loaded text cites but does not contain."]
    assert folded[0].startswith("§ 17.62.070 Amendments:")
    # A decline's own first line that says why (not the general one) is the first reason, in words.
    head, why, _ = pages.decline_parts("No sure answer: the TOC district did not exist on 2025-12-08; ...", [])
    assert head == pages.DECLINE_LEAD and why == ["The TOC district did not exist on 2025-12-08; ..."]
    closest = (Closest("17.60.070", "002", "Initial Application review",
                       ("17.60.070 Initial Application review", "A. Review for Completeness", "2. Appeal of Determination"),
                       "the applicant may appeal the determination", 0.64),
               Closest("17.60.040", "002", "Application preparation and filing", ("Table 6-1", "Minor Use Permit (MUP)"),
                       "Minor Use Permit (MUP) 17.62.050 Decision(2) Appeal Appeal", 0.6, table="Table 6-1"))
    answer = Answer(question="appeal?", abstained=True, route="abstain", closest=closest,
                    answer="\n".join([first, note, 'Closest passage: § 17.60.070 ...: "the applicant may appeal"',
                                      "Nearest sections: § 17.62.070 Amendments.", pages.GENERIC_ASK]))
    card = pages.answer_card(0, answer, label, lambda s: True, [("17.62.070", "§ 17.62.070 Amendments", True),
                                                                ("17.60.040", "§ 17.60.040 Application", True)],
                             closest_anchors=[4, 0])
    order = [card.index(mark) for mark in ('class="headline"', 'class="why"', 'class="closest"', 'class="nearest"',
                                           'class="contact"', "<details")]
    assert order == sorted(order)
    assert ("§ 17.60.070 Initial Application review › A. Review for Completeness › 2. Appeal of Determination — Ord"
            in card)
    assert '<blockquote class="closest-quote"><mark>the applicant may appeal the determination</mark></blockquote>' in card
    assert 'href="?section=17.60.070&amp;doc=002#q4"' in card
    assert pages.nav(do="section", id="17.60.070", doc="002", quote="the applicant may appeal the determination") in card
    # The other nearest: a table row opens its grid at the row; a section named only once, as its closest passage.
    assert pages.nav(do="grid", section="17.60.040", table="6-1", row="Minor Use Permit (MUP)") in card
    assert card.count("§ 17.60.040 Application") == 1 and "Other nearest sections:" in card
    assert "Closest passage:" not in card  # shown as the block, not as a folded reason
    assert "City of Cotati Planning Department" in card and pages.GENERIC_ASK not in card
    assert "Ask the Planning Department: Planning, 1" in pages.answer_card(0, answer, label, lambda s: True, [], contact="Planning, 1")


def test_coverage_page_and_jump_urls():
    from types import SimpleNamespace

    from ingest.coverage import build_coverage
    from ingest.references import build_graph
    from ingest.types import DocumentInfo
    from webapp import pages
    from webapp.engine import Lookup

    sections = [SimpleNamespace(id="17.62.070", title="Amendments", chapter="17.62", document="002", date="2025-12-09",
                                text="An appeal is filed in compliance with Chapter 17.84 (Appeals).")]
    documents = [DocumentInfo("002", "o.txt", "Ordinance 939", "ordinance", "2025-12-09", short_title="Ord. 939")]
    found = build_coverage(documents, sections, [SimpleNamespace(document="002", table="6-1", section="17.60.040")],
                           build_graph(sections))
    page = pages.coverage_view(found, "1 document")
    assert "Ord. 939 (2025-12-09)" in page and "Table 6-1" in page and "Chapter 17.84 (Appeals) — cited by" in page
    assert "?coverage=1" in pages.coverage_line("1 document")
    assert pages.jump_url(Lookup("17.36.040(E)", "section"), " 17.36.040(E) ") == "?section=17.36.040%28E%29"
    assert pages.jump_url(Lookup("Table 2-4", "table", table="2-4"), "Table 2-4") == "?table=2-4"
    assert pages.jump_url(Lookup("17.44", "chapter", chapter="17.44"), "17.44") == "?chapter=17.44"
    assert pages.jump_url(Lookup("x", "none"), "x") == ""


# -- issue 36: staff-readable answers ---------------------------------------------------------
def test_a_cli_command_in_an_answer_becomes_the_apps_change_page():
    from webapp import pages

    html = pages.linkify("... and 12 more; the full list: `python -m ingest diff --document 001`.", lambda s: True)
    assert "python -m" not in html and 'href="?changes=001"' in html
    assert pages.nav(do="changes", doc="001") in html and ">the page of what it changed</a>." in html


def test_a_source_from_a_proposed_document_says_so_beside_it():
    from webapp import pages

    answer = Answer(question="q", abstained=False, route="permit", answer="A use permit (UP) is required.\nSource: § 17.22.020",
                    citations=(Citation("17.22.020", "Allowable land uses", "000", "2023-11-06", "Bar UP", "Table 2-3"),
                               Citation("17.60.040", "Application", "002", "2025-12-09", "MUP", "Table 6-1")))
    status = {"000": "proposed ordinance; restates Tables 2-2, 2-3", "002": "adopted (Ord. 939)"}.get
    card = pages.answer_card(0, answer, label, lambda s: True, [], status=status)
    first, second = card.split('<ol class="sources">', 1)[1].split("</li>")[:2]
    assert "a proposed ordinance: the loaded copy shows no adoption by the City Council" in first
    assert "proposed" not in second
    assert "proposed" not in pages.answer_card(0, answer, label, lambda s: True, [])  # no statuses known: nothing said


# A table every cell of which comes from the 2023 telecommunications ordinance (000, a proposal: Tables 2-2 and
# 2-3) says so in its grid's header, in the words the lead of an answer resting on it adds (issue 45).
PROPOSED_HEAD = f'<p class="section-note proposed-only"><strong>{PROPOSED_000.replace("This rests", "This table rests")}</strong></p>'


@pytest.mark.parametrize("section,table,proposed", [("17.22.020", "2-2", True), ("17.22.020", "2-3", True),
                                                    ("17.22.020", "2-2 cannabis", True), ("17.22.020", "2-4", False),
                                                    ("17.60.040", "6-1", False), ("17.30.030", "3-2", False)])
def test_a_grid_resting_only_on_a_proposed_ordinance_says_so_in_its_header(loaded, section, table, proposed):
    from webapp.viewer import Viewer

    viewer = Viewer(_engine(loaded, lambda progress: None))
    grid = viewer.engine.grid(section, table)
    # however the grid is opened: a cell's link or a decline's closest row, an answer's source, the jump box
    answer = Answer(question="q", abstained=False, route="permit", answer="A.",
                    citations=(Citation(section, "t", grid.documents[-1], "2023-12-06", "", f"Table {table}"),))
    pages_shown = [viewer.grid_view(section, table)[0], viewer.citation_view(answer, 0)]
    if " " not in table and section == viewer.engine.lookup(f"Table {table}").sections[0].id:
        pages_shown.append(viewer.lookup_view(f"Table {table}")[0])
    for page in pages_shown:
        head = page.split('<p class="grid-legend">', 1)[0]
        assert (PROPOSED_HEAD in head) is proposed, (table, head[-400:])
        assert head.index("</h3>") < (head.index(PROPOSED_HEAD) if proposed else len(head))
    assert page.count("proposed-only") == int(proposed)  # in the header only


def _table_answer(question: str, section: str, table: str, route: str = "table") -> Answer:
    return Answer(question=question, abstained=False, route=route, answer=f"Table {table} (§ {section}).",
                  citations=(Citation(section, "Title", "000", "2023-12-06", "", table=f"Table {table}"),))


def test_a_table_answered_whole_that_rests_on_a_proposal_says_so_under_its_lead(loaded):
    from webapp.viewer import Viewer

    viewer = Viewer(_engine(loaded, lambda progress: None))
    lead, grid = viewer.table_answered(_table_answer("Table 2-3", "17.22.020", "2-3"))
    assert lead.startswith("Table 2-3 of § 17.22.020") and PROPOSED_HEAD in grid
    assert PROPOSED_HEAD not in viewer.table_answered(_table_answer("Table 2-18", "17.24.030", "2-18"))[1]


def test_table_6_1_grid_shows_the_reviewers_readings_not_question_marks(loaded):
    engine = _engine(loaded, lambda progress: None)
    grid = engine.grid("17.60.040", "6-1")
    page = pages.grid_view(grid, engine.district_name, engine.document_label)
    cells = page.count('<button type="button" class="cell')
    assert page.count('class="mark-reviewed"') >= 30 and page.count('class="mark-review"') < cells // 10
    entry = next(e for (cat, row, column), e in grid.cells.items() if row == "Minor Use Permit (MUP)" and column == "Director")
    assert entry.cell.value == "Decision"
    info = pages.cell_info(entry, engine.district_name, engine.document_label)
    info = info.replace("&#x27;", "'")
    assert "<dt>Reviewer's reading</dt><dd>Decision (" in info and "<dt>Reviewer's note</dt>" in info and "Footnote (2)" in info


@pytest.mark.parametrize("question,section,table", [("Table 2-18", "17.24.030", "2-18"), ("Show me Table 6-1", "17.60.040", "6-1"),
                                                    ("Table 2-4", "17.24.020", "2-4")])
def test_a_table_answered_whole_is_a_one_line_lead_and_the_cited_grid(loaded, question, section, table):
    from webapp.viewer import Viewer

    viewer = Viewer(_engine(loaded, lambda progress: None))
    page = viewer.cards([(question, _table_answer(question, section, table), None, {})])
    headline = re.search(r'<h3 class="headline table-lead"[^>]*>(.*?)</h3>', page).group(1)
    # The grid of the table the answer cites, in the section it cites (17.24.020's "Table 2-4", not 17.22.020's).
    assert headline.startswith(f"Table {table} of § {section}") and "shown below" in headline and "\n" not in headline
    assert f'data-table="{table}"' in page and "<table class=\"grid\">" in page


def test_the_page_shows_a_whole_table_only_when_the_assistant_answered_with_one(loaded):
    """Issue 44: the page decides nothing by the question's words; a section's or a cell's answer that cites a
    table, asked "Table 2-18", is rendered as that answer."""
    from webapp.viewer import Viewer

    viewer = Viewer(_engine(loaded, lambda progress: None))
    section = Answer(question="Table 2-18", abstained=False, route="section", answer="§ 17.24.030 Zoning\n\"Table 2-17 SW ...\"",
                     citations=(Citation("17.24.030", "Zoning", "002", "2025-12-09", "Table 2-17"),))
    cell = _table_answer("what is the max height in table 2-18?", "17.24.030", "2-18", route="standards")
    for answer in (section, cell, replace(_table_answer("Table 2-18", "17.24.030", "2-18"), abstained=True)):
        assert viewer.table_answered(answer) is None
        assert "table-lead" not in viewer.cards([(answer.question, answer, None, {})])


def test_every_see_note_names_the_note():
    from types import SimpleNamespace

    from assistant import compose

    read = SimpleNamespace(table="6-1", row="Variance", reading=object())
    other = SimpleNamespace(table="6-1", row="Minor Variance", reading=object())
    parsed = SimpleNamespace(table="6-1", row="Tree Permit - Native oak", reading=None)
    assert compose.reviewed_line([parsed]) == ""
    assert compose.reviewed_line([parsed, read]) == ("Read from the printed table by a reviewer (the parser could not); "
                                                     "see the reviewer's note on Table 6-1, Variance.")
    assert compose.reviewed_line([read, other, read]).endswith("note on Table 6-1, Variance (and 1 more row).")


def test_a_note_that_ran_on_into_the_next_copy_of_its_table_is_cut_there():
    from assistant import compose

    spilled = ("The director may defer action and refer the request to the commission , so that the commission may "
               "instead make the decision. 17.60.040 Application preparation and filing. Table 6-1 Planning Permit Review "
               "Authority Type of Decision ...")
    assert compose.note_text(spilled) == ("The director may defer action and refer the request to the commission , so that "
                                          "the commission may instead make the decision.")
    whole = "Fees are set as described in Section 17.60.050 of this title. Table 2-3 applies."
    assert compose.note_text(whole) == whole
