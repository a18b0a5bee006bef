"""Compose answers from table cells and quoted passages; every line is a cell or a quote."""

from __future__ import annotations

import re

from ingest.tables import reading_words

from .choose import TUNED
from .passages import best_quote
from .permits import PERMIT_WORDS, SHORT_WORDS, PermitTables, RowMatch
from .types import Answer, Citation, Query

ABSTAIN_LINE = "The Cotati code documents in this corpus do not answer this question."
UNSURE_LINE = ("No sure answer: the nearest passages and table rows of the Cotati code documents do not clearly "
               "answer this question, so none is given rather than a guess.")


def authority_lines(entries, corpus) -> tuple[list[str], Citation | None]:
    """Who decides, from Table 6-1: the roles per authority, or the printed row when the flattened
    text does not tell which authority column is empty."""
    if not entries:
        return [], None
    row = entries[0].cell.row
    roles = [e for e in entries if not e.cell.column.startswith("Applicable")]
    readable = [e for e in roles if e.cell.answered]
    cell = entries[0].cell
    if readable and len(readable) == len(roles):
        text = "; ".join(f"{e.cell.column}: {e.cell.value}" for e in roles if e.cell.value)
        line = f"Who decides a {row} (Table 6-1, § 17.60.040): {text}."
        quote = text
    else:
        printed = f"{row} {cell.raw} {roles[0].cell.raw}" if roles else ""
        if not printed or " ".join(printed.split()) not in " ".join(cell.source.replace("–", "-").split()):
            printed = cell.source
        columns = ", ".join(e.cell.column for e in roles)
        line = (f'Who decides (Table 6-1, § 17.60.040) prints "{printed}" for {columns}; '
                "which column is blank cannot be read from this text.")
        quote = printed
    citation = table_citation(cell, corpus, quote=quote)
    reviewed = reviewed_line(e.cell for e in roles)
    return [line, reviewed] if reviewed else [line], citation


REVIEWED_LINE = "Read from the printed table by a reviewer (the parser could not); see the reviewer's note on {where}."


def reviewed_line(cells) -> str:
    """The one short line an answer built on reviewed cells carries, naming the note it points to ("see the
    reviewer's note on Table 6-1, Minor Use Permit (MUP)", shown with the cell in the table's grid); ''
    when no cell is reviewed."""
    read = [cell for cell in cells if cell.reading is not None]
    if not read:
        return ""
    rows = list(dict.fromkeys((cell.table, cell.row) for cell in read))
    table, row = rows[0]
    more = f" (and {len(rows) - 1} more row{'s' if len(rows) > 2 else ''})" if len(rows) > 1 else ""
    return REVIEWED_LINE.format(where=f"Table {table}, {row}{more}")


def permit_answer(query: Query, tables: PermitTables, match: RowMatch, districts: list[str], corpus,
                  authority=None) -> Answer:
    """One district: the cell in words; several: the cell per district; none: the whole row."""
    row_cells = [tables.cell(match.table, match.row, column) for column in tables.columns[match.table]]
    row_cells = [entry for entry in row_cells if entry is not None]
    if districts:
        chosen = [tables.cell(match.table, match.row, d) for d in districts]
        chosen = [entry for entry in chosen if entry is not None]
    else:
        chosen = row_cells
    if not chosen:
        return None
    first = chosen[0].cell
    lines: list[str] = []
    if len(chosen) == 1:
        lines.append(_value_words(first))
        lines.append(f"{display_row(first.row, first.category)} in {_district_label(first.column, corpus)}: "
                     f"{first.value or reading_words(first) or 'unreadable'} "
                     f"(Table {first.table}, § {first.section}{_from_note(first)}).")
    else:
        lines.append(f"{display_row(first.row, first.category)}: " + "; ".join(_grouped(chosen)) + ".")
    lines.extend(_conditions(chosen, corpus))
    if reviewed_line(e.cell for e in chosen):
        lines.append(reviewed_line(e.cell for e in chosen))
    cited = {}
    for entry in chosen:
        cell = entry.cell
        key = (cell.section, cell.document)
        if key not in cited:
            cited[key] = table_citation(cell, corpus)
    if authority is not None and len(chosen) == 1 and first.value in ("UP", "MUP"):
        extra, citation = authority_lines(authority(first.value), corpus)
        lines.extend(line for line in extra if line not in lines)
        if citation is not None:
            cited.setdefault((citation.section, citation.document), citation)
    lines.append(source_line(list(cited.values()), corpus))
    return Answer(
        question=query.text, answer="\n".join(lines), abstained=False, citations=tuple(cited.values()),
        lookups=tuple(entry.to_json() for entry in chosen), route="permit",
    )


