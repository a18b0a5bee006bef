"""The reader (assistant/reader.py): its measures, its fit and its file, on synthetic provisions and
cases; no corpus, no model."""

from __future__ import annotations

import json
import math
import random

import pytest

from assistant import reader
from assistant.provision_choice import choose
from test_provision_choice import ALL, IDF, MULTI, SINGLE


def _question(text: str, asked: str = "number") -> reader.Question:
    return reader.Question(text, asked, {"17.36.100": 0}, frozenset({"17.36.100"}))


def test_measures_and_features_are_one_row_per_candidate_in_feature_order():
    text_meaning = {p.text: 0.1 * i for i, p in enumerate(ALL)}
    rows = reader.measure(_question("how wide must a multifamily driveway be?"), ALL, IDF, text_meaning, {})
    assert len(rows) == len(ALL) and set(rows[0]) == set(reader.MEASURES)
    assert [r["fits"] for r in rows] == [0.0, 1.0, 1.0, 0.0]  # a length is asked: the two lengths fit
    vectors = reader.features(rows)
    assert all(len(v) == len(reader.FEATURES) for v in vectors)
    behind = reader.FEATURES.index("sim_text_behind_best")
    assert max(v[behind] for v in vectors) == 0.0 and min(v[behind] for v in vectors) < 0.0


def _synthetic_cases(n: int, seed: int) -> list:
    """Questions whose answering candidate is the one with the highest first feature (plus noise)."""
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        size = rng.randint(3, 8)
        vectors = [[rng.random() for _ in reader.FEATURES] for _ in range(size)]
        answer = max(range(size), key=lambda i: vectors[i][0] + 0.1 * rng.random())
        cases.append((vectors, [i == answer for i in range(size)]))
    return cases


def test_the_fit_learns_which_feature_tells_the_answer_and_is_deterministic():
    cases = _synthetic_cases(120, seed=1)
    fitted = reader.fit(cases)
    assert fitted.weights[reader.FEATURES[0]] > 0 and all(math.isfinite(w) for w in fitted.weights.values())
    assert fitted == reader.fit(cases)
    held = _synthetic_cases(60, seed=2)
    top = [max(range(len(v)), key=lambda i: fitted.probabilities(v)[i]) for v, _ in held]
    assert sum(answers[i] for (_, answers), i in zip(held, top)) / len(held) > 0.8
    probabilities = fitted.probabilities(held[0][0])
    assert sum(probabilities) == pytest.approx(1.0) and all(0 < p < 1 for p in probabilities)


def test_questions_without_an_answering_candidate_teach_nothing():
    cases = _synthetic_cases(40, seed=3)
    unanswerable = [(vectors, [False] * len(vectors)) for vectors, _ in _synthetic_cases(40, seed=4)]
    assert reader.fit(cases) == reader.fit(cases + unanswerable)


def test_the_file_round_trips_and_a_missing_or_foreign_file_is_said(tmp_path):
    assert reader.load(tmp_path / "none.json") is None
    fitted = reader.fit(_synthetic_cases(30, seed=5))
    path = tmp_path / "reader.json"
    path.write_text(json.dumps(reader.Reader(fitted.weights, fitted.means, fitted.scales, {"set": "dev"}).to_json()))
    loaded = reader.load(path)
    assert loaded.weights == fitted.weights and loaded.fitted_on == {"set": "dev"}
    data = json.loads(path.read_text())
    data["features"] = data["features"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(RuntimeError, match="reader.json: the reader was fitted on other features"):
        reader.load(path)
    path.write_text("{")
    with pytest.raises(RuntimeError, match="reader.json: cannot read the reader"):
        reader.load(path)


def test_the_readers_probability_ranks_the_provisions_that_hold_what_is_asked():
    """Among the provisions that hold the asked kind and enough of the question, the reader's
    probability chooses, not the hand-weighted score."""
    question = "how wide must a driveway be for single-family dwellings and multifamily developments?"
    by_hand = choose(question, "number", ALL, IDF, None, {"17.36.100": 0}).provision
    other = MULTI if by_hand is SINGLE else SINGLE
    read = {(p.document, p.label): (0.7 if p is other else 0.1) for p in ALL}
    chosen = choose(question, "number", ALL, IDF, None, {"17.36.100": 0}, read)
    assert chosen.provision is other and chosen.score == 0.7 and chosen.margin == pytest.approx(0.6)


def test_the_fit_takes_another_feature_set_and_scores_by_it():
    """eval/cross_reader.py fits the same logit over the features plus a cross-encoder's score."""
    names = reader.FEATURES + ("cross",)


    def cases(seed: int) -> list:  # the answer is the candidate with the highest added feature
        rng = random.Random(seed)
        out = []
        for vectors, _ in _synthetic_cases(80, seed=seed):
            extended = [v + [rng.random()] for v in vectors]
            answer = max(range(len(extended)), key=lambda i: extended[i][-1])
            out.append((extended, [i == answer for i in range(len(extended))]))
        return out

    fitted = reader.fit(cases(6), names=names)
    assert fitted.names == names and list(fitted.weights) == list(names)
    assert fitted.weights["cross"] > max(abs(w) for n, w in fitted.weights.items() if n != "cross")
    assert fitted.to_json()["features"] == list(names)
    held = cases(7)
    top = [max(range(len(v)), key=fitted.probabilities(v).__getitem__) for v, _ in held]
    assert sum(answers[i] for (_, answers), i in zip(held, top)) / len(held) > 0.8
