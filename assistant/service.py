"""The assistant: loads the corpus, tables and index once (``load_assistant``), then answers
questions (``Assistant.ask``). The routes (``assistant/routes``) propose candidate answers from the
shared resources (``assistant/resources.py``); the chooser (``assistant/chooser.py``) gives one,
asks to clarify, or declines."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import settings

from . import choose, chooser, decline, document_changes, families, permit_cells, provision_changes, then, timepoint
from . import confidence as confidence_mod
from . import reader as reader_mod
from .permits import PermitTables
from .permits import words_of as permits_words
from .resources import Corpus, Resources
from .standards import StandardsTables
from .types import Answer
from .validate import InvalidQuestion, check_question, normalise_input
from .vocab import load_vocabulary
from ingest.asof import is_proposed

__all__ = ["Assistant", "Corpus", "PermitTables", "load_assistant"]


class Assistant:
    def __init__(self, corpus: Corpus, tables: PermitTables, searcher_factory, standards: StandardsTables | None = None,
                 calibration: confidence_mod.Calibration | None = None, reader=None, ranker=None):
        self.resources = Resources(corpus, tables, searcher_factory, standards, calibration, reader, ranker)
        res = self.resources
        self.corpus, self.tables, self.standards, self.calibration = res.corpus, res.tables, res.standards, res.calibration
        self.definitions, self.vocabulary, self.known_words = res.definitions, res.vocabulary, res.known_words
        # Builds the assistant that reads only the documents dated on or before a day (load_assistant
        # sets it; an assistant so built answers as of its day and has none).
        self.then_factory: Callable[[str], Assistant] | None = None
        self._then: dict[str, Assistant] = {}
        self._today: dict | None = None  # the as_of of today's answers, on first use
        self._diffs: dict = {}  # what each loaded document changed (ingest.changes.Diff), on first use
        self._named_by: dict = {}  # district symbol -> the document that first prints it (``_first_naming``)
        self.every_section: tuple = ()  # every document's sections, pending ones too (load_assistant sets it)

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
            answer = decline.help_decline(text, self._about_time(text, history), self.resources)
            answer = answer if answer.as_of else replace(answer, as_of=self._valid_as_of())
            answer = proposed_lead(answer, self.corpus.documents)
        elapsed = (time.perf_counter() - started) * 1000
        return Answer(**{**answer.__dict__, "timing_ms": elapsed})

    def _valid_as_of(self) -> dict:
        """The day an answer of today's law is valid for: the newest loaded document's, with the
        documents then in force (JSON ``as_of``)."""
        if self._today is None:
            from ingest.asof import in_force_json

            documents = list(self.corpus.documents.values())
            newest = max((s.date for s in self.corpus.sections if s.date), default="")
            self._today = in_force_json(documents, newest) if newest else {}
        return self._today

    def _about_time(self, text: str, history: Sequence) -> Answer:
        """The answer, reading what the question says of time: what a document changed, the law on
        an earlier day, or (neither) today's law."""
        documents = list(self.corpus.documents.values())
        change = timepoint.asked_change(text, documents) if self.then_factory is not None else None
        if change is not None:
            return self._changed(change, text, history)
        point = timepoint.asked_time(text, documents) if self.then_factory is not None else None
        if point is not None:
            return self._as_of(point, text, history)
        by_number = self._by_number(text)
        if by_number is not None:
            return by_number
        answer = chooser.answer(text, history, self.resources)
        return families.whole_family(text, answer, self.tables, self.resources.read(text), self.corpus)

    def _by_number(self, text: str) -> Answer | None:
        """A question that is only a loaded section's number ("17.30.095", "§ 17.30.095", "what does section
        17.30.095 say?") is that section, as the staff's section view gives it: a section just added by
        ``ingest add`` has no question-bank unit yet, and the ranker, fitted before it, must not decline it."""
        from .routes import section as section_route

        named = BARE_SECTION.match(text)
        if not named or self.corpus.section(named.group(1)) is None:
            return None
        res = self.resources
        query = res.read(text)
        if list(query.sections[:1]) != [named.group(1)] or query.subsection:
            return None
        found = [c for c in section_route.candidates(query, res) if c.answer_type == "section_text"]
        if not found:
            return None
        return chooser.calibrated(query, chooser.interpreted(query, found[0].answer, res), res)

    def _changed(self, change: timepoint.ChangeAsked, text: str, history: Sequence) -> Answer:
        """Today's answer with what the named document changed in the cells it uses (or since when
        they hold their values), from the cells' own history; "what did X change?" naming nothing
        else lists all the document changed (assistant/document_changes.py)."""
        document = self.corpus.documents.get(change.document)
        if document is not None and document_changes.asks_everything(change.rest, document):
            return self._document_changes(change, text)
        answer = chooser.answer(change.rest, history, self.resources)
        if document is not None and not answer.lookups:
            # No table cell answers it: what the document changed in the running text, on that topic.
            changed = self._provisions_changed(change, text)
            if changed is not None:
                return changed
        lines = then.change_lines(answer.lookups, list(self.corpus.documents.values()), change.document)
        if answer.abstained or not lines:
            return replace(answer, question=text)
        first, *rest = answer.answer.split("\n")
        return replace(answer, question=text, answer="\n".join([first, *lines, *rest]))

    def _provisions_changed(self, change: timepoint.ChangeAsked, text: str) -> Answer | None:
        """The provisions ``change.document`` added or rewrote that the question's words name
        (assistant/provision_changes.py), calibrated as the route "provision_change"; None when none does."""
        document = self.corpus.documents[change.document]
        before = {s.id for s in self.corpus.sections if s.date and s.date < document.date}
        changes = provision_changes.changed_by(self.resources.provisions(), document.id, before)
        own = set(permits_words(f"{document.title} {document.short_title}"))
        words = [w for w in permits_words(change.rest) if w not in document_changes.ASKING and w not in own]
        named = provision_changes.in_named_part(change.rest, changes)
        found = named or provision_changes.matching(words, changes, self.corpus.idf)
        if not found:
            return None
        answer = provision_changes.answer_for(text, document, found, self.corpus, part_named=bool(named))
        return chooser.calibrated(self.resources.read(text), answer, self.resources)

    def _document_changes(self, change: timepoint.ChangeAsked, text: str) -> Answer:
        """Everything ``change.document`` changed, as ``python -m ingest diff --document`` lists it."""
        from ingest.changes import loaded_document_diff

        if change.document not in self._diffs:
            self._diffs[change.document] = loaded_document_diff(self.corpus.sections, self.corpus.documents[change.document])
        listed = document_changes.answer_changes(text, self._diffs[change.document], self.corpus,
                                                 map_only=document_changes.asks_the_map(change.rest))
        sure = self.calibration.confidence(listed.route, listed.signals)  # the route's prior: a list read off the history
        return replace(listed, confidence=sure, how_sure=self.calibration.how_sure(sure))

    def _as_of(self, point: timepoint.TimePoint, text: str, history: Sequence) -> Answer:
        """A question about an earlier day, answered as the documents then in force have it; one
        about today's law (a day on or after the newest document) answered as usual, without its time words."""
        from ingest.asof import in_force_json

        from ingest.asof import today

        documents = list(self.corpus.documents.values())
        in_force = then.in_force_on(documents, point.date)
        # The day's law is today's when the same documents are in force on both days (a pending one is not).
        if in_force and [d.id for d in in_force] == [d.id for d in then.in_force_on(documents, today())]:
            answer = chooser.answer(point.rest, history, self.resources)
            return replace(answer, question=text, as_of=in_force_json(documents, point.date))
        state = in_force[-1].date if in_force else point.date

        def ask_then(question: str, turns: Sequence) -> Answer:
            if state not in self._then:
                self._then[state] = self.then_factory(state)
            return self._then[state].ask(question, turns)

        def ask_now(question: str, turns: Sequence) -> Answer:
            return chooser.answer(question, turns, self.resources)

        return then.answer_then(point, history, documents, ask_then, ask_now, text, self._first_naming)

    def _first_naming(self, symbol: str):
        """The loaded document that first prints a district's symbol (``then.not_yet``); None when none does."""
        if symbol not in self._named_by:
            pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(symbol)}(?![A-Za-z0-9])")
            dates = sorted((s.date, s.document) for s in self.corpus.sections if s.date and pattern.search(s.text))
            self._named_by[symbol] = self.corpus.documents.get(dates[0][1]) if dates else None
        return self._named_by[symbol]

    def ask_as_of(self, question: object, day: str, history: Sequence = ()) -> Answer:
        """``ask``, as of ``day`` (an ISO date) unless the question names a time or a change of its own:
        the app's "as of" date, answered as a question naming that day is (``as_of`` says the day)."""
        documents = list(self.corpus.documents.values())
        try:
            text = check_question(question)
        except InvalidQuestion:
            text = ""
        if (not text or self.then_factory is None or timepoint.asked_change(text, documents)
                or timepoint.asked_time(text, documents)):
            return self.ask(question, history)
        started = time.perf_counter()
        answer = self._as_of(timepoint.TimePoint(day, f"as of {day}", text), text, history)
        answer = proposed_lead(decline.help_decline(text, answer, self.resources), self.corpus.documents)
        return replace(answer, timing_ms=(time.perf_counter() - started) * 1000)

    def resolve_uses(self, phrase: str, limit: int = 12, floor: float | None = None) -> list[tuple[str, str]]:
        """(table, row) of the permit-table rows a land-use phrase names, best first (the app's
        land-use finder; see permit_cells.resolve_uses)."""
        return permit_cells.resolve_uses(self.resources, phrase, limit, floor)


