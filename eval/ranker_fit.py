"""Fit the ranker (``assistant/choose.py``) on dev, choose its operating point on the holdout.

``python -m eval.ranker_fit [--folds 5] [--write]``

1. Every dev question's candidates (every route's and the question bank's, the question's own
   paraphrase group left out of the bank) are judged as ``python -m eval`` judges answers: each
   candidate is a labelled example (right or not).
2. A logistic model over ``choose.features`` is fitted with folds by paraphrase group; each dev
   question's held-out best candidate gives dev's cross-validated risk-coverage.
3. The model fitted on all of dev scores the holdout; the operating point is the lowest threshold at
   which the holdout's wrong answers stay at or under the risk target. Only aggregate figures of the
   holdout are printed or recorded (it is sealed: no item, id or miss).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .gold import SETS, GoldItem, load_gold

DEV, HOLDOUT = SETS["dev"], SETS["holdout"]


@dataclass(frozen=True)
class Example:
    question: int  # index of the question in its set
    features: dict
    right: bool


@dataclass(frozen=True)
class Judged:
    """One question: its candidates' examples, and whether declining it is right (gold abstain)."""

    examples: tuple[Example, ...]
    abstain: bool
    group: str


def judged_gold(items: Sequence[GoldItem], res, dev: bool):
    """(index, item, [(features, candidate, right)]) for each gold question the ranker answers: its
    candidates judged as ``python -m eval`` judges answers (a dev question's paraphrase group out of
    the bank). Questions of another day or of a document's changes are skipped (service.py answers them)."""
    from assistant import chooser, timepoint
    from assistant.bank import question_key

    from .bank_eval import dev_groups
    from .records import parse_answer
    from .score import judge_answer

    groups = dev_groups(items) if dev else {}
    documents = list(res.corpus.documents.values())
    try:
        for n, item in enumerate(items):
            if timepoint.asked_change(item.question, documents) or timepoint.asked_time(item.question, documents):
                continue
            res.bank_left_out = groups.get(question_key(item.question), frozenset())
            query = res.read(item.question)
            pairs, _ = chooser.scored(query, res)
            judged = []
            for feats, candidate in pairs:
                answer = chooser.interpreted(query, chooser._given(query, candidate, res), res)
                view = parse_answer({**answer.to_dict(), "question": item.question}, item.id)
                judged.append((feats, candidate, judge_answer(item, view).outcome == "right"))
            yield n, item, judged
    finally:
        res.bank_left_out = frozenset()


def judge_candidates(items: Sequence[GoldItem], res, dev: bool, progress=None) -> list[Judged]:
    judged = []
    for n, item, pairs in judged_gold(items, res, dev):
        examples = tuple(Example(n, feats, right) for feats, _, right in pairs)
        judged.append(Judged(examples, item.abstain, item.group or item.id))
        if progress and n % 200 == 0:
            progress(f"{n}/{len(items)}")
    return judged


def answers_unit(candidate, unit, slots: dict) -> bool:
    """Whether a candidate answers the bank question's unit for the question's own districts: the
    label of a bank question used as training data (no gold answer: the unit is the gold)."""
    answer = candidate.answer
    key = unit.key
    if unit.kind in ("permit_row", "standards"):
        cells = [c for c in answer.lookups if c.get("row") == key["row"]]
        districts = [d for d in slots.get("district", []) if isinstance(d, str)]
        if unit.kind == "standards" and not key["table"] in ("2-17", "2-18"):
            cells = [c for c in cells if c.get("table") == key["table"]]
        return bool(cells) and (not districts or unit.kind == "standards"
                                or all(any(c.get("column") == d for c in cells) for d in districts))
    interpretation = answer.interpretation if isinstance(answer.interpretation, dict) else {}
    quotes = " ".join(c.quote for c in answer.citations)
    text = " ".join(unit.text.split())[:80]
    if unit.kind == "provision":
        return interpretation.get("provision") == key["label"] or interpretation.get("unit") == unit.id or (
            bool(text) and text in " ".join(quotes.split()))
    if unit.kind == "definition":
        return answer.route == "definition" and text[:40] in " ".join(quotes.split())
    if unit.kind == "section":
        return answer.route in ("section", "section_title") and any(c.section == unit.section for c in answer.citations)
    if unit.kind == "district":
        return answer.route == "district" and key["symbol"] in answer.first_line
    if unit.kind == "ordinance_fact":
        return answer.route in ("ordinance", "ordinance_note") and interpretation.get("document") == key["document"]
    return False


