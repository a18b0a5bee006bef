"""eval.score: strict judgement of one answer (right / wrong / abstained), the metrics over a set,
paraphrase consistency, risk-coverage, and the comparison of sets. Every expectation is computed by
hand from small synthetic items; hermetic and fast."""

from __future__ import annotations

import pytest

from eval.gold import EvalError, GoldItem
from eval.records import AnswerView, ItemResult, parse_answer, section_of
from eval.score import (
    ABSTAINED,
    RIGHT,
    WRONG,
    abstention_counts,
    abstention_scores,
    answer_key,
    citation_precision,
    citation_recall,
    compare,
    confidence_of,
    contradictions,
    expected_code,
    first_relevant_rank,
    judge_answer,
    latency,
    misses,
    mrr_at_k,
    paraphrase_consistency,
    percentile,
    recall_at_k,
    risk_coverage,
    summarize,
)


# -- builders -------------------------------------------------------------------------------------
def item(id_="q1", category="permit_table", facts=("P",), sections=("17.22.020",), abstain=False, bad=(),
         table=None, row=None, column=None, value=None, document=None, cells=(), group=None, expected="Permitted (P).\nmore"):
    return GoldItem(
        id=id_, question=f"question {id_}", category=category, expected_answer=expected,
        expected_facts=() if abstain else tuple(facts), expected_sections=() if abstain else tuple(sections),
        abstain=abstain, contradicting_facts=tuple(bad), expected_document=document, table=table, row=row,
        column=column, expected_value=value, expected_cells=tuple(cells), group=group,
    )


def answer(text="Permitted (P).", abstained=False, sections=("17.22.020",), lookups=(), confidence=None, route=None,
           timing=None):
    return AnswerView(text=text, abstained=abstained, cited_sections=tuple(sections), timing_ms=timing,
                      lookups=tuple(lookups), confidence=confidence, route=route)


def lookup(table="Table 2-2", row="Accessory dwelling unit", column="NL", value="P", document="000", section="17.22.020"):
    return {"table": table, "section": section, "row": row, "column": column, "value": value, "document": document}


# A permit item written the dev set's way (the code comes from the facts) and the test set's way.
DEV_ADU = dict(table="Table 2-2", row="Accessory dwelling unit", column="NL", facts=("P",), bad=("not allowed",), document="000")
TEST_BAR = dict(table="Table 2-3", row="Bar, tavern", column="CE", value="UP", facts=("UP",), bad=("not allowed",),
                document="000", sections=("17.22.020",))
P_LINE = "Permitted (P); a zoning clearance is required."
UP_LINE = "A use permit (UP) is required."


def outcome(it, ans):
    j = judge_answer(it, ans)
    return j.outcome, j.reason


# -- first line and contradictions ---------------------------------------------------------------
def test_contradictions_only_in_the_first_line_as_whole_words():
    assert contradictions("Permitted (P) in NL.\nIt is not allowed in NM.", ["not allowed"]) == []
    assert contradictions("Not Allowed (NM).\nP elsewhere", ["not allowed", "use permit"]) == ["not allowed"]
    assert contradictions("\n\n  not allowed\nok", ["not allowed"]) == ["not allowed"]
    assert contradictions("A minor use permit (MUP).", ["UP"]) == []  # "UP" is not in "(MUP)"


# -- judge_answer: items to decline ----------------------------------------------------------------
def test_decline_item_is_right_only_when_the_assistant_abstains():
    it = item(category="out_of_scope", abstain=True)
    assert outcome(it, answer("The code documents do not answer this.", abstained=True)) == (RIGHT, "")
    assert outcome(it, answer("Quiet hours are 10 pm.")) == (WRONG, "answered instead of abstaining")


def test_an_answerable_item_abstained_on_is_abstained_not_wrong():
    it = item(category="standards", facts=("6 feet",), sections=("17.30.030",))
    # even when the text happens to contain the fact
    assert outcome(it, answer("No answer; nearest: fences up to 6 feet.", abstained=True)) == (ABSTAINED, "abstained")


