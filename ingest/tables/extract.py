"""Dispatch: find the tables in each section, pick each table's layout and parser, collect versions."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from .amendments import effective_cells
from .reviewed import apply_readings
from .segment import TableBlock, find_tables
from .types import TableError, TableSet, TableVersion
from .vocab import layouts


class SectionLike(Protocol):
    id: str
    document: str
    date: str
    text: str
    excerpt: bool
    ordinance_section: str


def layout_for(section: str, block: TableBlock) -> dict | None:
    """The layout spec of a table printed in ``section``: same section and number, title matches."""
    candidates = [
        spec for spec in layouts().values()
        if spec["section"] == section and spec["number"] == block.number
    ]
    head = " ".join(line.strip() for line in block.lines[:3])
    for spec in candidates:
        if re.search(spec.get("title", ""), head, re.I):
            return spec
    return None


# Layout specs name their parser; only these modules may be named (a typo is an error, not an import).
PARSERS = ("permits", "cannabis", "standards", "density", "districts", "authority")


def _parser(spec: dict, where: str):
    name = spec.get("parser", "")
    if name not in PARSERS:
        raise TableError(where, f"layout names unknown parser {name!r}")
    return importlib.import_module(f"{__package__}.{name}")


def extract_versions(sections: Iterable[SectionLike]) -> tuple[list[TableVersion], list[TableError]]:
    versions: list[TableVersion] = []
    errors: list[TableError] = []
    for section in sections:
        for block in find_tables(section.text):
            spec = layout_for(section.id, block)
            if spec is None:
                continue  # a table this stage does not model (none in the bundled corpus)
            where = f"{section.id} Table {block.number} ({section.document})"
            try:
                version = _parser(spec, where).parse(block, spec, section)
            except TableError as error:
                errors.append(error)
                continue
            except (ValueError, KeyError, IndexError) as error:  # a parser bug on odd input: name it
                errors.append(TableError(where, f"{type(error).__name__}: {error}"))
                continue
            versions.append(version)
    return _drop_repeats(versions), errors


def _drop_repeats(versions: list[TableVersion]) -> list[TableVersion]:
    """One document printing the same table twice (002 prints Table 6-1 in SECTIONS 15 and 18):
    an identical second copy adds nothing; a different one is kept (it comes later and wins)."""
    out: list[TableVersion] = []
    for version in versions:
        same = [
            v for v in out
            if (v.section, v.table, v.document) == (version.section, version.table, version.document)
        ]
        if same and any(_cell_values(v) == _cell_values(version) for v in same):
            continue
        out.append(version)
    return out


def _cell_values(version: TableVersion) -> list[tuple]:
    return [(c.category, c.row, c.column, c.value, c.footnotes, c.review) for c in version.cells]


def build_tables(sections: Iterable[SectionLike], as_of: str | None = None) -> TableSet:
    """Versions as parsed, and effective cells: reviewed readings fill flagged cells, then
    amendments apply in date order. With ``as_of`` (ISO date), documents dated later are ignored."""
    versions, errors = extract_versions(sections)
    return tables_from_versions(versions, errors, as_of)


def tables_from_versions(versions: Iterable[TableVersion], errors: Iterable[TableError] = (),
                         as_of: str | None = None) -> TableSet:
    versions = list(versions)
    if as_of:  # an undated document cannot be placed before the date: left out
        versions = [v for v in versions if v.date and v.date <= as_of]
    effective = effective_cells(apply_readings(versions))
    return TableSet(tuple(versions), tuple(effective), tuple(errors), as_of or "")


def tables_as_of(tables: TableSet, as_of: str) -> TableSet:
    """The law as it stood on ``as_of``: only versions of documents dated on or before it."""
    return tables_from_versions(tables.versions, tables.errors, as_of)


def load_tables(corpus_dir: str | Path | None = None, as_of: str | None = None) -> TableSet:
    from ingest import load_corpus  # the ingest stage proper; imported when first needed

    result = load_corpus(corpus_dir)
    return build_tables(result.sections, as_of)
