"""Structured tables of Title 17: every table cell with its source, amendments applied in date order.

Public API:
- ``extract_versions(sections)``: the tables each section prints, one ``TableVersion`` per
  (section, table, document), plus one ``TableError`` per table that could not be read.
- ``build_tables(sections)``: versions and effective cells (``TableSet``).
- ``load_tables(corpus_dir=None, as_of=None)``: the same for the corpus ``ingest.load_corpus`` reads.
- ``tables_as_of(tables, date)``: the effective cells as they stood on an ISO date.

Cells the parser flags for review (``Cell.review``) are filled from reviewed readings
(``data/reviewed.json``, ``Cell.reading``) before amendments apply; ``TableSet.versions`` keep
the parser's own output.

Parsers take ``ingest.types.Section`` records (or anything with ``id``, ``document``, ``date``,
``text``, ``excerpt``, ``ordinance_section``); they never read files themselves.
"""

from __future__ import annotations

from .extract import build_tables, extract_versions, load_tables, tables_as_of, tables_from_versions
from .reviewed import apply_readings, load_readings, reading_words, reviewed_line
from .types import (
    Cell, EffectiveCell, Footnote, HistoryEntry, Quantity, Reading, SourceLine, TableError, TableSet, TableVersion,
)

__all__ = [
    "Cell", "EffectiveCell", "Footnote", "HistoryEntry", "Quantity", "Reading", "SourceLine", "TableError",
    "TableSet", "TableVersion", "apply_readings", "build_tables", "extract_versions", "load_readings",
    "load_tables", "reading_words", "reviewed_line", "tables_as_of", "tables_from_versions",
]
