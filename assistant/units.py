"""Answer units: one catalogue of what the loaded code can answer (issue 34).

A unit is a provision (section + outline label), a permit-table row (the district is a slot, not
part of the unit), a standards-table row, a definition, a section, a district or an ordinance
fact. Its id is derived from the corpus alone (section numbers, outline labels, table numbers, row
labels, district symbols, document ids), so it survives a rebuild and an amendment that restates
the same row or provision. The question bank (``assistant/bank.py``) names units by these ids; the
answer is always composed from the unit for the asker's own slots, never read from the bank.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

KINDS = ("provision", "permit_row", "standards", "definition", "section", "district", "ordinance_fact")
PERMIT_SECTION = "17.22.020"  # Tables 2-2, 2-3, 2-4 and the cannabis table: the permit tables
DISTRICT_PURPOSES = "17.20.030"  # "Purposes of the zoning districts": one printed paragraph per district
# The facts an ordinance states about itself (its preamble, certificate and signature block).
ORDINANCE_FACTS = ("number", "adoption", "introduction", "hearing", "effective", "applicant", "file")
TEXT_CHARS = 1200  # a unit's text as a writer reads it: long sections are cut


@dataclass(frozen=True)
class Unit:
    id: str
    kind: str
    section: str  # the section id the unit cites ("17.44.050"; an ordinance's preamble "000:PREAMBLE")
    text: str  # what the unit says, as printed (cut at TEXT_CHARS)
    citation: dict  # {section, title, document, date[, table]}
    path: tuple[str, ...] = ()  # heading path (provisions), or table title and row
    slots: tuple[str, ...] = ()  # what an asker supplies: "district", "use", "numbers", "document"
    key: dict = field(default_factory=dict)  # what the composer reads: label, table, row, term, symbol, document, fact

    def to_dict(self) -> dict:
        return {"id": self.id, "kind": self.kind, "section": self.section, "text": self.text,
                "citation": self.citation, "path": list(self.path), "slots": list(self.slots), "key": self.key}


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS].rsplit(" ", 1)[0] + " ..."


def _citation(section_id: str, title: str, document: str, date: str, table: str = "") -> dict:
    cited = {"section": section_id, "title": title, "document": document, "date": date}
    return {**cited, "table": table} if table else cited


def provision_units(provisions: Iterable, corpus) -> list[Unit]:
    units = []
    for p in provisions:
        units.append(Unit(
            id=f"provision:{p.label}", kind="provision", section=p.section, text=_cut(p.text),
            citation=_citation(p.section, corpus.title_of(p.section, p.document), p.document, p.date),
            path=tuple(p.path), slots=("numbers",) if p.values else (), key={"label": p.label}))
    return units


def _by_row(cells: dict) -> dict[tuple[str, str, str], list]:
    rows: dict[tuple[str, str, str], list] = {}
    for entry in cells:
        cell = entry.cell
        if entry.dropped_by:
            continue
        rows.setdefault((cell.table, cell.section, cell.row), []).append(cell)
    return rows


def table_units(effective: Iterable, corpus) -> list[Unit]:
    """A unit per row of every table: permit rows (their district is the asker's slot) and standards rows."""
    units = []
    for (table, section, row), cells in _by_row(effective).items():
        first = cells[0]
        values = "; ".join(f"{c.column}: {c.value}" for c in cells)
        regulation = next((c.regulation for c in cells if getattr(c, "regulation", "")), "")
        heading = f"Table {table}" + (f", {first.category}" if first.category else "")
        text = _cut(f"{heading}. {row}. {values}" + (f". Specific use regulations: {regulation}" if regulation else ""))
        citation = _citation(section, corpus.title_of(section, first.document), first.document, first.date, table)
        if first.kind == "permit":
            units.append(Unit(id=f"permit_row:{table}:{row}", kind="permit_row", section=section, text=text,
                              citation=citation, path=(heading, row), slots=("district", "use"),
                              key={"table": table, "row": row}))
        else:
            units.append(Unit(id=f"standards:{table}@{section}:{row}", kind="standards", section=section, text=text,
                              citation=citation, path=(heading, row), slots=("district", "numbers"),
                              key={"table": table, "section": section, "row": row}))
    return units


def definition_units(definitions: Iterable) -> list[Unit]:
    units, seen = [], set()
    for d in definitions:
        key = (d.section.id, d.term.lower())
        if key in seen:  # a term printed twice in one section ("Recommend" in two lists) is one unit
            continue
        seen.add(key)
        units.append(Unit(id=f"definition:{d.section.id}:{d.term}", kind="definition", section=d.section.id,
                          text=_cut(d.text),
                          citation=_citation(d.section.id, d.section.title, d.section.document, d.section.date),
                          path=(f"{d.section.id} {d.section.title}",), key={"term": d.term}))
    return units


def section_units(corpus) -> list[Unit]:
    units = []
    for section_id, s in sorted(corpus.latest.items()):
        units.append(Unit(id=f"section:{section_id}", kind="section", section=section_id,
                          text=_cut(f"{section_id} {s.title}. {s.text}"),
                          citation=_citation(section_id, s.title, s.document, s.date),
                          path=(f"{section_id} {s.title}",), key={"section": section_id}))
    return units


def district_units(vocabulary, corpus, listed: dict[str, str] | None = None) -> list[Unit]:
    """``listed``: each district's row of Table 2-1 in words, said where 17.20.030 prints no paragraph for it."""
    purposes = corpus.section(DISTRICT_PURPOSES)
    units = []
    for district in vocabulary.districts:
        symbol, name = district.symbol, district.name
        paragraph = _purpose_of(purposes.text, symbol, name) if purposes else ""
        paragraph = paragraph or (listed or {}).get(symbol, "")
        cited = purposes or corpus.section("17.20.020")
        units.append(Unit(id=f"district:{symbol}", kind="district", section=cited.id if cited else DISTRICT_PURPOSES,
                          text=_cut(f"{symbol} ({name}). {paragraph}"),
                          citation=_citation(cited.id, cited.title, cited.document, cited.date) if cited else {},
                          path=(symbol, name), slots=(), key={"symbol": symbol}))
    return units


def _purpose_of(text: str, symbol: str, name: str) -> str:
    """The paragraph of 17.20.030 that names the district by its symbol in parentheses."""
    starts = re.compile(rf"^(?:\d+\.\s+)?{re.escape(symbol)} \(")
    return next((p.strip() for p in text.split("\n") if starts.match(p.strip()) or f"({symbol})" in p), "")


def ordinance_units(documents: Iterable, corpus) -> list[Unit]:
    units = []
    for doc in documents:
        if "ordinance" not in (doc.kind or ""):
            continue
        preamble = next((s for s in corpus.sections if s.document == doc.id and s.id.endswith(":PREAMBLE")), None)
        section_id = preamble.id if preamble else f"{doc.id}:PREAMBLE"
        for fact in ORDINANCE_FACTS:
            units.append(Unit(id=f"ordinance_fact:{doc.id}:{fact}", kind="ordinance_fact", section=section_id,
                              text=_cut(f"The {fact} of: {doc.title} ({doc.short_title}; {doc.date_basis})"),
                              citation=_citation(section_id, preamble.title if preamble else doc.title, doc.id, doc.date),
                              path=(doc.short_title or doc.title, fact), slots=("document",),
                              key={"document": doc.id, "fact": fact}))
    return units


def catalogue(res) -> list[Unit]:
    """Every unit of the loaded corpus (``assistant.resources.Resources``), in kind order, ids unique."""
    corpus = res.corpus
    effective = [*res.tables.cells.values()] + [e for entries in res.standards.cells.values() for e in entries]
    tables = table_units(effective, corpus)
    listed = {u.key["row"]: u.text for u in tables if u.kind == "standards" and u.key["table"] == "2-1"}
    units = [*provision_units(res.provisions(), corpus), *tables,
             *definition_units(res.definitions), *section_units(corpus), *district_units(res.vocabulary, corpus, listed),
             *ordinance_units(corpus.documents.values(), corpus)]
    seen: dict[str, Unit] = {}
    for unit in units:
        seen.setdefault(unit.id, unit)  # a provision restated under one label by two documents: the one in force
    return list(seen.values())


def counts(units: Iterable[Unit]) -> dict[str, int]:
    found = {kind: 0 for kind in KINDS}
    for unit in units:
        found[unit.kind] += 1
    return found
