"""The citation route (assistant/routes/citation.py, issue 44): a request for the citation itself is
proposed as the section, table or document asked, with its title and date.

Hermetic: the bundled corpus and tables, the fake searcher of test_assistant (no index, no model).
"""

from __future__ import annotations

import pytest

from assistant import choose, chooser, confidence
from assistant.routes import citation
from tests.route_proposals import proposed, res  # noqa: F401  (res: the module's fixture)


def _proposed(res, question):
    found = proposed(citation, res, question)
    assert all(set(c.answer.signals) <= set(confidence.FEATURES["citation"]) for c in found)
    return found


def test_cite_the_section_on_a_subject(res):
    (found,) = _proposed(res, "Cite the section on cell tower setbacks.")
    assert found.answer_type == "section"
    (cited,) = found.answer.citations
    assert (cited.section, cited.document, cited.date) == ("17.44.060", "000", "2023-12-06")
    assert found.answer.first_line == ("§ 17.44.060 Facility design and development standards "
                                       "(Telecommunications facilities ordinance, 2023-12-06).")
    assert "setback" in cited.quote  # the sentence of it that speaks of the subject


def test_which_ordinance_last_changed_the_fence_table(res):
    (found,) = _proposed(res, "Which ordinance last changed the fence table?")
    assert found.answer_type == "ordinance_fact"
    (cited,) = found.answer.citations
    assert (cited.section, cited.table, cited.document, cited.date) == ("17.30.030", "Table 3-2", "001", "2026-09-10")
    assert found.answer.first_line == ("Corrections and streamlining ordinance (2026-09-10) last changed Table 3-2 "
                                       "Maximum Height of Fences, Walls, and Hedges (§ 17.30.030).")
    assert {cell["table"] for cell in found.answer.lookups} == {"3-2"}
    assert found.answer.signals["table_by_topic"] == 1.0


def test_a_table_by_number_and_both_tables_2_4(res):
    found = {c.answer.citations[0].section: c for c in _proposed(res, "Which ordinance last amended Table 2-4?")}
    assert set(found) == {"17.22.020", "17.24.020"}
    assert all(c.answer.citations[0].document == "001" for c in found.values())
    # the permit table was restated with a few cells changed; the parcel size table was new
    assert found["17.22.020"].answer.signals["changed_share"] < found["17.24.020"].answer.signals["changed_share"] == 1.0


def test_the_parking_table_was_last_changed_by_ord_939(res):
    (found,) = _proposed(res, "When was the parking table last amended?")
    assert (found.answer.citations[0].table, found.answer.citations[0].document) == ("Table 3-7", "002")


def test_a_section_by_number(res):
    (found,) = _proposed(res, "which ordinance last amended 17.44.060?")
    assert found.answer.first_line.startswith("Telecommunications facilities ordinance (2023-12-06) last changed "
                                              "§ 17.44.060 Facility design and development standards")


@pytest.mark.parametrize("question", ["Can I open a bar in CE?", "How tall can a fence be?", "17.44.060",
                                      "What is a home occupation?"])
def test_not_a_request_for_a_citation(res, question):
    assert _proposed(res, question) == []


def test_it_is_registered_with_its_signals(res):
    assert citation.candidates in chooser.ROUTES_RANKED
    assert citation.candidates not in chooser.ROUTES + chooser.ROUTES_DECIDING
    assert "citation" in choose.ROUTES
    found = chooser.candidates(res.read("Which ordinance last changed the fence table?"), res)
    assert any(c.answer.route == "citation" and c.answer.citations[0].table == "Table 3-2" for c in found)


@pytest.mark.slow
@pytest.mark.parametrize("question,section,document", [("Cite the section on cell tower setbacks.", "17.44.060", "000"),
                                                       ("Which ordinance last changed the fence table?", "17.30.030", "001")])
def test_with_the_real_index_the_chooser_is_offered_the_citation(question, section, document):
    from assistant.service import load_assistant

    resources = load_assistant().resources
    found = chooser.candidates(resources.read(question), resources)
    assert any(c.answer.route == "citation" and (c.answer.citations[0].section, c.answer.citations[0].document)
               == (section, document) for c in found)