def judge_bank_questions(entries, res, progress=None, left_out: str = "self") -> list[Judged]:
    """Written bank questions as training questions, their candidates labelled by ``answers_unit``;
    grouped by unit and batch (one writer's questions about one unit share a fold). Each is scored with
    ``left_out`` out of the bank: "self" (the question alone) or "writer" (its writer's questions about
    its unit, as an unseen asker finds none of that wording)."""
    from assistant import bank as bank_mod
    from assistant import chooser

    siblings: dict[str, set[str]] = {}
    if left_out == "writer":
        for entry in bank_mod.load():
            siblings.setdefault(f"{entry.batch}:{entry.unit}", set()).add(entry.question)
    judged = []
    for n, entry in enumerate(entries):
        unit = res.unit(entry.unit)
        if unit is None:
            continue
        res.bank_left_out = frozenset(siblings.get(f"{entry.batch}:{entry.unit}", ())) | {entry.question}
        query = res.read(entry.question)
        pairs, _ = chooser.scored(query, res)
        examples = tuple(Example(n, feats, answers_unit(c, unit, entry.slots)) for feats, c in pairs)
        judged.append(Judged(examples, False, f"{entry.batch}:{entry.unit}"))
        if progress and n % 500 == 0:
            progress(f"bank {n}/{len(entries)}")
    res.bank_left_out = frozenset()
    return judged


def matrix(examples: Sequence[Example], names: Sequence[str]):
    import numpy as np

    x = np.zeros((len(examples), len(names)), dtype="float64")
    index = {name: i for i, name in enumerate(names)}
    for row, example in enumerate(examples):
        for name, value in example.features.items():
            if name in index:
                x[row, index[name]] = value
    return x