# -- judge_answer: text items (facts in statements) -------------------------------------------------
def test_facts_are_searched_in_statements_not_in_source_lines():
    it = item(category="definition", facts=("family",), sections=("17.08.020",))
    cites = ("17.08.020",)
    assert outcome(it, answer("A family is one or more persons.\nSource: 17.08.020", sections=cites)) == (RIGHT, "")
    assert outcome(it, answer("See the definitions.\nSource: 17.08.020 Family", sections=cites)) == (WRONG, "missing 'family'")
    quoted = answer('Defined terms:\n\u00a7 17.08.020 (Family (000), 2023-11-06): "one or more persons"', sections=cites)
    assert outcome(it, quoted) == (WRONG, "missing 'family'")  # the citation prefix is not a statement


def test_numbers_are_matched_as_numbers_in_judgement():
    it = item(category="standards", facts=("10 feet",), sections=("17.30.030",))
    assert outcome(it, answer("Up to ten feet.", sections=("17.30.030",))) == (RIGHT, "")
    assert outcome(it, answer("Up to 100 feet.", sections=("17.30.030",))) == (WRONG, "missing '10 feet'")


def test_contradicting_facts_count_in_the_lead_not_in_other_lines():
    it = item(category="procedure", facts=("Planning Commission",), bad=("City Council",), sections=("17.60.040",))
    cites = ("17.60.040",)
    assert outcome(it, answer("The Planning Commission decides.\nAppeals go to the City Council.", sections=cites)) == (RIGHT, "")
    assert outcome(it, answer("The City Council or the Planning Commission decides.", sections=cites)) == (
        WRONG, "contradicts: 'City Council'")


# -- judge_answer: permit items --------------------------------------------------------------------
def test_expected_code_from_value_or_facts():
    assert expected_code(item(**DEV_ADU)) == "P"  # dev: the code its facts encode
    assert expected_code(item(**TEST_BAR)) == "UP"  # test: expected_value
    assert expected_code(item(**{**TEST_BAR, "value": "P(2)"})) == "P"
    assert expected_code(item(table="Table 2-2 Cannabis", facts=("not allowed",))) == "-"
    assert expected_code(item(table="Table 3-7", facts=("P",))) is None  # not a permit table
    assert expected_code(item(facts=("P",))) is None  # no table
    # the other "Table 2-4" (17.24.020) holds numbers, not permit codes
    assert expected_code(item(table="Table 2-4", facts=("5,000",), sections=("17.24.020",), value="5,000 sf")) is None
    assert expected_code(item(table="Table 2-4", facts=("UP",), sections=("17.22.020", "17.42.071"))) == "UP"
    # a dash in the numbers table is "none", not "not allowed"
    assert expected_code(item(table="Table 2-4", facts=("no minimum",), sections=("17.24.020",), value="-")) is None
    assert expected_code(item(table="Table 2-4", facts=("no minimum",), sections=("17.22.020",), value="-")) == "-"


def test_dev_permit_item_right_with_the_gold_cell_and_meaning():
    it = item(**DEV_ADU)
    assert outcome(it, answer(P_LINE, lookups=[lookup()])) == (RIGHT, "")


def test_dev_permit_item_without_lookups_is_wrong():
    it = item(**DEV_ADU)
    assert outcome(it, answer(P_LINE)) == (
        WRONG, "did not use the cell Table 2-2 / Accessory dwelling unit / NL (no table cell)")


def test_the_use_permit_line_does_not_score_on_a_p_item():
    # the lenient scorer found "p" in "use permit (UP)"; the strict one reads the meaning
    it = item(**DEV_ADU)
    assert outcome(it, answer(UP_LINE, lookups=[lookup()])) == (
        WRONG, "missing 'P'; first line says use permit (UP), not permitted (P)")


def test_a_permit_fact_only_on_a_later_line_is_not_the_meaning():
    it = item(**DEV_ADU)
    got = outcome(it, answer("See Table 2-2.\nPermitted (P) in NL.", lookups=[lookup()]))
    assert got == (WRONG, "first line does not say permitted (P)")


