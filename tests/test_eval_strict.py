"""The stricter scorer (issue 24): a fact counts only where it is stated for the thing asked,
contradictions in that statement make an answer wrong, every part of a multi-part question must be
answered, spelling variants read alike, right needs an expected citation; 95% intervals and the
sealed test set. Synthetic items and answers; hermetic."""

from __future__ import annotations

import pytest

from eval import statement
from eval.gold import GoldError, GoldItem, GoldPart, parse_item
from eval.intervals import wilson
from eval.match import canonical, has_fact
from eval.records import AnswerView, ItemResult
from eval.score import ABSTAINED, RIGHT, WRONG, judge_answer, reliability, summarize


def item(facts=("Planning Commission",), bad=(), sections=("17.60.040",), category="procedure", row=None,
         column=None, table=None, parts=(), id_="q1"):
    return GoldItem(id=id_, question="q?", category=category, expected_answer="x", expected_facts=tuple(facts),
                    expected_sections=tuple(sections), abstain=False, contradicting_facts=tuple(bad), table=table,
                    row=row, column=column, parts=tuple(parts))


def answer(text, sections=("17.60.040",), abstained=False, confidence=None):
    return AnswerView(text=text, abstained=abstained, cited_sections=tuple(sections), confidence=confidence)


def outcome(it, ans):
    return judge_answer(it, ans).outcome


# -- where a fact counts ------------------------------------------------------------------------
def test_a_fact_only_in_a_quote_does_not_score():
    it = item(facts=("30 days",), sections=("17.44.080",), category="standards")
    quoted = 'Equipment must be removed.\n§ 17.44.080 (Telecom (000), 2023-11-06): "removed within thirty days of discontinuance"'
    assert outcome(it, answer(quoted, sections=("17.44.080",))) == WRONG
    led = "Removed within thirty days of discontinuance.\n" + quoted.split("\n")[1]
    assert outcome(it, answer(led, sections=("17.44.080",))) == RIGHT


def test_a_section_lookup_is_answered_by_the_section_text():
    it = item(facts=("30 days",), sections=("17.44.080",), category="section_lookup")
    text = '§ 17.44.080 Discontinuance and site restoration\n"17.44.080 ... removed within thirty days ..."'
    assert outcome(it, answer(text, sections=("17.44.080",))) == RIGHT


def test_a_fact_only_in_another_rows_statement_does_not_score():
    it = item(facts=("UP",), sections=("17.22.020",), category="permit_table", row="Bar, tavern", column="CE")
    text = ("The permit depends on the district.\n"
            "Night club in CE (Commercial): UP (Table 2-3, § 17.22.020).\n"
            "Bar, tavern in CE (Commercial): MUP (Table 2-3, § 17.22.020).")
    assert outcome(it, answer(text, sections=("17.22.020",))) == WRONG
    right = text.replace("Bar, tavern in CE (Commercial): MUP", "Bar, tavern in CE (Commercial): UP")
    assert outcome(it, answer(right, sections=("17.22.020",))) == RIGHT


def test_a_who_decides_fact_in_another_role_is_contradicted():
    # "Commission" is in the statement, but as the appeal body of the wrong row
    it = item(facts=("Commission",), bad=("Director: Decision", "City Council: Decision"), table="Table 6-1",
              row="Use Permit (UP)")
    wrong_row = "Minor Use Permit (MUP): Director: Decision(2); Planning Commission: Appeal; City Council: Appeal"
    assert outcome(it, answer(wrong_row)) == WRONG
    right_row = "Use Permit (UP): Director: Recommend; Planning Commission: Decision; City Council: Appeal"
    assert outcome(it, answer(right_row)) == RIGHT


