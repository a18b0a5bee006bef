"""The assistant: loads sections, tables and the index once, then answers questions."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from dataclasses import replace

from . import answer_type, compose, definitions, dialogue
from . import confidence as confidence_mod
from .passages import document_frequencies
from .permits import GENERIC, QUANTITY_WORDS, STOP, PermitTables, RowMatch, by_quantity, family, quantity_decides, words_of
from .standards import StandardsTables, authority_entries
from .types import Answer, Citation, Query, SearchUnavailable
from .interpretation import interpretation_of, read_as_line
from .meaning import defined_terms, row_names
from .understand import district_names_in, known_words_of, understand
from .validate import InvalidQuestion, check_question
from .vocab import DATA, load_vocabulary

# Verbs of deciding (general English): "who approves / hears / signs off on / makes the call".
DECIDING = re.compile(r"\b(?:decid\w*|decision\w*|authorit\w*|approv\w*|hear\w*|grant\w*|review\w*|sign\w*|rul\w*|call|issu\w*|den\w+|vote\w*|"
                      r"make\w*|say|says|authoriz\w*|allow\w*|permit\w*|handle\w*|oversee\w*|in charge|final)\b")
# A street address: a house number and a street ("201 W Sierra Ave"), and a question for its zone.
STREET_ADDRESS = re.compile(r"\b\d{1,5}\s+(?:[NSEW]\.?\s+)?(?:[A-Za-z]+\s+){1,3}(?:st|street|ave|avenue|rd|road|dr|drive|way|ln|"
                            r"lane|ct|court|blvd|boulevard|hwy|highway|pl|place|cir|circle)\b\.?", re.I)
WHICH_ZONE = re.compile(r"\b(?:what|which)(?: zoning)? (?:zone|zoning|district)\b|\bzoned\b|\bzoning (?:of|for|on)\b")
STANDARDS_TIE = 0.5  # row scores count shared words in steps of 1 (2 for a label word); less is a tie
STANDARDS_TOPICS = frozenset({"height", "setback", "coverage", "density", "lot_size", "parking", "bicycle", "fence",
                              "driveway", "stalls", "expiry", "completeness", "who_decides", "variance", "amendment",
                              "appeal", "hearing", "definition", "condo", "fees", "demolition", "design", "general_plan"})
PERMIT_TOPICS = frozenset({"allowed", "which_districts"})
# A row found by meaning alone must be at least this close to the question (cosine); below it the
# question is about something the tables do not list. The calibrated confidence decides the rest.
MEANING_FLOOR = 0.45
# What a question about a district itself asks (general English): what it is, means, is for, where.
ABOUT_A_DISTRICT = re.compile(r"\b(?:what(?:s| is| are| does| do)|where|purpose|intended|meant|mean|means|stand for|for)\b")
DISTRICT_PURPOSES = "17.20.030"  # "Purposes of the zoning districts": one printed paragraph per district
# Words of a permit question that ask rather than name the use (general English).
ASKING_WORDS = frozenset("ok okay allowed allow allows permit permits permitted need needed needs require required requires "
                         "requirement requirements approval approve build open opening run running start put want wanted like "
                         "could would should get may might must let lets able legal legally zoned zoning zone zones district "
                         "districts area city cotati code rules rule my our we us you your yes no".split())
# Words that ask rather than say what about ("how tall can ... be").
QUESTION_WORDS = frozenset("how tall high wide big much many long far deep large small limit maximum minimum max min "
                           "allowed rule rules requirement requirements".split())
# Words of a "which section covers ..." question that ask for a section rather than say about what.
SECTION_CUE_WORDS = frozenset(words_of("which what where section sections chapter part code ordinance land use covers cover "
                                       "covered has have deals deal talks talk about rules rule requirements requirement "
                                       "regulations regulation standards find look say says govern governs"))
FINDER_FLOOR = 0.3  # browsing rows ("tattoo" -> Personal services) may show nearer misses than an answer may
MEANING_SWITCH = 0.08  # a word-matched row this much less close in meaning than the nearest row gives way to it
MEANING_TIE = 0.005  # two rows this close in meaning are not told apart by it (they share their nearest name)
MEANING_NEAR = 0.05  # rows this close to the nearest are one family ("Adult day care - 7 to 14 clients", ...)
WORD_TIE = 0.25  # word-match scores this close to the best are a tie that meaning breaks


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
    def __init__(self, corpus: Corpus, tables: PermitTables, searcher_factory, standards: StandardsTables | None = None,
                 calibration: confidence_mod.Calibration | None = None):
        self.corpus = corpus
        self.calibration = calibration if calibration is not None else confidence_mod.UNCALIBRATED
        self.tables = tables
        self.standards = standards or StandardsTables(())
        self.standards.idf = corpus.idf
        self.definitions = definitions.collect(corpus.latest.values())
        self._searcher_factory = searcher_factory
        self._searcher = None
        self._meanings = None
        self._defined = None  # defined term words -> definition, for the rows' names
        self._name_words: dict[str, frozenset[str]] = {}
        self._sentences = None
        self.vocabulary = corpus.vocabulary
        # Typos are corrected only towards words the vocabulary or the corpus itself uses, so a
        # word the code prints ("nonresidential") is never "corrected" to another ("residential").
        known = tables.row_words() | {word for word in corpus.idf if word.isalpha()}
        self.out_of_scope = _out_of_scope()
        known |= {word for phrase in sum(self.out_of_scope, []) for word in phrase.split()}
        # Built once: understanding a question must not rebuild the vocabulary or its patterns.
        self.known_words = known_words_of(self.vocabulary, known)
        self._parts_by_section = None  # (document, section) -> its section chunks in order, on first use
        self._declined_pattern = re.compile(
            r"\b(?:" + "|".join(re.escape(s) for s in sum(self.out_of_scope, [])) + r")\b")

    @property
    def searcher(self):
        if self._searcher is None:
            self._searcher = self._searcher_factory()
        return self._searcher

    def ask(self, question: object, history: Sequence = ()) -> Answer:
        """Answer one question. ``history``: the chat's earlier questions (or (question, answer)
        turns), oldest first; a question
        naming only a district or only a use ("what about in NL?") takes the rest from the last one."""
        started = time.perf_counter()
        try:
            text = check_question(question)
        except InvalidQuestion as error:
            answer = Answer(question=str(question)[:2000] if isinstance(question, str) else "",
                            answer=str(error), abstained=True, route="invalid")
        else:
            query = understand(text, self.vocabulary, self.known_words)
            answer = self._clarify(query)
            parts = self._parts(text) if answer is None else []
            if parts:
                answer = self._compound(text, parts)
            elif answer is None:
                query, previous = self._in_context(query, history)
                answer = self._calibrated(query, self._interpreted(query, self._answer(query), previous))
                if previous:
                    answer = replace(answer, question=text)
        elapsed = (time.perf_counter() - started) * 1000
        return Answer(**{**answer.__dict__, "timing_ms": elapsed})

    def _answer(self, query: Query) -> Answer:
        if self._declined(query):
            return compose.abstain(query, self._nearest(query), corpus=self.corpus)
        if query.sections:
            section = self.corpus.section(query.sections[0])
            if section is not None and answer_type.detect(query.text) == "definition":
                # "does 'demolition' in 17.90.020 include ...": the term as that section defines it
                defined = definitions.lookup([d for d in self.definitions if d.section.id == section.id], query.text)
                if defined is not None:
                    found = compose.definition_answer(query, defined, self.corpus)
                    return replace(found, signals={"term_words": float(len(words_of(defined.term))), "term_quoted": 1.0})
            if section is not None:
                found = compose.section_answer(query, section, self.corpus, _subsection(section.text, query.subsection))
                return replace(found, signals={"section_found": 1.0})
            return compose.abstain(query, self._nearest(query), f"§ {query.sections[0]} is not in these documents.",
                                  corpus=self.corpus)
        if query.apn:
            return self._apn(query)
        if not query.districts and STREET_ADDRESS.search(query.text) and WHICH_ZONE.search(query.normalized):
            return compose.abstain(query, self._nearest(query), "Which district a street address is in is shown on the "
                                   "City's zoning map, which these documents do not include.", corpus=self.corpus)
        titled = self._section_by_title(query)
        if titled is not None:
            return titled
        asks = answer_type.detect(query.text)
        quoted = definitions.quoted(query.text)
        if quoted and asks in ("definition", "other", "yes_no"):
            # "is a thrift store an 'antique or collectible store'?": the term put in quotes is the
            # one asked about, and the code's definition of it answers (what it includes, excludes).
            definition = definitions.lookup(self.definitions, quoted)
            if definition is not None:
                return self._definition_answer(query, definition)
        permit = self._permit(query)
        if permit is not None:
            return permit
        if asks in ("definition", "other", "yes_no") and (
                "definition" in query.topics or not (query.topics or query.districts or query.land_use)):
            # "are e-scooters micromobility?": a defined term alone can carry the question.
            definition = definitions.lookup(self.definitions, query.text)
            if definition is not None:
                return self._definition_answer(query, definition)
        if asks == "who":
            # "who makes the call on ...": a question that asks who decides is asking Table 6-1;
            # "who is the director?" asks for a person, whom the code does not name (it names roles).
            deciding = DECIDING.search(query.normalized) is not None
            topics = tuple(t for t in query.topics if t != "who_decides" or deciding)
            query = replace(query, topics=topics + (("who_decides",) if deciding and "who_decides" not in topics else ()))
        if set(query.topics) & STANDARDS_TOPICS:
            lookup = self.standards.lookup(query)
            values = " ".join(str(e.cell.value or "") for e in (lookup.entries if lookup else ())
                              if not e.cell.column.startswith("Applicable"))
            if lookup is not None and not answer_type.units_agree(query.text, values):
                lookup = None  # the row gives another measure than the one asked ("what share ..." -> "8 feet")
            elif lookup is not None and asks in answer_type.QUANTITIES and not answer_type.present(
                    "number" if asks == "duration" else asks, values):
                lookup = None  # "what is the deadline ...": a row of roles or a cross-reference states no quantity
            if lookup is not None and lookup.readable:
                found = compose.standards_answer(query, lookup, self.corpus)
                return replace(found, signals={
                    "row_share": lookup.share, "row_margin": min(lookup.margin, 5.0),
                    # another row fits the question's words as well, and only fewer unexplained words chose this one
                    "row_tied": float(lookup.margin < STANDARDS_TIE),
                    "district_named": float(bool(query.districts)), "cell_readable": _readable(found.lookups)})
            if lookup is None and asks != "other" and len(self._other_words(query)) <= 1:
                rows = self.standards.overview(query)
                if rows:
                    found = compose.standards_overview(query, rows, self.corpus)
                    return replace(found, signals={"cell_readable": _readable(found.lookups)})
        if query.tables:
            section = self._table_section(query.tables[0])
            if section is not None:
                return compose.section_answer(query, section, self.corpus)
        described = self._district_description(query)
        if described is not None:
            return described
        if query.topics or query.districts or query.land_use:
            return self._passages(query)
        defined = self._defined_quantity(query, asks)
        if defined is not None:
            return defined
        # Nothing the vocabulary knows was named: the passages still answer, if the calibrated
        # confidence trusts them; a keyword list does not decide what the code covers.
        return self._passages(query)

    def _defined_quantity(self, query: Query, asks: str) -> Answer | None:
        """"How big can a microdistillery get?": a question that names nothing but a term the code
        defines, asking for a quantity its definition states ("limited to 10,000 cases"), is
        answered by that definition."""
        if asks not in answer_type.QUANTITIES:
            return None
        definition = definitions.lookup(self.definitions, query.corrected or query.text)
        if definition is None or not answer_type.present(asks, definition.text):
            return None
        return self._definition_answer(query, definition)

    def _definition_answer(self, query: Query, definition) -> Answer:
        found = compose.definition_answer(query, definition, self.corpus)
        term = [w for w in words_of(definition.term) if w not in STOP]
        quoted = definition.term.lower() in definitions.quoted(query.text).lower()
        return replace(found, signals={"term_words": float(len(term)), "term_quoted": float(quoted)})

    def _section_by_title(self, query: Query) -> Answer | None:
        """"Which section covers variances?": the code section whose title says what the question
        names (§ 17.62.060 Variance and minor variance), its rare words weighing more; the search's
        own ranking breaks ties and is a signal of the confidence."""
        if answer_type.detect(query.text) != "section" or query.tables:
            return None
        wanted = {w for w in words_of(query.corrected or query.text) if w not in STOP and w not in SECTION_CUE_WORDS}
        if not wanted:
            return None
        weight = sum(self.corpus.idf.get(w, 1.0) for w in wanted)
        ranks = {}
        for rank, hit in enumerate(self._hits(query.corrected or query.text, 8), start=1):
            ranks.setdefault(hit.section, rank)
        scored = []
        for section in self.corpus.latest.values():
            if section.kind != "code" or not section.title:
                continue
            share = sum(self.corpus.idf.get(w, 1.0) for w in wanted & set(words_of(section.title))) / weight
            if share:
                scored.append((share, -ranks.get(section.id, 9), section))
        if not scored:
            return None
        scored.sort(key=lambda item: (-item[0], -item[1], item[2].id))
        share, rank, section = scored[0]
        runner = scored[1][0] if len(scored) > 1 else 0.0
        found = compose.section_answer(query, section, self.corpus)
        return replace(found, route="section_title",
                       signals={"title_share": round(share, 4), "title_margin": round(share - runner, 4), "hit_rank": float(-rank)})

    def _district_description(self, query: Query) -> Answer | None:
        """"What is the NM district?", "where is the CE zone?": the paragraph the code prints under
        that district's heading in 17.20.030 (purposes of the zoning districts), found by the heading."""
        if len(query.districts) != 1 or query.land_uses or set(query.topics) & STANDARDS_TOPICS - {"definition"}:
            return None
        if not {answer_type.detect(query.text), answer_type.detect(query.normalized)} & {"definition", "other"}:
            return None
        if not ABOUT_A_DISTRICT.search(query.normalized) or re.search(r"\bwhich\b", query.normalized):
            return None  # "which parcel was rezoned to NM?" asks for something else than what NM is
        section = self.corpus.section(DISTRICT_PURPOSES)
        if section is None:
            return None
        symbol = query.districts[0]
        district = self.vocabulary.district(symbol)
        names = [re.escape(n) for n in ((district.name,) if district else ())]
        heading = re.compile(rf"^(?:\d+\.\s*)?(?:{symbol}\s*\(|(?:{'|'.join(names) or '$^'})\s*\({symbol}\)\.)")
        paragraph = next((line.strip() for line in section.text.split("\n") if heading.match(line.strip())), None)
        if paragraph is None:
            return None
        found = compose.section_answer(query, section, self.corpus, _clip_sentences(re.sub(r"^\d+\.\s*", "", paragraph)))
        return replace(found, route="district", signals={"heading_found": 1.0})

    def _parts(self, text: str) -> list[Query]:
        return dialogue.split_questions(text, self._read)

    def _clarify(self, query: Query) -> Answer | None:
        options = dialogue.clarifying_options(query, self.vocabulary)
        if options is None:
            return None
        first, choices = options
        lines = [first, *(f"- {choice}" for choice in choices),
                 "These documents cover the City of Cotati's zoning code, not state law."]
        return Answer(question=query.text, answer="\n".join(lines), abstained=True, route="clarify", clarify=choices,
                      interpretation=interpretation_of(query, Answer(query.text, "", True), self.vocabulary))

    def _in_context(self, query: Query, history: Sequence) -> tuple[Query, str]:
        return dialogue.with_previous(query, history, self._read)

    def _read(self, text: str) -> Query:
        return understand(text, self.vocabulary, self.known_words)

    def _compound(self, text: str, parts: list[Query]) -> Answer:
        """Each part answered on its own; the answerable part is given, the other named as not answered."""
        answers = [self._calibrated(q, self._interpreted(q, self._answer(q))) for q in parts]
        given = [(q, a) for q, a in zip(parts, answers) if not a.abstained]
        if not given:
            return replace(answers[0], question=text)
        lines = [" ".join(a.first_line for _, a in given)]
        for number, (q, a) in enumerate(zip(parts, answers), 1):
            if a.abstained:
                lines.append(f"Part {number} (\"{q.text}\") is not answered: the code documents here do not clearly answer it.")
            else:
                lines.append(f"Part {number} (\"{q.text}\"):")
                lines.extend(line for line in a.answer.split("\n")[1:] if not line.startswith("Source:"))
        citations = tuple({(c.section, c.document, c.table): c for _, a in given for c in a.citations}.values())
        lines.append(compose.source_line(list(citations), self.corpus))
        confidences = [a.confidence for _, a in given if a.confidence is not None]
        return Answer(question=text, answer="\n".join(lines), abstained=False, citations=citations,
                      lookups=tuple(cell for _, a in given for cell in a.lookups), route="compound",
                      confidence=min(confidences) if confidences else None,
                      interpretation={"parts": [a.interpretation for a in answers]},
                      nearest=tuple(s for a in answers if a.abstained for s in a.nearest))

    def _calibrated(self, query: Query, answer: Answer) -> Answer:
        """Confidence from the route's signals; below the fitted threshold the answer is declined."""
        if answer.abstained:
            return answer
        signals = answer.signals
        if set(signals) & confidence_mod.MODEL_SIGNALS and self._comparable_encoder() is None:
            # Measured with another model (or none): unknown to the fitted model, so its dev average.
            signals = {k: v for k, v in signals.items() if k not in confidence_mod.MODEL_SIGNALS}
        confidence = self.calibration.confidence(answer.route, signals)
        if confidence is None:
            return answer
        if confidence < self.calibration.threshold:
            nearest = list(dict.fromkeys([c.section for c in answer.citations] + self._nearest(query)))[:3]
            declined = compose.abstain(query, nearest, corpus=self.corpus, first=compose.UNSURE_LINE)
            return replace(declined, confidence=confidence, interpretation=answer.interpretation, signals=answer.signals)
        return replace(answer, confidence=confidence)

    def _interpreted(self, query: Query, answer: Answer, previous: str = "") -> Answer:
        """The answer with what the question was read as (JSON) and one "Read as:" line."""
        # A route that answered another reading of the question (a parcel read as its district) says so itself.
        interpretation = answer.interpretation or interpretation_of(query, answer, self.vocabulary)
        if previous:
            interpretation["from_previous_question"] = previous
        if answer.abstained or answer.route in ("invalid",):
            return replace(answer, interpretation=interpretation)
        line = read_as_line(interpretation)
        if line and previous:
            line += " (from your previous question)"
        lines = answer.answer.split("\n")
        if line:
            lines.insert(1, line)
        return replace(answer, answer="\n".join(lines), interpretation=interpretation)

    def _other_words(self, query: Query) -> set[str]:
        """The question's content words that are neither its topics' words nor district names."""
        topic_words = {w for topic in query.topics for phrase in self.vocabulary.topics[topic][0] for w in words_of(phrase)}
        text = dialogue.without_words(query.normalized, (*query.district_words, *district_names_in(query.normalized, self.vocabulary)))
        return {w for w in words_of(text) if w not in STOP and w not in topic_words and w not in QUESTION_WORDS and len(w) > 2}

    def _declined(self, query: Query) -> bool:
        return self._declined_pattern.search(query.normalized) is not None

    def _permit(self, query: Query) -> Answer | None:
        asks = answer_type.detect(query.text)
        if asks in answer_type.QUANTITIES:
            return None  # "how many chickens", "what hours": a permit code does not state a quantity
        standards_asked = bool(set(query.topics) & STANDARDS_TOPICS)
        if standards_asked and asks != "yes_no":
            return None  # "how tall can I build" asks for a standard, not a permit
        # A use named without a district or an "is it allowed" question is asked about
        # something else (its procedure, its definition): passages answer that.
        if not (set(query.topics) & PERMIT_TOPICS or query.districts):
            return None
        phrase = query.normalized
        for word in (*query.district_words, *district_names_in(query.normalized, self.vocabulary)):
            phrase = re.sub(rf"(?<![a-z0-9]){re.escape(word.lower())}(?![a-z0-9])", " ", phrase)  # not "ig" in "light"
        districts = list(query.districts)
        tables = sorted({t for d in districts for t in self.tables.tables_for(d)}) or None
        matches = self.tables.match(phrase, tables, synonyms=" ".join(query.land_uses))
        if query.land_uses:
            # An everyday word named the use: the row must be that use, or the question's own
            # words must name the row outright. A wrong row is worse than no answer.
            required = [set(words_of(target)) - STOP - GENERIC for target in query.land_uses]
            matches = [m for m in matches if m.complete or any(r and r <= set(words_of(m.row)) for r in required)]
        if standards_asked and not matches:
            return None  # "can I build 3 stories?": a yes/no about a standard, unless words name a use
        matches, meant, near = self._by_meaning(phrase, tables, matches)
        if not matches:
            return None
        best = matches[0]
        # Rows of one family that the stated quantity rules out are no rivals ("12 units": 5 to 9 units).
        sized = quantity_decides(matches, phrase)
        runner = next((m for m in matches[1:] if m.row != best.row and not (sized and family(m.row) == family(best.row))), None)
        # Rows near in meaning are rivals only of a row found by meaning: a row the words name is
        # doubted by rows the words name as well, not by whatever a short phrase is vaguely near.
        rivals = _rivals(best, matches, near if meant.get("by_meaning") else (), phrase, " ".join(query.land_uses))
        signals = {
            "row_explained": self._explained(phrase, best.row),
            "row_own": best.own, "row_complete": float(best.complete), "row_covered": best.covered,
            "by_everyday_word": float(bool(query.land_uses)),
            "row_margin": min(1.0, best.score - (runner.score if runner else 0.0)), "districts_named": float(bool(districts)),
            **meant,
        }
        if not districts:
            # A row printed in several tables: answer from each, joined.
            parts = [compose.permit_answer(query, self.tables, m, [], self.corpus)
                     for m in _one_per_table(matches, best)]
            found = _join_answers(query, [p for p in parts if p is not None], self.corpus)
            covered = 1.0
        else:
            # Every district named is answered from its own table's best row: none is dropped.
            parts, answered = [], []
            for match in _one_per_table(matches, best, every_table=True):
                here = [d for d in districts if d in self.tables.columns[match.table] and d not in answered]
                if here:
                    answered += here
                    parts.append(compose.permit_answer(query, self.tables, match, here, self.corpus,
                                                       authority=lambda code: authority_entries(self.standards, code)))
            if best.table not in {m.table for m in _one_per_table(matches, best, every_table=True)
                                  if any(d in self.tables.columns[m.table] for d in districts)}:
                return None  # the best row is in a table of other districts: not the use asked about
            found = _join_answers(query, [p for p in parts if p is not None], self.corpus)
            covered = len(answered) / len(districts)
        if found is None:
            return None
        found, doubt = self._with_rivals(query, found, rivals, districts)
        if doubt and meant.get("by_meaning") and meant.get("meaning_margin", 1.0) < MEANING_TIE:
            return None  # no word named the row, its meaning ties with another row's, and their cells differ
        return replace(found, signals={**signals, "cell_readable": _readable(found.lookups), "districts_covered": covered,
                                       "row_doubt": doubt})

    def _with_rivals(self, query: Query, found: Answer, rivals, districts) -> tuple[Answer, float]:
        """Rows the question fits as well as the chosen one ("drive-thru": Drive-through retail and
        Drive-through service) matter only when their cells say something else. When every one says
        the same for the districts asked, the answer holds either way and shows each row; when one
        differs, the answer stays as it is and the doubt is a signal (1.0) of the confidence."""
        if not rivals:
            return found, 0.0
        said = {(cell["column"], cell["value"]) for cell in found.lookups}
        shown = []
        for rival in rivals:
            columns = districts or self.tables.columns[rival.table]
            cells = [self.tables.cell(rival.table, rival.row, d) for d in columns]
            cells = [entry for entry in cells if entry is not None]
            if not cells or {(e.cell.column, e.cell.value) for e in cells} != said:
                return found, 1.0
            shown.append(cells)
        lines = found.answer.split("\n")
        extra = [f"{compose.display_row(cells[0].cell.row, cells[0].cell.category)}: "
                 + "; ".join(compose.grouped_codes((e.cell.value, e.cell.column) for e in cells))
                 + f" (Table {cells[0].cell.table}, § {cells[0].cell.section}): the same, if this row is the one meant."
                 for cells in shown]
        lines[-1:-1] = extra  # before the Source line
        lookups = found.lookups + tuple(e.to_json() for cells in shown for e in cells)
        return replace(found, answer="\n".join(lines), lookups=lookups), 0.0

    def _by_meaning(self, phrase: str, tables, matches):
        """Check the word-matched row against the row nearest in meaning, or find one when words
        found none. Returns the matches (possibly by meaning) and the meaning signals."""
        if matches and matches[0].complete:
            # The question says the row's label word for word: its meaning is not in doubt.
            return matches, {"meaning_agrees": 1.0, "meaning_similarity": 1.0, "meaning_margin": 1.0, "by_meaning": 0.0}, ()
        meanings = self._use_meanings()
        if meanings is None:  # no model yet: the meaning signals are unknown, not zero
            return matches, {}, ()
        named = use_phrase(phrase)
        if not named:  # "where is the Northern Gateway": no word names a use
            return matches, {"meaning_agrees": 0.0, "meaning_similarity": 0.0, "meaning_margin": 0.0, "by_meaning": 0.0}, ()
        ranked = meanings.rank(named, tables, n=len(meanings.descriptions), spans=_use_spans(named, matches))
        if not ranked:
            return matches, {"meaning_agrees": 0.0, "meaning_similarity": 0.0, "meaning_margin": 0.0, "by_meaning": 0.0}, ()
        top = ranked[0]
        second = next((m for m in ranked[1:] if m.row != top.row), None)
        margin = top.similarity - (second.similarity if second else 0.0)
        if matches:
            # Words support several rows about as well ("granny flat ... our house": Accessory dwelling
            # unit, Single-family dwelling); the one nearest in meaning is the one meant.
            similarity = {m.row: m.similarity for m in reversed(ranked)}
            said = set(words_of(phrase)) - STOP

            def own_words(match) -> int:
                return len(set(words_of(match.row)) & said)

            # A row scored a little lower may still be meant when it explains more of the question's
            # own words ("boutique hotel"), never when it only adds words the question lacks ("junior").
            close = [m for m in matches if m.score == matches[0].score
                     or (m.score >= matches[0].score - WORD_TIE and own_words(m) > own_words(matches[0]))]
            if quantity_decides(matches, phrase):  # the stated count or area picked the row of its family
                close = [m for m in close if family(m.row) != family(matches[0].row) or m.row == matches[0].row]
            chosen = max(close, key=lambda m: (similarity.get(m.row, 0.0), -close.index(m)))
            matches = [m for m in matches if m.row == chosen.row] + [m for m in matches if m.row != chosen.row]
        if matches:
            own = next((m.similarity for m in ranked if m.row == matches[0].row), 0.0)
            # Every word of the row's label said, by the question or by its everyday word's label
            # ("restaurant" -> Restaurant, cafe, coffee shop): the row is named, and meaning only
            # measures; a row the words half fit ("workout studio": Broadcasting studio) gives way.
            # So is a family the question names in full ("mixed light cannabis cultivation"): its sizes
            # are its rivals, not a row of another meaning.
            said = set(words_of(phrase)) - STOP
            family_words = set(words_of(family(matches[0].row))) - STOP
            named = ((matches[0].covered >= 1.0 and self._explained(phrase, matches[0].row) >= 0.5)
                     or (len(family_words) >= 2 and family_words <= said))
            if named or top.similarity - own < MEANING_SWITCH or top.similarity < MEANING_FLOOR:
                return matches, {"meaning_agrees": float(top.row == matches[0].row
                                                         or _same_family_sized(top.row, matches, phrase)),
                                 "meaning_similarity": own,
                                 "meaning_margin": _margin(own, ranked, matches[0].row, phrase), "by_meaning": 0.0}, \
                    _near_in_meaning(ranked, matches[0], own, phrase)
            # The words matched a row that means something else ("workout studio" is not a broadcasting
            # studio): the row nearest in meaning answers, and the confidence knows it was found so.
        elif top.similarity < MEANING_FLOOR:
            return [], {}, ()
        near = [m for m in ranked if m.similarity >= top.similarity - MEANING_NEAR]
        candidates = by_quantity([RowMatch(m.table, m.row, m.similarity) for m in near], phrase)
        chosen = candidates[0].row
        same_label = [c for c in candidates if c.row == chosen]
        if quantity_decides(candidates, phrase):
            margin = _margin(candidates[0].score, ranked, chosen, phrase)
        return same_label, {"meaning_agrees": 1.0, "meaning_similarity": top.similarity, "meaning_margin": round(margin, 4),
                            "by_meaning": 1.0}, _near_in_meaning(ranked, same_label[0], same_label[0].score, phrase)

    def _explained(self, phrase: str, row: str) -> float:
        """Share of the words naming the use that the row accounts for: its label's words, the
        everyday words that point to it. "turning our house into a bed & breakfast": "house" names
        Single-family dwelling, but most of what was said is about something else."""
        words = {w for w in words_of(use_phrase(phrase)) if w not in STOP and w not in GENERIC and w not in QUANTITY_WORDS}
        if not words:
            return 1.0
        names = self._name_words.get(row)
        if names is None:  # the same few hundred rows: their names' words are gathered once each
            if self._defined is None:
                self._defined = defined_terms(self.definitions)
            names = self._name_words[row] = frozenset(
                w for name in row_names(row, self._defined, self.vocabulary.everyday_pairs) for w in words_of(name))
        return round(len(words & names) / len(words), 4)

    def _comparable_encoder(self):
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

    def _use_meanings(self):
        if self._meanings is None:
            encoder = self._comparable_encoder()
            if encoder is None:
                return None
            from .meaning import UseMeanings, row_descriptions, row_phrases

            described = row_descriptions(self.tables, self.definitions, self.vocabulary.everyday_pairs)
            self._meanings = UseMeanings(described, lambda texts: encoder.encode(list(texts), batch_size=32),
                                         row_phrases(described, self.definitions, self.vocabulary.everyday_pairs))
        return self._meanings

    def resolve_uses(self, phrase: str, limit: int = 12, floor: float = FINDER_FLOOR) -> list[tuple[str, str]]:
        """(table, row) of the permit-table rows a land-use phrase names, best first: rows its words
        name (with the everyday words of the vocabulary), then rows near it in meaning ("salon" ->
        Personal services). The app's land-use finder uses this, as the answers do."""
        query = understand(phrase, self.vocabulary, self.known_words)
        found = [(m.table, m.row) for m in self.tables.match(query.normalized, synonyms=" ".join(query.land_uses))]
        meanings = self._use_meanings()
        if meanings is not None:
            found += [(m.table, m.row) for m in meanings.rank(use_phrase(query.normalized) or query.normalized, n=limit)
                      if m.similarity >= floor]
        return list(dict.fromkeys(found))[:limit]

    def _apn(self, query: Query) -> Answer:
        holders = [s for s in self.corpus.sections if query.apn in s.text]
        if not holders:
            return compose.abstain(query, self._nearest(query), f"Parcel {query.apn} is not named in these documents.",
                                  corpus=self.corpus)
        # The part that acts on the parcel, not the ordinance title that lists it.
        section = max(holders, key=lambda s: (not s.id.endswith(":PREAMBLE"), s.date, s.document))
        line = _apn_line(section.text, query.apn)
        found = compose.section_answer(query, section, self.corpus, line)
        zoned = _rezoned_to(line, query.apn, self.vocabulary)
        if zoned is None or not (query.land_uses or set(query.topics) & STANDARDS_TOPICS):
            return found
        # "could I build a fourplex on parcel X?": the parcel stands for the district it is zoned,
        # and the rest of the question is answered for that district.
        asked = self._read(APN_PHRASE.sub(f"the {zoned} district", query.text, count=1))
        if asked.apn or zoned not in asked.districts:
            return found
        answered = self._answer(asked)
        if answered.abstained:
            return found
        parcel = f"Parcel {query.apn} is in the {zoned} district: {line}"
        lines = answered.answer.split("\n")
        lines.insert(1, parcel)
        citations = (*answered.citations, *found.citations)
        lines[-1] = compose.source_line(list(citations), self.corpus) if lines[-1].startswith("Source:") else lines[-1]
        interpretation = interpretation_of(asked, answered, self.vocabulary)
        for district in interpretation["districts"]:
            district["words"] = f"parcel {query.apn}"  # the question named the parcel, not the district
        return replace(answered, question=query.text, answer="\n".join(lines), citations=citations,
                       interpretation=interpretation)

    def _table_section(self, table: str):
        pattern = re.compile(rf"^Tables?\s+{re.escape(table)}\b", re.M)
        holders = [s for s in self.corpus.sections if s.kind == "code" and pattern.search(s.text)]
        return max(holders, key=lambda s: (s.date, s.document)) if holders else None

    def _passages(self, query: Query) -> Answer:
        hits = self._hits(query.corrected or query.text, 8)
        preferred = {s for topic in query.topics for s in self.vocabulary.topics[topic][1]}
        ranked = sorted(hits, key=lambda h: (h.section not in preferred, h.rank))
        # Table-row chunks are text made from cells for retrieval: quotes come from the documents.
        supported = [h for h in ranked if (h.bm25_rank is not None or h.direct) and h.chunk.kind == "section"]
        if query.districts:
            # A question about a district is answered only by text that speaks of that district.
            supported = [h for h in supported if self._mentions_district(h.text, query.districts)]
        if not supported:  # the hits already fetched are the nearest sections: no second search
            return compose.abstain(query, list(dict.fromkeys(hit.section for hit in hits[:5]))[:3], corpus=self.corpus)
        chosen = [self._whole_section(hit) for hit in _distinct_sections(supported)[:4]]
        return compose.passage_answer(query, chosen, self.corpus,
                                      self._sentence_meaning(query.corrected or query.text, chosen))

    def _whole_section(self, hit):
        """The hit with its section's every part: a long section is split for retrieval, and the
        sentence that answers may sit in another part than the one the search ranked first."""
        if hit.chunk.parts <= 1:
            return hit
        parts = self._section_parts().get((hit.chunk.document, hit.section), ())
        if len(parts) <= 1:
            return hit
        return replace(hit, chunk=replace(hit.chunk, text="\n".join(part.text for part in parts)))

    def _section_parts(self) -> dict:
        if self._parts_by_section is None:
            found: dict = {}
            for chunk in self.searcher.chunks:
                if chunk.kind == "section":
                    found.setdefault((chunk.document, chunk.section), []).append(chunk)
            self._parts_by_section = {key: tuple(sorted(chunks, key=lambda c: c.part)) for key, chunks in found.items()}
        return self._parts_by_section

    def _sentence_meaning(self, question: str, hits) -> dict[str, float] | None:
        """Closeness in meaning of each sentence of the hits to the question; None without a model."""
        vectors = self._sentence_vectors()
        if vectors is None:
            return None
        from .passages import split_sentences

        query_vector = self.searcher.query_vector(question)  # the vector the search just computed
        return vectors.similarities(query_vector, (s for hit in hits for _, s in split_sentences(hit.text)))

    def _sentence_vectors(self):
        if self._sentences is None:
            encoder = self._comparable_encoder()
            if encoder is None:
                return None
            searcher = self.searcher
            from .sentences import corpus_sentences, load_or_build

            texts = [chunk.text for chunk in searcher.chunks if chunk.kind == "section"]
            self._sentences = load_or_build(getattr(searcher, "path", None), encoder.model_id, corpus_sentences(texts),
                                            lambda batch: encoder.encode(list(batch), batch_size=64))
        return self._sentences

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
        return list(dict.fromkeys(hit.section for hit in self._hits(query.corrected or query.text, 5)))[:3]


