"""An adapter over the assistant for the web app: answers, lookups, land-use rows, index status.

Uses only public objects of ``assistant.service`` (``Assistant``, ``Corpus``, ``PermitTables``).
The search index is opened (built on first run) in a background thread by ``start_index()``.
Until it is ready every question is first answered without waiting for it: permit, standards and
section answers, which need no index, come at once (and are not cached, as the index may add to
them); a question that needs it then waits a little, and gets a clear "not ready" answer, or, when
the build failed, says so and how to retry. ``question_log`` (an ``assistant.questionlog.QuestionLog``,
set by ``webapp.server``) records each answered question and keeps residents' marks on answers.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from assistant.types import SearchUnavailable

MAX_QUESTION_CHARS = 2000  # the assistant's own limit (assistant.validate.MAX_CHARS)
MAX_LOOKUP_CHARS = 100
ANSWER_CACHE = 512

SECTION_ID = re.compile(r"\b(\d{1,2}\.\d{2}\.\d{3})\b")  # 17.44.065 and 3.42.040
SUBSECTION = re.compile(r"^\s*(?:§\s*)?(\d{1,2}\.\d{2}\.\d{3})\s*((?:\(\s*[A-Za-z0-9]{1,4}\s*\))+|[A-Z](?:\d{1,2})?)\s*$")
CHAPTER_ID = re.compile(r"^\s*(?:chapter\s*)?(\d{1,2}\.\d{2})\s*$", re.I)
ORDINANCE_PART = re.compile(r"^\s*(\d{3}):(PREAMBLE|SECTION-\d+)\s*$", re.I)
TABLE_ID = re.compile(r"^\s*(?:tables?\s*)?(\d{1,2}-\d{1,2})\s*$", re.I)


log = logging.getLogger("webapp")
# One question per kind of answer (passage, permit by meaning, standards, definition, provision, an
# earlier day), asked once in the background before "ready": what makes the first answers slow is
# each route's first use, not the question.
WARM_QUESTIONS = (
    "What does the code say about bicycle parking for offices?",
    "Can I open a gym in the CG district?",
    "How tall can a fence be?",
    "What is a home occupation?",
    "How long is a use permit valid?",
    "In 2024, could I open a bar in the CE district?",
)
RETRY = "to retry, fix that and restart the app, or run `python -m index build`"
LOOKUP_HINT = "Type a chapter (17.44), a section (17.44.065), a subsection (17.36.040(E)) or a table (Table 2-4)."


SERVER_PATH = re.compile(r"(?<![\w.:/])(?:~|\.{1,2})?(?:/[^\s/:;,'\"()]+)+/?")


def without_paths(text: str) -> str:
    """``text`` as shown to residents: every server path (``/srv/app/var/index``) cut to its last
    part (``index``); the terminal's log keeps the whole line."""
    return SERVER_PATH.sub(lambda m: m.group().rstrip("/").rsplit("/", 1)[-1] or "a folder", text)


class IndexUnavailable(SearchUnavailable):
    """The search index is still being built, or could not be built; the message says which."""


@dataclass
class IndexStatus:
    state: str = "idle"  # idle | building | warming | ready | failed
    stage: str = ""
    done: int = 0
    total: int = 0
    message: str = ""
    seconds: float = 0.0
    chunks: int = 0

    def text(self) -> str:
        if self.state == "ready":
            return f"Search index ready ({self.chunks:,} passages; opened in {self.seconds:.1f} s)."
        if self.state == "failed":
            return (f"Search index unavailable: {without_paths(self.message)}. Permit-table, standards and section-number "
                    f"questions still work; {RETRY}.")
        if self.state == "warming":
            step = f" — {self.stage} {self.done}/{self.total}" if self.stage == "answers" and self.total else ""
            return (f"Loading the search model and preparing answers{step}… Permit-table, standards and section-number "
                    "questions already work.")
        if self.state == "building":
            step = f" — {self.stage} {self.done:,}/{self.total:,}" if self.total else (f" — {self.stage}" if self.stage else "")
            return f"Building the search index (first run only){step}… Permit-table, standards and section-number questions already work."
        return "Search index not opened yet."


