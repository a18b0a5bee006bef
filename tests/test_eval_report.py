"""The report writer: the side-by-side markdown (summary, baselines, risk-coverage, misses per set),
the stdout table, deterministic PNG charts, atomic writes, life without matplotlib."""

from __future__ import annotations

import sys

import pytest

from eval import atomic, report
from eval.gold import GoldItem
from eval.records import AnswerView, ItemResult
from eval.score import compare, summarize


def _item(id_, category, question, abstain=False, facts=("UP",), group=None):
    return GoldItem(
        id=id_, question=question, category=category, expected_answer="Use permit (UP) required.\nSee 17.42.060.",
        expected_facts=() if abstain else facts, expected_sections=() if abstain else ("17.22.020",), abstain=abstain,
        contradicting_facts=("not allowed",), group=group,
    )


def _ans(text, abstained=False, sections=("17.22.020",)):
    return AnswerView(text=text, abstained=abstained, cited_sections=sections, timing_ms=12.0)


HITS = {"bm25": ("17.22.020",), "dense": ("17.44.040",), "hybrid": ("17.22.020",)}


def _dev():
    return summarize([
        ItemResult(_item("q1", "permit_table", "daycare in NU?"), _ans("Use permit (UP) required."), retrieved=HITS),
        ItemResult(_item("q2", "permit_table", "bar | pub in CE?"), _ans("Not allowed | nope\nsecond line", sections=()), retrieved=HITS),
        ItemResult(_item("q3", "standards", "fence height?", facts=("6 feet",)), _ans("Not covered.", abstained=True), retrieved=HITS),
        ItemResult(_item("q4", "out_of_scope", "quiet hours?", abstain=True), _ans("Quiet hours are 10pm.")),
    ])


def _test():
    return summarize([
        ItemResult(_item("t1", "permit_table", "daycare NU?", group="G1"), _ans("Use permit (UP) required."), retrieved=HITS),
        ItemResult(_item("t2", "permit_table", "day care in NU", group="G1"), _ans("Use permit (UP) required."), retrieved=HITS),
        ItemResult(_item("t3", "out_of_scope", "license fee?", abstain=True), _ans("Not covered.", abstained=True)),
    ])


def _baseline(accuracy, wrong_rate):
    return {"questions": 4, "correct": None, "wrong": None, "accuracy": accuracy, "wrong_rate": wrong_rate,
            "abstention_recall": None, "citation_recall": None}


@pytest.fixture
def summary():
    """Composed the way ``python -m eval`` composes it."""
    sets = {"dev": _dev(), "test": _test()}
    return {**sets["dev"], "sets": list(sets), **sets, **compare(sets),
            "baselines": {"dev": {"always abstain": _baseline(0.25, 0.0), "top BM25 passage": _baseline(0.5, 0.5)},
                          "test": {"always abstain": _baseline(1 / 3, 0.0), "top BM25 passage": _baseline(0.0, 1.0)}},
            "beats_baselines": {"dev": False, "test": True}}


def test_the_fixture_is_what_it_claims(summary):
    assert (summary["dev"]["correct"], summary["dev"]["wrong"], summary["dev"]["abstained"]) == (1, 2, 1)
    assert summary["test"]["accuracy"] == 1.0 and summary["generalization_gap"] == pytest.approx(-0.75)


def test_markdown_summary_side_by_side(summary):
    md = report.render_markdown(summary, sources={"dev": "eval/dev.jsonl", "test": "eval/test.jsonl"})
    assert md.startswith("# Evaluation report\n")
    assert ("- **dev** (`eval/dev.jsonl`): 4 questions, 3 answerable; answers scored; retrieval bm25, dense, hybrid."
            in md)
    assert "- **test** (`eval/test.jsonl`): 3 questions, 2 answerable;" in md
    assert "| metric | dev | test |\n|---|---|---|\n" in md
    assert "| accuracy | 0.250 [0.046-0.699] (1/4) | 1.000 [0.439-1.000] (3/3) |" in md
    assert "| wrong-answer rate | 0.500 [0.150-0.850] (2/4) | 0.000 [0.000-0.561] (0/3) |" in md
    assert "| abstained (answerable) | 1 | 0 |" in md
    assert "| accuracy when answering | 0.333 [0.061-0.792] | 1.000 [0.342-1.000] |" in md
    assert "| abstention recall | 0.000 [0.000-0.793] | 1.000 [0.207-1.000] |" in md
    assert "| paraphrase consistency | n/a (no groups) | 1.000 all right, 1.000 agree (1 groups) |" in md
    # dev curve: q1 right, q2 wrong, q4 wrong (no confidence: set order) -> risks 0, 1/2, 2/3
    assert f"| AURC (lower is better) | {(0 + 1 / 2 + 2 / 3) / 3:.3f} | 0.000 |" in md
    # a rightly declined question is right, so it is on the curve: test covers 3 of 3 at risk 0
    assert "| coverage at risk <= 0.03 | 0.250 | 0.667 |" in md  # the test set's rightly declined question is not an answer
    assert "| generalization gap (dev - test accuracy) | -0.750 | |" in md
    assert "## Retrieval (dev)" in md and "## Retrieval (test)" in md


def test_markdown_baselines_table(summary):
    md = report.render_markdown(summary)
    assert "## Baselines" in md
    assert "| answerer | dev accuracy | dev wrong | test accuracy | test wrong |" in md
    assert "| **assistant** | 0.250 | 0.500 | 1.000 | 0.000 |" in md
    assert "| always abstain | 0.250 | 0.000 | 0.333 | 0.000 |" in md
    assert "| top BM25 passage | 0.500 | 0.500 | 0.000 | 1.000 |" in md


