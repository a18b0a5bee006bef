"""Chunking: every chunk fits the encoder, keeps its section id, heading and pages, loses no text."""

from __future__ import annotations

import pytest
from conftest_index import section, sections, table_rows

from index.chunks import (
    MAX_PIECES,
    SPECIAL_PIECES,
    chunk_corpus,
    estimate_pieces,
    split_passages,
    table_captions,
)

WORD_LIMIT = 180  # all-MiniLM-L6-v2 reads 256 word pieces, "about 180 words"


def words(text: str) -> int:
    return len(text.split())


def test_no_chunk_exceeds_the_model_limit_by_the_conservative_rule():
    for c in chunk_corpus(sections(), table_rows()):
        assert estimate_pieces(c.embed_text) + SPECIAL_PIECES <= MAX_PIECES, c.id
        assert words(c.embed_text) <= WORD_LIMIT, c.id


def test_estimate_is_conservative_word_rule():
    # never fewer pieces than words: every word is at least one piece
    for text in ("A use permit is required.", "17.44.050 Table 2-4 (HC LP)", "Cotati's telecommunications"):
        assert estimate_pieces(text) >= words(text)


def test_long_section_is_split_into_parts_that_keep_id_heading_pages():
    long = next(s for s in sections() if s.id == "17.44.065" and s.document == "000")
    parts = [c for c in chunk_corpus([long])]
    assert len(parts) > 1
    assert {c.section for c in parts} == {"17.44.065"}
    assert {c.heading for c in parts} == {"17.44.065 Wireless facility setbacks"}
    assert {c.pages for c in parts} == {(3, 4, 5)}
    assert [c.part for c in parts] == list(range(1, len(parts) + 1))
    assert {c.parts for c in parts} == {len(parts)}
    assert all(c.embed_text.startswith("17.44.065 Wireless facility setbacks\n") for c in parts)
    # nothing lost, nothing duplicated
    assert " ".join(c.text for c in parts).split() == long.text.split()


def test_parts_are_balanced_no_stub_at_the_end():
    text = " ".join(f"word{i} is here." for i in range(200))
    passages = split_passages(text, 100)
    sizes = [estimate_pieces(p) for p in passages]
    assert max(sizes) <= 100
    assert min(sizes) >= 0.5 * max(sizes)


def test_lines_are_kept_when_they_fit():
    assert split_passages("line one\nline two", 100) == ["line one\nline two"]


def test_a_token_without_spaces_is_cut_to_fit():
    text = "x" * 5000
    passages = split_passages(text, 50)
    assert "".join(passages).replace(" ", "") == text  # slices of one token are re-joined by spaces
    assert all(estimate_pieces(p) <= 50 for p in passages)


def test_custom_counter_is_used():
    passages = split_passages("a b c d e f", 2, count=lambda t: len(t.split()))
    assert passages == ["a b", "c d", "e f"]


def test_chunk_ids_are_unique_and_name_document_and_section():
    chunks = chunk_corpus(sections(), table_rows())
    ids = [c.id for c in chunks]
    assert len(ids) == len(set(ids))
    assert "000/17.44.050/p01" in ids and "001/17.44.065/p01" in ids
    assert "002/17.22.020/r001" in ids


def test_same_section_twice_in_one_document_gets_distinct_ids():
    s = section("17.30.030", "Fences", "First text.")
    ids = [c.id for c in chunk_corpus([s, s])]
    assert len(set(ids)) == 2


def test_table_rows_become_chunks_with_the_owner_title():
    rows = [c for c in chunk_corpus(sections(), table_rows()) if c.kind == "table_row"]
    assert len(rows) == 2
    assert rows[0].title == "Allowable land uses"
    assert rows[0].tables == ("2-4",)
    assert "Table 2-4" in rows[0].heading
    assert rows[0].date == "2025-12-09"


@pytest.mark.parametrize("row", [("17.22.020", "002", "Bar: UP"), {"section": "17.22.020", "document": "002", "text": "Bar: UP", "extra": 1}])
def test_table_rows_accept_tuples_and_dicts(row):
    chunks = chunk_corpus(sections(), [row])
    assert chunks[-1].kind == "table_row" and chunks[-1].text == "Bar: UP"


def test_captions_not_references():
    assert table_captions("Table 3-7\nParking Requirements") == ("3-7",)
    assert table_captions("17.22.020 Allowable land uses. (excerpt) Table 2-4") == ("2-4",)
    assert table_captions("shown in Table 2-4 for the applicable zoning district.") == ()
    assert table_captions("Table 2\u20134 Allowed uses") == ("2-4",)


def test_empty_section_still_has_one_chunk():
    chunks = chunk_corpus([section("17.99.010", "Reserved", "")])
    assert len(chunks) == 1 and chunks[0].text == ""


def test_tiny_limit_is_refused():
    with pytest.raises(ValueError):
        chunk_corpus(sections(), max_pieces=20)


def test_table_rows_from_parsed_cells():
    from types import SimpleNamespace as NS

    from index.corpus import table_rows_from_cells

    def cell(row, column, value, document="002", date="2025-12-09"):
        return NS(cell=NS(table="2-4", section="17.22.020", category="Retail Trade", row=row, column=column,
                          value=value, document=document, date=date, regulation="17.42.030" if row == "Bar" else ""))

    cells = [cell("Bar", "HC", "UP"), cell("Bar", "LP", "MUP", document="001", date="2026-08-11"), cell("Bank", "HC", None)]
    rows = table_rows_from_cells(cells)
    assert [r.text for r in rows] == ["Retail Trade - Bar: HC UP; LP MUP. Regulations 17.42.030", "Retail Trade - Bank: HC ?."]
    assert rows[0].document == "001" and rows[0].table == "2-4"  # newest document among the row's cells
    chunks = chunk_corpus(sections(), rows)
    assert [c.title for c in chunks if c.kind == "table_row"] == ["Allowable land uses"] * 2  # owner found in another document
