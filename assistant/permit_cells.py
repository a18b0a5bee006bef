"""Reading the permit tables for a question: the permit-table row it names (by its words, or nearest
in meaning) and the effective cell of each district asked about (``answer``). The permit route proposes
this answer; the comparison route reads the same cells with its own words taken out; the decline's
closest passage, the app's land-use finder (``resolve_uses``) and the standards route (``ASKING_WORDS``,
``district_words``) read a use's words here too. Routes import this module, never each other."""

from __future__ import annotations

import re
from dataclasses import replace

from . import answer_type, compose, home
from .meaning import defined_terms, row_names
from .permits import (GENERIC, QUANTITY_WORDS, STOP, RowMatch, by_quantity, contradicted, family, quantity_decides,
                       words_beside, words_of)
from .resources import PERMIT_TOPICS, STANDARDS_TOPICS, Resources, readable
from .standards import authority_entries
from .types import Answer, Query
from .understand import district_names_in

# Words of a permit question that ask rather than name the use (general English).
ASKING_WORDS = frozenset("ok okay allowed allow allows permit permits permitted need needed needs require required requires "
                         "requirement requirements approval approve build open opening run running start put want wanted like "
                         "could would should get may might must let lets able legal legally zoned zoning zone zones district "
                         "districts area city cotati code rules rule my our we us you your yes no".split())
NO_MEANING = {"meaning_agrees": 0.0, "meaning_similarity": 0.0, "meaning_margin": 0.0, "by_meaning": 0.0}


def _asks_a_permit(query: Query) -> bool:
    asks = query.detected
    if asks in answer_type.QUANTITIES:
        return False  # "how many chickens", "what hours": a permit code does not state a quantity
    if set(query.topics) & STANDARDS_TOPICS and asks != "yes_no":
        return False  # "how tall can I build" asks for a standard, not a permit
    # A use named without a district or an "is it allowed" question is asked about
    # something else (its procedure, its definition): passages answer that.
    return bool(set(query.topics) & PERMIT_TOPICS or query.districts)


def _use_text(query: Query, res: Resources) -> str:
    """The question without the words that named its districts (not "ig" in "light")."""
    phrase = query.normalized
    for word in (*query.district_words, *district_names_in(query.normalized, res.vocabulary)):
        phrase = re.sub(rf"(?<![a-z0-9]){re.escape(word.lower())}(?![a-z0-9])", " ", phrase)
    return phrase


def _word_matches(query: Query, res: Resources, phrase: str, tables) -> list:
    matches = res.tables.match(phrase, tables, synonyms=" ".join(query.land_uses))
    if query.land_uses:
        # An everyday word named the use: the row must be that use, or the question's own
        # words must name the row outright. A wrong row is worse than no answer.
        required = [set(words_of(target)) - STOP - GENERIC for target in query.land_uses]
        matches = [m for m in matches if m.complete or any(r and r <= set(words_of(m.row)) for r in required)]
    return matches


def answer(query: Query, res: Resources) -> Answer | None:
    """The cells of the row the question names for each district asked, with the signals of how surely
    the row is the one meant; None when the question asks no permit or names no row."""
    if query.carried_rows:
        return _carried(query, res)
    if not _asks_a_permit(query):
        return None
    phrase = _use_text(query, res)
    districts = list(query.districts)
    tables = sorted({t for d in districts for t in res.tables.tables_for(d)}) or None
    matches, meant, near = rows_named(query, res, phrase, tables)
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
        "row_explained": _explained(res, phrase, best.row),
        "question_unexplained": _unexplained(query, res, best.row),
        "row_own": best.own, "row_complete": float(best.complete), "row_covered": best.covered,
        "by_everyday_word": float(bool(query.land_uses)),
        "row_margin": min(1.0, best.score - (runner.score if runner else 0.0)), "districts_named": float(bool(districts)),
        **meant,
    }
    answered = _cells(query, res, matches, best, districts)
    if answered is None:
        return None
    found, covered = answered
    found, doubt = _with_rivals(query, res, found, rivals, districts)
    if doubt and meant.get("by_meaning") and meant.get("meaning_margin", 1.0) < res.settings.permit_meaning_tie:
        return None  # no word named the row, its meaning ties with another row's, and their cells differ
    return replace(found, signals={**signals, "cell_readable": readable(found.lookups), "districts_covered": covered,
                                   "row_doubt": doubt, "deferred_unexplained": deferred_unexplained(signals, found.lookups)})


