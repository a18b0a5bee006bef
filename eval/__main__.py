"""``python -m eval``: score the assistant, simple baselines and the retrievers on the dev and test sets.

    python -m eval                      # dev, test and holdout side by side; writes eval/report.md + charts
    python -m eval --json               # one JSON object: dev, test, holdout, generalization_gap, baselines
    python -m eval --set dev            # one set only (dev is tuned on; test is frozen; holdout,
                                        # dev's blind part, is read in aggregate only, as test is)
    python -m eval --no-retrieval       # answers only (no retrievers, no passage baselines)
    python -m eval --no-answers         # retrieval only (bm25 vs dense vs hybrid)
    python -m eval --answers FILE       # score saved `python -m assistant ask --json --batch` output
    python -m eval score --answers FILE [--set dev|test] --json   # the same, as its own command
    python -m eval add-from-log --review FILE [--dev eval/dev.jsonl]  # reviewed question-log entries -> dev items
    python -m eval --check              # exit 1 if a gated figure is worse than eval/baseline.json
    python -m eval --update-baseline    # move the record to better figures (to worse only with --force)

Exit status: 0 done; 1 the evaluation failed (assistant/index unavailable or raised, --check
worse than the record); 2 bad input (gold/answers/baseline file missing or malformed, bad
options). Errors are one line on stderr naming the file and line or the gold item; no tracebacks
unless ``--traceback``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import baseline as baseline_mod
from .gold import SEALED, SETS, EvalError, InputError, display_path, load_gold
from .records import MODES

DEFAULT_REPORT = Path(__file__).resolve().parent / "report.md"


class _Parser(argparse.ArgumentParser):
    """Bad options are one line on stderr with exit status 2, like every other input error."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m eval", description="Score the assistant, baselines and retrievers on the dev and test sets.")
    p.add_argument("--set", choices=[*SETS, "all"], help="question set(s) (default: all; with --answers or --gold: dev)")
    p.add_argument("--gold", metavar="FILE", help="score this question file instead of the shipped set")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N questions of each set")
    p.add_argument("--json", action="store_true", help="print one JSON object of metrics instead of the table")
    p.add_argument("--no-retrieval", action="store_true", help="skip the retrievers (and the passage baselines)")
    p.add_argument("--no-baselines", action="store_true", help="do not score the simple baselines")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--answers", metavar="FILE", help="score saved answers (one JSON object per line, set order) instead of asking")
    src.add_argument("--no-answers", action="store_true", help="retrieval only: do not ask the assistant")
    p.add_argument("--index-dir", help="index directory for retrieval (default: $COTATI_INDEX_DIR or var/index)")
    p.add_argument("--report", default=str(DEFAULT_REPORT), metavar="FILE",
                   help="markdown report path (default: eval/report.md); the charts go next to it")
    p.add_argument("--no-report", action="store_true", help="write no report files")
    p.add_argument("--baseline", default=str(baseline_mod.DEFAULT_BASELINE), metavar="FILE",
                   help="regression record (default: eval/baseline.json)")
    p.add_argument("--check", action="store_true", help="exit 1 if a gated figure is worse than the record")
    p.add_argument("--update-baseline", action="store_true", help="move the record to this run's better figures")
    p.add_argument("--force", action="store_true", help="with --update-baseline: also record worse figures")
    p.add_argument("--traceback", action="store_true", help="show the full traceback of a failure")
    return p