def test_a_contradiction_in_the_asked_rows_statement_is_wrong():
    it = item(facts=("P",), bad=("not allowed",), sections=("17.22.020",), category="procedure", row="Kennel",
              column="NL")
    text = "See the row below.\nKennel in NL (Neighborhood): not allowed, or P (Table 2-2, § 17.22.020)."
    assert outcome(it, answer(text, sections=("17.22.020",))) == WRONG
    # a contradicting word in a note (a condition) is not the row's claim
    noted = "Kennel in NL: P.\nKennel in NL (Neighborhood): P (Table 2-2, § 17.22.020).\nNote (2): not allowed on corner lots."
    assert outcome(it, answer(noted, sections=("17.22.020",))) == RIGHT


# -- parts ---------------------------------------------------------------------------------------
COMPOUND = ("A use permit (UP) is required.\n"
            'Part 1 ("Can I open a gym in CD?"):\n'
            "Health/fitness facility in CD (Downtown Commercial): UP (Table 2-3, § 17.22.020).\n"
            'Part 2 ("how many parking spaces?") is not answered: the code documents here do not clearly answer it.')


def test_a_part_left_unanswered_is_not_right():
    # the gold did not split the question: the answer's declined part means it is not right
    it = item(facts=("UP",), sections=("17.22.020",), category="permit_table")
    assert judge_answer(it, answer(COMPOUND, sections=("17.22.020",))).outcome == ABSTAINED
    parts = (GoldPart("gym?", True, ("UP",)), GoldPart("parking?", True, ("1 space",)))
    it = item(facts=("UP", "1 space"), sections=("17.22.020",), category="permit_table", parts=parts)
    assert outcome(it, answer(COMPOUND, sections=("17.22.020",))) == ABSTAINED


def test_a_part_the_gold_says_cannot_be_answered_may_be_declined():
    parts = (GoldPart("gym?", True, ("UP",)), GoldPart("parking?", False))
    it = item(facts=("UP",), sections=("17.22.020",), category="permit_table", parts=parts)
    assert outcome(it, answer(COMPOUND, sections=("17.22.020",))) == RIGHT


def test_each_part_is_judged_in_its_own_block():
    text = ("Two answers.\n"
            'Part 1 ("who decides a use permit?"):\nThe Planning Commission decides.\n'
            'Part 2 ("how long is it valid?"):\nIt expires after 2.5 years.')
    parts = (GoldPart("who?", True, ("Planning Commission",)), GoldPart("how long?", True, ("2.5 years",)))
    it = item(facts=("Planning Commission", "2.5 years"), parts=parts, sections=("17.60.040", "17.64.080"))
    assert outcome(it, answer(text)) == RIGHT
    swapped = (GoldPart("who?", True, ("2.5 years",)), GoldPart("how long?", True, ("Planning Commission",)))
    assert outcome(item(facts=("x",), parts=swapped), answer(text)) == WRONG


def test_parts_are_read_from_the_gold_file():
    obj = {"id": "s1", "question": "a and b?", "category": "procedure", "expected_answer": "x", "expected_facts": ["a"],
           "expected_sections": ["17.60.040"], "abstain": False, "style": "staff_memo",
           "parts": [{"question": "a?", "answerable": True, "expected_facts": ["a"]},
                     {"question": "b?", "answerable": False, "expected_facts": []}]}
    it = parse_item(obj, "f line 1")
    assert [p.answerable for p in it.parts] == [True, False] and it.style == "staff_memo"
    with pytest.raises(GoldError, match="part 1: an answerable part needs"):
        parse_item({**obj, "parts": [{"question": "a?", "answerable": True}, obj["parts"][1]]}, "f line 1")


# -- citation and spelling -------------------------------------------------------------------------
def test_right_needs_a_citation_of_an_expected_section():
    it = item(facts=("Planning Commission",))
    assert outcome(it, answer("The Planning Commission decides.", sections=("17.62.050",))) == WRONG
    assert outcome(it, answer("The Planning Commission decides.", sections=("17.62.050", "17.60.040"))) == RIGHT


