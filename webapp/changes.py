"""What one loaded document changed, as a page (``/?changes=002``): the content of
``python -m ingest diff`` (``ingest/changes.py``) for a document already in the corpus.

``ingest diff`` compares the corpus without and with a new document. For a loaded document the
corpus "without it" is the law the day it came in: the documents before it in date order (the
order amendments apply in), so the page says what that document changed then, each cell old ->
new with both documents cited, grouped by table and by section, and, where a later document has
changed the cell again, its value now.
"""

from __future__ import annotations

from dataclasses import dataclass

from ingest.changes import CellChange, SectionChange, cell_changes

from . import pages


FOLD_AFTER = 40  # cells of one table listed open; more are folded under a summary


@dataclass(frozen=True)
class DocumentChanges:
    document: object  # ingest.types.DocumentInfo
    sections: tuple[SectionChange, ...]
    cells: tuple[CellChange, ...]  # changed, added, dropped or unreadable cells (ingest diff's "changed_cells")
    restated: int  # cells it restated with the value they already had


def document_changes(sections, documents, document_id: str) -> DocumentChanges | None:
    """What ``document_id`` changed when it came in; None when no such document is loaded."""
    from ingest.tables import build_tables

    document = next((d for d in documents if d.id == document_id), None)
    if document is None:
        return None
    earlier = {d.id for d in documents if (d.date, d.id) < (document.date, document.id)}
    before = [s for s in sections if s.document in earlier]
    ours = [s for s in sections if s.document == document.id]
    cells = cell_changes(build_tables(before + ours).effective, document.id)  # as ingest diff classifies them
    changed = tuple(c for c in cells if c.kind != "restated")
    return DocumentChanges(document, tuple(_section_changes(ours, before)), changed, len(cells) - len(changed))


def _section_changes(ours, before) -> list[SectionChange]:
    """Each code section the document states: restated (naming the statement it replaced) or added."""
    out = []
    for section in ours:
        if section.kind != "code":
            continue
        earlier = [s for s in before if s.id == section.id]
        if earlier:
            newest = max(earlier, key=lambda s: (s.date, s.document))
            out.append(SectionChange(section.id, section.title, "restated", newest.document, newest.date, section.excerpt))
        else:
            out.append(SectionChange(section.id, section.title, "added", excerpt=section.excerpt))
    return out


# -- the page ------------------------------------------------------------------------------------
def changes_url(document_id: str) -> str:
    return f"?changes={document_id}"


def changes_link(document_id: str, text: str) -> str:
    return pages.link(text, changes_url(document_id), {"do": "changes", "doc": document_id}, "changes-link")


def changes_page(found: DocumentChanges | None, document_id: str, label, now) -> str:
    """The page: ``label(document id)`` names documents; ``now(change)`` is the cell's effective value
    today (an ``EffectiveCell``) or None."""
    if found is None:
        return pages.note(f"No loaded document has the id {document_id!r}; the coverage page lists them.")
    document = found.document
    out = [f'<div class="changes-view" data-scroll-to="start" data-document="{pages.esc(document.id)}">',
           f'<h2 class="section-head">What {pages.esc(label(document.id))} ({pages.esc(document.date)}) changed</h2>',
           f'<p class="section-meta">Compared with the law the day before it, as the documents dated before it '
           f"state it (as <code>python -m ingest diff</code> compares a new document with the corpus). "
           f"{_cells_line(found)}</p>"]
    out.extend(_table_groups(found, label, now))
    out.extend(_section_list(found, label))
    out.append("</div>")
    return "".join(out)


def _cells_line(found: DocumentChanges) -> str:
    """The count the document's change answer gives too (``assistant.document_changes.cell_counts``)."""
    from assistant.document_changes import cell_counts

    total, counted = cell_counts(found.cells)
    listed = f"{total} table cells differ from the law before it: {counted}" if total else "No table cell differs"
    return f"{pages.esc(listed)}; {found.restated} restated unchanged."


def _table_groups(found: DocumentChanges, label, now) -> list[str]:
    groups: dict[tuple[str, str], list[CellChange]] = {}
    for change in found.cells:
        groups.setdefault((change.section, change.table), []).append(change)
    out = [f"<h3>Table cells ({len(found.cells)})</h3>"]
    if not groups:
        out.append("<p>It changed no table cell.</p>")
    for (section, table), changes in sorted(groups.items(), key=lambda item: (_number(item[0][1]), item[0][0])):
        cite = f"§ {section}, Table {table} — {label(found.document.id)}, {found.document.date}"
        grid = pages.link(f"Table {table}", pages.grid_url(section, table), {"do": "grid", "section": section, "table": table})
        out.append(f"<h4>{grid} of § {pages.esc(section)} ({len(changes)})</h4>")
        out.append(f'<p class="section-cite">Cite as: <span>{pages.esc(cite)}</span></p>')
        items = "".join(f"<li>{_cell_line(change, label, now(change))}</li>" for change in changes)
        # A long group (a first ordinance adds whole tables) is folded, so the page stays scannable.
        out.append(f'<details><summary>{len(changes)} cells</summary><ul class="cell-changes">{items}</ul></details>'
                   if len(changes) > FOLD_AFTER else f'<ul class="cell-changes">{items}</ul>')
    return out


def _cell_line(change: CellChange, label, current) -> str:
    where = change.row + (f" ({change.category})" if change.category else "") + f" | {change.column}"
    old = _value(change.old)
    was = f"{old} ({label(change.old_document)})" if change.old_document else old
    if change.kind == "added":
        text = f"{where}: new cell, {_value(change.new)}"
    elif change.kind == "dropped":
        # what the text says: the restatement leaves the row out; it does not say the row was repealed
        text = f"{where}: not restated by its full restatement (last stated {was}); the loaded text does not say it was repealed"
    elif change.kind == "unreadable":
        text = f"{where}: unreadable, needs a reviewed reading (was {was})"
    else:
        text = f"{where}: {was} -> {_value(change.new)}"
    if current is not None and change.kind != "dropped" and current.cell.value != change.new:
        text += f"; now {_value(current.cell.value)} ({label(current.cell.document)}, {current.cell.date})"
    return f'<span class="cell-change" data-kind="{pages.esc(change.kind)}">{pages.esc(text)}</span>'


def _section_list(found: DocumentChanges, label) -> list[str]:
    out = [f"<h3>Sections ({len(found.sections)})</h3>"]
    if not found.sections:
        return out + ["<p>It states no code section.</p>"]
    items = []
    for change in found.sections:
        part = " (excerpt)" if change.excerpt else ""
        name = pages.section_link(change.section, f"§ {change.section}{part} {change.title}", found.document.id)
        how = (f"restates it (in force before from {pages.esc(label(change.previous))}, {pages.esc(change.previous_date)})"
               if change.kind == "restated" else "adds it")
        items.append(f"<li>{name}: {how}</li>")
    return out + ['<ul class="section-changes">', *items, "</ul>"]


def _value(value: str | None) -> str:
    return "(none)" if value is None else (value or "(blank)")


def _number(table: str) -> tuple:
    return tuple(int(p) for p in table.replace(" ", "-").split("-") if p.isdigit())
