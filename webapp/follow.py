"""A running app follows the corpus: ``Following`` is the web app's engine, and when the corpus lock's
stamp (``ingest.lock.stamp``: the signature of the signed manifest) changes, it loads the new corpus
in the background while the old state keeps answering, then switches at once.

- The stamp is read before an answer, at most every ``COTATI_CORPUS_CHECK_SECONDS`` (a small JSON
  file: well under a millisecond). Only a signed change moves it (``ingest add``, ``ingest checksum``);
  an edit nobody signed leaves the app on the state it verified.
- A changed corpus is verified as at start (``ingest.integrity.verify_corpus``); one that does not
  verify is one warning line, and the app stays on the state it has.
- The new engine is loaded, its index opened (built when stale) and warmed in a background thread;
  then the one reference answers go through is replaced. The app's log says when each step happens;
  each answer's question-log row names the corpus state it came from, and the page says when an
  answer came from a later state than the one above it and, in the status line, that the documents
  changed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("webapp")
STATES_KEPT = 4096  # answers whose corpus state the page can still name


class _Status:
    """The current engine's index status, with a line about the corpus when it changed while serving."""

    def __init__(self, following: Following):
        self._following = following

    def __getattr__(self, name):
        return getattr(self._following.engine.status, name)

    def text(self) -> str:
        return (self._following.engine.status.text() + " " + self._following.corpus_line()).strip()


class Following:
    """The engine answers go through; attribute access goes to the current ``webapp.engine.Engine``."""

    def __init__(self, engine, corpus_dir: str | Path, load: Callable[[], object], check_seconds: float = 2.0):
        from ingest.lock import stamp

        self.__dict__["_state"] = {"engine": engine}  # set first: __getattr__ reads it
        self._corpus = Path(corpus_dir)
        self._load = load  # () -> a new Engine for the corpus as it now is (its index not yet opened)
        self._check_seconds = check_seconds
        self._checked = time.monotonic()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._refused = ""  # a stamp whose corpus did not verify or load (said once)
        self._changed_at = ""  # when the corpus last changed while serving (UTC, HH:MM)
        self._states: OrderedDict[int, str] = OrderedDict()  # id(answer) -> corpus stamp
        self.reloaded = threading.Event()  # set after each switch (tests wait on it)
        engine.corpus_stamp = stamp(self._corpus)

    # -- the current engine ---------------------------------------------------------------------
    @property
    def engine(self):
        return self._state["engine"]

    @property
    def status(self) -> _Status:
        return _Status(self)

    def __getattr__(self, name):
        return getattr(self._state["engine"], name)

    @property
    def reloading(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    # -- answers ------------------------------------------------------------------------------
    def ask(self, question: object, history: list | None = None, as_of: str = ""):
        return self.ask_logged(question, history, as_of)[0]

    def ask_logged(self, question: object, history: list | None = None, as_of: str = "") -> tuple:
        """``Engine.ask_logged`` of the current engine, after a cheap look at the corpus stamp."""
        self.check()
        engine = self.engine
        answer, entry = engine.ask_logged(question, history, as_of)
        with self._lock:
            self._states[id(answer)] = engine.corpus_stamp
            self._states.move_to_end(id(answer))
            while len(self._states) > STATES_KEPT:
                self._states.popitem(last=False)
        return answer, entry

    def lookup(self, text: object):
        """``Engine.lookup`` (the jump box, ``/section``) of the current engine, after a look at the stamp."""
        self.check()
        return self.engine.lookup(text)

    def state_of(self, answer) -> str:
        """The corpus stamp an answer was given from ("" when no longer known)."""
        with self._lock:
            return self._states.get(id(answer), "")

    def corpus_line(self) -> str:
        """What the page's status line says about the corpus: "" until it changes while serving."""
        if self.reloading:
            return ("The code's documents changed; loading them in the background (answers meanwhile come from "
                    "the documents as they were).")
        if self._changed_at:
            documents = self.engine.documents()
            newest = max((d.date for d in documents), default="")
            return f"The code's documents changed at {self._changed_at} UTC: now {len(documents)} documents, newest {newest}."
        return ""

    # -- following the corpus -------------------------------------------------------------------
    def check(self, force: bool = False) -> bool:
        """Start loading the corpus in the background when its stamp changed; True when a load started."""
        from ingest.lock import stamp

        now = time.monotonic()
        if not force and now - self._checked < self._check_seconds:
            return False
        self._checked = now
        current = stamp(self._corpus)
        with self._lock:
            if not current or current in (self.engine.corpus_stamp, self._refused) or self.reloading:
                return False
            self._thread = threading.Thread(target=self._reload, args=(current,), name="cotati-reload", daemon=True)
            self._thread.start()
        return True

    def _reload(self, new_stamp: str) -> None:
        from ingest import IngestError
        from ingest.integrity import verify_corpus

        old = self.engine
        try:
            errors = verify_corpus(self._corpus)
        except IngestError as error:
            errors = (error,)
        if errors:
            self._refused = new_stamp
            log.warning("corpus: changed (state %s) but does not verify: %s; still serving state %s", new_stamp[:12],
                        errors[0], old.corpus_stamp[:12])
            return
        log.info("corpus: changed (state %s -> %s); loading it in the background, answers come from the earlier "
                 "state meanwhile", old.corpus_stamp[:12], new_stamp[:12])
        started = time.perf_counter()
        try:
            new = self._load()
            new.question_log, new.warmers, new.corpus_stamp = old.question_log, old.warmers, new_stamp
            new.start_index().join()  # open (or build) its index and warm it, in this thread's time
        except Exception as error:  # noqa: BLE001 - a background thread: say it, keep serving the old state
            self._refused = new_stamp
            log.warning("corpus: state %s could not be loaded (%s: %s); still serving state %s", new_stamp[:12],
                        type(error).__name__, error, old.corpus_stamp[:12])
            return
        with self._lock:
            self._state["engine"] = new  # one assignment: every later answer comes from the new state
        self._changed_at = time.strftime("%H:%M", time.gmtime())
        log.info("corpus: now serving state %s (%d documents; loaded in %.1f s; search index %s)", new_stamp[:12],
                 len(new.documents()), time.perf_counter() - started, new.status.state)
        self.reloaded.set()