def rows_named(query: Query, res: Resources, phrase: str | None = None, tables=None):
    """The permit-table rows the question names, as the answers read it: rows its words or everyday words name,
    checked against (or, when none, found by) meaning, then the question's own details (a count, "at home")
    choosing among them. Returns (matches, the meaning signals, rows near in meaning); ([], {}, ()) when no row
    is named. The one reading of a use's words: answers, the land-use finder (``resolve_uses``) and a
    decline's closest passage (``assistant.closest``) all read rows here."""
    phrase = _use_text(query, res) if phrase is None else phrase
    matches = _word_matches(query, res, phrase, tables)
    if set(query.topics) & STANDARDS_TOPICS and not matches:
        return [], {}, ()  # "can I build 3 stories?": a yes/no about a standard, unless words name a use
    matches, meant, near = _by_meaning(res, phrase, tables, matches)
    matches, near = _as_the_question_says(query, phrase, matches, near)
    return matches, meant, near


def deferred_unexplained(signals: dict, lookups) -> float:
    """What the question says beyond the row, its cells and the districts (``question_unexplained``)
    when every cell used is S, whose permit the specific use regulations set: such a cell answers
    "is it allowed, and how?" and nothing more ("does a cell tower need a stealth design?", "can it
    be taller in PF?"); 0 when a cell states a permit of its own."""
    if not lookups or any(str(cell.get("value", "")).strip() != "S" for cell in lookups):
        return 0.0
    return float(signals.get("question_unexplained", 0.0))


def _carried(query: Query, res: Resources) -> Answer | None:
    """A follow-up naming only a district: the previous question's rows, in the tables of the
    districts now asked. A row those tables do not list is said to be unlisted, not read anew."""
    districts = list(query.districts)
    tables = {t for d in districts for t in res.tables.tables_for(d)}
    matches = [RowMatch(t, row, 1.0, 1.0, True, 1.0) for row in query.carried_rows for t in sorted(tables)
               if row in res.tables.rows.get(t, [])]
    if not matches:
        return _unlisted(query, res, tables)
    answered = _cells(query, res, matches, matches[0], districts)
    if answered is None:
        return None
    found, covered = answered
    return replace(found, signals={"row_explained": 1.0, "row_own": 1.0, "row_complete": 1.0, "row_covered": 1.0,
                                   "by_everyday_word": 0.0, "row_margin": 1.0, "districts_named": 1.0,
                                   "meaning_agrees": 1.0, "meaning_similarity": 1.0, "meaning_margin": 1.0,
                                   "by_meaning": 0.0, "cell_readable": readable(found.lookups),
                                   "districts_covered": covered, "row_doubt": 0.0})


def _unlisted(query: Query, res: Resources, tables) -> Answer:
    rows = ", ".join(query.carried_rows)
    main = sorted(t for t in tables if " " not in t)  # "2-2", not its cannabis part "2-2 cannabis"
    where = f" (Table {', '.join(main)})" if main else ""
    first = (f"{rows} (from your previous question) is not a use the permit table{where} lists for "
             f"{', '.join(query.districts)}, so the tables do not say whether it is allowed there.")
    return compose.abstain(query, ["17.22.020"], corpus=res.corpus, first=first)


def _as_the_question_says(query: Query, phrase: str, matches, near):
    """The question's own details choose among the rows: a row whose printed limits the stated
    count or area contradicts is never chosen (nor offered as a rival), and home-based wording keeps
    the home rows when there are any ("out of my house": a family day care home, not a day care center)."""
    matches = home.home_rows_preferred([m for m in matches if not contradicted(m.row, phrase)], query.text)
    return matches, tuple(m for m in near if not contradicted(m.row, phrase))