def _from_note(cell) -> str:
    """A cell the table does not print but its note states ("not allowed in any residential zones")."""
    return f", stated by note {cell.from_note}, not printed in the table" if getattr(cell, "from_note", "") else ""


def _value_words(cell) -> str:
    if cell.value is None and cell.reviewed:
        return f"The table cell is {reading_words(cell)}."
    if cell.value is None or not cell.answered:
        return "The table cell could not be read with confidence; please check the table itself."
    words = PERMIT_WORDS.get(cell.value, cell.value)
    if cell.value == "S" and cell.regulation:
        words = f"Allowed as set by the specific use regulations (S) in § {cell.regulation}."
    return words


def display_row(row: str, category: str) -> str:
    """A one-word label is shown with its heading ("Large" -> "Indoor Cultivation - Large")."""
    if len(row.split()) > 1 or not category:
        return row
    return f"{category.rsplit(' - ', 1)[-1]} - {row}"


CODE_ORDER = ("P", "P/MUP", "MUP", "UP", "S", "-", "unreadable")


def grouped_codes(pairs) -> list[str]:
    """(value, district) pairs -> "permitted (P) in CG, CI", ... from the least to the most demanding."""
    groups: dict[str, list[str]] = {}
    for value, column in pairs:
        value = value if value is not None else "unreadable"
        if column not in groups.setdefault(value, []):
            groups[value].append(column)
    order = sorted(groups, key=lambda v: (CODE_ORDER.index(v) if v in CODE_ORDER else len(CODE_ORDER), v))
    return [f"{SHORT_WORDS.get(value, value)} in {', '.join(groups[value])}" for value in order]


def _grouped(entries) -> list[str]:
    return grouped_codes((entry.cell.value, entry.cell.column) for entry in entries)


def _conditions(entries, corpus) -> list[str]:
    lines: list[str] = []
    seen: set[str] = set()
    for entry in entries:
        cell = entry.cell
        for note in cell.footnotes:
            key = f"note {note.number}"
            if key not in seen and note.text:
                seen.add(key)
                lines.append(f"Note ({note.number}): {note_text(note.text)}")
        if cell.interim and "interim" not in seen:
            seen.add("interim")
            lines.append("Marked * in the table: an interim use only.")
        if cell.regulation and cell.regulation not in seen:
            seen.add(cell.regulation)
            lines.append(f"Specific use regulations: § {cell.regulation}.")
        changed = [h for h in entry.history if h.value != cell.value]
        if changed:
            old = changed[-1]
            lines.append(
                f"Amended: in {cell.column} this was {SHORT_WORDS.get(old.value or '', old.value)} under "
                f"{corpus.document_label(old.document)} ({old.date}); "
                f"{corpus.document_label(cell.document)} ({cell.date}) made it {SHORT_WORDS.get(cell.value or '', cell.value)}."
            )
    return lines


def section_answer(query: Query, section, corpus, passage: str = "") -> Answer:
    """A section by number: its heading and opening; or, given a passage of it, that passage first."""
    if passage:
        quote = passage
        lines = [passage]
    else:
        quote = _opening(section.text)
        lines = [f"§ {section.id} {section.title}".strip(), f'"{quote}"']
    citation = corpus.citation(section, quote)
    lines.append(source_line([citation], corpus))
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=(citation,), route="section")


def passage_answer(query: Query, hits, corpus, meaning=None) -> Answer:
    """Quotes from the best hits; the hit whose quote answers the question best comes first.
    ``meaning``: sentence -> closeness to the question, when the model is at hand."""
    found = []
    for order, hit in enumerate(hits):
        section = corpus.section(hit.section, hit.document)
        if section is None:
            continue
        chosen = best_quote(hit.text, query.corrected or query.text, idf=corpus.idf,
                            definition="definition" in query.topics, meaning=meaning, kind=query.detected)
        if chosen.text:
            found.append((-chosen.score, order, section, chosen.text, chosen, hit))
    if not found:
        return abstain(query, list(dict.fromkeys(hit.section for hit in hits))[:TUNED.nearest_sections], corpus=corpus)
    found.sort(key=lambda item: (item[0], item[1]))
    top, top_hit = found[0][4], found[0][5]
    signals = {
        "quote_coverage": top.coverage,
        "answer_type_found": float(top.type_found),
        # A time span asked and quoted (a number with a unit of time) is telling; a bare number is not
        # (list items, section numbers and other figures carry numbers too).
        "duration_found": float(top.type_found and query.detected == "duration"),
        "both_retrievers": float(top_hit.bm25_rank is not None and top_hit.dense_rank is not None),
        "hit_rank": float(top_hit.rank),
        "dense_score": float(top_hit.dense_score or 0.0),
    }
    if meaning is not None:
        signals["sentence_similarity"] = top.similarity
    found = [item[:4] for item in found[:2]]
    citations = [corpus.citation(section, quote) for _, _, section, quote in found]
    quotes = [f'§ {section.id} ({corpus.document_label(section.document)}, {section.date}): "{quote}"'
              for _, _, section, quote in found]
    head = found[0][3]
    if query.detected == "section":  # "which section covers variances?": the section first
        section = found[0][2]
        head = f"§ {section.id} {section.title}: {head}"
    lines = [head] + quotes + [source_line(citations, corpus)]
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=tuple(citations), route="passage",
                  signals=signals)