# Only a section's number, perhaps asking what it says: "17.30.095", "§ 17.30.095", "sec. 17.30.095",
# "what does section 17.30.095 say?", "show me 17.30.095".
BARE_SECTION = re.compile(r"^\s*(?:(?:what\s+does|what's\s+in|what\s+is\s+in|show\s+me|read|open)\s+)?(?:§+\s*|"
                          r"(?:sec(?:tion)?\.?\s+))?(\d{1,2}\.\d{2,3}\.\d{2,4})\s*(?:say|says)?\s*[.?!]?\s*$", re.I)


def proposed_lead(answer: Answer, documents: dict) -> Answer:
    """An answer that rests only on proposed documents (no adoption date in their text: 000) says so in its
    lead, the first line: the sources list alone is not enough."""
    if answer.abstained:
        return answer
    # The lead rests on the table cells it reads when it reads some, else on the passages it quotes.
    used = {str(cell.get("document")) for cell in answer.lookups if isinstance(cell, dict) and cell.get("document")}
    used = used or {c.document for c in answer.citations}
    resting = [documents.get(d) for d in sorted(used)]
    if not used or any(d is None or not is_proposed(d) for d in resting):
        return answer
    from ingest.asof import effective_words

    names = "; ".join(f"{d.short_title or d.title} ({d.id}, {effective_words(d)})" for d in resting)
    note = f"This rests only on a proposed ordinance, not shown adopted: {names}."
    if note in answer.first_line:
        return answer
    first, _, rest = answer.answer.partition("\n")
    first = f"{first} {note}" if first.rstrip().endswith((".", "?", "!")) else f"{first} ({note[:-1]})"
    return replace(answer, answer=first + ("\n" + rest if rest else ""))


