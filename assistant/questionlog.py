"""The question log: what residents asked, so staff can see what the code assistant could not answer.

One SQLite file (stdlib ``sqlite3``, WAL), default ``var/questions.sqlite3``. Each row is one
answered question: when (UTC), the route, the confidence, whether it was declined, and the
question's text; no IP address, session or other identifier. Rows older than the retention
setting (default 90 days) are deleted when the log is opened and at most hourly after. The web
app writes it (``webapp.engine``) and never shows it; ``python -m assistant log --unanswered``
reads it.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS questions (
    id INTEGER PRIMARY KEY,
    asked_at TEXT NOT NULL,      -- UTC, ISO 8601 to the second
    route TEXT NOT NULL,
    confidence REAL,             -- NULL: the route gives none (a section looked up by number)
    abstained INTEGER NOT NULL,  -- 1: declined (or could not be answered)
    question TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS questions_asked_at ON questions (asked_at);
"""
PRUNE_EVERY = 3600.0  # seconds between retention sweeps while the log is open
NOT_ABOUT_THE_CODE = ("unavailable",)  # the index was not ready: says nothing about what the code lacks
SIMILAR = 80  # rapidfuzz token_set_ratio at or over which two questions are grouped


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Entry:
    asked_at: str
    route: str
    confidence: float | None
    abstained: bool
    question: str


class QuestionLog:
    """Thread-safe writer and reader of one log file; ``close()`` when done."""

    def __init__(self, path: str | Path, retention_days: int = 90):
        self.path = Path(path)
        self.retention_days = retention_days
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(SCHEMA)
        self._pruned = 0.0
        self.prune()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> QuestionLog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def prune(self, now: datetime | None = None) -> int:
        """Delete rows older than the retention; how many were deleted."""
        cutoff = _stamp((now or _now()) - timedelta(days=self.retention_days))
        with self._lock:
            deleted = self._db.execute("DELETE FROM questions WHERE asked_at < ?", (cutoff,)).rowcount
        self._pruned = time.monotonic()
        return deleted

    def record(self, answer, asked_at: datetime | None = None) -> None:
        """One row for an ``assistant.types.Answer``. A log that cannot be written is a warning, never
        a failed answer."""
        if not getattr(answer, "question", "").strip():
            return
        row = (_stamp(asked_at or _now()), answer.route or "", answer.confidence, int(bool(answer.abstained)),
               answer.question)
        try:
            if time.monotonic() - self._pruned > PRUNE_EVERY:
                self.prune()
            with self._lock:
                self._db.execute("INSERT INTO questions (asked_at, route, confidence, abstained, question) "
                                 "VALUES (?, ?, ?, ?, ?)", row)
        except sqlite3.Error as error:
            log.warning("question log %s not written: %s", self.path, error)

    def entries(self, since: str = "") -> list[Entry]:
        """Every row asked on or after ``since`` (YYYY-MM-DD, UTC), oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT asked_at, route, confidence, abstained, question FROM questions "
                                    "WHERE asked_at >= ? ORDER BY asked_at, id", (since,)).fetchall()
        return [Entry(a, r, c, bool(x), q) for a, r, c, x, q in rows]

    def unanswered(self, since: str = "", low_confidence: float = 0.95) -> list[Entry]:
        """Questions declined, or answered with a confidence under ``low_confidence``."""
        return [e for e in self.entries(since) if e.route not in NOT_ABOUT_THE_CODE and (
            e.abstained or (e.confidence is not None and e.confidence < low_confidence))]


def _wording(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def group(entries: list[Entry], similar: int = SIMILAR) -> list[dict]:
    """Entries grouped by similar wording (each joins the first group whose first question it is
    like), largest group first: {question, count, first, last, declined, routes, variants}."""
    from rapidfuzz import fuzz

    groups: list[tuple[str, list[Entry]]] = []
    for entry in entries:
        words = _wording(entry.question)
        home = next((members for key, members in groups if fuzz.token_set_ratio(words, key) >= similar), None)
        if home is None:
            groups.append((words, [entry]))
        else:
            home.append(entry)
    out = []
    for _, members in groups:
        variants = list(dict.fromkeys(m.question for m in members))
        out.append({"question": variants[0], "count": len(members), "first": members[0].asked_at,
                    "last": members[-1].asked_at, "declined": sum(m.abstained for m in members),
                    "routes": sorted({m.route for m in members}), "variants": variants})
    return sorted(out, key=lambda g: (-g["count"], g["first"]))