def test_dev_permit_item_with_the_wrong_cell_value_or_document():
    it = item(**DEV_ADU)
    assert outcome(it, answer(P_LINE, lookups=[lookup(value="MUP")])) == (
        WRONG, "cell Table 2-2 / Accessory dwelling unit / NL read as 'MUP', gold 'P'")
    assert outcome(it, answer(P_LINE, lookups=[lookup(document="001")])) == (
        WRONG, "cell Table 2-2 / Accessory dwelling unit / NL taken from document 001, in force is 000")
    assert outcome(it, answer(P_LINE, lookups=[lookup(column="NM")]))[0] == WRONG


def test_dev_not_allowed_item():
    it = item(table="Table 2-2", row="Junior accessory dwelling unit", column="NM", facts=("not allowed",),
              bad=("use permit", "permitted use"), document="000")
    good = lookup(row="Junior accessory dwelling unit", column="NM", value="-")
    assert outcome(it, answer("Not allowed.", lookups=[good])) == (RIGHT, "")
    assert outcome(it, answer("Not permitted in NM.", lookups=[good])) == (WRONG, "missing 'not allowed'")
    assert outcome(it, answer("Not allowed; a use permit (UP) is needed.", lookups=[good])) == (
        WRONG, "contradicts: 'use permit'; first line says use permit (UP), not not allowed")


def test_test_set_permit_item_with_expected_value():
    it = item(**TEST_BAR)
    cell = lookup(table="Table 2-3", row="Bar, tavern", column="CE", value="UP")
    assert outcome(it, answer(UP_LINE, lookups=[cell])) == (RIGHT, "")
    assert outcome(it, answer("A minor use permit (MUP) is required.", lookups=[{**cell, "value": "MUP"}])) == (
        WRONG, "missing 'UP'; first line says minor use permit (MUP), not use permit (UP); "
               "cell Table 2-3 / Bar, tavern / CE read as 'MUP', gold 'UP'")
    assert outcome(it, answer(UP_LINE, lookups=[{**cell, "row": "Restaurant"}]))[1].startswith("did not use the cell")


def test_amended_and_standards_items_check_the_cell_too():
    amended = item(category="amended_cell", table="Table 2-4", row="Night club", column="TOC", value="UP", facts=("UP",),
                   document="002", sections=("17.22.020",))
    cell = lookup(table="Table 2-4", row="Night club", column="TOC", value="UP", document="002")
    assert outcome(amended, answer(UP_LINE, lookups=[cell])) == (RIGHT, "")
    assert outcome(amended, answer(UP_LINE, lookups=[{**cell, "document": "000"}])) == (
        WRONG, "cell Table 2-4 / Night club / TOC taken from document 000, in force is 002")
    std = item(category="standards", table="Table 2-4", row="NM", column="Minimum Parcel Size Area", value="5,000 sf",
               facts=("5,000",), sections=("17.24.020",), document="000")
    area = lookup(table="Table 2-4", section="17.24.020", row="NM", column="Area", value="5,000 sf")
    # no permit meaning is asked of a numbers table; the number is a number ("5000" states "5,000")
    cites = ("17.24.020",)
    assert outcome(std, answer("The minimum parcel is 5000 square feet.", lookups=[area], sections=cites)) == (RIGHT, "")
    assert outcome(std, answer("The minimum parcel is 6,000 square feet.", lookups=[{**area, "value": "6,000 sf"}],
                               sections=cites)) == (
        WRONG, "missing '5,000'; cell Table 2-4 / NM / Minimum Parcel Size Area read as '6,000 sf', gold '5,000 sf'")


def test_a_table_item_of_another_category_is_not_asked_for_a_cell():
    it = item(category="procedure", table="Table 6-1", row="Use Permit (UP)", facts=("Commission",), sections=("17.60.040",))
    assert outcome(it, answer("The Planning Commission decides.", sections=("17.60.040",))) == (RIGHT, "")


def test_district_list_item_needs_every_allowing_cell():
    it = item(category="district_list", table="Table 2-3", row="Bar, tavern", facts=("CE", "CG"),
              cells=(("CE", "UP"), ("CG", "MUP"), ("CI", "-")), document="000")
    cells = [lookup(table="Table 2-3", row="Bar, tavern", column="CE", value="UP"),
             lookup(table="Table 2-3", row="Bar, tavern", column="CG", value="MUP")]
    assert expected_code(it) is None  # district names are not a permit code
    assert outcome(it, answer("Allowed in CE (UP) and CG (MUP).", lookups=cells)) == (RIGHT, "")
    assert outcome(it, answer("Allowed in CE (UP) and CG (MUP).", lookups=cells[:1])) == (
        WRONG, "row Table 2-3 / Bar, tavern: missing or wrong CG=MUP")
    assert outcome(it, answer("Allowed in CE.", lookups=cells)) == (WRONG, "missing 'CG'")


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


