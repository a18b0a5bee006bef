"""An adapter over the assistant for the web app: answers, lookups, land-use rows, index status.

Uses only public objects of ``assistant.service`` (``Assistant``, ``Corpus``, ``PermitTables``).
The search index is opened (built on first run) in a background thread by ``start_index()``;
questions that need it wait a little for it, then get a clear "not ready" answer, while permit
and section answers, which need no index, work at once.
"""

from __future__ import annotations

import re
import sys
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from assistant.types import SearchUnavailable

MAX_QUESTION_CHARS = 2000  # the assistant's own limit (assistant.validate.MAX_CHARS)
MAX_LOOKUP_CHARS = 100
ANSWER_CACHE = 512

SECTION_ID = re.compile(r"\b(\d{1,2}\.\d{2}\.\d{3})\b")  # 17.44.065 and 3.42.040
ORDINANCE_PART = re.compile(r"^\s*(\d{3}):(PREAMBLE|SECTION-\d+)\s*$", re.I)
TABLE_ID = re.compile(r"^\s*(?:tables?\s*)?(\d{1,2}-\d{1,2})\s*$", re.I)


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
            return (f"Search index unavailable: {self.message}. Permit-table and section-number questions "
                    "still work.")
        if self.state == "warming":
            return "Loading the search model… Permit-table and section-number questions already work."
        if self.state == "building":
            step = f" — {self.stage} {self.done:,}/{self.total:,}" if self.total else (f" — {self.stage}" if self.stage else "")
            return f"Building the search index (first run only){step}… Permit-table and section-number questions already work."
        return "Search index not opened yet."


@dataclass(frozen=True)
class Lookup:
    """What the jump box found: the sections to show (the first is shown), or why nothing."""

    query: str
    kind: str  # section | table | none
    sections: tuple = ()
    message: str = ""
    table: str = ""


@dataclass
class Engine:
    corpus: object
    tables: object
    open_index: Callable  # (progress) -> Searcher
    wait_seconds: float = 15.0
    echo: Callable[[str], None] | None = None
    status: IndexStatus = field(default_factory=IndexStatus)
    standards: object = None  # assistant.standards.StandardsTables: height, parking, fences ... answers

    def __post_init__(self):
        from assistant.service import Assistant

        self.assistant = Assistant(self.corpus, self.tables, self._searcher, self.standards)
        self._ready = threading.Event()
        self._finished = threading.Event()
        self._searcher_obj = None
        self._lock = threading.Lock()
        self._answers: OrderedDict[str, object] = OrderedDict()
        self._thread: threading.Thread | None = None

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

        return cls(loaded.corpus, loaded.tables, open_, wait_seconds=wait_seconds, echo=echo, standards=loaded.standards)

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
        except (IndexStoreError, IndexBuildError, EncoderError, OSError) as error:
            self._failed(str(error))
        except Exception as error:  # noqa: BLE001 - a background thread: report, or the status says "building" forever
            traceback.print_exc(file=sys.stderr)
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

    def _failed(self, reason: str) -> None:
        self.status.message = reason
        self.status.state = "failed"
        self._say(f"search index: FAILED: {reason}")

    def wait_ready(self, timeout: float | None = None) -> bool:
        self._finished.wait(timeout)
        return self._ready.is_set()

    def _progress(self, stage: str, done: int, total: int) -> None:
        self.status.stage, self.status.done, self.status.total = stage, done, total
        if self.echo is None:
            print(f"\rbuilding index: {stage} {done}/{total}", end="" if done < total else "\n",
                  file=sys.stderr, flush=True)

    def _say(self, line: str) -> None:
        (self.echo or (lambda text: print(text, file=sys.stderr, flush=True)))(line)

    def _searcher(self):
        if self._thread is None:
            self.start_index()
        self._finished.wait(self.wait_seconds)
        if self._ready.is_set():
            return self._searcher_obj
        raise IndexUnavailable(self.status.text())

    # -- answers -------------------------------------------------------------------------------
    def ask(self, question: object):
        """The assistant's Answer; the same question gives the same Answer (cached)."""
        from index import EncoderError, IndexStoreError

        from assistant.types import Answer

        if isinstance(question, str) and len(question) > MAX_QUESTION_CHARS:
            # Refused before any work: the text is not even tidied.
            return Answer(question=question[:MAX_QUESTION_CHARS], abstained=True, route="invalid",
                          answer=f"The question is {len(question):,} characters long; the limit is "
                                 f"{MAX_QUESTION_CHARS:,}.")
        key = question if isinstance(question, str) else repr(question)
        with self._lock:
            if key in self._answers:
                self._answers.move_to_end(key)
                return self._answers[key]
        try:
            answer = self.assistant.ask(question)
        except (IndexUnavailable, IndexStoreError, EncoderError) as error:
            return Answer(question=str(question), abstained=True, route="unavailable",
                          answer=f"This question needs the search index, which is not available yet. {error} "
                                 "Please try again in a minute.")
        with self._lock:
            self._answers[key] = answer
            while len(self._answers) > ANSWER_CACHE:
                self._answers.popitem(last=False)
        return answer

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
            return Lookup(str(text or ""), "none", message="Type a section number (17.44.065) or a table (Table 2-4).")
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
        number = SECTION_ID.search(query)
        if number:
            found = self.corpus.section(number.group(1))
            if found is None:
                return Lookup(query, "none", message=f"§ {number.group(1)} is not in these documents.")
            return Lookup(query, "section", (found,))
        return Lookup(query, "none", message="Type a section number (17.44.065) or a table (Table 2-4).")

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


def _date_key(date: str) -> int:
    digits = "".join(ch for ch in date if ch.isdigit())
    return int(digits) if digits else 0


def _table_key(table: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[- ]", table)) + (table,)
