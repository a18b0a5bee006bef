"""Residents' marks on answers and dev items grown from them, without a server: the question log's
marks (and its migration from logs written before marks), the answer card's "Was this answer
right?", the engine's refusals, and ``eval add-from-log`` (each review line checked as the gold set
is, an atomic append or nothing). The CLI tests run the real entry points on tmp files."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from assistant.questionlog import MARKS, MarkError, QuestionLog
from assistant.types import Answer
from eval.fromlog import Corpus, InputError, ReviewError, add_from_log, next_id
from webapp import pages
from webapp.engine import Engine

REPO = Path(__file__).resolve().parent.parent
TAVERN = "Could I run a tavern in the CG district?"
TAVERN_ANSWER = ("A use permit (UP) is required.\nRead as: Bar, tavern (Table 2-3) in CG\n"
                 "Bar, tavern in CG (Commercial - General): UP (Table 2-3, § 17.22.020).")
READ_AS = {"uses": [{"label": "Bar, tavern", "words": "tavern"}], "districts": [{"symbol": "CG", "words": "CG"}]}
# What a reviewer adds to the log entry of TAVERN (the log_id is filled in by each test).
REVIEW = {"category": "permit_table", "abstain": False,
          "expected_answer": "Use permit (UP) required (Bar, tavern, CG district, Table 2-3).",
          "expected_facts": ["UP"], "contradicting_facts": ["not allowed", "minor use permit"],
          "expected_sections": ["17.22.020"], "table": "Table 2-3", "row": "Bar, tavern", "column": "CG",
          "expected_value": "UP",
          "source": {"file": "corpus/cotati/2023-11-06_ord-telecom-facilities.txt", "line": 653,
                     "text": "Bar, tavern UP UP UP - - -"}}
DECLINE = {"category": "out_of_scope", "abstain": True, "expected_facts": [], "expected_sections": [], "source": None,
           "expected_answer": "The Cotati land use documents in this corpus do not answer this. Dog licences are "
                              "a county matter."}


def _answer(question: str, text: str = "...", route: str = "permit", confidence: float | None = 0.99,
            abstained: bool = False, interpretation: dict | None = None) -> Answer:
    return Answer(question=question, answer=text, abstained=abstained, route=route, confidence=confidence,
                  interpretation=interpretation or {})


# -- the question log keeps marks -------------------------------------------------------------
def test_a_mark_and_comment_are_kept_with_the_logged_answer_and_its_interpretation(tmp_path):
    path = tmp_path / "questions.sqlite3"
    with QuestionLog(path) as log:
        first = log.record(_answer(TAVERN, TAVERN_ANSWER, interpretation=READ_AS))
        second = log.record(_answer("Can I keep bees?", "No answer.", "abstain", None, True))
        assert isinstance(first, int) and second == first + 1
        assert log.flagged() == []
        marked = log.mark(first, "wrong", "  It is the CG column,\nnot CE  ")
        log.mark(second, "helpful")
    with QuestionLog(path) as log:  # survives a restart
        flagged = log.flagged()
        assert [e.id for e in log.flagged(mark="wrong")] == [first]
    assert marked == flagged[0]
    assert (marked.question, marked.answer, marked.interpretation, marked.route, marked.confidence) == (
        TAVERN, TAVERN_ANSWER, READ_AS, "permit", 0.99)
    assert (marked.mark, marked.comment) == ("wrong", "It is the CG column, not CE")
    assert [(e.id, e.mark, e.comment) for e in flagged] == [(first, "wrong", "It is the CG column, not CE"),
                                                          (second, "helpful", "")]
    assert set(marked.to_json()) == {"log_id", "time", "question", "answer", "interpretation", "route", "confidence",
                                     "abstained", "mark", "comment", "marked_at", "corpus"}


def test_a_later_mark_replaces_the_earlier_one(tmp_path):
    with QuestionLog(tmp_path / "q.sqlite3") as log:
        entry = log.record(_answer(TAVERN))
        log.mark(entry, "wrong", "bad")
        again = log.mark(entry, "helpful")
        assert (again.mark, again.comment) == ("helpful", "") and len(log.flagged()) == 1


@pytest.mark.parametrize("entry, mark, comment, message", [
    (999, "wrong", "", "no answer 999 in the question log (never logged, or deleted after 90 days)"),
    ("1", "wrong", "", "no answer '1' in the question log (an entry id is a whole number)"),
    (True, "wrong", "", "no answer 'True' in the question log (an entry id is a whole number)"),
    (1, "bad", "", "mark must be 'helpful' or 'wrong', not 'bad'"),
    (1, None, "", "mark must be 'helpful' or 'wrong', not 'None'"),
    (1, "WRONG", "", "mark must be 'helpful' or 'wrong', not 'WRONG'"),
    (1, "wrong", "x" * 1001, "the comment is 1,001 characters long; the limit is 1,000"),
])
def test_a_bad_mark_is_refused_in_one_line_and_nothing_changes(tmp_path, entry, mark, comment, message):
    with QuestionLog(tmp_path / "q.sqlite3") as log:
        assert log.record(_answer(TAVERN)) == 1
        with pytest.raises(MarkError) as refused:
            log.mark(entry, mark, comment)
        assert str(refused.value) == message and "\n" not in message
        assert log.flagged() == []


OLD_SCHEMA = """
CREATE TABLE questions (id INTEGER PRIMARY KEY, asked_at TEXT NOT NULL, route TEXT NOT NULL, confidence REAL,
                        abstained INTEGER NOT NULL, question TEXT NOT NULL);
