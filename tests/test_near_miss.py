"""Near misses (issue 22): a real word is never corrected into a code term; what the question
names and the code lacks is said to be unknown; the question's own numbers and home wording choose
the row; a follow-up keeps the thread. Mechanisms, each tested on its own and on the corpus."""

from __future__ import annotations

import pytest

from assistant.understand import understand
from assistant.vocab import load_vocabulary


@pytest.fixture(scope="module")
def assistant():
    from assistant.service import load_assistant

    from tests.test_assistant import FakeSearcher

    built = load_assistant(calibrated=False)
    built.resources.use_searcher(lambda: FakeSearcher(built.corpus))
    return built


# -- 2. correction never invents ---------------------------------------------------------------------
@pytest.mark.parametrize("word", ["heater", "cottage", "court", "planner", "counter", "please"])
def test_an_english_word_is_an_english_word(word):
    from assistant.english import is_english_word

    assert is_english_word(word)


@pytest.mark.parametrize("word", ["hieght", "aplication", "buisness", "drivway", "varience", "resturant"])
def test_a_typo_is_not_an_english_word(word):
    from assistant.english import is_english_word

    assert not is_english_word(word)


def test_a_word_the_word_list_calls_english_is_never_corrected():
    known = frozenset({"theater", "driveway"})
    as_english = understand("water heater drivway", load_vocabulary(), known, is_word=lambda w: True)
    assert as_english.normalized == "water heater drivway"
    as_typos = understand("water heater drivway", load_vocabulary(), known, is_word=lambda w: False)
    assert as_typos.normalized == "water theater driveway"


@pytest.mark.parametrize("question,kept,fixed", [
    ("I want to replace my water heater, do I need a permit?", "heater", ""),
    ("who is the city planner for design review?", "planner", ""),
    ("how wide can a drivway be?", "", "driveway"),
    ("is an aplication for a varience needed?", "", "application"),
])
def test_the_corpus_vocabulary_corrects_only_typos(assistant, question, kept, fixed):
    query = assistant.resources.read(question)
    if kept:
        assert kept in query.normalized.split() and kept in query.corrected
    if fixed:
        assert fixed in query.normalized.split()


def test_a_real_word_the_code_does_not_use_is_not_answered_as_a_code_term(assistant):
    answer = assistant.ask("I want to replace my water heater, do I need a permit?")
    assert "theater" not in answer.answer.lower()


# -- 3. say what is not there ------------------------------------------------------------------------
@pytest.mark.parametrize("question,unknown", [
    ("Can I open a bar in the XYZ district?", ("XYZ",)), ("Is a bar allowed in the R-1 zone?", ("R-1",)),
    ("what can I build in zone C-2", ("C-2",)), ("Can I open a gym in the CD district?", ()),
    ("alternative parking in the DSP, TOC and CD districts", ()), ("is my zone residential?", ()),
    ("what is allowed in a residential zone", ()),
])
def test_a_district_name_cotati_does_not_have_is_found(question, unknown):
    from assistant.absent import unknown_districts

    assert unknown_districts(question, frozenset({"CD", "TOC", "DSP", "NL"})) == unknown


def test_the_documents_own_district_names_are_known(assistant):
    known = assistant.resources.printed().districts
    assert {"NL", "TOC", "SW", "DSP"} <= known and "XYZ" not in known


def test_an_unknown_district_is_said_to_be_unknown_with_the_real_ones(assistant):
    answer = assistant.ask("Can I open a bar in the XYZ district?")
    assert answer.abstained and answer.first_line.startswith("Cotati has no XYZ zoning district")
    assert "NL (Neighborhood - Low Density)" in answer.first_line and not answer.lookups
    assert len(answer.clarify) == 3 and all("district" in option and "XYZ" not in option for option in answer.clarify)


@pytest.mark.parametrize("question,words", [
    ("What does Table 2-9 say?", "no Table 2-9"), ("Table 7-3", "no Table 7-3")])
def test_a_table_no_document_prints_is_said_to_be_unknown(assistant, question, words):
    answer = assistant.ask(question)
    assert answer.abstained and words in answer.first_line and "2-4" in answer.first_line


def test_a_printed_table_is_not_unknown(assistant):
    assert not assistant.ask("Table 2-4").abstained


