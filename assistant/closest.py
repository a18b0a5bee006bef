"""The closest passages to a question the assistant declines: where the loaded code comes nearest,
quoted with its heading path and section, so a decline still gives the resident something to read.

Two kinds of evidence name a passage, both closeness in meaning to the question: the question bank's
nearest entries (each names an answer unit: a provision, a table row, a definition) and the
provisions of the sections the search finds. Each section is offered once, at its closest passage.
``rank`` is pure (records in, records out); ``find`` gathers the evidence from ``Resources``.

A passage is offered only about what the question was read as (issue 46: a tattoo parlor was shown the
"Personal services - Restricted" row, a neighbour's music the telecommunications noise rule): ``Reading`` is the
reading (the use rows the answers read from its words, ``permit_cells.rows_named``; the districts asked; the
setback side asked; the kinds of use it names), and ``about_asked`` keeps an offer only when it is not about
another use, district or measure. The use's own rows come first, found by the scorer that ranks rows for answers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from .choose import TUNED
from .passages import best_quote

UNIT_KINDS = ("provision", "standards", "permit_row", "definition")
ROW_KINDS = ("standards", "permit_row")  # offers that are a table's row
# A passage that points at a table for its values ("comply with the height limits shown in Table 3-2").
TABLE_POINTED = re.compile(r"\b(?:shown|listed|set (?:forth|out)|specified|identified|provided|established) in Table (\d+-\d+)\b",
                           re.I)


@dataclass(frozen=True)
class Closest:
    """One passage of the loaded text near a question: where (section, document, heading path, table)
    and what (the quoted words), and how near in meaning (0-1 cosine; 0 without a model)."""

    section: str
    document: str
    title: str
    path: tuple[str, ...]
    quote: str
    similarity: float
    table: str = ""
    label: str = ""  # the provision's outline label or the unit id it came from
    by_meaning: bool = True  # False: without a model, ``similarity`` is the share of the question's words

    def to_dict(self) -> dict:
        return {"section": self.section, "document": self.document, "title": self.title, "path": list(self.path),
                "quote": self.quote, "similarity": round(self.similarity, 4), "table": self.table, "label": self.label,
                "by_meaning": self.by_meaning}

    def heading(self) -> str:
        """"§ 17.64.080 Permit time limits, extensions, and expiration › A. Time Limits"."""
        head = f"§ {self.section} {self.title}".strip() if ":" not in self.section else self.title or self.section
        rest = [p for p in self.path[1:] if p] if self.path else []
        if self.table and not rest:
            rest = [self.table]
        return " › ".join([head, *rest])


@dataclass(frozen=True)
class Offer:
    """A passage offered as near: what ``rank`` chooses from."""

    section: str
    document: str
    title: str
    path: tuple[str, ...]
    text: str
    similarity: float
    table: str = ""
    label: str = ""
    by_meaning: bool = True
    kind: str = ""  # "permit_row", "standards", "provision", "definition", "section"
    row: str = ""  # a table row's label (permit rows, standards rows)
    scope: tuple[str, ...] = ()  # the kinds of use and the districts it is about (a provision's ``scope``)
    own: bool = False  # the use's own row, as the question was read: offered first


# The kinds of use or facility a provision's scope can name (ingest's scope_terms, those that are uses, not
# topics or procedures): a passage scoped to one the question does not say is about another use.
# Only the kinds that are uses of their own: not the residential kinds, which nest and overlap (a fourplex is a
# multifamily plex; rental units are residential units without saying so), nor "commercial" or "industrial".
USE_KINDS = frozenset({"wireless facility", "cannabis", "condominium"})
# The residential kinds that exclude each other: a passage about multifamily buildings is not about the house a
# question names (and the other way round); only a question that names one of them is held to it.
HOUSING = {"single-family": "single", "duplex": "plex", "triplex": "plex", "multifamily plex": "plex",
           "multifamily 4+ units": "multi", "multifamily 10+ units": "multi", "multifamily": "multi"}
# An ordinance's amending instruction, which says what it amends and nothing of its own.
INSTRUCTION = re.compile(r"^\s*(?:SECTION\s+\d+\s*[:.]?\s*)?Amendment to the Cotati Municipal Code\.?\s*$|"
                         r"\bis hereby amended\b[^.]*(?:as follows|to read)[:.]?\s*$", re.I)
# The subjects a provision's or table's scope can name that are measures of their own (ingest's scope_terms): a
# passage about parking does not answer a question about noise. A question names one by the scope term's own words
# or by a word of the passage's section title or table heading ("a solid wall": § 17.30.030 Fences, walls, ...).
TOPIC_KINDS = frozenset({"parking", "bicycle parking", "driveway", "fence", "sign", "woonerf"})
# The sides of a lot a setback is measured from, as the standards tables print their rows (Tables 2-17 and 2-18:
# "Front", "Side", "Rear"); a question that names one is not answered by another's.
SIDES = ("front", "side", "rear")
# A yard named in everyday words is the side of the lot it lies on (general English: a backyard is the rear yard).
YARDS = ((r"\bback ?yards?\b", "rear"), (r"\bbehind (?:my|the|our) (?:house|home)\b", "rear"))


@dataclass(frozen=True)
class Reading:
    """What a declined question was read as, for choosing its closest passage."""

    rows: tuple[tuple[str, str], ...] = ()  # (table, row) of the use the answers read from its words
    permission: bool = True  # it asks whether a use is allowed (a permit row can speak to it)
    tables: frozenset[str] | None = None  # the permit tables that print a district asked (None: no district asked)
    districts: tuple[str, ...] = ()  # the districts asked
    sides: frozenset[str] = frozenset()  # the setback sides asked ("front")
    kinds: frozenset[str] = frozenset()  # the kinds of use it names (USE_KINDS), and those of its rows
    words: frozenset[str] = frozenset()  # its content words, cut as ``ingest.references.stems`` cuts them
    district_symbols: frozenset[str] = field(default_factory=frozenset)  # every district symbol of the code


def about_asked(offer: Offer, reading: Reading) -> bool:
    """Whether an offer is about what was asked, not another use, district or measure: a permit row only as the
    use's own row (in a table of a district asked); a passage scoped to a kind of use the question does not name,
    or to districts it did not ask, is not; a setback of another side is not; a bare list heading is not."""
    if offer.kind == "permit_row":
        table = offer.table.removeprefix("Table ").strip()
        if reading.rows:  # the use was read: its own row, no other use's
            return (table, offer.row) in set(reading.rows)
        # Not read: a row the question bank finds, for a question about permission, in a table of a district asked.
        return reading.permission and (reading.tables is None or table in reading.tables)
    if len(re.findall(r"[A-Za-z0-9]+", offer.text)) < TUNED.closest_short_passage:
        return False
    districts = {d for d in offer.scope if d in reading.district_symbols}
    if districts and not districts & set(reading.districts):
        return False
    for vocabulary in (USE_KINDS, TOPIC_KINDS):
        kinds = [k for k in offer.scope if k in vocabulary]
        if vocabulary is USE_KINDS and districts:
            continue  # a passage about the district asked ("1. CE ... Zoning District") speaks of its uses itself
        if kinds and not any(_same_kind(k, said) for k in kinds for said in reading.kinds):
            if vocabulary is USE_KINDS or not reading.words & _words(" ".join([offer.title, *offer.path[:1]])):
                return False
    housing = {HOUSING[k] for k in offer.scope if k in HOUSING}
    asked = {HOUSING[k] for k in reading.kinds if k in HOUSING}
    if housing and asked and not housing & asked and not ("plex" in housing | asked and "multi" in housing | asked):
        return False  # a multifamily building's rule for a question about a house
    if len(re.findall(r"[A-Za-z0-9]+", offer.text)) <= len(re.findall(r"[A-Za-z0-9]+", _heading(offer))):
        return False  # its text is only its heading ("3. Setbacks;", "1. Distance between structures;")
    if INSTRUCTION.search(" ".join(offer.text.split())):
        return False  # "SECTION 22: Amendment to the Cotati Municipal Code."
    if reading.sides:
        sides = _row_sides(offer)
        if sides and not sides & reading.sides:
            return False
    return True


def _row_sides(offer: Offer) -> frozenset[str]:
    """The sides of the lot an offer's row or heading names ("Within interior side or rear setback": side, rear)."""
    return _sides_in(" ".join([offer.row, *offer.path[1:]]))


