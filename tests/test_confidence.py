"""Calibrated confidence, answer types, "Read as" lines and quotes that keep their answer. Hermetic."""

from __future__ import annotations

import json

import pytest

from assistant import answer_type, confidence
from assistant.passages import MAX_QUOTE, best_quote
from assistant.interpretation import read_as_line


# -- the model ------------------------------------------------------------------------------------
def _rows(n: int = 40):
    """Right when the share is high, wrong when low; the margin says nothing."""
    return [({"share": (i % 10) / 10, "margin": 0.5}, (i % 10) >= 5) for i in range(n)]


def test_fit_route_learns_the_signal_that_separates_right_from_wrong():
    model = confidence.fit_route(_rows(), ("share", "margin"))
    assert model.weights["share"] > 1.0
    assert abs(model.weights["margin"]) < 1e-6  # a constant signal carries no weight
    assert model.probability({"share": 0.9, "margin": 0.5}) > 0.9 > 0.1 > model.probability({"share": 0.1, "margin": 0.5})


def test_fit_is_deterministic():
    assert confidence.fit_route(_rows(), ("share", "margin")) == confidence.fit_route(_rows(), ("share", "margin"))


def test_choose_threshold_keeps_wrong_answers_within_the_rate():
    scored = [(0.95, True), (0.9, True), (0.8, False), (0.7, True), (0.6, False), (0.5, True)]
    # 10 questions; one wrong answer allowed: everything down to 0.7 is kept, 0.6 would be a second
    assert confidence.choose_threshold(scored, 10, 0.1) == 0.7
    # no wrong answer allowed: only the two above the first wrong one
    assert confidence.choose_threshold(scored, 10, 0.0) == 0.9
    # a tie straddling the limit is not split: both or neither
    assert confidence.choose_threshold([(0.9, True), (0.8, True), (0.8, False)], 10, 0.0) == 0.9


def test_missing_calibration_file_gives_priors_and_no_threshold(tmp_path):
    calibration = confidence.load(tmp_path / "none.json")
    assert calibration.threshold == 0.0
    assert calibration.confidence("section", {}) > calibration.confidence("passage", {})
    assert calibration.confidence("unknown-route", {}) is None


def test_calibration_round_trips_through_its_file(tmp_path):
    model = confidence.fit_route(_rows(), ("share", "margin"))
    fitted = confidence.Calibration(0.42, {"permit": model}, {"set": "dev"})
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(fitted.to_json()), encoding="utf-8")
    loaded = confidence.load(path)
    assert loaded.threshold == 0.42 and loaded.fitted_on == {"set": "dev"}
    signals = {"share": 0.7, "margin": 0.5}
    assert loaded.confidence("permit", signals) == pytest.approx(fitted.confidence("permit", signals))


def test_damaged_calibration_file_is_one_error_naming_it(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(RuntimeError, match="calibration.json: cannot read the calibration"):
        confidence.load(path)


def test_shipped_calibration_was_fitted_on_dev_within_the_wrong_rate():
    shipped = json.loads(confidence.CALIBRATION.read_text(encoding="utf-8"))
    info = shipped["fitted_on"]
    assert info["set"] == "dev"
    assert info["kept_wrong"] <= info["max_wrong_rate"] * info["questions"]
    assert 0.0 < shipped["threshold"] < 1.0
    for route, model in shipped["routes"].items():
        assert set(model["weights"]) == set(confidence.FEATURES[route])


# -- answer types ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "question, kind",
    [
        ("How long is a use permit good for?", "duration"),
        ("when does my application expire", "duration"),
        ("who approves a minor use permit", "who"),
        ("How tall can my fence be?", "number"),
        ("minimum lot width in NL", "number"),
        ("what does 'micromobility' mean", "definition"),
        ("Who counts as a service provider?", "definition"),  # who a term covers: its definition
        ("who qualifies as a caretaker", "definition"),
        ("Can I keep chickens?", "yes_no"),
        ("tell me about the TOC district", "other"),
        ("Can a cell tower be taller in PF than in CG?", "number"),  # a comparison of measures
        ("can my fence be higher than 6 feet?", "number"),
        ("is a bar no longer allowed in CD?", "yes_no"),  # "longer" alone compares nothing
        ("is higher density housing allowed in NG?", "yes_no"),
    ],
)
def test_answer_type_detection(question, kind):
    assert answer_type.detect(question) == kind


