"""Issue 37 item 4: the question log never stops the app. The failure: with the log's filesystem full
(no log yet, or an older-format log), `python app.py` exited with a `LogError` traceback; a healthy
older log was renamed `.damaged-...` (then `assistant log --unanswered` showed 0), and each retry left
another such file. Now any failure to open, migrate or write the log at start is one warning line and
the app serves without a log; only a file whose integrity check fails is moved aside, at most once."""

from __future__ import annotations

import logging
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from assistant.questionlog import QuestionLog, damaged, open_log

REPO = Path(__file__).resolve().parent.parent


def _older_log(path: Path, rows: int = 3) -> None:
    """A healthy log as schema version 0 wrote it (no answer, interpretation or mark columns)."""
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE questions (id INTEGER PRIMARY KEY, asked_at TEXT NOT NULL, route TEXT NOT NULL, "
                     "confidence REAL, abstained INTEGER NOT NULL, question TEXT NOT NULL);")
    from datetime import datetime, timezone

    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    db.executemany("INSERT INTO questions (asked_at, route, confidence, abstained, question) VALUES (?, ?, ?, 1, ?)",
                   [(now, "passage", 0.1, f"declined question {n}") for n in range(rows)])
    db.commit()
    db.close()


def _aside(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".damaged-" in p.name)


# A full disk, for real: the child may not grow any file past FULL bytes (RLIMIT_FSIZE; SIGXFSZ ignored,
# so a write fails with EFBIG as it would with ENOSPC).
FULL_DISK = textwrap.dedent("""
    import logging, resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.RLIM_INFINITY))
    import settings
    settings.configure_logging("INFO")
    from webapp.server import _question_log
    opened = _question_log(settings.load())
    print("LOG", opened is not None)
""")


@pytest.mark.parametrize("start", ["no log yet", "an older-format log"])
def test_a_full_disk_at_start_is_one_warning_and_the_app_serves_without_a_log(start, tmp_path):
    path = tmp_path / "q.sqlite3"
    if start != "no log yet":
        _older_log(path)
    before = path.read_bytes() if path.exists() else None
    env = {**os.environ, "COTATI_QUESTION_LOG_PATH": str(path)}
    for _ in range(3):  # each retry: the same one line, nothing renamed
        done = subprocess.run([sys.executable, "-c", FULL_DISK, "", "0"], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0 and "LOG False" in done.stdout, done.stderr
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "WARNING" in lines[0] and "not recorded" in lines[0], done.stderr
        assert "Traceback" not in done.stderr
    assert _aside(tmp_path) == []
    if before is not None:
        assert path.read_bytes() == before  # the healthy older log, untouched
        with QuestionLog(path) as log:  # once the disk has room, it migrates and keeps its rows
            assert len(log.unanswered()) == 3


def test_a_failed_migration_leaves_a_healthy_log_in_place(tmp_path, monkeypatch, caplog):
    path = tmp_path / "q.sqlite3"
    _older_log(path)

    def full(self):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(QuestionLog, "_migrate", full)
    with caplog.at_level(logging.WARNING, logger="assistant.questionlog"):
        assert open_log(path) is None
    assert [r.levelname for r in caplog.records] == ["WARNING"] and "disk is full" in caplog.records[0].getMessage()
    assert _aside(tmp_path) == [] and damaged(path) == ""


def test_an_unwritable_log_folder_is_one_warning(tmp_path, caplog):
    (tmp_path / "file").write_text("a file where the log's folder should be")
    with caplog.at_level(logging.WARNING, logger="assistant.questionlog"):
        assert open_log(tmp_path / "file" / "q.sqlite3") is None
    assert len(caplog.records) == 1


def test_at_most_one_damaged_copy_is_kept(tmp_path, caplog):
    path = tmp_path / "q.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    assert damaged(path) == "not a SQLite database"
    with open_log(path) as log:  # moved aside once, a fresh log started
        assert log.record is not None
    assert len(_aside(tmp_path)) == 1
    path.write_bytes(b"more garbage" * 1000)  # damaged again: the earlier copy is kept, no second one
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="assistant.questionlog"):
        assert open_log(path) is None
    assert len(_aside(tmp_path)) == 1 and path.read_bytes().startswith(b"more garbage")
    assert len(caplog.records) == 1 and "earlier damaged copy" in caplog.records[0].getMessage()


def test_a_log_with_a_damaged_page_fails_its_integrity_check(tmp_path):
    path = tmp_path / "q.sqlite3"
    _older_log(path, rows=2000)
    with open(path, "r+b") as handle:  # a B-tree page of the table overwritten
        handle.seek(4096 + 8)
        handle.write(b"\xff" * 512)
    assert damaged(path)
    assert damaged(tmp_path / "missing.sqlite3") == ""
