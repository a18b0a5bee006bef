"""Fit the ranker's two stages on the labelled candidates and the verifier's scores (issue 43, step 3).

``python -m eval.verifier_fit [--judged var/verifier/judged] [--folds 5] [--encoder DIR] [--write]``

The first stage is the signals-only ranker (``choose.features``, as ``eval/ranker_fit.py`` fits
it): dev and the written bank questions. The second (``choose.Head``) is a logistic model over
``choose.verifier_features`` of each question's best ``verifier_top`` candidates. Its training
examples must carry first-stage probabilities and verifier scores that were not fitted on them:
dev's come from first stages fitted without their fold (folds by paraphrase group), and the bank
batches the verifier was not trained on (``Settings.verifier_batches``) from a first stage fitted
without those batches. The holdout is scored by the final models; its aggregate alone chooses each
stage's operating point (wrong answers at most the settings' risk target) and keeps the "How sure"
bands that hold on it. Only aggregate figures are printed.

The rows must have been scored with the question encoder the ranker will run with (the shipped one,
or ``--encoder DIR`` to measure another without writing): dev's and the holdout's by it; the bank's
by it too (the first stage then leaves out the batches it was trained on), or every bank row by a
fold encoder not trained on the row's batch (``verifier_data --fold-encoders``; then all the bank is
used). Anything else is refused in one line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from .ranker_fit import (Example, Judged, best_per_question, curve_at, folds_of, held_bands, operating_point,
                         ranker_of)
from .verifier_data import open_encoder
from .verifier_train import batch_of, read_judged


def judged_of(rows: list[dict]) -> list[Judged]:
    return [Judged(tuple(Example(n, e["f"], bool(e["r"])) for e in row["examples"]), bool(row["abstain"]), row["group"])
            for n, row in enumerate(rows)]


def first_stage(fit_on: list[Judged], extra: list[Judged], names, settings):
    return ranker_of([e for q in fit_on for e in q.examples], names, settings,
                     extra=[e for q in extra for e in q.examples])


def top_of(row: dict, ranker, top: int) -> list[tuple[float, dict]]:
    """The question's best ``top`` candidates by the first stage: (probability, example)."""
    scored = sorted(((ranker.probability(e["f"]), e) for e in row["examples"]), key=lambda t: (-round(t[0], 12), t[1]["t"]))
    return scored[:top]


class Scores:
    """The verifier's probabilities, cached by question, statement and model (re-fits read them again)."""

    def __init__(self, verifier, path: Path):
        self.verifier, self.path = verifier, path
        self.model = verifier.manifest["files"]["verifier.onnx"][:16]
        self.cache = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}

    def key(self, question: str, statement: str) -> str:
        return hashlib.sha256(f"{self.model}\t{question}\t{statement}".encode()).hexdigest()[:24]

    def of(self, question: str, statements: list[str]) -> list[float]:
        missing = [s for s in statements if self.key(question, s) not in self.cache]
        if missing:
            for s, v in zip(missing, self.verifier.score(question, missing)):
                self.cache[self.key(question, s)] = v
        return [self.cache[self.key(question, s)] for s in statements]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(self.cache), encoding="utf-8")
        partial.replace(self.path)


def second_examples(rows: list[dict], rankers: list, scores: Scores, top: int, say=None) -> list[Judged]:
    """Per question: its top candidates' ``verifier_features`` with their labels (``rankers``: the
    first stage that scores each row)."""
    from assistant.choose import verifier_features

    found = []
    started = time.perf_counter()
    for n, (row, ranker) in enumerate(zip(rows, rankers)):
        best = top_of(row, ranker, top)
        read = scores.of(row["question"], [e["t"] for _, e in best])
        examples = []
        for i, ((p, e), v) in enumerate(zip(best, read)):
            feats = verifier_features(p, v, [w for j, w in enumerate(read) if j != i], i == 0)
            examples.append(Example(n, feats, bool(e["r"])))
        found.append(Judged(tuple(examples), bool(row["abstain"]), row["group"]))
        if say and n % 500 == 0:
            say(f"verifier read {n}/{len(rows)} questions ({time.perf_counter() - started:.0f} s)")
            scores.save()
    scores.save()
    return found


def head_of(examples: list[Judged], extra: list[Judged], settings, threshold: float = 1.0, bands=None, verifier=""):
    from assistant.choose import VERIFIER_FEATURES, Head

    fitted = ranker_of([e for q in examples for e in q.examples], VERIFIER_FEATURES, settings,
                       extra=[e for q in extra for e in q.examples])
    return Head(fitted.names, fitted.means, fitted.scales, fitted.weights, fitted.bias, threshold, bands or {}, verifier)


def question_encoder_id() -> str:
    """The shipped question encoder's id ("" when none is shipped or ``COTATI_ENCODER`` is off)."""
    return question_encoder_of()[0]


