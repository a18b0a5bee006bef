"""Metric functions of eval.score, each against a hand-computed expectation. Hermetic and fast."""

from __future__ import annotations

import pytest

from eval.gold import EvalError, GoldItem
from eval.records import AnswerView, ItemResult, parse_answer, section_of
from eval.score import (
    abstention_counts,
    abstention_scores,
    citation_precision,
    citation_recall,
    contradictions,
    first_relevant_rank,
    judge,
    latency,
    missing_facts,
    mrr_at_k,
    normalize,
    percentile,
    recall_at_k,
    summarize,
)


# -- text matching and answer judgement ---------------------------------------------------------
def test_normalize_lowercases_and_collapses_whitespace():
    assert normalize("  Use\n  Permit\t(UP) ") == "use permit (up)"


def test_missing_facts_case_insensitive_substrings():
    text = "Use permit (UP) required.\nSee 17.42.060."
    assert missing_facts(text, ["up", "17.42.060"]) == []
    assert missing_facts(text, ["MUP", "17.42.060", "17.44"]) == ["MUP", "17.44"]


def test_contradictions_only_in_first_line():
    text = "Permitted (P) in NL.\nIt is not allowed in NM."
    assert contradictions(text, ["not allowed"]) == []
    assert contradictions("Not Allowed (NM).\nP elsewhere", ["not allowed", "use permit"]) == ["not allowed"]


def test_first_line_skips_leading_blank_lines():
    assert contradictions("\n\n  not allowed\nok", ["not allowed"]) == ["not allowed"]


@pytest.mark.parametrize(
    "kwargs, correct, reason",
    [
        # abstain items: correct iff abstained
        (dict(should_abstain=True, abstained=True, text="The code does not cover this."), True, ""),
        (dict(should_abstain=True, abstained=False, text="P"), False, "answered instead of abstaining"),
        # answerable, abstained: wrong even if the text happens to contain the fact ("p")
        (dict(should_abstain=False, abstained=True, text="Nothing appropriate", expected_facts=["P"]), False, "abstained"),
        (dict(should_abstain=False, abstained=False, text="Use permit (UP) required.", expected_facts=["UP"],
              contradicting_facts=["not allowed", "minor use permit"]), True, ""),
        # fact may sit on the second line; contradiction only counts on the first
        (dict(should_abstain=False, abstained=False, text="S: specific use regulations.\nSee 17.42.040.",
              expected_facts=["S", "17.42.040"], contradicting_facts=["not allowed"]), True, ""),
        (dict(should_abstain=False, abstained=False, text="S: specific use regulations.", expected_facts=["S", "17.42.040"]),
         False, "missing '17.42.040'"),
        (dict(should_abstain=False, abstained=False, text="Permitted? No: not allowed.", expected_facts=["P"],
              contradicting_facts=["not allowed"]), False, "first line contradicts: 'not allowed'"),
        (dict(should_abstain=False, abstained=False, text="Minor use permit (MUP).", expected_facts=["UP", "17.42"],
              contradicting_facts=["not allowed", "minor use permit"]),
         False, "missing '17.42'; first line contradicts: 'minor use permit'"),
    ],
)
def test_judge(kwargs, correct, reason):
    j = judge(**kwargs)
    assert (j.correct, j.reason) == (correct, reason)


# -- citations ------------------------------------------------------------------------------------
def test_citation_precision_is_pooled_over_distinct_cited_sections():
    pairs = [
        (["17.22.020", "17.44.040"], ["17.22.020"]),  # 1 of 2
        (["17.36.090", "17.36.090"], ["17.36.080", "17.36.090"]),  # duplicates count once: 1 of 1
        ([], ["17.60.040"]),  # cites nothing: adds nothing
        (["17.90.020"], []),  # no expected sections (abstain item): ignored
    ]
    assert citation_precision(pairs) == pytest.approx(2 / 3)


def test_citation_recall_counts_items_citing_at_least_one_expected_section():
    pairs = [
        (["17.22.020", "17.44.040"], ["17.22.020"]),  # yes
        (["17.36.090"], ["17.36.080", "17.36.090"]),  # yes
        ([], ["17.60.040"]),  # no
        (["17.44.020"], ["17.90.020", "000:SECTION-7"]),  # no
        (["17.90.020"], []),  # ignored
    ]
    assert citation_recall(pairs) == pytest.approx(2 / 4)


def test_citation_ids_are_exact_after_stripping_spaces():
    assert citation_recall([([" 17.22.020 "], ["17.22.020"])]) == 1.0
    assert citation_recall([(["17.22"], ["17.22.020"])]) == 0.0


def test_citation_metrics_undefined_without_denominator():
    assert citation_precision([([], ["17.22.020"])]) is None
    assert citation_precision([]) is None
    assert citation_recall([(["17.22.020"], [])]) is None


