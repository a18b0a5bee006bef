"""Ingestion of the real bundled corpus: every code section with the right id and title, clean text."""

from __future__ import annotations

import re

import pytest

from ingest import load_corpus
from ingest.manifest import default_corpus_dir, load_manifest

# (document, section, title) read by hand from the corpus text.
EXPECTED = [
    ("000", "17.22.020", "Allowable land uses and planning permit requirements"),
    ("000", "17.44.010", "Purpose"),
    ("000", "17.44.020", "Definitions"),
    ("000", "17.44.030", "Applicability"),
    ("000", "17.44.040", "Permit requirements"),
    ("000", "17.44.050", "Limitations on location"),
    ("000", "17.44.060", "Facility design and development standards"),
    ("000", "17.44.065", "Limited Waiver to Avoid Prohibitions of Service"),
    ("000", "17.44.070", "Operation and maintenance standards"),
    ("000", "17.44.080", "Discontinuance and site restoration"),
    ("002", "17.20.020", "Zoning maps and zoning districts"),
    ("002", "17.20.030", "Purposes of the zoning districts"),
    ("002", "17.22.020", "Allowable land uses and planning permit requirements"),
    ("002", "17.24.030", "Zoning district site planning and building standards"),
    ("002", "17.30.082", "Residential conversions and demolition"),
    ("002", "17.36.040", "General parking regulations"),
    ("002", "17.36.050", "Number of Parking Spaces Required"),
    ("002", "17.36.070", "Bicycle and motorcycle parking"),
    ("002", "17.36.080", "Reduction of parking requirements"),
    ("002", "17.39.030", "Multifamily objective residential design standards"),
    ("002", "17.60.040", "Application preparation and filing"),
    ("002", "17.60.070", "Initial Application review"),
    ("002", "17.62.070", "Amendments"),
    ("002", "17.64.080", "Permit time limits, extensions, and expiration"),
    ("002", "17.74.030", "Condominiums and condominium conversion"),
    ("002", "17.88.040", "Hearing procedure"),
    ("002", "17.90.020", "Definitions of specialized terms and phrases"),
    ("003", "17.20.010", "Purpose of chapter"),
    ("003", "17.20.020", "Zoning map and zoning districts"),
    ("003", "17.20.030", "Purposes of the zoning districts"),
    ("001", "3.42.040", "Establishment of fees and adoption of percentage of said fees which must be paid"),
    ("001", "17.22.020", "Allowable land uses and planning permit requirements"),
    ("001", "17.24.020", "Zoning district subdivision and density standards"),
    ("001", "17.30.030", "Fences, walls, and screening"),
    ("001", "17.36.090", "Parking design and development standards"),
    ("001", "17.36.100", "Driveways and site access"),
    ("001", "17.39.030", "Multifamily objective residential design standards"),
    ("001", "17.39.040", "Multifamily plex objective residential design standards"),
    ("001", "17.44.040", "Permit requirements"),
    ("001", "17.62.060", "Variance and minor variance"),
]

FURNITURE = [
    re.compile(r"Downloaded from https?://"),
    re.compile(r"^City of Cotati, CA", re.M),
    re.compile(r"^(LAND USE|COTATI CODE)$", re.M),
    re.compile(r"^§ ?\d+\.\d+\.\d+$", re.M),
    re.compile(r"picture text|intentionally omitted"),
]


@pytest.mark.parametrize("document,section,title", EXPECTED)
def test_code_section_has_id_and_title(corpus_sections, document, section, title):
    found = corpus_sections.get((document, section))
    assert found is not None, f"{section} missing from document {document}"
    assert found.title == title
    assert found.chapter == section.rsplit(".", 1)[0]
    assert found.kind == "code"


def test_code_sections_are_exactly_the_expected_ones(corpus_result):
    code = sorted((s.document, s.id) for s in corpus_result.sections if s.kind == "code")
    assert code == sorted((d, s) for d, s, _ in EXPECTED)


def test_ingest_reads_every_manifest_document_without_error(corpus_result):
    assert corpus_result.errors == ()
    documents = {doc.id for doc in load_manifest(default_corpus_dir())}
    assert {s.document for s in corpus_result.sections} == documents


def test_sections_carry_their_document_date(corpus_result):
    dates = {doc.id: doc.date for doc in load_manifest(default_corpus_dir())}
    assert all(s.date == dates[s.document] for s in corpus_result.sections)
    # the day each takes effect (issue 45): 000 and 001 at the earliest (no adoption date), 002 adopted 2026-01-13
    assert dates == {"000": "2023-12-06", "002": "2026-02-12", "003": "2026-05-11", "001": "2026-09-10"}


