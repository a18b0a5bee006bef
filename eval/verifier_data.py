"""Training data for the verifier and the ranker from what we have (issue 43, step 1).

``python -m eval.verifier_data [--out var/verifier/judged] [--shard I/N] [--sets bank,dev,holdout]``

Every written bank question and every dev question is read and its candidates proposed as when
answering (``chooser.scored``; a bank question scored with itself out of the bank, a dev question
with its paraphrase group out); each candidate is one labelled example: its ranker features, what
the verifier reads of it (``verifier.statement``) and whether it is right. A bank question's
candidate is right when it answers the question's unit for its slots (``ranker_fit.answers_unit``);
a dev question's when ``python -m eval`` would judge it right. Every candidate of a question gold
declines is wrong: no candidate answers it. The holdout is judged the same way for the operating
point; only its aggregate ever leaves the fitting (no item is printed).

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


def bank_rows(res, shard: tuple[int, int], say, batches: frozenset[str] = frozenset()):
    from assistant import bank as bank_mod
    from assistant import chooser
    from assistant.verifier import statement

    from .ranker_fit import answers_unit

    written = [e for e in bank_mod.load() if e.style not in ("dev", "logged")
               and (not batches or e.batch.split("-")[0] in batches)]
    encoder = encoder_of(res)
    mine = [e for n, e in enumerate(written) if n % shard[1] == shard[0]]
    started = time.perf_counter()
    for n, entry in enumerate(mine):
        unit = res.unit(entry.unit)
        if unit is None:
            continue
        res.bank_left_out = frozenset({entry.question})
        query = res.read(entry.question)
        pairs, _ = chooser.scored(query, res)
        examples = [{"f": feats, "r": answers_unit(c, unit, entry.slots), "t": statement(c.answer)}
                    for feats, c in pairs]
        yield {"set": "bank", "group": f"{entry.batch}:{entry.unit}", "batch": entry.batch, "unit": entry.unit,
               "abstain": False, "question": entry.question, "examples": examples, "encoder": encoder}
        if n % 250 == 0:
            say(f"bank {_eta(started, n + 1, len(mine))}")
    res.bank_left_out = frozenset()


def gold_rows(name: str, res, say):
    from assistant.verifier import statement

    from .ranker_fit import judged_gold

    items = load_gold(SETS[name])
    encoder = encoder_of(res)
    started = time.perf_counter()
    for n, item, pairs in judged_gold(items, res, dev=name == "dev"):
        examples = [{"f": feats, "r": right, "t": statement(candidate.answer)} for feats, candidate, right in pairs]
        # The file stays under var/ (ignored); the fit reads the holdout's rows in aggregate only.
        yield {"set": name, "group": item.group or item.id, "batch": name, "abstain": item.abstain,
               "question": item.question, "examples": examples, "encoder": encoder}
        if n % 200 == 0:
            say(f"{name} {_eta(started, n + 1, len(items))}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.verifier_data", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="var/verifier/judged", help="path prefix of the output files")
    parser.add_argument("--sets", default="dev,holdout,bank")
    parser.add_argument("--batches", default="", help="bank batches to read, e.g. b4 (default: all written ones)")
    parser.add_argument("--shard", default="0/1", help="I/N: this process reads every N-th bank question from I")
    args = parser.parse_args(argv)
    try:
        index, count = (int(x) for x in args.shard.split("/"))
        assert 0 <= index < count
    except (ValueError, AssertionError):
        print(f"--shard {args.shard!r}: expected I/N with 0 <= I < N", file=sys.stderr)
        return 2
    from assistant.service import load_assistant

    res = load_assistant(calibrated=False).resources
    say = lambda text: print(f"  {text}", file=sys.stderr, flush=True)  # noqa: E731
    for name in args.sets.split(","):
        suffix = f"-{index}of{count}" if name == "bank" and count > 1 else ""
        path = Path(f"{args.out}-{name}{suffix}.jsonl")
        batches = frozenset(b for b in args.batches.split(",") if b)
        rows = bank_rows(res, (index, count), say, batches) if name == "bank" else gold_rows(name, res, say)
        _write(path, rows)
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
