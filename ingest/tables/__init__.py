"""Structured tables of Title 17: every table cell with its source, amendments applied in date order.

Public API:
- ``extract_versions(sections)``: the tables each section prints, one ``TableVersion`` per
  (section, table, document), plus one ``TableError`` per table that could not be read.
- ``build_tables(sections)``: versions and effective cells (``TableSet``).
- ``load_tables(corpus_dir=None)``: the same for the corpus ``ingest.load_corpus`` reads.

Parsers take ``ingest.types.Section`` records (or anything with ``id``, ``document``, ``date``,
``text``, ``excerpt``, ``ordinance_section``); they never read files themselves.
"""

from __future__ import annotations

from .extract import build_tables, extract_versions, load_tables
from .types import Cell, EffectiveCell, Footnote, HistoryEntry, Quantity, TableError, TableSet, TableVersion

__all__ = [
    "Cell", "EffectiveCell", "Footnote", "HistoryEntry", "Quantity", "TableError", "TableSet",
    "TableVersion", "build_tables", "extract_versions", "load_tables",
]