def fit(examples: Sequence[Example], names: Sequence[str], l2: float, weights: Sequence[float] | None = None):
    """(means, scales, weights, bias) of an L2-penalised logistic regression (Newton's method);
    ``weights``: each example's weight (1 each by default)."""
    import numpy as np

    x = matrix(examples, names)
    y = np.array([e.right for e in examples], dtype="float64")
    v = np.ones(len(examples)) if weights is None else np.asarray(weights, dtype="float64")
    means = x.mean(axis=0)
    scales = x.std(axis=0)
    scales[scales < 1e-9] = 1.0
    z = np.hstack([(x - means) / scales, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0  # the bias is not penalised
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -30, 30)))
        gradient = z.T @ (v * (p - y)) + penalty * w
        hessian = (z * (v * p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return means, scales, w[:-1], float(w[-1])


def ranker_of(examples: Sequence[Example], names: Sequence[str], settings, fitted_on: dict | None = None,
              extra: Sequence[Example] = ()):
    """The ranker fitted on ``examples`` (dev's) and ``extra`` (bank questions', weighted by the settings)."""
    from assistant.choose import Ranker

    weights_ = [1.0] * len(examples) + [settings.bank_train_weight] * len(extra)
    means, scales, weights, bias = fit(list(examples) + list(extra), names, settings.l2, weights_)
    return Ranker(settings, tuple(names), tuple(map(float, means)), tuple(map(float, scales)),
                  tuple(map(float, weights)), bias, fitted_on or {})


def best_per_question(judged: Sequence[Judged], ranker) -> list[tuple[float, bool, bool]]:
    """(best candidate's probability, it is right, gold abstain) per question; (0, False, abstain) with none."""
    from assistant.choose import order_key  # noqa: F401 - the same tie rule as answering: by probability

    found = []
    for question in judged:
        scored = sorted(((ranker.probability(e.features), e.right) for e in question.examples), key=lambda t: -t[0])
        found.append((scored[0][0], scored[0][1], question.abstain) if scored else (0.0, False, question.abstain))
    return found


def curve_at(best: Sequence[tuple[float, bool, bool]], threshold: float) -> dict:
    """Right, wrong and declined at ``threshold``: a declined question is right when gold abstains."""
    right = wrong = declined = 0
    for probability, is_right, abstain in best:
        if probability >= threshold:
            right += is_right
            wrong += not is_right
        else:
            declined += 1
            right += abstain
    n = max(len(best), 1)
    return {"threshold": round(threshold, 4), "right": right, "wrong": wrong, "declined": declined,
            "accuracy": round(right / n, 4), "wrong_rate": round(wrong / n, 4)}


def operating_point(best: Sequence[tuple[float, bool, bool]], risk: float) -> float:
    """The lowest threshold whose wrong answers stay within ``risk`` of the questions."""
    thresholds = sorted({round(p, 6) for p, _, _ in best} | {1.0})
    chosen = 1.0
    for threshold in reversed(thresholds):
        if curve_at(best, threshold)["wrong_rate"] <= risk:
            chosen = threshold
        else:
            break
    return chosen


def held_bands(dev_cv: Sequence[tuple[float, bool, bool]], holdout: Sequence[tuple[float, bool, bool]],
               threshold: float) -> tuple[dict[str, float], dict]:
    """"How sure" bands: floors chosen on dev's cross-validated answers (``confidence.choose_bands``:
    "high" right at least 98% of the time, "medium" 90%), each kept only when the holdout's answers in
    its range are at least ``MIN_BAND_ANSWERS`` and right at least as often. Returns the kept bands and
    each band's aggregate figures on both sets."""
    from assistant.confidence import MIN_BAND_ANSWERS, SURE_FLOORS, choose_bands

    proposed = choose_bands([(p, right) for p, right, _ in dev_cv], threshold)
    floors = sorted(proposed.items(), key=lambda kv: -kv[1])
    kept, figures = {}, {}
    ceiling = float("inf")  # a band not kept leaves its answers to the band below (they are stated as that band)
    for band, floor in floors:
        inside = lambda rows: [right for p, right, _ in rows if floor <= p < ceiling]  # noqa: E731
        on_dev, on_holdout = inside(dev_cv), inside(holdout)
        holds = len(on_holdout) >= MIN_BAND_ANSWERS and sum(on_holdout) >= SURE_FLOORS[band] * len(on_holdout)
        figures[band] = {"floor": floor, "dev": f"{sum(on_dev)}/{len(on_dev)}",
                         "holdout": f"{sum(on_holdout)}/{len(on_holdout)}", "holds": holds}
        if holds:
            kept[band] = floor
            ceiling = floor
    return kept, figures


def folds_of(judged: Sequence[Judged], k: int) -> list[int]:
    import hashlib

    return [int(hashlib.sha256(q.group.encode()).hexdigest(), 16) % k for q in judged]


def cross_validated(judged: Sequence[Judged], names: Sequence[str], settings, k: int, extra: Sequence[Judged] = ()):
    """Each question's best candidate as a model fitted without its fold (folds by paraphrase group) scores it;
    ``extra`` (bank questions) join every fold's training."""
    fold = folds_of(judged, k)
    best = [None] * len(judged)
    more = [e for q in extra for e in q.examples]
    for f in range(k):
        train = [e for q, g in zip(judged, fold) if g != f for e in q.examples]
        ranker = ranker_of(train, names, settings, extra=more)
        held = [i for i, g in enumerate(fold) if g == f]
        for i, found in zip(held, best_per_question([judged[i] for i in held], ranker)):
            best[i] = found
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.ranker_fit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="write assistant/data/ranker.json")
    parser.add_argument("--bank-train", type=int, default=None, metavar="N",
                        help="also train on N written bank questions (every k-th), labelled by their unit "
                             "(default: the settings' bank_train)")
    parser.add_argument("--bank-left-out", choices=("self", "writer"), default=None,
                        help="what leaves the bank while a bank question is scored (default: the settings')")
    parser.add_argument("--cache", default="", help="reuse (or save) judged candidates in this pickle-free JSON file")
    args = parser.parse_args(argv)

    from assistant.choose import RANKER, Settings

    if args.write:
        from assistant import verifier as verifier_mod

        if (verifier_mod.VERIFIER_DIR / verifier_mod.MANIFEST_FILE).is_file():
            print(f"{verifier_mod.VERIFIER_DIR}: a verifier is shipped; the ranker's two stages are fitted together "
                  "with `python -m eval.verifier_fit --write`", file=sys.stderr)
            return 2
    settings = Settings()
    if args.bank_left_out:
        settings = replace(settings, bank_train_left_out=args.bank_left_out)
    started = time.perf_counter()
    dev_items, holdout_items = load_gold(DEV), load_gold(HOLDOUT)
    cached = Path(args.cache) if args.cache else None
    if cached and cached.is_file():
        stored = json.loads(cached.read_text(encoding="utf-8"))
        dev, holdout = (_judged_from(stored[name]) for name in ("dev", "holdout"))
        bank_questions = _judged_from(stored.get("bank", []))
    else:
        from assistant.service import load_assistant

        res = load_assistant(calibrated=False).resources
        say = lambda text: print(f"  judging {text} ({time.perf_counter() - started:.0f} s)", file=sys.stderr)  # noqa: E731
        dev = judge_candidates(dev_items, res, dev=True, progress=say)
        holdout = judge_candidates(holdout_items, res, dev=False, progress=say)
        bank_questions = []
        if args.bank_train is None:
            args.bank_train = settings.bank_train
        if args.bank_train:
            from assistant import bank as bank_mod

            written = [e for e in bank_mod.load() if e.style != "dev"]
            step = max(1, len(written) // args.bank_train)
            bank_questions = judge_bank_questions(written[::step][:args.bank_train], res, progress=say,
                                                  left_out=settings.bank_train_left_out)
        if cached:
            cached.write_text(json.dumps({"dev": _judged_json(dev), "holdout": _judged_json(holdout),
                                          "bank": _judged_json(bank_questions)}), encoding="utf-8")
    names = sorted({name for q in dev for e in q.examples for name in e.features})
    cv = cross_validated(dev, names, settings, args.folds, bank_questions)
    dev_point = operating_point(cv, settings.risk_target)
    ranker = ranker_of([e for q in dev for e in q.examples], names, settings,
                       extra=[e for q in bank_questions for e in q.examples])
    on_holdout = best_per_question(holdout, ranker)
    threshold = operating_point(on_holdout, settings.risk_target)
    # The holdout's own estimate of the threshold's spread: chosen on one half, measured on the other.
    halves = [[b for i, b in enumerate(on_holdout) if i % 2 == h] for h in (0, 1)]
    swapped = [curve_at(halves[1 - h], operating_point(halves[h], settings.risk_target)) for h in (0, 1)]
    bands, band_figures = held_bands(cv, on_holdout, threshold)
    report = {
        "dev_questions": len(dev), "holdout_questions": len(holdout), "features": len(names),
        "dev_candidates": sum(len(q.examples) for q in dev),
        "dev_oracle": round(sum(any(e.right for e in q.examples) or (q.abstain and not q.examples) for q in dev) / len(dev), 4),
        "holdout_oracle": round(sum(any(e.right for e in q.examples) or (q.abstain and not q.examples)
                                    for q in holdout) / len(holdout), 4),
        "dev_cross_validated_at_dev_point": curve_at(cv, dev_point),
        "dev_cross_validated_at_operating_point": curve_at(cv, threshold),
        "holdout_at_operating_point": curve_at(on_holdout, threshold),
        "holdout_halves_swapped": swapped,
        "bands": band_figures,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(report, indent=1))
    if args.write:
        from index import dense

        final = replace(ranker, settings=replace(settings, threshold=threshold),
                        fitted_on={"model": dense.model_id(), "dev": report["dev_cross_validated_at_operating_point"],
                                   "holdout": report["holdout_at_operating_point"],
                                   "holdout_halves_swapped": swapped, "folds": args.folds,
                                   "bands": band_figures}, bands=bands)
        RANKER.write_text(json.dumps(final.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {RANKER} (threshold {threshold})", file=sys.stderr)
    return 0


def _judged_json(judged: Sequence[Judged]) -> list:
    return [{"abstain": q.abstain, "group": q.group,
             "examples": [{"q": e.question, "f": e.features, "r": e.right} for e in q.examples]} for q in judged]


def _judged_from(rows: list) -> list[Judged]:
    return [Judged(tuple(Example(e["q"], e["f"], e["r"]) for e in q["examples"]), q["abstain"], q["group"]) for q in rows]


if __name__ == "__main__":
    sys.exit(main())