def _cells(query: Query, res: Resources, matches, best, districts) -> tuple[Answer, float] | None:
    """The answer from the chosen rows' cells, and the share of the districts asked it covers."""
    if not districts:
        # A row printed in several tables: answer from each, joined.
        parts = [compose.permit_answer(query, res.tables, m, [], res.corpus) for m in _one_per_table(matches, best)]
        found = _join_answers(query, [p for p in parts if p is not None], res.corpus)
        return (found, 1.0) if found is not None else None
    # Every district named is answered from its own table's best row: none is dropped.
    parts, answered = [], []
    for match in _one_per_table(matches, best, every_table=True):
        here = [d for d in districts if d in res.tables.columns[match.table] and d not in answered]
        if here:
            answered += here
            parts.append(compose.permit_answer(query, res.tables, match, here, res.corpus,
                                               authority=lambda code: authority_entries(res.standards, code)))
    if best.table not in {m.table for m in _one_per_table(matches, best, every_table=True)
                          if any(d in res.tables.columns[m.table] for d in districts)}:
        return None  # the best row is in a table of other districts: not the use asked about
    found = _join_answers(query, [p for p in parts if p is not None], res.corpus)
    return (found, len(answered) / len(districts)) if found is not None else None


def _with_rivals(query: Query, res: Resources, found: Answer, rivals, districts) -> tuple[Answer, float]:
    """Rows the question fits as well as the chosen one ("drive-thru": Drive-through retail and
    Drive-through service) matter only when their cells say something else. When every one says
    the same for the districts asked, the answer holds either way and shows each row; when one
    differs, the answer stays as it is and the doubt is a signal (1.0) of the confidence."""
    if not rivals:
        return found, 0.0
    said = {(cell["column"], cell["value"]) for cell in found.lookups}
    shown = []
    for rival in rivals:
        columns = districts or res.tables.columns[rival.table]
        cells = [res.tables.cell(rival.table, rival.row, d) for d in columns]
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


# -- rows by meaning -----------------------------------------------------------------------------------
def _by_meaning(res: Resources, phrase: str, tables, matches):
    """Check the word-matched row against the row nearest in meaning, or find one when words
    found none. Returns the matches (possibly by meaning), the meaning signals and the rows near
    in meaning."""
    if matches and matches[0].complete:
        # The question says the row's label word for word: its meaning is not in doubt.
        return matches, {"meaning_agrees": 1.0, "meaning_similarity": 1.0, "meaning_margin": 1.0, "by_meaning": 0.0}, ()
    meanings = use_meanings(res)
    if meanings is None:  # no model yet: the meaning signals are unknown, not zero
        return matches, {}, ()
    named = use_phrase(phrase)
    if not named:  # "where is the Northern Gateway": no word names a use
        return matches, dict(NO_MEANING), ()
    settings = res.settings
    ranked = meanings.rank(named, tables, n=len(meanings.descriptions), spans=_use_spans(named, matches, settings))
    if not ranked:
        return matches, dict(NO_MEANING), ()
    top = ranked[0]
    if matches:
        matches = _nearest_of_the_words(phrase, matches, ranked, settings)
        kept = _word_row_kept(res, phrase, matches, ranked)
        if kept is not None:
            return kept
        # The words matched a row that means something else ("workout studio" is not a broadcasting
        # studio): the row nearest in meaning answers, and the confidence knows it was found so.
    elif top.similarity < settings.permit_meaning_floor:
        return [], {}, ()
    return _row_by_meaning(phrase, ranked, settings)


def _nearest_of_the_words(phrase: str, matches, ranked, settings) -> list:
    """Words support several rows about as well ("granny flat ... our house": Accessory dwelling
    unit, Single-family dwelling); the one nearest in meaning is the one meant, put first."""
    similarity = {m.row: m.similarity for m in reversed(ranked)}
    said = set(words_of(phrase)) - STOP

    def own_words(match) -> int:
        return len(set(words_of(match.row)) & said)

    # A row scored a little lower may still be meant when it explains more of the question's
    # own words ("boutique hotel"), never when it only adds words the question lacks ("junior").
    close = [m for m in matches if m.score == matches[0].score
             or (m.score >= matches[0].score - settings.permit_word_tie and own_words(m) > own_words(matches[0]))]
    if quantity_decides(matches, phrase):  # the stated count or area picked the row of its family
        close = [m for m in close if family(m.row) != family(matches[0].row) or m.row == matches[0].row]
    chosen = max(close, key=lambda m: (similarity.get(m.row, 0.0), -close.index(m)))
    return [m for m in matches if m.row == chosen.row] + [m for m in matches if m.row != chosen.row]


