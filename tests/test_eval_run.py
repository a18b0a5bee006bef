"""The gold loader, the runner (with fake assistant and fake search), saved answers, the regression
record (eval/baseline.py) and the simple baselines (eval/baselines.py). Hermetic and fast: no model,
no index, no assistant."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from eval import baseline, baselines
from eval.gold import DEFAULT_GOLD, SETS, EvalError, GoldError, InputError, load_gold
from eval.records import MODES, parse_answer
from eval.run import load_answers, run
from eval.score import SEARCH_K, summarize

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
def test_shipped_sets_load():
    assert DEFAULT_GOLD == SETS["dev"] and list(SETS) == ["dev", "test", "holdout"]
    for name, minimum in (("dev", 300), ("test", 300), ("holdout", 200)):
        items = load_gold(SETS[name])
        assert len(items) >= minimum, name
        assert all(i.line >= 1 for i in items)
        assert {i.abstain for i in items} == {True, False}


TABLE_ITEM = {**ITEMS[0], "id": "t001", "table": "Table 2-3", "row": "Bar, tavern", "column": None, "expected_value": None,
              "expected_cells": {"CE": "UP", "CI": "-"}, "group": "A31", "expected_document": "000"}


def test_gold_table_fields(tmp_path):
    path = write_gold(tmp_path / "g.jsonl", [TABLE_ITEM, {**ITEMS[1], "table": "Table 2-4", "row": "NM",
                                                          "column": "Area", "expected_value": "5,000 sf"}])
    bar, area = load_gold(path)
    assert (bar.table, bar.row, bar.column, bar.expected_value) == ("Table 2-3", "Bar, tavern", None, None)
    assert bar.expected_cells == (("CE", "UP"), ("CI", "-")) and bar.group == "A31" and bar.expected_document == "000"
    assert (area.table, area.row, area.column, area.expected_value, area.expected_cells, area.group) == (
        "Table 2-4", "NM", "Area", "5,000 sf", (), None)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"expected_cells": ["CE"]}, "field 'expected_cells' must map column names to printed values"),
        ({"expected_cells": {"CE": 1}}, "field 'expected_cells' must map column names to printed values"),
        ({"row": ""}, "field 'row' must be a non-empty string or null"),
        ({"group": 7}, "field 'group' must be a non-empty string or null"),
        ({"expected_document": 0}, "field 'expected_document' must be a string or null"),
    ],
)
def test_gold_table_field_errors(tmp_path, change, message):
    path = write_gold(tmp_path / "bad.jsonl", [{**TABLE_ITEM, **change}])
    with pytest.raises(GoldError) as exc:
        load_gold(path)
    assert str(exc.value).endswith(f"bad.jsonl line 1: {message}")


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


# -- regression record (eval/baseline.py) ---------------------------------------------------------
RECORD = {
    "comment": "x",
    "sets": {"dev": {"accuracy": 0.5, "wrong_rate": 0.2, "abstention_recall": 0.7, "questions": 4}},
    "recorded": "2026-01-01",
}


def figures(accuracy, wrong_rate, abstention_recall, questions=4):
    return {"accuracy": accuracy, "wrong_rate": wrong_rate, "abstention_recall": abstention_recall, "questions": questions}


def test_shipped_baseline_is_valid():
    record = baseline.load(baseline.DEFAULT_BASELINE)
    assert record["comment"] and "dev" in record["sets"]
    assert set(record["sets"]) <= set(SETS)
    for figs in record["sets"].values():
        assert set(baseline.GATED) <= set(figs)


def test_gated_figures_and_their_direction():
    assert baseline.GATED == ("accuracy", "wrong_rate", "abstention_recall")
    assert baseline.LOWER_IS_BETTER == {"wrong_rate"}


def test_check_passes_equal_and_better_figures():
    assert baseline.check({"dev": figures(0.5, 0.2, 0.7)}, RECORD) == []
    assert baseline.check({"dev": figures(0.9, 0.0, 1.0)}, RECORD) == []
    # float noise is not a regression
    assert baseline.check({"dev": figures(0.5 - 1e-12, 0.2 + 1e-12, 0.7)}, RECORD) == []


def test_check_lists_each_figure_that_moved_the_wrong_way():
    assert baseline.check({"dev": figures(0.4, 0.3, 0.6)}, RECORD) == [
        "dev accuracy: 0.4000 < recorded 0.5000",
        "dev wrong_rate: 0.3000 > recorded 0.2000",  # a wrong-answer rate must not rise
        "dev abstention_recall: 0.6000 < recorded 0.7000",
    ]
    assert baseline.check({"dev": {**figures(0.5, 0.2, 0.7), "abstention_recall": None}}, RECORD) == [
        "dev abstention_recall: not measured (recorded 0.7000)"]


def test_check_a_recorded_set_that_was_not_run():
    record = {"sets": {**RECORD["sets"], "test": {"accuracy": 0.4, "wrong_rate": 0.1, "abstention_recall": 0.5}}}
    assert baseline.check({"dev": figures(0.5, 0.2, 0.7)}, record) == [
        "test accuracy: not measured (recorded 0.4000)",
        "test wrong_rate: not measured (recorded 0.1000)",
        "test abstention_recall: not measured (recorded 0.5000)",
    ]
    # a measured set without a record is not checked
    assert baseline.check({"dev": figures(0.5, 0.2, 0.7), "test": figures(0, 1, 0)}, RECORD) == []


def test_update_moves_to_better_figures_only():
    summaries = {"dev": figures(0.8, 0.3, 0.7, questions=5)}
    new, changes = baseline.updated(RECORD, summaries, digests={"dev": "abc"}, today="2026-02-03")
    assert new["sets"]["dev"] == {"accuracy": 0.8, "wrong_rate": 0.2, "abstention_recall": 0.7, "questions": 5, "sha256": "abc"}
    assert changes == [
        "dev accuracy: 0.5000 -> 0.8000",
        "dev wrong_rate: 0.3000 is worse than the record 0.2000; kept (use --force)",
    ]
    assert new["recorded"] == "2026-02-03" and new["comment"] == baseline.RECORDED_COMMENT
    assert RECORD["sets"]["dev"]["accuracy"] == 0.5  # the record given is not changed


def test_update_lower_wrong_rate_is_better():
    new, changes = baseline.updated(RECORD, {"dev": figures(0.5, 0.1, 0.7)}, today="2026-02-03")
    assert new["sets"]["dev"]["wrong_rate"] == 0.1 and changes == ["dev wrong_rate: 0.2000 -> 0.1000"]


def test_update_with_force_records_worse_figures():
    new, changes = baseline.updated(RECORD, {"dev": figures(0.4, 0.3, 0.6)}, force=True, today="2026-02-03")
    assert (new["sets"]["dev"]["accuracy"], new["sets"]["dev"]["wrong_rate"], new["sets"]["dev"]["abstention_recall"]) == (0.4, 0.3, 0.6)
    assert changes == ["dev accuracy: 0.5000 -> 0.4000", "dev wrong_rate: 0.2000 -> 0.3000", "dev abstention_recall: 0.7000 -> 0.6000"]


def test_update_adds_a_new_set():
    new, changes = baseline.updated(RECORD, {"test": figures(0.6, 0.05, 0.9, questions=363)}, today="2026-02-03")
    assert new["sets"]["test"] == figures(0.6, 0.05, 0.9, questions=363) and new["sets"]["dev"] == RECORD["sets"]["dev"]
    assert changes == ["test accuracy: none -> 0.6000", "test wrong_rate: none -> 0.0500", "test abstention_recall: none -> 0.9000"]


def test_update_with_nothing_better_keeps_the_figures_and_the_date():
    new, changes = baseline.updated(RECORD, {"dev": figures(0.5, 0.2, 0.1)})
    assert new == RECORD and changes == ["dev abstention_recall: 0.1000 is worse than the record 0.7000; kept (use --force)"]


def test_update_refuses_an_unmeasured_figure():
    with pytest.raises(EvalError, match="cannot update the baseline: dev accuracy was not measured"):
        baseline.updated(RECORD, {"dev": {**figures(0.5, 0.2, 0.7), "accuracy": None}})


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "not a valid JSON file"),
        ("[]", "needs a 'sets' object"),
        (json.dumps({"comment": "x"}), "needs a 'sets' object"),
        (json.dumps({"sets": {}}), "needs a 'sets' object"),
        (json.dumps({"answer_accuracy": 0.5}), "needs a 'sets' object"),  # the old flat record
        (json.dumps({"sets": {"dev": []}}), "sets.dev must be an object"),
        (json.dumps({"sets": {"dev": {**figures(0.5, 0.2, 0.7), "accuracy": 1.5}}}), "sets.dev.accuracy must be a number from 0 to 1"),
        (json.dumps({"sets": {"dev": {**figures(0.5, 0.2, 0.7), "wrong_rate": True}}}), "sets.dev.wrong_rate must be a number from 0 to 1"),
        (json.dumps({"sets": {"test": {"accuracy": 0.5, "wrong_rate": 0.1}}}), "sets.test.abstention_recall must be a number"),
    ],
)
def test_bad_baseline_file(tmp_path, content, message):
    p = tmp_path / "b.json"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        baseline.load(p)
    assert "b.json" in str(exc.value) and message in str(exc.value) and "\n" not in str(exc.value)


def test_missing_baseline_file(tmp_path):
    with pytest.raises(InputError, match="nope.json: baseline file not found"):
        baseline.load(tmp_path / "nope.json")


def test_save_is_atomic_ordered_and_loads_back(tmp_path):
    p = tmp_path / "b.json"
    baseline.save(p, {"extra": 1, "recorded": "2026-01-01", **{k: v for k, v in RECORD.items() if k != "recorded"}})
    assert list(json.loads(p.read_text())) == ["comment", "sets", "recorded", "extra"]
    assert p.read_text().endswith("}\n")
    assert [f.name for f in tmp_path.iterdir()] == ["b.json"]
    assert baseline.load(p)["sets"] == RECORD["sets"]


def test_digest_is_the_sha256_of_the_file(tmp_path):
    p = tmp_path / "g.jsonl"
    p.write_bytes(b"abc")
    assert baseline.digest(p) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


# -- simple baselines (eval/baselines.py) ---------------------------------------------------------
def test_always_abstain_is_an_answer_object_that_abstains():
    a = baselines.always_abstain("bar in CE?")
    assert a["question"] == "bar in CE?" and a["abstained"] is True and a["citations"] == [] and a["lookups"] == []
    assert parse_answer(a, "w").abstained is True


def fake_search(calls):
    def search(query, k, mode):
        calls.append((query, k, mode))
        if "nothing" in query:
            return []
        top = {"bm25": "17.30.030", "dense": "17.44.040", "hybrid": "17.22.020"}[mode]
        return [{"section": top, "text": f"  {mode} passage:\n fences  may be 6 feet tall. " + "x" * 900},
                {"section": "17.90.020", "text": "second"}]
    return search


def test_top_passage_quotes_the_head_of_the_top_hit_and_cites_its_section():
    calls = []
    ask = baselines.top_passage(fake_search(calls), "hybrid")
    a = ask("how tall can a fence be")
    assert calls == [("how tall can a fence be", SEARCH_K, "hybrid")]
    assert a["answer"].startswith("hybrid passage: fences may be 6 feet tall. x")  # whitespace collapsed
    assert len(a["answer"]) == baselines.QUOTE_CHARS
    assert a["citations"] == [{"section": "17.22.020"}] and a["abstained"] is False and a["lookups"] == []
    assert a["route"] == "passage"
    assert baselines.top_passage(fake_search([]), "bm25")("fence")["citations"] == [{"section": "17.30.030"}]


def test_top_passage_abstains_without_hits():
    a = baselines.top_passage(fake_search([]), "bm25")("nothing here")
    assert a == baselines.always_abstain("nothing here")


def test_top_passage_accepts_hit_objects():
    hit = SimpleNamespace(section="17.44.065", text="Section text")
    a = baselines.top_passage(lambda q, k, m: [hit], "bm25")("q")
    assert (a["answer"], a["citations"]) == ("Section text", [{"section": "17.44.065"}])
    assert baselines.top_passage(lambda q, k, m: [{"section": "17.1"}], "bm25")("q")["answer"] == "(no text)"


def test_baseline_answerers():
    assert list(baselines.baseline_answerers(None)) == ["always abstain"]
    calls = []
    answerers = baselines.baseline_answerers(fake_search(calls))
    assert list(answerers) == ["always abstain", "top BM25 passage", "top hybrid passage"]
    answerers["top BM25 passage"]("q")
    answerers["top hybrid passage"]("q")
    assert [m for _, _, m in calls] == ["bm25", "hybrid"]


def test_cached_search_asks_once_per_query_k_and_mode():
    calls = []
    search = baselines.cached(fake_search(calls))
    first = search("fence", 10, "bm25")
    assert search("fence", 10, "bm25") == first and isinstance(first, tuple)
    search("fence", 10, "hybrid")
    search("fence", 5, "bm25")
    assert calls == [("fence", 10, "bm25"), ("fence", 10, "hybrid"), ("fence", 5, "bm25")]


def test_baselines_scored_like_the_assistant(gold):
    """Always abstain is right exactly on the items to decline; a quoted passage never declines."""
    abstain = summarize(run(gold, ask=baselines.always_abstain), modes=())
    assert (abstain["correct"], abstain["wrong"], abstain["abstained"]) == (1, 0, 2)
    assert abstain["accuracy"] == pytest.approx(1 / 3) and abstain["wrong_rate"] == 0.0
    passage = summarize(run(gold, ask=baselines.top_passage(fake_search([]), "bm25")), modes=())
    # q002's facts ("6 feet") are in the quoted passage; q001 wants P from Table 2-2; q003 should be declined
    assert [m["id"] for m in passage["misses"]] == ["q001", "q003"]
    assert (passage["correct"], passage["wrong"], passage["abstained"]) == (1, 2, 0)