CREATE INDEX questions_asked_at ON questions (asked_at);
"""


def test_a_log_written_before_marks_is_migrated_and_stays_readable(tmp_path):
    from datetime import datetime, timezone

    path = tmp_path / "old.sqlite3"
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        db.execute("INSERT INTO questions (asked_at, route, confidence, abstained, question) VALUES (?, 'abstain', "
                   "NULL, 1, 'Can I keep bees?')", (now,))
    for _ in range(2):  # opening twice: the second open finds nothing to do
        with QuestionLog(path) as log:
            [old] = log.entries()
            assert (old.question, old.abstained, old.answer, old.interpretation, old.mark) == (
                "Can I keep bees?", True, "", {}, None)
            assert [g["question"] for g in __import__("assistant.questionlog").questionlog.group(log.unanswered())] == [
                "Can I keep bees?"]
    with QuestionLog(path) as log:
        assert log.mark(old.id, "wrong", "no answer").mark == "wrong"
        new = log.record(_answer(TAVERN, TAVERN_ANSWER, interpretation=READ_AS))
        assert log.entry(new).interpretation == READ_AS
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
        columns = [row[1] for row in db.execute("PRAGMA table_info(questions)")]
    assert columns == ["id", "asked_at", "route", "confidence", "abstained", "question", "answer", "interpretation",
                       "mark", "comment", "marked_at", "corpus"]


# -- the app: engine and answer card ----------------------------------------------------------
def test_the_engine_keeps_a_mark_or_says_in_one_line_why_not(tmp_path):
    with QuestionLog(tmp_path / "q.sqlite3") as log:
        entry = log.record(_answer(TAVERN))
        engine = SimpleNamespace(question_log=log)
        assert Engine.mark(engine, entry, "wrong", "the CG column") == ""
        assert log.entry(entry).comment == "the CG column"
        assert Engine.mark(engine, entry + 5, "wrong") == (
            f"Not recorded: no answer {entry + 5} in the question log (never logged, or deleted after 90 days).")
        assert Engine.mark(engine, entry, "maybe") == "Not recorded: mark must be 'helpful' or 'wrong', not 'maybe'."
    assert Engine.mark(SimpleNamespace(question_log=None), 1, "wrong") == (
        "This app does not keep marks (its question log is off).")


def test_the_answer_card_asks_whether_the_answer_was_right_only_when_it_can_be_marked():
    answer = _answer(TAVERN, TAVERN_ANSWER)
    plain = pages.answer_card(2, answer, str, lambda s: True, [])
    assert "feedback" not in plain and "data-nav" not in plain.split("</h3>")[0]
    page = pages.answer_card(2, answer, str, lambda s: True, [], feedback={})
    assert '<label for="fb-2">Comment (optional)</label>' in page
    assert '<input type="text" id="fb-2" class="fb-comment" maxlength="1000" autocomplete="off" value="">' in page
    for mark, word in (("helpful", "Helpful"), ("wrong", "Wrong")):
        command = pages.esc(json.dumps({"do": "mark", "turn": 2, "mark": mark}, separators=(",", ":")))
        assert (f'<button type="button" class="mark mark-{mark}" aria-pressed="false" data-nav="{command}">{word}'
                f"</button>") in page
    marked = pages.answer_card(2, answer, str, lambda s: True, [], feedback={"mark": "wrong", "comment": '<b>"x"</b>',
                                                                          "focus": True})
    assert 'class="mark mark-wrong" aria-pressed="true"' in marked and 'mark-helpful" aria-pressed="false"' in marked
    assert 'value="&lt;b&gt;&quot;x&quot;&lt;/b&gt;"' in marked and "<b>" not in marked
    assert ('<p class="feedback-note" tabindex="-1" data-focus="1">Marked wrong. Thank you: planning staff read these '
            "marks.</p>") in marked
    refused = pages.answer_card(0, answer, str, lambda s: True, [], feedback={"note": "Not recorded: x."})
    assert '<p class="feedback-note refused">Not recorded: x.</p>' in refused
    assert "data-scroll-to" not in pages.answer_card(0, answer, str, lambda s: True, [], latest=True, scroll=False)
    assert MARKS == tuple(pages.MARK_WORDS) and pages.MAX_COMMENT_CHARS == __import__(
        "assistant.questionlog").questionlog.MAX_COMMENT_CHARS


# -- eval add-from-log ------------------------------------------------------------------------
DEV_LINES = [line for line in (REPO / "eval" / "dev.jsonl").read_text(encoding="utf-8").splitlines()
             if json.loads(line)["id"] in ("q042", "q154", "q564")]


@pytest.fixture
def logged(tmp_path):
    """A tmp question log with TAVERN (marked wrong), a declined question and a repeat of dev q042;
    a tmp dev file of three real dev items; a tmp test file of one question."""
    log_path = tmp_path / "questions.sqlite3"
    with QuestionLog(log_path) as log:
        ids = {"tavern": log.record(_answer(TAVERN, TAVERN_ANSWER, interpretation=READ_AS)),
               "dogs": log.record(_answer("do I need a licence for my dog?", "The Cotati code documents ...",
                                          "abstain", None, True)),
               "q042": log.record(_answer("can i open a bar on east cotati avenue? ", "A use permit (UP) is required.")),
               "test": log.record(_answer("Is a tattoo parlor allowed downtown?", "..."))}
        log.mark(ids["tavern"], "wrong", "should say CG")
    dev = tmp_path / "dev.jsonl"
    dev.write_text("\n".join(DEV_LINES) + "\n", encoding="utf-8")
    test = tmp_path / "test.jsonl"
    test.write_text(json.dumps({"id": "t001", "question": "Is a tattoo parlor allowed downtown?"}) + "\n", encoding="utf-8")
    return SimpleNamespace(log=log_path, dev=dev, test=test, ids=ids, review=tmp_path / "review.jsonl", folder=tmp_path)


@pytest.fixture(scope="module")
def corpus():
    return Corpus()


def _write(path: Path, *reviews: dict) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in reviews), encoding="utf-8")
    return path


def test_reviewed_entries_become_dev_items_with_the_next_ids(logged, corpus):
    # A line copied from `log --flagged --json` keeps the log's fields; the reviewer's are added.
    with QuestionLog(logged.log) as log:
        copied = log.entry(logged.ids["tavern"]).to_json()
    _write(logged.review, {**copied, **REVIEW}, {"log_id": logged.ids["dogs"], **DECLINE})
    before = logged.dev.read_text(encoding="utf-8")
    new = add_from_log(logged.review, logged.dev, logged.log, logged.test, corpus)
    assert [(item["id"], item["question"], item["origin"], item["log_id"]) for item in new] == [
        ("q565", TAVERN, "log", logged.ids["tavern"]), ("q566", "do I need a licence for my dog?", "log", logged.ids["dogs"])]
    assert new[0]["expected_document"] == "000" and new[1]["expected_document"] is None
    assert list(new[0]) == ["id", "question", "category", "expected_answer", "expected_facts", "contradicting_facts",
                            "expected_sections", "expected_document", "table", "row", "column", "expected_value", "source",
                            "abstain", "group", "origin", "log_id"]
    after = logged.dev.read_text(encoding="utf-8")
    assert after.startswith(before) and [json.loads(line) for line in after[len(before):].splitlines()] == new
    from eval.gold import load_gold

    assert [item.id for item in load_gold(logged.dev)][-2:] == ["q565", "q566"]
    assert not list(logged.folder.glob(".dev.jsonl.*")), "the atomic write leaves no temporary file"


def test_new_items_pass_the_gold_set_checks(logged, corpus):
    import test_gold_set as gold

    _write(logged.review, {"log_id": logged.ids["tavern"], **REVIEW}, {"log_id": logged.ids["dogs"], **DECLINE})
    for item in add_from_log(logged.review, logged.dev, logged.log, logged.test, corpus, write=False):
        for check in (gold.test_fields_and_types, gold.test_abstain_consistency, gold.test_expected_answer_is_consistent_with_facts,
                      gold.test_new_items_carry_the_test_set_fields):
            check(item)
        if not item["abstain"]:
            gold.test_sections_documents_and_tables(item)
            gold.test_source_text_is_in_the_corpus_line(item)
            gold.test_question_does_not_copy_the_source_line(item)
            gold.test_expected_value_agrees_with_facts_and_source_line(item)
    assert "q565" not in logged.dev.read_text(encoding="utf-8"), "write=False writes nothing"


def _bad(review: dict, **change) -> dict:
    return {key: value for key, value in {**review, **change}.items() if value is not ...}


BAD = [
    ("not json", "not valid JSON"),
    ([1, 2], "not a JSON object"),
    ({**REVIEW, "log_id": "tavern"}, "field 'log_id' has the wrong type (str)"),
    (_bad(REVIEW, expected_facts=...), "missing field 'expected_facts'"),
    ({**REVIEW, "expected_fact": ["UP"]}, "unknown field(s) 'expected_fact'"),
    ({**REVIEW, "category": "permits"}, "category 'permits' is not one of"),
    ({**REVIEW, "abstain": True}, "an out_of_scope item, and only one, has abstain true"),
    ({**REVIEW, "expected_facts": ["MUP"]}, "expected fact 'MUP' is not in expected_answer"),
    ({**REVIEW, "contradicting_facts": ["use permit"]}, "contradicting fact 'use permit' is in the expected answer's first line"),
    ({**REVIEW, "expected_sections": ["17.22"]}, "Table 2-3 / Bar, tavern / CG: no such parsed cell"),  # not the section printing it
    ({**REVIEW, "expected_sections": ["section 17.22.020"]}, "expected section 'section 17.22.020' is not a section id"),
    ({**REVIEW, "source": None}, "an answerable item needs a source"),
    ({**REVIEW, "source": {**REVIEW["source"], "line": 654}}, "source text 'Bar, tavern UP UP UP - - -' is not in "
                                                               "corpus/cotati/2023-11-06_ord-telecom-facilities.txt line 654"),
    ({**REVIEW, "source": {**REVIEW["source"], "file": "corpus/cotati/SOURCE_NOTES.md"}}, "is not a corpus document"),
    ({**REVIEW, "source": {**REVIEW["source"], "line": 99999}}, " lines, not 99999"),
    ({**REVIEW, "source": {**REVIEW["source"], "text": "Bar"}}, "source text must be 20 to 120 characters"),
    ({**REVIEW, "expected_document": "002"}, "expected_document '002' is not the source file's document (000)"),
    ({**REVIEW, "column": "NL"}, "column 'NL' is not a district of Table 2-3"),
    (_bad(REVIEW, expected_value=...), "a permit cell item needs expected_value"),
    ({**REVIEW, "expected_value": "P", "expected_facts": ["P"], "expected_answer": "Permitted (P)."},
     "the source text does not print P"),
    ({**REVIEW, "row": "Bowling alley"}, "Table 2-3 / Bowling alley / CG: no such parsed cell"),
    ({**DECLINE, "expected_sections": ["17.22.020"]}, "an item to decline has no facts, sections, source"),
]


@pytest.mark.parametrize("review, message", BAD, ids=[str(i) for i in range(len(BAD))])
def test_a_bad_review_line_is_one_error_naming_file_and_line_and_nothing_is_written(logged, corpus, review, message):
    good = {"log_id": logged.ids["dogs"], **DECLINE}
    bad = review if not isinstance(review, dict) else {"log_id": logged.ids["tavern"], **review}
    logged.review.write_text(json.dumps(good) + "\n\n" + (bad if isinstance(bad, str) else json.dumps(bad)) + "\n",
                             encoding="utf-8")
    before = logged.dev.read_bytes()
    with pytest.raises(ReviewError) as refused:
        add_from_log(logged.review, logged.dev, logged.log, logged.test, corpus)
    text = str(refused.value)
    assert text.startswith(f"{logged.review} line 3: ") and message in text and "\n" not in text, text
    assert logged.dev.read_bytes() == before


@pytest.mark.parametrize("which, change, message", [
    ("q042", {}, "the question is already dev item q042"),
    ("test", {}, "the question is in the test set; it cannot be a dev item too"),
    ("tavern", {"question": "Could I run a bar in CG?"}, "question differs from log entry"),
    (None, {"log_id": 4242}, "log entry 4242 is not in"),
])
def test_duplicates_and_entries_not_in_the_log_are_refused(logged, corpus, which, change, message):
    review = {"log_id": logged.ids.get(which), **REVIEW, **change}
    _write(logged.review, review)
    with pytest.raises(ReviewError, match=message):
        add_from_log(logged.review, logged.dev, logged.log, logged.test, corpus)


def test_the_same_entry_is_added_once(logged, corpus):
    review = {"log_id": logged.ids["tavern"], **REVIEW}
    _write(logged.review, review, review)
    with pytest.raises(ReviewError, match="line 2: log entry .* is already dev item q565"):
        add_from_log(logged.review, logged.dev, logged.log, logged.test, corpus)
    _write(logged.review, review)
    add_from_log(logged.review, logged.dev, logged.log, logged.test, corpus)
    with pytest.raises(ReviewError, match="line 1: log entry .* is already dev item q565"):
        add_from_log(logged.review, logged.dev, logged.log, logged.test, corpus)


def test_missing_inputs_are_one_line(logged, corpus):
    with pytest.raises(InputError, match="review.jsonl: review file not found"):
        add_from_log(logged.review, logged.dev, logged.log, logged.test, corpus)
    _write(logged.review, {"log_id": logged.ids["dogs"], **DECLINE})
    with pytest.raises(InputError, match="no question log there"):
        add_from_log(logged.review, logged.dev, logged.folder / "none.sqlite3", logged.test, corpus)
    logged.review.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="no review lines"):
        add_from_log(logged.review, logged.dev, logged.log, logged.test, corpus)


def test_next_id_is_one_past_the_highest():
    assert next_id([{"id": "q001"}, {"id": "q565"}, {"id": "q099"}, {"id": "t700"}]) == 566
    assert next_id([]) == 1


# -- the real entry points --------------------------------------------------------------------
def _run(*args: str, log: Path) -> subprocess.CompletedProcess:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("COTATI_")}, "COTATI_QUESTION_LOG_PATH": str(log)}
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def test_cli_lists_the_flagged_and_adds_the_reviewed_to_dev(logged):
    done = _run("assistant", "log", "--flagged", "--json", log=logged.log)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    [entry] = [json.loads(line) for line in done.stdout.splitlines()]
    assert {k: entry[k] for k in ("log_id", "question", "answer", "interpretation", "route", "confidence", "mark",
                                  "comment")} == {"log_id": logged.ids["tavern"], "question": TAVERN,
                                                  "answer": TAVERN_ANSWER, "interpretation": READ_AS, "route": "permit",
                                                  "confidence": 0.99, "mark": "wrong", "comment": "should say CG"}
    text = _run("assistant", "log", "--flagged", log=logged.log)
    assert text.returncode == 0 and text.stdout.splitlines()[:5] == [
        f"#{logged.ids['tavern']}  {entry['time']}  WRONG  permit 0.99", f"  Q: {TAVERN}",
        "  A: A use permit (UP) is required.", "  Read as: Bar, tavern (Table 2-3) in CG", "  Comment: should say CG"]
    assert text.stderr == "1 marked answers (1 wrong, 0 helpful)\n"
    assert _run("assistant", "log", "--flagged", "--mark", "helpful", "--json", log=logged.log).stdout == ""
    # The other listings still work.
    groups = _run("assistant", "log", "--unanswered", "--json", log=logged.log)
    assert [json.loads(line)["question"] for line in groups.stdout.splitlines()] == ["do I need a licence for my dog?"]
    assert _run("assistant", "log", "--json", log=logged.log).stdout.count("\n") == 4
    for wrong in (("--flagged", "--unanswered"), ("--mark", "wrong")):
        refused = _run("assistant", "log", *wrong, log=logged.log)
        assert refused.returncode == 2 and refused.stderr.splitlines()[-1].startswith("python -m assistant")
        assert ": error: " in refused.stderr.splitlines()[-1]

    # The reviewer turns the flagged line into a review line.
    _write(logged.review, {**entry, **REVIEW})
    dev = ("--dev", str(logged.dev))
    checked = _run("eval", "add-from-log", "--review", str(logged.review), *dev, "--check", log=logged.log)
    assert checked.returncode == 0 and "q565" not in logged.dev.read_text(encoding="utf-8")
    added = _run("eval", "add-from-log", "--review", str(logged.review), *dev, log=logged.log)
    assert added.returncode == 0, added.stderr
    assert added.stdout == f"q565  (log entry {logged.ids['tavern']})  {TAVERN}\n"
    assert added.stderr.startswith("added 1 dev item(s) to ")
    last = json.loads(logged.dev.read_text(encoding="utf-8").splitlines()[-1])
    assert (last["id"], last["question"], last["origin"], last["log_id"]) == ("q565", TAVERN, "log", logged.ids["tavern"])
    # Again: refused in one line, nothing written.
    before = logged.dev.read_bytes()
    again = _run("eval", "add-from-log", "--review", str(logged.review), *dev, log=logged.log)
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr == (f"error: {logged.review} line 1: log entry {logged.ids['tavern']} is already dev item q565; "
                            "nothing written\n")
    assert logged.dev.read_bytes() == before
    missing = _run("eval", "add-from-log", *dev, log=logged.log)
    assert missing.returncode == 2 and "--review" in missing.stderr and missing.stderr.count("\n") == 1
