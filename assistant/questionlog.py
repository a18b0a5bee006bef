"""The question log: what residents asked, so staff can see what the code assistant could not answer.

One SQLite file (stdlib ``sqlite3``, WAL), default ``var/questions.sqlite3``. Each row is one
answered question: when (UTC), the route, the confidence, whether it was declined, the question's
text, the answer given and its interpretation (what the question was read as); no IP address,
session or other identifier. A resident may mark an answer "helpful" or "wrong", with an optional
comment (``mark()``); the mark is kept on the answer's row. Rows older than the retention setting
(default 90 days, 1 to 36500) are deleted, marks with them, when the app opens the log and at most
hourly after; a read-only opening (``assistant log``, ``eval add-from-log``) never deletes. The
log is capped (rows and bytes): the oldest rows go first, with a warning saying how many. The
file is created 0600 (owner only). Text is stored as given (normalised: ``validate.normalise_input``)
and printed escaped (``validate.escape_for_terminal``). A file that is not a readable SQLite log is
``LogError`` (one line) for a reader. The app's ``open_log`` never stops the app: a log that cannot
be opened, migrated or written at start (a full disk, a read-only folder, a locked file) is one
warning line, and the app serves without a log; only a file whose integrity check fails (not a
SQLite database, or ``PRAGMA quick_check`` not ok) is moved aside as ``<name>.damaged-<time>``, and
at most one such copy is kept (with one already there, the damaged log is left where it is).
The web app writes it (``webapp.engine``) and never shows it; ``python -m assistant log`` reads it
(``--unanswered``, ``--flagged``) and ``python -m eval add-from-log`` turns reviewed rows into dev items.

Schema versions (``PRAGMA user_version``): 0 had no answer, interpretation or mark; 1 no corpus
state (the corpus lock's stamp the answer was given from, as the web app follows a changed corpus);
opening such a log adds those columns (empty for the old rows), so an existing log stays readable.
"""

from __future__ import annotations

import glob
import logging
import os
import re
import sqlite3
import json
import threading
import time
from dataclasses import dataclass, field
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
SCHEMA_VERSION = 2
# Columns added by version 1: the answer and its interpretation as logged, and the resident's mark;
# by version 2: the corpus state the answer came from.
ADDED_COLUMNS = (
    ("answer", "TEXT"),          # the answer's text as shown (first line: the direct answer)
    ("interpretation", "TEXT"),  # JSON: what the question was read as
    ("mark", "TEXT"),            # NULL, 'helpful' or 'wrong'
    ("comment", "TEXT"),         # the resident's optional comment with the mark
    ("marked_at", "TEXT"),       # UTC, when the mark was last set
    ("corpus", "TEXT"),          # the corpus lock's stamp (ingest.lock.stamp) the answer was given from
)
MARKS = ("helpful", "wrong")
MAX_COMMENT_CHARS = 1000
PRUNE_EVERY = 3600.0  # seconds between retention sweeps while the log is open (the caps hold at every write)
WARN_EVERY = 60.0  # seconds between two warnings of the same kind (a write failing, the cap deleting)
NOT_ABOUT_THE_CODE = ("unavailable",)  # the index was not ready: says nothing about what the code lacks
SIMILAR = 80  # rapidfuzz token_set_ratio at or over which two questions are grouped


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


MAX_RETENTION_DAYS = 36500
MAX_ROWS, MAX_BYTES = 1_000_000, 512 * 1024 * 1024  # the caps' defaults (COTATI_LOG_MAX_ROWS, COTATI_LOG_MAX_MB)


class LogError(Exception):
    """The question log cannot be opened or read (not a SQLite log, unreadable); one line naming the file."""


def damaged(path: str | Path) -> str:
    """Why ``path`` fails its integrity check (not a SQLite database, or ``PRAGMA quick_check`` finds
    damage), "" when it passes or cannot be told (missing, unreadable, locked: not damage). Read-only."""
    path = Path(path)
    if not path.is_file():
        return ""
    try:
        with open(path, "rb") as handle:
            head = handle.read(16)
    except OSError:
        return ""
    if head and head != b"SQLite format 3\x00":
        return "not a SQLite database"
    if not head:
        return ""  # an empty file: an empty database, as SQLite reads it
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return ""
    try:
        rows = db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as error:
        text = str(error)
        return text if ("malformed" in text or "not a database" in text) else ""
    finally:
        db.close()
    found = [str(r[0]) for r in rows if str(r[0]) != "ok"]
    return f"integrity check: {found[0]}" if found else ""


class MarkError(ValueError):
    """A mark that cannot be kept (no such answer in the log, a mark other than helpful/wrong, a comment
    too long); the message is one line saying which."""