def _sides_in(text: str) -> frozenset[str]:
    lowered = text.lower()
    return frozenset(side for side in SIDES if re.search(rf"\b{side}\b", lowered))


def _words(text: str) -> frozenset[str]:
    from ingest.references import stems

    from .decline import FUNCTION_WORDS

    return stems(text) - FUNCTION_WORDS


def _heading(offer: Offer) -> str:
    """The last heading of an offer's path without its outline label ("3. Setbacks;" -> "Setbacks;")."""
    last = offer.path[-1] if offer.path else ""
    return re.sub(r"^\s*(?:[0-9]+|[A-Za-z]{1,2}|[ivxIVX]+)\.\s+", "", last) if len(offer.path) > 1 else ""


def _same_kind(kind: str, said: str) -> bool:
    """"multifamily" said covers "multifamily 4+ units" and the other way round."""
    return kind == said or kind.startswith(said + " ") or said.startswith(kind + " ")


def rank(question: str, offers: Iterable[Offer], idf: Mapping[str, float] | None = None, limit: int = TUNED.closest_limit,
         kind: str | None = None) -> list[Closest]:
    """The closest offer of each section, closest first (ties: the order offered), at most ``limit``;
    each quoted at the words of its text that speak to the question (the whole text, cut, when none do)."""
    offers = list(offers)
    pointed = {(o.section, table) for o in offers if o.kind in ("provision", "") for table in TABLE_POINTED.findall(o.text)}
    table_of = lambda o: (o.section, o.table.removeprefix("Table ").strip())  # noqa: E731
    # Only one row offered: with several (the front, side and rear rows of a fence table) the pointer is fairer.
    rows_of = Counter(table_of(o) for o in offers if o.kind in ROW_KINDS and table_of(o) in pointed
                      and (o.similarity >= TUNED.closest_shown_floor or o.own))
    best: dict[str, tuple[tuple[bool, bool, float], int, Offer]] = {}
    for order, offer in enumerate(offers):
        if not offer.text.strip() or (offer.similarity < TUNED.closest_shown_floor and not offer.own):
            continue
        # The use's own row before any passage merely near in meaning; the one row offered of a table its section's
        # passage points at ("the height limits shown in Table 3-2") before that passage, which holds no value itself.
        row_pointed = offer.kind in ROW_KINDS and rows_of.get(table_of(offer), 0) == 1
        key = (offer.own, row_pointed, offer.similarity)
        kept = best.get(offer.section)
        if kept is None or key > kept[0]:
            best[offer.section] = (key, order if kept is None else kept[1], offer)
    chosen = sorted(best.values(), key=lambda item: (not item[0][0], -item[0][2], item[1]))[:limit]
    return [Closest(o.section, o.document, o.title, o.path, quote_of(o.text, question, idf, kind), o.similarity, o.table,
                    o.label, o.by_meaning) for _, _, o in chosen]


