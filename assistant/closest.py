"""The closest passages to a question the assistant declines: where the loaded code comes nearest,
quoted with its heading path and section, so a decline still gives the resident something to read.

Two kinds of evidence name a passage, both closeness in meaning to the question: the question bank's
nearest entries (each names an answer unit: a provision, a table row, a definition) and the
provisions of the sections the search finds. Each section is offered once, at its closest passage.
``rank`` is pure (records in, records out); ``find`` gathers the evidence from ``Resources``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from .passages import best_quote

LIMIT = 3  # passages offered: the closest, then two more sections
# A passage less near than this is not offered: under the shipped model an unrelated question ("what is the
# weather in Paris?") comes to 0.31 at best, a question the code touches without answering 0.5-0.65.
SHOWN_FLOOR = 0.4
SEARCHED = 8  # hits whose sections' provisions are read
VOTES = 8  # bank entries asked
QUOTE_CHARS = 420
UNIT_KINDS = ("provision", "standards", "permit_row", "definition")


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


def rank(question: str, offers: Iterable[Offer], idf: Mapping[str, float] | None = None, limit: int = LIMIT,
         kind: str | None = None) -> list[Closest]:
    """The closest offer of each section, closest first (ties: the order offered), at most ``limit``;
    each quoted at the words of its text that speak to the question (the whole text, cut, when none do)."""
    best: dict[str, tuple[float, int, Offer]] = {}
    for order, offer in enumerate(offers):
        if not offer.text.strip() or offer.similarity < SHOWN_FLOOR:
            continue
        kept = best.get(offer.section)
        if kept is None or offer.similarity > kept[0]:
            best[offer.section] = (offer.similarity, order if kept is None else kept[1], offer)
    chosen = sorted(best.values(), key=lambda item: (-item[0], item[1]))[:limit]
    return [Closest(o.section, o.document, o.title, o.path, quote_of(o.text, question, idf, kind), o.similarity, o.table,
                    o.label, o.by_meaning) for _, _, o in chosen]


def quote_of(text: str, question: str, idf: Mapping[str, float] | None = None, kind: str | None = None) -> str:
    """The words of a passage to quote: its sentences that speak to the question, or its opening (``kind``:
    the answer type the question asks, as its Query read it)."""
    text = " ".join(text.split())
    if len(text) <= QUOTE_CHARS:
        return text
    found = best_quote(text, question, idf=idf, kind=kind).text
    if found:
        return found
    return text[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …"


def find(question: str, res, nearest: Iterable[str] = ()) -> list[Closest]:
    """The closest passages of the loaded text to ``question`` (``res``: ``assistant.resources.Resources``);
    [] when the search index is not ready."""
    from .types import SearchUnavailable

    query = res.read(question)
    try:
        offers = list(_bank_offers(query, res)) + list(_provision_offers(question, res, list(nearest), query.detected))
    except SearchUnavailable:
        return []
    return rank(question, offers, res.corpus.idf, kind=query.detected)


def _bank_offers(query, res) -> Iterable[Offer]:
    for vote in res.bank_votes(query, VOTES):
        unit = res.unit(vote.unit)
        if unit is None or unit.kind not in UNIT_KINDS:
            continue
        cited = unit.citation
        text = _unit_text(unit, res)
        table = str(cited.get("table") or "")
        table = f"Table {table}" if table and not table.startswith("Table") else table
        yield Offer(unit.section, cited.get("document", ""), cited.get("title", ""), tuple(unit.path), text,
                    float(vote.similarity), table, unit.id)


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
    hits = res.hits(question, SEARCHED)
    sections = list(dict.fromkeys([*nearest, *(hit.section for hit in hits)]))
    wanted = set(sections)
    provisions = [p for p in res.provisions() if p.section in wanted and p.kind != "note"]
    meaning = res.provision_meaning(question, provisions)
    corpus = res.corpus
    for provision in provisions:
        near = meaning.get(provision.text, 0.0) if meaning is not None else lexical(provision.text, question, corpus.idf, kind)
        yield Offer(provision.section, provision.document, corpus.title_of(provision.section, provision.document),
                    tuple(provision.path), provision.text, float(near), "", provision.label, meaning is not None)
    if meaning is not None:
        return  # with the model, the bank's units stand for sections read as tables
    having = {p.section for p in provisions}
    for section_id in sections:
        section = corpus.section(section_id)
        if section is None or section_id in having:
            continue
        yield Offer(section.id, section.document, section.title, (f"§ {section.id} {section.title}",), section.text,
                    lexical(section.text, question, corpus.idf, kind), "", section.id, False)


def lexical(text: str, question: str, idf: Mapping[str, float] | None, kind: str | None = None) -> float:
    """Without a model: the share of the question's word weight the passage's best sentence carries (0-1)."""
    return float(best_quote(text, question, idf=idf, kind=kind).coverage)