def definition_answer(query: Query, definition, corpus) -> Answer:
    citation = corpus.citation(definition.section, definition.text)
    lines = [definition.text, source_line([citation], corpus)]
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=(citation,), route="definition")


def abstain(query: Query, nearest: list[str], reason: str = "", corpus=None, first: str = ABSTAIN_LINE,
            label: str = "Nearest sections") -> Answer:
    lines = [first + (f" {reason}" if reason else "")]
    lines.extend(cited_not_loaded(query, nearest, corpus))
    if nearest:
        lines.append(f"{label}: " + "; ".join(section_label(s, corpus) for s in nearest) + ".")
    lines.append("Please ask the City of Cotati Planning Department.")
    return Answer(question=query.text, answer="\n".join(lines), abstained=True, route="abstain", nearest=tuple(nearest))


def cited_not_loaded(query: Query, nearest: list[str], corpus, limit: int = 1) -> list[str]:
    """What the nearest sections cite about the question that the corpus does not hold, by name and
    with the citing passage ("Not loaded: Chapter 17.84 (Appeals), which the loaded text cites but does not contain — § 17.62.070 ...: "..."")."""
    graph = getattr(corpus, "references", None)
    if not nearest or graph is None:
        return []
    from ingest.references import cited_missing

    found = cited_missing(without_generic(query.corrected or query.text), list(nearest), graph(), limit)
    return [f"Not loaded: {target.label}, which the loaded text cites but does not contain — "
            f'{section_label(reference.section, corpus)}: "{reference.passage}"' for target, reference in found]


# Words that name no subject of their own: "was a bar allowed in TOC?" is not about § 17.24.050, "Limitation on
# the Location of Allowable Land Uses", though both say "allowed".
GENERIC_WORDS = re.compile(r"\b(?:allow(?:s|ed|able)?|uses?|land|limitations?|locations?|general|standards?|regulations?)\b",
                           re.I)


def without_generic(question: str) -> str:
    """The question without the words that tie it to no cited section in particular."""
    return " ".join(GENERIC_WORDS.sub(" ", question).split())


def section_label(section_id: str, corpus) -> str:
    """"§ 17.36.050 Number of parking spaces required"; an ordinance part by its document."""
    section = corpus.section(section_id) if corpus is not None else None
    if section is None:
        return section_id
    if ":" in section_id:
        return f"{corpus.document_label(section.document)}, {section.ordinance_section or section_id.split(':', 1)[1]}".strip()
    return f"§ {section_id} {section.title}".strip()


def _opening(text: str, limit: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _district_label(symbol: str, corpus) -> str:
    district = corpus.vocabulary.district(symbol)
    return f"{symbol} ({district.name})" if district else symbol


def source_line(citations, corpus) -> str:
    parts = []
    for citation in citations:
        table = f", {citation.table}" if citation.table else ""
        parts.append(f"§ {citation.section}{table} — {corpus.document_label(citation.document)}, {citation.date}")
    return "Source: " + "; ".join(dict.fromkeys(parts))


def standards_answer(query: Query, lookup, corpus) -> Answer:
    """The standards row in words: its value, or each column's value, then notes and source."""
    entries = [entry for entry in lookup.entries]
    where = f" in {lookup.district}" if lookup.district and lookup.district != lookup.row else ""
    values = [(entry.cell.column, _standard_value(entry.cell)) for entry in entries]
    if len(values) == 1 and lookup.several_columns:
        first = f"{lookup.row}{where}, {values[0][0]}: {values[0][1]}"
    elif len(values) == 1:
        first = f"{lookup.row}{where}: {values[0][1]}"
    else:
        first = f"{lookup.row}{where}: " + "; ".join(f"{column}: {value}" for column, value in values)
    lines = [first]
    seen: set[str] = set()
    for entry in entries:
        lines.extend(_new_notes(entry.cell, seen))
        changed = [h for h in entry.history if h.value != entry.cell.value]
        if changed:
            old = changed[-1]
            lines.append(f"Amended: {entry.cell.column} was {old.value or 'unreadable'} under "
                         f"{corpus.document_label(old.document)} ({old.date}).")
    cell = entries[0].cell
    citation = table_citation(cell, corpus)
    if reviewed_line(e.cell for e in entries):
        lines.append(reviewed_line(e.cell for e in entries))
    lines.append(source_line([citation], corpus))
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=(citation,),
                  lookups=tuple(entry.to_json() for entry in entries), route="standards")