@dataclass(frozen=True)
class Lookup:
    """What the jump box found: the sections to show (the first is shown), or why nothing."""

    query: str
    kind: str  # section | table | chapter | none
    sections: tuple = ()
    message: str = ""
    table: str = ""
    chapter: str = ""
    subsection: tuple = ()  # ("E", "1") for 17.36.040(E)(1)


@dataclass(frozen=True)
class Grid:
    """One table of one section as a grid: rows and columns in printed order, effective cells."""

    section: str
    table: str
    title: str  # the section's title
    kind: str  # permit | standard
    columns: tuple
    rows: tuple  # (category, row)
    cells: dict  # (category, row, column) -> EffectiveCell (a label may stand under two categories)
    notes: tuple = ()  # (number, text) of the table's footnotes
    documents: tuple = ()  # documents its effective cells come from, oldest first

    def summary(self, document_label) -> str:
        sources = ", ".join(document_label(d) for d in self.documents)
        return f"{len(self.rows)} rows × {len(self.columns)} columns; effective cells from {sources}"


@dataclass
class Engine:
    corpus: object
    tables: object
    open_index: Callable  # (progress) -> Searcher
    wait_seconds: float = 15.0
    echo: Callable[[str], None] | None = None
    status: IndexStatus = field(default_factory=IndexStatus)
    standards: object = None  # assistant.standards.StandardsTables: height, parking, fences ... answers
    calibration: object = None  # assistant.confidence.Calibration; None: the one fitted on dev, as the CLI uses
    question_log: object = None  # assistant.questionlog.QuestionLog; None: questions are not recorded
    warmers: tuple = ()  # callables run in the background before "ready" (the server's own first-use costs)
    corpus_stamp: str = ""  # the corpus lock's stamp this engine was loaded from (``webapp.follow``)
    # The learned parts the CLI and the eval answer with (``load_assistant``); None: the routes' hand order.
    ranker: object = None  # assistant.choose.Ranker
    reader: object = None  # assistant.reader.Reader

    def __post_init__(self):
        from assistant import confidence
        from assistant.service import Assistant, with_earlier_law

        calibration = self.calibration if self.calibration is not None else confidence.load()
        # "In 2024, ...": answered as the law then stood, as the CLI does
        self.assistant = with_earlier_law(Assistant(self.corpus, self.tables, self._searcher, self.standards, calibration,
                                                    self.reader, self.ranker))
        self._ready = threading.Event()
        self._finished = threading.Event()
        self._searcher_obj = None
        self._waiting = threading.local()  # .off: this thread's question must not wait for the index
        self._lock = threading.Lock()
        self._answers: OrderedDict[str, object] = OrderedDict()
        self._thread: threading.Thread | None = None
        self._grids: dict[tuple[str, str], Grid] | None = None
        self._referred: dict[str, list] | None = None
        self._versions: tuple = ()  # the table versions the grids were built from
        self._coverage = None
        self._changes: dict[str, object] = {}  # document id -> webapp.changes.DocumentChanges (or None)

    # -- loading -------------------------------------------------------------------------------
    @classmethod
    def load(cls, corpus_dir: str | Path | None = None, index_dir: str | Path | None = None,
             echo: Callable[[str], None] | None = None, wait_seconds: float = 15.0) -> Engine:
        """Read the corpus and tables (about a second); the index is opened by ``start_index()``."""
        from assistant.service import load_assistant

        loaded = load_assistant(corpus_dir, index_dir)

        def open_(progress):
            from index import open_index

            return open_index(index_dir, progress=progress)

        res = loaded.resources
        return cls(loaded.corpus, loaded.tables, open_, wait_seconds=wait_seconds, echo=echo, standards=loaded.standards,
                   ranker=res.ranker, reader=res.reader)

    def start_index(self) -> threading.Thread:
        """Open (or build) the search index and load the model in a background thread."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self.build_index, name="cotati-index", daemon=True)
                self._thread.start()
            return self._thread

    def build_index(self) -> None:
        from index import EncoderError, IndexBuildError, IndexStoreError

        started = time.perf_counter()
        self.status.state = "building"
        self._say("search index: opening (building it if missing or stale)")
        try:
            searcher = self.open_index(self._progress)
            self.status.state = "warming"
            self._say("search index: loading the embedding model")
            warm = getattr(searcher, "warm", None)
            if warm is not None:
                warm()
            self._warm_answers(searcher)
        except (IndexStoreError, IndexBuildError, EncoderError, OSError) as error:
            self._failed(str(error))
        except Exception as error:  # noqa: BLE001 - a background thread: report, or the status says "building" forever
            log.exception("search index: unexpected error")
            self._failed(f"{type(error).__name__}: {error}")
        else:
            self._searcher_obj = searcher
            self.status.chunks = len(getattr(searcher, "chunks", ()))
            self.status.seconds = time.perf_counter() - started
            self.status.state = "ready"
            self._ready.set()
            self._say(f"search index: ready ({self.status.chunks} passages, {self.status.seconds:.1f} s)")
        finally:
            self._finished.set()

    def _warm_answers(self, searcher) -> None:
        """Answer one question of each kind before saying "ready", so the first resident's question is as
        quick as the tenth: the first answer of each route pays for lazy imports, parsed provisions, the
        reader and the query's first embedding (seconds, where later answers take a fraction of one).
        Not cached and not logged; a question that fails here is only noted in the log."""
        self._waiting.searcher = searcher  # this thread may search before the index is declared ready
        self.status.stage, self.status.total = "answers", len(WARM_QUESTIONS)
        started = time.perf_counter()
        for warmer in self.warmers:
            try:
                warmer()
            except Exception as error:  # noqa: BLE001 - warming is an optimisation: never a reason to fail
                log.warning("warming: %s failed: %s", getattr(warmer, "__name__", warmer), error)
        try:
            for done, question in enumerate(WARM_QUESTIONS):
                self.status.done = done
                try:
                    self.assistant.ask(question)
                except Exception as error:  # noqa: BLE001 - warming is an optimisation: never a reason to fail
                    log.warning("warming answers: %r failed: %s", question, error)
        finally:
            self._waiting.searcher = None
        self.status.done = len(WARM_QUESTIONS)
        self._say(f"answers: warm ({len(WARM_QUESTIONS)} questions, {time.perf_counter() - started:.1f} s)")

    def _failed(self, reason: str) -> None:
        self.status.message = reason
        self.status.state = "failed"
        self._say(f"search index: FAILED: {reason}")

    def settle(self, timeout: float | None = None) -> None:
        """Wait for the background index work if any was started: a process that exits while it loads
        the model in native code aborts ("terminate called without an active exception")."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def wait_ready(self, timeout: float | None = None) -> bool:
        self._finished.wait(timeout)
        return self._ready.is_set()

    def _progress(self, stage: str, done: int, total: int) -> None:
        self.status.stage, self.status.done, self.status.total = stage, done, total
        if self.echo is None and (done == total or done % 256 == 0 or done == 0):
            log.info("building index: %s %d/%d", stage, done, total)

    def _say(self, line: str) -> None:
        (self.echo or log.info)(line)

    def _searcher(self):
        warming = getattr(self._waiting, "searcher", None)
        if warming is not None:  # the index thread, answering its warm-up questions
            return warming
        if self._thread is None:
            self.start_index()
        if not getattr(self._waiting, "off", False):
            self._finished.wait(self.wait_seconds)
        if self._ready.is_set():
            return self._searcher_obj
        raise IndexUnavailable(self.status.text())

    # -- answers -------------------------------------------------------------------------------
    def ask(self, question: object, history: list | None = None, as_of: str = ""):
        """The assistant's Answer (recorded in the question log when there is one); see ``_ask``."""
        return self.ask_logged(question, history, as_of)[0]

    def ask_logged(self, question: object, history: list | None = None, as_of: str = "") -> tuple:
        """(Answer, its id in the question log): the id a resident's mark goes to; None when the log is
        off or the row was not written (then the answer cannot be marked). ``as_of``: an ISO date
        (checked by the caller) the answer is to be valid for; "" for the law now in force."""
        answer = self._ask(question, history, as_of)
        entry = self.question_log.record(answer, corpus=self.corpus_stamp) if self.question_log is not None else None
        return answer, entry

    def mark(self, entry_id: object, mark: object, comment: object = "") -> str:
        """Keep a resident's mark ("helpful" or "wrong") and comment on a logged answer: "" when kept,
        else one line saying why not (no log, no such answer, a bad mark, a comment too long)."""
        import sqlite3

        from assistant.questionlog import MarkError

        if self.question_log is None:
            return "This app does not keep marks (its question log is off)."
        try:
            self.question_log.mark(entry_id, mark, comment)
        except MarkError as error:
            return f"Not recorded: {error}."
        except sqlite3.Error as error:  # a locked or full disk: the page says so, the terminal has why
            log.warning("question log: mark on %s not written: %s", entry_id, error)
            return "Not recorded: the question log could not be written."
        return ""

    def _ask(self, question: object, history: list | None = None, as_of: str = ""):
        """The assistant's Answer; the same question gives the same Answer (cached).

        ``history``: earlier (question, answer) turns, passed on when the assistant takes them
        (follow-up questions); an assistant without that parameter answers the question alone.
        ``as_of``: the day to answer as of (``Assistant.ask_as_of``); "" for today's law."""
        from index import EncoderError, IndexStoreError

        from assistant.types import Answer
        from assistant.validate import clean_question

        if not isinstance(question, str):
            return self.assistant.ask(question)  # says it must be text
        # Lone surrogates, NUL, controls, zero-width codes, full-width letters: as the CLI, before anything else
        question = clean_question(question)
        if len(question) > MAX_QUESTION_CHARS:
            # Refused before any work: the text is not even tidied.
            return Answer(question=question[:MAX_QUESTION_CHARS], abstained=True, route="invalid",
                          answer=f"The question is {len(question):,} characters long; the limit is "
                                 f"{MAX_QUESTION_CHARS:,}. Please shorten it and ask again.")
        takes_history = bool(history) and self._takes_history()
        key = question if isinstance(question, str) else repr(question)
        if takes_history:
            key = repr((key, [q for q, _ in history[-4:]]))
        if as_of:
            key = repr((key, as_of))
        with self._lock:
            if key in self._answers:
                self._answers.move_to_end(key)
                return self._answers[key]
        ready = self._ready.is_set()

        def answer_it():
            turns = list(history[-4:]) if takes_history else []
            if as_of and hasattr(self.assistant, "ask_as_of"):
                return self.assistant.ask_as_of(question, as_of, history=turns)
            return self.assistant.ask(question, history=turns) if turns else self.assistant.ask(question)

        try:
            self._waiting.off = not ready  # first without waiting: table and section answers need no index
            try:
                answer = answer_it()
            finally:
                self._waiting.off = False
        except (IndexUnavailable, IndexStoreError, EncoderError):
            try:  # this question needs the index: wait a little for it, unless its build failed
                if self.status.state == "failed":
                    raise IndexUnavailable(self.status.text()) from None
                answer = answer_it()
            except (IndexUnavailable, IndexStoreError, EncoderError):
                return Answer(question=str(question), abstained=True, route="unavailable", answer=self._unavailable())
        if not ready:
            return answer  # made while the index was not ready: not cached, the index may add to it
        with self._lock:
            self._answers[key] = answer
            while len(self._answers) > ANSWER_CACHE:
                self._answers.popitem(last=False)
        return answer

    def _unavailable(self) -> str:
        if self.status.state == "failed":
            return (f"This question needs the search index, which could not be built: {without_paths(self.status.message)}. "
                    f"Permit-table, standards and section-number questions still work; {RETRY}.")
        return (f"This question needs the search index, which is not ready yet. {self.status.text()} "
                "Please ask again in a minute.")

    def _takes_history(self) -> bool:
        import inspect

        try:
            return "history" in inspect.signature(self.assistant.ask).parameters
        except (TypeError, ValueError):
            return False

    # -- sections ------------------------------------------------------------------------------
    def section(self, section_id: str, document: str | None = None):
        return self.corpus.section(section_id, document)

    def versions(self, section_id: str) -> list:
        """Every document's statement of a section, oldest first."""
        return sorted((s for s in self.corpus.sections if s.id == section_id), key=lambda s: (s.date, s.document))

    def table_sections(self, table: str) -> list:
        """For each code section printing Table ``table``, its latest statement that prints it; newest first.

        (A later excerpt of the section that amends other parts does not hide the table.)"""
        pattern = re.compile(rf"^Tables?\s+{re.escape(table)}\b", re.M)
        printing = [s for s in self.corpus.sections if pattern.search(s.text)]
        code = [s for s in printing if s.kind == "code"] or printing  # else an ordinance part restating it
        latest: dict[str, object] = {}
        for section in sorted(code, key=lambda s: (s.date, s.document)):
            latest[section.id] = section
        return sorted(latest.values(), key=lambda s: (-_date_key(s.date), s.id, s.document))

    def lookup(self, text: object) -> Lookup:
        """Jump box: a section number (17.44.065, § 17.44.065, 001:SECTION-17) or a table (Table 2-4, 2-4)."""
        if not isinstance(text, str) or not text.strip():
            return Lookup(str(text or ""), "none", message=LOOKUP_HINT)
        query = " ".join(text.split())[:MAX_LOOKUP_CHARS]
        if len(text) > MAX_LOOKUP_CHARS:
            return Lookup(query, "none", message=f"That is {len(text):,} characters; a section or table number is short "
                                                 f"(limit {MAX_LOOKUP_CHARS}).")
        part = ORDINANCE_PART.match(query)
        if part:
            section_id = f"{part.group(1)}:{part.group(2).upper()}"
            found = self.corpus.section(section_id)
            if found is None:
                return Lookup(query, "none", message=f"{section_id} is not in these documents.")
            return Lookup(query, "section", (found,))
        table = TABLE_ID.match(query)
        if table:
            holders = self.table_sections(table.group(1))
            if not holders:
                return Lookup(query, "none", message=f"Table {table.group(1)} is not printed in these documents.",
                              table=table.group(1))
            return Lookup(query, "table", tuple(holders), table=table.group(1))
        chapter = CHAPTER_ID.match(query)
        if chapter:
            return Lookup(query, "chapter", tuple(self.chapter_sections(chapter.group(1))), chapter=chapter.group(1))
        sub = SUBSECTION.match(query)
        if sub:
            path = tuple(re.findall(r"[A-Za-z0-9]+", sub.group(2))) if "(" in sub.group(2) else tuple(
                p for p in re.match(r"([A-Z])(\d*)", sub.group(2)).groups() if p)
            found = self.corpus.section(sub.group(1))
            if found is None:
                return Lookup(query, "none", message=f"§ {sub.group(1)} is not in these documents.")
            return Lookup(query, "section", (found,), subsection=path)
        number = SECTION_ID.search(query)
        if number:
            found = self.corpus.section(number.group(1))
            if found is None:
                return Lookup(query, "none", message=f"§ {number.group(1)} is not in these documents.")
            return Lookup(query, "section", (found,))
        return Lookup(query, "none", message=LOOKUP_HINT)

    def chapter_sections(self, chapter: str) -> list:
        """The latest statement of each section of chapter ``17.44``, by number."""
        found = [s for s in self.corpus.latest.values() if ":" not in s.id and s.id.rsplit(".", 1)[0] == chapter]
        return sorted(found, key=lambda s: tuple(int(p) for p in s.id.split(".")))

    def referred_only(self, chapter: str = "") -> list[tuple[str, str]]:
        """(id, title where known) of sections the documents refer to but do not print."""
        return [(sid, self.referenced_title(sid)) for sid in sorted(self._references(), key=_id_key)
                if self.corpus.section(sid) is None and (not chapter or sid.rsplit(".", 1)[0] == chapter)]

    def _references(self) -> dict[str, list]:
        if self._referred is None:
            referred: dict[str, list] = {}
            for section in self.corpus.sections:
                for found in REFERENCE.finditer(section.text):
                    holders = referred.setdefault(found.group(1), [])
                    if section not in holders:
                        holders.append(section)
            self._referred = referred
        return self._referred

    def referenced_title(self, section_id: str) -> str:
        """The title the code gives a section where it refers to it ("See § 17.42.165, Retail use
        maximum floor area."), "" when no reference names it."""
        section = self.corpus.section(section_id)
        if section is not None:
            return section.title
        pattern = re.compile(re.escape(section_id) + r"(?:\([A-Za-z0-9]+\))*\s*(?:,\s*|\s*\()([A-Z][A-Za-z ,/'’-]{3,80}?)(?:[.)]|$)", re.M)
        for holder in self._references().get(section_id, []):
            found = pattern.search(holder.text)
            if found:
                return found.group(1).strip().rstrip(",")
        return ""

    def referrers(self, section_id: str) -> list:
        return list(self._references().get(section_id, []))

    def section_label(self, section_id: str) -> tuple[str, bool]:
        """How a section is named to people ("§ 17.36.090 Title", "<ordinance>, Section 17: Title"),
        and whether these documents print it. Never an internal id such as 000:PREAMBLE."""
        from .pages import section_label

        section = self.corpus.section(section_id)
        if section is None:
            return f"§ {section_id} {self.referenced_title(section_id)}".strip(), False
        return section_label(section.id, section.title, self.document_label(section.document)), True

    def toc(self) -> list:
        """[(document label, date, [(chapter or "", [(section id, label, document)])])], oldest document first."""
        out = []
        for document in self.documents():
            chapters: dict[str, list] = {}
            for section in self.corpus.sections:
                if section.document != document.id:
                    continue
                chapter = "" if ":" in section.id else section.id.rsplit(".", 1)[0]
                label = section.title if ":" in section.id else f"§ {section.id} {section.title}"
                if ":" in section.id:
                    part = section.id.split(":", 1)[1]
                    label = "Preamble" if part == "PREAMBLE" else f"Section {part.split('-', 1)[-1]}: {section.title}"
                chapters.setdefault(chapter, []).append((section.id, label, section.document))
            ordered = sorted(chapters.items(), key=lambda item: (item[0] == "", _id_key(item[0]) if item[0] else ()))
            for _, sections in ordered:
                sections.sort(key=lambda s: _id_key(s[0]))
            out.append((self.document_label(document.id), document.date, ordered))
        return out

    # -- tables as grids -----------------------------------------------------------------------
    def grids(self) -> dict[tuple[str, str], Grid]:
        """Every parsed table, keyed by (section, table); built once from the corpus (about 0.2 s)."""
        if self._grids is None:
            from ingest.tables import build_tables

            table_set = build_tables(self.corpus.sections)
            self._versions = table_set.versions
            by_key: dict[tuple[str, str], list] = {}
            for entry in table_set.effective:
                by_key.setdefault((entry.cell.section, entry.cell.table), []).append(entry)
            grids = {}
            for (section_id, table), entries in by_key.items():
                columns, rows, cells = [], [], {}
                for entry in entries:
                    cell = entry.cell
                    if cell.column not in columns:
                        columns.append(cell.column)
                    if (cell.category, cell.row) not in rows:
                        rows.append((cell.category, cell.row))
                    cells[(cell.category, cell.row, cell.column)] = entry
                notes: dict[str, str] = {}
                for version in sorted((v for v in table_set.versions if (v.section, v.table) == (section_id, table)),
                                      key=lambda v: (v.date, v.document), reverse=True):
                    for note in version.notes:
                        if note.text:
                            notes.setdefault(note.number, note.text)
                for entry in entries:
                    for note in entry.cell.footnotes:
                        if note.text:
                            notes.setdefault(note.number, note.text)
                documents = sorted({e.cell.document for e in entries}, key=lambda d: (self._date_of(d), d))
                section = self.corpus.section(section_id)
                grids[(section_id, table)] = Grid(
                    section_id, table, section.title if section else "", entries[0].cell.kind, tuple(columns), tuple(rows),
                    cells, tuple(sorted(notes.items(), key=lambda i: (not i[0].isdigit(), int(i[0]) if i[0].isdigit() else 0, i[0]))),
                    tuple(documents))
            self._grids = grids
        return self._grids

    def coverage(self):
        """What is loaded and what the loaded text cites but does not contain (``ingest.coverage.Coverage``)."""
        if self._coverage is None:
            from ingest.coverage import build_coverage

            self.grids()
            self._coverage = build_coverage(self.documents(), self.corpus.sections, self._versions, self.corpus.references())
        return self._coverage

    def document_changes(self, document_id: str):
        """What a loaded document changed when it came in (``webapp.changes.DocumentChanges``), None when
        no such document is loaded; built once per document (about 0.2 s)."""
        from .changes import document_changes

        key = str(document_id or "")[:20]
        if key not in self._changes:
            found = document_changes(list(self.corpus.sections), self.documents(), key)
            with self._lock:
                self._changes[key] = found
        return self._changes[key]

    def _date_of(self, document: str) -> str:
        info = self.corpus.documents.get(document)
        return info.date if info else ""

    def grid(self, section_id: str, table: str) -> Grid | None:
        return self.grids().get((section_id, table))

    def grid_list(self) -> list[tuple[str, str, str]]:
        """(section, table, section title) of every grid, by table number then section."""
        return sorted(((g.section, g.table, g.title) for g in self.grids().values()),
                      key=lambda g: (_table_key(g[1]), _id_key(g[0])))

    def grids_of(self, section_id: str) -> dict[str, str]:
        """Table -> section, for the grids of tables a section prints (the section itself first): each grid by its
        full name ("2-2 cannabis") and by its number ("2-2", the first grid of that number)."""
        out = {}
        for section, table in self.grids():
            if section == section_id:
                out.setdefault(table.split(" ")[0], section)
                out[table] = section
        return out

    def cell_entry(self, section_id: str, table: str, row: str, column: str, category: str = ""):
        grid = self.grid(section_id, table)
        return grid.cells.get((category, row, column)) if grid else None

    # -- land uses -----------------------------------------------------------------------------
    def resolve_uses(self, text: str, limit: int = 12) -> list[tuple[str, str, str]]:
        """(table, row, section) of the permit-table rows a land-use phrase names, best first: the answer
        layer's own resolver (``assistant.permit_cells.resolve_uses``), so the finder reads everyday words
        ("tattoo", "granny unit") as the ask box does; the section is added for the link."""
        if not isinstance(text, str) or not text.strip():
            return []
        phrase = " ".join(text.split())[:MAX_LOOKUP_CHARS]
        out = []
        for table, row in self.assistant.resolve_uses(phrase, limit):
            entry = next((e for e in self.permit_row(table, row)), None)
            out.append((table, row, entry.cell.section if entry else ""))
        return out[:limit]

    # -- permit tables -------------------------------------------------------------------------
    def land_uses(self) -> list[tuple[str, str]]:
        """(table, row) for every land-use row of every permit table, by label then table."""
        pairs = [(table, row) for table, rows in self.tables.rows.items() for row in rows]
        return sorted(pairs, key=lambda p: (p[1].lower(), _table_key(p[0])))

    def permit_row(self, table: str, row: str) -> list:
        """The effective cell of every column of the row, in the table's column order."""
        cells = [self.tables.cell(table, row, column) for column in self.tables.columns.get(table, [])]
        return [cell for cell in cells if cell is not None]

    def district_name(self, symbol: str) -> str:
        district = self.corpus.vocabulary.district(symbol)
        return district.name if district else ""

    def document_label(self, document: str) -> str:
        return self.corpus.document_label(document)

    def documents(self) -> list:
        """The corpus documents (manifest records), oldest first."""
        return sorted(self.corpus.documents.values(), key=lambda d: (d.date, d.id))

    def document_kind(self, document: str) -> str:
        info = self.corpus.documents.get(document)
        return info.kind if info else ""

    def document_status(self, document: str) -> str:
        """The manifest's status of a document ("proposed ordinance; ...", "adopted (Ord. 939)"); "" when none."""
        info = self.corpus.documents.get(document)
        return (getattr(info, "status", "") or "") if info else ""


def _date_key(date: str) -> int:
    digits = "".join(ch for ch in date if ch.isdigit())
    return int(digits) if digits else 0


REFERENCE = re.compile(r"(?<![\d.])(\d{1,2}\.\d{2}\.\d{3})(?!\d)")


def _id_key(section_id: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[.:-]", section_id))


def _table_key(table: str) -> tuple:
    return tuple(int(p) for p in re.findall(r"\d+", table)), table
