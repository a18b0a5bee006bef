"""What the loaded corpus covers: each document with its date, the sections and tables it holds,
and what the text cites that is not loaded (``ingest.references``). Pure functions over the
manifest records, sections and table versions; ``python -m assistant coverage`` prints it and the
web app shows it as its coverage page and header line.
"""

from __future__ import annotations

from dataclasses import dataclass

from .references import Graph, Target, number_key


@dataclass(frozen=True)
class DocumentCoverage:
    """One loaded document: its manifest record's names and date, its sections ((id, title), in
    printed order) and its tables ((table, section), by number)."""

    id: str
    title: str
    short_title: str
    kind: str
    date: str
    status: str
    sections: tuple[tuple[str, str], ...]
    tables: tuple[tuple[str, str], ...]

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "short_title": self.short_title, "kind": self.kind, "date": self.date,
                "status": self.status, "sections": [{"section": s, "title": t} for s, t in self.sections],
                "tables": [{"table": t, "section": s} for t, s in self.tables]}


@dataclass(frozen=True)
class Coverage:
    documents: tuple[DocumentCoverage, ...]  # oldest first
    graph: Graph

    @property
    def tables(self) -> tuple[str, ...]:
        """Every table number any document prints, by number ("2-2 cannabis" counts as 2-2)."""
        numbers = {table.split()[0] for d in self.documents for table, _ in d.tables}
        return tuple(sorted(numbers, key=number_key))

    @property
    def codified_chapters(self) -> tuple[str, ...]:
        return tuple(c for c, status in self.graph.chapters.items() if status == "loaded")

    def missing(self) -> tuple[Target, ...]:
        return self.graph.missing()

    def to_json(self) -> dict:
        sections = sorted(self.graph.sections, key=number_key)
        return {"documents": [d.to_json() for d in self.documents], "loaded_sections": sections,
                "chapters": self.graph.chapters, "tables": list(self.tables),
                "cited_not_loaded": [t.to_json() for t in self.missing()],
                "cited_unresolved": [t.to_json() for t in self.graph.targets if t.status == "unresolved"]}


def document_coverage(document, sections, versions) -> DocumentCoverage:
    """``document``: a manifest record (``ingest.types.DocumentInfo``); ``sections`` and ``versions``
    (``ingest.tables.types.TableVersion``) of the whole corpus: only the document's own are kept."""
    own = tuple((s.id, s.title) for s in sections if s.document == document.id)
    tables = sorted({(v.table, v.section) for v in versions if v.document == document.id},
                    key=lambda pair: (number_key(pair[0].split()[0]), pair[0]))
    return DocumentCoverage(document.id, document.title, document.short_title or document.title, document.kind,
                            document.date, document.status, own, tuple(tables))


def build_coverage(documents, sections, versions, graph: Graph) -> Coverage:
    ordered = sorted(documents, key=lambda d: (d.date, d.id))
    return Coverage(tuple(document_coverage(d, sections, versions) for d in ordered), graph)


def summary_line(coverage: Coverage) -> str:
    """"4 documents dated 2023-11-06 to 2026-08-11: 3 ordinances and codified Chapter 17.20; Tables 2-1 to
    6-1 as amended" (what the app's header says is loaded)."""
    documents = coverage.documents
    if not documents:
        return "No documents are loaded."
    dates = sorted(d.date for d in documents if d.date)
    when = (f" dated {dates[0]}" + (f" to {dates[-1]}" if dates[-1] != dates[0] else "")) if dates else ""
    ordinances = sum(1 for d in documents if d.kind == "ordinance")
    parts = [f"{ordinances} ordinance{'s' if ordinances != 1 else ''}"] if ordinances else []
    chapters = coverage.codified_chapters
    if chapters:
        parts.append("codified Chapter" + ("s " if len(chapters) > 1 else " ") + ", ".join(chapters))
    others = len(documents) - ordinances - sum(1 for d in documents if d.kind == "codified chapter")
    if others > 0:
        parts.append(f"{others} other document{'s' if others != 1 else ''}")
    line = f"{len(documents)} document{'s' if len(documents) != 1 else ''}{when}: " + " and ".join(parts)
    tables = coverage.tables
    if tables:
        line += f"; Table {tables[0]}" if len(tables) == 1 else f"; Tables {tables[0]} to {tables[-1]}"
        line += " as amended"
    return line


def coverage_of(sections, documents, versions=None) -> Coverage:
    """The coverage of loaded ``sections`` and manifest ``documents``; ``versions``: the table
    versions (read from the sections when not given)."""
    from .references import build_graph

    sections = list(sections)
    if versions is None:
        from .tables import build_tables

        versions = build_tables(sections).versions
    codified = frozenset(d.chapter for d in documents if d.kind == "codified chapter" and d.chapter)
    return build_coverage(documents, sections, versions, build_graph(sections, codified))
