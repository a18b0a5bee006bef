"""A section's text view reads as text (issue 46): its printed tables shown as their titles with a link to each
as a grid (the flattened printed lines folded), its running text as paragraphs. Hermetic: the bundled corpus."""

from __future__ import annotations

import re

import pytest

from webapp import pages, structure


@pytest.fixture(scope="module")
def engine():
    from webapp.engine import Engine

    return Engine.load(echo=lambda line: None, wait_seconds=0)


@pytest.mark.parametrize("document,tables", [("000", ["2-2", "2-2", "2-3", "2-4"]), ("001", ["2-4"])])
def test_printed_tables_are_table_blocks_not_paragraphs(engine, document, tables):
    """17.22.020 as the telecommunications ordinance prints it opens with Table 2-2 (no heading line); as the
    corrections ordinance prints it, Table 2-4 starts on the heading's own line. Both are tables, not paragraphs."""
    section = engine.section("17.22.020", document)
    laid = structure.blocks(section.text, section.id, section.title)
    assert [b.table for b in laid if b.kind == "table"] == tables
    assert not any(re.match(r"Tables?\s+\d", section.text[b.start:b.end]) for b in laid if b.kind != "table")
    assert max(b.end - b.start for b in laid if b.kind in ("para", "item")) < 1000  # no flattened table as text


def test_a_section_view_links_each_parsed_table_as_a_grid_and_folds_its_printed_lines(engine):
    section = engine.section("17.22.020", "000")
    view = pages.section_view(section, "Telecommunications facilities ordinance", "Cite", grids=engine.grids_of(section.id))
    titles = re.findall(r'<p class="table-title">([^<]+)</p>', view)
    assert titles[0].startswith("Table 2-2 Allowed Land Uses and Permit Requirements for Low Density")
    assert titles[1].startswith("Table 2-2: Allowed Land Uses and Permit Requirements - Cannabis Uses")
    links = re.findall(r'<a href="([^"]+)"[^>]*class="grid-open"[^>]*>([^<]+)</a>', view)
    assert [(href.replace("&amp;", "&"), text) for href, text in links] == [
        ("?section=17.22.020&table=2-2", "Open Table 2-2 as a grid"),
        ("?section=17.22.020&table=2-2+cannabis", "Open Table 2-2 cannabis as a grid"),
        ("?section=17.22.020&table=2-3", "Open Table 2-3 as a grid"),
        ("?section=17.22.020&table=2-4", "Open Table 2-4 as a grid")]
    assert view.count("<details><summary>The table as printed") == 4  # folded: the section reads as text
    # A quote inside a printed table opens its printed lines, marked.
    quoted = pages.section_view(section, "Ord", "Cite", quote="Bar, tavern", grids=engine.grids_of(section.id))
    assert re.search(r'<details open><summary>The table as printed[^<]*</summary><pre>[^<]*<mark class="quote"', quoted)