# -- abstention -----------------------------------------------------------------------------------
def test_abstention_counts_and_scores():
    # (should abstain, did abstain)
    counts = abstention_counts([(True, True), (True, False), (False, True), (False, False), (False, False)])
    assert counts == {"tp": 1, "fn": 1, "fp": 1, "tn": 2}
    assert abstention_scores(counts) == {"precision": 0.5, "recall": 0.5, "accuracy": pytest.approx(3 / 5)}


def test_abstention_precision_undefined_when_never_abstaining():
    scores = abstention_scores(abstention_counts([(True, False), (False, False)]))
    assert scores == {"precision": None, "recall": 0.0, "accuracy": 0.5}


# -- retrieval ------------------------------------------------------------------------------------
def test_first_relevant_rank():
    ranked = ["17.44.040", "17.44.040", "17.22.020"]
    assert first_relevant_rank(ranked, {"17.22.020", "17.24.020"}, 10) == 3
    assert first_relevant_rank(ranked, {"17.22.020"}, 2) is None
    assert first_relevant_rank([], {"17.22.020"}, 10) is None


RANKINGS = [
    (["x", "a"], ["a"]),  # rank 2
    (["a", "a"], ["a", "b"]),  # rank 1
    (["x"] * 6 + ["b"], ["b"]),  # rank 7: beyond 5, within 10
    ([], ["a"]),  # nothing
]


def test_recall_at_k():
    assert recall_at_k(RANKINGS, 5) == pytest.approx(2 / 4)
    assert recall_at_k(RANKINGS, 10) == pytest.approx(3 / 4)
    assert recall_at_k(RANKINGS, 1) == pytest.approx(1 / 4)
    assert recall_at_k([], 5) is None


def test_mrr_at_k():
    assert mrr_at_k(RANKINGS, 10) == pytest.approx((1 / 2 + 1 + 1 / 7 + 0) / 4)
    assert mrr_at_k(RANKINGS, 5) == pytest.approx((1 / 2 + 1) / 4)
    assert mrr_at_k([], 10) is None


# -- latency --------------------------------------------------------------------------------------
def test_percentile_nearest_rank():
    values = [50, 15, 40, 20, 35]  # sorted: 15 20 35 40 50
    assert percentile(values, 50) == 35  # ceil(2.5) = 3rd
    assert percentile(values, 40) == 20  # ceil(2.0) = 2nd
    assert percentile(values, 95) == 50  # ceil(4.75) = 5th
    assert percentile(values, 100) == 50
    assert percentile([7.0], 95) == 7.0
    assert percentile([], 50) is None
    with pytest.raises(ValueError):
        percentile(values, 0)


def _item(id_, category="permit_table", abstain=False, facts=("P",), sections=("17.22.020",), bad=()):
    return GoldItem(
        id=id_, question=f"question {id_}", category=category, expected_answer="Permitted (P).\nmore",
        expected_facts=() if abstain else tuple(facts), expected_sections=() if abstain else tuple(sections),
        abstain=abstain, contradicting_facts=tuple(bad),
    )


def _answer(text="Permitted (P).", abstained=False, sections=("17.22.020",), timing=None):
    return AnswerView(text=text, abstained=abstained, cited_sections=tuple(sections), timing_ms=timing)


def test_latency_prefers_timing_ms_and_names_its_source():
    it = _item("q1")
    assert latency([ItemResult(it, _answer(timing=5.0), wall_ms=9.0), ItemResult(it, _answer(timing=7.0), wall_ms=1.0)]) == {
        "p50": 5.0, "p95": 7.0, "n": 2, "source": "timing_ms"}
    assert latency([ItemResult(it, _answer(timing=5.0)), ItemResult(it, _answer(), wall_ms=3.0)])["source"] == "mixed"
    assert latency([ItemResult(it, _answer(), wall_ms=3.0)])["source"] == "wall"
    assert latency([ItemResult(it, _answer())]) == {"p50": None, "p95": None, "n": 0, "source": None}


# -- answer objects and hits ----------------------------------------------------------------------
def test_parse_answer_keeps_distinct_sections_and_timing():
    a = parse_answer(
        {"question": "q", "answer": "UP\nmore", "abstained": False, "timing_ms": {"total": 12.5, "search": 3},
         "citations": [{"section": "17.22.020"}, {"section": "17.22.020"}, {"section": "17.42.060", "quote": "x"}],
         "lookups": []},
        "here",
    )
    assert a == AnswerView("UP\nmore", False, ("17.22.020", "17.42.060"), 12.5)
    assert a.first_line == "UP"
    assert parse_answer({"answer": "x", "abstained": True, "timing_ms": 4}, "w").timing_ms == 4.0
    assert parse_answer({"answer": "x", "abstained": True, "timing_ms": True}, "w").timing_ms is None


@pytest.mark.parametrize(
    "obj, message",
    [
        ([], "here: answer is not a JSON object"),
        ({"abstained": False}, "here: answer object has no text field 'answer'"),
        ({"answer": "x", "abstained": "no"}, "here: answer object has no true/false field 'abstained'"),
        ({"answer": "x", "abstained": False, "citations": {}}, "here: 'citations' must be a list"),
        ({"answer": "x", "abstained": False, "citations": [{"title": "t"}]}, "here: citation 1 has no 'section' string"),
    ],
)
def test_parse_answer_rejects_malformed_objects(obj, message):
    with pytest.raises(EvalError) as exc:
        parse_answer(obj, "here")
    assert str(exc.value) == message