def _near_in_meaning(ranked, chosen, similarity: float, phrase: str) -> tuple:
    """Rows of the chosen row's table about as near in meaning (within MEANING_NEAR), save the
    sizes of its family that the question's count or area rules out."""
    sized = quantity_decides([chosen], phrase)
    return tuple(RowMatch(m.table, m.row, m.similarity) for m in ranked
                 if m.table == chosen.table and m.row != chosen.row and m.similarity >= similarity - MEANING_NEAR
                 and not (sized and family(m.row) == family(chosen.row)))


def _rivals(best, matches, near, phrase: str, labels: str = "") -> list:
    """Rows of the best row's table that the question fits just as well: the same word score, or
    (with the model) as near in meaning. ``labels``: the table labels the question's everyday words
    stand for ("granny unit": accessory dwelling unit)."""
    sized = quantity_decides(matches, phrase)
    said = set(words_of(f"{phrase} {labels}")) - STOP
    best_words = set(words_of(best.row)) - STOP
    best_said = best_words & said

    def fits_as_well(m) -> bool:
        # The same score, or the same words of the question explain it while neither label is said in
        # full ("drive-through": Drive-through retail and Drive-through service; only the labels'
        # lengths scored them apart). A label said in full ("granny unit": Accessory dwelling unit) is
        # not doubted by a longer one (Junior accessory dwelling unit).
        return m.score >= best.score or bool(best_said) and best_said < best_words and set(words_of(m.row)) & said == best_said

    tied = [m for m in matches[1:] if m.table == best.table and m.row != best.row and fits_as_well(m)
            and not (sized and family(m.row) == family(best.row))
            and (m.complete or not best.complete)]  # a row named outright is doubted only by another such row
    out = {m.row: m for m in [*tied, *near] if m.row != best.row}
    return list(out.values())