def joined(query: Query, answers: list[Answer], corpus) -> Answer:
    """Several answers as one: their first lines joined, then each one's other lines, one source."""
    lines = ["; ".join(a.first_line for a in answers)]
    for a in answers:
        lines.extend(line for line in a.answer.split("\n")[1:] if not line.startswith("Source:") and line not in lines)
    citations = tuple({(c.section, c.document, c.table): c for a in answers for c in a.citations}.values())
    lines.append(source_line(list(citations), corpus))
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=citations,
                  lookups=tuple(cell for a in answers for cell in a.lookups), route=answers[0].route)


def standards_overview(query: Query, lookups, corpus) -> Answer:
    """A whole small standards table, row by row: the answer when the question names the table's
    topic but no row ("How tall can a fence be?")."""
    first_cell = lookups[0].entries[0].cell
    rows = []
    for lookup in lookups:
        values = [f"{_standard_value(e.cell)}" for e in lookup.entries if not e.cell.column.startswith("Applicable")]
        category = lookup.entries[0].cell.category
        rows.append(f"{category + ' - ' if category else ''}{lookup.row}: {'; '.join(values)}")
    lines = [f"It depends on where: Table {first_cell.table} (§ {first_cell.section}) sets " + " | ".join(rows) + "."]
    seen: set[str] = set()
    for lookup in lookups:
        for entry in lookup.entries:
            lines.extend(_new_notes(entry.cell, seen))
    citation = table_citation(first_cell, corpus)
    lines.append(source_line([citation], corpus))
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=(citation,),
                  lookups=tuple(e.to_json() for lookup in lookups for e in lookup.entries), route="standards_table")


def table_citation(cell, corpus, quote: str | None = None) -> Citation:
    """The citation of a table cell: its section, document and printed line (or ``quote``)."""
    return Citation(section=cell.section, title=corpus.title_of(cell.section, cell.document), document=cell.document,
                    date=cell.date, quote=cell.source or cell.raw if quote is None else quote,
                    table=f"Table {cell.table}", ordinance_section=cell.ordinance_section)


def _new_notes(cell, seen: set[str]) -> list[str]:
    """The cell's footnotes not given yet (``seen`` holds the numbers already given)."""
    lines = []
    for note in cell.footnotes:
        if note.text and note.number not in seen:
            seen.add(note.number)
            lines.append(f"Note ({note.number}): {note_text(note.text)}")
    return lines


# A table's last note run on, in the flattened print, into the next printed copy of its section: the section's
# number and title, then "Table N-N" and the table's rows again (Table 6-1's note (2) in Ord. 939).
_SPILL = re.compile(r"\s+\d{1,2}\.\d{2}\.\d{3}\s+[A-Z][^.]{3,80}\.\s+Table \d{1,2}-\d{1,2}\b")


def note_text(text: str) -> str:
    """A footnote's own words, without the next copy of its table that the flattened print ran on into."""
    found = _SPILL.search(text)
    return text[: found.start()].rstrip() if found else text


def _standard_value(cell) -> str:
    if cell.value is None and cell.reviewed:
        return reading_words(cell)
    if cell.value is None or not cell.answered:
        return "could not be read with confidence (see the table)"
    return cell.value