def test_answer_type_presence():
    assert answer_type.present("duration", "It expires after two years.")
    assert not answer_type.present("duration", "It expires when the use ends.")
    assert answer_type.present("who", "The Planning Commission shall decide.")
    assert answer_type.present("number", "No more than 42 inches.")
    assert not answer_type.present("number", "Fences shall be well kept.")


def test_quote_prefers_the_sentence_with_the_asked_number_and_never_cuts_it():
    filler = "Fences shall be maintained in good repair and kept free of graffiti by the owner of the parcel. " * 6
    text = filler + "A fence within the front setback of a parcel shall not exceed a height of forty-two inches at any point."
    quote = best_quote(text, "how high can a fence in the front setback be")
    assert "forty-two inches" in quote.text and quote.type_found
    assert len(quote.text) <= 2 * MAX_QUOTE
    assert 0.0 < quote.coverage <= 1.0


# -- read as ----------------------------------------------------------------------------------------
def test_read_as_line_names_rows_and_districts():
    interpretation = {"uses": [{"table": "2-3", "row": "Bar, tavern", "words": "bar"}],
                      "districts": [{"symbol": "CE", "name": "Commercial", "words": "east cotati avenue"}], "topics": []}
    assert read_as_line(interpretation) == "Read as: Bar, tavern (Table 2-3) in CE"
    assert read_as_line({"uses": [], "districts": [], "topics": ["fence", "height"]}) == "Read as: a question about fence, height"
    assert read_as_line({"uses": [], "districts": [], "topics": []}) == ""


# -- uses by meaning --------------------------------------------------------------------------------
def _bag_encoder(texts):
    """A fake encoder: word counts over a fixed vocabulary, enough to rank by shared meaning words."""
    import numpy as np

    vocabulary = ["fitness", "gym", "workout", "exercise", "broadcast", "radio", "studio", "hair", "salon", "beauty"]
    rows = []
    for text in texts:
        words = text.lower().replace(",", " ").replace(".", " ").split()
        rows.append([float(words.count(w)) + 0.01 for w in vocabulary])
    return np.array(rows)


def test_rows_are_ranked_by_the_meaning_of_their_description():
    from assistant.meaning import UseMeanings, describe

    descriptions = [
        ("2-3", "Broadcasting studio", describe("Broadcasting studio", "Industry", "", ["radio station"])),
        ("2-3", "Health/fitness facility", describe("Health/fitness facility", "Recreation", "", ["gym", "workout gym"])),
        ("2-3", "Personal services", describe("Personal services", "Services", "Personal services means hair salon, beauty shop.", [])),
    ]
    meanings = UseMeanings(descriptions, _bag_encoder)
    ranked = meanings.rank("a workout gym studio")
    assert ranked[0].row == "Health/fitness facility"
    assert ranked[0].similarity > ranked[1].similarity
    assert meanings.rank("hair salon", tables=["2-4"]) == []
    assert meanings.rank("hair salon")[0].row == "Personal services"


def test_description_carries_heading_everyday_words_and_definition():
    from assistant.meaning import describe

    text = describe("Animal keeping", "Agricultural Uses", "Animal keeping means the keeping of fowl.", ["chickens", "goats"])
    assert text.startswith("Animal keeping (Agricultural Uses)")
    assert "Also called: chickens, goats." in text and "keeping of fowl" in text


# -- follow-ups and clarifying questions (real corpus and tables; the fake searcher of test_assistant) --
@pytest.fixture(scope="module")
def plain_assistant():
    from assistant.service import load_assistant

    from tests.test_assistant import FakeSearcher

    built = load_assistant(calibrated=False)
    built.resources.use_searcher(lambda: FakeSearcher(built.corpus))
    return built


def test_a_follow_up_naming_only_a_district_takes_the_use_of_the_previous_question(plain_assistant):
    answer = plain_assistant.ask("what about NM?", history=["Can I build an ADU in NL?"])
    assert answer.route == "permit" and answer.question == "what about NM?"
    assert [(c["row"], c["column"]) for c in answer.lookups] == [("Accessory dwelling unit", "NM")]
    assert "(from your previous question)" in answer.answer.split("\n")[1]
    assert answer.interpretation["from_previous_question"] == "Can I build an ADU in NL?"


def test_a_follow_up_naming_only_a_use_takes_the_districts(plain_assistant):
    answer = plain_assistant.ask("what about a bar?", history=["Can I open a gym in the CD district?"])
    assert {(c["row"], c["column"]) for c in answer.lookups} == {("Bar, tavern", "CD")}


