"""``python -m assistant ask "QUESTION" [--json]``, ``python -m assistant ask --json --batch FILE``,
``python -m assistant coverage [--json]``, ``python -m assistant calibrate``, ``python -m assistant train-reader`` and ``python -m assistant log [--unanswered | --flagged] [--json]``."""

from __future__ import annotations

import argparse
import json
import sys


BATCH_MAX_LINES = 10_000
BATCH_MAX_LINE_CHARS = 10_000  # the assistant itself refuses questions over 2,000 characters


class BatchError(ValueError):
    """A batch file breaks a bound or is not UTF-8; the message names the file and the line."""


def main(argv: list[str] | None = None) -> int:
    import settings

    parser = _parser()
    args = parser.parse_args(argv)
    problem = settings.check()  # every setting parsed and range-checked before anything runs
    if problem:
        print(problem, file=sys.stderr)
        return 1
    if args.command == "log":
        return _log(parser, args)
    if args.command == "ask" and (args.question is None) == (args.batch is None):
        parser.error("give a QUESTION or --batch FILE (not both)")
    if not _corpus_ok():
        return 1
    if args.command == "calibrate":
        return _calibrate(args)
    if args.command == "train-reader":
        return _train_reader()
    if args.command == "coverage":
        return _coverage(args)
    if args.command == "units":
        return _units(args)
    if args.command == "bank-add":
        return _bank_add(args)
    return _ask(parser, args)


def _parser() -> argparse.ArgumentParser:
    from .units import KINDS as unit_kinds  # a small module of records: nothing heavy is imported

    parser = argparse.ArgumentParser(prog="python -m assistant", description="Cited answers about the Cotati code.")
    commands = parser.add_subparsers(dest="command", required=True)
    ask = commands.add_parser("ask", help="answer a question (or a file of questions, one per line)")
    ask.add_argument("question", nargs="?", help="the question")
    ask.add_argument("--batch", metavar="FILE",
                     help="UTF-8 text, one question per line (lines end at LF or CRLF; a bare CR is not a line "
                          "break); one answer per line out, same order, as each line is read. At most "
                          f"{BATCH_MAX_LINES:,} lines of at most {BATCH_MAX_LINE_CHARS:,} characters: a longer "
                          "line, one more line or a byte that is not UTF-8 stops the batch there with one error "
                          "line (exit status 2)")
    ask.add_argument("--json", action="store_true", help="print JSON objects")
    ask.add_argument("--as-of", dest="as_of", metavar="DATE", help="the law as it stood on DATE (YYYY-MM-DD)")
    coverage = commands.add_parser("coverage", help="what is loaded (documents, dates, sections, tables) and what the "
                                                    "loaded text cites but does not contain")
    coverage.add_argument("--json", action="store_true", help="one JSON object: documents, loaded_sections, chapters, "
                                                              "tables, cited_not_loaded, cited_unresolved")
    units = commands.add_parser("units", help="the answer units of the loaded corpus (what the question bank names); "
                                              "prints the count of each kind")
    units.add_argument("--kind", choices=unit_kinds, help="only units of this kind")
    units.add_argument("--json", action="store_true", help="one JSON object per unit: id, kind, section, text, citation")
    add = commands.add_parser("bank-add", help="add a question (from the question log) to the question bank for a unit")
    add.add_argument("question", help="the question as the resident asked it")
    add.add_argument("--unit", required=True, help="the unit that answers it (an id from `python -m assistant units`)")
    add.add_argument("--district", action="append", default=[], help="a district the question names (repeatable)")
    calibrate = commands.add_parser("calibrate", help="fit the confidence model and threshold on the dev set")
    calibrate.add_argument("--max-wrong-rate", type=float, default=None, metavar="R",
                           help="wrong answers allowed, as a share of the dev questions (default 0.03)")
    commands.add_parser("train-reader", help="fit the reader (which provision answers) on the dev set, with its "
                                             "cross-validated figures; run calibrate after it")
    log = commands.add_parser("log", help="what residents asked the web app (its question log), grouped by wording; "
                                          "--flagged: the answers they marked, one by one")
    which = log.add_mutually_exclusive_group()
    which.add_argument("--unanswered", action="store_true",
                       help="only questions declined or answered with low confidence (under COTATI_LOW_CONFIDENCE)")
    which.add_argument("--flagged", action="store_true",
                       help="the answers residents marked helpful or wrong, each with its answer, interpretation, "
                            "route, confidence, mark, comment and log_id (what `python -m eval add-from-log` takes)")
    log.add_argument("--mark", choices=("helpful", "wrong"), help="with --flagged: only answers marked so")
    log.add_argument("--since", metavar="DATE", help="only questions asked on or after DATE (YYYY-MM-DD, UTC)")
    log.add_argument("--json", action="store_true",
                     help="one JSON object per group of similar questions (with --flagged: per marked answer)")
    return parser