def quote_of(text: str, question: str, idf: Mapping[str, float] | None = None, kind: str | None = None) -> str:
    """The words of a passage to quote: its sentences that speak to the question, or its opening (``kind``:
    the answer type the question asks, as its Query read it); never running on into the next term's definition."""
    text = " ".join(text.split())
    if len(text) <= TUNED.closest_quote_chars:
        return own_words(text)
    found = best_quote(text, question, idf=idf, kind=kind).text
    if found:
        return own_words(found)
    return own_words(text[:TUNED.closest_quote_chars].rsplit(" ", 1)[0] + " …")


# Where the next defined term starts in a run of definitions (“Personal services – Restricted” means ...): a
# list item glued to it by extraction ("12. Tattoo and body piercing services.") is quoted without it.
NEXT_TERM = re.compile(r"\s[“\"][^”\"]{2,80}[”\"] means?\b")


def own_words(quote: str) -> str:
    """The quote up to the next term's definition, when one starts inside it (not at its start)."""
    found = NEXT_TERM.search(quote)
    return quote[:found.start()].rstrip() if found and quote[:found.start()].strip() else quote


def find(question: str, res, nearest: Iterable[str] = ()) -> list[Closest]:
    """The closest passages of the loaded text to ``question`` (``res``: ``assistant.resources.Resources``);
    [] when the search index is not ready."""
    from .types import SearchUnavailable

    query = res.read(question)
    try:
        reading = read_as(query, res)
        offers = (list(_own_rows(reading, res)) + list(_bank_offers(query, res))
                  + list(_provision_offers(question, res, list(nearest), query.detected)))
    except SearchUnavailable:
        return []
    kept = [replace(o, own=True) if of_side_asked(o, reading) else o for o in offers if about_asked(o, reading)]
    return rank(question, kept, res.corpus.idf, kind=query.detected)


