"""Provisions: outline, sentences, typed values, amendments, CLI (hermetic, synthetic text)."""

from __future__ import annotations

import json

import pytest

from ingest.provisions import effective_provisions, item_head, read_section, split_sentences
from ingest.types import Section
from ingest.values import read_values


def section(text: str, sid: str = "17.99.010", document: str = "D1", date: str = "2024-01-01",
            excerpt: bool = False, title: str = "Test standards") -> Section:
    lines = text.split("\n")
    return Section(id=sid, title=title, chapter=sid.rsplit(".", 1)[0], document=document, date=date, text=text,
                   start=0, end=len(text), pages=(1,), excerpt=excerpt,
                   source_lines=tuple((n + 10, n + 10) for n in range(len(lines))))


OUTLINE = """17.99.010 Test standards.
Each project shall comply with the following:
A. Facility Placement.
1. Standards for All Facilities.
a. A tower shall be set back ten feet. b. A mast shall be set back 5 feet. c. A pole
shall be set back one hundred fifty feet.
2. Multifamily Development of Four or More Dwelling Units. Each parcel shall have a driveway.
a. First item:
i. Parallel space: seven feet wide; ii. Other space: nine feet wide.
B. Colors and Materials. All antennas shall be painted to match the background.
1. Towers shall be gray.
2. Poles shall be brown.
The director may refer any application to the commission. It decides within 30 days.
C. Notes.
(1) A note one.
(2) A note two. (Ord. 766 § 2 Exh. A (part), 2004)."""


def labels(reading):
    return [p.label for p in reading.provisions]


def test_outline_levels_glued_items_roman_and_paren():
    reading = read_section(section(OUTLINE))
    assert labels(reading) == [
        "17.99.010[s1]", "17.99.010(A)", "17.99.010(A)(1)", "17.99.010(A)(1)(a)", "17.99.010(A)(1)(b)",
        "17.99.010(A)(1)(c)", "17.99.010(A)(2)", "17.99.010(A)(2)(a)", "17.99.010(A)(2)(a)(i)",
        "17.99.010(A)(2)(a)(ii)", "17.99.010(B)", "17.99.010(B)(1)", "17.99.010(B)(2)", "17.99.010(B)[s1]",
        "17.99.010(B)[s2]", "17.99.010(C)", "17.99.010(C)(1)", "17.99.010(C)(2)",
    ]
    by = {p.label: p for p in reading.provisions}
    c = by["17.99.010(A)(1)(c)"]
    assert c.text == "A pole shall be set back one hundred fifty feet."  # a line broken mid-sentence joins
    assert c.lines == (14, 15)  # glued on the line of (a), ends on the next
    assert [v.quantity for v in c.values] == [150.0]
    assert by["17.99.010(B)"].path == ("17.99.010 Test standards", "B. Colors and Materials")
    assert by["17.99.010(B)"].head == "Colors and Materials"
    assert by["17.99.010(A)(2)(a)"].path[-2:] == ("2. Multifamily Development of Four or More Dwelling Units",
                                                  "a. First item")
    assert "multifamily 4+ units" in by["17.99.010(A)(2)(a)"].scope
    assert not reading.rejected


def test_trailing_paragraph_belongs_to_the_parent_and_items_keep_their_paragraphs():
    text = "A. Woonerf. A woonerf is a shared space.\nWoonerfs are play courts too.\n1. Location.\n2. Design.\nThe director may grant exceptions."
    reading = read_section(section(text))
    by = {p.label: p for p in reading.provisions}
    assert by["17.99.010(A)"].text.endswith("Woonerfs are play courts too.")
    assert by["17.99.010(A)[s1]"].text == "The director may grant exceptions."