def _ask(parser, args) -> int:
    in_force = _in_force(parser, args.as_of) if args.as_of else None
    if args.batch is None:
        questions = iter([_strip_line_end(args.question)])
    else:
        try:
            handle = open(args.batch, "rb")  # bytes: LF ends a line, a bare CR does not; decoded line by line
        except OSError as error:
            print(f"error: {args.batch}: cannot read questions ({error.strerror or error})", file=sys.stderr)
            return 2
        questions = _batch_lines(handle, args.batch)
    from index.store import check_index_dir
    from index.types import EncoderError, IndexBuildError, IndexStoreError

    from . import load_assistant

    try:
        check_index_dir()
    except IndexStoreError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    assistant = load_assistant(progress=_progress, as_of=args.as_of)
    try:
        return _answer_all(assistant, questions, args, in_force)
    except BrokenPipeError:  # piped into `head`: not an error
        sys.stderr.close()
        return 0
    except BatchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (IndexStoreError, IndexBuildError, EncoderError) as error:  # the index could not be opened or built
        print(f"\nerror: {error}", file=sys.stderr)
        return 1


def _answer_all(assistant, questions, args, in_force) -> int:
    """Print each question's answer as it is read; 1 when a single question was not valid."""
    failed = False
    for question in questions:
        answer = assistant.ask(question)
        if in_force is not None:  # which documents the answer stands on
            answer = type(answer)(**{**answer.__dict__, "answer": f"{answer.answer}\n{in_force[0]}"})
        failed |= answer.route == "invalid" and args.batch is None
        if args.json:
            print(json.dumps({**answer.to_dict(), **({"as_of": in_force[1]} if in_force else {})},
                             ensure_ascii=False), flush=True)
        else:
            print(_readable(answer), flush=True)
    return 1 if failed else 0


def _corpus_ok() -> bool:
    """The corpus is what its manifest says (every document present, readable, unchanged); else one line."""
    from ingest import IngestError
    from ingest.integrity import check_corpus

    try:
        check_corpus()
    except IngestError as error:
        print(f"error: {error}", file=sys.stderr)
        return False
    return True


def _log(parser, args) -> int:
    """The question log, grouped by similar wording, largest group first."""
    import settings
    from ingest.asof import check_date

    from .questionlog import LogError, QuestionLog, group

    try:
        since = check_date(args.since, "--since") if args.since else ""
        config = settings.load()
    except (ValueError, settings.SettingError) as error:
        parser.error(str(error))
    if not config.log_path.is_file():
        print(f"error: {config.log_path}: no question log yet (the web app writes it; COTATI_QUESTION_LOG_PATH "
              "names another file)", file=sys.stderr)
        return 1
    if args.mark and not args.flagged:
        parser.error("--mark goes with --flagged")
    try:  # read-only: listing the log never prunes it
        with QuestionLog(config.log_path, config.log_retention_days, read_only=True) as questions:
            if args.flagged:
                return _flagged(questions.flagged(since, args.mark), args.json)
            entries = questions.unanswered(since, config.low_confidence) if args.unanswered else questions.entries(since)
    except LogError as error:
        print(f"error: {error}; the app moves a damaged log aside when it next starts", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"error: {config.log_path}: cannot read the question log ({error.strerror or error})", file=sys.stderr)
        return 1
    groups = group(entries)
    for found in groups:
        if args.json:
            print(_json_line(found))
            continue
        print(_shown(f"{found['count']:>4}x  {found['question']}  ({found['declined']} declined; "
                     f"{', '.join(found['routes'])}; {found['first'][:10]} to {found['last'][:10]})"))
        for variant in found["variants"][1:]:
            print(_shown(f"         also: {variant}"))
    if not args.json:
        print(f"{len(entries)} questions in {len(groups)} groups", file=sys.stderr)
    return 0


