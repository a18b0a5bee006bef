"""Training data for the verifier and the ranker from what we have (issue 43, step 1).

``python -m eval.verifier_data [--out var/verifier/judged] [--shard I/N] [--sets bank,dev,holdout]
[--encoder DIR] [--fold-encoders b1=DIR_B,b2=DIR_B,b3=DIR_A,b4=DIR_A]``

Every written bank question and every dev question is read and its candidates proposed as when
answering (``chooser.scored``; a bank question scored with itself out of the bank, a dev question
with its paraphrase group out); each candidate is one labelled example: its ranker features, what
the verifier reads of it (``verifier.statement``) and whether it is right. A bank question's
candidate is right when it answers the question's unit for its slots (``ranker_fit.answers_unit``);
a dev question's when ``python -m eval`` would judge it right. Every candidate of a question gold
declines is wrong: no candidate answers it. The holdout is judged the same way for the operating
point; only its aggregate ever leaves the fitting (no item is printed).

The bank is matched with the shipped question encoder, or the one in ``--encoder DIR``. With
``--fold-encoders`` a bank question of batch X is scored with the encoder named for X instead, one
whose training did not include X (its manifest says so, or the run is refused): both the asked
question's vector and the bank's vectors it votes against are that encoder's, so every bank question
gets the signals a question the encoder never saw would get. Each row records which encoder scored it
(``encoder``: its id; ``encoder_batches``: the bank batches it was trained on; ``fold``: scored by a
fold encoder).

Output: one JSON line per question ({set, group, batch, abstain, question, examples: [{f, r, t}]})
in ``OUT-SET[-shard].jsonl``, written to a temporary file and renamed when complete. Progress and
an ETA go to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from .gold import SETS, load_gold


def _eta(started: float, done: int, total: int) -> str:
    spent = time.perf_counter() - started
    left = spent / max(done, 1) * (total - done)
    return f"{done}/{total} ({spent:.0f} s, about {left / 60:.1f} min left)"


def _write(path: Path, rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with open(partial, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(partial, path)


def encoder_of(res) -> str:
    """Which model matched the questions with the bank: the rows' bank signals are its."""
    encoder = res.question_encoder
    return encoder.model_id if encoder is not None else ""


def encoder_record(res, fold: bool = False) -> dict:
    """The fields of a row saying which encoder scored it."""
    encoder = res.question_encoder
    record = {"encoder": encoder_of(res), "encoder_batches": list(encoder.trained_batches) if encoder else []}
    return record | {"fold": True} if fold else record


def open_encoder(folder: str):
    """The encoder in ``folder``; a folder without one is a ``SystemExit`` in one line."""
    from assistant import encoder as encoder_mod

    found = encoder_mod.load(Path(folder))
    if found is None:
        raise SystemExit(f"{folder}: no question encoder (no manifest); train one with `python -m eval.encoder_train --out {folder}`")
    return found


def fold_encoders(spec: str, opener=open_encoder) -> dict:
    """``b1=DIR_B,b2=DIR_B,b3=DIR_A,b4=DIR_A`` -> {batch: encoder}, each folder opened once; an
    encoder trained on the batch it is to score is a ``SystemExit`` in one line."""
    named: dict[str, str] = {}
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        batch, sep, folder = part.partition("=")
        if not sep or not batch.strip() or not folder.strip():
            raise SystemExit(f"--fold-encoders {spec!r}: expected BATCH=DIR,... (e.g. b1=var/encf/B,b3=var/encf/A)")
        named[batch.strip()] = folder.strip()
    opened = {folder: opener(folder) for folder in dict.fromkeys(named.values())}
    folds = {batch: opened[folder] for batch, folder in named.items()}
    for batch, encoder in folds.items():
        trained = encoder.trained_batches
        if not trained or batch in trained:
            raise SystemExit(f"--fold-encoders: {named[batch]} was trained on {','.join(trained) or 'unrecorded batches'}, "
                             f"so it cannot score bank batch {batch} fairly")
    return folds