def of_side_asked(offer: Offer, reading: Reading) -> bool:
    """Whether an offer is a table's row for the side of the lot the question names (a backyard fence: the rear
    setback's row), which is then the question's own row, as a use's row is."""
    return offer.kind in ROW_KINDS and bool(reading.sides & _row_sides(offer))


def read_as(query, res) -> Reading:
    """The question as the answers read it (``Reading``): its use rows from ``permit_cells.rows_named`` (the one
    reading of a use's words, which the land-use finder also uses), the districts, the setback sides and kinds of
    use it names (the provisions' own scope terms, applied to the question)."""
    from ingest.provisions import scope_of
    from ingest.tables.vocab import vocabulary

    from .answer_type import QUANTITIES
    from .permit_cells import PERMIT_TOPICS, STANDARDS_TOPICS, rows_named
    from .permit_cells import _unexplained as unexplained

    rows: tuple = ()
    # A use's row answers whether it is allowed and with which permit: not how many, how long, what it means, which
    # district, nor a standard ("How late can a bar play loud music?" is not shown the bar's permit row).
    topics = set(query.topics)
    permission = (bool(topics & PERMIT_TOPICS) or query.detected == "yes_no" or bool(query.carried_rows)
                  or (not topics and query.detected == "other"))
    permission = permission and query.detected not in QUANTITIES and not topics & STANDARDS_TOPICS
    holding = frozenset(t for d in query.districts for t in res.tables.tables_for(d)) if query.districts else None
    if permission:
        # The use as the answers read it, from all the tables; then its rows in the tables that print a district
        # asked (a use the district's table does not list has no row there: "a tattoo parlor in NL" is not a
        # cannabis retailer).
        matches, meant, _ = rows_named(query, res)
        # Read by meaning alone, it must be clearly the nearest row (not a tie); read by a word, the word's row must
        # not mean something else ("all night": Night club, far in meaning from a barking dog).
        if meant.get("by_meaning"):
            clear = meant.get("meaning_margin", 0.0) >= TUNED.permit_meaning_switch
        else:
            clear = meant.get("meaning_agrees", 1.0) == 1.0 or meant.get("meaning_similarity", 1.0) >= TUNED.permit_meaning_floor
        # "does a cell tower need a stealth design?" asks more than whether the use is allowed: its row is not
        # put first (the bank's rows and the passages are ranked by nearness alone).
        if matches and clear and unexplained(query, res, matches[0].row) <= TUNED.closest_beside_the_use:
            family = matches[0].row
            rows = tuple(dict.fromkeys((m.table, m.row) for m in matches
                                       if m.row == family and (holding is None or m.table in holding)))
    text = query.corrected or query.text
    # The kinds it names: by its words, by the everyday words the answers read (a "cell site" is a
    # telecommunications facility), by the words of its topics ("telecom": cell tower, antenna, monopole ...) and by
    # the tables its uses' rows sit in ("pot dispensary": a storefront retailer of the cannabis table).
    topic_words = [w for t in query.topics for w in res.vocabulary.topics.get(t, ((), ()))[0]]
    uses = {label.lower() for label in query.land_uses} | {row.lower() for _, row in rows}
    tables = [table for table, labels in res.tables.rows.items() if any(r.lower() in uses for r in labels)]
    named = " ".join([text, *query.land_uses, *topic_words, *(f"Table {t}" for t in tables), *(r for _, r in rows)])
    said = set(scope_of("", ("", named), ""))
    return Reading(rows, permission, holding, tuple(query.districts), sides_named(text),
                   frozenset(k for k in said if k in USE_KINDS | TOPIC_KINDS | set(HOUSING)), _words(text),
                   frozenset(vocabulary().districts))


def sides_named(text: str) -> frozenset[str]:
    """The sides of the lot a question names ("front", "side", "rear"), a backyard being the rear."""
    return _sides_in(text) | {side for words, side in YARDS if re.search(words, text.lower())}