def _shown(text: str) -> str:
    """A line of the log as printed for staff: control and bidi codes escaped (residents typed it)."""
    from .validate import escape_for_terminal

    return escape_for_terminal(text)


def _json_line(value: object) -> str:
    """One JSON line with every control and bidi code as a \\u escape (JSON leaves C1 and bidi raw)."""
    from .validate import UNPRINTABLE

    return UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))


def _flagged(entries: list, as_json: bool) -> int:
    """The marked answers, oldest first: one JSON object each, or a readable block each."""
    for entry in entries:
        if as_json:
            print(_json_line(entry.to_json()))
            continue
        confidence = "" if entry.confidence is None else f" {entry.confidence:.2f}"
        print(f"#{entry.id}  {entry.asked_at}  {entry.mark.upper()}  {entry.route}{confidence}")
        print(_shown(f"  Q: {entry.question}"))
        lines = entry.answer.split("\n") if entry.answer else ["(answer not logged: an older log)"]
        print(_shown(f"  A: {lines[0]}"))
        read_as = next((line for line in lines if line.startswith("Read as:")), "")
        if read_as or entry.interpretation:
            print(_shown(f"  {read_as or 'Read as: ' + json.dumps(entry.interpretation, ensure_ascii=False)}"))
        if entry.comment:
            print(_shown(f"  Comment: {entry.comment}"))
        print()
    if not as_json:
        wrong = sum(entry.mark == "wrong" for entry in entries)
        print(f"{len(entries)} marked answers ({wrong} wrong, {len(entries) - wrong} helpful)", file=sys.stderr)
    return 0


def _bank_add(args) -> int:
    import datetime

    from .bank import BankError, add_entry
    from .service import load_assistant

    units = [u.id for u in load_assistant(calibrated=False).resources.units()]
    slots = {"district": args.district} if args.district else {}
    try:
        entry = add_entry(args.question, args.unit, units, slots, batch=f"staff-{datetime.date.today().isoformat()}")
    except BankError as error:
        print(f"bank-add: {error}", file=sys.stderr)
        return 2
    print(f"added to the bank for {entry.unit}: {entry.question!r} (its vectors are rebuilt on the next answer)")
    return 0


def _units(args) -> int:
    from .service import load_assistant
    from .units import catalogue, counts

    found = catalogue(load_assistant(calibrated=False).resources)
    chosen = [u for u in found if not args.kind or u.kind == args.kind]
    if args.json:
        for unit in chosen:
            print(json.dumps(unit.to_dict(), ensure_ascii=False))
    else:
        for unit in chosen:
            print(f"{unit.id}\t{unit.text[:100]}")
    tally = counts(chosen)
    print("units: " + ", ".join(f"{kind} {n}" for kind, n in tally.items() if n or not args.kind)
          + f"; {len(chosen)} in all", file=sys.stderr)
    return 0


def _coverage(args) -> int:
    from ingest import default_corpus_dir, load_corpus, load_manifest
    from ingest.coverage import coverage_of, summary_line

    found = coverage_of(load_corpus().sections, load_manifest(default_corpus_dir()))
    if args.json:
        print(json.dumps(found.to_json(), ensure_ascii=False))
        return 0
    print(f"Loaded: {summary_line(found)}.")
    for document in found.documents:
        tables = ", ".join(dict.fromkeys(t for t, _ in document.tables)) or "none"
        print(f"{document.date}  {document.short_title}: {len(document.sections)} sections; tables {tables}")
    print("Cited but not loaded: " + "; ".join(t.label for t in found.missing()))
    return 0