def _margin(similarity: float, ranked, row: str, phrase: str) -> float:
    """How much nearer in meaning ``row`` is than the next row; when the question's count or area
    chose ``row`` within its family, that family's other sizes are no rivals."""
    sized = quantity_decides([RowMatch("", row, 0.0)], phrase)
    rivals = (m.similarity for m in ranked if m.row != row and not (sized and family(m.row) == family(row)))
    return round(similarity - max(rivals, default=0.0), 4)


def _same_family_sized(row: str, matches, phrase: str) -> bool:
    """The row nearest in meaning is a size of the chosen row's family, and the stated quantity chose."""
    return quantity_decides(matches, phrase) and family(row) == family(matches[0].row)


LONG_PHRASE = 6  # content words: a longer question is compared by the words around its use as well
SPAN_CONTEXT = 2  # words kept on each side of the words that named the row


def _use_spans(named: str, matches) -> tuple[str, ...]:
    """In a long, rambling question ("looking at a space on Commerce Ave for a daycare center. the old
    table I found ..."), the words around those that matched the best row's label: what names the use.
    Every other word of a long question pulls its meaning away from any row."""
    words = named.split()
    if not matches or len(words) <= LONG_PHRASE:
        return ()
    label = set(words_of(matches[0].row)) - STOP
    anchors = [i for i, word in enumerate(words) if set(words_of(word)) & label]
    if not anchors:
        return ()
    span = words[max(0, anchors[0] - SPAN_CONTEXT): anchors[-1] + SPAN_CONTEXT + 1]
    return (" ".join(span),) if len(span) < len(words) else ()


