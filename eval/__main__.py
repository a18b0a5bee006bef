"""``python -m eval``: score the assistant and the retrievers on the gold set.

    python -m eval                      # table on stdout; writes eval/report.md + eval/report_accuracy.png
    python -m eval --json               # one JSON object of metrics on stdout (report still written)
    python -m eval --no-retrieval       # answers only
    python -m eval --no-answers         # retrieval only (bm25 vs dense vs hybrid)
    python -m eval --answers FILE       # score saved `python -m assistant ask --json --batch` output
    python -m eval --check              # exit 1 if a gated figure is below eval/baseline.json
    python -m eval --update-baseline    # raise the record (lower it only with --force)

Exit status: 0 done; 1 the evaluation failed (assistant/index unavailable or raised, --check
below the record); 2 bad input (gold/answers/baseline file missing or malformed, bad options).
Errors are one line on stderr naming the file and line or the gold item; no tracebacks unless
``--traceback``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import baseline as baseline_mod
from .gold import DEFAULT_GOLD, EvalError, InputError, display_path, load_gold
from .records import MODES

DEFAULT_REPORT = Path(__file__).resolve().parent / "report.md"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m eval", description="Score the assistant and the retrievers on the gold set.")
    p.add_argument("--gold", default=str(DEFAULT_GOLD), help="gold JSONL file (default: eval/gold.jsonl)")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N gold items")
    p.add_argument("--json", action="store_true", help="print one JSON object of metrics instead of the table")
    p.add_argument("--no-retrieval", action="store_true", help="skip the retrieval comparison")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--answers", metavar="FILE", help="score saved answers (one JSON object per line, gold order) instead of asking")
    src.add_argument("--no-answers", action="store_true", help="retrieval only: do not ask the assistant")
    p.add_argument("--index-dir", help="index directory for retrieval (default: $COTATI_INDEX_DIR or var/index)")
    p.add_argument("--report", default=str(DEFAULT_REPORT), metavar="FILE",
                   help="markdown report path (default: eval/report.md); the chart goes next to it")
    p.add_argument("--no-report", action="store_true", help="write no report files")
    p.add_argument("--baseline", default=str(baseline_mod.DEFAULT_BASELINE), metavar="FILE",
                   help="regression record (default: eval/baseline.json)")
    p.add_argument("--check", action="store_true", help="exit 1 if a gated figure is below the baseline")
    p.add_argument("--update-baseline", action="store_true", help="raise the baseline to this run's figures")
    p.add_argument("--force", action="store_true", help="with --update-baseline: also lower figures")
    p.add_argument("--traceback", action="store_true", help="show the full traceback of a failure")
    return p


def _say(msg: str) -> None:
    print(msg, file=sys.stderr)


def _progress(stage: str, done: int, total: int) -> None:
    if done == total or done % 10 == 0:
        print(f"\r{stage}: {done}/{total}", end="\n" if done == total else "", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    if args.force and not args.update_baseline:
        parser.error("--force only goes with --update-baseline")
    if args.update_baseline and args.limit is not None:
        parser.error("--update-baseline needs the whole gold set (drop --limit)")
    if (args.update_baseline or args.check) and args.no_answers:
        parser.error("--check and --update-baseline need answers (drop --no-answers)")
    if args.no_answers and args.no_retrieval:
        parser.error("--no-answers with --no-retrieval leaves nothing to evaluate")
    try:
        return _run(args)
    except InputError as e:
        if args.traceback:
            raise
        _say(f"error: {e}")
        return 2
    except EvalError as e:
        if args.traceback:
            raise
        _say(f"error: {e}")
        return 1
    except KeyboardInterrupt:
        _say("error: interrupted")
        return 130


def _run(args: argparse.Namespace) -> int:
    from . import report, run, score

    gold_shown = display_path(args.gold)
    items = load_gold(args.gold)
    if args.limit is not None:
        items = items[: args.limit]
    record = baseline_mod.load(args.baseline) if (args.check or args.update_baseline) else None
    answers = run.load_answers(args.answers) if args.answers else None

    progress = _progress if sys.stderr.isatty() else None
    ask = None if (args.no_answers or answers is not None) else run.default_ask()
    search = None if args.no_retrieval else run.default_search(args.index_dir)
    modes = () if args.no_retrieval else MODES
    results = run.run(
        items,
        ask=ask,
        answers=answers,
        answers_source=display_path(args.answers) if args.answers else "saved answers",
        search=search,
        modes=modes,
        progress=progress,
    )
    summary = score.summarize(results, modes=modes)

    if not args.no_report:
        written, warnings = report.write_report(summary, args.report, gold=gold_shown)
        for w in warnings:
            _say(f"warning: {w}")
        _say("wrote " + ", ".join(display_path(p) for p in written))

    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(report.format_table(summary), end="")

    status = 0
    if record is not None and args.update_baseline:
        new, changes = baseline_mod.updated(
            record, summary, force=args.force, gold_sha256=baseline_mod.gold_digest(args.gold)
        )
        for c in changes:
            _say(f"baseline: {c}")
        if new != record:
            baseline_mod.save(args.baseline, new)
            _say(f"baseline: wrote {display_path(args.baseline)}")
        else:
            _say("baseline: unchanged")
    if record is not None and args.check:
        failures = baseline_mod.check(summary, record)
        for f in failures:
            _say(f"below baseline: {f}")
        if failures:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
