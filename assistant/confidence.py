"""Calibrated confidence: how likely an answer is right, from signals each route can explain.

Each route measures a few signals (how much of a table row's label the question says, the margin
over the next row, whether the quoted sentence holds the kind of answer asked for, whether BM25
and the dense retriever agree, ...). A logistic model per route turns them into a probability;
its weights and the answering threshold are fitted on the dev set (``python -m assistant
calibrate``) and kept in ``data/calibration.json``. An answer below the threshold is declined,
naming the nearest sections: a wrong answer costs more than a refusal.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from .routes import registry as route_registry
from .vocab import DATA

CALIBRATION = DATA / "calibration.json"
# The signals each route reports (routes/*.py / compose.py); the model uses exactly these. Why these:
# Permit answers are judged by signals that do not depend on whether the question used the code's
# own words (dev questions often do, residents' rarely): 5-fold cross-validation on dev kept
# these five over the twelve measured, at the same accuracy with fewer wrong answers; the
# meaning margin (continuous) over a yes/no "meaning agrees", which a near-tie with a sibling
# row (ADU / junior ADU) flipped; and the margin without the raw similarity, which falls with
# every extra word a resident types ("we grow grapes on our property - could we ...") while the
# margin over the next row does not (equal on dev cross-validation). Since a row is as near as the
# nearest of its names (meaning.row_phrases), the similarity is back: on the 505-question dev set
# it raised cross-validated accuracy from 0.677 to 0.703 at the same wrong-answer rate.
# The standards route's "row_tied" (another row fits the words as well; only the count of words the
# question does not say chose) raised dev cross-validated accuracy from 0.724 to 0.730 at the same
# wrong-answer rate: a margin near zero is a different thing from a small margin.
# The passage route's "duration_found" (a time span asked for and quoted) raised it again, to 0.753.
# The definition route's "question_share" (how much of the question is the defined term) tells "what
# is a woonerf?" from "can we put speed bumps in the woonerf?", which a definition does not answer.
# The permit and standards routes' "question_unexplained" (the IDF weight of what the question says
# besides the row's names, its cells and the districts: permits.words_beside) tells "can a cell tower
# be taller in PF than in CG?" from "can I put a cell tower in PF?", which the permit cell answers: on
# the 1,620-question dev set (4 shuffles of group folds) it raised cross-validated accuracy from 0.560
# to 0.566 at 2.8% wrong (not 2.9%), and from 0.492 to 0.528 at the stricter in-sample target of 1%.
# The permit route's "deferred_unexplained" (question_unexplained when every cell used is S, which defers
# the permit to the specific use regulations) tells "does a cell tower in IG need a stealth design?",
# which an S cell does not answer, from "can a cell tower go in HC?": on the 1,632-question dev set,
# 11 of the 13 S answers with more than 11 units of such weight were wrong, 2 of 49 below it.
# The district route's "other_words" (the IDF weight of what the question says besides the district)
# tells "what is the NM district?" from "three townhouses in RR - what does the table say?", which its
# paragraph does not answer; before it the route answered at its prior, 0.9, whatever was asked.
# The reader's signals ("reader_probability", "reader_top", "reader_agrees": assistant/reader.py) are
# measured only when a fitted reader is loaded; on the 1290-question dev set, with folds by paraphrase
# group, they left cross-validated accuracy where it was (0.599 with, 0.601 without, at 2.9-3.0%
# wrong), so no reader is shipped and they count as their dev average.
# The signals themselves are declared once, with each route, in the registry (assistant/routes/registry.py).
FEATURES: dict[str, tuple[str, ...]] = route_registry.signals()
# Signals whose values depend on the embedding model: meaningless under another model.
MODEL_SIGNALS = frozenset({"dense_score", "sentence_similarity", "meaning_margin", "meaning_similarity",
                           "provision_similarity", "reader_probability", "reader_top", "reader_agrees"})
# Before any fit: how often each route tends to be right (only the order matters).
# A whole small table ("standards_table") is shown when its topic is named and no row is: every row
# is a cell of the table, so it is as safe as a section lookup unless cells are unreadable; a
# district's own paragraph ("district"), found by its printed heading, likewise.
# A section found by its title ("section_title") is a guess until dev questions of that kind fit it.
# What an ordinance changed ("change") is read off the cells' history, every line a diff entry, as
# sure as a section lookup. An ordinance's adoption date or number read off another document's history
# note ("ordinance_note": "Ord. 939, 1/13/2026", routes/ordinance.py) is printed data read as printed, likewise.
# A provision a named document added or rewrote ("provision_change", assistant/provision_changes.py) is
# read off the provisions' history too, but chosen by the question's words: as sure as a permit cell.
PRIORS = {"change": 0.9, "ordinance_note": 0.9, "provision_change": 0.8, "ordinance": 0.5, "provision": 0.5, "section_title": 0.6, "section": 0.9, "standards_table": 0.9, "district": 0.9, "permit": 0.8, "standards": 0.7, "definition": 0.6, "passage": 0.4}


@dataclass(frozen=True)
class RouteModel:
    bias: float
    weights: dict[str, float]
    means: dict[str, float]
    scales: dict[str, float]

    def probability(self, signals: dict[str, float]) -> float:
        z = self.bias
        for name, weight in self.weights.items():
            # A signal the route could not measure (no model loaded yet) counts as its dev average.
            value = float(signals.get(name, self.means.get(name, 0.0)))
            z += weight * (value - self.means.get(name, 0.0)) / (self.scales.get(name, 1.0) or 1.0)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@dataclass(frozen=True)
class Calibration:
    threshold: float = 0.0  # answers below it are declined
    routes: dict[str, RouteModel] = field(default_factory=dict)
    fitted_on: dict = field(default_factory=dict)  # what the fit saw (set, questions, figures)
    # "How sure" in words: the lowest confidence of each band, fitted on dev so that held-out answers
    # labelled high are right at least SURE_FLOORS["high"] of the time, medium SURE_FLOORS["medium"].
    bands: dict[str, float] = field(default_factory=dict)

    def confidence(self, route: str, signals: dict[str, float]) -> float | None:
        model = self.routes.get(route)
        if model is not None:
            return model.probability(signals)
        return PRIORS.get(route)

    def how_sure(self, confidence: float | None) -> str:
        """"high", "medium" or "low" (check the cited text) for an answer given; "" when no bands were fitted."""
        if confidence is None or not self.bands:
            return ""
        return next((band for band in ("high", "medium") if band in self.bands and confidence >= self.bands[band]), "low")

    def to_json(self) -> dict:
        return {
            "comment": "Fitted on the dev set by `python -m assistant calibrate`; never on test. "
                       "confidence = logistic(bias + sum(weight * (signal - mean) / scale)) per route.",
            "threshold": self.threshold,
            "bands": self.bands,
            "fitted_on": self.fitted_on,
            "routes": {
                route: {"bias": m.bias, "weights": m.weights, "means": m.means, "scales": m.scales}
                for route, m in sorted(self.routes.items())
            },
        }


UNCALIBRATED = Calibration()
SURE_FLOORS = {"high": 0.98, "medium": 0.90}  # issue 22: what "high" and "medium" promise
MIN_BAND_ANSWERS = 20  # a band is stated only when dev holds at least this many answers in it


def choose_bands(held_out: list[tuple[float, bool]], threshold: float, min_answers: int = MIN_BAND_ANSWERS) -> dict[str, float]:
    """The lowest confidence at which held-out answers at or above it are right SURE_FLOORS["high"]
    of the time (at least MIN_BAND_ANSWERS of them); then the lowest, from the threshold up, at which
    those between it and the high floor are right SURE_FLOORS["medium"] of the time."""
    # Held-out confidences are taken against their fold's threshold and moved to the final one, so
    # some lie above 1: every one of them counts, in whichever band its floor puts it.
    kept = sorted((c, ok) for c, ok in held_out if c >= threshold)
    high = _lowest_floor(kept, SURE_FLOORS["high"], math.inf, min_answers)
    bands = {"high": round(high, 6)} if high < math.inf else {}
    medium = _lowest_floor([(c, ok) for c, ok in kept if c < high], SURE_FLOORS["medium"], high, min_answers)
    if medium < high:
        bands["medium"] = round(medium, 6)
    return bands


def _lowest_floor(pairs: list[tuple[float, bool]], floor: float, ceiling: float, min_answers: int) -> float:
    """The lowest confidence c of ``pairs`` (sorted ascending) whose pairs from c up are right at least
    ``floor`` of the time and number at least ``min_answers``; ``ceiling`` when none."""
    right = total = 0
    best = ceiling
    ordered = list(reversed(pairs))
    for index, (c, ok) in enumerate(ordered):
        right, total = right + ok, total + 1
        tied_below = index + 1 < len(ordered) and ordered[index + 1][0] == c  # a floor takes all its ties
        if not tied_below and total >= min_answers and right / total >= floor:
            best = c
    return best


def read_fitted(path: Path, what: str) -> dict | None:
    """A fitted model's file as JSON; None when there is none; one error naming it when unreadable."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, json.JSONDecodeError) as error:
        raise RuntimeError(f"{path}: cannot read the {what} ({error})") from None


