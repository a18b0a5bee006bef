"""``python -m eval add-from-log --review FILE [--dev eval/dev.jsonl]``: reviewed questions from the
question log become dev items.

Residents mark answers in the web app; ``python -m assistant log --flagged --json`` lists the marked
ones, one JSON object each with its ``log_id``. A reviewer copies the lines worth keeping into a
review file and adds, on each, what the answer should have been, as the gold set states it
(``eval/GOLD.md``)::

    {"log_id": 12, "category": "permit_table", "abstain": false,
     "expected_answer": "A use permit (UP) is required (Bar, tavern, CE district, Table 2-3).",
     "expected_facts": ["UP"], "expected_sections": ["17.22.020"],
     "table": "Table 2-3", "row": "Bar, tavern", "column": "CE", "expected_value": "UP",
     "source": {"file": "corpus/cotati/2023-11-06_ord-telecom-facilities.txt", "line": 120, "text": "..."}}

The question is the logged one (a ``question`` on the line must be that text); the fields the log
printed (``answer``, ``mark``, ``comment``, ...) may stay on the line and are ignored. Each line is
checked as ``tests/test_gold_set.py`` checks the shipped set (fields and types, abstain consistency,
facts in the expected answer, section ids, tables and districts, the source line quoted verbatim from
the document in force, permit values against the parsed cells), and the question must not already
be a dev or test question. Only when every line passes are the new items, numbered from the next
free dev id (``q566``...) and carrying ``origin: "log"`` and ``log_id``, appended to the dev file in
one atomic write; otherwise one error line names the file and line, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from . import atomic
from .gold import SETS, InputError, display_path

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / "corpus" / "cotati" / "manifest.json"
CATEGORIES = ("permit_table", "amended_cell", "district_list", "standards", "procedure", "definition",
              "section_lookup", "district", "rezoning", "out_of_scope")
PERMIT_TABLE_CATEGORIES = ("permit_table", "amended_cell", "district_list")
DISTRICTS = {  # the district columns of the permit tables (as tests/test_gold_set.py)
    "Table 2-2": {"OSC", "OSR", "RR", "RVL", "NL", "NM", "NU"},
    "Table 2-3": {"CE", "CG", "CD", "CI", "IG", "PF"},
    "Table 2-4": {"HC", "LP", "NG", "CA", "TOC", "SW"},
    "Table 2-2 Cannabis": {"OSC", "OSR", "RR", "RVL", "NL", "NM", "NU", "CE", "CG", "CD", "CI", "IG", "PF"},
}
SECTION_ID = re.compile(r"^(\d{1,2}\.\d{2}(\.\d{3})?|\d{3}:SECTION-\d+)$")
# What the reviewer writes: (required, type or types).
REVIEW_FIELDS: dict[str, tuple[bool, Any]] = {
    "log_id": (True, int),
    "category": (True, str),
    "abstain": (True, bool),
    "expected_answer": (True, str),
    "expected_facts": (True, list),
    "expected_sections": (True, list),
    "source": (True, (dict, type(None))),
    "contradicting_facts": (False, list),
    "expected_document": (False, (str, type(None))),
    "table": (False, (str, type(None))),
    "row": (False, (str, type(None))),
    "column": (False, (str, type(None))),
    "expected_value": (False, str),
    "expected_cells": (False, dict),
}
# What `python -m assistant log --flagged --json` printed: may stay on the line; only `question` is read.
LOG_FIELDS = ("question", "time", "answer", "interpretation", "route", "confidence", "abstained", "mark", "comment",
              "marked_at", "corpus")


class ReviewError(InputError):
    """A review line that cannot become a dev item; the message is "FILE line N: reason"."""


def _wording(question: str) -> str:
    """How questions are compared for duplicates (as tests/test_gold_set.py: case and spacing aside)."""
    return re.sub(r"\s+", " ", question.strip().lower())


def _read_lines(path: Path, what: str) -> list[tuple[int, str]]:
    shown = display_path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise InputError(f"{shown}: {what} not found") from None
    except IsADirectoryError:
        raise InputError(f"{shown}: is a directory, not a {what}") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{shown}: not UTF-8 (byte {error.start + 1})") from None
    except OSError as error:
        raise InputError(f"{shown}: cannot read ({error.strerror or error})") from None
    return [(number, line) for number, line in enumerate(text.split("\n"), 1) if line.strip()]


def _dev_items(path: Path) -> tuple[list[dict], str]:
    """The dev file's items (as JSON objects) and its text."""
    items = []
    for number, line in _read_lines(path, "dev file"):
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"{display_path(path)} line {number}: not valid JSON ({error.msg})") from None
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not isinstance(item.get("question"), str):
            raise InputError(f"{display_path(path)} line {number}: not a dev item (an object with id and question)")
        items.append(item)
    return items, path.read_text(encoding="utf-8")


