"""The reader: how likely each provision of the sections the search found is to answer a question.

A scoring head over the shipped model's frozen embeddings and the question's words (issue 27's
feature reader): for every candidate provision it measures how close in meaning its text and its
heading path are to the question, how much of the question's word weight they carry, how much of
its printed head the question says, how high its section ranks, whether it holds a value of the
kind asked, and those measures against the best of the other candidates. A conditional logit (a
softmax over the question's candidates) turns them into the probability that each one is the
provision that answers. Its weights are fitted on dev (``python -m assistant train-reader``, folds
by paraphrase group) and kept in ``data/reader.json``; without that file there is no reader and the
routes keep their hand-weighted choice.

Pure functions and one small record; numpy only. Nothing here loads a model or reads the index:
the caller passes the similarities.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .confidence import read_fitted
from .passages import question_weight
from .provision_choice import LIST_ASKS, coverage, head_said, list_of, values_of, wanted_kinds
from .vocab import DATA

READER = DATA / "reader.json"
# What is measured of each candidate (``measure``); ``RELATIVE`` ones are also taken against the
# best candidate of the same question, which is what tells one provision from its neighbours.
MEASURES = ("sim_text", "sim_path", "cov_text", "cov_all", "head", "section_rank", "both_retrievers", "fits",
            "asks_no_value", "is_item", "is_note", "words", "values")
RELATIVE = ("sim_text", "sim_path", "cov_text", "cov_all")
FEATURES = (MEASURES + tuple(f"{name}_behind_best" for name in RELATIVE)
            + ("fits_and_asks_value", "fits_times_sim_text"))


def path_text(provision) -> str:
    """What the heading path says of a provision: its headings and its printed head."""
    return " > ".join(provision.path) + (f" {provision.head}" if provision.head else "")


def key_of(provision) -> tuple[str, str]:
    return provision.document, provision.label


@dataclass(frozen=True)
class Question:
    """What the reader needs of one question besides its candidates."""

    text: str
    asked: str  # answer_type.asked
    section_rank: Mapping[str, int]  # section -> position in the search's ranking (0 first)
    both_retrievers: frozenset[str]  # sections BM25 and the dense search both found


def measure(question: Question, provisions: Sequence, idf: Mapping[str, float],
            text_meaning: Mapping[str, float], path_meaning: Mapping[str, float]) -> list[dict[str, float]]:
    """The measures of each candidate provision, in order."""
    kinds = wanted_kinds(question.asked, question.text)
    weight = question_weight(question.text, idf)
    asks_value = bool(kinds) or question.asked in LIST_ASKS
    rows = []
    for p in provisions:
        if kinds:
            fits = bool(values_of(p, kinds))
        else:
            fits = question.asked in LIST_ASKS and bool(list_of(p, provisions)[1])
        rows.append({
            "sim_text": text_meaning.get(p.text, 0.0), "sim_path": path_meaning.get(path_text(p), 0.0),
            "cov_text": coverage(question.text, p.text, idf, weight),
            "cov_all": coverage(question.text, p.text + " " + " ".join(p.path), idf, weight),
            "head": head_said(question.text, p), "section_rank": 1.0 / (1 + question.section_rank.get(p.section, 9)),
            "both_retrievers": float(p.section in question.both_retrievers), "fits": float(fits),
            "asks_no_value": float(not asks_value), "is_item": float(p.kind == "item"), "is_note": float(p.kind == "note"),
            "words": math.log(1 + len(p.text.split())), "values": float(min(3, len(p.values))),
        })
    return rows


def features(rows: Sequence[Mapping[str, float]]) -> list[list[float]]:
    """The feature vector (``FEATURES`` order) of each candidate, from its measures and the best
    measures among the question's candidates."""
    best = {name: max((r[name] for r in rows), default=0.0) for name in RELATIVE}
    return [[r[name] for name in MEASURES] + [r[name] - best[name] for name in RELATIVE]
            + [r["fits"] * (1.0 - r["asks_no_value"]), r["fits"] * r["sim_text"]] for r in rows]


