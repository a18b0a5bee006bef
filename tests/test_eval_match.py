"""eval.match: strict text matching (facts as whole words and numbers, statements without citation
lines) and what a first line says about a permit code. Hand-written expectations; pure functions."""

from __future__ import annotations

import pytest

from eval.match import (
    CONTRADICTS,
    PERMIT_CODES,
    code_from_facts,
    fact_pattern,
    first_line,
    found_facts,
    has_fact,
    meaning_problem,
    missing_facts,
    normalize,
    normalize_code,
    number_words,
    permit_meanings,
    statements,
)


# -- normalisation --------------------------------------------------------------------------------
def test_normalize_lowercases_unifies_dashes_and_quotes_and_collapses_whitespace():
    assert normalize("  Use\n  Permit\t(UP) ") == "use permit (up)"
    assert normalize("Outdoor Cultivation \u2013 Small \u2014 x \u2212 y") == "outdoor cultivation - small - x - y"
    assert normalize("\u201cquoted\u201d \u2018x\u2019") == "\"quoted\" 'x'"


def test_first_line_skips_leading_blank_lines():
    assert first_line("\n\n  Not allowed.\nPermitted elsewhere.") == "Not allowed."
    assert first_line("one line") == "one line"


# -- facts as whole words ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, fact, found",
    [
        ("A use permit (UP) is required.", "P", False),  # "P" is not in "(UP)"
        ("A minor use permit (MUP) is required.", "UP", False),  # "UP" is not in "(MUP)"
        ("Permitted (P) in NL.", "P", True),
        ("Use permit (UP) required.", "up", True),  # case-insensitive
        ("Permitted (P)", "MUP", False),
        ("The Planning Commission decides.", "commission", True),
        ("The Planning Commissioner decides.", "commission", False),  # not inside a longer word
        ("Setbacks apply.", "setback", True),  # a plural ending is accepted
        ("Classes of uses", "class", True),  # "-es" too
        ("0.5 acres", "0.5 acre", True),
        ("0.5 acre", "0.5 acre", True),
        ("0.5 acreage", "0.5 acre", False),
    ],
)
def test_facts_match_as_whole_words(text, fact, found):
    assert has_fact(text, fact) is found


# -- numbers as numbers --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, fact, found",
    [
        ("up to 10 feet", "10", True),
        ("up to 100 feet", "10", False),
        ("up to 110 feet", "10", False),
        ("10.5 feet", "10", False),
        ("1.10 acres", "10", False),
        ("1,100 square feet", "10", False),
        ("It is often done.", "10", False),
        ("in 2010", "10", False),
        ("the 10th day", "10", False),
        ("ten feet", "10", True),  # a number word states a whole number
        ("Ten feet.", "10", True),
        ("tenant", "10", False),
        ("A 10-foot setback", "10", True),
        ("at most 10.", "10", True),  # a full stop is not a decimal point
        ("a height of thirty-five feet", "35 feet", True),
        ("a height of thirty five feet", "35 feet", True),
        ("a height of 35 feet", "35 feet", True),
        ("a height of 35 ft", "35 feet", True),  # abbreviations read as the words they stand for
        ("a height of 35 ft", "35 meters", False),  # the rest of the fact is as written
        ("a height of 135 feet", "35 feet", False),
        ("twenty-five", "25", True),
        ("twenty-five", "5", False),  # the "five" of "twenty-five" is not 5
        ("one hundred", "100", True),
        ("10000 square feet", "10,000", True),  # "10,000" is also written "10000"
        ("10,000 square feet", "10,000", True),
        ("100,000 square feet", "10,000", False),
        ("5,000 square feet", "5000", True),  # and "5000" is also written "5,000"
        ("15,000 square feet", "5000", False),
        ("10.5 feet", "10.5", True),
        ("10.50 feet", "10.5", False),
        ("110.5 feet", "10.5", False),
    ],
)
def test_numbers_match_as_numbers(text, fact, found):
    assert has_fact(text, fact) is found, fact_pattern(fact).pattern