def test_latency_prefers_timing_ms_and_names_its_source():
    it = item()
    assert latency([ItemResult(it, answer(timing=5.0), wall_ms=9.0), ItemResult(it, answer(timing=7.0), wall_ms=1.0)]) == {
        "p50": 5.0, "p95": 7.0, "n": 2, "source": "timing_ms"}
    assert latency([ItemResult(it, answer(timing=5.0)), ItemResult(it, answer(), wall_ms=3.0)])["source"] == "mixed"
    assert latency([ItemResult(it, answer(), wall_ms=3.0)])["source"] == "wall"
    assert latency([ItemResult(it, answer())]) == {"p50": None, "p95": None, "n": 0, "source": None}


# -- answer objects and hits ----------------------------------------------------------------------
def test_parse_answer_keeps_what_is_scored():
    cell = lookup()
    a = parse_answer(
        {"question": "q", "answer": "UP\nmore", "abstained": False, "timing_ms": {"total": 12.5, "search": 3},
         "citations": [{"section": "17.22.020"}, {"section": "17.22.020"}, {"section": "17.42.060", "quote": "x"}],
         "lookups": [cell], "confidence": 0.75, "route": "permit"},
        "here",
    )
    assert a == AnswerView("UP\nmore", False, ("17.22.020", "17.42.060"), 12.5, (cell,), 0.75, "permit")
    assert a.first_line == "UP"
    assert parse_answer({"answer": "x", "abstained": True, "timing_ms": 4}, "w").timing_ms == 4.0
    assert parse_answer({"answer": "x", "abstained": True, "timing_ms": True}, "w").timing_ms is None


@pytest.mark.parametrize("confidence", [1.5, -0.1, True, "0.9", None])
def test_parse_answer_drops_a_confidence_that_is_not_0_to_1(confidence):
    a = parse_answer({"answer": "x", "abstained": False, "confidence": confidence, "route": 3}, "w")
    assert a.confidence is None and a.route is None


