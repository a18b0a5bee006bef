""""What did ordinance X change?" (issue 23 item 2): the document's changes grouped by table and
section, the same content as ``python -m ingest diff --document ID`` (``ingest.changes.
loaded_document_diff``): each table cell whose value it changed (old -> new, the rows and districts,
both documents cited), the cells and columns it added, the rows its full restatement dropped, the
sections it restates or adds and the parcels it rezones. Long lists are capped with a pointer to the
full list. Gives ``change_list``; the composition is pure over a ``Diff`` and the corpus.

A question asks for the whole list when, once the document's name and the words of change are taken
out, nothing names a use, district or topic ("what did Ord. 939 change?", "what changed with the
Santero Way ordinance?"); one that names something ("... about live/work in HC") is answered from
that cell's history instead (``assistant/then.py``)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from .choose import TUNED
from .permits import SHORT_WORDS, STOP, words_of
from .types import Answer, Citation

GIVES = "change_list"
# Words of a "what did X change" question that name nothing in the code (general English).
ASKING = frozenset("what which did does do has have had make made anything everything change changes changed "
                   "amend amended amendment amendments alter altered modify modified ordinance ord no number the "
                   "code rules law laws city anything all list summary summarize overall please pls re about with in "
                   "to it its new did get got was were bring brought come came table tables section sections".split())
MAP_WORDS = re.compile(r"\b(?:map|rezon\w*|parcels?)\b", re.I)


# A staff memo's subject line ("Re: council briefing.") says what the memo is for, not what is asked.
MEMO_SUBJECT = re.compile(r"^\s*re:[^.?!]*[.?!]\s*", re.I)


def asks_everything(rest: str, document=None) -> bool:
    """True when the question, without the document's name and the words of change, names nothing
    (the words of the document's own title name it: "the Santero Way / TOC ordinance")."""
    own = set(words_of(f"{document.title} {document.short_title}")) if document is not None else set()
    words = [w for w in words_of(MEMO_SUBJECT.sub("", rest)) if w not in STOP and w not in ASKING and w not in own
             and not w.isdigit()]
    return not words or all(MAP_WORDS.fullmatch(w) or w in ("zoning", "map") for w in words)


def asks_the_map(rest: str) -> bool:
    return bool(MAP_WORDS.search(rest))


def answer_changes(question: str, diff, corpus, map_only: bool = False) -> Answer:
    """The answer listing what ``diff.document`` changed (``map_only``: its rezonings alone)."""
    document = diff.document
    label = f"{document.short_title or document.title} ({document.date})"
    rezoned = _rezoning_lines(diff, corpus)
    if map_only:
        first = f"{label} rezoned {_count(len(diff.rezonings), 'parcel')}" + (":" if rezoned else ".")
        lines, cited = [first, *(line for line, _ in rezoned)], [c for _, c in rezoned]
    else:
        lines, cited = _everything(diff, corpus, label, rezoned)
    citations = tuple({(c.section, c.document, c.table): c for c in cited}.values())
    lines.append(_source_line(citations, corpus))
    lookups = () if map_only else tuple(_lookup(change, diff) for change in diff.cells if change.kind == "changed")
    return Answer(question=question, answer="\n".join(lines), abstained=False, citations=citations, route="change",
                  lookups=lookups, interpretation={"document": document.id, "asks": "what it changed"})


# What a document's cells are, as both its change answer and its change page (``webapp/changes.py``) count them
# (issue 46: the answer said "changed 41 table cells, added 735" where the page said 800): every cell kind
# ``ingest.changes`` lists, in words that say what the text says.
CELL_KINDS = (("changed", "changed value"), ("added", "added"), ("dropped", "not restated"),
              ("unreadable", "unreadable in its print"))
NOT_RESTATED = "not restated; the loaded text does not say they were repealed"


def cell_counts(cells) -> tuple[int, str]:
    """(how many cells a document's diff lists, "41 changed value, 735 added, 16 not restated (2 rows), 8
    unreadable in its print"): ``cells`` carry ``kind``, ``table`` and ``row`` (``ingest.changes.CellChange``);
    restated-unchanged cells are not among them."""
    listed = [c for c in cells if c.kind != "restated"]
    parts = []
    for kind, words in CELL_KINDS:
        of_kind = [c for c in listed if c.kind == kind]
        if not of_kind:
            continue
        part = f"{len(of_kind)} {words}"
        if kind == "dropped":
            rows = len({(c.table, c.row) for c in of_kind})
            part += f" ({_count(rows, 'row')})"
        parts.append(part)
    return len(listed), ", ".join(parts)


def _lookup(change, diff) -> dict:
    """A changed cell as the answer's ``lookups`` carry cells: its new value from this document, the
    value before it as its history (the keys of ``python -m ingest tables --json``)."""
    old = [{"value": change.old, "document": change.old_document}] if change.old_document else []
    return {"table": change.table, "section": change.section, "category": change.category, "row": change.row,
            "column": change.column, "value": change.new, "document": diff.document.id, "date": diff.document.date,
            "history": old}


def _everything(diff, corpus, label: str, rezoned) -> tuple[list[str], list[Citation]]:
    changed = [c for c in diff.cells if c.kind == "changed"]
    added = [c for c in diff.cells if c.kind == "added"]
    earlier = {c.old_document for c in diff.cells if c.old_document}
    counted = ""
    if not earlier and added:
        first = (f"{label} is the oldest loaded document: the tables' histories begin with it, so the loaded documents do not "
                 f"show what it changed. It states {_count(len(added), 'table cell')} and "
                 f"{_count(len(diff.sections), 'code section')}:")
    else:
        total, counted = cell_counts(diff.cells)
        first = (f"{label}: {_count(total, 'table cell')} differ from the law before it, and it restates or adds "
                 f"{_count(len(diff.sections), 'code section')}:")
    lines, cited = [first], []
    if counted:
        lines.append(f"Table cells: {counted}.")  # as its change page counts them
    lines += [line for line, _ in rezoned]
    cited += [c for _, c in rezoned]
    shown, rest = _cell_lines(diff, corpus, changed)
    lines += [line for line, _ in shown]
    cited += [c for _, cs in shown for c in cs]
    districts = frozenset(d.symbol for d in corpus.vocabulary.districts)
    lines += _added_lines(diff, added, districts) + _dropped_lines(diff)
    lines.append(_sections_line(diff))
    more = rest + max(0, len(diff.sections) - TUNED.changes_section_cap)
    if more:
        lines.append(f"... and {more} more; the full list: `python -m ingest diff --document {diff.document.id}`.")
    cited += _section_citations(diff, corpus)
    return lines, cited


def _cell_lines(diff, corpus, changed) -> tuple[list[tuple[str, list[Citation]]], int]:
    """One line per table: its changed rows, each with the districts whose value went from one code
    to another ("Live/work unit: HC, LP, CA permitted (P) -> use permit (UP)"), capped at ``changes_cell_cap``
    rows; and how many rows were left out."""
    by_table: dict[tuple[str, str], dict[tuple[str, str, str], list[str]]] = defaultdict(lambda: defaultdict(list))
    old_documents: dict[tuple[str, str], set[str]] = defaultdict(set)
    for change in changed:
        key = (change.table, change.section)
        by_table[key][(change.row, _words(change.old), _words(change.new))].append(change.column)
        old_documents[key].add(change.old_document)
    out, budget, left = [], TUNED.changes_cell_cap, 0
    for (table, section), rows in by_table.items():
        items = list(rows.items())
        shown, left = items[:budget], left + max(0, len(items) - budget)
        budget -= len(shown)
        if not shown:
            continue
        was = ", ".join(f"{corpus.document_label(d)}, {_date(corpus, d)}" for d in sorted(old_documents[(table, section)]) if d)
        lines = [f"Table {table} (§ {section})" + (f", changed from {was}:" if was else ":")]
        lines += [f"- {row} in {', '.join(columns)}: {old} -> {new}" for (row, old, new), columns in shown]
        citations = [_table_citation(corpus, section, d, table) for d in (diff.document.id, *sorted(old_documents[(table, section)]))]
        out.append(("\n".join(lines), [c for c in citations if c is not None]))
    return out, left


def _added_lines(diff, added, districts: frozenset = frozenset()) -> list[str]:
    """Per table, how many cells first appear with this document, and the district columns that do."""
    known = defaultdict(set)
    for change in diff.cells:
        if change.kind != "added":
            known[change.table].add(change.column)
    by_table = defaultdict(list)
    for change in added:
        by_table[(change.table, change.section)].append(change)
    lines = []
    for (table, section), cells in by_table.items():
        columns = [c for c in dict.fromkeys(x.column for x in cells) if c not in known[table] and c in districts]
        part = f"new columns {', '.join(columns)}" if columns and known[table] else ""
        lines.append(f"Table {table} (§ {section}): adds {_count(len(cells), 'cell')}" + (f" ({part})." if part else "."))
    return lines


def _dropped_lines(diff) -> list[str]:
    rows = list(dict.fromkeys((c.table, c.row) for c in diff.cells if c.kind == "dropped"))
    if not rows:
        return []
    shown = "; ".join(f"{row} (Table {table})" for table, row in rows[:TUNED.changes_section_cap])
    return [f"Rows its full restatement does not print ({NOT_RESTATED}): {shown}"
            + (f" and {len(rows) - TUNED.changes_section_cap} more." if len(rows) > TUNED.changes_section_cap else ".")]


def _sections_line(diff) -> str:
    by_kind = defaultdict(list)
    for change in diff.sections:
        by_kind[change.kind].append(f"§ {change.section}" + (" (excerpt)" if change.excerpt else ""))
    names = {"restated": "restates", "added": "adds", "superseded": "restates (later superseded)"}
    parts, budget = [], TUNED.changes_section_cap
    for kind in ("restated", "added", "superseded"):
        shown = by_kind[kind][:budget]
        budget -= len(shown)
        if shown:
            parts.append(f"{names[kind]} {', '.join(shown)}")
    return "Sections: " + ("; ".join(parts) if parts else "none") + "."


def _rezoning_lines(diff, corpus) -> list[tuple[str, Citation]]:
    out = []
    for item in diff.rezonings:
        # the section whose text states the rezoning (not a title that only names the parcel)
        section = next((s for s in corpus.sections if s.document == diff.document.id and item.text in " ".join(s.text.split())), None)
        if section is None:
            continue
        out.append((f"Rezones APN {item.apn} from {item.old} to {item.new} ({section.id}).", corpus.citation(section, item.text)))
    return out


def _section_citations(diff, corpus) -> list[Citation]:
    out = []
    for change in diff.sections[:TUNED.changes_section_cap]:
        section = corpus.section(change.section, diff.document.id)
        if section is not None:
            out.append(corpus.citation(section, section.title))
    return out


def _table_citation(corpus, section_id: str, document: str, table: str) -> Citation | None:
    section = corpus.section(section_id, document)
    if section is None:
        return None
    citation = corpus.citation(section, f"Table {table}")
    return Citation(**{**citation.__dict__, "table": f"Table {table}"})


def _source_line(citations: Sequence[Citation], corpus) -> str:
    parts = [f"§ {c.section}{', ' + c.table if c.table else ''} — {corpus.document_label(c.document)}, {c.date}" for c in citations]
    return "Source: " + "; ".join(dict.fromkeys(parts))


def _words(value) -> str:
    return "no value read" if value is None else SHORT_WORDS.get(value, f'"{value}"')


def _date(corpus, document: str) -> str:
    info = corpus.documents.get(document)
    return info.date if info else ""


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