@pytest.mark.parametrize(
    "text, fact, found",
    [
        ("See 17.42.170.", "17.42", True),  # a chapter id names its sections
        ("See 17.420.", "17.42", False),
        ("See 17.42.", "17.42", True),
        ("See 17.42.170.", "17.42.170", True),
        ("See 17.42.1700.", "17.42.170", False),
        ("See 117.42.170.", "17.42.170", False),
        ("See 17.44.040.", "17.42", False),
    ],
)
def test_section_ids_match_as_prefixes(text, fact, found):
    assert has_fact(text, fact) is found


def test_number_words():
    assert number_words(0) == ["zero"]
    assert number_words(10) == ["ten"]
    assert number_words(35) == ["thirty-five", "thirty five"]
    assert number_words(40) == ["forty"]
    assert number_words(300) == ["three hundred"]
    assert "one hundred and five" in number_words(105) and "one hundred five" in number_words(105)
    assert number_words(2000) == ["two thousand"]
    assert number_words(-1) == [] and number_words(1_000_000) == []


def test_missing_and_found_facts_keep_the_given_order_and_spelling():
    text = "Use permit (UP) required.\nSee 17.42.060."
    assert missing_facts(text, ["up", "17.42.060"]) == []
    assert missing_facts(text, ["MUP", "17.42.060", "17.44"]) == ["MUP", "17.44"]
    assert found_facts(text, ["not allowed", "UP", "P"]) == ["UP"]


# -- statements: what the answer says, not what it cites ----------------------------------------
ANSWER = (
    "Fences may be 6 feet tall.\n"
    "Source: 17.30.030 Fences and walls (Ord. 2023 (000), 2023-11-06); height 8 feet\n"
    "\u00a7 17.64.080 (Ord. 939 (Santero Way), 2025-12-09): \"a wall of ten feet\"\n"
    "Nearest sections: 17.36.070, 17.44.020"
)


def test_statements_drop_source_and_nearest_lines_and_citation_prefixes():
    kept = statements(ANSWER)
    assert kept == 'Fences may be 6 feet tall.\n "a wall of ten feet"'
    assert missing_facts(kept, ["6 feet", "10 feet"]) == []
    # facts that only appear in a Source line, a Nearest line or a citation prefix are not stated
    assert missing_facts(kept, ["8 feet", "17.30.030", "17.64.080", "17.36.070", "2025"]) == [
        "8 feet", "17.30.030", "17.64.080", "17.36.070", "2025"]
    # whereas the raw text has them all
    assert missing_facts(ANSWER, ["8 feet", "17.30.030", "17.64.080", "17.36.070"]) == []


@pytest.mark.parametrize("line", ["Sources: 17.22.020", "  source : 17.22.020", "Citations: 17.22.020",
                                  "Cited: 17.22.020", "NEAREST SECTION: 17.22.020"])
def test_every_citation_line_spelling_is_dropped(line):
    assert statements("Permitted (P).\n" + line) == "Permitted (P)."


def test_a_section_sign_without_citation_prefix_is_kept():
    assert statements("\u00a7 17.42.170 applies") == "\u00a7 17.42.170 applies"
    assert statements("Permitted. Source: 17.22.020") == "Permitted. Source: 17.22.020"  # not a line of its own


# -- permit codes --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "line, meanings",
    [
        ("Permitted (P); a zoning clearance is required.", {"P"}),
        ("It is permitted by right.", {"P"}),
        ("Allowed by right.", {"P"}),
        ("A use permit (UP) is required.", {"UP"}),
        ("Use Permit required", {"UP"}),
        ("UP.", {"UP"}),
        ("A minor use permit (MUP) is required.", {"MUP"}),
        ("Minor use permit required.", {"MUP"}),  # a minor use permit is not a use permit
        ("Needs an MUP.", {"MUP"}),
        ("Allowed as set by the specific use regulations (S).", {"S"}),
        ("Specific use regulations apply.", {"S"}),
        ("S: see 17.42.170.", {"S"}),
        ("Not allowed.", {"-"}),
        ("This use is not permitted in NM.", {"-"}),  # "not permitted" is not P
        ("Not permitted in NM.", {"-"}),
        ("It is not a permitted use.", {"-"}),
        ("Prohibited in all districts.", {"-"}),
        ("Permitted only with a use permit.", {"UP"}),  # "permitted only with" is not P
        ("Permitted (P) or a minor use permit (MUP) is required.", {"P", "MUP"}),  # a hedge says both
        ("A Use Permit (UP) or Minor Use Permit (MUP)", {"UP", "MUP"}),
        ("up to 10 feet", set()),  # code letters only in capitals
        ("Uses listed in the district(s)", set()),
        ("P", set()),  # a bare letter states nothing
        ("Not sure.", set()),
    ],
)
def test_permit_meanings(line, meanings):
    assert permit_meanings(line) == meanings


