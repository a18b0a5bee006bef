"""Sectioning of small synthetic ordinances and codified text."""

from __future__ import annotations

from ingest.sections import parse_heading_title, split_sections
from ingest.types import DocumentInfo, Line

ORDINANCE = DocumentInfo(id="900", path="x.txt", title="Test ordinance", kind="ordinance", date="2026-01-01")
CODIFIED = DocumentInfo(id="901", path="y.txt", title="Chapter", kind="codified chapter", date="2026-02-01", chapter="17.50")


def lines_of(text: str, page: int = 1) -> list[Line]:
    return [Line(page, line) for line in text.split("\n")]


def by_id(sections):
    return {section.id: section for section in sections}


def test_chapter_amendment_yields_its_sections_and_skips_the_table_of_contents():
    text = """ORDINANCE NO.
WHEREAS, recitals.
SECTION 1: Recitals.
The recitals are true.
SECTION 2: Amendment to the Cotati Municipal Code. Chapter 17.44 is amended as follows:
Chapter 17.44
Sections:
17.44.010 Purpose.
17.44.020 Definitions.
17.44.010 Purpose.
This chapter regulates towers.
17.44.020 Definitions.
Terms are defined in Article 9, and
17.44.060 would prohibit service; a lower-case line is not a heading.
17.62.040 Decision Appeal Appeal
17.44.065 Limited Waiver to Avoid Prohibitions of Service In the event that an applicant shows need."""
    sections = by_id(split_sections(ORDINANCE, lines_of(text)))
    assert list(sections) == ["900:PREAMBLE", "900:SECTION-1", "900:SECTION-2", "17.44.010", "17.44.020", "17.44.065"]
    assert sections["17.44.010"].text == "17.44.010 Purpose.\nThis chapter regulates towers."
    assert "17.62.040 Decision Appeal Appeal" in sections["17.44.020"].text  # out of scope: not a heading
    assert sections["17.44.065"].title == "Limited Waiver to Avoid Prohibitions of Service"
    assert sections["900:SECTION-2"].text.startswith("SECTION 2: Amendment")
    assert "Sections:" in sections["900:SECTION-2"].text
    assert sections["17.44.020"].ordinance_section == "SECTION 2"
    assert sections["17.44.020"].chapter == "17.44"


def test_part_naming_one_section_without_heading_takes_the_whole_body():
    text = """SECTION 5: Amendment to the Cotati Municipal Code. Section 17.36.050 Number of Parking Spaces Required Table 3-7 is amended to include TOC:
Table 3-7
Land Use Type Vehicle Spaces Required"""
    sections = by_id(split_sections(ORDINANCE, lines_of(text)))
    assert sections["17.36.050"].title == "Number of Parking Spaces Required"
    assert sections["17.36.050"].text == "Table 3-7\nLand Use Type Vehicle Spaces Required"


def test_title_comes_from_known_titles_when_header_has_none():
    text = "SECTION 5: Amendment. Section 17.22.020, Table 2-2 is amended as follows:\nTable 2-2\nPark UP P P"
    sections = by_id(split_sections(ORDINANCE, lines_of(text), {"17.22.020": "Allowable land uses"}))
    assert sections["17.22.020"].title == "Allowable land uses"


def test_heading_that_lost_a_leading_digit_is_repaired():
    text = "SECTION 22: Amendment. Chapter 17.88.040 is hereby amended, as follows:\n7.88.040 Hearing procedure.\nA. Notice."
    sections = by_id(split_sections(ORDINANCE, lines_of(text)))
    assert sections["17.88.040"].title == "Hearing procedure"


def test_same_section_amended_twice_is_merged_with_both_parts():
    text = """SECTION 11: Amendment. Section 17.39.030, Subsection (A)(3) is amended to read as follows:
17.39.030 Multifamily design standards. (excerpt) (17.39.030(A))
3. Part A text.
SECTION 12: Amendment. Section 17.39.030, Subsection (G)(5) is amended to read as follows:
17.39.030 Multifamily design standards. (excerpt) (17.39.030 (G))
5. Part G text."""
    sections = by_id(split_sections(ORDINANCE, lines_of(text)))
    merged = sections["17.39.030"]
    assert merged.excerpt and merged.title == "Multifamily design standards"
    assert "Part A text." in merged.text and "Part G text." in merged.text
    assert merged.ordinance_section == "SECTION 11; SECTION 12"


def test_ordinance_only_part_gets_document_scoped_id():
    text = "SECTION 17: Rezoning of Certain Parcels and Amendment to the Cotati Zoning Map.\nAPN 144-720-061 is rezoned from CE to NM."
    sections = split_sections(ORDINANCE, lines_of(text))
    assert [(s.id, s.kind, s.title) for s in sections] == [
        ("900:SECTION-17", "ordinance", "Rezoning of Certain Parcels and Amendment to the Cotati Zoning Map")
    ]


def test_codified_text_split_at_history_notes_and_named_by_running_heads():
    lines = [
        Line(1, "Chapter 17.50 — TEST"), Line(1, "This chapter sets things."), Line(1, "(Ord. 766 § 2, 2004)"),
        Line(1, "The council adopts the map."), Line(2, "", heads=("17.50.020", "17.50.020"), page_break=True),
        Line(2, "More of the map section."), Line(2, "(Ord. 939, 1/13/2026)"),
        Line(2, "The purposes are as follows:"), Line(3, "", heads=("17.50.030", "17.50.030"), page_break=True),
        Line(3, "A. Purposes continue."), Line(3, "(Ord. 939, 1/13/2026)"),
    ]
    sections = split_sections(CODIFIED, lines, {"17.50.020": "Zoning map"})
    assert [(s.id, s.pages, s.title) for s in sections] == [
        ("17.50.010", (1,), ""), ("17.50.020", (1, 2), "Zoning map"), ("17.50.030", (2, 3), ""),
    ]
    assert sections[1].text == "The council adopts the map.\nMore of the map section.\n(Ord. 939, 1/13/2026)"


def test_heading_title_parsing():
    assert parse_heading_title("Permit requirements. (excerpt)") == ("Permit requirements", True)
    assert parse_heading_title("Allowable land uses and planning permit requirements. (excerpt) Table 2-4") == (
        "Allowable land uses and planning permit requirements", True)
    assert parse_heading_title("Multifamily standards. (excerpt) (17.39.030 (G))") == ("Multifamily standards", True)
    assert parse_heading_title("AMENDMENTS") == ("Amendments", False)
    assert parse_heading_title('Definitions of terms. "Antique store" means a store.') == ("Definitions of terms", False)