@dataclass(frozen=True)
class Entry:
    asked_at: str
    route: str
    confidence: float | None
    abstained: bool
    question: str
    id: int = 0
    answer: str = ""
    interpretation: dict = field(default_factory=dict)
    mark: str | None = None
    comment: str = ""
    marked_at: str = ""
    corpus: str = ""

    def to_json(self) -> dict:
        """What ``assistant log --flagged --json`` prints for one entry (``log_id``: its row in the log)."""
        return {"log_id": self.id, "time": self.asked_at, "question": self.question, "answer": self.answer,
                "interpretation": self.interpretation, "route": self.route, "confidence": self.confidence,
                "abstained": self.abstained, "mark": self.mark, "comment": self.comment, "marked_at": self.marked_at,
                "corpus": self.corpus}


COLUMNS = "id, asked_at, route, confidence, abstained, question, answer, interpretation, mark, comment, marked_at, corpus"


def _entry(row) -> Entry:
    id_, asked_at, route, confidence, abstained, question, answer, interpretation, mark, comment, marked_at, corpus = row
    try:
        read = json.loads(interpretation) if interpretation else {}
    except ValueError:
        read = {}
    return Entry(asked_at, route, confidence, bool(abstained), question, id_, answer or "",
                 read if isinstance(read, dict) else {}, mark, comment or "", marked_at or "", corpus or "")


def _interpretation(answer) -> str | None:
    value = getattr(answer, "interpretation", None)
    if not value:
        return None
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return None


