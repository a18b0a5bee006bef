"""What every route reads: the loaded corpus, the permit and standards tables, the definitions,
the vocabulary, the searcher (opened on first use) and the helpers the routes share.

Nothing here decides an answer; the routes (``assistant/routes``) propose candidates from these
resources and the chooser (``assistant/chooser.py``) picks one.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import lru_cache

from . import confidence as confidence_mod
from . import absent, definitions, dialogue
from .choose import TUNED, Settings
from .passages import document_frequencies
from .permits import STOP, PermitTables, words_of
from .standards import StandardsTables
from .types import Citation, Query, SearchUnavailable
from .understand import district_names_in, known_words_of, understand
from .vocab import DATA

READ_KEPT = 8  # questions whose Query is kept: one answer reads its question, its parts and a follow-up
STANDARDS_TOPICS = frozenset({"height", "setback", "coverage", "density", "lot_size", "parking", "bicycle", "fence",
                              "driveway", "stalls", "expiry", "completeness", "who_decides", "variance", "amendment",
                              "appeal", "hearing", "definition", "condo", "fees", "demolition", "design", "general_plan"})
PERMIT_TOPICS = frozenset({"allowed", "which_districts"})
# Words that ask rather than say what about ("how tall can ... be").
QUESTION_WORDS = frozenset("how tall high wide big much many long far deep large small limit maximum minimum max min "
                           "allowed rule rules requirement requirements".split())


class Corpus:
    """Sections and documents, with the latest statement of each section first."""

    def __init__(self, sections, documents, vocabulary, provisions: list | None = None, idf: dict | None = None,
                 references=None, printed=None):
        """``provisions``, ``idf``, ``references`` and ``printed`` (``absent.printed_in_text``): what
        ``assistant.derived`` already computed from exactly these sections and documents (read from
        beside the index), else None: computed here when needed."""
        self.sections = list(sections)
        self.provisions = provisions  # the sections' provisions in force when already parsed, else None
        self.documents = {doc.id: doc for doc in documents}
        self.vocabulary = vocabulary
        self.by_key = {(s.id, s.document): s for s in self.sections}
        self.idf = idf if idf is not None else document_frequencies(section.text for section in self.sections)[0]
        self.latest: dict[str, object] = {}
        for section in sorted(self.sections, key=lambda s: (s.date, s.document)):
            self.latest[section.id] = section
        self._references = references
        self.printed_in_text = printed
        self.loaded_documents = frozenset(s.document for s in self.sections)  # the documents whose law this is

    def references(self):
        """The cross-reference graph of the loaded text (``ingest.references.Graph``), built on first use."""
        if self._references is None:
            from ingest.references import build_graph

            from .derived import codified_chapters

            self._references = build_graph(self.sections, codified_chapters(self.documents.values()))
        return self._references

    def section(self, section_id: str, document: str | None = None):
        if document is not None:
            return self.by_key.get((section_id, document))
        return self.latest.get(section_id)

    def title_of(self, section_id: str, document: str) -> str:
        section = self.by_key.get((section_id, document)) or self.latest.get(section_id)
        return section.title if section else ""

    def document_label(self, document: str) -> str:
        info = self.documents.get(document)
        return (info.short_title or info.title) if info else document

    def citation(self, section, quote: str) -> Citation:
        return Citation(section=section.id, title=section.title, document=section.document, date=section.date,
                        quote=quote, ordinance_section=section.ordinance_section)


class Resources:
    """The corpus, tables, definitions, vocabulary and searcher, loaded once and shared by the routes."""

    def __init__(self, corpus: Corpus, tables: PermitTables, searcher_factory, standards: StandardsTables | None = None,
                 calibration: confidence_mod.Calibration | None = None, reader=None, ranker=None):
        self.corpus = corpus
        self.ranker = ranker  # assistant.choose.Ranker: ranks every candidate; None: the routes' hand order decides
        self.reader = reader  # assistant.reader.Reader, or None: the routes choose by hand-weighted score
        self.calibration = calibration if calibration is not None else confidence_mod.UNCALIBRATED
        self.tables = tables
        self.standards = standards or StandardsTables(())
        self.standards.idf = corpus.idf
        self.definitions = definitions.collect(corpus.latest.values())
        self.vocabulary = corpus.vocabulary
        self.searcher_factory = searcher_factory
        self._searcher = None
        self.meanings = None  # the rows' meanings (permit_cells.py), built on first use
        self.defined = None  # defined term words -> definition, for the rows' names
        self.name_words: dict[str, frozenset[str]] = {}
        self._sentences = None
        self._provisions = None  # the corpus's provisions in force (ingest.provisions), on first use
        self._provision_vectors = None
        self._path_vectors = None  # the provisions' heading paths (reader.path_text), on first use
        self._last_hits = None  # {(searcher, text, k): hits} of the last question's searches
        self.last_passages = None  # ((searcher, query), answer) of routes/passage.py, for the last question
        self._parts_by_section = None  # (document, section) -> its section chunks in order, on first use
        self._printed = None  # the district names and tables the documents print (absent.Printed), on first use
        self._bank = None  # the question bank (assistant.bank.Bank), False when there is none; on first use
        self.bank_entries = None  # entries to use instead of the shipped bank files (eval: dev questions join)
        self.bank_left_out: frozenset[str] = frozenset()  # questions whose bank entries do not vote (scoring dev fairly)
        # question -> the questions of its dev paraphrase group, left out when that question is asked (eval only)
        self.bank_left_out_by_question: dict[str, frozenset[str]] = {}
        self._units = None
        self._unit_by_id: dict = {}
        self._last_votes = None
        self._read: dict[str, Query] = {}  # the last questions understood (a few), and their Queries
        self._ranker_applies = None  # ranker_applies(), on first use
        self._verifier = None  # the trained verifier (assistant.verifier), False when none; on first use
        self._question_encoder = None  # the trained question encoder (assistant.encoder), False when none
        # Typos are corrected only towards words the vocabulary or the corpus itself uses, so a
        # word the code prints ("nonresidential") is never "corrected" to another ("residential").
        known = tables.row_words() | {word for word in corpus.idf if word.isalpha()}
        self.out_of_scope = out_of_scope()
        known |= {word for phrase in sum(self.out_of_scope, []) for word in phrase.split()}
        # Built once: understanding a question must not rebuild the vocabulary or its patterns.
        self.known_words = known_words_of(self.vocabulary, known)
        self._declined_pattern = re.compile(
            r"\b(?:" + "|".join(re.escape(s) for s in sum(self.out_of_scope, [])) + r")\b")

    # -- the searcher and what it holds ---------------------------------------------------------------
    @property
    def searcher(self):
        if self._searcher is None:
            self._searcher = self.searcher_factory()
        return self._searcher

    def use_searcher(self, factory) -> None:
        """Open searches with ``factory`` from now on (a test's fake searcher)."""
        self.searcher_factory, self._searcher = factory, None
        self.meanings, self._sentences, self._parts_by_section = None, None, None
        self._provision_vectors, self._path_vectors, self._last_hits = None, None, None
        self._bank, self._last_votes, self.last_passages = None, None, None
        self._question_encoder = None

    # -- the question bank ----------------------------------------------------------------------------
    def use_question_encoder(self, encoder) -> None:
        """Match the bank with ``encoder`` (an ``assistant.encoder.QuestionEncoder``) from now on, instead
        of the shipped one; None: with the index's model. Eval only (the fold encoders of
        ``eval/verifier_data.py``): the bank's vectors and the last votes are dropped."""
        self._question_encoder = encoder if encoder is not None else False
        self._bank, self._last_votes = None, None

    def question_bank(self):
        """The question bank (``assistant.bank.Bank``) embedded with the index's own model, its vectors
        cached beside the index (``bank.npz``); None without a comparable model or an empty bank."""
        if self._bank is None:
            from . import bank as bank_mod

            entries = tuple(self.bank_entries if self.bank_entries is not None else bank_mod.load())
            known = {u.id for u in self.units()} | {bank_mod.DECLINE}
            entries = tuple(e for e in entries if e.unit in known)  # a unit the loaded corpus lacks: no vote
            cache = bank_mod.CACHE_NAME if self.bank_entries is None else "bank_eval.npz"  # keep the shipped cache
            encoder = self.question_encoder
            if encoder is not None and entries:
                self._bank = bank_mod.Bank(entries, encoder.bank_vectors([e.question for e in entries]))
            elif (vectors := self._vectors([e.question for e in entries], cache) if entries else None) is None:
                self._bank = False
            else:
                self._bank = bank_mod.Bank(entries, vectors.vectors[[vectors.row[e.question] for e in entries]])
        return self._bank or None

    def bank_votes(self, query: Query, k: int) -> list:
        """The units the question's nearest bank entries vote for, best first ([] without a bank)."""
        try:
            bank = self.question_bank()
        except SearchUnavailable:
            return []
        if bank is None:
            return []
        from .bank import question_key

        left_out = self.bank_left_out or self.bank_left_out_by_question.get(question_key(query.text), frozenset())
        key = (query.text, k, left_out)
        if self._last_votes is None or self._last_votes[0] != key:  # the route and the ranker ask in turn
            encoder = self.question_encoder
            vector = encoder.encode([query.text])[0] if encoder is not None else self.searcher.query_vector(query.text)
            self._last_votes = (key, bank.votes(vector, k, left_out))
        return self._last_votes[1]

    def units(self) -> list:
        """The answer units of the loaded corpus (``assistant.units``), built on first use."""
        if self._units is None:
            from .units import catalogue

            self._units = catalogue(self)
            self._unit_by_id = {u.id: u for u in self._units}
        return self._units

    def unit(self, unit_id: str):
        self.units()
        return self._unit_by_id.get(unit_id)

    def hits(self, text: str, k: int):
        """The hybrid search's first ``k`` hits. The provision and passage routes of one question ask
        the same search in turn: the last one is kept, so it runs once."""
        from index import QueryError

        searcher = self.searcher
        key = (id(searcher), text, k)  # a reopened or rebuilt searcher is searched anew
        last = self._last_hits
        if last is not None and key in last:
            return list(last[key])
        try:
            found = searcher.search(text, k=k, mode="hybrid")
        except QueryError:
            return []
        # The index holds every document; a passage of one not in force here (pending today, or later
        # than an earlier day asked) is never quoted as this law.
        loaded = self.corpus.loaded_documents
        found = [hit for hit in found if getattr(hit.chunk, "document", "") in loaded or not getattr(hit.chunk, "document", "")]
        # The routes and the ranker ask one question's search at a few depths: those of the last question are kept.
        if last is None or any(kept[:2] != key[:2] for kept in last):
            last = {}
        last[key] = tuple(found)
        self._last_hits = last
        return list(found)

    def nearest(self, query: Query) -> list[str]:
        return list(dict.fromkeys(hit.section for hit in self.hits(query.corrected or query.text, TUNED.nearest_hits_k)))[:TUNED.nearest_sections]

    def comparable_encoder(self):
        """The index's encoder, when its similarities mean what the calibration was fitted on: a
        searcher without a model, one not ready yet, or another model (a test's hashing encoder)
        leaves the meaning signals unknown instead of misread."""
        try:
            encoder = getattr(self.searcher, "encoder", None)
        except SearchUnavailable:
            return None
        fitted = self.calibration.fitted_on.get("model")
        if encoder is None or (fitted and getattr(encoder, "model_id", None) != fitted):
            return None
        return encoder

    @property
    def question_encoder(self):
        """The shipped question encoder the bank is matched with, when one is shipped, ``COTATI_ENCODER``
        is on and the index embeds with the model it was trained from; None otherwise (the bank then
        uses the index's model)."""
        if self._question_encoder is None:
            import settings as settings_mod

            from . import encoder as encoder_mod

            on = settings_mod.value("encoder") and self.comparable_encoder() is not None
            self._question_encoder = (encoder_mod.load() if on else None) or False
        return self._question_encoder or None

    @property
    def verifier(self):
        """The shipped answer verifier when the ranker has a stage fitted on it and ``COTATI_VERIFIER``
        is on; None otherwise (the signals-only stage then decides at its own operating point)."""
        if self._verifier is None:
            import settings as settings_mod

            from . import verifier as verifier_mod

            head = self.ranker.head if self.ranker is not None else None
            found = verifier_mod.load() if head is not None and settings_mod.value("verifier") else None
            if found is not None and head.verifier and found.manifest.get("training_data", {}).get("hash") != head.verifier:
                raise verifier_mod.VerifierError(
                    f"{verifier_mod.VERIFIER_DIR / verifier_mod.MANIFEST_FILE}: not the verifier the ranker was fitted "
                    "with; refit with `python -m eval.verifier_fit --write`")
            self._verifier = found if found is not None else False
        return self._verifier or None

    @property
    def settings(self) -> Settings:
        """The tuned numbers in force (choose.Settings): the ranker's, as its file records them, else the record's own."""
        return self.ranker.settings if self.ranker is not None else TUNED

    def ranker_applies(self) -> bool:
        """Whether the index will embed with the model the ranker was fitted with: the settings' model
        (identified without loading it or opening the index; an index of another model is rebuilt
        with it when opened) against the fitted one."""
        if self._ranker_applies is None:
            fitted = self.ranker.fitted_on.get("model") if self.ranker is not None else None
            if not fitted:
                self._ranker_applies = self.model_comparable()
            else:
                from index import dense

                try:
                    self._ranker_applies = dense.model_id() == fitted
                except dense.EncoderError:
                    self._ranker_applies = False
        return self._ranker_applies

    def model_comparable(self) -> bool:
        """Whether the meaning signals mean what the calibration was fitted on (``comparable_encoder``
        is not None), answered without opening the searcher when it is not open yet and its factory
        says which model it will have (``service.IndexOpener``: a fresh index's; else it is opened)."""
        declared = getattr(self.searcher_factory, "model_id", None)
        model = declared() if self._searcher is None and callable(declared) else None
        if model is not None:
            fitted = self.calibration.fitted_on.get("model")
            return not fitted or model == fitted
        return self.comparable_encoder() is not None

    def section_parts(self) -> dict:
        if self._parts_by_section is None:
            found: dict = {}
            for chunk in self.searcher.chunks:
                if chunk.kind == "section":
                    found.setdefault((chunk.document, chunk.section), []).append(chunk)
            self._parts_by_section = {key: tuple(sorted(chunks, key=lambda c: c.part)) for key, chunks in found.items()}
        return self._parts_by_section

    def whole_section(self, hit):
        """The hit with its section's every part: a long section is split for retrieval, and the
        sentence that answers may sit in another part than the one the search ranked first."""
        if hit.chunk.parts <= 1:
            return hit
        parts = self.section_parts().get((hit.chunk.document, hit.section), ())
        if len(parts) <= 1:
            return hit
        return replace(hit, chunk=replace(hit.chunk, text="\n".join(part.text for part in parts)))

    def sentence_meaning(self, question: str, hits) -> dict[str, float] | None:
        """Closeness in meaning of each sentence of the hits to the question; None without a model."""
        vectors = self._sentence_vectors()
        if vectors is None:
            return None
        from .passages import split_sentences

        query_vector = self.searcher.query_vector(question)  # the vector the search just computed
        return vectors.similarities(query_vector, (s for hit in hits for _, s in split_sentences(hit.text)))

    def _sentence_vectors(self):
        if self._sentences is None:
            encoder = self.comparable_encoder()
            if encoder is None:
                return None
            searcher = self.searcher
            from .sentences import corpus_sentences, load_or_build

            texts = [chunk.text for chunk in searcher.chunks if chunk.kind == "section"]
            self._sentences = load_or_build(getattr(searcher, "path", None), encoder.model_id, corpus_sentences(texts),
                                            lambda batch: encoder.encode(list(batch), batch_size=64))
        return self._sentences

    def provisions(self) -> list:
        """The corpus's provisions in force: its sections' outlines and sentences (ingest.provisions)."""
        if self._provisions is None and self.corpus.provisions is not None:
            self._provisions = self.corpus.provisions
        if self._provisions is None:
            from ingest.provisions import effective_provisions, provisions_of

            sections = self.corpus.sections
            found, _ = provisions_of(sections)
            excerpts = {(s.document, s.id): getattr(s, "excerpt", False) for s in sections}
            self._provisions = effective_provisions(found, excerpts)
        return self._provisions

    def provision_meaning(self, question: str, provisions) -> dict[str, float] | None:
        """Closeness in meaning of each provision's text to the question; None without a model."""
        if self._provision_vectors is None:
            self._provision_vectors = self._vectors([p.text for p in self.provisions()], "provisions.npz")
        if self._provision_vectors is None:
            return None
        query_vector = self.searcher.query_vector(question)
        return self._provision_vectors.similarities(query_vector, (p.text for p in provisions))

    def path_meaning(self, question: str, provisions) -> dict[str, float] | None:
        """Closeness in meaning of each provision's heading path to the question; None without a model."""
        from .reader import path_text

        if self._path_vectors is None:
            self._path_vectors = self._vectors([path_text(p) for p in self.provisions()], "provision_paths.npz")
        if self._path_vectors is None:
            return None
        return self._path_vectors.similarities(self.searcher.query_vector(question), (path_text(p) for p in provisions))

    def _vectors(self, texts: list[str], cache_name: str):
        """The texts' vectors under the index's own model, cached beside the index; None without it."""
        encoder = self.comparable_encoder()
        if encoder is None:
            return None
        from .sentences import load_or_build

        return load_or_build(getattr(self.searcher, "path", None), encoder.model_id, list(dict.fromkeys(texts)),
                             lambda batch: encoder.encode(list(batch), batch_size=64), cache_name=cache_name)

    def read_provisions(self, question, provisions) -> dict[tuple[str, str], float] | None:
        """The reader's probability that each provision answers ``question`` (a reader.Question);
        None without a fitted reader or a model."""
        if self.reader is None or not provisions:
            return None
        from . import reader as reader_mod

        text_meaning = self.provision_meaning(question.text, provisions)
        path_meaning = self.path_meaning(question.text, provisions)
        if text_meaning is None or path_meaning is None:
            return None
        rows = reader_mod.measure(question, provisions, self.corpus.idf, text_meaning, path_meaning)
        probabilities = self.reader.probabilities(reader_mod.features(rows))
        return {reader_mod.key_of(p): value for p, value in zip(provisions, probabilities)}

    def printed(self) -> absent.Printed:
        """The district names and table numbers the loaded documents print (built on first use)."""
        if self._printed is None:
            self._printed = absent.printed(self.corpus.sections, self.vocabulary, self.corpus.printed_in_text)
        return self._printed

    # -- reading the question -------------------------------------------------------------------------
    def read(self, text: str) -> Query:
        """The question understood once: the stages of one answer (chooser, families, the decline's
        closest passage) that ask for it again get the same Query, even when a part or a follow-up was
        read in between (the last READ_KEPT texts are kept)."""
        found = self._read.get(text)
        if found is not None:
            return found
        query = understand(text, self.vocabulary, self.known_words)
        kept = dict(self._read)  # replaced whole: a reader in another thread never sees it half-changed
        kept[text] = query
        self._read = dict(list(kept.items())[-READ_KEPT:])
        return query

    def declined(self, query: Query) -> bool:
        """The question is about a subject or a place these documents do not cover."""
        return self._declined_pattern.search(query.normalized) is not None

    def mentions_district(self, text: str, districts: tuple[str, ...]) -> bool:
        lowered = text.lower()
        for symbol in districts:
            district = self.vocabulary.district(symbol)
            names = [district.name.lower(), *district.aliases] if district else []
            if re.search(rf"(?<![A-Za-z]){symbol}(?![A-Za-z])", text) or any(name in lowered for name in names):
                return True
        return False

    def other_words(self, query: Query) -> set[str]:
        """The question's content words that are neither its topics' words nor district names."""
        topic_words = {w for topic in query.topics for phrase in self.vocabulary.topics[topic][0] for w in words_of(phrase)}
        text = dialogue.without_words(query.normalized, (*query.district_words, *district_names_in(query.normalized, self.vocabulary)))
        return {w for w in words_of(text) if w not in STOP and w not in topic_words and w not in QUESTION_WORDS and len(w) > 2}


# -- helpers the routes share ----------------------------------------------------------------------------
def readable(lookups) -> float:
    """Share of the cells used that hold a value read with confidence (by the parser, or by a
    reviewed reading of the printed table)."""
    if not lookups:
        return 0.0
    return sum(1 for cell in lookups if cell.get("value") and (not cell.get("review") or cell.get("reviewed"))) / len(lookups)


def clip_sentences(text: str, limit: int = 700) -> str:
    """The text up to the last whole sentence within ``limit`` characters."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return cut[: end + 1] if end > 0 else clip(text, limit)


def clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


@lru_cache(maxsize=1)
def out_of_scope() -> tuple[list[str], list[str]]:
    data = json.loads((DATA / "out_of_scope.json").read_text(encoding="utf-8"))
    return data["subjects"], data["other_places"]
