"""The ranker (issue 35): one learned scorer over every candidate; route order is never a rule."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from assistant import choose
from assistant.types import Answer, Candidate, Citation


def _candidate(route: str, text: str = "x", section: str = "17.30.030", answer_type: str = "length", **signals) -> Candidate:
    citation = Citation(section=section, title="", document="001", date="2026-08-11", quote=text)
    return Candidate(answer_type, Answer("q", text, False, citations=(citation,), route=route, signals=signals))


def test_probability_is_the_fitted_logistic():
    ranker = choose.Ranker(names=("a", "b"), means=(0.0, 1.0), scales=(1.0, 2.0), weights=(1.0, -2.0), bias=0.5)
    assert ranker.probability({"a": 1.0, "b": 3.0}) == pytest.approx(1 / (1 + pow(2.718281828459045, -(0.5 + 1 - 2))))
    assert ranker.probability({}) == pytest.approx(1 / (1 + pow(2.718281828459045, -(0.5 + 1.0))))


def test_ties_break_by_route_name_not_by_listing_order():
    a, b = _candidate("standards"), _candidate("passage")
    assert sorted([(0.9, a), (0.9, b)], key=choose.order_key)[0][1] is b
    assert sorted([(0.9, b), (0.9, a)], key=choose.order_key)[0][1] is b


def test_a_whole_section_never_answers_a_value_question():
    assert not choose.admissible(_candidate("section"), "length")
    assert not choose.admissible(_candidate("section"), "permit_code")
    assert not choose.admissible(_candidate("standards_table"), "permit_code")
    assert choose.admissible(_candidate("standards_table"), "length")  # each location's height: the measure asked
    assert choose.admissible(_candidate("section"), "section_text")
    assert choose.admissible(_candidate("standards"), "length")


def test_features_read_agreement_with_the_bank_and_retrieval():
    from assistant.bank import Vote

    candidate = _candidate("provision", section="17.30.030")
    other = _candidate("passage", section="17.30.030")
    votes = [Vote("section:17.30.030", 0.8, 0.8, 1, "fences?"), Vote("provision:17.36.050(A)", 0.7, 0.7, 1, "parking?")]
    feats = choose.features(candidate, "length", votes, ["17.36.050", "17.30.030"], [candidate, other])
    assert feats["route=provision"] == 1.0 and feats["type_fits"] == 1.0
    assert feats["bank_agree"] == pytest.approx(0.8) and feats["bank_first_agrees"] == 1.0
    assert feats["hit_recip"] == pytest.approx(0.5)
    assert feats["agreeing"] == 1.0


def test_a_vote_to_decline_is_a_feature_not_a_unit():
    from assistant.bank import DECLINE, Vote

    candidate = _candidate("provision", section="17.30.030")
    votes = [Vote(DECLINE, 0.9, 0.9, 1, "when did the council adopt it?"), Vote("section:17.30.030", 0.6, 0.6, 1, "fences?")]
    feats = choose.features(candidate, "length", votes, [], [candidate])
    assert feats["bank_first_declines"] == 1.0 and feats["bank_declines"] == pytest.approx(0.9)
    assert feats["bank_first_agrees"] == 0.0 and feats["bank_agree"] == pytest.approx(0.6)
    plain = choose.features(candidate, "length", votes[1:], [], [candidate])
    assert plain["bank_first_declines"] == 0.0 and plain["bank_declines"] == 0.0


def test_a_section_the_documents_do_not_print_is_a_feature():
    from types import SimpleNamespace

    corpus = SimpleNamespace(latest={"17.36.050": None, "17.42.010": None})
    named = lambda *sections: SimpleNamespace(sections=sections)  # noqa: E731
    assert choose.names_unloaded(named("17.42.060"), corpus)
    assert not choose.names_unloaded(named("17.36.050"), corpus) and not choose.names_unloaded(named(), corpus)
    assert not choose.names_unloaded(named("17.42"), corpus)  # a chapter some loaded section is under
    candidate = _candidate("standards")
    feats = choose.features(candidate, "other", [], [], [candidate], unloaded=True)
    assert feats["names_unloaded_section"] == 1.0 and feats["names_unloaded_section|standards"] == 1.0
    assert "names_unloaded_section" not in choose.features(candidate, "other", [], [], [candidate])


def test_how_sure_states_only_the_bands_kept():
    ranker = choose.Ranker(bands={"high": 0.97, "medium": 0.9})
    assert ranker.how_sure(0.99) == "high" and ranker.how_sure(0.93) == "medium" and ranker.how_sure(0.5) == ""
    assert choose.Ranker().how_sure(0.999) == ""


def test_a_band_is_kept_only_where_the_holdout_holds_it():
    from eval.ranker_fit import held_bands

    dev = [(0.99, True, False)] * 60 + [(0.6, True, False)] * 40 + [(0.6, False, False)] * 10
    good = [(0.99, True, False)] * 25
    bands, figures = held_bands(dev, good, 0.5)
    assert "high" in bands and figures["high"]["holdout"] == "25/25"
    bad = [(0.99, True, False)] * 20 + [(0.99, False, False)] * 5  # 80% right: not "high"
    assert "high" not in held_bands(dev, bad, 0.5)[0]
    few = [(0.99, True, False)] * 5  # too few answers to say
    assert "high" not in held_bands(dev, few, 0.5)[0]
    # "high" dropped: its answers are stated as "medium", so medium must hold over them too.
    dev = [(0.99, True, False)] * 60 + [(0.8, True, False)] * 95 + [(0.8, False, False)] * 5
    medium_only = [(0.99, True, False)] * 5 + [(0.8, True, False)] * 19 + [(0.8, False, False)] * 1
    bands, figures = held_bands(dev, medium_only, 0.5)
    assert bands == {"medium": figures["medium"]["floor"]} and figures["medium"]["holdout"] == "24/25"


def test_the_settings_hash_changes_with_any_tuned_number():
    assert choose.Settings().digest() != choose.Settings(threshold=0.9).digest()
    assert choose.Settings().digest() == choose.Settings().digest()


def test_a_damaged_ranker_file_is_named(tmp_path):
    path = tmp_path / "ranker.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(choose.RankerError, match="ranker.json"):
        choose.load(path)
    assert choose.load(tmp_path / "missing.json") is None


def test_the_shipped_ranker_records_its_settings():
    data = json.loads(choose.RANKER.read_text(encoding="utf-8"))
    loaded = choose.load()
    assert loaded is not None and loaded.fitted
    assert data["settings_hash"] == loaded.settings.digest()
    assert 0.0 < loaded.settings.threshold <= 1.0


def test_no_route_calls_the_chooser_or_another_route():
    import re

    routes = Path(choose.__file__).parent / "routes"
    imports = re.compile(r"^\s*(?:from\s+(\S+)\s+import\s+(.+)|import\s+(\S+))", re.M)
    for path in routes.glob("*.py"):
        for found in imports.finditer(path.read_text(encoding="utf-8")):
            named = " ".join(part for part in found.groups() if part)
            assert "chooser" not in named and "choose" not in named.split(), (path.name, named)


@pytest.fixture(scope="module")
def shipped():
    from assistant.service import load_assistant

    return load_assistant()


@pytest.mark.slow
def test_shuffling_the_routes_changes_no_answer_on_dev(shipped, monkeypatch):
    from assistant import chooser

    questions = [json.loads(line)["question"] for line in Path("eval/dev.jsonl").read_text(encoding="utf-8").splitlines()][::15]
    before = [shipped.ask(q) for q in questions]
    rng = random.Random(7)
    first, deciding, ranked = list(chooser.ROUTES), list(chooser.ROUTES_DECIDING), list(chooser.ROUTES_RANKED)
    rng.shuffle(first)
    rng.shuffle(deciding)
    rng.shuffle(ranked)
    monkeypatch.setattr(chooser, "ROUTES", tuple(first))
    monkeypatch.setattr(chooser, "ROUTES_DECIDING", tuple(deciding))
    monkeypatch.setattr(chooser, "ROUTES_RANKED", tuple(ranked))
    after = [shipped.ask(q) for q in questions]
    changed = [q for q, a, b in zip(questions, before, after) if (a.answer, a.abstained, a.confidence) != (b.answer, b.abstained, b.confidence)]
    assert not changed, changed[:5]


@pytest.mark.slow
def test_answers_carry_the_settings_hash(shipped):
    answer = shipped.ask("How tall can a fence be in a front yard?")
    assert answer.confidence is not None
    if not answer.abstained:
        assert answer.interpretation["settings"] == shipped.resources.ranker.settings.digest()
