"""A home-based use answered whole (issue 36): every home row of its family, each with its districts
(assistant/families.py). The permit tables are the bundled corpus's; the slow test asks the real assistant."""

from __future__ import annotations

import pytest

from assistant import compose, families
from assistant.permits import RowMatch

SMALL, LARGE = "Child day care - Small family day care home", "Child day care - Large family day care home"


@pytest.fixture(scope="module")
def loaded():
    from assistant.service import load_assistant

    return load_assistant()


def _large(loaded, question: str, districts: list[str]):
    query = loaded.resources.read(question)
    return query, compose.permit_answer(query, loaded.tables, RowMatch("2-2", LARGE, 1.0), districts, loaded.corpus)


def test_a_family_is_the_home_rows_printed_under_one_use():
    rows = ["Residential care, 6 or fewer clients, in a single-family dwelling", SMALL, LARGE,
            "Child day care - Day care center", "Adult day care - 6 or fewer clients"]
    assert families.family("2-2", LARGE, rows) == [SMALL, LARGE]
    assert families.family("2-2", "Child day care - Day care center", rows) == []  # not a home row
    assert families.family("2-2", "Home occupation", ["Home occupation", "Bar, tavern"]) == []  # alone in its family
    assert families.names_one("can I run a large family day care?", [SMALL, LARGE])
    assert not families.names_one("can I run a day care out of my house?", [SMALL, LARGE])


def test_a_day_care_out_of_my_house_is_answered_with_the_small_and_the_large_home(loaded):
    question = "Can I run a day care out of my house?"
    query, large = _large(loaded, question, [])
    whole = families.whole_family(question, large, loaded.tables, query, loaded.corpus)
    assert whole.first_line == (f"{SMALL}: permitted (P) in RR, RVL, NL, NM, NU; use permit (UP) in OSR; not allowed in OSC. "
                                f"{LARGE}: permitted (P) in RR, RVL, NL; not allowed in OSC, OSR, NM, NU.")
    assert {c["row"] for c in whole.lookups} == {SMALL, LARGE} and len(whole.lookups) == 14
    assert whole.answer.split("\n")[-1].startswith("Source: § 17.22.020, Table 2-2")


def test_a_district_asked_is_kept_for_every_member(loaded):
    question = "Can I run a day care out of my house in NM?"
    query, large = _large(loaded, question, ["NM"])
    whole = families.whole_family(question, large, loaded.tables, query, loaded.corpus)
    assert whole.first_line == f"{SMALL}: permitted (P) in NM. {LARGE}: not allowed in NM."
    assert {(c["row"], c["column"]) for c in whole.lookups} == {(SMALL, "NM"), (LARGE, "NM")}


def test_a_member_named_is_answered_alone(loaded):
    question = "Can I run a large family day care home in my house?"
    query, large = _large(loaded, question, [])
    assert families.whole_family(question, large, loaded.tables, query, loaded.corpus) is large


@pytest.mark.slow
def test_the_real_assistant_answers_the_whole_family(loaded):
    # "out of my house" itself sits just under the operating point today (0.922 against 0.923; the reference says so)
    answer = loaded.ask("Can I run a daycare out of my home?")
    assert not answer.abstained
    assert answer.first_line.startswith(f"{SMALL}: permitted (P) in RR, RVL, NL, NM, NU") and LARGE in answer.first_line