def test_section_of_accepts_hits_dicts_and_strings():
    class Hit:
        section = "17.44.065"

    assert section_of(Hit()) == "17.44.065"
    assert section_of({"section": "001:SECTION-17"}) == "001:SECTION-17"
    assert section_of("17.22.020") == "17.22.020"
    with pytest.raises(EvalError):
        section_of({"score": 1.0})


# -- the whole summary ----------------------------------------------------------------------------
def _results():
    ranked = {"bm25": ("17.44.040", "17.22.020"), "dense": ("17.44.040",) * 10, "hybrid": ("17.22.020",)}
    return [
        # permit_table: correct, cites the expected section (plus one other)
        ItemResult(_item("q1", bad=("not allowed",)), _answer(sections=("17.22.020", "17.42.170"), timing=10.0), retrieved=ranked),
        # permit_table: contradicted in the first line, cites nothing
        ItemResult(_item("q2", bad=("not allowed",)), _answer(text="Not allowed (P column).", sections=(), timing=30.0), retrieved=ranked),
        # standards: wrongly abstained, but cites the expected section as "nearest"
        ItemResult(_item("q3", category="standards", facts=("30 feet",), sections=("17.24.030",)),
                   _answer(text="Not covered.", abstained=True, sections=("17.24.030",), timing=20.0),
                   retrieved={"bm25": ("17.24.030",), "dense": (), "hybrid": ("x",) * 4 + ("17.24.030",)}),
        # out_of_scope: correctly abstained; its citation is ignored by the citation metrics
        ItemResult(_item("q4", category="out_of_scope", abstain=True), _answer(text="Not covered.", abstained=True, sections=("17.90.020",), timing=40.0)),
    ]


def test_summarize_hand_computed():
    s = summarize(_results())
    assert s["questions"] == 4 and s["answerable"] == 3 and s["answers"] is True
    assert s["correct"] == 2 and s["answer_accuracy"] == 0.5  # q1, q4
    assert s["citation_precision"] == pytest.approx(2 / 3)  # q1: 1 of 2, q3: 1 of 1
    assert s["citation_recall"] == pytest.approx(2 / 3)  # q1, q3 of q1..q3
    assert s["abstention_counts"] == {"tp": 1, "fp": 1, "fn": 0, "tn": 2}
    assert (s["abstention_precision"], s["abstention_recall"], s["abstention_accuracy"]) == (0.5, 1.0, 0.75)
    # bm25: q1 rank 2, q2 rank 2, q3 rank 1; dense: none; hybrid: 1, 1, 5
    assert s["recall@5"] == {"bm25": 1.0, "dense": 0.0, "hybrid": 1.0}
    assert s["mrr@10"]["bm25"] == pytest.approx((0.5 + 0.5 + 1) / 3)
    assert s["mrr@10"]["hybrid"] == pytest.approx((1 + 1 + 0.2) / 3)
    assert s["latency_ms"] == {"p50": 20.0, "p95": 40.0, "n": 4, "source": "timing_ms"}
    assert list(s["by_category"]) == ["permit_table", "standards", "out_of_scope"]
    pt = s["by_category"]["permit_table"]
    assert (pt["questions"], pt["correct"], pt["answer_accuracy"], pt["citation_recall"]) == (2, 1, 0.5, 0.5)
    assert pt["citation_precision"] == 0.5
    oos = s["by_category"]["out_of_scope"]
    assert oos["answer_accuracy"] == 1.0 and oos["citation_recall"] is None and oos["recall@5"]["hybrid"] is None
    assert [(m["id"], m["reason"]) for m in s["misses"]] == [
        ("q2", "first line contradicts: 'not allowed'"),
        ("q3", "abstained"),
    ]
    assert s["misses"][1]["got"] == "(abstained) Not covered."
    assert s["misses"][0]["expected"] == "Permitted (P)."


def test_summarize_without_retrieval_reports_null_modes():
    results = [ItemResult(r.item, r.answer) for r in _results()]
    s = summarize(results, modes=())
    assert s["recall@5"] == {"bm25": None, "dense": None, "hybrid": None}
    assert s["mrr@10"] == {"bm25": None, "dense": None, "hybrid": None}
    assert s["answer_accuracy"] == 0.5


def test_summarize_retrieval_only():
    results = [ItemResult(r.item, None, retrieved=r.retrieved) for r in _results()]
    s = summarize(results)
    assert s["answers"] is False and s["answer_accuracy"] is None and s["abstention_accuracy"] is None
    assert s["misses"] == [] and s["recall@5"]["bm25"] == 1.0


def test_summarize_refuses_missing_rankings():
    results = _results()
    results[0] = ItemResult(results[0].item, results[0].answer, retrieved={})
    with pytest.raises(ValueError, match="q1: no bm25 ranking"):
        summarize(results)