def _score_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m eval score", description="Score a saved answers file (the assistant's --json --batch contract) without running anything.")
    p.add_argument("--answers", required=True, metavar="FILE", help="one answer object per line, in the set's order")
    p.add_argument("--set", choices=list(SETS), default="dev", help="the question set the answers are for (default: dev)")
    p.add_argument("--gold", metavar="FILE", help="a question file instead of the shipped set")
    p.add_argument("--json", action="store_true", help="print one JSON object of metrics instead of the table")
    p.add_argument("--traceback", action="store_true", help="show the full traceback of a failure")
    return p


def _say(msg: str) -> None:
    print(msg, file=sys.stderr)


def _progress(stage: str, done: int, total: int) -> None:
    if done == total or done % 10 == 0:
        print(f"\r{stage}: {done}/{total}", end="\n" if done == total else "", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["leaks"]:
        return _leaks(argv[1:])
    if argv[:1] == ["add-from-log"]:
        from .fromlog import main as add_from_log

        return add_from_log(argv[1:])
    if argv[:1] == ["score"]:
        args = _score_parser().parse_args(argv[1:])
        args.limit, args.no_retrieval, args.no_answers, args.no_baselines = None, True, False, True
        args.no_report, args.check, args.update_baseline, args.index_dir = True, False, False, None
        return _guarded(args, _run)
    parser = _parser()
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    if args.force and not args.update_baseline:
        parser.error("--force only goes with --update-baseline")
    if args.update_baseline and (args.limit is not None or args.gold or args.set not in (None, "all")):
        parser.error("--update-baseline needs every whole shipped set (drop --limit, --gold and --set)")
    if (args.update_baseline or args.check) and args.no_answers:
        parser.error("--check and --update-baseline need answers (drop --no-answers)")
    if args.no_answers and args.no_retrieval:
        parser.error("--no-answers with --no-retrieval leaves nothing to evaluate")
    if (args.answers or args.gold) and args.set == "all":
        parser.error("--answers and --gold score one set: choose it with --set dev or --set test")
    problem = _corpus_problem()
    if problem:
        _say(problem)
        return 1
    return _guarded(args, _run)


def _corpus_problem() -> str:
    """The one line every entry point stops on: a bad setting, or a corpus (manifest, lock, documents) the
    lock does not vouch for; "" when all is well."""
    import settings

    from ingest import IngestError
    from ingest.integrity import check_corpus

    problem = settings.check()
    if problem:
        return problem
    try:
        check_corpus()
    except IngestError as error:
        return f"error: {error}"
    return ""


def _leaks(argv: list[str]) -> int:
    """``python -m eval leaks [--no-embeddings]``: the sealed test's leak checks (eval/leaks.py)."""
    from . import leaks

    parser = _Parser(prog="python -m eval leaks", description="Leak checks between the sealed test set and "
                     "what the team tunes: vocabulary, near-duplicate dev questions, test questions in files.")
    parser.add_argument("--no-embeddings", action="store_true", help="compare content words only (no model)")
    args = parser.parse_args(argv)
    encode = None
    if not args.no_embeddings:
        from index.dense import get_encoder

        encoder = get_encoder()
        encode = lambda texts: encoder.encode(list(texts))  # noqa: E731
    try:
        found = leaks.check(Path(__file__).resolve().parents[1], encode)
    except (InputError, OSError, ValueError) as e:
        _say(f"error: {e}")
        return 2
    for phrase in found.vocabulary:
        print(f"vocabulary phrase seen only in test questions (not in the corpus or dev): {phrase!r}")
    for dev_id in found.near_duplicates:
        print(f"dev item {dev_id} nearly copies a test question: drop or reword it")
    for path in found.files:
        print(f"{path} contains a test question")
    print("leak check: clean" if found.clean else "leak check: leaks found")
    return 0 if found.clean else 1


def _guarded(args: argparse.Namespace, fn) -> int:
    try:
        return fn(args)
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


def _chosen_sets(args: argparse.Namespace) -> dict[str, Path]:
    if args.gold or args.answers:
        name = args.set if args.set in SETS else "dev"
        return {name: Path(args.gold) if args.gold else SETS[name]}
    if args.set in SETS:
        return {args.set: SETS[args.set]}
    return dict(SETS)


def _compact(summary: dict) -> dict:
    keys = ("questions", "correct", "wrong", "accuracy", "wrong_rate", "abstention_recall", "citation_recall")
    intervals = summary.get("intervals") or {}
    return {**{k: summary.get(k) for k in keys},
            "intervals": {k: intervals.get(k) for k in ("accuracy", "wrong_rate", "abstention_recall", "citation_recall")}}


def _run(args: argparse.Namespace) -> int:
    from . import baselines, report, run, score

    sets = _chosen_sets(args)
    items = {name: load_gold(path)[: args.limit] for name, path in sets.items()}
    record = baseline_mod.load(args.baseline) if (args.check or args.update_baseline) else None
    answers = run.load_answers(args.answers) if args.answers else None

    progress = _progress if sys.stderr.isatty() else None
    ask = None if (args.no_answers or answers is not None) else run.default_ask()
    search = None if args.no_retrieval else baselines.cached(run.default_search(args.index_dir))
    modes = () if args.no_retrieval else MODES
    summaries: dict[str, dict] = {}
    baseline_figures: dict[str, dict] = {}
    for name, questions in items.items():
        results = run.run(
            questions,
            ask=ask,
            answers=answers,
            answers_source=display_path(args.answers) if args.answers else "saved answers",
            search=search,
            modes=modes,
            progress=progress,
        )
        summaries[name] = score.summarize(results, modes=modes, sealed=name in SEALED)
        if not args.no_baselines and not args.no_answers:
            baseline_figures[name] = {
                label: _compact(score.summarize(run.run(questions, ask=fn), modes=()))
                for label, fn in baselines.baseline_answerers(search).items()
            }
    summary = {**next(iter(summaries.values())), "sets": list(summaries), **summaries, **score.compare(summaries)}
    summary["baselines"] = baseline_figures
    summary["beats_baselines"] = {
        name: all((summaries[name]["accuracy"] or 0) > (b["accuracy"] or 0) for b in figures.values())
        for name, figures in baseline_figures.items()
    }

    if not args.no_report:
        written, warnings = report.write_report(summary, args.report, sources={n: display_path(p) for n, p in sets.items()})
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
            record, summaries, force=args.force, digests={n: baseline_mod.digest(p) for n, p in sets.items()}
        )
        for c in changes:
            _say(f"baseline: {c}")
        if new != record:
            baseline_mod.save(args.baseline, new)
            _say(f"baseline: wrote {display_path(args.baseline)}")
        else:
            _say("baseline: unchanged")
    if record is not None and args.check:
        # Only the sets this run measured are checked ("--set dev" says nothing about test).
        failures = baseline_mod.check(summaries, {**record, "sets": {n: f for n, f in record["sets"].items() if n in summaries}})
        for f in failures:
            _say(f"worse than the record: {f}")
        if failures:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