@dataclass(frozen=True)
class Reader:
    weights: dict[str, float]
    means: dict[str, float]
    scales: dict[str, float]
    fitted_on: dict = field(default_factory=dict)
    names: tuple[str, ...] = FEATURES  # the features, in vector order (another set: eval/cross_reader.py)

    def probabilities(self, vectors: Sequence[Sequence[float]]) -> list[float]:
        """The softmax over one question's candidates of their linear scores."""
        if not vectors:
            return []
        scores = [sum(self.weights[name] * (value - self.means[name]) / (self.scales[name] or 1.0)
                      for name, value in zip(self.names, vector)) for vector in vectors]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return [e / total for e in exps]

    def to_json(self) -> dict:
        return {
            "comment": "Fitted on the dev set by `python -m assistant train-reader`; never on test. "
                       "p(candidate) = softmax over the question's candidates of sum(weight * (feature - mean) / scale).",
            "features": list(self.names), "weights": self.weights, "means": self.means, "scales": self.scales,
            "fitted_on": self.fitted_on,
        }


def load(path: Path = READER) -> Reader | None:
    """The fitted reader, or None without its file (the routes then choose by hand-weighted score)."""
    data = read_fitted(path, "reader")
    if data is None:
        return None
    if tuple(data.get("features", ())) != FEATURES:
        raise RuntimeError(f"{path}: the reader was fitted on other features; retrain it (python -m assistant train-reader)")
    return Reader(dict(data["weights"]), dict(data["means"]), dict(data["scales"]), dict(data.get("fitted_on", {})))


def fit(cases: Sequence[tuple[Sequence[Sequence[float]], Sequence[bool]]], l2: float = 1.0, steps: int = 100,
        names: tuple[str, ...] = FEATURES) -> Reader:
    """The conditional logit over standardised features (``names``, in vector order) that makes each
    question's answering candidates likely (Newton steps with an L2 penalty; deterministic). A
    question without an answering candidate teaches nothing about which one answers and is left out."""
    import numpy as np

    used = [(np.asarray(x, dtype=float), np.asarray(y, dtype=bool)) for x, y in cases if any(y) and len(y) > 1]
    stacked = np.vstack([x for x, _ in used])
    means, scales = stacked.mean(axis=0), stacked.std(axis=0)
    scales[scales < 1e-9] = 1.0
    standard = [((x - means) / scales, y) for x, y in used]
    w = np.zeros(len(names))
    loss = _loss(standard, w, l2)
    for _ in range(steps):
        gradient, hessian = l2 * w, l2 * np.eye(len(w))
        for x, y in standard:
            p = _softmax(x @ w)
            q = np.where(y, p, 0.0) / p[y].sum()  # the answering candidates' share of the probability
            gradient += x.T @ (p - q)
            hessian += x.T @ (x * p[:, None]) - np.outer(x.T @ p, x.T @ p)
        step = np.linalg.solve(hessian, gradient)
        while _loss(standard, w - step, l2) > loss and np.abs(step).max() > 1e-10:
            step /= 2  # the Newton step overshoots where the loss is far from quadratic: halve it
        w -= step
        previous, loss = loss, _loss(standard, w, l2)
        if previous - loss < 1e-9:
            break
    return Reader({n: round(float(v), 6) for n, v in zip(names, w)},
                  {n: round(float(v), 6) for n, v in zip(names, means)},
                  {n: round(float(v), 6) for n, v in zip(names, scales)}, names=tuple(names))


def _loss(standard, w, l2: float) -> float:
    """The negative log-likelihood that each question's answer is among its answering candidates."""
    import numpy as np

    total = 0.5 * l2 * float(w @ w)
    for x, y in standard:
        s = x @ w
        top = s.max()
        total += float(np.log(np.exp(s - top).sum()) - np.log(np.exp(s[y] - top).sum()))
    return total


def _softmax(scores):
    import numpy as np

    e = np.exp(scores - scores.max())
    return e / e.sum()