def question_encoder_of(folder: str = "") -> tuple[str, tuple]:
    """(id, bank batches it was trained on) of the encoder in ``folder``, or of the shipped one when
    ``COTATI_ENCODER`` is on; ("", ()) when there is none."""
    import settings as settings_mod

    from assistant import encoder as encoder_mod

    if folder:
        found = open_encoder(folder)
    else:
        found = encoder_mod.load() if settings_mod.value("encoder") else None
    if found is None:
        return "", ()
    return found.model_id, found.trained_batches


def bank_to_fit(dev_rows: list[dict], holdout_rows: list[dict], bank_rows: list[dict], encoder: str,
                trained: tuple, seen_allowed: bool) -> tuple[list[dict], list[str], str]:
    """(the bank rows the first stage may learn from, the fold encoders' ids, "" or the one line why
    the rows cannot be fitted with ``encoder``, trained on bank batches ``trained``).

    Dev and the holdout must be scored by ``encoder``. The bank either by it too, its rows of the
    batches it was trained on then left out (unless ``seen_allowed``): they sit nearer their units'
    other questions than a new question would; or every row by a fold encoder (``fold``) whose
    recorded training batches exclude the row's batch: then every row is kept."""
    stale = {r.get("encoder", "") for r in dev_rows + holdout_rows} - {encoder}
    folded = [r for r in bank_rows if r.get("fold")]
    if not folded:
        stale |= {r.get("encoder", "") for r in bank_rows} - {encoder}
    if stale:
        return [], [], (f"judged with another question encoder ({', '.join(sorted(stale)) or 'none'}, not "
                        f"{encoder or 'none'}); run `python -m eval.verifier_data` again")
    if not folded:
        seen = set(trained) if encoder and not seen_allowed else set()
        return [r for r in bank_rows if batch_of(r) not in seen], [], ""
    if len(folded) != len(bank_rows):
        return [], [], (f"the bank's rows mix {len(folded)} scored by fold encoders with {len(bank_rows) - len(folded)} "
                        f"scored otherwise; run `python -m eval.verifier_data --sets bank --fold-encoders ...` again")
    unfair = [r for r in folded if not r.get("encoder") or not r.get("encoder_batches")
              or batch_of(r) in set(r["encoder_batches"]) or r.get("encoder") == encoder]
    if unfair:
        return [], [], (f"{len(unfair)} bank rows were scored by a fold encoder trained on their own batch, "
                        f"by {encoder or 'none'} itself, or by one that is not recorded; "
                        f"run `python -m eval.verifier_data --sets bank --fold-encoders ...` again")
    return bank_rows, sorted({r["encoder"] for r in folded}), ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.verifier_fit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--judged", default="var/verifier/judged")
    parser.add_argument("--bank-judged", default="", help="the bank's rows from another prefix (default: --judged)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--scores", default="var/verifier/scores.json", help="the verifier's probabilities, cached")
    parser.add_argument("--write", action="store_true", help="write assistant/data/ranker.json (both stages)")
    parser.add_argument("--encoder", default="",
                        help="the question encoder in DIR is the one the rows must be scored with (default: the "
                             "shipped one); a measurement only: --write needs it shipped")
    args = parser.parse_args(argv)

    from assistant import choose
    from assistant import verifier as verifier_mod
    from index import dense

    say = lambda text: print(f"  {text}", file=sys.stderr, flush=True)  # noqa: E731
    started = time.perf_counter()
    settings = choose.Settings()
    verifier = verifier_mod.load()
    if verifier is None:
        print(f"{verifier_mod.VERIFIER_DIR}: no verifier; train one with `python -m eval.verifier_train`", file=sys.stderr)
        return 2
    dev_rows, holdout_rows = read_judged(args.judged, "dev"), read_judged(args.judged, "holdout")
    bank_rows = read_judged(args.bank_judged or args.judged, "bank")
    trained = tuple(settings.verifier_batches)
    spare = [r for r in bank_rows if batch_of(r) not in trained]  # bank questions the verifier never read
    encoder, encoder_trained = question_encoder_of(args.encoder)
    if args.write and args.encoder and encoder != question_encoder_id():
        print(f"--write: {args.encoder} is not the shipped question encoder; copy it to assistant/data/encoder "
              f"and fit without --encoder", file=sys.stderr)
        return 2
    # Bank questions the encoder was trained on sit nearer their units' other questions than a new
    # question would: the first stage learns the bank's signals from the others only, unless every
    # bank row was scored by a fold encoder that never saw it.
    kept, fold_ids, refused = bank_to_fit(dev_rows, holdout_rows, bank_rows, encoder,
                                          encoder_trained or tuple(settings.encoder_batches),
                                          settings.ranker_bank_seen_by_encoder)
    if refused:
        print(f"{args.judged}: {refused}", file=sys.stderr)
        return 2
    kept_ids = {id(r) for r in kept}
    bank_rows = kept
    spare = [r for r in spare if id(r) in kept_ids]
    dev, holdout, bank = judged_of(dev_rows), judged_of(holdout_rows), judged_of(bank_rows)
    names = sorted({name for q in dev for e in q.examples for name in e.features})

    # -- the first stage, as eval/ranker_fit.py fits it --
    final_one = first_stage(dev, bank, names, settings)
    one_holdout = best_per_question(holdout, final_one)
    one_point = operating_point(one_holdout, settings.risk_target)
    fold = folds_of(dev, args.folds)
    dev_rankers = [None] * len(dev)
    one_cv = [None] * len(dev)
    for f in range(args.folds):
        ranker = first_stage([q for q, g in zip(dev, fold) if g != f], bank, names, settings)
        held = [i for i, g in enumerate(fold) if g == f]
        for i, found in zip(held, best_per_question([dev[i] for i in held], ranker)):
            dev_rankers[i], one_cv[i] = ranker, found
    spare_ranker = first_stage(dev, judged_of([r for r in bank_rows if batch_of(r) in trained]), names, settings)
    say(f"first stage fitted ({time.perf_counter() - started:.0f} s)")

    # -- the verifier's scores and the second stage --
    scores = Scores(verifier, Path(args.scores))
    top = settings.verifier_top
    two_dev = second_examples(dev_rows, dev_rankers, scores, top, say)
    two_spare = second_examples(spare, [spare_ranker] * len(spare), scores, top, say)
    two_holdout = second_examples(holdout_rows, [final_one] * len(holdout_rows), scores, top, say)
    two_cv = [None] * len(dev)
    for f in range(args.folds):
        head = head_of([q for q, g in zip(two_dev, fold) if g != f], two_spare, settings)
        held = [i for i, g in enumerate(fold) if g == f]
        for i, found in zip(held, best_per_question([two_dev[i] for i in held], head)):
            two_cv[i] = found
    data_hash = verifier.manifest.get("training_data", {}).get("hash", "")
    head = head_of(two_dev, two_spare, settings, verifier=data_hash)
    two_holdout_best = best_per_question(two_holdout, head)
    two_point = operating_point(two_holdout_best, settings.risk_target)
    bands, band_figures = held_bands(two_cv, two_holdout_best, two_point)
    one_bands, one_band_figures = held_bands(one_cv, one_holdout, one_point)
    oracle = lambda judged: round(sum(any(e.right for e in q.examples) or (q.abstain and not q.examples)  # noqa: E731
                                      for q in judged) / max(1, len(judged)), 4)
    report = {
        "dev_questions": len(dev), "holdout_questions": len(holdout), "bank_questions": len(bank),
        "spare_bank_questions": len(spare),
        "oracle": {"dev_all": oracle(dev), "dev_top": oracle(two_dev), "holdout_all": oracle(holdout),
                   "holdout_top": oracle(two_holdout)},
        "signals_only": {"point": one_point, "dev_cross_validated": curve_at(one_cv, one_point),
                         "dev_cross_validated_at_own_point": curve_at(one_cv, operating_point(one_cv, settings.risk_target)),
                         "holdout": curve_at(one_holdout, one_point), "bands": one_band_figures},
        "with_verifier": {"point": two_point, "dev_cross_validated": curve_at(two_cv, two_point),
                          "dev_cross_validated_at_own_point": curve_at(two_cv, operating_point(two_cv, settings.risk_target)),
                          "holdout": curve_at(two_holdout_best, two_point), "bands": band_figures,
                          "weights": dict(zip(head.names, head.weights))},
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(report, indent=1))
    if args.write:
        final = replace(final_one, settings=replace(settings, threshold=one_point), bands=one_bands,
                        fitted_on={"model": dense.model_id(), "encoder": encoder,
                                   **({"bank_fold_encoders": fold_ids} if fold_ids else {}),
                                   "dev": report["signals_only"]["dev_cross_validated"],
                                   "holdout": report["signals_only"]["holdout"], "folds": args.folds,
                                   "bands": one_band_figures,
                                   "verifier_stage": {k: report["with_verifier"][k]
                                                      for k in ("dev_cross_validated", "holdout", "bands")}},
                        head=replace(head, threshold=two_point, bands=bands) if settings.verifier_decides else None)
        choose.RANKER.write_text(json.dumps(final.to_json(), indent=1) + "\n", encoding="utf-8")
        decides = f"with the verifier {two_point}" if settings.verifier_decides else "the verifier's stage not kept"
        print(f"wrote {choose.RANKER} (signals-only point {one_point}; {decides})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