def load_assistant(corpus_dir: str | Path | None = None, index_dir: str | Path | None = None, progress=None,
                   calibrated: bool = True, as_of: str | None = None, reader: bool | None = None) -> Assistant:
    """Read the corpus and tables once; the search index opens on first use (built if missing).
    ``as_of`` (ISO date): only documents dated on or before it are read, sections and tables alike.
    ``calibrated``: apply the confidence model and threshold fitted on dev (data/calibration.json).
    ``reader``: rank provisions with the reader fitted on dev (data/reader.json); default from
    ``COTATI_READER`` (on by default; without the file there is no reader)."""
    from ingest import load_manifest
    from ingest.asof import pending
    from ingest.manifest import default_corpus_dir

    from . import derived as derived_mod

    folder = Path(corpus_dir) if corpus_dir else default_corpus_dir()
    documents = load_manifest(folder)
    where = Path(index_dir).expanduser() if index_dir else settings.default_index_dir()
    if not corpus_dir and not (where / "manifest.json").is_file():  # a fresh clone: the shipped index, if it fits
        from index.prebuilt import install_if_missing

        install_if_missing(where)
    # The sections, cells and provisions come from the file beside the index when it matches the
    # corpus and ingest code: parsing them again was most of a cold answer (issue 25).
    derived = derived_mod.load_or_derive(folder, where)

    open_searcher = IndexOpener(index_dir, progress)
    calibration = confidence_mod.load() if calibrated else confidence_mod.UNCALIBRATED
    fitted_reader = reader_mod.load() if settings.value("reader", reader) else None
    fitted_ranker = choose.load() if calibrated and settings.value("ranker") else None
    sections = derived.sections
    waiting = set() if as_of else {d.id for d in pending(documents)}
    if waiting:  # a document not yet in force today is pending: not today's law, though an earlier day's is read
        sections = tuple(s for s in sections if s.document not in waiting)
    built = _assistant(sections, documents, as_of, open_searcher, calibration, fitted_reader,
                       None if as_of or waiting else derived, fitted_ranker)
    built.every_section = tuple(derived.sections)
    return built if as_of else with_earlier_law(built)


