"""``python -m eval``: bad input through the real entry point, and whole runs in-process with a
fake assistant and a fake search (no model, no index)."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

import eval.run as eval_run
from eval.__main__ import main

ROOT = Path(__file__).resolve().parents[1]

ITEMS = [
    {"id": "q001", "question": "granny unit in NL?", "category": "permit_table", "expected_answer": "Permitted (P).",
     "expected_facts": ["P"], "contradicting_facts": ["not allowed"], "expected_sections": ["17.22.020"], "abstain": False},
    {"id": "q002", "question": "bar in CE?", "category": "permit_table", "expected_answer": "Use permit (UP).",
     "expected_facts": ["UP"], "contradicting_facts": ["not allowed"], "expected_sections": ["17.22.020"], "abstain": False},
    {"id": "q003", "question": "how tall can a fence be", "category": "standards", "expected_answer": "6 feet.",
     "expected_facts": ["6 feet"], "expected_sections": ["17.30.030"], "abstain": False},
    {"id": "q004", "question": "what are the quiet hours", "category": "out_of_scope", "expected_answer": "Not covered.",
     "expected_facts": [], "expected_sections": [], "abstain": True},
]
GOOD = {  # question -> (first line, abstained, cited section)
    "granny unit in NL?": ("Permitted (P) in NL.", False, "17.22.020"),
    "bar in CE?": ("Use permit (UP) required.", False, "17.22.020"),
    "how tall can a fence be": ("Fences may be 6 feet tall.", False, "17.30.030"),
    "what are the quiet hours": ("The code does not cover this.", True, "17.30.030"),
}


def answer(question, good=True):
    text, abstained, section = GOOD[question]
    if not good and question == "bar in CE?":
        text = "Not allowed in CE."
    return {"question": question, "answer": text + "\nSee the table.", "abstained": abstained,
            "citations": [{"section": section, "title": "", "document": "000", "date": "", "quote": ""}],
            "lookups": [], "timing_ms": 2.0}


@pytest.fixture
def files(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(answer(i["question"])) + "\n" for i in ITEMS), encoding="utf-8")
    base = tmp_path / "baseline.json"
    base.write_text(json.dumps({"comment": "placeholder", "answer_accuracy": 0.0, "citation_recall": 0.0,
                                "abstention_accuracy": 0.0}), encoding="utf-8")
    return types.SimpleNamespace(dir=tmp_path, gold=gold, answers=answers, baseline=base, report=tmp_path / "rep" / "report.md")


@pytest.fixture
def fakes(monkeypatch):
    """Replace the real assistant and index with fakes; record the calls."""
    calls = {"ask": [], "search": []}

    def default_ask():
        def ask(q):
            calls["ask"].append(q)
            return answer(q)
        return ask

    def default_search(index_dir=None):
        def search(q, k, mode):
            calls["search"].append((q, k, mode))
            return [{"section": "17.44.040"}, {"section": "17.30.030" if "fence" in q else "17.22.020"}] if mode != "dense" else []
        return search

    monkeypatch.setattr(eval_run, "default_ask", default_ask)
    monkeypatch.setattr(eval_run, "default_search", default_search)
    return calls


def cli(*args):
    return subprocess.run([sys.executable, "-m", "eval", *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=120)


# -- bad input: one line naming the file (and line), exit status 2 --------------------------------
@pytest.mark.parametrize(
    "case, expected",
    [
        ("missing_gold", "missing.jsonl: gold file not found"),
        ("bad_json", "gold.jsonl line 2: not valid JSON"),
        ("missing_field", "gold.jsonl line 3: missing field 'expected_facts'"),
        ("bad_answers", "answers.jsonl line 2: not valid JSON"),
        ("short_answers", "answers.jsonl: 1 answers for 4 questions"),
        ("bad_baseline", "baseline.json: not a valid JSON file"),
    ],
)
def test_bad_input_exits_2_with_one_line(files, case, expected):
    args = ["--gold", files.gold, "--answers", files.answers, "--no-retrieval", "--no-report"]
    lines = files.gold.read_text().splitlines()
    if case == "missing_gold":
        args[1] = files.dir / "missing.jsonl"
    elif case == "bad_json":
        files.gold.write_text(lines[0] + "\n{\"id\": \n", encoding="utf-8")
    elif case == "missing_field":
        obj = json.loads(lines[2])
        del obj["expected_facts"]
        files.gold.write_text("\n".join(lines[:2] + [json.dumps(obj)]) + "\n", encoding="utf-8")
    elif case == "bad_answers":
        files.answers.write_text(files.answers.read_text().splitlines()[0] + "\nnot json\n", encoding="utf-8")
    elif case == "short_answers":
        files.answers.write_text(files.answers.read_text().splitlines()[0] + "\n", encoding="utf-8")
    elif case == "bad_baseline":
        files.baseline.write_text("{", encoding="utf-8")
        args += ["--check", "--baseline", files.baseline]
    proc = cli(*args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and expected in err[0], proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "args",
    [["--limit", "0"], ["--force"], ["--update-baseline", "--limit", "2"], ["--no-answers", "--no-retrieval"],
     ["--answers", "a.jsonl", "--no-answers"], ["--check", "--no-answers"]],
)
def test_bad_options_exit_2(args):
    proc = cli(*args)
    assert proc.returncode == 2 and "error:" in proc.stderr and "Traceback" not in proc.stderr


def test_saved_answers_through_the_real_entry_point(files):
    proc = cli("--gold", files.gold, "--answers", files.answers, "--no-retrieval", "--json", "--report", files.report)
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    assert s["questions"] == 4 and s["answer_accuracy"] == 1.0 and s["citation_recall"] == 1.0
    assert s["abstention_accuracy"] == 1.0 and s["citation_precision"] == 1.0
    assert s["recall@5"] == {"bm25": None, "dense": None, "hybrid": None}
    assert s["latency_ms"]["p50"] == 2.0 and s["latency_ms"]["source"] == "timing_ms"
    assert files.report.exists()


# -- whole runs in-process with fakes -------------------------------------------------------------
def test_json_run_has_every_metric(files, fakes, capsys):
    status = main(["--gold", str(files.gold), "--json", "--report", str(files.report)])
    assert status == 0
    s = json.loads(capsys.readouterr().out)
    for key in ("questions", "answer_accuracy", "citation_precision", "citation_recall", "abstention_accuracy",
                "abstention_precision", "abstention_recall", "latency_ms", "by_category", "misses"):
        assert key in s, key
    assert s["recall@5"] == {"bm25": 1.0, "dense": 0.0, "hybrid": 1.0}
    assert s["mrr@10"] == {"bm25": 0.5, "dense": 0.0, "hybrid": 0.5}
    assert set(s["latency_ms"]) >= {"p50", "p95"}
    assert list(s["by_category"]) == ["permit_table", "standards", "out_of_scope"]
    assert fakes["ask"] == [i["question"] for i in ITEMS]
    assert len(fakes["search"]) == 3 * 3 and all(k == 10 for _, k, _ in fakes["search"])
    assert files.report.exists()
    assert files.report.with_name("report_accuracy.png").exists() == _has_mpl()


def _has_mpl():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def test_table_run_limit_and_no_retrieval(files, fakes, capsys):
    assert main(["--gold", str(files.gold), "--limit", "2", "--no-retrieval", "--no-report"]) == 0
    out = capsys.readouterr().out
    assert "questions             2 (2 answerable)" in out and "answer accuracy       1.000 (2/2)" in out
    assert fakes["search"] == [] and not files.report.exists()


def test_retrieval_only_run(files, fakes, capsys):
    assert main(["--gold", str(files.gold), "--no-answers", "--json", "--no-report"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert fakes["ask"] == [] and s["answer_accuracy"] is None and s["recall@5"]["hybrid"] == 1.0


def test_update_baseline_raises_keeps_and_forces(files, fakes, capsys):
    base = str(files.baseline)
    assert main(["--gold", str(files.gold), "--no-retrieval", "--no-report", "--baseline", base, "--update-baseline"]) == 0
    rec = json.loads(files.baseline.read_text())
    assert (rec["answer_accuracy"], rec["citation_recall"], rec["abstention_accuracy"]) == (1.0, 1.0, 1.0)
    assert rec["questions"] == 4 and len(rec["gold_sha256"]) == 64

    # a worse run (q002 now contradicts itself) keeps the record and fails --check
    worse = files.dir / "worse.jsonl"
    worse.write_text("".join(json.dumps(answer(i["question"], good=False)) + "\n" for i in ITEMS), encoding="utf-8")
    common = ["--gold", str(files.gold), "--answers", str(worse), "--no-retrieval", "--no-report", "--baseline", base]
    assert main(common + ["--update-baseline"]) == 0
    assert json.loads(files.baseline.read_text())["answer_accuracy"] == 1.0
    capsys.readouterr()
    assert main(common + ["--check"]) == 1
    assert "below baseline: answer_accuracy: 0.7500 < recorded 1.0000" in capsys.readouterr().err
    assert main(common + ["--update-baseline", "--force"]) == 0
    assert json.loads(files.baseline.read_text())["answer_accuracy"] == 0.75
    assert main(common + ["--check"]) == 0


def test_missing_assistant_is_one_line_exit_1(files, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "assistant", types.ModuleType("assistant"))  # no load_assistant
    assert main(["--gold", str(files.gold), "--no-retrieval", "--no-report"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot import assistant.load_assistant" in err[0]


def test_assistant_failure_names_the_item(files, monkeypatch, capsys):
    def default_ask():
        def ask(q):
            raise KeyError("Table 2-4")
        return ask

    monkeypatch.setattr(eval_run, "default_ask", default_ask)
    assert main(["--gold", str(files.gold), "--no-retrieval", "--no-report"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: gold item q001 (line 1): the assistant raised KeyError: 'Table 2-4'"]
