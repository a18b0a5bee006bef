"""The report writer: markdown content, PNG chart, atomic writes, life without matplotlib."""

from __future__ import annotations

import sys

import pytest

from eval import atomic, report
from eval.gold import GoldItem
from eval.records import AnswerView, ItemResult
from eval.score import summarize


def _item(id_, category, question, abstain=False, facts=("UP",)):
    return GoldItem(
        id=id_, question=question, category=category, expected_answer="Use permit (UP) required.\nSee 17.42.060.",
        expected_facts=() if abstain else facts, expected_sections=() if abstain else ("17.22.020",), abstain=abstain,
        contradicting_facts=("not allowed",),
    )


def _ans(text, abstained=False, sections=("17.22.020",)):
    return AnswerView(text=text, abstained=abstained, cited_sections=sections, timing_ms=12.0)


HITS = {"bm25": ("17.22.020",), "dense": ("17.44.040",), "hybrid": ("17.22.020",)}


@pytest.fixture
def summary():
    results = [
        ItemResult(_item("q1", "permit_table", "daycare in NU?"), _ans("Use permit (UP) required."), retrieved=HITS),
        ItemResult(_item("q2", "permit_table", "bar | pub in CE?"), _ans("Not allowed | nope\nsecond line", sections=()), retrieved=HITS),
        ItemResult(_item("q3", "standards", "fence height?", facts=("6 feet",)), _ans("Not covered.", abstained=True), retrieved=HITS),
        ItemResult(_item("q4", "out_of_scope", "quiet hours?", abstain=True), _ans("Quiet hours are 10pm.")),
    ]
    return summarize(results)


def test_markdown_has_summary_retrieval_categories_and_grouped_misses(summary):
    md = report.render_markdown(summary, gold="g.jsonl", chart="report_accuracy.png")
    assert md.startswith("# Evaluation report\n")
    assert "Gold set `g.jsonl`: 4 questions, 3 answerable." in md
    assert "| answer accuracy | 0.250 (1/4) |" in md
    assert "| citation recall | 0.667 |" in md
    assert "| latency (ms) | p50 12.0, p95 12.0 (timing_ms, n=4) |" in md
    assert "| bm25 | 1.000 | 1.000 |" in md and "| dense | 0.000 | 0.000 |" in md
    assert "| permit_table | 2 | 0.500 (1/2) |" in md
    assert "![Answer accuracy by category](report_accuracy.png)" in md
    # misses grouped by category, in category order, with question / expected / got / reason
    pt, st, oos = (md.index(f"### {c}") for c in ("permit_table (1 of 2)", "standards (1 of 1)", "out_of_scope (1 of 1)"))
    assert pt < st < oos
    assert ("| q2 | bar \\| pub in CE? | Use permit (UP) required. | Not allowed \\| nope | - | "
            "missing 'UP'; first line contradicts: 'not allowed' |") in md
    assert "| q3 | fence height? | Use permit (UP) required. | (abstained) Not covered. | 17.22.020 | abstained |" in md
    assert "| q4 | quiet hours? | (abstain) | Quiet hours are 10pm. | 17.22.020 | answered instead of abstaining |" in md
    assert "q1 |" not in md


def test_markdown_without_answers():
    s = summarize([ItemResult(_item("q1", "permit_table", "x"), None, retrieved=HITS)])
    md = report.render_markdown(s)
    assert "Answers were not collected in this run." in md and "![" not in md


def test_table_for_stdout(summary):
    text = report.format_table(summary)
    assert "answer accuracy       0.250 (1/4)" in text
    assert "hybrid" in text and "permit_table" in text and "misses: 3" in text


def test_write_report_writes_markdown_and_png_atomically(summary, tmp_path):
    pytest.importorskip("matplotlib")
    md = tmp_path / "out" / "report.md"
    written, warnings = report.write_report(summary, md, gold="g.jsonl")
    png = tmp_path / "out" / "report_accuracy.png"
    assert written == [md, png] and warnings == []
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "](report_accuracy.png)" in md.read_text(encoding="utf-8")
    assert sorted(p.name for p in md.parent.iterdir()) == ["report.md", "report_accuracy.png"]  # no temp files left


def test_chart_is_deterministic(summary):
    pytest.importorskip("matplotlib")
    assert report.render_chart(summary) == report.render_chart(summary)


def test_report_without_matplotlib_still_writes_markdown(summary, tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib...` raise ImportError
    written, warnings = report.write_report(summary, tmp_path / "r.md")
    assert written == [tmp_path / "r.md"]
    assert warnings and "matplotlib is not installed" in warnings[0]
    assert "![" not in (tmp_path / "r.md").read_text(encoding="utf-8")


def test_atomic_write_replaces_and_cleans_up_on_failure(tmp_path, monkeypatch):
    p = tmp_path / "f.txt"
    atomic.write_text(p, "old")
    atomic.write_text(p, "new")
    assert p.read_text() == "new"

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(OSError):
        atomic.write_text(p, "newer")
    assert p.read_text() == "new"
    assert [f.name for f in tmp_path.iterdir()] == ["f.txt"]