class IndexOpener:
    """The searcher factory of ``load_assistant``: opens the index folder (built if missing or stale)
    when called. ``model_id`` says which model its encoder will have without opening it, so checking
    that the calibration applies does not load the index for a permit answer read off a table alone."""

    def __init__(self, index_dir: str | Path | None, progress):
        self.index_dir, self.progress = index_dir, progress

    def __call__(self):
        from index import open_index

        return open_index(self.index_dir, progress=self.progress)

    def model_id(self) -> str | None:
        """The model of a fresh index (its encoder has this id), checked as opening checks it; None when
        the index is missing, stale or damaged: the caller opens it then, which rebuilds it or says why."""
        from index.search import fresh_model

        return fresh_model(self.index_dir)


def with_earlier_law(built: Assistant) -> Assistant:
    """``built``, answering a question that names an earlier day with an assistant built as of that
    day from the same sections, sharing its index (the CLI's and the app's assistants alike)."""
    res = built.resources
    documents = list(built.corpus.documents.values())
    sections = built.every_section or built.corpus.sections  # a pending document is law on a later day
    built.then_factory = lambda day: _assistant(sections, documents, day, lambda: built.searcher,
                                                res.calibration, res.reader, ranker=res.ranker)
    return built


def _assistant(sections, documents, as_of: str | None, open_searcher, calibration, fitted_reader,
               derived=None, ranker=None) -> Assistant:
    """An assistant over the sections dated on or before ``as_of`` (all of them without it).
    ``derived`` (``assistant.derived.Derived`` of exactly these sections): their cells and
    provisions, already parsed. The law of an earlier day is chosen by the hand order and its
    calibration, never by ``ranker``: it was fitted without such questions, and the bank's units are today's."""
    if as_of:
        ranker = None
        sections = tuple(s for s in sections if s.date and s.date <= as_of)
    if derived is not None:
        cells, provisions = derived.cells, list(derived.provisions)
        kept = {"idf": derived.idf, "references": derived.references, "printed": derived.printed}
    else:
        from ingest.tables import build_tables

        cells, provisions, kept = build_tables(sections).effective, None, {}
    corpus = Corpus(sections, documents, load_vocabulary(), provisions, **kept)
    return Assistant(corpus, PermitTables(cells), open_searcher, StandardsTables(cells), calibration, fitted_reader,
                     ranker)