@pytest.mark.parametrize(
    "obj, message",
    [
        ([], "here: answer is not a JSON object"),
        ({"abstained": False}, "here: answer object has no text field 'answer'"),
        ({"answer": "x", "abstained": "no"}, "here: answer object has no true/false field 'abstained'"),
        ({"answer": "x", "abstained": False, "citations": {}}, "here: 'citations' must be a list"),
        ({"answer": "x", "abstained": False, "citations": [{"title": "t"}]}, "here: citation 1 has no 'section' string"),
        ({"answer": "x", "abstained": False, "lookups": ["P"]}, "here: 'lookups' must be a list of objects"),
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


# -- paraphrase consistency ------------------------------------------------------------------------
def test_answer_key():
    a, b = lookup(), lookup(column="NM")
    assert answer_key(answer("x", abstained=True)) == ("abstained",)
    # the same cells in another order and other words agree; the table label is compared by its key
    assert answer_key(answer("Permitted.", lookups=[a, b])) == answer_key(answer("P in both.", lookups=[b, {**a, "table": "2-2"}]))
    assert answer_key(answer("x", lookups=[a])) != answer_key(answer("x", lookups=[{**a, "value": "UP"}]))
    assert answer_key(answer("Six  FEET.\nmore")) == answer_key(answer("six feet.\nother"))  # first line, normalized


def test_paraphrase_consistency_over_groups():
    cell = lookup()
    results, judgements = [], []

    def add(group, ans, right):
        results.append(ItemResult(item(id_=f"q{len(results)}", group=group), ans))
        judgements.append(judge_answer(item(), answer()) if right else judge_answer(item(abstain=True), answer()))

    # G1: all right, same cell -> all right and agree
    for text in ("Permitted (P).", "Yes, permitted (P).", "P: permitted."):
        add("G1", answer(text, lookups=[cell]), True)
    # G2: one wrong, different first lines -> neither
    add("G2", answer("Six feet."), True)
    add("G2", answer("Six feet."), True)
    add("G2", answer("Eight feet."), False)
    # G3: all abstained -> agree, not all right
    for _ in range(3):
        add("G3", answer("No.", abstained=True), False)
    # G4: a group of one does not count; an item without group neither
    add("G4", answer("x"), True)
    add(None, answer("y"), False)
    assert [j.outcome for j in judgements].count(RIGHT) == 6
    p = paraphrase_consistency(results, judgements)
    assert p == {"groups": 3, "all_right": pytest.approx(1 / 3), "agree": pytest.approx(2 / 3)}


def test_paraphrase_consistency_without_groups_is_undefined():
    results = [ItemResult(item(), answer())]
    assert paraphrase_consistency(results, [judge_answer(item(), answer())]) == {"groups": 0, "all_right": None, "agree": None}


# -- risk-coverage --------------------------------------------------------------------------------
def _curve(rows):
    """rows: (outcome, confidence, route) -> results and judgements built to have those outcomes."""
    results, judgements = [], []
    for n, (out, conf, route) in enumerate(rows):
        it = item(id_=f"q{n}", category="definition", facts=("family",))
        text = {RIGHT: "A family is a household.", WRONG: "No such thing.", ABSTAINED: "Not covered."}[out]
        ans = answer(text, abstained=out == ABSTAINED, confidence=conf, route=route)
        results.append(ItemResult(it, ans))
        judgements.append(judge_answer(it, ans))
    assert [j.outcome for j in judgements] == [r[0] for r in rows]
    return results, judgements


def test_confidence_of_uses_route_priors_without_a_confidence():
    assert confidence_of(answer(confidence=0.42, route="section")) == 0.42
    assert confidence_of(answer(route="section")) == 0.9
    assert confidence_of(answer(route="permit")) == 0.8
    assert confidence_of(answer(route="passage")) == 0.4
    assert confidence_of(answer(route="nonsense")) == 0.5
    assert confidence_of(answer()) == 0.5


def test_risk_coverage_hand_computed():
    results, judgements = _curve([
        (RIGHT, 0.9, None),  # 0
        (WRONG, 0.95, None),  # 1
        (ABSTAINED, 0.99, None),  # 2: not answered, not on the curve
        (RIGHT, None, "permit"),  # 3: route prior 0.8
        (RIGHT, None, None),  # 4: default prior 0.5
        (WRONG, 0.8, None),  # 5: ties with 3; set order keeps 3 first
    ])
    c = risk_coverage(results, judgements)
    # order: 1 (W), 0 (R), 3 (R), 5 (W), 4 (R); n = 6
    assert [p["confidence"] for p in c["points"]] == [0.95, 0.9, 0.8, 0.8, 0.5]
    assert [p["coverage"] for p in c["points"]] == pytest.approx([1 / 6, 2 / 6, 3 / 6, 4 / 6, 5 / 6])
    assert [p["risk"] for p in c["points"]] == pytest.approx([1, 1 / 2, 1 / 3, 2 / 4, 2 / 5])
    assert c["aurc"] == pytest.approx((1 + 1 / 2 + 1 / 3 + 2 / 4 + 2 / 5) / 5)
    assert c["coverage_at_risk"] == 0.0  # the first answer is already wrong
    assert c["risk_target"] == 0.03 and c["confidence_source"] == "answer"


def test_risk_coverage_by_route_and_coverage_at_risk():
    results, judgements = _curve([
        (WRONG, None, "passage"),  # 0.4: last
        (RIGHT, None, "section"),  # 0.9: first
        (RIGHT, None, "standards"),  # 0.7
        (RIGHT, None, "permit"),  # 0.8
    ])
    c = risk_coverage(results, judgements)
    assert [p["confidence"] for p in c["points"]] == [0.9, 0.8, 0.7, 0.4]
    assert [p["risk"] for p in c["points"]] == pytest.approx([0, 0, 0, 1 / 4])
    assert c["aurc"] == pytest.approx(1 / 16)
    assert c["coverage_at_risk"] == pytest.approx(3 / 4)
    assert c["confidence_source"] == "route"


@pytest.mark.parametrize("right, wrong, coverage", [(97, 3, 1.0), (96, 4, 0.98), (0, 1, 0.0)])
def test_coverage_at_risk_includes_a_risk_equal_to_the_target(right, wrong, coverage):
    # right answers first (set order), then the wrong ones: 3 wrong of 100 is a risk of exactly 0.03
    results, judgements = _curve([(RIGHT, None, None)] * right + [(WRONG, None, None)] * wrong)
    assert risk_coverage(results, judgements)["coverage_at_risk"] == pytest.approx(coverage)


def test_risk_coverage_with_nothing_answered():
    results, judgements = _curve([(ABSTAINED, 0.5, None)])
    c = risk_coverage(results, judgements)
    assert (c["points"], c["aurc"], c["coverage_at_risk"]) == ([], None, 0.0)


# -- the whole summary ----------------------------------------------------------------------------
def _results():
    return [
        # permit_table (dev convention): right cell, right meaning, cites the expected section and one more
        ItemResult(item("q1", **DEV_ADU), answer(P_LINE, sections=("17.22.020", "17.42.170"), lookups=[lookup()],
                                                 confidence=0.9, timing=10.0)),
        # permit_table: says UP from a UP cell: wrong three ways; cites nothing
        ItemResult(item("q2", **DEV_ADU), answer(UP_LINE, sections=(), lookups=[lookup(value="UP")], confidence=0.7,
                                                 timing=30.0)),
        # standards: abstained, but cites the expected section as "nearest"
        ItemResult(item("q3", category="standards", facts=("30 feet",), sections=("17.24.030",)),
                   answer("Not covered.", abstained=True, sections=("17.24.030",), timing=20.0)),
        # out_of_scope: rightly declined; its citation is ignored by the citation metrics
        ItemResult(item("q4", category="out_of_scope", abstain=True),
                   answer("Not covered.", abstained=True, sections=("17.90.020",), timing=40.0)),
        # definition: the fact only in the Source line -> wrong
        ItemResult(item("q5", category="definition", facts=("family",), sections=("17.08.020",)),
                   answer("See the definitions.\nSource: 17.08.020 Family", sections=("17.08.020",), confidence=0.6)),
    ]


def test_summarize_hand_computed():
    s = summarize(_results(), modes=())
    assert s["questions"] == 5 and s["answerable"] == 4 and s["answers"] is True
    assert (s["correct"], s["wrong"], s["abstained"]) == (2, 2, 1)  # q1, q4 | q2, q5 | q3
    assert s["accuracy"] == s["answer_accuracy"] == pytest.approx(2 / 5)
    assert s["wrong_rate"] == pytest.approx(2 / 5)
    assert s["answered_accuracy"] == pytest.approx(1 / 3)  # answers given: q1 R, q2 W, q5 W (declines excluded)
    assert s["citation_precision"] == pytest.approx(3 / 4)  # q1 1 of 2, q3 1 of 1, q5 1 of 1; q2 nothing
    assert s["citation_recall"] == pytest.approx(3 / 4)  # q1, q3, q5 of q1, q2, q3, q5
    assert s["abstention_counts"] == {"tp": 1, "fp": 1, "fn": 0, "tn": 3}
    assert (s["abstention_precision"], s["abstention_recall"], s["abstention_accuracy"]) == (0.5, 1.0, pytest.approx(4 / 5))
    # curve: q1 0.9 R, q2 0.7 W, q5 0.6 W; the declined q3 and q4 are not on it
    assert [p["risk"] for p in s["risk_coverage"]["points"]] == pytest.approx([0, 1 / 2, 2 / 3])
    assert s["aurc"] == pytest.approx((0 + 1 / 2 + 2 / 3) / 3)
    assert s["risk_coverage"]["coverage_at_risk"] == pytest.approx(1 / 5)
    assert s["paraphrase_consistency"] is None and s["paraphrase"]["groups"] == 0
    assert s["latency_ms"] == {"p50": 20.0, "p95": 40.0, "n": 4, "source": "timing_ms"}
    assert s["recall@5"] == {"bm25": None, "dense": None, "hybrid": None} and s["retrieval_modes"] == []
    assert list(s["by_category"]) == ["permit_table", "standards", "out_of_scope", "definition"]
    pt = s["by_category"]["permit_table"]
    assert (pt["questions"], pt["correct"], pt["wrong"], pt["abstained"], pt["accuracy"], pt["wrong_rate"]) == (2, 1, 1, 0, 0.5, 0.5)
    assert (pt["citation_precision"], pt["citation_recall"]) == (0.5, 0.5)
    st = s["by_category"]["standards"]
    assert (st["correct"], st["wrong"], st["abstained"], st["accuracy"]) == (0, 0, 1, 0.0)
    oos = s["by_category"]["out_of_scope"]
    assert oos["accuracy"] == 1.0 and oos["citation_recall"] is None


def test_misses_name_outcome_answer_given_and_why():
    m = summarize(_results(), modes=())["misses"]
    assert [(x["id"], x["outcome"]) for x in m] == [("q2", WRONG), ("q3", ABSTAINED), ("q5", WRONG)]
    assert m[0]["reason"] == ("missing 'P'; first line says use permit (UP), not permitted (P); "
                              "cell Table 2-2 / Accessory dwelling unit / NL read as 'UP', gold 'P'; cites none of 17.22.020")
    assert m[0]["got"] == UP_LINE and m[0]["expected"] == "Permitted (P)." and m[0]["cited"] == []
    assert m[0]["confidence"] == 0.7 and m[0]["category"] == "permit_table"
    assert m[1]["got"] == "(abstained) Not covered." and m[1]["reason"] == "abstained"
    assert m[2]["reason"] == "missing 'family'" and m[2]["expected_facts"] == ["family"]
    assert misses(_results()) == m  # judged again when no judgements are given


def test_summarize_with_retrieval():
    ranked = {"bm25": ("17.44.040", "17.22.020"), "dense": ("17.44.040",) * 10, "hybrid": ("17.22.020",)}
    results = [ItemResult(r.item, r.answer, retrieved=ranked if r.item.id in ("q1", "q2") else
                          {m: tuple(r.item.expected_sections) for m in ranked}) for r in _results()]
    s = summarize(results)
    # bm25: q1 2, q2 2, q3 1, q5 1; dense: q3, q5 only at 1; hybrid: 1 for all
    assert s["recall@5"] == {"bm25": 1.0, "dense": 0.5, "hybrid": 1.0}
    assert s["mrr@10"]["bm25"] == pytest.approx((0.5 + 0.5 + 1 + 1) / 4)
    assert s["retrieval_modes"] == ["bm25", "dense", "hybrid"]
    assert s["by_category"]["out_of_scope"]["recall@5"]["hybrid"] is None


def test_summarize_retrieval_only():
    results = [ItemResult(r.item, None, retrieved={m: ("17.22.020",) for m in ("bm25", "dense", "hybrid")}) for r in _results()]
    s = summarize(results)
    assert s["answers"] is False and s["accuracy"] is None and s["wrong_rate"] is None and s["aurc"] is None
    assert s["misses"] == [] and s["recall@5"]["bm25"] == pytest.approx(2 / 4)


def test_summarize_refuses_mixed_and_missing_rankings():
    results = _results()
    with pytest.raises(ValueError, match="q1: no bm25 ranking"):
        summarize(results)
    mixed = [ItemResult(results[0].item, None)] + results[1:]
    with pytest.raises(ValueError, match="some results have answers and some do not"):
        summarize(mixed, modes=())


# -- comparing sets -------------------------------------------------------------------------------
def test_generalization_gap_is_dev_minus_test_accuracy():
    assert compare({"dev": {"accuracy": 0.8}, "test": {"accuracy": 0.55}}) == {"generalization_gap": pytest.approx(0.25)}
    assert compare({"dev": {"accuracy": 0.5}, "test": {"accuracy": 0.75}}) == {"generalization_gap": pytest.approx(-0.25)}
    assert compare({"dev": {"accuracy": 0.8}}) == {"generalization_gap": None}
    assert compare({"test": {"accuracy": 0.8}}) == {"generalization_gap": None}
    assert compare({"dev": {"accuracy": 0.8}, "test": {"accuracy": None}}) == {"generalization_gap": None}