def load(path: Path = CALIBRATION) -> Calibration:
    """The fitted calibration; without the file, priors only and no threshold."""
    data = read_fitted(path, "calibration")
    if data is None:
        return UNCALIBRATED
    routes = {
        route: RouteModel(float(m["bias"]), dict(m["weights"]), dict(m["means"]), dict(m["scales"]))
        for route, m in data.get("routes", {}).items()
    }
    bands = {name: float(value) for name, value in data.get("bands", {}).items()}
    return Calibration(float(data.get("threshold", 0.0)), routes, dict(data.get("fitted_on", {})), bands)


# -- fitting ---------------------------------------------------------------------------------------
def fit_route(rows: list[tuple[dict[str, float], bool]], features: tuple[str, ...], l2: float = 1.0,
              steps: int = 500) -> RouteModel:
    """L2-regularised logistic regression on standardised signals (Newton steps, deterministic)."""
    import numpy as np

    x = np.array([[float(signals.get(name, 0.0)) for name in features] for signals, _ in rows], dtype=float)
    y = np.array([1.0 if right else 0.0 for _, right in rows])
    means = x.mean(axis=0) if len(rows) else np.zeros(len(features))
    scales = x.std(axis=0) if len(rows) else np.ones(len(features))
    scales[scales < 1e-9] = 1.0
    z = (x - means) / scales
    design = np.hstack([np.ones((len(rows), 1)), z])
    w = np.zeros(design.shape[1])
    penalty = np.eye(design.shape[1]) * l2
    penalty[0, 0] = 1e-6  # the bias is not shrunk
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        gradient = design.T @ (p - y) + penalty @ w
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return RouteModel(
        bias=round(float(w[0]), 6),
        weights={name: round(float(v), 6) for name, v in zip(features, w[1:])},
        means={name: round(float(v), 6) for name, v in zip(features, means)},
        scales={name: round(float(v), 6) for name, v in zip(features, scales)},
    )


def choose_threshold(scored: list[tuple[float, bool]], questions: int, max_wrong_rate: float) -> float:
    """The lowest threshold whose answered share keeps wrong answers at or under ``max_wrong_rate``
    of all questions (answers at or above it are kept)."""
    ordered = sorted(scored, key=lambda item: -item[0])
    best = 1.0 + 1e-9
    wrong = 0
    for index, (confidence, right) in enumerate(ordered):
        wrong += not right
        next_confidence = ordered[index + 1][0] if index + 1 < len(ordered) else -1.0
        if wrong / questions <= max_wrong_rate and next_confidence < confidence:
            best = confidence
    return round(best, 6)