@pytest.mark.parametrize("question,term", [
    ("what does accessory dwelling unit mean?", "accessory dwelling unit"), ("define setback", "setback"),
    ("What is the definition of a 'fence' in the code?", "fence"), ("what is meant by the term frontage?", "frontage"),
    ("what is the maximum height of a fence?", ""), ("Can I build an ADU?", ""),
    ('What is a "zoning clearance"?', "zoning clearance"), ("what is a zoning clearance?", ""),
    ('what is the "maximum height" in CD?', ""),
])
def test_the_term_a_meaning_question_asks_about(question, term):
    from assistant.absent import term_asked

    assert term_asked(question) == term


def test_sections_using_a_term_most_uses_first():
    from assistant.absent import uses_of

    texts = [("1", "a fence"), ("2", "Fences and fence posts; fence-like"), ("3", "defense")]
    assert uses_of("fence", texts) == ["2", "1"]


def test_an_undefined_term_is_said_to_be_undefined_with_where_the_code_uses_it(assistant):
    answer = assistant.ask("what does accessory dwelling unit mean?")
    assert answer.abstained and "do not define “accessory dwelling unit”" in answer.first_line
    assert "Where the code uses it: § 17.36.050" in answer.answer and not answer.citations


def test_a_defined_term_is_still_defined(assistant):
    answer = assistant.ask("what does micromobility mean?")
    assert answer.route == "definition" and "means" in answer.first_line


@pytest.mark.parametrize("question", ["what about NL?", "NL?", "and in CD?"])
def test_a_first_question_naming_only_a_district_asks_what_about_it(assistant, question):
    answer = assistant.ask(question)
    assert answer.route == "clarify" and answer.first_line.startswith("What would you like to know about")
    assert answer.clarify and not answer.lookups


def test_a_question_about_a_district_is_not_asked_back(assistant):
    assert assistant.ask("What is the NM district?").route == "district"


# -- 1. the question's own details choose the row ----------------------------------------------------
def _banded_rows(assistant):
    from assistant.permits import family, label_span

    rows = [(table, row, label_span(row)) for table, labels in assistant.tables.rows.items() for row in labels]
    return [(table, row, span, family(row)) for table, row, span in rows if span is not None]


def _inside(span) -> float:
    high = span.low + 50 if span.high == float("inf") else span.high
    return float(int((span.low + high) / 2)) if high > span.low else span.low


def _phrase(kind: str, value: float) -> str:
    number = f"{int(value):,}"
    return f"a {number} square foot space" if kind == "area" else f"for {number} units"


def test_every_size_band_holds_its_own_numbers_and_excludes_its_siblings(assistant):
    """Each size-banded row of every permit table: a number inside its printed limits keeps it, and
    every row of its family whose limits exclude that number is contradicted (never chosen)."""
    from assistant.permits import contradicted

    banded = _banded_rows(assistant)
    assert len(banded) >= 20
    for table, row, span, family_ in banded:
        phrase = _phrase(span.kind, _inside(span))
        assert not contradicted(row, phrase), (table, row, phrase)
        for other_table, other, other_span, other_family in banded:
            if other_family == family_ and other_span.kind == span.kind and not other_span.holds(span.kind, _inside(span)):
                assert contradicted(other, phrase), (row, other, phrase)


@pytest.mark.parametrize("typed,value", [("a 8,000 square foot store", 8000.0), ("a 8 000 square foot store", 8000.0),
                                         ("3,500 sf salon", 3500.0), ("12 unit building", 12.0)])
def test_thousands_are_read_whether_typed_or_normalised(typed, value):
    from assistant.permits import asked_quantity

    assert asked_quantity(typed)[1] == value


def test_an_area_over_a_bands_limit_never_gets_that_band(assistant):
    answer = assistant.ask("Can I open an 8,000 square foot retail store in CG?")
    rows = {cell["row"] for cell in answer.lookups}
    assert "General retail - Less than 5,000 sq. ft." not in rows


@pytest.mark.parametrize("question,home", [
    ("Can I run a day care for kids out of my house?", True), ("a bakery in my garage", True),
    ("selling crafts from my apartment", True), ("working at home", True), ("a home-based business", True),
    ("a day care center on Commerce Avenue", False), ("Can I open a gym in CD?", False),
])
def test_home_based_wording(question, home):
    from assistant.home import says_home

    assert says_home(question) is home


