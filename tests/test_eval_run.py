"""The gold loader, the runner (with fake assistant and fake search), saved answers, the baseline
record. Hermetic and fast: no model, no index, no assistant."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from eval import baseline
from eval.gold import DEFAULT_GOLD, EvalError, GoldError, InputError, load_gold
from eval.records import MODES
from eval.run import load_answers, run

ITEMS = [
    {"id": "q001", "question": "granny unit in NL?", "category": "permit_table", "expected_answer": "Permitted (P).\nSee 17.42.170.",
     "expected_facts": ["P"], "contradicting_facts": ["not allowed"], "expected_sections": ["17.22.020"], "abstain": False},
    {"id": "q002", "question": "how tall can a fence be", "category": "standards", "expected_answer": "6 feet.",
     "expected_facts": ["6 feet"], "expected_sections": ["17.30.030"], "abstain": False},
    {"id": "q003", "question": "what are the quiet hours", "category": "out_of_scope", "expected_answer": "Not covered.",
     "expected_facts": [], "expected_sections": [], "abstain": True},
]


def write_gold(path, items=ITEMS):
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


@pytest.fixture
def gold(tmp_path):
    return load_gold(write_gold(tmp_path / "gold.jsonl"))


# -- gold loader ----------------------------------------------------------------------------------
def test_shipped_gold_set_loads():
    items = load_gold(DEFAULT_GOLD)
    assert len(items) >= 160
    assert all(i.line >= 1 for i in items)
    assert {i.abstain for i in items} == {True, False}


def test_gold_items_keep_line_numbers_and_skip_blank_lines(tmp_path):
    p = tmp_path / "g.jsonl"
    p.write_text(json.dumps(ITEMS[0]) + "\n\n" + json.dumps(ITEMS[1]) + "\n", encoding="utf-8")
    items = load_gold(p)
    assert [(i.id, i.line) for i in items] == [("q001", 1), ("q002", 3)]
    assert items[0].contradicting_facts == ("not allowed",) and items[1].contradicting_facts == ()
    assert items[0].expected_first_line == "Permitted (P)."


@pytest.mark.parametrize(
    "content, message",
    [
        (json.dumps(ITEMS[0]) + "\n{not json\n", "line 2: not valid JSON"),
        (json.dumps(ITEMS[0]) + "\n[1, 2]\n", "line 2: not a JSON object"),
        (json.dumps({k: v for k, v in ITEMS[0].items() if k != "question"}) + "\n", "line 1: missing field 'question'"),
        (json.dumps({**ITEMS[0], "abstain": "no"}) + "\n", "line 1: field 'abstain' must be true or false"),
        (json.dumps({**ITEMS[0], "expected_facts": "P"}) + "\n", "line 1: field 'expected_facts' must be a list of non-empty strings"),
        (json.dumps({**ITEMS[0], "expected_facts": []}) + "\n", "line 1: an answerable item needs at least one expected fact"),
        (json.dumps(ITEMS[0]) + "\n" + json.dumps(ITEMS[0]) + "\n", "line 2: id 'q001' already used on line 1"),
        ("\n\n", "no gold items"),
    ],
)
def test_gold_errors_name_file_and_line(tmp_path, content, message):
    p = tmp_path / "bad.jsonl"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(GoldError) as exc:
        load_gold(p)
    assert "bad.jsonl" in str(exc.value) and message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_gold_missing_and_not_utf8(tmp_path):
    with pytest.raises(GoldError, match="nope.jsonl: gold file not found"):
        load_gold(tmp_path / "nope.jsonl")
    p = tmp_path / "latin.jsonl"
    p.write_bytes(json.dumps(ITEMS[0]).encode() + b"\n{\"id\": \"caf\xe9\"}\n")
    with pytest.raises(GoldError, match=r"latin.jsonl line 2: not UTF-8"):
        load_gold(p)


# -- runner ---------------------------------------------------------------------------------------
def fake_answer(question, abstained=False):
    return {"question": question, "answer": "Permitted (P).\nSee 17.42.170.", "abstained": abstained,
            "citations": [{"section": "17.22.020", "title": "t", "document": "000", "date": "2023-11-06", "quote": "q"}],
            "lookups": [], "timing_ms": 3.5}


def test_run_asks_each_question_and_measures_wall_time(gold):
    asked = []

    def ask(q):
        asked.append(q)
        return fake_answer(q, abstained=q.startswith("what"))

    results = run(gold, ask=ask)
    assert asked == [i.question for i in gold]
    assert [r.answer.abstained for r in results] == [False, False, True]
    assert all(r.wall_ms is not None and r.wall_ms >= 0 for r in results)
    assert results[0].answer.cited_sections == ("17.22.020",) and results[0].answer.timing_ms == 3.5
    assert all(r.retrieved == {} for r in results)


def test_run_accepts_answer_objects_with_to_dict(gold):
    results = run(gold, ask=lambda q: SimpleNamespace(to_dict=lambda: fake_answer(q)))
    assert results[1].answer.first_line == "Permitted (P)."


def test_run_searches_answerable_items_in_every_mode(gold):
    calls = []

    def search(query, k, mode):
        calls.append((query, k, mode))
        # Hit-like objects, dicts and strings all work; more than 10 hits are cut to 10
        return [SimpleNamespace(section="17.44.040"), {"section": "17.22.020"}] + ["17.30.030"] * 12

    results = run(gold, ask=fake_answer, search=search)
    assert calls == [(i.question, 10, m) for i in gold if not i.abstain for m in MODES]
    assert results[0].retrieved["hybrid"] == ("17.44.040", "17.22.020") + ("17.30.030",) * 8
    assert results[2].retrieved == {}


def test_run_retrieval_only(gold):
    results = run(gold, search=lambda q, k, m: ["17.22.020"])
    assert all(r.answer is None for r in results)


def test_run_names_the_item_when_the_assistant_raises(gold):
    def ask(q):
        if "fence" in q:
            raise RuntimeError("index missing")
        return fake_answer(q)

    with pytest.raises(EvalError, match=r"^gold item q002 \(line 2\): the assistant raised RuntimeError: index missing$"):
        run(gold, ask=ask)


def test_run_names_the_item_when_search_raises(gold):
    def search(q, k, mode):
        raise ValueError("bad query")

    with pytest.raises(EvalError, match=r"q001 \(line 1\): bm25 search raised ValueError: bad query"):
        run(gold, ask=fake_answer, search=search)


def test_run_rejects_a_malformed_live_answer(gold):
    with pytest.raises(EvalError, match="gold item q001 .*no true/false field 'abstained'"):
        run(gold, ask=lambda q: {"answer": "x"})


# -- saved answers --------------------------------------------------------------------------------
def write_answers(path, objs):
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs), encoding="utf-8")
    return path


def test_saved_answers_are_scored_in_gold_order(gold, tmp_path):
    p = write_answers(tmp_path / "a.jsonl", [fake_answer(i.question) for i in gold])
    results = run(gold, answers=load_answers(p))
    assert [r.answer.first_line for r in results] == ["Permitted (P)."] * 3
    assert all(r.wall_ms is None for r in results)


@pytest.mark.parametrize(
    "lines, message",
    [
        (["{oops"], r"a.jsonl line 1: not valid JSON"),
        ([fake_answer("granny unit in NL?")], r"saved: 1 answers for 3 questions"),
        ([fake_answer("granny unit in NL?"), fake_answer("other question"), fake_answer("x")],
         r"a.jsonl line 2: answer is for 'other question', but gold item q002 asks 'how tall can a fence be'"),
        ([fake_answer("granny unit in NL?"), {"question": "how tall can a fence be", "answer": 1}, fake_answer("x")],
         r"a.jsonl line 2: answer object has no text field 'answer'"),
    ],
)
def test_saved_answer_errors_are_input_errors(gold, tmp_path, lines, message):
    p = write_answers(tmp_path / "a.jsonl", lines)
    with pytest.raises(InputError, match=message):
        run(gold, answers=load_answers(p), answers_source="saved")


def test_saved_answers_missing_file(tmp_path):
    with pytest.raises(InputError, match="none.jsonl: answers file not found"):
        load_answers(tmp_path / "none.jsonl")


# -- baseline record ------------------------------------------------------------------------------
RECORD = {"comment": "x", "answer_accuracy": 0.5, "citation_recall": 0.6, "abstention_accuracy": 0.7}


def test_shipped_baseline_is_valid():
    record = baseline.load(baseline.DEFAULT_BASELINE)
    assert set(baseline.GATED) <= set(record) and record["comment"]


def test_check_lists_figures_below_the_record():
    ok = {"answer_accuracy": 0.5, "citation_recall": 0.9, "abstention_accuracy": 0.7}
    assert baseline.check(ok, RECORD) == []
    bad = {"answer_accuracy": 0.4, "citation_recall": None, "abstention_accuracy": 0.8}
    assert baseline.check(bad, RECORD) == [
        "answer_accuracy: 0.4000 < recorded 0.5000",
        "citation_recall: not measured (recorded 0.6000)",
    ]


def test_update_raises_but_never_lowers_without_force():
    summary = {"answer_accuracy": 0.8, "citation_recall": 0.5, "abstention_accuracy": 0.7, "questions": 3}
    new, changes = baseline.updated(RECORD, summary, gold_sha256="abc", today="2026-01-02")
    assert (new["answer_accuracy"], new["citation_recall"], new["abstention_accuracy"]) == (0.8, 0.6, 0.7)
    assert new["questions"] == 3 and new["gold_sha256"] == "abc" and new["recorded"] == "2026-01-02"
    assert new["comment"] == baseline.RECORDED_COMMENT
    assert changes == ["answer_accuracy: 0.5000 -> 0.8000",
                       "citation_recall: 0.5000 is below the record 0.6000; kept (use --force to lower it)"]
    forced, _ = baseline.updated(RECORD, summary, force=True)
    assert forced["citation_recall"] == 0.5


def test_update_with_nothing_better_changes_nothing():
    new, changes = baseline.updated(RECORD, {"answer_accuracy": 0.5, "citation_recall": 0.6, "abstention_accuracy": 0.1})
    assert new == RECORD and len(changes) == 1


@pytest.mark.parametrize("content", ["{", "[]", json.dumps({**RECORD, "citation_recall": 1.5}), json.dumps({"comment": "x"})])
def test_bad_baseline_file(tmp_path, content):
    p = tmp_path / "b.json"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match="b.json"):
        baseline.load(p)


def test_save_is_atomic_and_ordered(tmp_path):
    p = tmp_path / "b.json"
    baseline.save(p, {"extra": 1, **RECORD, "questions": 3})
    assert list(json.loads(p.read_text())) == ["comment", *baseline.GATED, "questions", "extra"]
    assert [f.name for f in tmp_path.iterdir()] == ["b.json"]
