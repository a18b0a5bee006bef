"""The assistant: loads the corpus, tables and index once (``load_assistant``), then answers
questions (``Assistant.ask``). The routes (``assistant/routes``) propose candidate answers from the
shared resources (``assistant/resources.py``); the chooser (``assistant/chooser.py``) gives one,
asks to clarify, or declines."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import settings

from . import chooser
from . import confidence as confidence_mod
from . import reader as reader_mod
from .permits import PermitTables
from .resources import Corpus, Resources
from .routes import permit
from .standards import StandardsTables
from .types import Answer
from .validate import InvalidQuestion, check_question, normalise_input
from .vocab import load_vocabulary

__all__ = ["Assistant", "Corpus", "PermitTables", "load_assistant"]


class Assistant:
    def __init__(self, corpus: Corpus, tables: PermitTables, searcher_factory, standards: StandardsTables | None = None,
                 calibration: confidence_mod.Calibration | None = None, reader=None):
        self.resources = Resources(corpus, tables, searcher_factory, standards, calibration, reader)
        res = self.resources
        self.corpus, self.tables, self.standards, self.calibration = res.corpus, res.tables, res.standards, res.calibration
        self.definitions, self.vocabulary, self.known_words = res.definitions, res.vocabulary, res.known_words

    @property
    def searcher(self):
        return self.resources.searcher

    def ask(self, question: object, history: Sequence = ()) -> Answer:
        """Answer one question. ``history``: the chat's earlier questions (or (question, answer)
        turns), oldest first; a question naming only a district or only a use ("what about in
        NL?") takes the rest from the last one."""
        started = time.perf_counter()
        try:
            text = check_question(question)
        except InvalidQuestion as error:
            answer = Answer(question=normalise_input(question)[:2000],
                            answer=str(error), abstained=True, route="invalid")
        else:
            answer = chooser.answer(text, history, self.resources)
        elapsed = (time.perf_counter() - started) * 1000
        return Answer(**{**answer.__dict__, "timing_ms": elapsed})

    def resolve_uses(self, phrase: str, limit: int = 12, floor: float = permit.FINDER_FLOOR) -> list[tuple[str, str]]:
        """(table, row) of the permit-table rows a land-use phrase names, best first (the app's
        land-use finder; see routes.permit.resolve_uses)."""
        return permit.resolve_uses(self.resources, phrase, limit, floor)


def load_assistant(corpus_dir: str | Path | None = None, index_dir: str | Path | None = None, progress=None,
                   calibrated: bool = True, as_of: str | None = None, reader: bool | None = None) -> Assistant:
    """Read the corpus and tables once; the search index opens on first use (built if missing).
    ``as_of`` (ISO date): only documents dated on or before it are read, sections and tables alike.
    ``calibrated``: apply the confidence model and threshold fitted on dev (data/calibration.json).
    ``reader``: rank provisions with the reader fitted on dev (data/reader.json); default from
    ``COTATI_READER`` (on by default; without the file there is no reader)."""
    from ingest import load_corpus, load_manifest
    from ingest.manifest import default_corpus_dir
    from ingest.tables import build_tables

    result = load_corpus(corpus_dir)
    if as_of:
        result = type(result)(tuple(s for s in result.sections if s.date and s.date <= as_of), result.errors)
    documents = load_manifest(Path(corpus_dir) if corpus_dir else default_corpus_dir())
    table_set = build_tables(result.sections)
    corpus = Corpus(result.sections, documents, load_vocabulary())

    def open_searcher():
        from index import open_index

        return open_index(index_dir, progress=progress)

    calibration = confidence_mod.load() if calibrated else confidence_mod.UNCALIBRATED
    fitted_reader = reader_mod.load() if settings.value("reader", reader) else None
    return Assistant(corpus, PermitTables(table_set.effective), open_searcher, StandardsTables(table_set.effective),
                     calibration, fitted_reader)