def test_repeated_number_inserted_item_and_excerpt_context():
    text = "B. Applicability.\n1. Applicability.\na. Plan.\n1a. Inserted item.\n2. Initiation.\n2. Application.\n3. Study."
    reading = read_section(section(text))
    assert labels(reading)[2:] == ["17.99.010(B)(1)(a)", "17.99.010(B)(1a)", "17.99.010(B)(2)",
                                   "17.99.010(B)(2)#2", "17.99.010(B)(3)"]
    excerpt = "17.99.010 Test standards. (excerpt) (17.99.010(A))\n3. A third story.\n17.99.010 Test standards. (excerpt) (17.99.010 (G))\n5. Refuse Containers\na. Provide dumpsters."
    reading = read_section(section(excerpt, excerpt=True))
    assert labels(reading) == ["17.99.010(A)(3)", "17.99.010(G)(5)", "17.99.010(G)(5)(a)"]


def test_a_heading_run_into_its_first_sentence_keeps_the_sentence():
    """PDF extraction joins a heading without a period to the text ("17.44.065 Limited Waiver In
    the event that ..."): the words after the title are the section's first sentence."""
    reading = read_section(section("17.99.020 Limited Waiver In the event that a standard would prohibit service,\n"
                                   "the review authority may grant a waiver.", sid="17.99.020", title="Limited Waiver"))
    assert reading.provisions[0].text == ("In the event that a standard would prohibit service, the review authority "
                                          "may grant a waiver.")
    plain = read_section(section("17.99.030 Limited Waiver.\nThe review authority may grant a waiver.",
                                 sid="17.99.030", title="Limited Waiver"))
    assert [p.text for p in plain.provisions] == ["The review authority may grant a waiver."]


def test_out_of_sequence_marker_is_kept_as_text_with_a_reason():
    reading = read_section(section("A. First item ends here. C. Not an item because B is missing."))
    assert labels(reading) == ["17.99.010(A)"]
    assert reading.rejected and "not a list item" in reading.rejected[0].reason


def test_table_notes_are_provisions_and_the_table_body_is_not():
    text = ("Intro sentence.\nTable 9-9\nThings\nRow one 10 20\nNotes:\n(1) See Article 9. (2) Allowed only on a site of"
            " three acres or larger.\nA. Next subsection.")
    reading = read_section(section(text))
    by = {p.label: p for p in reading.provisions}
    assert "17.99.010 Table 9-9 note (2)" in by
    assert by["17.99.010 Table 9-9 note (2)"].values[0].kind == "area"
    assert "17.99.010(A)" in by
    assert not any("Row one" in p.text for p in reading.provisions)


def test_sentences_and_heads():
    assert [s for _, s in split_sentences("Set back 3 ft. from the line. Provide 1 space per 250 sq. ft. Done.")] == [
        "Set back 3 ft. from the line.", "Provide 1 space per 250 sq. ft.", "Done."]
    assert item_head("Colors and Materials. All antennas shall be painted.") == "Colors and Materials"
    assert item_head("A tower shall be set back.") == ""


@pytest.mark.parametrize("text, kind, number, unit, quantity, bound", [
    ("twelve feet", "length", 12, "ft", 12, ""),
    ("a minimum of twenty-five feet", "length", 25, "ft", 25, "min"),
    ("3 ft. 6 in.", "length", 3, "ft", 3.5, ""),
    ("seven feet, six inches", "length", 7, "ft", 7.5, ""),
    ("within one-half mile", "length", 0.5, "mi", 2640, "max"),
    ("1.2 m [48 in.]", "length", 1.2, "m", 4, ""),
    ("300 mm (12 inches)", "length", 300, "mm", 1, ""),
    ("a 100-foot-tall monopole", "length", 100, "ft", 100, ""),
    ("one hundred fifty feet", "length", 150, "ft", 150, ""),
    ("30 days", "duration", 30, "day", 30, ""),
    ("one year", "duration", 1, "year", 365, ""),
    ("twelve months", "duration", 12, "month", 360, ""),
    ("thirty (30) days", "duration", 30, "day", 30, ""),
    ("within thirty calendar days", "duration", 30, "day", 30, "max"),
    ("ten business days", "duration", 10, "day", 10, ""),
    ("forty-eight hours", "duration", 48, "hour", 2, ""),
    ("48 hrs.", "duration", 48, "hour", 2, ""),
    ("110 percent", "percentage", 110, "%", 110, ""),
    ("up to 25%", "percentage", 25, "%", 25, "max"),
    ("no more than two towers", "count", 2, "towers", 2, "max"),
    ("eight miles per hour", "speed", 8, "mph", 8, ""),
    ("43,000 sf", "area", 43000, "sq ft", 43000, ""),
    ("one and one-half acres", "area", 1.5, "acre", 65340, ""),
])
def test_quantities(text, kind, number, unit, quantity, bound):
    values, untyped = read_values(text)
    value = values[0]
    assert (value.kind, value.number, value.unit, value.bound) == (kind, number, unit, bound)
    assert value.quantity == pytest.approx(quantity, rel=1e-3)
    assert not untyped