def next_id(items: list[dict]) -> int:
    """The number of the next free dev id (``q`` + number): one past the highest in use."""
    numbers = [int(m.group(1)) for item in items if (m := re.fullmatch(r"q(\d+)", str(item.get("id"))))]
    return max(numbers, default=0) + 1


class Corpus:
    """The manifest and the corpus files' lines, read once: what a review line's source is checked against."""

    def __init__(self, manifest: Path = MANIFEST, root: Path = REPO):
        self.root = root
        documents = json.loads(manifest.read_text(encoding="utf-8"))["documents"]
        prefix = manifest.parent.relative_to(root).as_posix()
        self.by_file = {f"{prefix}/{d['file']}": d["id"] for d in documents}
        self._lines: dict[str, list[str]] = {}
        self._cells: list[dict] | None = None

    def lines(self, file: str) -> list[str]:
        if file not in self._lines:
            self._lines[file] = (self.root / file).read_text(encoding="utf-8").split("\n")
        return self._lines[file]

    def cells(self) -> list[dict]:
        """Every effective table cell (``python -m ingest tables --json``), parsed once when first asked."""
        if self._cells is None:
            from ingest import load_corpus
            from ingest.tables import build_tables

            self._cells = [entry.to_json() for entry in build_tables(load_corpus().sections).effective]
        return self._cells


def dev_item(review: dict, question: str, number: int, corpus: Corpus) -> dict:
    """The dev item a checked review line makes, keys in the dev file's order."""
    source = review["source"]
    document = corpus.by_file[source["file"]] if source else None
    item = {"id": f"q{number:03d}", "question": question, "category": review["category"],
            "expected_answer": review["expected_answer"], "expected_facts": list(review["expected_facts"])}
    if "contradicting_facts" in review:
        item["contradicting_facts"] = list(review["contradicting_facts"])
    item.update({"expected_sections": list(review["expected_sections"]), "expected_document": document,
                 "table": review.get("table"), "row": review.get("row"), "column": review.get("column")})
    for key in ("expected_value", "expected_cells"):
        if key in review:
            item[key] = review[key]
    item.update({"source": source, "abstain": review["abstain"], "group": None, "origin": "log",
                 "log_id": review["log_id"]})
    return item


