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

from typing import Any

# Each name from its module, imported on first use: reading the cells kept beside the index needs
# only ``types`` (and an answer ``reviewed``), not the parsers a cold answer never runs (issue 25).
_EXPORTS = {
    **dict.fromkeys(("build_tables", "extract_versions", "load_tables", "tables_as_of", "tables_from_versions"), "extract"),
    **dict.fromkeys(("apply_readings", "load_readings", "reading_words", "reviewed_line"), "reviewed"),
    **dict.fromkeys(("Cell", "EffectiveCell", "Footnote", "HistoryEntry", "Quantity", "Reading", "SourceLine",
                     "TableError", "TableSet", "TableVersion"), "types"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        from importlib import import_module

        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