def _word_row_kept(res: Resources, phrase: str, matches, ranked):
    """The word-matched row with its meaning signals, unless a row nearer in meaning should replace it."""
    top, settings = ranked[0], res.settings
    own = next((m.similarity for m in ranked if m.row == matches[0].row), 0.0)
    # Every word of the row's label said, by the question or by its everyday word's label
    # ("restaurant" -> Restaurant, cafe, coffee shop): the row is named, and meaning only
    # measures; a row the words half fit ("workout studio": Broadcasting studio) gives way.
    # So is a family the question names in full ("mixed light cannabis cultivation"): its sizes
    # are its rivals, not a row of another meaning.
    said = set(words_of(phrase)) - STOP
    family_words = set(words_of(family(matches[0].row))) - STOP
    named = ((matches[0].covered >= 1.0 and _explained(res, phrase, matches[0].row) >= 0.5)
             or (len(family_words) >= 2 and family_words <= said))
    if not (named or top.similarity - own < settings.permit_meaning_switch or top.similarity < settings.permit_meaning_floor):
        return None
    signals = {"meaning_agrees": float(top.row == matches[0].row or _same_family_sized(top.row, matches, phrase)),
               "meaning_similarity": own, "meaning_margin": _margin(own, ranked, matches[0].row, phrase), "by_meaning": 0.0}
    return matches, signals, _near_in_meaning(ranked, matches[0], own, phrase, settings)


def _row_by_meaning(phrase: str, ranked, settings):
    """The row nearest in meaning (its size chosen by the question's count or area, if it states one)."""
    top = ranked[0]
    second = next((m for m in ranked[1:] if m.row != top.row), None)
    margin = top.similarity - (second.similarity if second else 0.0)
    near = [m for m in ranked if m.similarity >= top.similarity - settings.permit_meaning_near]
    candidates_ = by_quantity([RowMatch(m.table, m.row, m.similarity) for m in near], phrase)
    chosen = candidates_[0].row
    same_label = [c for c in candidates_ if c.row == chosen]
    if quantity_decides(candidates_, phrase):
        margin = _margin(candidates_[0].score, ranked, chosen, phrase)
    return same_label, {"meaning_agrees": 1.0, "meaning_similarity": top.similarity, "meaning_margin": round(margin, 4),
                        "by_meaning": 1.0}, _near_in_meaning(ranked, same_label[0], same_label[0].score, phrase, settings)


def _explained(res: Resources, phrase: str, row: str) -> float:
    """Share of the words naming the use that the row accounts for: its label's words, the
    everyday words that point to it. "turning our house into a bed & breakfast": "house" names
    Single-family dwelling, but most of what was said is about something else."""
    words = {w for w in words_of(use_phrase(phrase)) if w not in STOP and w not in GENERIC and w not in QUANTITY_WORDS}
    if not words:
        return 1.0
    return round(len(words & _name_words(res, row)) / len(words), 4)


def _name_words(res: Resources, row: str) -> frozenset[str]:
    """The words of a row's names (its label, defined terms, everyday words), gathered once per row."""
    names = res.name_words.get(row)
    if names is None:
        if res.defined is None:
            res.defined = defined_terms(res.definitions)
        names = res.name_words[row] = frozenset(
            w for name in row_names(row, res.defined, res.vocabulary.everyday_pairs) for w in words_of(name))
    return names


def _unexplained(query: Query, res: Resources, row: str) -> float:
    """What the whole question says besides the row's names and the districts (``words_beside``)."""
    named = set(_name_words(res, row)) | district_words(query, res)
    return words_beside(query.corrected or query.text, named, res.corpus.idf, ASKING_WORDS | GENERIC | QUANTITY_WORDS)