def bank_rows(res, shard: tuple[int, int], say, batches: frozenset[str] = frozenset(), folds: dict | None = None):
    """The bank's rows; with ``folds`` ({batch: encoder}) each question is scored with its batch's
    encoder (the questions of one encoder in turn, so each encoder's bank is built once)."""
    from assistant import bank as bank_mod
    from assistant import chooser
    from assistant.verifier import statement

    from .ranker_fit import answers_unit

    written = [e for e in bank_mod.load() if e.style not in ("dev", "logged")
               and (not batches or e.batch.split("-")[0] in batches)]
    mine = [e for n, e in enumerate(written) if n % shard[1] == shard[0]]
    if folds is None:
        runs = [(None, mine)]
    else:
        lacking = sorted({e.batch.split("-")[0] for e in mine} - folds.keys())
        if lacking:
            raise SystemExit(f"--fold-encoders names no encoder for bank batch {','.join(lacking)}")
        encoders = list({id(enc): enc for enc in folds.values()}.values())
        runs = [(enc, [e for e in mine if folds[e.batch.split("-")[0]] is enc]) for enc in encoders]
        before = res.question_encoder
    started = time.perf_counter()
    done = 0
    for fold_encoder, entries in runs:
        if fold_encoder is not None:
            res.use_question_encoder(fold_encoder)
        record = encoder_record(res, fold=folds is not None)
        for entry in entries:
            done += 1
            unit = res.unit(entry.unit)
            if unit is None:
                continue
            res.bank_left_out = frozenset({entry.question})
            query = res.read(entry.question)
            pairs, _ = chooser.scored(query, res)
            examples = [{"f": feats, "r": answers_unit(c, unit, entry.slots), "t": statement(c.answer)}
                        for feats, c in pairs]
            yield {"set": "bank", "group": f"{entry.batch}:{entry.unit}", "batch": entry.batch, "unit": entry.unit,
                   "abstain": False, "question": entry.question, "examples": examples} | record
            if done % 250 == 1:
                say(f"bank {_eta(started, done, len(mine))}")
    res.bank_left_out = frozenset()
    if folds is not None:
        res.use_question_encoder(before)


def gold_rows(name: str, res, say):
    from assistant.verifier import statement

    from .ranker_fit import judged_gold

    items = load_gold(SETS[name])
    record = encoder_record(res)
    started = time.perf_counter()
    for n, item, pairs in judged_gold(items, res, dev=name == "dev"):
        examples = [{"f": feats, "r": right, "t": statement(candidate.answer)} for feats, candidate, right in pairs]
        # The file stays under var/ (ignored); the fit reads the holdout's rows in aggregate only.
        yield {"set": name, "group": item.group or item.id, "batch": name, "abstain": item.abstain,
               "question": item.question, "examples": examples} | record
        if n % 200 == 0:
            say(f"{name} {_eta(started, n + 1, len(items))}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.verifier_data", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="var/verifier/judged", help="path prefix of the output files")
    parser.add_argument("--sets", default="dev,holdout,bank")
    parser.add_argument("--batches", default="", help="bank batches to read, e.g. b4 (default: all written ones)")
    parser.add_argument("--shard", default="0/1", help="I/N: this process reads every N-th bank question from I")
    parser.add_argument("--encoder", default="", help="match the bank with the question encoder in DIR (default: the shipped one)")
    parser.add_argument("--fold-encoders", default="",
                        help="BATCH=DIR,...: score each bank question with the encoder named for its batch, one not "
                             "trained on it (e.g. b1=var/encf/B,b2=var/encf/B,b3=var/encf/A,b4=var/encf/A)")
    args = parser.parse_args(argv)
    try:
        index, count = (int(x) for x in args.shard.split("/"))
        assert 0 <= index < count
    except (ValueError, AssertionError):
        print(f"--shard {args.shard!r}: expected I/N with 0 <= I < N", file=sys.stderr)
        return 2
    from assistant.service import load_assistant

    folds = fold_encoders(args.fold_encoders) if args.fold_encoders else None
    res = load_assistant(calibrated=False).resources
    if args.encoder:
        res.use_question_encoder(open_encoder(args.encoder))
    say = lambda text: print(f"  {text}", file=sys.stderr, flush=True)  # noqa: E731
    for name in args.sets.split(","):
        suffix = f"-{index}of{count}" if name == "bank" and count > 1 else ""
        path = Path(f"{args.out}-{name}{suffix}.jsonl")
        batches = frozenset(b for b in args.batches.split(",") if b)
        rows = bank_rows(res, (index, count), say, batches, folds) if name == "bank" else gold_rows(name, res, say)
        _write(path, rows)
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
