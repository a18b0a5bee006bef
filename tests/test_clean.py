"""Cleaning of extraction damage, on small synthetic pages."""

from __future__ import annotations

from ingest.clean import (
    build_vocabulary,
    clean_pages,
    fix_characters,
    join_split_words,
    merge_broken_paragraphs,
    strip_furniture,
)
from ingest.types import Line, Page

FURNITURE_PAGE = """First paragraph of the section ends here and the text goes on to the next

Downloaded from https://ecode360.com/CO4398 on 2026-05-11

City of Cotati, CA

LAND USE

§ 17.20.020

§ 17.20.030

page, where it continues in lower case.
"""


def texts(lines):
    return [line.text for line in lines if line.text]


def test_furniture_removed_and_running_heads_kept_on_the_break():
    lines = strip_furniture([Page(1, FURNITURE_PAGE)], derive_pages=True)
    assert texts(lines) == [
        "First paragraph of the section ends here and the text goes on to the next",
        "page, where it continues in lower case.",
    ]
    breaks = [line for line in lines if line.page_break]
    assert len(breaks) == 1 and breaks[0].heads == ("17.20.020", "17.20.030")
    assert lines[-1].page == 2  # the footer ended page 1


def test_site_head_with_section_number_is_furniture():
    lines = strip_furniture([Page(1, "text\nCity of Cotati, CA § 17.20.030\nCOTATI CODE\nmore")], False)
    assert texts(lines) == ["text", "more"]
    assert [line.heads for line in lines if line.page_break] == [("17.20.030",)]


def test_pages_of_a_pdf_are_not_renumbered_by_furniture():
    pages = [Page(1, "a\nDownloaded from https://x.example/y on 2026-05-11"), Page(2, "b")]
    assert [line.page for line in strip_furniture(pages, derive_pages=False) if line.text] == [1, 2]


def test_picture_markers_dropped_content_kept():
    page = Page(1, "==> picture [376 x 598] intentionally omitted <==\n"
                   "----- Start of picture text -----\nTable 2-1\n----- End of picture text -----")
    assert texts(strip_furniture([page], False)) == ["Table 2-1"]


def test_bullets_and_indentation_removed():
    assert texts(strip_furniture([Page(1, "• A. Zoning.\n  1. Where")], False)) == ["A. Zoning.", "1. Where"]


def test_sharp_s_becomes_section_sign_and_acute_possessive_fixed():
    assert fix_characters("(Ord. 917 ß 4 (Exh. 1), 2022") == "(Ord. 917 § 4 (Exh. 1), 2022"
    assert fix_characters("the downtown specific plan ís regulating plan") == "the downtown specific plan’s regulating plan"


VOCABULARY_TEXT = "\n".join(
    ["A permit is required. Permit fees. The permit holder. Permits and permit review."] * 3
    + ["The planning commission decides. The commission may recommend. Commission review."] * 3
    + ["A recommendation is made. Amendment of the map. Set back from the street."] * 3
    + ["Set the fence back. Back to the set of rules. Set it back."] * 3
    + ["Every setback is measured. The setback line. Appeals to the council in the matter."] * 3
    + ["Maximum speed 25 km/h and more. The m atter is closed."]
)
VOCABULARY = build_vocabulary([VOCABULARY_TEXT])


def test_split_words_rejoined():
    assert join_split_words("Minor Use Perm it (MUP)", VOCABULARY) == "Minor Use Permit (MUP)"
    assert join_split_words("Planning Com m ission City Council", VOCABULARY) == "Planning Commission City Council"
    assert join_split_words("17.62.050 Recom m end Decision", VOCABULARY) == "17.62.050 Recommend Decision"
    assert join_split_words("Zoning Map Am end m ent", VOCABULARY) == "Zoning Map Amendment"


def test_real_words_next_to_each_other_stay_apart():
    assert join_split_words("Set back from the street", VOCABULARY) == "Set back from the street"
    assert join_split_words("decide upon the m atter;", VOCABULARY) == "decide upon the matter;"
    assert join_split_words("25 km/h and more", VOCABULARY) == "25 km/h and more"


def test_table_cells_in_capitals_are_not_joined():
    assert join_split_words("Animal keeping S S S S P P", VOCABULARY) == "Animal keeping S S S S P P"


def test_repeated_tail_of_previous_paragraph_dropped():
    first = "4. RVL Zoning District. The RVL zoning district is applied to areas of detached homes shown by a numerical suffix to the RVL map symbol."
    repeat = "numerical suffix to the RVL map symbol."
    long_repeat = "detached homes shown by a numerical suffix to the RVL map symbol."
    lines = [Line(1, first), Line(1, ""), Line(1, long_repeat), Line(1, repeat)]
    assert texts(merge_broken_paragraphs(lines)) == [first, repeat]  # short lines may repeat legitimately


def test_paragraph_cut_by_page_break_rejoined_only_after_a_break():
    before = Line(1, "The RR district has a maximum")
    after = Line(2, "allowable density of one unit per acre.")
    joined = merge_broken_paragraphs([before, Line(2, "", page_break=True), after])
    assert texts(joined) == ["The RR district has a maximum allowable density of one unit per acre."]
    not_joined = merge_broken_paragraphs([before, after])  # table labels wrap without a break
    assert texts(not_joined) == [before.text, after.text]


def test_clean_pages_runs_every_step():
    page = Page(1, "Use Perm it required ß 4. " + VOCABULARY_TEXT)
    assert clean_pages([page])[0].text.startswith("Use Permit required § 4.")
