"""Issue 26 items 2, 4, 5, 6, 10: the question log is data. Retention is validated and never prunes
from a read-only command; a lone surrogate or control code is normalised before anything stores it;
`assistant log` prints control and bidi codes escaped; a corrupt log is one line for the reader and is
moved aside (never deleted) by the app; the log is capped and created 0600. Hermetic: tmp_path logs."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from assistant.questionlog import LogError, QuestionLog, open_log
from assistant.types import Answer
from assistant.validate import check_question, escape_for_terminal, normalise_input, InvalidQuestion

REPO = Path(__file__).resolve().parent.parent
OLD = datetime.now(timezone.utc) - timedelta(days=30)


def _answer(question: str, **kw) -> Answer:
    return Answer(question=question, answer=kw.pop("answer", "A use permit (UP) is required."), abstained=False,
                  route="permit", confidence=0.5, **kw)


def _log_cli(path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {**{k: v for k, v in os.environ.items() if not k.startswith("COTATI_")},
            "COTATI_QUESTION_LOG_PATH": str(path), **env}
    return subprocess.run([sys.executable, "-m", "assistant", "log", *args], cwd=REPO, env=full, capture_output=True,
                          text=True, timeout=60)


# ---- 2: retention --------------------------------------------------------------------------------

@pytest.mark.parametrize("days", [-1, 0, 99999999])
def test_a_nonsense_retention_is_refused_not_a_deleted_log(days, tmp_path):
    path = tmp_path / "q.sqlite3"
    with QuestionLog(path) as log:
        log.record(_answer("Can I open a bar in CD?"), asked_at=OLD)
    with pytest.raises(ValueError, match="must be 1 to 36500"):
        QuestionLog(path, days)
    done = _log_cli(path, COTATI_LOG_RETENTION_DAYS=str(days))
    assert done.returncode == 1 and done.stderr.startswith("error: COTATI_LOG_RETENTION_DAYS=") and \
        "out of range (1 to 36,500)" in done.stderr and "Traceback" not in done.stderr, done.stderr
    with QuestionLog(path, read_only=True) as log:
        assert len(log.entries()) == 1


def test_the_read_only_log_command_never_prunes(tmp_path):
    path = tmp_path / "q.sqlite3"
    with QuestionLog(path) as log:
        log.record(_answer("Can I open a bar in CD?"), asked_at=OLD)
    done = _log_cli(path, COTATI_LOG_RETENTION_DAYS="1")
    assert done.returncode == 0 and "bar in CD" in done.stdout, done.stderr
    with QuestionLog(path, read_only=True) as log:
        assert len(log.entries()) == 1  # only the app prunes


# ---- 4: lone surrogates, NUL, controls -------------------------------------------------------------

@pytest.mark.parametrize("text", ["Can I build a fence\ud83d?", "fence\x00height", "bell\x07 and \x1b[2J"])
def test_text_that_cannot_be_stored_is_normalised_once(text, tmp_path):
    clean = normalise_input(text)
    clean.encode("utf-8")  # storable
    assert "\ufffd" in clean and not any(ord(c) < 32 and c not in "\t\n\r" for c in clean)
    with pytest.raises(InvalidQuestion, match="control characters or broken text"):
        check_question(text)
    with QuestionLog(tmp_path / "q.sqlite3") as log:  # the failure: record raised UnicodeEncodeError
        entry = log.record(_answer(text))
        assert entry is not None and log.entry(entry).question == clean


def test_a_lone_surrogate_through_the_web_engine_is_answered_and_logged(tmp_path):
    from assistant.service import load_assistant
    from webapp.engine import Engine

    loaded = load_assistant()
    with QuestionLog(tmp_path / "q.sqlite3") as log:
        engine = Engine(loaded.corpus, loaded.tables, lambda progress: None, wait_seconds=0.1,
                        echo=lambda line: None, question_log=log)
        answer, entry = engine.ask_logged("Can I build a fence\udc80?")
        assert answer.route == "invalid" and "broken text" in answer.answer
        assert entry is not None and log.entry(entry).question == "Can I build a fence\ufffd?"


# ---- 5: escaped when printed ------------------------------------------------------------------------

def test_control_and_bidi_codes_are_escaped_when_staff_list_the_log(tmp_path):
    path = tmp_path / "q.sqlite3"
    evil = "fence\u202eheight\u2066 ok"
    with QuestionLog(path) as log:
        log.record(_answer(evil))
        log._db.execute("UPDATE questions SET question = question || ?", ("\x1b]0;pwned\x07\x9b",))  # raw, older log
    for args in ((), ("--json",)):
        done = _log_cli(path, *args)
        assert done.returncode == 0, done.stderr
        assert not any(c in done.stdout for c in "\x1b\x07\x9b\u202e\u2066"), repr(done.stdout)
    assert "\\u202e" in _log_cli(path).stdout and "\\x1b" in _log_cli(path).stdout
    assert escape_for_terminal("a\u200fb") == "a\\u200fb"


# ---- 6: corrupt or unreadable log ------------------------------------------------------------------

def test_a_corrupt_log_is_one_line_for_the_reader(tmp_path):
    path = tmp_path / "q.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    done = _log_cli(path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"error: {path}: not a readable question log")
    assert path.read_bytes().startswith(b"this is not")  # the reader leaves it as it is


def test_the_app_moves_a_corrupt_log_aside_and_starts_fresh(tmp_path, caplog):
    path = tmp_path / "q.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    with caplog.at_level(logging.WARNING, logger="assistant.questionlog"):
        log = open_log(path)
    with log:
        assert log.record(_answer("Can I open a bar in CD?")) is not None
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("q.sqlite3.damaged-")]
    assert len(aside) == 1 and aside[0].read_bytes() == b"garbage" * 1000  # never deleted
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and aside[0].name in warnings[0]


# ---- 10: size cap, owner-only file ------------------------------------------------------------------

def test_the_log_is_created_owner_only(tmp_path):
    path = tmp_path / "var" / "q.sqlite3"
    with QuestionLog(path) as log:
        log.record(_answer("Can I open a bar in CD?"))
    assert (path.stat().st_mode & 0o777) == 0o600


def test_the_log_keeps_at_most_its_cap_and_says_so(tmp_path, caplog):
    # issue 45: the cap holds as each row is written (it was checked once an hour), and says so once, not
    # once per row: the first row over the cap is named at once, the rest at most once a minute
    path = tmp_path / "q.sqlite3"
    with QuestionLog(path, max_rows=10) as log:
        with caplog.at_level(logging.WARNING, logger="assistant.questionlog"):
            for n in range(25):
                log.record(_answer(f"question number {n} about fences " + "x" * 500))
                assert len(log.entries()) == min(n + 1, 10)
            deleted = log.prune()
        left = [e.question for e in log.entries()]
    assert deleted == 0 and len(left) == 10 and left[0].startswith("question number 15 ")
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "over its cap (10 rows" in said[0] and "deleted the 1 oldest" in said[0]


def test_the_caps_hold_as_rows_are_written_wal_included(tmp_path):
    """Issue 45: with 100 rows and 1 MB as caps, 400 questions left 400 rows and a 4.1 MB write-ahead log."""
    path = tmp_path / "q.sqlite3"
    with QuestionLog(path, max_rows=100, max_bytes=1024 * 1024) as log:
        for n in range(400):
            log.record(_answer(f"question {n} about fences", answer="A fence may be six feet high. " + "z" * 8000))
            wal = Path(f"{path}-wal")
            assert (wal.stat().st_size if wal.exists() else 0) <= 1024 * 1024
        assert len(log.entries()) <= 100
    assert path.stat().st_size + (Path(f"{path}-wal").stat().st_size if Path(f"{path}-wal").exists() else 0) \
        <= 2 * 1024 * 1024


def test_a_failing_write_warns_once_then_at_most_once_a_minute(tmp_path, caplog, monkeypatch):
    """Issue 45: a log on a full disk warned once per question."""
    import sqlite3

    import assistant.questionlog as questionlog

    clock = [1000.0]
    monkeypatch.setattr(questionlog.time, "monotonic", lambda: clock[0])
    log = QuestionLog(tmp_path / "q.sqlite3")

    class Full:
        def execute(self, *args):
            raise sqlite3.OperationalError("database or disk is full")

        def close(self):
            pass

    log._db = Full()
    with caplog.at_level(logging.WARNING, logger="assistant.questionlog"):
        for n in range(30):
            assert log.record(_answer(f"question {n}")) is None
            clock[0] += 1
        first = [r.getMessage() for r in caplog.records]
        clock[0] += 60
        log.record(_answer("one more"))
    said = [r.getMessage() for r in caplog.records]
    assert len(first) == 1 and "disk is full" in first[0]
    assert len(said) == 2 and "(29 more not written since the last warning)" in said[1]


def test_the_byte_cap_drops_the_oldest(tmp_path):
    path = tmp_path / "q.sqlite3"
    with QuestionLog(path, max_bytes=64 * 1024) as log:
        for n in range(400):
            log.record(_answer(f"question {n} " + "y" * 1000))
        log.prune()
        left = log.entries()
    assert 0 < len(left) < 400 and left[-1].question.startswith("question 399 ")
