"""The assistant: loads sections, tables and the index once, then answers questions."""

from __future__ import annotations

import json
import re
import time
from functools import lru_cache
from pathlib import Path

from . import compose, definitions
from .passages import document_frequencies
from .permits import GENERIC, STOP, PermitTables, words_of
from .standards import StandardsTables, authority_entries
from .types import Answer, Citation, Query
from .understand import known_words_of, understand
from .validate import InvalidQuestion, check_question
from .vocab import DATA, load_vocabulary

STANDARDS_TOPICS = frozenset({"height", "setback", "coverage", "density", "lot_size", "parking", "bicycle", "fence",
                              "driveway", "stalls", "expiry", "completeness", "who_decides", "variance", "amendment",
                              "appeal", "hearing", "definition", "condo", "fees", "demolition", "design"})
PERMIT_TOPICS = frozenset({"allowed", "which_districts"})


class Corpus:
    """Sections and documents, with the latest statement of each section first."""

    def __init__(self, sections, documents, vocabulary):
        self.sections = list(sections)
        self.documents = {doc.id: doc for doc in documents}
        self.vocabulary = vocabulary
        self.by_key = {(s.id, s.document): s for s in self.sections}
        self.idf, _ = document_frequencies(section.text for section in self.sections)
        self.latest: dict[str, object] = {}
        for section in sorted(self.sections, key=lambda s: (s.date, s.document)):
            self.latest[section.id] = section

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


class Assistant:
    def __init__(self, corpus: Corpus, tables: PermitTables, searcher_factory, standards: StandardsTables | None = None):
        self.corpus = corpus
        self.tables = tables
        self.standards = standards or StandardsTables(())
        self.standards.idf = corpus.idf
        self.definitions = definitions.collect(corpus.latest.values())
        self._searcher_factory = searcher_factory
        self._searcher = None
        self.vocabulary = corpus.vocabulary
        known = tables.row_words()
        self.out_of_scope = _out_of_scope()
        known |= {word for phrase in sum(self.out_of_scope, []) for word in phrase.split()}
        # Built once: understanding a question must not rebuild the vocabulary or its patterns.
        self.known_words = known_words_of(self.vocabulary, known)
        self._declined_pattern = re.compile(
            r"\b(?:" + "|".join(re.escape(s) for s in sum(self.out_of_scope, [])) + r")\b")

    @property
    def searcher(self):
        if self._searcher is None:
            self._searcher = self._searcher_factory()
        return self._searcher

    def ask(self, question: object) -> Answer:
        started = time.perf_counter()
        try:
            text = check_question(question)
        except InvalidQuestion as error:
            answer = Answer(question=str(question)[:2000] if isinstance(question, str) else "",
                            answer=str(error), abstained=True, route="invalid")
        else:
            answer = self._answer(understand(text, self.vocabulary, self.known_words))
        elapsed = (time.perf_counter() - started) * 1000
        return Answer(**{**answer.__dict__, "timing_ms": elapsed})

    def _answer(self, query: Query) -> Answer:
        if self._declined(query):
            return compose.abstain(query, self._nearest(query))
        if query.sections:
            section = self.corpus.section(query.sections[0])
            if section is not None:
                return compose.section_answer(query, section, self.corpus, _subsection(section.text, query.subsection))
            return compose.abstain(query, self._nearest(query), f"§ {query.sections[0]} is not in these documents.")
        if query.apn:
            return self._apn(query)
        permit = self._permit(query)
        if permit is not None:
            return permit
        if "definition" in query.topics or not (query.topics or query.districts or query.land_use):
            # "are e-scooters micromobility?": a defined term alone can carry the question.
            definition = definitions.lookup(self.definitions, query.text)
            if definition is not None:
                return compose.definition_answer(query, definition, self.corpus)
        if set(query.topics) & STANDARDS_TOPICS:
            lookup = self.standards.lookup(query)
            if lookup is not None and lookup.readable:
                return compose.standards_answer(query, lookup, self.corpus)
        if query.tables:
            section = self._table_section(query.tables[0])
            if section is not None:
                return compose.section_answer(query, section, self.corpus)
        if query.topics or query.districts or query.land_use:
            return self._passages(query)
        return compose.abstain(query, self._nearest(query))

    def _declined(self, query: Query) -> bool:
        return self._declined_pattern.search(query.normalized) is not None

    def _permit(self, query: Query) -> Answer | None:
        if set(query.topics) & STANDARDS_TOPICS:
            return None  # "how tall can I build" asks for a standard, not a permit
        # A use named without a district or an "is it allowed" question is asked about
        # something else (its procedure, its definition): passages answer that.
        if not (set(query.topics) & PERMIT_TOPICS or query.districts):
            return None
        phrase = query.normalized
        for word in query.district_words:
            phrase = phrase.replace(word.lower(), " ")
        districts = list(query.districts)
        tables = sorted({t for d in districts for t in self.tables.tables_for(d)}) or None
        matches = self.tables.match(phrase, tables, synonyms=" ".join(query.land_uses))
        if query.land_uses:
            # An everyday word named the use: the row must be that use, or the question's own
            # words must name the row outright. A wrong row is worse than no answer.
            required = [set(words_of(target)) - STOP - GENERIC for target in query.land_uses]
            matches = [m for m in matches if m.complete or any(r and r <= set(words_of(m.row)) for r in required)]
        if not matches:
            return None
        best = matches[0]
        in_table = [d for d in districts if d in self.tables.columns[best.table]]
        if districts and not in_table:
            return None
        if not districts:
            # A row printed in several tables: answer from each, joined.
            parts = [compose.permit_answer(query, self.tables, m, [], self.corpus)
                     for m in _one_per_table(matches, best)]
            return _join_answers(query, [p for p in parts if p is not None])
        return compose.permit_answer(query, self.tables, best, in_table, self.corpus,
                                     authority=lambda code: authority_entries(self.standards, code))

    def _apn(self, query: Query) -> Answer:
        holders = [s for s in self.corpus.sections if query.apn in s.text]
        if not holders:
            return compose.abstain(query, self._nearest(query), f"Parcel {query.apn} is not named in these documents.")
        # The part that acts on the parcel, not the ordinance title that lists it.
        section = max(holders, key=lambda s: (not s.id.endswith(":PREAMBLE"), s.date, s.document))
        return compose.section_answer(query, section, self.corpus, _apn_line(section.text, query.apn))

    def _table_section(self, table: str):
        pattern = re.compile(rf"^Tables?\s+{re.escape(table)}\b", re.M)
        holders = [s for s in self.corpus.sections if s.kind == "code" and pattern.search(s.text)]
        return max(holders, key=lambda s: (s.date, s.document)) if holders else None

    def _passages(self, query: Query) -> Answer:
        hits = self._hits(query.text, 8)
        preferred = {s for topic in query.topics for s in self.vocabulary.topics[topic][1]}
        ranked = sorted(hits, key=lambda h: (h.section not in preferred, h.rank))
        # Table-row chunks are text made from cells for retrieval: quotes come from the documents.
        supported = [h for h in ranked if (h.bm25_rank is not None or h.direct) and h.chunk.kind == "section"]
        if query.districts:
            # A question about a district is answered only by text that speaks of that district.
            supported = [h for h in supported if self._mentions_district(h.text, query.districts)]
        if not supported:  # the hits already fetched are the nearest sections: no second search
            return compose.abstain(query, list(dict.fromkeys(hit.section for hit in hits[:5]))[:3])
        chosen = _distinct_sections(supported)[:4]
        return compose.passage_answer(query, chosen, self.corpus)

    def _mentions_district(self, text: str, districts: tuple[str, ...]) -> bool:
        lowered = text.lower()
        for symbol in districts:
            district = self.vocabulary.district(symbol)
            names = [district.name.lower(), *district.aliases] if district else []
            if re.search(rf"(?<![A-Za-z]){symbol}(?![A-Za-z])", text) or any(name in lowered for name in names):
                return True
        return False

    def _hits(self, text: str, k: int):
        from index import QueryError

        try:
            return self.searcher.search(text, k=k, mode="hybrid")
        except QueryError:
            return []

    def _nearest(self, query: Query) -> list[str]:
        return list(dict.fromkeys(hit.section for hit in self._hits(query.text, 5)))[:3]


