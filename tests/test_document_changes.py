"""What a named ordinance changed, composed from its diff (assistant/document_changes.py), and since
when a cell holds its value (assistant/then.since_line): hermetic, with a fake diff and corpus."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from assistant import choose, document_changes
from assistant.then import since_line
from assistant.types import Citation
from ingest.changes import CellChange, Diff, Rezoning, SectionChange
from ingest.types import DocumentInfo

OLD = DocumentInfo("000", "a.txt", "Old ordinance", "ordinance", "2023-11-06", short_title="Old ordinance")
NEW = DocumentInfo("002", "b.txt", "Ordinance 939", "ordinance", "2025-12-09", short_title="Ord. 939")


@dataclass(frozen=True)
class _Section:
    id: str
    document: str
    date: str
    title: str
    text: str
    ordinance_section: str = ""


@dataclass(frozen=True)
class _District:
    symbol: str


@dataclass
class _Vocabulary:
    districts: tuple = (_District("HC"), _District("LP"), _District("TOC"))


@dataclass
class _Corpus:
    sections: list
    documents: dict = field(default_factory=lambda: {"000": OLD, "002": NEW})
    vocabulary: _Vocabulary = field(default_factory=_Vocabulary)

    def section(self, section_id, document=None):
        return next((s for s in self.sections if s.id == section_id and s.document == document), None)

    def document_label(self, document):
        return self.documents[document].short_title

    def citation(self, section, quote):
        return Citation(section.id, section.title, section.document, section.date, quote)


SECTIONS = [_Section("17.22.020", "000", OLD.date, "Allowable land uses", "Table 2-4 ..."),
            _Section("17.22.020", "002", NEW.date, "Allowable land uses", "Table 2-4 ..."),
            _Section("002:SECTION-9", "002", NEW.date, "Rezoning",
                     "Assessor Parcel Number 144-720-061 is rezoned from the Commercial (CE) to the Neighborhood (NM).")]


def _change(row, column, old, new, kind="changed"):
    return CellChange("17.22.020", "2-4", "", row, column, old, new, kind, "000" if old else "")


def _diff(cells, rezonings=()):
    sections = (SectionChange("17.22.020", "Allowable land uses", "restated", "000", OLD.date),)
    return Diff(NEW, sections, tuple(cells), tuple(rezonings))


def test_the_changes_are_grouped_by_table_and_row_with_both_documents_cited():
    diff = _diff([_change("Live/work unit", "HC", "P", "UP"), _change("Live/work unit", "LP", "P", "UP"),
                  _change("Night club", "LP", "-", "UP"), _change("Bar", "TOC", None, "UP", "added"),
                  _change("Bar", "HC", "UP", "UP", "restated")])
    answer = document_changes.answer_changes("what did Ord. 939 change?", diff, _Corpus(SECTIONS))
    lines = answer.answer.split("\n")
    assert lines[:2] == ["Ord. 939 (2025-12-09): 4 table cells differ from the law before it, and it restates or adds "
                         "1 code section:", "Table cells: 3 changed value, 1 added."]  # restated-unchanged not counted
    assert "- Live/work unit in HC, LP: permitted (P) -> use permit (UP)" in lines
    assert "- Night club in LP: not allowed -> use permit (UP)" in lines
    assert "Table 2-4 (§ 17.22.020): adds 1 cell (new columns TOC)." in lines
    assert {(c.section, c.document) for c in answer.citations} >= {("17.22.020", "002"), ("17.22.020", "000")}
    assert answer.route == "change" and not answer.abstained


def test_rows_a_restatement_leaves_out_are_said_to_be_not_restated_not_to_stay_in_force():
    """Issue 46: "their earlier cells stay in force" is a legal judgement the loaded text does not make."""
    diff = _diff([_change("Theater", "HC", "UP", None, "dropped"), _change("Theater", "LP", "UP", None, "dropped"),
                  _change("Night club", "LP", "-", "UP")])
    lines = document_changes.answer_changes("what did Ord. 939 change?", diff, _Corpus(SECTIONS)).answer.split("\n")
    assert lines[1] == "Table cells: 1 changed value, 2 not restated (1 row)."
    assert ("Rows its full restatement does not print (not restated; the loaded text does not say they were repealed): "
            "Theater (Table 2-4).") in lines
    assert not any("in force" in line for line in lines)


def test_a_long_list_is_capped_with_a_pointer_to_the_full_diff():
    cells = [_change(f"Use {n}", "HC", "P", "UP") for n in range(choose.TUNED.changes_cell_cap + 5)]
    answer = document_changes.answer_changes("what did Ord. 939 change?", _diff(cells), _Corpus(SECTIONS))
    assert sum(line.startswith("- Use ") for line in answer.answer.split("\n")) == choose.TUNED.changes_cell_cap
    assert "... and 5 more; the full list: `python -m ingest diff --document 002`." in answer.answer


def test_the_zoning_map_question_gives_the_rezonings_with_their_section():
    text = "Assessor Parcel Number 144-720-061 is rezoned from the Commercial (CE) to the Neighborhood (NM)"
    diff = _diff([], [Rezoning("144-720-061", "CE", "NM", text)])
    answer = document_changes.answer_changes("what did it change on the zoning map?", diff, _Corpus(SECTIONS), map_only=True)
    assert answer.answer.split("\n")[:2] == ["Ord. 939 (2025-12-09) rezoned 1 parcel:",
                                             "Rezones APN 144-720-061 from CE to NM (002:SECTION-9)."]
    assert [c.section for c in answer.citations] == ["002:SECTION-9"]


@pytest.mark.parametrize("rest, everything", [
    ("?", True), ("with", True), ("which did make", True), ("in the code?", True), ("2023 ?", True),
    ("on the zoning map?", True), ("about live/work units in HC?", False), ("the permit for a bar in NG?", False),
])
def test_a_question_asks_for_everything_only_when_it_names_nothing(rest, everything):
    assert document_changes.asks_everything(rest) is everything


def _entry(value, document, date):
    return {"value": value, "document": document, "date": date}


WORDS = {"P": "permitted (P)", "UP": "use permit (UP)", "-": "not allowed"}.get
NAMES = {"000": OLD, "002": NEW}


@pytest.mark.parametrize("timeline, expected", [
    ([_entry("-", "000", OLD.date), _entry("UP", "002", NEW.date)],
     "Night club in LP: use permit (UP); allowed since Ord. 939 (2025-12-09); before it, not allowed."),
    ([_entry("P", "000", OLD.date), _entry("P", "002", NEW.date)],
     "Night club in LP: permitted (P); allowed since the oldest loaded document, Old ordinance (2023-11-06)."),
    ([_entry("UP", "002", NEW.date)], "Night club in LP: use permit (UP); allowed since Ord. 939 (2025-12-09)."),
    ([_entry("P", "000", OLD.date), _entry("-", "002", NEW.date)],
     "Night club in LP: not allowed since Ord. 939 (2025-12-09); before it, permitted (P)."),
    ([_entry("-", "000", OLD.date), _entry("-", "002", NEW.date)],
     "Night club in LP: not allowed in any loaded document, from Old ordinance (2023-11-06) on."),
])
def test_since_when_a_cell_holds_its_value(timeline, expected):
    cell = {**timeline[-1], "row": "Night club", "column": "LP"}
    assert since_line(cell, timeline, NAMES, WORDS) == expected


def test_the_changed_cells_are_the_answers_lookups_with_their_earlier_values():
    diff = _diff([_change("Night club", "LP", "-", "UP"), _change("Bar", "TOC", None, "UP", "added")])
    answer = document_changes.answer_changes("what did Ord. 939 change?", diff, _Corpus(SECTIONS))
    assert [(c["row"], c["column"], c["value"], c["document"], c["history"]) for c in answer.lookups] == [
        ("Night club", "LP", "UP", "002", [{"value": "-", "document": "000"}])]