def test_ratios_rules_permits_and_bodies():
    values, _ = read_values("1 space for each 250 sq. ft. of floor area")
    assert (values[0].kind, values[0].number, values[0].per, values[0].per_unit) == ("ratio", 1, 250, "sq ft")
    values, _ = read_values("1 space per 4 units")
    assert (values[0].kind, values[0].per, values[0].per_unit) == ("ratio", 4, "units")
    values, _ = read_values("set back the equivalent of the height of the tower or a minimum of ten feet, whichever is greater")
    rule = next(v for v in values if v.kind == "rule")
    assert rule.op == "greater"
    assert rule.operands == ("the equivalent of the height of the tower", "a minimum of ten feet")
    values, _ = read_values("Use permit approval by the Planning Commission; a minor use permit from the director; "
                            "the city council or the zoning administrator")
    assert [v.quantity_unit for v in values if v.kind == "permit"] == ["use permit", "minor use permit"]
    assert [v.quantity_unit for v in values if v.kind == "body"] == [
        "Planning Commission", "Director", "City Council", "Zoning Administrator"]


def test_untyped_numbers_have_reasons():
    _, untyped = read_values("See Section 17.44.050 and Table 3-9 (Ord. 766 § 2, 2004); released September 19, 1985; "
                             "one of the following")
    reasons = {u.text: u.reason for u in untyped}
    assert reasons["Section 17.44.050"] == "code reference"
    assert reasons["September 19, 1985"] == "date"
    assert reasons["(Ord. 766 § 2, 2004)"] == "history note"
    assert reasons["one"].startswith("no unit or counted noun")


def test_latest_document_wins_history_kept_and_as_of():
    old = read_section(section("A. Height. Ten feet.\nB. Color. Gray.", document="D1", date="2020-01-01"))
    new = read_section(section("17.99.010 Test standards. (excerpt)\nA. Height. Twelve feet.", document="D2",
                               date="2024-01-01", excerpt=True))
    provisions = list(old.provisions) + list(new.provisions)
    excerpts = {("D1", "17.99.010"): False, ("D2", "17.99.010"): True}
    effective = {p.label: p for p in effective_provisions(reversed(provisions), excerpts)}
    a = effective["17.99.010(A)"]
    assert (a.document, a.text) == ("D2", "Height. Twelve feet.")
    assert [(h.document, h.text) for h in a.history] == [("D1", "Height. Ten feet.")]
    assert effective["17.99.010(B)"].document == "D1" and effective["17.99.010(B)"].restated
    before = {p.label: p for p in effective_provisions(provisions, excerpts, as_of="2021-01-01")}
    assert before["17.99.010(A)"].document == "D1" and not before["17.99.010(A)"].history
    full = read_section(section("A. Height. Nine feet.", document="D3", date="2025-01-01"))
    excerpts[("D3", "17.99.010")] = False
    latest = {p.label: p for p in effective_provisions(provisions + list(full.provisions), excerpts)}
    assert len(latest["17.99.010(A)"].history) == 2
    assert latest["17.99.010(B)"].restated is False  # a full restatement that does not print it


def test_provision_json_has_the_contract_fields():
    record = read_section(section(OUTLINE)).provisions[3].to_json()
    for key in ("section", "path", "label", "text", "values", "scope", "document", "date", "lines", "history"):
        assert key in record
    json.dumps(record)
