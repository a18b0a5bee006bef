"""The cross-reference graph (ingest/references.py), the coverage summary (ingest/coverage.py) and the
decline that names what the loaded text cites but does not contain (assistant/compose.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from assistant import compose
from assistant.types import Query
from ingest.coverage import build_coverage, summary_line
from ingest.references import build_graph, cited_missing, passage_around, references_in
from ingest.types import DocumentInfo

REPO = Path(__file__).resolve().parent.parent


def _section(sid: str, text: str, title: str = "", document: str = "002"):
    return SimpleNamespace(id=sid, title=title or f"Title of {sid}", chapter=sid.rsplit(".", 1)[0] if ":" not in sid else "",
                           document=document, date="2025-12-09", text=text, ordinance_section="")


SECTIONS = [
    _section("17.62.070", "A. Filing. Applications are filed with the department.\nB. Denial. A Commission denial shall be "
                          "final, unless an appeal is filed with the City Clerk within 10 days, in compliance with "
                          "Chapter 17.84 (Appeals). See Section 17.42.170 (Accessory dwelling units)."),
    _section("17.60.040", "Notes: (1) See Article 9 (Glossary) for definitions. Hearings follow Chapter 17.88 (Public "
                          "Hearings) and § 17.62.070(B), Amendments."),
    _section("17.88.040", "7.88.040 Hearing procedure. The hearing is held as set by Section 17.88.040."),
    _section("17.20.020", "Zoning map.", document="003"),
]


def test_references_in_finds_sections_chapters_and_articles_with_their_printed_names():
    found = references_in("in compliance with Chapter 17.84 (Appeals). See § 17.24.050(C), Limitation on the Location "
                          "of Allowable Land Uses. Article 9 (Glossary); Sections 17.36.080 and a row ... P 17.42.170")
    assert [(kind, target, name) for kind, target, name, _, _ in found] == [
        ("chapter", "17.84", "Appeals"), ("section", "17.24.050", "Limitation on the Location of Allowable Land Uses"),
        ("article", "9", "Glossary"), ("section", "17.36.080", ""), ("section", "17.42.170", "")]
    assert references_in("Chapter 17.88.040 is amended") == [("section", "17.88.040", "", 8, 17)]


def test_passage_around_is_the_citing_sentence_on_one_line():
    text = SECTIONS[0].text
    at = text.index("Chapter 17.84")
    assert passage_around(text, at, at + 13) == ("A Commission denial shall be final, unless an appeal is filed "
                                                 "with the City Clerk within 10 days, in compliance with Chapter 17.84 (Appeals).")
    long = "Row " + "P UP " * 200 + "17.42.170 " + "MUP " * 200
    at = long.index("17.42.170")
    cut = passage_around(long, at, at + 9, limit=60)
    assert "17.42.170" in cut and cut.startswith("…") and cut.endswith("…") and len(cut) <= 62


def test_graph_resolves_each_target_to_loaded_or_not():
    graph = build_graph(SECTIONS, codified=frozenset({"17.20"}))
    assert graph.chapters == {"17.20": "loaded", "17.60": "partly loaded", "17.62": "partly loaded", "17.88": "partly loaded"}
    status = {(t.kind, t.target): t.status for t in graph.targets}
    assert status == {("chapter", "17.84"): "not loaded", ("section", "17.42.170"): "not loaded",
                      ("article", "9"): "unresolved", ("chapter", "17.88"): "partly loaded",
                      ("section", "17.62.070"): "loaded"}  # 17.88.040 citing itself is no reference
    appeals = graph.target("chapter", "17.84")
    assert appeals.label == "Chapter 17.84 (Appeals)" and appeals.cited_by[0].section == "17.62.070"
    assert graph.target("section", "17.62.070").name == "Title of 17.62.070"  # a loaded section by its own title
    assert [t.target for t in graph.missing()] == ["17.84", "17.42.170"]


def test_cited_missing_needs_the_question_to_be_about_it():
    graph = build_graph(SECTIONS)
    found = cited_missing("how do I appeal a denial?", ["17.62.070"], graph)
    assert [(t.label, r.section) for t, r in found][0] == ("Chapter 17.84 (Appeals)", "17.62.070")
    assert cited_missing("how do I appeal a denial?", ["17.60.040"], graph) == []  # not cited by the nearest sections
    assert cited_missing("how tall can a fence be?", ["17.62.070"], graph) == []
    assert [t.target for t, _ in cited_missing("accessory dwelling unit size", ["17.62.070"], graph)] == ["17.42.170"]


def test_a_decline_names_what_is_cited_but_not_loaded_with_the_citing_passage():
    corpus = SimpleNamespace(section=lambda sid, doc=None: next((s for s in SECTIONS if s.id == sid), None),
                             document_label=lambda d: d, references=lambda: build_graph(SECTIONS))
    query = Query(text="Can I appeal the Commission's denial?", normalized="")
    answer = compose.abstain(query, ["17.62.070"], corpus=corpus, first=compose.UNSURE_LINE)
    lines = answer.answer.split("\n")
    assert answer.abstained and lines[0] == compose.UNSURE_LINE
    assert lines[1].startswith("Not loaded: Chapter 17.84 (Appeals), which the loaded text cites but does not contain — "
                               "§ 17.62.070 Title of 17.62.070: \"A Commission denial")
    assert lines[2].startswith("Nearest sections: § 17.62.070")
    plain = compose.abstain(Query(text="how tall can a fence be?", normalized=""), ["17.62.070"], corpus=corpus)
    assert not any(line.startswith("Not loaded") for line in plain.answer.split("\n"))


def test_coverage_summary_and_json():
    documents = [DocumentInfo("003", "c.txt", "Codified Chapter 17.20 text", "codified chapter", "2026-05-11",
                              chapter="17.20", short_title="Codified Chapter 17.20"),
                 DocumentInfo("002", "o.txt", "Ordinance 939", "ordinance", "2025-12-09", short_title="Ord. 939")]
    versions = [SimpleNamespace(document="002", table="6-1", section="17.60.040"),
                SimpleNamespace(document="002", table="2-17", section="17.24.030"),
                SimpleNamespace(document="003", table="2-1", section="17.20.020")]
    found = build_coverage(documents, SECTIONS, versions, build_graph(SECTIONS, frozenset({"17.20"})))
    assert [d.id for d in found.documents] == ["002", "003"]
    assert found.documents[0].tables == (("2-17", "17.24.030"), ("6-1", "17.60.040"))
    assert summary_line(found) == ("2 documents dated 2025-12-09 to 2026-05-11: 1 ordinance and codified Chapter 17.20; "
                                   "Tables 2-1 to 6-1 as amended")
    data = found.to_json()
    assert [t["target"] for t in data["cited_not_loaded"]] == ["17.84", "17.42.170"]
    assert data["loaded_sections"] == ["17.20.020", "17.60.040", "17.62.070", "17.88.040"]


def test_coverage_cli_lists_the_cited_but_missing_appeals_chapter_and_adu_section():
    done = subprocess.run([sys.executable, "-m", "assistant", "coverage", "--json"], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    missing = {t["target"]: t for t in data["cited_not_loaded"]}
    assert missing["17.84"]["name"] == "Appeals" and "17.42.170" in missing
    assert "17.42.170" not in data["loaded_sections"] and "17.22.020" in data["loaded_sections"]
    assert {d["date"] for d in data["documents"]} == {"2023-12-06", "2026-02-12", "2026-05-11", "2026-09-10"}
