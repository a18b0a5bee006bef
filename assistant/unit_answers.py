"""Composers of answer units: a unit (``assistant/units.py``) answered for the asker's own slots.

The question bank names a unit; what the answer says is read here from that unit's cells or text
and the asker's question (its districts, its numbers), never from the bank question that matched.
A unit that cannot be answered for the asker's slots (a permit row of a table that has no column
for the district asked, a per-district standards table for another district) gives None.
"""

from __future__ import annotations

from dataclasses import replace

from . import compose
from .provision_choice import children_of, values_of, wanted_kinds
from .standards import StandardsLookup, _spec
from .types import Answer, Query


def compose_unit(unit, query: Query, res) -> Answer | None:
    composer = COMPOSERS.get(unit.kind)
    if composer is None or not fits_named(unit, query):
        return None
    return composer(unit, query, res)


def fits_named(unit, query: Query) -> bool:
    """A section or table the asker names is a slot too: a unit of another section or table never
    answers ("17.39.040 D 5" is not answered from 17.36.040, however alike the numbers look)."""
    if query.sections and unit.kind in ("provision", "section", "definition"):
        if not any(unit.section == s or unit.section.startswith(s + ".") for s in query.sections):
            return False
    if query.tables and unit.kind in ("permit_row", "standards"):
        return unit.key["table"].split()[0] in query.tables
    return True


def permit_row(unit, query: Query, res) -> Answer | None:
    from .permits import RowMatch

    table, row = unit.key["table"], unit.key["row"]
    districts = list(query.districts)
    tables = res.tables
    if districts and not any(d in tables.columns.get(table, ()) for d in districts):
        # The same use printed in the table of the asker's district (2-2, 2-3 and 2-4 share many labels).
        table = next((t for t in tables.columns if t != table and any(d in tables.columns[t] for d in districts)
                      and tables.cell(t, row, next(d for d in districts if d in tables.columns[t])) is not None), None)
        if table is None:
            return None
    here = [d for d in districts if d in tables.columns.get(table, ())]
    answered = compose.permit_answer(query, tables, RowMatch(table, row, 1.0), here, res.corpus)
    return answered


def _table_spec(table: str, section: str) -> dict:
    return next((t for t in _spec()["tables"] if t["table"] == table and t["section"] == section), {})


def standards(unit, query: Query, res) -> Answer | None:
    table, section, row = unit.key["table"], unit.key["section"], unit.key["row"]
    spec = _table_spec(table, section)
    if spec.get("district"):
        # Districts with tables of their own (2-17 SW, 2-18 TOC): the asker's district chooses the table.
        asked = [d for d in query.districts if any(t.get("district") == d for t in _spec()["tables"])]
        if query.districts and not asked:
            return None  # a district without such a table: this table does not state its standard
        if asked and asked[0] != spec["district"]:
            other = next(t for t in _spec()["tables"] if t.get("district") == asked[0])
            table, section = other["table"], other["section"]
            if (section, table, row) not in res.standards.cells:
                return None
    if spec.get("rows_are_districts") and query.districts:
        named = [r for _, r in res.standards.rows.get((section, table), []) if r.split("-")[0] == query.districts[0]]
        if not named:
            return None
        row = next((r for r in named if r.lower() in query.text.lower()), named[0])
    entries = res.standards.cells.get((section, table, row))
    if not entries:
        return None
    district = spec.get("district", "") or (row.split("-")[0] if spec.get("rows_are_districts") else "")
    if district and table != unit.key["table"]:
        district = next(t.get("district", "") for t in _spec()["tables"] if t["table"] == table and t["section"] == section)
    lookup = StandardsLookup(table, section, row, res.standards.columns_asked((section, table), row, query, _spec()),
                             district, len(entries) > 1)
    if not lookup.readable:
        return None
    return compose.standards_answer(query, lookup, res.corpus)


def provision(unit, query: Query, res) -> Answer | None:
    from .provision_choice import Choice
    from .routes.provision import provision_answer

    label = unit.key["label"]
    provisions = [p for p in res.provisions() if p.section == unit.section]
    found = next((p for p in provisions if p.label == label), None)
    if found is None:
        return None
    text = query.corrected or query.text
    asked = query.asked
    values = values_of(found, wanted_kinds(asked, text)) if wanted_kinds(asked, text) else ()
    items = children_of(found, provisions) if found.text.rstrip().endswith(":") or asked == "list" else ()
    chosen = Choice(found, 1.0, 1.0, 1.0, values, items)
    answer = provision_answer(query, chosen, res, provisions)
    said = {"value_kind": values[0].kind} if values else {}
    return replace(answer, interpretation={**answer.interpretation, **said, "list_items": len(items)})


def definition(unit, query: Query, res) -> Answer | None:
    term, section = unit.key["term"], unit.section
    found = next((d for d in res.definitions if d.term == term and d.section.id == section), None)
    return compose.definition_answer(query, found, res.corpus) if found is not None else None


def section(unit, query: Query, res) -> Answer | None:
    found = res.corpus.section(unit.key["section"])
    return compose.section_answer(query, found, res.corpus) if found is not None else None


def district(unit, query: Query, res) -> Answer | None:
    from .routes import district as district_route

    symbol = unit.key["symbol"]
    # The asker's own district wins: a bank question about another district never answers.
    if query.districts and query.districts[0] != symbol:
        symbol = query.districts[0]
    asked = replace(query, districts=(symbol,), land_uses=(), topics=())
    found = district_route.paragraph_answer(asked, res)
    return found.answer if found is not None else None


def ordinance_fact(unit, query: Query, res) -> Answer | None:
    from .routes import ordinance

    from . import timepoint

    documents = list(res.corpus.documents.values())
    named = timepoint.named_document(query.corrected or query.text, documents)  # the asker's own document wins
    document = named or res.corpus.documents.get(unit.key["document"])
    found = ordinance.for_document(query, res, document) if document is not None else []
    return found[0].answer if found and not found[0].answer.abstained else None


COMPOSERS = {"permit_row": permit_row, "standards": standards, "provision": provision, "definition": definition,
             "section": section, "district": district, "ordinance_fact": ordinance_fact}