@pytest.mark.parametrize(
    "value, code",
    [("P", "P"), ("P(2)", "P"), ("P (3)", "P"), ("UP*", "UP"), ("UP(1)", "UP"), ("MUP", "MUP"), ("S", "S"),
     ("-", "-"), ("\u2014", "-"), ("\u2013", "-"), ("--", "-"), ("p", "P"), ("N/A", None), ("", None), ("40 ft", None)],
)
def test_normalize_code(value, code):
    assert normalize_code(value) == code


def test_code_from_facts_follows_the_dev_set_convention():
    assert code_from_facts(["not allowed"]) == "-"
    assert code_from_facts(["Not Allowed", "P"]) == "-"  # "not allowed" wins
    assert code_from_facts(["UP", "17.42"]) == "UP"
    assert code_from_facts(["MUP"]) == "MUP"
    assert code_from_facts(["P"]) == "P"
    assert code_from_facts(["S", "17.42.040"]) == "S"
    assert code_from_facts(["5 feet"]) is None
    assert code_from_facts([]) is None


LINES = {
    "P": "Permitted (P); a zoning clearance is required.",
    "MUP": "A minor use permit (MUP) is required.",
    "UP": "A use permit (UP) is required.",
    "S": "Allowed as set by the specific use regulations (S).",
    "-": "Not allowed.",
}


@pytest.mark.parametrize("code", PERMIT_CODES)
def test_meaning_problem_accepts_the_code_own_line(code):
    assert meaning_problem(LINES[code], code) == ""


# (expected code, line said) -> why it is wrong; "" = accepted. Hand-written from CONTRADICTS.
@pytest.mark.parametrize(
    "code, said, problem",
    [
        ("P", "UP", "first line says use permit (UP), not permitted (P)"),
        ("P", "MUP", "first line says minor use permit (MUP), not permitted (P)"),
        ("P", "S", "first line says specific use (S), not permitted (P)"),
        ("P", "-", "first line says not allowed, not permitted (P)"),
        ("MUP", "UP", "first line says use permit (UP), not minor use permit (MUP)"),
        ("MUP", "-", "first line says not allowed, not minor use permit (MUP)"),
        ("MUP", "P", "first line does not say minor use permit (MUP)"),
        ("UP", "MUP", "first line says minor use permit (MUP), not use permit (UP)"),
        ("UP", "-", "first line says not allowed, not use permit (UP)"),
        ("UP", "P", "first line does not say use permit (UP)"),
        ("S", "-", "first line says not allowed, not specific use (S)"),
        ("S", "UP", "first line does not say specific use (S)"),
        ("-", "P", "first line says permitted (P), not not allowed"),
        ("-", "MUP", "first line says minor use permit (MUP), not not allowed"),
        ("-", "UP", "first line says use permit (UP), not not allowed"),
        ("-", "S", "first line does not say not allowed"),
    ],
)
def test_meaning_problem_for_each_code(code, said, problem):
    assert meaning_problem(LINES[said], code) == problem


def test_contradicts_table_is_the_issue_10_contract():
    assert CONTRADICTS["P"] == ("UP", "MUP", "S", "-")
    assert CONTRADICTS["UP"] == ("MUP", "-")
    assert set(CONTRADICTS) == set(PERMIT_CODES)


def test_a_hedge_with_the_code_and_a_contradicting_one_is_wrong():
    line = "Permitted (P) or a minor use permit (MUP) is required."
    assert meaning_problem(line, "P") == "first line says minor use permit (MUP), not permitted (P)"
    assert meaning_problem("Minor use permit required.", "UP") == "first line says minor use permit (MUP), not use permit (UP)"
    assert meaning_problem("Not permitted in NM.", "-") == ""
    assert meaning_problem("Not permitted in NM.", "P") == "first line says not allowed, not permitted (P)"