def table_answer(query: Query, table, cells, corpus, parts=(), elsewhere=()) -> Answer:
    """A table asked for by number (routes/table.py's data): which table it is (number, title, the
    section printing it), its columns and rows, the documents that printed it, cited; ``parts``: the
    parts printed under the same number, named (each answers when asked by its own words);
    ``elsewhere``: the tables another section prints under the same number, named with their section."""
    section = f"§ {table.section} {corpus.title_of(table.section, table.prints[-1][0])}".strip()
    lines = [f"Table {table.number}{' ' + table.title if table.title else ''} ({section})."]
    rows = list(dict.fromkeys((e.cell.category, e.cell.row) for e in cells))
    columns = list(dict.fromkeys(e.cell.column for e in cells))
    if any(e.cell.kind == "permit" for e in cells):
        # A land-use table is a grid of hundreds of cells: named by its shape; the page draws the grid.
        lines.append(f"{len(rows)} land uses (rows); columns: {', '.join(columns)}.")
    else:
        for category, row in rows:
            values = [f"{e.cell.column}: {_standard_value(e.cell)}" for e in cells
                      if (e.cell.category, e.cell.row) == (category, row)]
            lines.append(f"{category + ' - ' if category else ''}{row}: {'; '.join(values)}")
    lines.extend(f"Also printed as Table {p.number}: {p.title or p.key} (ask for \"Table {p.key}\")." for p in parts)
    # named only: asked by its own words it is a candidate, but the ranker has no such questions to learn from yet
    lines.extend(f"Another Table {t.number} is printed in § {t.section}: {t.title or t.key}." for t in elsewhere)
    printed = [f"{corpus.document_label(doc)} ({date})" for doc, date in table.prints]
    lines.append("Printed in: " + "; ".join(printed) + ".")
    newest = max(cells, key=lambda e: (e.cell.date, e.cell.document)).cell if cells else None
    document, date = (newest.document, newest.date) if newest is not None else table.prints[-1]
    citation = Citation(section=table.section, title=corpus.title_of(table.section, document), document=document,
                        date=date, quote=f"Table {table.number} {table.title}".strip(), table=f"Table {table.key}")
    lines.append(source_line([citation], corpus))
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=(citation,),
                  lookups=tuple(e.to_json() for e in cells), route="table")


def citation_answer(query: Query, section, corpus, subject: str) -> Answer:
    """The citation asked for: the section's number and title, the document printing it and its date,
    and the sentence of it that speaks of ``subject``."""
    document = corpus.documents.get(section.document)
    quote = best_quote(section.text, subject, idf=corpus.idf).text or _opening(section.text)
    lines = [f"§ {section.id} {section.title}".strip() + f" ({corpus.document_label(section.document)}, "
             f"{section.date or (document.date if document else '')}).", f'"{quote}"']
    citation = corpus.citation(section, quote)
    lines.append(source_line([citation], corpus))
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=(citation,), route="citation")


def last_change_answer(query: Query, corpus, document: str, date: str, section_id: str, table: str = "",
                       cells=(), title: str = "") -> Answer:
    """The document that last changed a table or a section: its name, full title and date, cited."""
    info = corpus.documents.get(document)
    what = f"Table {table}{' ' + title if title else ''} (§ {section_id})" if table else section_label(section_id, corpus)
    lines = [f"{corpus.document_label(document)} ({date}) last changed {what}.", f"{info.title if info else document}."]
    if table and cells:
        citation = table_citation(max(cells, key=lambda e: (e.cell.date, e.cell.document)).cell, corpus)
        citation = Citation(section=section_id, title=corpus.title_of(section_id, document), document=document, date=date,
                            quote=citation.quote, table=f"Table {table}", ordinance_section=citation.ordinance_section)
    else:
        section = corpus.section(section_id, document)
        citation = corpus.citation(section, _opening(section.text)) if section is not None else Citation(
            section_id, "", document, date, "")
    lines.append(source_line([citation], corpus))
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=(citation,),
                  lookups=tuple(e.to_json() for e in cells), route="citation")


def ranking_answer(query: Query, ranked, highest: bool, by_district: bool, corpus, tied: int = 1) -> Answer:
    """Ranked cells (routes/ranking.py's data: (label, cell) best first, the first ``tied`` equal): which
    come first, then each other item's value, what was compared, cited."""
    def named(label):
        return _district_label(label, corpus) if by_district else label

    def stated(entry):
        return f"{entry.cell.value} ({entry.cell.column}, Table {entry.cell.table}, § {entry.cell.section})"

    end = "Most" if highest else "Least"
    lines = [f"{end} of those compared: " + "; ".join(f"{named(label)}, {stated(entry)}" for label, entry in ranked[:tied]) + "."]
    lines.extend(f"{named(label)}: {stated(entry)}." for label, entry in ranked[tied:])
    if by_district:
        lines.append("Compared: the districts whose own table or row in the loaded documents states it ("
                     + ", ".join(label for label, _ in ranked) + ").")
    cited = {}
    for _, entry in ranked:
        cited.setdefault((entry.cell.section, entry.cell.table, entry.cell.document), table_citation(entry.cell, corpus))
    lines.append(source_line(list(cited.values()), corpus))
    return Answer(question=query.text, answer="\n".join(lines), abstained=False, citations=tuple(cited.values()),
                  lookups=tuple(entry.to_json() for _, entry in ranked), route="ranking")