@pytest.mark.parametrize("text, fact", [
    ("E. Cotati Ave.", "East Cotati Avenue"), ("within a halfmile", "half mile"), ("a half-mile radius", "half mile"),
    ("one-half mile", "half mile"), ("Pawnshops", "pawn shops"), ("42 in. high", "42 inches"),
    ("twelve feet", "12 feet"), ("40 ft.", "40 feet"), ("90%", "90 percent"), ("4,000 sq. ft.", "4000 square feet"),
])
def test_spelling_variants_read_alike(text, fact):
    assert has_fact(text, fact)


def test_variants_do_not_blur_numbers_or_codes():
    assert not has_fact("100 feet", "10 feet") and not has_fact("(UP)", "P") and not has_fact("(MUP)", "UP")
    # a number in words is read whole: "one hundred fifty feet" is 150 feet, never "one hundred 50" or 1 foot
    assert canonical("one hundred feet") == "100 feet" and canonical("one hundred fifty feet") == "150 feet"
    assert has_fact("at least one hundred fifty feet", "150 feet") and has_fact("150 feet", "one hundred fifty feet")
    assert not has_fact("one hundred fifty feet", "50 feet") and not has_fact("one hundred feet", "1 foot")
    assert canonical("two thousand five hundred square feet") == "2500 square feet"


def test_statement_lines_skip_read_as_quotes_and_citations():
    text = 'Lead.\nRead as: Bar (Table 2-3)\n§ 17.22.020 (Telecom, 2023): "quoted"\nSource: § 17.22.020\n  [1] § 17.22.020 x'
    assert statement.statement_lines(text) == ["Lead."]


# -- intervals, reliability, sealing ---------------------------------------------------------------
def test_wilson_interval():
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0) is None and wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0
    with pytest.raises(ValueError):
        wilson(6, 5)


def _results():
    right = item(id_="q1")
    return [ItemResult(right, answer("The Planning Commission decides.", confidence=0.97)),
            ItemResult(item(id_="q2"), answer("The Director decides.", confidence=0.85)),
            ItemResult(item(id_="q3"), answer("No sure answer.", abstained=True, confidence=0.2))]


def test_every_rate_carries_an_interval_and_the_reliability_table():
    s = summarize(_results(), modes=())
    for key in ("accuracy", "wrong_rate", "answered_accuracy", "abstention_recall", "citation_recall"):
        assert key in s["intervals"]
    assert s["intervals"]["accuracy"] == wilson(1, 3)
    assert s["by_category"]["procedure"]["intervals"]["accuracy"] == wilson(1, 3)
    bands = {tuple(b["band"]): b for b in s["reliability"]}
    assert (bands[(0.95, 1.0)]["answers"], bands[(0.95, 1.0)]["right"]) == (1, 1)
    assert (bands[(0.8, 0.9)]["answers"], bands[(0.8, 0.9)]["wrong"]) == (1, 1)
    assert sum(b["answers"] for b in reliability(_results(), [judge_answer(r.item, r.answer) for r in _results()])) == 2


def test_the_stated_how_sure_bands_are_checked_against_their_promise():
    from dataclasses import replace

    results = _results()
    results = [replace(results[0], answer=replace(results[0].answer, how_sure="high")),
               replace(results[1], answer=replace(results[1].answer, how_sure="medium")), results[2]]
    rows = {row["band"]: row for row in summarize(results, modes=())["reliability_stated"]}
    assert (rows["high"]["answers"], rows["high"]["right"], rows["high"]["holds"]) == (1, 1, True)
    assert (rows["medium"]["answers"], rows["medium"]["right"], rows["medium"]["holds"]) == (1, 0, False)
    assert rows["low"]["answers"] == 0 and rows["low"]["holds"] is None


def test_a_sealed_set_lists_no_miss():
    s = summarize(_results(), modes=(), sealed=True)
    assert s["sealed"] is True and s["misses"] == [] and s["wrong"] == 1
    assert [m["id"] for m in summarize(_results(), modes=())["misses"]] == ["q2", "q3"]