def test_documents_come_oldest_first(corpus_result):
    order = list(dict.fromkeys(s.document for s in corpus_result.sections))
    assert order == ["000", "002", "003", "001"]


@pytest.mark.parametrize("pattern", FURNITURE, ids=lambda p: p.pattern)
def test_no_page_furniture_left(corpus_result, pattern):
    dirty = [s.id for s in corpus_result.sections if pattern.search(s.text)]
    assert dirty == []


def test_no_sharp_s_for_section_sign(corpus_result):
    assert not [s.id for s in corpus_result.sections if "ß" in s.text]
    history = "".join(s.text for s in corpus_result.sections)
    assert "Ord. 917 § 4" in history


def test_split_letters_rejoined_in_table_6_1(corpus_sections):
    text = corpus_sections[("002", "17.60.040")].text
    assert "Planning Permit Review Authority" in text
    assert "Use Permit (UP) 17.62.050 Recommend Decision Appeal" in text
    assert "Commission" in text
    assert not re.search(r"\bPerm it\b|\bCom m ission\b|\bRecom m end\b", text)


def test_repeated_paragraphs_in_17_20_030_appear_once(corpus_sections):
    text = corpus_sections[("003", "17.20.030")].text
    for phrase in (
        "numerical suffix to the RVL map symbol",
        "as appropriate for a mixture of retail, service, large-scale office",
        "at a maximum density of 15 dwelling units per acre. Street fronting structures",
    ):
        assert text.count(phrase) == 1, phrase


def test_paragraphs_cut_by_a_page_break_are_rejoined(corpus_sections):
    text = corpus_sections[("003", "17.20.030")].text
    assert "The maximum allowable density ranges from one dwelling unit per one and one-half acres" in text
    assert "The CE zoning district is a mixed use classification" in text
    assert "The LP district is subject to the applicable regulations" in text


def test_codified_sections_have_pages_from_page_breaks(corpus_sections):
    assert corpus_sections[("003", "17.20.010")].pages == (1,)
    assert corpus_sections[("003", "17.20.020")].pages == (1, 2, 3)
    assert corpus_sections[("003", "17.20.030")].pages[0] == 3
    assert "Table 2-1" in corpus_sections[("003", "17.20.020")].text
    assert "Ord. 939, 1/13/2026" in corpus_sections[("003", "17.20.030")].text


@pytest.mark.parametrize(
    "document,section,excerpt",
    [("001", "3.42.040", True), ("001", "17.30.030", True), ("001", "17.39.040", True),
     ("001", "17.36.090", False), ("002", "17.22.020", False), ("000", "17.44.040", False)],
)
def test_excerpt_flag(corpus_sections, document, section, excerpt):
    assert corpus_sections[(document, section)].excerpt is excerpt


def test_section_amended_in_two_parts_is_one_record(corpus_sections):
    section = corpus_sections[("001", "17.39.030")]
    assert section.ordinance_section == "SECTION 11; SECTION 12"
    assert "(17.39.030(A))" in section.text and "(17.39.030 (G))" in section.text


def test_ordinance_only_parts_keep_ordinance_ids(corpus_sections):
    rezoning = corpus_sections[("001", "001:SECTION-17")]
    assert rezoning.kind == "ordinance"
    assert rezoning.title.startswith("Rezoning of Certain Parcels")
    assert "144-720-061" in rezoning.text
    assert corpus_sections[("000", "000:SECTION-1")].title == "Recitals"


def test_section_text_is_found_at_its_offsets(corpus_result):
    """Offsets point into the document's cleaned text: the section's first line starts there."""
    for section in corpus_result.sections:
        assert section.end > section.start >= 0
        assert section.end - section.start >= len(section.text.split("\n")[-1])


def test_every_line_of_every_document_lands_in_a_section(corpus_result):
    from ingest.clean import build_vocabulary, first_pass, second_pass
    from ingest.readers import read_document

    documents = load_manifest(default_corpus_dir())
    first = {doc.id: first_pass(read_document(doc.path)) for doc in documents}
    vocabulary = build_vocabulary(line.text for lines in first.values() for line in lines)
    for doc in documents:
        lines = [line.text for line in second_pass(first[doc.id], vocabulary) if line.text]
        texts = "\n".join(s.text for s in corpus_result.sections if s.document == doc.id)
        assert all(line in texts for line in lines), doc.id


def test_load_corpus_is_deterministic():
    assert load_corpus() == load_corpus()