def use_phrase(phrase: str) -> str:
    """The words of a permit question that name the use: what is compared by meaning. The asking
    words ("can I", "need a permit", "ok?") say nothing about which use is meant."""
    words = [w for w in re.findall(r"[a-z0-9][a-z0-9'-]*", phrase.lower())
             if w not in STOP and w not in ASKING_WORDS and not w.isdigit()]
    return " ".join(words)


def _readable(lookups) -> float:
    """Share of the cells used that hold a value read with confidence (by the parser, or by a
    reviewed reading of the printed table)."""
    if not lookups:
        return 0.0
    return sum(1 for cell in lookups if cell.get("value") and (not cell.get("review") or cell.get("reviewed"))) / len(lookups)


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


def _clip_sentences(text: str, limit: int = 700) -> str:
    """The text up to the last whole sentence within ``limit`` characters."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return cut[: end + 1] if end > 0 else _clip(text, limit)


def _clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _apn_line(text: str, apn: str) -> str:
    """The paragraph that names the parcel (sentences would split at "Commercial E.")."""
    line = next((line for line in text.split("\n") if apn in line), text.split("\n")[0])
    return line if len(line) <= 400 else line[:399].rsplit(" ", 1)[0] + "…"


# A parcel named by its assessor's number, with the words that introduce it ("APN", "parcel", "lot").
APN_PHRASE = re.compile(r"(?:\b(?:assessor(?:'s)? parcel(?: number)?|apn|parcel(?: number| no\.?)?|lot)\s*(?:\(apn\)\s*)?(?:#\s*)?)?"
                        r"\b\d{3}-\d{3}-\d{3}\b", re.I)
# "APN 144-720-061 is rezoned from the ... (CE) Zoning District to the ... (NM) Zoning District."
REZONED_TO = re.compile(r"\brezoned? (?:from\b.*?)?\bto the [^()]*?\(([A-Z]{2,4}(?:-[\d.]+)?)\) zoning district", re.I)


def _rezoned_to(line: str, apn: str, vocabulary) -> str | None:
    """The district the passage that names the parcel rezones it to; None when it says none."""
    sentence = line[line.find(apn):] if apn in line else line
    match = REZONED_TO.search(sentence)
    if match is None or vocabulary.district(match.group(1).upper()) is None:
        return None
    return match.group(1).upper()


def _one_per_table(matches, best, every_table: bool = False):
    """The best row of each table: as good as the best overall, or (``every_table``) the best a
    table has, when a district of that table was named."""
    chosen = {}
    for match in matches:
        if (every_table or match.score >= best.score) and match.table not in chosen:
            chosen[match.table] = match
    return list(chosen.values())


def _join_answers(query: Query, answers: list[Answer], corpus) -> Answer | None:
    if not answers:
        return None
    if len(answers) == 1:
        return answers[0]
    lookups = tuple(cell for a in answers for cell in a.lookups)
    # One direct answer across the tables: each row with its districts grouped by what they require.
    rows = list(dict.fromkeys((cell["row"], cell.get("category", "")) for cell in lookups))
    first = " ".join(
        f"{compose.display_row(row, category)}: " + "; ".join(compose.grouped_codes(
            (c["value"], c["column"]) for c in lookups if (c["row"], c.get("category", "")) == (row, category))) + "."
        for row, category in rows)
    body = list(dict.fromkeys(line for a in answers for line in a.answer.split("\n")[1:] if not line.startswith("Source:")))
    citations = tuple({(c.section, c.document, c.table): c for a in answers for c in a.citations}.values())
    body.append(compose.source_line(list(citations), corpus))
    return Answer(question=query.text, answer="\n".join([first] + body), abstained=False,
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
                   calibrated: bool = True, as_of: str | None = None) -> Assistant:
    """Read the corpus and tables once; the search index opens on first use (built if missing).
    ``as_of`` (ISO date): only documents dated on or before it are read, sections and tables alike.
    ``calibrated``: apply the confidence model and threshold fitted on dev (data/calibration.json)."""
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
    return Assistant(corpus, PermitTables(table_set.effective), open_searcher, StandardsTables(table_set.effective),
                     calibration)