def test_every_home_row_is_a_form_of_its_facility_row(assistant):
    """Every home row of the tables, paired with each row of its table that names the same use in
    another form (a center, a facility): the pair is one use, and only the home row is a home row."""
    from assistant.home import is_home_row, same_use

    rows = {(t, r) for t, labels in assistant.tables.rows.items() for r in labels}
    homes = sorted((t, r) for t, r in rows if is_home_row(r))
    assert {r for _, r in homes} >= {"Home occupation", "Child day care - Small family day care home",
                                     "Child day care - Large family day care home"}
    pairs = [(h, r) for t, h in homes for t2, r in rows if t2 == t and r != h and not is_home_row(r) and same_use(h, r)]
    assert ("Child day care - Small family day care home", "Child day care - Day care center") in pairs
    assert all(not is_home_row(facility) for _, facility in pairs)
    assert not any(facility.startswith("Junior accessory") for _, facility in pairs)


def test_home_wording_prefers_the_home_rows_of_the_use(assistant):
    answer = assistant.ask("Can I run a day care for kids out of my house?")
    rows = {cell["row"] for cell in answer.lookups}
    assert rows and all("family day care home" in row for row in rows)
    facility = assistant.ask("Can I open a day care center in CG?")
    assert {cell["row"] for cell in facility.lookups} == {"Child day care center"}


def test_a_home_row_of_one_family_is_not_a_form_of_another_familys_row():
    """"Child day care - ..." and "Adult day care - ..." share "day care" but are two uses."""
    from assistant.home import same_use

    assert not same_use("Child day care - Large family day care home", "Adult day care - 6 or fewer clients")
    assert same_use("Child day care - Large family day care home", "Child day care - Day care center")


def test_home_wording_does_not_move_another_use_to_a_home_row(assistant):
    answer = assistant.ask("where in Cotati am I allowed to add a junior ADU inside my house?")
    assert not any("Residential care" in cell["row"] for cell in answer.lookups)


# -- 4. follow-ups keep the thread -------------------------------------------------------------------
def test_a_follow_up_naming_only_a_district_keeps_the_previous_row(assistant):
    answer = assistant.ask("what about NM?", history=["Can I build an ADU in NL?"])
    assert [(c["row"], c["column"]) for c in answer.lookups] == [("Accessory dwelling unit", "NM")]


def test_the_readme_follow_up_keeps_the_gym_row_and_says_nl_does_not_list_it(assistant):
    """README: "Can I open a gym in CD?" then "what about NL?": the gym stays a Health/fitness
    facility (never read again as a school); NL's table does not list it, and the answer says so."""
    first = assistant.ask("Can I open a gym in CD?")
    assert {c["row"] for c in first.lookups} == {"Health/fitness facility"}
    answer = assistant.ask("what about NL?", history=["Can I open a gym in CD?"])
    assert answer.abstained and answer.first_line.startswith("Health/fitness facility (from your previous question)")
    assert "NL" in answer.first_line and "school" not in answer.answer.lower()


def test_a_follow_up_in_a_district_whose_table_lists_the_row_answers_it(assistant):
    answer = assistant.ask("and in CG?", history=["Can I open a bar in CE?"])
    assert [(c["row"], c["column"]) for c in answer.lookups] == [("Bar, tavern", "CG")]
    assert "(from your previous question)" in answer.answer.split("\n")[1]


def test_names_only_a_district():
    from assistant.dialogue import names_only_a_district

    vocabulary = load_vocabulary()
    assert names_only_a_district(understand("what about NL?", vocabulary))
    assert not names_only_a_district(understand("what about a bar in NL?", vocabulary))


@pytest.mark.parametrize("question, term", [
    ("What does the code mean by breakpoint technology?", "breakpoint technology"),
    ("what does the zoning code mean by 'story'?", "story"),
    ("What does Cotati mean by a stealth facility", "stealth facility"),
    ("What does ADU mean?", "ADU"),  # no speaker: as before
])
def test_the_code_named_as_who_means_is_not_the_term(question, term):
    # "the code" is who means in "what does the code mean by X" (it was read as the term and declined)
    from assistant.routes.absent import term_asked

    assert term_asked(question) == term