def test_without_history_a_lone_district_is_not_a_permit_question(plain_assistant):
    assert plain_assistant.ask("what about NM?").route != "permit"


def test_ca_alone_gets_a_clarifying_question(plain_assistant):
    answer = plain_assistant.ask("I live in CA, can I build an ADU?")
    assert answer.route == "clarify" and answer.abstained
    assert answer.clarify == ("I live in the CA district, can I build an ADU?", "I live in California, can I build an ADU?")
    # named by its name too, or with a zoning word: no question back
    assert plain_assistant.ask("equipment rental on Commerce Avenue (CA)").route == "permit"
    assert plain_assistant.ask("can I build an ADU in the CA zone?").route != "clarify"


# -- mechanisms that keep a wrong answer from being given ------------------------------------------
@pytest.mark.parametrize(
    "question, units",
    [
        ("What share of required parking spaces may be compact stalls?", {"percent"}),
        ("how wide must the landscape strip be", {"length"}),
        ("how big does a parking space have to be", {"area", "length"}),
        ("How many parking spaces does a bowling alley need?", {"count"}),
        ("tell me about the TOC district", set()),
    ],
)
def test_units_asked(question, units):
    assert answer_type.units_asked(question) == frozenset(units)


def test_units_must_agree_only_when_both_sides_state_one():
    assert not answer_type.units_agree("What share of the spaces may be compact?", "Width: 8 feet")
    assert not answer_type.units_agree("how wide must the strip be", "1 space for each two units")
    assert answer_type.units_agree("how tall can a fence be", "42 in.")
    assert answer_type.units_agree("what is the rule", "8 feet")


def test_money_and_section_numbers():
    assert answer_type.detect("What's the fine if my fence is too tall?") == "money"
    assert answer_type.detect("How much is the fee for a use permit?") == "money"
    assert not answer_type.present("money", "See Section 17.60.060 for fees.")
    assert answer_type.present("money", "The fee is $250.")
    assert not answer_type.present("number", "See Section 17.42.170 (Accessory dwelling units)")


def test_a_quantity_question_is_not_answered_by_a_permit_code(plain_assistant):
    answer = plain_assistant.ask("How many chickens can I keep in my backyard in NL?")
    assert answer.route != "permit"


def test_a_row_a_later_restatement_dropped_is_not_answered(plain_assistant):
    # 002 restated Table 2-4 in full; 000's "Boutique hotel and motel" label is not in it
    rows = plain_assistant.tables.rows["2-4"]
    assert "Lodging - Boutique hotel or motel" in rows and "Lodging - Boutique hotel and motel" not in rows


def test_rows_sharing_a_label_are_told_apart_by_their_heading(plain_assistant):
    rows = plain_assistant.tables.rows["2-2 cannabis"]
    assert {"Indoor Cultivation - Large", "Outdoor Cultivation - Large", "Mixed Light Cultivation - Large"} <= set(rows)
    answer = plain_assistant.ask("large indoor cannabis grow in the CI district - allowed?")
    assert [c["category"].endswith("Indoor Cultivation") for c in answer.lookups] == [True]
    assert "Read as: Indoor Cultivation - Large" in answer.answer


def test_a_full_question_naming_only_a_district_is_not_a_follow_up(plain_assistant):
    answer = plain_assistant.ask("What is the TOC district?", history=["Can I open a bar on East Cotati Avenue?"])
    assert "from_previous_question" not in answer.interpretation


def test_search_uses_the_question_with_its_typos_corrected(plain_assistant):
    from assistant.understand import understand

    query = understand("incomplete aplication for 17.36.040(E) - who aproves it?", plain_assistant.vocabulary,
                       plain_assistant.known_words)
    assert query.corrected == "incomplete application for 17.36.040(E) - who approves it?"
    # an inflection is a word, not a typo
    assert understand("how long to remove graffiti", plain_assistant.vocabulary,
                      plain_assistant.known_words).corrected == "how long to remove graffiti"


def test_two_questions_in_one_are_answered_part_by_part(plain_assistant):
    answer = plain_assistant.ask("Can I build an ADU in NL? How tall can a fence be in a rear setback in a residential zone?")
    assert answer.route == "compound"
    assert {c["table"] for c in answer.lookups} == {"2-2", "3-2"}
    assert "Part 1 (" in answer.answer and "Part 2 (" in answer.answer


def test_context_after_a_question_mark_is_not_a_second_question(plain_assistant):
    answer = plain_assistant.ask("can i build a granny unit in my backyard? im in the NL zone")
    assert answer.route == "permit"
    assert [(c["row"], c["column"]) for c in answer.lookups] == [("Accessory dwelling unit", "NL")]