def check_review(review: Any, question: str, corpus: Corpus) -> str:
    """Why a review line cannot become a dev item ("" when it can): the checks tests/test_gold_set.py
    makes of every dev item, on this one."""
    if not isinstance(review, dict):
        return "not a JSON object"
    unknown = sorted(set(review) - set(REVIEW_FIELDS) - set(LOG_FIELDS))
    if unknown:
        return f"unknown field(s) {', '.join(map(repr, unknown))}"
    for key, (required, kind) in REVIEW_FIELDS.items():
        if key not in review:
            if required:
                return f"missing field {key!r}"
            continue
        value = review[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"field {key!r} has the wrong type ({type(value).__name__})"
        if isinstance(value, str) and not value.strip():
            return f"field {key!r} is empty"
        if isinstance(value, list) and not all(isinstance(v, str) and v.strip() for v in value):
            return f"field {key!r} must be a list of non-empty strings"
    category, abstain = review["category"], review["abstain"]
    if category not in CATEGORIES:
        return f"category {category!r} is not one of {', '.join(CATEGORIES)}"
    if (category == "out_of_scope") != abstain:
        return "an out_of_scope item, and only one, has abstain true"
    facts, sections, source = review["expected_facts"], review["expected_sections"], review["source"]
    answer = review["expected_answer"].lower()
    first_line = answer.split("\n", 1)[0]
    for fact in facts:
        if fact.lower() not in answer:
            return f"expected fact {fact!r} is not in expected_answer"
    for bad in review.get("contradicting_facts", []):
        if bad.lower() in first_line:
            return f"contradicting fact {bad!r} is in the expected answer's first line"
    if abstain:
        if facts or sections or source is not None or review.get("expected_document") is not None or any(
                review.get(key) is not None for key in ("table", "row", "column", "expected_value", "expected_cells")):
            return "an item to decline has no facts, sections, source, document or table cell"
        return ""
    if not facts:
        return "an answerable item needs at least one expected fact"
    if not sections:
        return "an answerable item needs at least one expected section"
    bad_ids = [section for section in sections if not SECTION_ID.match(section)]
    if bad_ids:
        return f"expected section {bad_ids[0]!r} is not a section id (17.22.020, 17.44 or 001:SECTION-17)"
    problem = _source_problem(review, question, corpus)
    if problem:
        return problem
    return _table_problem(review, corpus)


def _source_problem(review: dict, question: str, corpus: Corpus) -> str:
    source = review["source"]
    if source is None:
        return "an answerable item needs a source {file, line, text}"
    if set(source) != {"file", "line", "text"}:
        return "source must have exactly file, line and text"
    file, line, text = source["file"], source["line"], source["text"]
    if not isinstance(file, str) or file not in corpus.by_file:
        return f"source file {file!r} is not a corpus document (corpus/cotati/<file> of the manifest)"
    if isinstance(line, bool) or not isinstance(line, int) or line < 1:
        return "source line must be a line number (1 or more)"
    if not isinstance(text, str) or not 20 <= len(text) <= 120:
        return "source text must be 20 to 120 characters quoted from the line"
    document = corpus.by_file[file]
    if review.get("expected_document") not in (None, document):
        return f"expected_document {review['expected_document']!r} is not the source file's document ({document})"
    lines = corpus.lines(file)
    if line > len(lines):
        return f"{file} has {len(lines)} lines, not {line}"
    if text not in lines[line - 1]:
        return f"source text {text!r} is not in {file} line {line}"
    words = re.findall(r"[a-z0-9]+", question.lower())
    printed = " ".join(re.findall(r"[a-z0-9]+", lines[line - 1].lower()))
    for start in range(len(words) - 5):
        if " ".join(words[start:start + 6]) in printed:
            return "the question copies six words of the source line (dev questions are in residents' words)"
    return ""


def _table_problem(review: dict, corpus: Corpus) -> str:
    from . import cells as eval_cells
    from .match import code_from_facts, normalize_code

    category, table, row, column = review["category"], review.get("table"), review.get("row"), review.get("column")
    sections = review["expected_sections"]
    if category in PERMIT_TABLE_CATEGORIES:
        if table not in DISTRICTS:
            return f"a {category} item needs table one of {', '.join(DISTRICTS)}"
        if column is not None and column not in DISTRICTS[table]:
            return f"column {column!r} is not a district of {table}"
    if category == "amended_cell" and not (row and column):
        return "an amended_cell item needs row and column"
    if category == "rezoning" and "001:SECTION-17" not in sections:
        return "a rezoning item cites 001:SECTION-17"
    if category in ("permit_table", "amended_cell") and column is not None and "expected_value" not in review:
        return "a permit cell item needs expected_value (the printed code)"
    if category == "district_list":
        cells = review.get("expected_cells")
        if not cells or not row or column is not None:
            return "a district_list item needs row, expected_cells and no column"
        if not set(cells) <= DISTRICTS[table] or not all(isinstance(v, str) for v in cells.values()):
            return f"expected_cells must map districts of {table} to printed values"
        if table != "Table 2-2 Cannabis" and set(cells) != DISTRICTS[table]:
            return f"expected_cells must give every district of {table}"
        if any(normalize_code(v) is None for v in cells.values()):
            return "expected_cells values must be permit codes (P, MUP, UP, S, -)"
        allowed = sorted(c for c, v in cells.items() if normalize_code(v) != "-")
        if sorted(review["expected_facts"]) != allowed:
            return f"a district_list item's facts are the districts that allow the use: {allowed}"
    elif "expected_cells" in review:
        return "expected_cells is only for district_list items"
    value = review.get("expected_value")
    if value is not None:
        if not (table and row):
            return "expected_value belongs to a table cell (table and row)"
        if table in DISTRICTS and "17.22.020" in sections:
            code = normalize_code(value)
            if code is None:
                return f"expected_value {value!r} is not a permit code"
            if code_from_facts(review["expected_facts"]) != code:
                return f"the expected facts do not state the code of expected_value {value!r}"
            if code == "S" and len(review["expected_facts"]) < 2:
                return "an S cell also names its specific-use section in the facts"
            pattern = r"[-\u2013\u2014]" if code == "-" else rf"(?<![A-Z]){code}(?![A-Z])"
            if not re.search(pattern, review["source"]["text"]):
                return f"the source text does not print {code}"
    wanted = review.get("expected_cells") or ({column: value} if value is not None else {})
    document = corpus.by_file[review["source"]["file"]]
    for district, printed in wanted.items():
        found = [c for c in corpus.cells() if eval_cells.cell_matches(c, table=table, row=row, column=district,
                                                                       sections=sections)]
        if not found:
            return f"{table} / {row} / {district}: no such parsed cell"
        agree = [c for c in found if eval_cells._value_agrees(c, printed)]
        if not agree:
            return f"{table} / {row} / {district}: the parsed cell reads {[c['value'] for c in found]}, not {printed!r}"
        if not any(c["document"] == document for c in agree):
            return f"{table} / {row} / {district}: that value comes from {agree[0]['document']}, not the source's {document}"
    return ""


def add_from_log(review_path: Path, dev_path: Path, log_path: Path, test_path: Path | None = SETS["test"],
                 corpus: Corpus | None = None, write: bool = True) -> list[dict]:
    """Check every line of the review file, then append the new dev items to ``dev_path`` in one
    atomic write (none when ``write`` is false); the new items. A bad line raises ``ReviewError``
    naming the file and line, before anything is written."""
    from assistant.questionlog import QuestionLog

    shown = display_path(review_path)
    lines = _read_lines(review_path, "review file")
    if not lines:
        raise InputError(f"{shown}: no review lines")
    items, text = _dev_items(dev_path)
    taken = {_wording(item["question"]): item["id"] for item in items}
    from_log = {item["log_id"]: item["id"] for item in items if item.get("origin") == "log" and "log_id" in item}
    tested = set()
    if test_path is not None and Path(test_path).is_file():
        for _, line in _read_lines(Path(test_path), "test file"):
            try:
                asked = json.loads(line).get("question")
            except (json.JSONDecodeError, AttributeError):
                continue  # the test set's own checks report it; only its questions matter here
            if isinstance(asked, str):
                tested.add(_wording(asked))
    if not log_path.is_file():
        raise InputError(f"{display_path(log_path)}: no question log there (COTATI_QUESTION_LOG_PATH or --log names it)")
    corpus = corpus or Corpus()
    number = next_id(items)
    new: list[dict] = []
    with QuestionLog(log_path, read_only=True) as log:  # reading it never prunes it
        for line_number, line in lines:
            where = f"{shown} line {line_number}"
            try:
                review = json.loads(line)
            except json.JSONDecodeError as error:
                raise ReviewError(f"{where}: not valid JSON ({error.msg} at column {error.colno})") from None
            log_id = review.get("log_id") if isinstance(review, dict) else None
            if isinstance(log_id, int) and not isinstance(log_id, bool):
                entry = log.entry(log_id)
                if entry is None:
                    raise ReviewError(f"{where}: log entry {log_id} is not in {display_path(log_path)}")
                question = entry.question
                if "question" in review and review["question"] != question:
                    raise ReviewError(f"{where}: question differs from log entry {log_id}'s ({question!r})")
                if log_id in from_log:
                    raise ReviewError(f"{where}: log entry {log_id} is already dev item {from_log[log_id]}")
            else:
                question = ""
            problem = check_review(review, question, corpus)
            if problem:
                raise ReviewError(f"{where}: {problem}")
            wording = _wording(question)
            if wording in taken:
                raise ReviewError(f"{where}: the question is already dev item {taken[wording]}")
            if wording in tested:
                raise ReviewError(f"{where}: the question is in the test set; it cannot be a dev item too")
            item = dev_item(review, question, number, corpus)
            new.append(item)
            taken[wording], from_log[log_id] = item["id"], item["id"]
            number += 1
    if write:
        lines_out = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in new)
        atomic.write_text(dev_path, (text if not text or text.endswith("\n") else text + "\n") + lines_out)
    return new


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def main(argv: list[str] | None = None) -> int:
    """Exit status 0: items added (or, with --check, all would be); 2: a bad review line or input file."""
    import settings

    parser = _Parser(prog="python -m eval add-from-log",
                     description="Turn reviewed question-log entries (from `python -m assistant log --flagged --json`, "
                                 "with the reviewer's expected answer, facts, sections, category and source) into dev items.")
    parser.add_argument("--review", required=True, metavar="FILE", help="JSON lines: one reviewed log entry each")
    parser.add_argument("--dev", default=str(SETS["dev"]), metavar="FILE", help="the dev set to append to "
                        "(default: eval/dev.jsonl)")
    parser.add_argument("--log", metavar="FILE", help="the question log (default: COTATI_QUESTION_LOG_PATH, else "
                        "var/questions.sqlite3)")
    parser.add_argument("--check", action="store_true", help="check the review file only; write nothing")
    parser.add_argument("--json", action="store_true", help="print the new dev items, one JSON object per line")
    args = parser.parse_args(argv)
    try:
        log_path = settings.load({"question_log_path": Path(args.log) if args.log else None}).log_path
        new = add_from_log(Path(args.review), Path(args.dev), log_path, write=not args.check)
    except settings.SettingError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except InputError as error:
        print(f"error: {error}; nothing written", file=sys.stderr)
        return 2
    for item in new:
        print(json.dumps(item, ensure_ascii=False) if args.json else
              f"{item['id']}  (log entry {item['log_id']})  {item['question']}")
    done = "would add" if args.check else "added"
    print(f"{done} {len(new)} dev item(s) to {display_path(args.dev)}", file=sys.stderr)
    return 0