class QuestionLog:
    """Thread-safe writer and reader of one log file; ``close()`` when done."""

    def __init__(self, path: str | Path, retention_days: int = 90, read_only: bool = False,
                 max_rows: int = MAX_ROWS, max_bytes: int = MAX_BYTES):
        if isinstance(retention_days, bool) or not isinstance(retention_days, int) or \
                not 1 <= retention_days <= MAX_RETENTION_DAYS:
            raise ValueError(f"retention of {retention_days!r} days: must be 1 to {MAX_RETENTION_DAYS}")
        self.path = Path(path)
        self.retention_days, self.read_only = retention_days, read_only
        self.max_rows, self.max_bytes = max_rows, max_bytes
        self._lock = threading.Lock()
        self._pruned = 0.0
        self._rows: int | None = None  # rows in the log, counted at the last cap check and kept as rows are written
        self._failed_warned = None  # monotonic time of the last "not written" warning (None: none yet)
        self._failed_quiet = 0  # writes that failed since that warning, not said
        self._cap_warned = None  # monotonic time of the last "over its cap" warning
        self._cap_quiet = 0  # rows the cap deleted since that warning, not said
        self._db = None
        try:
            self._db = self._connect()
            self._db.executescript(SCHEMA)
            self._migrate()
            if not read_only:
                self.prune()
        except (sqlite3.Error, OSError) as error:
            if self._db is not None:
                self._db.close()
            what = "not a readable question log" if isinstance(error, sqlite3.DatabaseError) and not \
                isinstance(error, sqlite3.OperationalError) else "cannot open the question log"
            raise LogError(f"{self.path}: {what} ({getattr(error, 'strerror', None) or error})") from None

    def _connect(self) -> sqlite3.Connection:
        """The connection; a new file is created owner-only (0600) before SQLite opens it."""
        if not self.read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            except FileExistsError:
                pass
        elif not self.path.is_file():
            raise LogError(f"{self.path}: no question log here")
        try:
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as error:
            raise LogError(f"{self.path}: cannot open the question log ({error})") from None
        db.execute("PRAGMA busy_timeout=5000")
        db.execute("PRAGMA journal_mode=WAL")
        if not self.read_only:
            # The write-ahead log counts against the byte cap: checkpoint it well before it could pass it
            # (SQLite's default waits for 1,000 pages, 4 MB), and truncate it to a small size after.
            pages = max(8, min(1000, self.max_bytes // 4096 // 8))
            db.execute(f"PRAGMA wal_autocheckpoint={int(pages)}")
            db.execute(f"PRAGMA journal_size_limit={int(max(64 * 1024, self.max_bytes // 8))}")
        return db

    def _migrate(self) -> None:
        """Bring a log written by an older version up to ``SCHEMA_VERSION`` (one transaction, so two
        processes opening it at once do not both add a column)."""
        if self._db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            have = {row[1] for row in self._db.execute("PRAGMA table_info(questions)")}
            for name, kind in ADDED_COLUMNS:
                if name not in have:
                    self._db.execute(f"ALTER TABLE questions ADD COLUMN {name} {kind}")
            self._db.execute("CREATE INDEX IF NOT EXISTS questions_marked ON questions (mark) WHERE mark IS NOT NULL")
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> QuestionLog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def prune(self, now: datetime | None = None) -> int:
        """Delete rows older than the retention, then the oldest over the caps; how many were deleted.
        Never on a read-only log."""
        if self.read_only:
            return 0
        cutoff = _stamp((now or _now()) - timedelta(days=self.retention_days))
        with self._lock:
            deleted = self._db.execute("DELETE FROM questions WHERE asked_at < ?", (cutoff,)).rowcount
            capped = self._cap()
        self._pruned = time.monotonic()
        self._said_capped(capped)
        return deleted + capped

    def _said_capped(self, capped: int) -> None:
        """The "over its cap" warning: at once the first time, then at most once a minute with how many
        rows went meanwhile (the cap holds as each row is written, one row at a time)."""
        if not capped:
            return
        self._cap_quiet += capped
        now = time.monotonic()
        if self._cap_warned is not None and now - self._cap_warned < WARN_EVERY:
            return
        log.warning("question log %s: over its cap (%d rows, %d MB, its write-ahead log included); deleted the %d "
                    "oldest questions", self.path, self.max_rows, self.max_bytes // 2**20, self._cap_quiet)
        self._cap_warned, self._cap_quiet = now, 0

    def _size(self) -> int:
        """Bytes the log holds: its pages in use and its write-ahead log. Called with the lock held."""
        pages, page_size, free = (self._db.execute(f"PRAGMA {name}").fetchone()[0]
                                  for name in ("page_count", "page_size", "freelist_count"))
        try:
            wal = os.stat(f"{self.path}-wal").st_size
        except OSError:
            wal = 0
        return (pages - free) * page_size + wal

    def _cap(self) -> int:
        """Delete the oldest rows over ``max_rows``, then (estimated by the average row size) over
        ``max_bytes`` (the write-ahead log included); how many. Called with the lock held."""
        rows = self._db.execute("SELECT COUNT(*) FROM questions").fetchone()[0]
        used = self._size()
        keep = min(rows, self.max_rows)
        if rows and used > self.max_bytes:
            keep = min(keep, int(rows * self.max_bytes * 0.9 / used))
        if keep >= rows:
            self._rows = rows
            return 0
        deleted = self._db.execute("DELETE FROM questions WHERE id IN (SELECT id FROM questions ORDER BY asked_at, id "
                                   "LIMIT ?)", (rows - keep,)).rowcount
        self._rows = rows - deleted
        if used > self.max_bytes:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the deleted rows' pages leave the WAL too
        return deleted

    def _over(self) -> bool:
        """Whether the rows written since the last check pass a cap. Called with the lock held."""
        if self._rows is None or self._rows > self.max_rows:
            return True
        return self._size() > self.max_bytes

    def record(self, answer, asked_at: datetime | None = None, corpus: str = "") -> int | None:
        """One row for an ``assistant.types.Answer``: its id in the log (what ``mark`` takes), or None
        when nothing was written. ``corpus``: the corpus state it was given from (the lock's stamp). A
        log that cannot be written is a warning, never a failed answer."""
        from .validate import normalise_input

        question = normalise_input(getattr(answer, "question", ""))
        if not question.strip() or self.read_only:
            return None
        row = (_stamp(asked_at or _now()), answer.route or "", answer.confidence, int(bool(answer.abstained)),
               question, normalise_input(getattr(answer, "answer", "") or ""), _interpretation(answer), corpus or None)
        try:
            if time.monotonic() - self._pruned > PRUNE_EVERY:
                self.prune()
            with self._lock:
                written = self._db.execute("INSERT INTO questions (asked_at, route, confidence, abstained, question, "
                                           "answer, interpretation, corpus) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                           row).lastrowid
                self._rows = None if self._rows is None else self._rows + 1
                capped = self._cap() if self._over() else 0  # the caps hold as each row is written
            self._said_capped(capped)
            return written
        except (sqlite3.Error, OSError, ValueError) as error:  # a full disk, a locked file; never a failed answer
            self._said_failed(error)
            return None

    def _said_failed(self, error: Exception) -> None:
        """A write that failed: a warning the first time, then at most once a minute, saying how many
        failed meanwhile (a full disk warned once per question)."""
        now = time.monotonic()
        if self._failed_warned is not None and now - self._failed_warned < WARN_EVERY:
            self._failed_quiet += 1
            log.debug("question log %s not written: %s", self.path, error)
            return
        more = f" ({self._failed_quiet} more not written since the last warning)" if self._failed_quiet else ""
        log.warning("question log %s not written: %s%s", self.path, error, more)
        self._failed_warned, self._failed_quiet = now, 0

    def mark(self, entry_id: object, mark: object, comment: object = "", now: datetime | None = None) -> Entry:
        """Keep a resident's mark ("helpful" or "wrong") and optional comment on a logged answer (a later
        mark replaces an earlier one); the entry as marked. Raises ``MarkError`` (one line) for an id not
        in the log, another mark, or a comment over ``MAX_COMMENT_CHARS``."""
        if mark not in MARKS:
            raise MarkError(f"mark must be 'helpful' or 'wrong', not {str(mark)[:40]!r}")
        if isinstance(entry_id, bool) or not isinstance(entry_id, int):
            raise MarkError(f"no answer {str(entry_id)[:40]!r} in the question log (an entry id is a whole number)")
        text = " ".join(str(comment or "").split())
        if len(text) > MAX_COMMENT_CHARS:
            raise MarkError(f"the comment is {len(text):,} characters long; the limit is {MAX_COMMENT_CHARS:,}")
        with self._lock:
            changed = self._db.execute("UPDATE questions SET mark = ?, comment = ?, marked_at = ? WHERE id = ?",
                                       (mark, text or None, _stamp(now or _now()), entry_id)).rowcount
        if not changed:
            raise MarkError(f"no answer {entry_id} in the question log (never logged, or deleted after "
                            f"{self.retention_days} days)")
        return self.entry(entry_id)

    def entry(self, entry_id: int) -> Entry | None:
        """One row by its id, or None."""
        with self._lock:
            row = self._db.execute(f"SELECT {COLUMNS} FROM questions WHERE id = ?", (entry_id,)).fetchone()
        return _entry(row) if row else None

    def entries(self, since: str = "") -> list[Entry]:
        """Every row asked on or after ``since`` (YYYY-MM-DD, UTC), oldest first; ``LogError`` when the
        file turns out damaged."""
        try:
            with self._lock:
                rows = self._db.execute(f"SELECT {COLUMNS} FROM questions WHERE asked_at >= ? ORDER BY asked_at, "
                                        "id", (since,)).fetchall()
        except sqlite3.DatabaseError as error:
            raise LogError(f"{self.path}: the question log is damaged ({error})") from None
        return [_entry(row) for row in rows]

    def flagged(self, since: str = "", mark: str | None = None) -> list[Entry]:
        """Answers a resident marked (only ``mark`` ones when given), asked on or after ``since``, oldest first."""
        return [e for e in self.entries(since) if e.mark is not None and (mark is None or e.mark == mark)]

    def unanswered(self, since: str = "", low_confidence: float = 0.95) -> list[Entry]:
        """Questions declined, or answered with a confidence under ``low_confidence``."""
        return [e for e in self.entries(since) if e.route not in NOT_ABOUT_THE_CODE and (
            e.abstained or (e.confidence is not None and e.confidence < low_confidence))]


def open_log(path: str | Path, retention_days: int = 90, max_rows: int = MAX_ROWS,
             max_bytes: int = MAX_BYTES) -> QuestionLog | None:
    """The app's log, or None (the app then serves without one) after one warning line: it never raises.
    A file whose integrity check fails is moved aside (never deleted; at most one damaged copy is kept)
    and a fresh log started in its place; any other failure (a full disk, a read-only folder, a locked
    file) leaves the file as it is."""
    path = Path(path)
    try:
        return QuestionLog(path, retention_days, max_rows=max_rows, max_bytes=max_bytes)
    except (LogError, OSError, sqlite3.Error, ValueError) as error:
        reason = str(error).split(": ", 1)[-1] if isinstance(error, LogError) else str(error)
        broken = damaged(path)
    if not broken:
        log.warning("question log %s: %s; questions are not recorded (the app serves without a log)", path, reason)
        return None
    earlier = sorted(p.name for p in path.parent.glob(f"{glob.escape(path.name)}.damaged-*")
                     if not p.name.endswith(("-wal", "-shm")))
    if earlier:
        log.warning("question log %s is damaged (%s); left in place, as %s already holds an earlier damaged copy "
                    "(move it away to let the app set this one aside); questions are not recorded", path, broken,
                    earlier[0])
        return None
    aside = path.with_name(f"{path.name}.damaged-{_now().strftime('%Y%m%dT%H%M%SZ')}")
    try:
        for suffix in ("", "-wal", "-shm"):  # the journal goes with its file: nothing is deleted
            if Path(f"{path}{suffix}").exists():
                os.replace(f"{path}{suffix}", f"{aside}{suffix}")
        fresh = QuestionLog(path, retention_days, max_rows=max_rows, max_bytes=max_bytes)
    except (LogError, OSError, sqlite3.Error) as error:
        log.warning("question log %s is damaged (%s) and could not be replaced (%s); questions are not recorded",
                    path, broken, str(error).split(": ", 1)[-1])
        return None
    log.warning("question log %s could not be read (%s); moved it to %s and started a fresh log", path, broken,
                aside.name)
    return fresh


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