def _subsection(text: str, path: tuple[str, ...]) -> str:
    """The paragraph of subsection (E) or (D)(5) of a section's text, "" if it is not printed."""
    if not path:
        return ""
    lines = text.split("\n")
    # "E. Title ..." in full text; "(17.39.040(D))" where an ordinance prints an excerpt.
    letter = re.compile(rf"^{re.escape(path[0])}\.\s|\([\d.]+\s*\({re.escape(path[0])}\)\)$")
    start = next((i for i, line in enumerate(lines) if letter.search(line)), None)
    if start is None:
        return ""
    if len(path) == 1:
        return _clip(lines[start])
    item = re.compile(rf"^{re.escape(path[1])}\.\s")
    next_letter = re.compile(r"^[A-Z]\.\s|\([\d.]+\s*\([A-Z]\)\)$")
    taken: list[str] = []
    for line in lines[start + 1:]:
        if next_letter.search(line) or (taken and re.match(r"^\d+\.\s", line)):
            break
        if taken or item.match(line):
            taken.append(line)  # the item and its lettered parts (a., b., ...)
    return _clip(" ".join(taken) if taken else lines[start])


def _clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _apn_line(text: str, apn: str) -> str:
    """The paragraph that names the parcel (sentences would split at "Commercial E.")."""
    line = next((line for line in text.split("\n") if apn in line), text.split("\n")[0])
    return line if len(line) <= 400 else line[:399].rsplit(" ", 1)[0] + "…"


def _one_per_table(matches, best):
    chosen = {}
    for match in matches:
        if match.score >= best.score and match.table not in chosen:
            chosen[match.table] = match
    return list(chosen.values())


def _join_answers(query: Query, answers: list[Answer]) -> Answer | None:
    if not answers:
        return None
    if len(answers) == 1:
        return answers[0]
    first_lines = [a.first_line for a in answers]
    body = [line for a in answers for line in a.answer.split("\n")[1:]]
    citations = tuple({(c.section, c.document, c.table): c for a in answers for c in a.citations}.values())
    lookups = tuple(cell for a in answers for cell in a.lookups)
    return Answer(question=query.text, answer="\n".join([" ".join(first_lines)] + body), abstained=False,
                  citations=citations, lookups=lookups, route="permit")


def _distinct_sections(hits):
    seen, out = set(), []
    for hit in hits:
        if hit.section not in seen:
            seen.add(hit.section)
            out.append(hit)
    return out


@lru_cache(maxsize=1)
def _out_of_scope() -> tuple[list[str], list[str]]:
    data = json.loads((DATA / "out_of_scope.json").read_text(encoding="utf-8"))
    return data["subjects"], data["other_places"]


def load_assistant(corpus_dir: str | Path | None = None, index_dir: str | Path | None = None, progress=None,
                   as_of: str | None = None) -> Assistant:
    """Read the corpus and tables once; the search index opens on first use (built if missing).
    ``as_of`` (ISO date): only documents dated on or before it are read, sections and tables alike."""
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

    return Assistant(corpus, PermitTables(table_set.effective), open_searcher, StandardsTables(table_set.effective))