def _calibrate(args) -> int:
    from eval.calibrate import MAX_WRONG_RATE, calibrate  # the fit lives with the scorer it needs

    rate = MAX_WRONG_RATE if args.max_wrong_rate is None else args.max_wrong_rate
    if not 0.0 <= rate < 1.0:
        print(f"error: --max-wrong-rate must be from 0 to 1, got {rate}", file=sys.stderr)
        return 2
    result = calibrate(rate, progress=lambda done, total: _progress("dev questions", done, total))
    info = result.fitted_on
    held = info["cross_validated"][f"{info['in_sample_target']:g}"]
    holdout = (f"; its holdout part ({info['holdout_questions']}): accuracy {held['holdout_accuracy']:.3f}, "
               f"wrong {held['holdout_wrong_rate']:.2%}" if "holdout_accuracy" in held else "")
    print(f"threshold {result.threshold:.4f}: {info['kept_right']} right and {info['kept_wrong']} wrong answers kept "
          f"of {info['questions']} dev questions; wrote assistant/data/calibration.json\n"
          f"held out (5 folds by paraphrase group): accuracy {held['accuracy']:.3f}, wrong {held['wrong_rate']:.2%}{holdout}")
    return 0


def _train_reader() -> int:
    from eval.reader_fit import train  # the fit lives with the gold set it needs

    result = train(progress=lambda done, total: _progress("dev questions", done, total))
    info = result.fitted_on
    reader, hand = info["reader"], info["hand_score"]
    print(f"reader on {info['cases']} dev questions ({info['folds']} folds by paraphrase group): first candidate answers "
          f"{reader['top1_where_reachable']:.3f} where one does (hand score {hand['top1_where_reachable']:.3f}); "
          f"AUC {reader['auc_first_right_vs_wrong']} (hand score {hand['auc_first_right_vs_wrong']}); "
          "wrote assistant/data/reader.json")
    return 0


def _in_force(parser, as_of: str) -> tuple[str, dict]:
    from ingest import default_corpus_dir, load_manifest
    from ingest.asof import check_date, in_force_json, in_force_line

    try:
        date = check_date(as_of, "--as-of")
    except ValueError as error:
        parser.error(str(error))
    documents = load_manifest(default_corpus_dir())
    return in_force_line(documents, date), in_force_json(documents, date)


def _strip_line_end(text: str) -> str:
    """A question pasted with its line ending ("...?\\r\\n") is the question."""
    return text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith(("\n", "\r")) else text


def _batch_lines(handle, path: str):
    """The batch file's lines, read one at a time (never the whole file), within the bounds."""
    with handle:
        for number in range(1, BATCH_MAX_LINES + 2):
            try:
                raw = handle.readline(BATCH_MAX_LINE_CHARS * 4 + 2)  # UTF-8: at most 4 bytes a character, + CR LF
            except OSError as error:
                raise BatchError(f"{path}: line {number} cannot be read ({error.strerror or error})") from None
            if not raw:
                return
            if number > BATCH_MAX_LINES:
                raise BatchError(f"{path}: more than {BATCH_MAX_LINES:,} lines; split the file")
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                if not raw.endswith(b"\n") and len(raw) >= BATCH_MAX_LINE_CHARS * 4 and error.start >= len(raw) - 3:
                    text = raw[:error.start].decode("utf-8")  # a character cut by the read limit: the line is too long
                else:
                    raise BatchError(f"{path}: line {number} is not UTF-8 text (bad byte {raw[error.start:error.start + 1]!r} at "
                                     f"byte {error.start + 1} of the line); save the file as UTF-8") from None
            ended = text.endswith("\n")
            text = _strip_line_end(text) if ended else text
            if len(text) > BATCH_MAX_LINE_CHARS or (not ended and len(raw) >= BATCH_MAX_LINE_CHARS * 4):
                raise BatchError(f"{path}: line {number} is longer than {BATCH_MAX_LINE_CHARS:,} characters; "
                                 "one question per line")
            yield text


def _readable(answer) -> str:
    lines = [answer.answer]
    for number, citation in enumerate(answer.citations, start=1):
        table = f", {citation.table}" if citation.table else ""
        lines.append(f"  [{number}] § {citation.section} {citation.title}{table} — document {citation.document}, {citation.date}")
    return "\n".join(lines) + "\n"


def _progress(stage: str, done: int, total: int) -> None:
    print(f"\r{stage}: {done}/{total}" if stage == "dev questions" else f"\rbuilding index: {stage} {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