def _own_rows(reading: Reading, res) -> Iterable[Offer]:
    """The use's own rows (as the question was read) as offers, each as near as the row ranks for the answers."""
    for table, row in reading.rows:
        unit = res.unit(f"permit_row:{table}:{row}")
        if unit is None:
            continue
        cited = unit.citation
        yield Offer(unit.section, cited.get("document", ""), cited.get("title", ""), tuple(unit.path), unit.text, 1.0,
                    f"Table {table}", unit.id, True, "permit_row", row, (), True)


def _bank_offers(query, res) -> Iterable[Offer]:
    for vote in res.bank_votes(query, TUNED.closest_votes):
        unit = res.unit(vote.unit)
        if unit is None or unit.kind not in UNIT_KINDS:
            continue
        cited = unit.citation
        text = _unit_text(unit, res)
        table = str(cited.get("table") or "")
        table = f"Table {table}" if table and not table.startswith("Table") else table
        yield Offer(unit.section, cited.get("document", ""), cited.get("title", ""), tuple(unit.path), text,
                    float(vote.similarity), table, unit.id, True, unit.kind, str(unit.key.get("row") or ""),
                    _unit_scope(unit, res))


def _unit_scope(unit, res) -> tuple[str, ...]:
    """What a unit is about: a provision's scope; a standards row, the districts its text prints ("SW Zone
    Requirement")."""
    if unit.kind == "provision":
        label = unit.key.get("label")
        return next((tuple(p.scope) for p in res.provisions() if p.label == label), ())
    if unit.kind == "standards":
        from ingest.provisions import scope_of
        from ingest.tables.vocab import vocabulary

        title = str(unit.citation.get("title") or "")
        named = scope_of(unit.section, (f"{unit.section} {title}", *unit.path), "")  # 17.36: parking; "Fences": fence
        # The districts its row or its column headings name (Table 2-1's "NM" row, Table 2-17's "SW Zone
        # Requirement"), not those a cell's words mention.
        symbol = rf"\b(?:{vocabulary().symbol_pattern})\b"
        headings = re.findall(r"(?:^|[.;] )([^:;.]{1,40}):", unit.text)
        districts = [d for text in (*unit.path[1:], *headings) for d in re.findall(symbol, text)]
        return tuple(dict.fromkeys([*named, *districts]))
    return ()


def _unit_text(unit, res) -> str:
    """A unit's words as printed: a provision's whole text (the unit's may be cut), a row's printed line."""
    if unit.kind == "provision":
        label = unit.key.get("label")
        for provision in res.provisions():
            if provision.label == label:
                return provision.text
    return unit.text


def _provision_offers(question: str, res, nearest: list[str], kind: str | None = None) -> Iterable[Offer]:
    """The provisions of the nearest sections and of those the search finds, each as near as its meaning (or,
    without a model, the share of the question's words it carries); a section with no provisions, whole."""
    hits = res.hits(question, TUNED.closest_searched)
    sections = list(dict.fromkeys([*nearest, *(hit.section for hit in hits)]))
    wanted = set(sections)
    provisions = [p for p in res.provisions() if p.section in wanted and p.kind != "note"]
    meaning = res.provision_meaning(question, provisions)
    corpus = res.corpus
    for provision in provisions:
        near = meaning.get(provision.text, 0.0) if meaning is not None else lexical(provision.text, question, corpus.idf, kind)
        yield Offer(provision.section, provision.document, corpus.title_of(provision.section, provision.document),
                    tuple(provision.path), provision.text, float(near), "", provision.label, meaning is not None,
                    "provision", "", tuple(provision.scope))
    if meaning is not None:
        return  # with the model, the bank's units stand for sections read as tables
    having = {p.section for p in provisions}
    for section_id in sections:
        section = corpus.section(section_id)
        if section is None or section_id in having:
            continue
        yield Offer(section.id, section.document, section.title, (f"§ {section.id} {section.title}",), section.text,
                    lexical(section.text, question, corpus.idf, kind), "", section.id, False, "section")


def lexical(text: str, question: str, idf: Mapping[str, float] | None, kind: str | None = None) -> float:
    """Without a model: the share of the question's word weight the passage's best sentence carries (0-1)."""
    return float(best_quote(text, question, idf=idf, kind=kind).coverage)