def test_markdown_links_the_charts_only_when_given(summary):
    md = report.render_markdown(summary, chart="report_accuracy.png", curve="report_risk_coverage.png")
    assert "## Risk-coverage" in md and "![Risk-coverage curve](report_risk_coverage.png)" in md
    assert "![Accuracy by category](report_accuracy.png)" in md
    bare = report.render_markdown(summary)
    assert "![" not in bare and "## Risk-coverage" not in bare


def test_markdown_misses_per_set_with_outcome_and_answer_given(summary):
    md = report.render_markdown(summary)
    dev_at, test_at = md.index("## Misses (dev)"), md.index("## Misses (test)")
    assert dev_at < test_at
    dev_part = md[dev_at:test_at]
    # grouped by category, in category order
    pt, st, oos = (dev_part.index(f"### dev: {c}") for c in ("permit_table (1 of 2)", "standards (1 of 1)", "out_of_scope (1 of 1)"))
    assert pt < st < oos
    assert "| id | outcome | question | expected | answer given (first line) | cited | why |" in dev_part
    assert ("| q2 | wrong | bar \\| pub in CE? | Use permit (UP) required. | Not allowed \\| nope | - | "
            "missing 'UP'; contradicts: 'not allowed'; cites none of 17.22.020 |") in dev_part
    assert "| q3 | abstained | fence height? | Use permit (UP) required. | (abstained) Not covered. | 17.22.020 | abstained |" in dev_part
    assert "| q4 | wrong | quiet hours? | (abstain) | Quiet hours are 10pm. | 17.22.020 | answered instead of abstaining |" in dev_part
    assert "| q1 |" not in md
    assert md[test_at:].startswith("## Misses (test)\n\nNone: every question was answered right.")


def test_markdown_cells_are_cut_and_escaped():
    long = "word " * 100
    s = summarize([ItemResult(_item("q1", "definition", "x", facts=("family",)), _ans(long + "\\ end"))], modes=())
    md = report.render_markdown(s)
    row = next(line for line in md.splitlines() if line.startswith("| q1 |"))
    got = row.split(" | ")[4]
    assert len(got) == 160 and got.endswith("…")


def test_markdown_of_a_one_set_summary_without_sets():
    s = _dev()  # a summary of one set, as ``score.summarize`` returns it
    md = report.render_markdown(s)
    assert "| metric | dev |" in md and "## Misses (dev)" in md and "generalization gap" not in md


def test_markdown_without_answers():
    s = summarize([ItemResult(_item("q1", "permit_table", "x"), None, retrieved=HITS)])
    md = report.render_markdown(s)
    assert "answers not collected" in md and "Answers were not collected in this run." in md and "![" not in md


def test_table_for_stdout(summary):
    text = report.format_table(summary)
    lines = text.splitlines()
    assert lines[0].split() == ["dev", "test"]
    row = next(line for line in lines if line.startswith("accuracy "))
    assert row.split() == ["accuracy", "0.250", "[0.046-0.699]", "(1/4)", "1.000", "[0.439-1.000]", "(3/3)"]
    assert "generalization gap" in text and "-0.750 (dev accuracy - test accuracy)" in text
    assert "baselines on dev:" in text and "baselines on test:" in text
    assert "always abstain" in text and "accuracy 0.250  wrong 0.000" in text
    assert "dev by category" in text and "test by category" in text
    assert "misses: dev 3, test 0 (listed in the report)" in text


def test_write_report_writes_markdown_and_both_charts_atomically(summary, tmp_path):
    pytest.importorskip("matplotlib")
    md = tmp_path / "out" / "report.md"
    written, warnings = report.write_report(summary, md, sources={"dev": "d.jsonl", "test": "t.jsonl"})
    png, curve = tmp_path / "out" / "report_accuracy.png", tmp_path / "out" / "report_risk_coverage.png"
    assert written == [md, png, curve] and warnings == []
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and curve.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    text = md.read_text(encoding="utf-8")
    assert "](report_accuracy.png)" in text and "](report_risk_coverage.png)" in text and "`d.jsonl`" in text
    assert sorted(p.name for p in md.parent.iterdir()) == ["report.md", "report_accuracy.png", "report_risk_coverage.png"]


def test_write_report_is_deterministic(summary, tmp_path):
    pytest.importorskip("matplotlib")
    first = [p.read_bytes() for p in report.write_report(summary, tmp_path / "a" / "r.md")[0]]
    second = [p.read_bytes() for p in report.write_report(summary, tmp_path / "b" / "r.md")[0]]
    assert first == second


def test_charts_are_deterministic(summary):
    pytest.importorskip("matplotlib")
    assert report.render_chart(summary) == report.render_chart(summary)
    assert report.render_curve(summary) == report.render_curve(summary)
    assert report.render_chart(summary) != report.render_chart({**summary, "sets": ["dev"]})


def test_charts_refuse_a_summary_without_answers():
    pytest.importorskip("matplotlib")
    s = summarize([ItemResult(_item("q1", "permit_table", "x"), None, retrieved=HITS)])
    with pytest.raises(ValueError):
        report.render_chart(s)
    with pytest.raises(ValueError):
        report.render_curve(s)


def test_report_without_matplotlib_still_writes_markdown(summary, tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib...` raise ImportError
    written, warnings = report.write_report(summary, tmp_path / "r.md")
    assert written == [tmp_path / "r.md"]
    assert warnings == ["matplotlib is not installed: the charts were not written (pip install matplotlib)"]
    text = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "![" not in text and "## Misses (dev)" in text and "| metric | dev | test |" in text
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]


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