def district_words(query: Query, res: Resources) -> set[str]:
    """The words of the named districts' symbols and names."""
    named: set[str] = set()
    for symbol in query.districts:
        district = res.vocabulary.district(symbol)
        named |= set(words_of(" ".join([symbol, district.name if district else ""])))
    return named


def use_meanings(res: Resources):
    """The rows' meanings under the index's encoder (built on first use); None without a comparable model."""
    if res.meanings is None:
        encoder = res.comparable_encoder()
        if encoder is None:
            return None
        from .meaning import UseMeanings, row_descriptions, row_phrases

        described = row_descriptions(res.tables, res.definitions, res.vocabulary.everyday_pairs)
        res.meanings = UseMeanings(described, lambda texts: encoder.encode(list(texts), batch_size=32),
                                   row_phrases(described, res.definitions, res.vocabulary.everyday_pairs))
    return res.meanings


def resolve_uses(res: Resources, phrase: str, limit: int = 12, floor: float | None = None) -> list[tuple[str, str]]:
    """(table, row) of the permit-table rows a land-use phrase names, best first: the rows an answer would
    read from it (``rows_named``), then rows near it in meaning ("salon" -> Personal services; ``floor``, lower
    than an answer's: ``permit_finder_floor`` unless given), then rows whose label holds every word as typed ("services" -> each services row).
    The app's land-use finder uses this: the ask box and the finder read everyday words the same way."""
    floor = res.settings.permit_finder_floor if floor is None else floor
    query = res.read(phrase)
    matches, _, near = rows_named(query, res)
    found = [(m.table, m.row) for m in matches] + [(m.table, m.row) for m in near]
    meanings = use_meanings(res)
    if meanings is not None:
        found += [(m.table, m.row) for m in meanings.rank(use_phrase(query.normalized) or query.normalized, n=limit)
                  if m.similarity >= floor]
    else:  # no model: the rows the words match, as an answer without a model reads them
        found += [(m.table, m.row) for m in res.tables.match(query.normalized, synonyms=" ".join(query.land_uses))]
    words = [w for w in re.findall(r"[a-z0-9]+", phrase.lower()) if len(w) > 1]
    if words:
        found += [(table, row) for table, rows in res.tables.rows.items() for row in rows
                  if all(re.search(rf"\b{re.escape(w)}", row.lower()) for w in words)]
    return list(dict.fromkeys(found))[:limit]


def _near_in_meaning(ranked, chosen, similarity: float, phrase: str, settings) -> tuple:
    """Rows of the chosen row's table about as near in meaning (within ``permit_meaning_near``), save the
    sizes of its family that the question's count or area rules out."""
    sized = quantity_decides([chosen], phrase)
    return tuple(RowMatch(m.table, m.row, m.similarity) for m in ranked
                 if m.table == chosen.table and m.row != chosen.row and m.similarity >= similarity - settings.permit_meaning_near
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


def _use_spans(named: str, matches, settings) -> tuple[str, ...]:
    """In a long, rambling question ("looking at a space on Commerce Ave for a daycare center. the old
    table I found ..."), the words around those that matched the best row's label: what names the use.
    Every other word of a long question pulls its meaning away from any row."""
    words = named.split()
    if not matches or len(words) <= settings.permit_long_phrase:
        return ()
    label = set(words_of(matches[0].row)) - STOP
    anchors = [i for i, word in enumerate(words) if set(words_of(word)) & label]
    if not anchors:
        return ()
    span = words[max(0, anchors[0] - settings.permit_span_context): anchors[-1] + settings.permit_span_context + 1]
    return (" ".join(span),) if len(span) < len(words) else ()


def use_phrase(phrase: str) -> str:
    """The words of a permit question that name the use: what is compared by meaning. The asking
    words ("can I", "need a permit", "ok?") say nothing about which use is meant."""
    words = [w for w in re.findall(r"[a-z0-9][a-z0-9'-]*", phrase.lower())
             if w not in STOP and w not in ASKING_WORDS and not w.isdigit()]
    return " ".join(words)


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
