"""The chooser: asks the routes in order, never gives a candidate whose answer type is not the type
the question asked for, and decides between answering, asking to clarify and declining.

It also reads a question in its context: a follow-up ("what about in NL?") takes the rest from
the previous question, a two-part question is answered part by part, and a parcel is answered as
the district it is zoned. The calibrated confidence (fitted on dev) declines answers below its
threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from importlib import import_module

from . import answer_type, choose, compose, dialogue, premise
from . import confidence as confidence_mod
from .interpretation import interpretation_of, read_as_line
from .resources import Resources
from .routes import absent, parcel, standards
from .routes import bank as bank_route
from .routes import registry as route_registry
from .types import Answer, Candidate, Query, SearchUnavailable


def _resolved(group: str) -> tuple:
    """The proposing functions of one group of the registry, in its order."""
    found = []
    for proposer in route_registry.proposers(group):
        module, function = proposer.path.split(".")
        found.append(getattr(import_module(f"{__package__}.routes.{module}"), function))
    return tuple(found)


# The routes in the order they are asked (declared once, with their names and signals, in
# assistant/routes/registry.py); the first that proposes a candidate decides while the ranker is off.
# The standards route and those after it read a "who ..." question with a verb of deciding as asking
# who decides (standards.deciding_reading); those before it read the question as asked.
ROUTES = _resolved(route_registry.FIRST)
ROUTES_DECIDING = _resolved(route_registry.DECIDING)
# Routes that only propose to the ranker (issue 44): the hand order (``routed``, used while the ranker is
# off) never asks them, so adding one changes no answer until the ranker is refitted with its candidates.
ROUTES_RANKED = _resolved(route_registry.RANKED)


def answer(text: str, history: Sequence, res: Resources) -> Answer:
    """The answer to a valid question, read in the context of ``history`` (earlier questions or
    (question, answer) turns, oldest first)."""
    query = res.read(text)
    clarified = clarify(query, res)
    if clarified is not None:
        return clarified
    parts = dialogue.split_questions(text, res.read)
    if parts:
        return compound(text, parts, res)
    own = query
    query, previous = dialogue.with_previous(query, history, res.read)
    if previous and dialogue.names_only_a_district(own):
        query = replace(query, carried_rows=_rows_answered(previous, res))
    bare = None if previous else absent.bare_district(query, res)
    if bare is not None:
        return replace(bare, interpretation=interpretation_of(query, bare, res.vocabulary))
    answered = decided(query, res, previous)
    return replace(answered, question=text) if previous else answered


def decided(query: Query, res: Resources, previous: str = "") -> Answer:
    """The answer to one understood question: ranked when a fitted ranker is loaded (``choose``), the
    index's model is the one it was fitted with (its similarities mean what they meant then) and the
    search is open (the bank's votes and retrieval are features), else the first route's candidate of
    the type asked, calibrated (the hand order: a table's cell answers while the index is building)."""
    if res.ranker is None or not res.ranker_applies() or not _search_open(res):
        return calibrated(query, interpreted(query, routed(query, res), res, previous), res)
    return ranked(query, res, previous)


def _search_open(res: Resources) -> bool:
    try:
        res.searcher
    except SearchUnavailable:
        return False
    return True


def candidates(query: Query, res: Resources) -> list[Candidate]:
    """Every candidate every route proposes, and the question bank's: none decides. A route that
    needs the search while it is unavailable (the index is being built) proposes nothing."""
    found: list[Candidate] = []
    deciding = standards.deciding_reading(query)
    settings = res.settings  # the ranker's recorded numbers, else the record's own (built once)
    proposers = [(route, query) for route in ROUTES] + [(route, deciding) for route in ROUTES_DECIDING]
    proposers += [(route, query) for route in ROUTES_RANKED]
    proposers.append((lambda q, r: bank_route.candidates(q, r, settings.bank_k, settings.bank_units), query))
    for route, asked in proposers:
        try:
            found.extend(route(asked, res))
        except SearchUnavailable:
            continue
    return one_per_answer(found)


def one_per_answer(found: list[Candidate]) -> list[Candidate]:
    """Two routes proposing the same answer (the passage routes, a route and the bank) are one candidate with both
    proposers' signals; and the bank's copy of an answer a route gives from the same table cells (the copy omits who
    decides) joins each route candidate reading them, whatever order they were proposed in."""
    unique: dict[tuple, Candidate] = {}
    for candidate in found:
        key = (candidate.answer.route, candidate.answer.answer, candidate.answer.abstained)
        kept = unique.get(key)
        unique[key] = candidate if kept is None else _merged(kept, candidate)
    read = {id(c): (c.answer.route, _cells(c)) for c in unique.values()}  # (route, cells) of each, read once
    readers = {read[id(c)] for c in unique.values() if read[id(c)][1] and not _from_bank(c)}
    copies: dict[tuple, list[Candidate]] = {}
    for candidate in unique.values():
        if _from_bank(candidate) and read[id(candidate)] in readers:
            copies.setdefault(read[id(candidate)], []).append(candidate)
    joined = []
    for candidate in unique.values():
        if _from_bank(candidate):
            if read[id(candidate)] not in copies:
                joined.append(candidate)
            continue  # else joined to each route candidate reading the same cells
        for copy in sorted(copies.get(read[id(candidate)], []), key=lambda c: c.answer.answer):
            candidate = _merged(candidate, copy)
        joined.append(candidate)
    return joined


def _from_bank(candidate: Candidate) -> bool:
    """Proposed by the question bank alone (not also by a route, word for word)."""
    return "bank_similarity" in candidate.answer.signals and "route_too" not in candidate.answer.signals


def _cells(candidate: Candidate) -> tuple:
    """The table cells an answer reads, as (table, row, column, value) in order; () when it reads none."""
    return tuple((c.get("table"), c.get("row"), c.get("column"), c.get("value")) for c in candidate.answer.lookups
                 if isinstance(c, dict))


def _merged(kept: Candidate, other: Candidate) -> Candidate:
    """One candidate with both proposers' signals (a route's answer the bank also proposed)."""
    signals = {**kept.answer.signals, **other.answer.signals}
    if ("bank_similarity" in kept.answer.signals) != ("bank_similarity" in other.answer.signals):
        signals["route_too"] = 1.0  # a route proposed it as well as the bank
    interpretation = {**kept.answer.interpretation, **other.answer.interpretation}
    return replace(kept, answer=replace(kept.answer, signals=signals, interpretation=interpretation))


def scored(query: Query, res: Resources) -> tuple[list[tuple[dict, Candidate]], list[Candidate]]:
    """(features, candidate) of every admissible answer candidate, and the routes' reasoned declines."""
    if res.declined(query):
        try:
            nearest = res.nearest(query)  # a decline still names where the code comes closest
        except SearchUnavailable:
            nearest = []
        return [], [Candidate("decline", compose.abstain(query, nearest, corpus=res.corpus))]
    missing = absent.said(query, res)
    if missing is not None:
        return [], [Candidate("decline", missing)]
    settings = res.settings  # the ranker's recorded numbers, else the record's own (built once)
    asked = query.asked
    found = candidates(query, res)
    answers = [c for c in found if not c.answer.abstained and choose.admissible(c, asked, query.ranks)]
    declines = [c for c in found if c.answer.abstained]
    votes = res.bank_votes(query, settings.bank_k)
    try:
        hit_sections = [h.section for h in res.hits(query.corrected or query.text, settings.hits_k)]
    except SearchUnavailable:
        hit_sections = []
    unloaded = choose.names_unloaded(query, res.corpus)
    return [(choose.features(c, asked, votes, hit_sections, answers, query, unloaded), c) for c in answers], declines


def ranked(query: Query, res: Resources, previous: str = "") -> Answer:
    """The best-scored candidate when it clears the operating point; else the decline, with the
    nearest passages (and a route's own reason for declining, when one gave it)."""
    ranker = res.ranker
    pairs, declines = scored(query, res)
    best = sorted(((ranker.probability(f), c) for f, c in pairs), key=choose.order_key)
    threshold, how_sure, read = ranker.settings.threshold, ranker.how_sure, {}
    verifier = res.verifier if best else None
    if verifier is not None:  # the verifier reads the best few; the second stage's point decides
        rescored = choose.verified(best, query.text, verifier, ranker)
        read = {id(c): v for _, c, v in rescored}
        best = [(p, c) for p, c, _ in rescored]
        threshold, how_sure = ranker.head.threshold, ranker.head.how_sure
    if best and best[0][0] >= threshold:
        probability, chosen = best[0]
        answer_ = interpreted(query, _given(query, chosen, res), res, previous)
        signals = {**answer_.signals, "ranker": probability,
                   **({"verifier": read[id(chosen)]} if id(chosen) in read else {})}
        return replace(answer_, confidence=probability, signals=signals, how_sure=how_sure(probability),
                       interpretation={**answer_.interpretation, "settings": ranker.settings.digest()})
    if declines and not best:
        reason = min(declines, key=lambda c: (c.answer.route, c.answer.answer)).answer
        return interpreted(query, reason, res, previous)
    cited = [s for _, c in best[:1] for s in sorted(choose.sections_of(c))]
    try:
        nearest = list(dict.fromkeys(cited + res.nearest(query)))[:choose.TUNED.nearest_sections]
    except SearchUnavailable:
        nearest = cited[:choose.TUNED.nearest_sections]
    declined = compose.abstain(query, nearest, corpus=res.corpus, first=compose.UNSURE_LINE)
    confidence = best[0][0] if best else None
    return interpreted(query, replace(declined, confidence=confidence), res, previous)


def _rows_answered(previous: str, res: Resources) -> tuple[str, ...]:
    """The permit-table rows the previous question was answered from (none if it was not): answered as it
    was shown, by the one decider (the hand order re-answered it and could carry another row)."""
    answered = decided(res.read(previous), res)
    if answered.abstained or answered.route != "permit":
        return ()
    return tuple(dict.fromkeys(cell["row"] for cell in answered.lookups))


def routed(query: Query, res: Resources) -> Answer:
    """The first route's candidate of the answer type asked. A route whose candidates are all of
    another type gives way to the routes after it; when none gives the type asked, the question is
    declined, saying what was asked and what the first route found."""
    if res.declined(query):
        return compose.abstain(query, res.nearest(query), corpus=res.corpus)
    missing = absent.said(query, res)
    if missing is not None:
        return missing
    asked = query.asked
    first_mismatch: Candidate | None = None
    for routes in (ROUTES, ROUTES_DECIDING):
        if routes is ROUTES_DECIDING:
            query = standards.deciding_reading(query)
        for route in routes:
            found = route(query, res)
            fitting = [c for c in found if answer_type.answers(asked, c.answer_type)]
            if fitting:
                return _given(query, fitting[0], res)
            first_mismatch = first_mismatch or (found[0] if found else None)
    if first_mismatch is not None:
        return mismatched(query, first_mismatch, asked, res)
    return compose.abstain(query, res.nearest(query), corpus=res.corpus)


def given_by_route(query: Query, found: list[Candidate], asked: str, res: Resources) -> Answer:
    """What one route's candidates give: the first of the type asked, or the decline that names
    the type asked and the type found (the chooser then tries the routes after it)."""
    fitting = [c for c in found if answer_type.answers(asked, c.answer_type)]
    return _given(query, fitting[0], res) if fitting else mismatched(query, found[0], asked, res)


def _given(query: Query, chosen: Candidate, res: Resources) -> Answer:
    """The chosen candidate's answer (a parcel's follow-up answered and joined), led by whether the
    asker's premise holds when the question asserts one (premise.lead)."""
    if chosen.follow is not None:
        answered = routed(chosen.follow, res)
        if not answered.abstained:
            return parcel.joined(query, chosen.answer, chosen.follow, answered, res)
    judged = premise.lead(query.claim, chosen.answer.lookups, query.districts) if query.claim else ""
    return replace(chosen.answer, answer=f"{judged} {chosen.answer.answer}") if judged else chosen.answer


def mismatched(query: Query, candidate: Candidate, asked: str, res: Resources) -> Answer:
    """The decline of a candidate whose answer type is not the type asked, naming both."""
    given = answer_type.DESCRIBED.get(candidate.answer_type, candidate.answer_type)
    reason = f"The question asks for {answer_type.DESCRIBED.get(asked, asked)}; the nearest answer found gives {given}."
    nearest = list(dict.fromkeys([c.section for c in candidate.answer.citations] + res.nearest(query)))[:choose.TUNED.nearest_sections]
    declined = compose.abstain(query, nearest, reason, corpus=res.corpus, first=compose.UNSURE_LINE)
    return replace(declined, signals={"type_mismatch": 1.0})


def clarify(query: Query, res: Resources) -> Answer | None:
    """A question too open to answer ("is it legal?") gets the questions it may mean, one click each."""
    options = dialogue.clarifying_options(query, res.vocabulary)
    if options is None:
        return None
    first, choices = options
    lines = [first, *(f"- {choice}" for choice in choices),
             "These documents cover the City of Cotati's zoning code, not state law."]
    return Answer(question=query.text, answer="\n".join(lines), abstained=True, route="clarify", clarify=choices,
                  interpretation=interpretation_of(query, Answer(query.text, "", True), res.vocabulary))


def compound(text: str, parts: list[Query], res: Resources) -> Answer:
    """Each part answered on its own; the answerable part is given, the other named as not answered."""
    answers = [decided(q, res) for q in parts]
    given = [(q, a) for q, a in zip(parts, answers) if not a.abstained]
    if not given:
        return replace(answers[0], question=text)
    lines = [" ".join(a.first_line for _, a in given)]
    for number, (q, a) in enumerate(zip(parts, answers), 1):
        if a.abstained:
            # The part declined still points somewhere: its nearest section, as a decline of its own would.
            nearest = "; ".join(compose.section_label(s, res.corpus) for s in a.nearest[:1])
            lines.append(f"Part {number} (\"{q.text}\") is not answered: the code documents here do not clearly answer it."
                         + (f" Nearest: {nearest}." if nearest else ""))
        else:
            lines.append(f"Part {number} (\"{q.text}\"):")
            lines.extend(line for line in a.answer.split("\n")[1:] if not line.startswith("Source:"))
    citations = tuple({(c.section, c.document, c.table): c for _, a in given for c in a.citations}.values())
    lines.append(compose.source_line(list(citations), res.corpus))
    confidences = [a.confidence for _, a in given if a.confidence is not None]
    return Answer(question=text, answer="\n".join(lines), abstained=False, citations=citations,
                  lookups=tuple(cell for _, a in given for cell in a.lookups), route="compound",
                  confidence=min(confidences) if confidences else None,
                  interpretation={"parts": [a.interpretation for a in answers]},
                  nearest=tuple(s for a in answers if a.abstained for s in a.nearest))


def calibrated(query: Query, answer_: Answer, res: Resources) -> Answer:
    """Confidence from the route's signals; below the fitted threshold the answer is declined."""
    if answer_.abstained:
        return answer_
    signals = answer_.signals
    if set(signals) & confidence_mod.MODEL_SIGNALS and not res.model_comparable():
        # Measured with another model (or none): unknown to the fitted model, so its dev average.
        signals = {k: v for k, v in signals.items() if k not in confidence_mod.MODEL_SIGNALS}
    confidence = res.calibration.confidence(answer_.route, signals)
    if confidence is None:
        return answer_
    if confidence < res.calibration.threshold:
        cited = [c.section for c in answer_.citations]
        # A table cell's nearest section is its table's: no search is opened for it (it may be building).
        nearest = list(dict.fromkeys(cited + ([] if answer_.lookups and cited else res.nearest(query))))[:choose.TUNED.nearest_sections]
        declined = compose.abstain(query, nearest, corpus=res.corpus, first=compose.UNSURE_LINE)
        return replace(declined, confidence=confidence, interpretation=answer_.interpretation, signals=answer_.signals)
    return replace(answer_, confidence=confidence, how_sure=res.calibration.how_sure(confidence))


def interpreted(query: Query, answer_: Answer, res: Resources, previous: str = "") -> Answer:
    """The answer with what the question was read as (JSON) and one "Read as:" line."""
    # A route that answered another reading of the question (a parcel read as its district) says so itself.
    interpretation = answer_.interpretation or interpretation_of(query, answer_, res.vocabulary)
    if previous:
        interpretation["from_previous_question"] = previous
    if answer_.abstained or answer_.route in ("invalid",):
        return replace(answer_, interpretation=interpretation)
    line = read_as_line(interpretation)
    if line and previous:
        line += " (from your previous question)"
    lines = answer_.answer.split("\n")
    if line:
        lines.insert(1, line)
    return replace(answer_, answer="\n".join(lines), interpretation=interpretation)