def test_resolve_uses_without_a_model_finds_rows_by_words(plain_assistant):
    assert ("2-3", "Health/fitness facility") in plain_assistant.resolve_uses("gym")
    assert plain_assistant.resolve_uses("zzzz qqqq") == []


def test_the_permit_tables_legend_is_table_text_not_a_quote():
    from assistant.passages import _table_line

    assert _table_line("UP Use Permit required") and _table_line("- Use not allowed")
    assert not _table_line("Use permits are decided by the Planning Commission.")


def test_calibration_folds_keep_a_paraphrase_group_together():
    """Held-out estimates must not see another wording of a held-out question in the fit."""
    from eval.calibrate import FOLDS, folds_by_group

    groups = [f"g{i // 3}" for i in range(30)] + [f"single{i}" for i in range(7)]
    for seed in range(3):
        fold_of = folds_by_group(groups, seed)
        by_group: dict[str, set[int]] = {}
        for group, fold in zip(groups, fold_of):
            by_group.setdefault(group, set()).add(fold)
        assert all(len(folds) == 1 for folds in by_group.values())
        sizes = [sum(1 for g in by_group if fold in by_group[g]) for fold in range(FOLDS)]
        assert max(sizes) - min(sizes) <= 1  # near-equal numbers of groups
    assert folds_by_group(groups, 0) == folds_by_group(groups, 0)  # seeded


def test_how_sure_bands_keep_their_promise_on_the_answers_they_are_fitted_on():
    """"high" is stated only from the lowest confidence at which the answers at or above it are right
    98% of the time (with enough of them); "medium" likewise at 90% down to the threshold."""
    from assistant.confidence import SURE_FLOORS, Calibration, choose_bands

    held = [(0.99, True)] * 60 + [(0.95, True)] * 45 + [(0.95, False)] * 5 + [(0.85, True)] * 20 + [(0.85, False)] * 10
    bands = choose_bands(held, threshold=0.8, min_answers=20)
    assert bands == {"high": 0.99, "medium": 0.95}
    stated = Calibration(0.8, {}, {}, bands)
    assert [stated.how_sure(c) for c in (0.995, 0.96, 0.86)] == ["high", "medium", "low"]
    high = [ok for c, ok in held if stated.how_sure(c) == "high"]
    assert sum(high) / len(high) >= SURE_FLOORS["high"]
    assert Calibration(0.8).how_sure(0.99) == ""  # no bands fitted: nothing stated


def test_how_sure_bands_count_held_out_confidences_above_one():
    """Held-out confidences moved from their fold's threshold to the final one may pass 1; wrong
    answers up there belong to the band their floor puts them in, never to none."""
    from assistant.confidence import Calibration, choose_bands

    held = [(1.05, False)] * 10 + [(1.01, True)] * 10 + [(0.95, True)] * 40 + [(0.85, True)] * 20 + [(0.85, False)] * 5
    assert choose_bands(held, threshold=0.8, min_answers=20) == {}  # from any floor: 83% right at most
    held += [(0.97, True)] * 60  # now 110 of 120 from 0.95 up: 91.7%
    bands = choose_bands(held, threshold=0.8, min_answers=20)
    assert bands == {"medium": 0.95}
    medium = [ok for c, ok in held if Calibration(0.8, {}, {}, bands).how_sure(c) == "medium"]
    assert len(medium) == 120 and sum(medium) / len(medium) >= 0.9


def test_a_part_not_answered_names_its_nearest_section(plain_assistant, monkeypatch):
    from assistant import chooser
    from assistant.types import Answer

    res = plain_assistant.resources
    given = Answer("gym?", "A use permit (UP) is required.\nHealth/fitness facility in CD: UP.", False, route="permit")
    declined = Answer("parking?", "No sure answer.", True, route="abstain", nearest=("17.36.050",))
    monkeypatch.setattr(chooser, "decided", lambda q, r: given if q.text.startswith("gym") else declined)
    answer = chooser.compound("gym? parking?", [res.read("gym?"), res.read("parking?")], res)
    lines = answer.answer.split("\n")
    assert lines[0] == "A use permit (UP) is required."
    unanswered = next(line for line in lines if line.startswith('Part 2 ("parking?") is not answered'))
    assert unanswered.endswith(f"Nearest: § 17.36.050 {res.corpus.section('17.36.050').title}.")
