"""Answer-type contracts: every route's candidates carry an answer type, and the chooser never gives
one whose type is not the type the question asked for (a Table 6-1 role does not answer "what must
be found", a permit cell does not answer "what happens to my permit if ...").

Hermetic: the bundled corpus and tables, the fake searcher of test_assistant (no index, no model).
"""

from __future__ import annotations

import pytest

from assistant import answer_type, chooser, permit_cells
from assistant.routes import definition, district, parcel, passage, permit, section, standards
from assistant.types import Answer, Candidate, Query


@pytest.fixture(scope="module")
def res():
    from assistant.service import load_assistant

    from tests.test_assistant import FakeSearcher

    built = load_assistant(calibrated=False)
    built.resources.use_searcher(lambda: FakeSearcher(built.corpus))
    return built.resources


def _check(route, question: str, res, proposes: bool = True) -> Answer | None:
    """The route's candidates are typed; what the chooser gives of them is of the type asked."""
    query = res.read(question)
    if route in chooser.ROUTES_DECIDING:
        query = standards.deciding_reading(query)
    found = route(query, res)
    assert bool(found) is proposes, f"{route.__module__}.{route.__name__} on {question!r}: {found}"
    if not found:
        return None
    assert all(isinstance(c, Candidate) and c.answer_type in answer_type.GIVEN for c in found)
    asked = answer_type.asked(question)
    given = chooser.given_by_route(query, found, asked, res)
    if not given.abstained:
        chosen = next(c for c in found if c.answer is given or c.follow is not None)
        assert answer_type.answers(asked, chosen.answer_type), (question, asked, chosen.answer_type)
    return given


def _declined_for_type(given: Answer) -> bool:
    return given.abstained and given.signals.get("type_mismatch") == 1.0


@pytest.mark.parametrize("question", ["17.44.065", "17.39.040(D) how wide?", "does 'demolition' in 17.90.020 include gutting?"])
def test_section_by_number_route(res, question):
    assert not _check(section.candidates, question, res).abstained


def test_section_by_title_and_by_table_routes(res):
    assert _check(section.by_title, "which section covers variances?", res).route == "section_title"
    assert not _check(section.by_table, "Table 2-4", res).abstained
    _check(section.by_title, "how tall can a fence be?", res, proposes=False)  # not asked which section


@pytest.mark.parametrize("question", ["what zone is APN 144-720-061?", "could I build a fourplex on parcel 144-720-061?"])
def test_parcel_route(res, question):
    assert not _check(parcel.candidates, question, res).abstained


def test_street_address_route_declines_with_its_reason(res):
    given = _check(parcel.street_address, "what zone is 201 W Sierra Ave in?", res)
    assert given.abstained and "zoning map" in given.answer


@pytest.mark.parametrize("route,question", [
    (definition.quoted, "is that 'demolition' per the code?"),
    (definition.candidates, "what does micromobility mean?"),
    (definition.of_quantity, "How big can a microdistillery get?"),
])
def test_definition_routes(res, route, question):
    assert _check(route, question, res).route == "definition"


def test_permit_route_gives_permit_codes_only_where_they_answer(res):
    assert _check(permit.candidates, "Can I open a bar in CE?", res).route == "permit"
    # The same row proposed for a question asking what happens (a consequence): a permit code does not say.
    given = _check(permit.candidates, "what happens to my permit for a bar in CE if I don't start work?", res)
    assert _declined_for_type(given) and "permit requirement" in given.answer


def test_standards_route_gives_bodies_only_to_who_questions(res):
    assert _check(standards.candidates, "who approves a variance?", res).route == "standards"
    for question in ("What must the review authority find to approve a variance?",
                     "Can the director refer a minor variance to the planning commission?"):
        given = _check(standards.candidates, question, res)
        assert _declined_for_type(given), question  # Table 6-1 says who decides, not what must be found
    assert not _check(standards.candidates, "how tall can a fence be in a front setback?", res).abstained


def test_district_route(res):
    assert _check(district.candidates, "what is the NM district?", res).route == "district"
    _check(district.candidates, "how tall can I build in NM?", res, proposes=False)


def test_the_district_route_weighs_what_the_question_says_besides_the_district(res):
    about = _check(district.candidates, "what is the NM district?", res)
    aside = _check(district.candidates, "three townhouse units on one parcel in NM - what does the table say?", res)
    assert about.signals["other_words"] == 0.0
    assert aside.signals["other_words"] > 10.0


def test_passage_route(res):
    assert _check(passage.candidates, "woonerf speed limit", res).route == "passage"
    _check(passage.about_named, "woonerf speed limit", res, proposes=False)  # nothing the vocabulary knows named


@pytest.mark.parametrize("question,asked", [
    ("What must the review authority find to approve a variance?", "findings"),
    ("what findings are required for a use permit?", "findings"),
    ("Can the director refer a decision to the commission?", "referral"),
    ("what happens to my permit if I don't start work?", "consequence"),
    ("how long does the entry driveway need to be?", "how_long"),
    ("how long is a use permit valid?", "duration"),
    ("who approves a variance?", "who"),
])
def test_the_asked_type(question, asked):
    assert answer_type.asked(question) == asked


@pytest.mark.parametrize("asked,given,answers", [
    ("findings", "body", False), ("findings", "permit_code", False), ("findings", "passage", True),
    ("referral", "body", False), ("consequence", "permit_code", False), ("consequence", "duration", True),
    ("who", "body", True), ("who", "length", False), ("number", "permit_code", False), ("number", "length", True),
    ("duration", "length", False), ("how_long", "length", True), ("yes_no", "permit_code", True),
    ("other", "body", True), ("section", "section", True),
])
def test_which_types_answer_which(asked, given, answers):
    assert answer_type.answers(asked, given) is answers


def test_the_chooser_declines_a_route_whose_every_candidate_is_of_another_type(res):
    query = Query(text="What must the review authority find?", normalized="what must the review authority find")
    body = Candidate("body", Answer(query.text, "Planning Commission", False, route="standards"))
    given = chooser.given_by_route(query, [body], answer_type.asked(query.text), res)
    assert _declined_for_type(given) and "who decides" in given.answer
    text = Candidate("passage", Answer(query.text, "The review authority shall find ...", False, route="passage"))
    assert chooser.given_by_route(query, [body, text], "findings", res) is text.answer


@pytest.mark.parametrize("question,asked", [
    ("What additional information must an application for a communication facility include?", "requirements"),
    ("what paperwork does a phone company have to hand in", "requirements"),
    ("What planning permit is required for a new communication facility?", "permit"),
    ("which review authority decides a use permit?", "other"),  # asks who decides, not which permit
])
def test_the_asked_type_for_lists_and_permits(question, asked):
    assert answer_type.asked(question) == asked


@pytest.mark.parametrize("asked,given,answers", [
    ("requirements", "list", True), ("requirements", "permit_code", False), ("requirements", "definition", False),
    ("permit", "permit_code", True), ("permit", "definition", False), ("permit", "body", False),
])
def test_which_types_answer_lists_and_permits(asked, given, answers):
    assert answer_type.answers(asked, given) is answers


def test_provision_route_gives_the_value_kind_asked_or_a_list(res, monkeypatch):
    from assistant.routes import provision

    monkeypatch.setattr(res, "provision_meaning", lambda question, provisions: {})  # a model that finds nothing near

    question = "how many days to remove equipment after a communication facility is discontinued"
    duration = _check(provision.candidates, question, res)
    found = provision.candidates(res.read(question), res)
    assert duration.route == "provision" and found[0].answer_type == "duration"
    lead = duration.answer.split("\n")[0]
    assert answer_type.present("duration", lead.split(":")[0])  # the answer leads with the time span
    found = provision.candidates(res.read("what findings must be made to approve a communication facility?"), res)
    assert found and found[0].answer_type == "list"
    lines = found[0].answer.answer.split("\n")
    assert len(lines) >= 4 and all(line.lstrip()[:1] == "(" for line in lines[1:-1])  # a lead, its items (inner ones indented), the source
    _check(provision.candidates, "is a bar allowed in CE?", res, proposes=False)  # asks for no value or list
    monkeypatch.setattr(res, "provision_meaning", lambda question, provisions: None)  # no model: words alone
    _check(provision.candidates, question, res, proposes=False)  # choose poorly, so the passages answer


def test_a_route_of_another_type_gives_way_to_the_next(res):
    # a definition does not say which permit is needed: the chooser goes on to the later routes
    query = res.read("What planning permit is required for a communication facility?")
    answered = chooser.routed(query, res)
    assert answered.route != "definition"


def test_a_definitions_share_of_the_question_tells_what_is_x_from_a_question_about_x():
    from assistant.definitions import question_share

    assert question_share("what is a woonerf?", ["woonerf"]) == 1.0
    assert question_share("what does 'monopole' mean in the code?", ["monopole"]) == 1.0
    assert question_share("can we put speed bumps in the woonerf to slow people down?", ["woonerf"]) < 0.3


def test_a_quoted_sentence_that_announces_a_list_brings_its_items(res):
    """"shall be initiated by:" is not an answer; its (a), (b), (c) are, each on its line."""
    given = passage.passages(res.read("How may an amendment to the Zoning Map be initiated?"), res)
    lines = given.answer.split("\n")
    assert lines[0].endswith("initiated by:")
    assert [line[:3] for line in lines[1:4]] == ["(a)", "(b)", "(c)"]
    assert "resolution of the Council or Commission" in lines[1]
    assert given.signals["list_attached"] == 1.0


def test_a_quote_without_a_list_says_so_in_its_signals(res):
    given = passage.passages(res.read("woonerf speed limit"), res)
    assert given.signals["list_attached"] == 0.0


def test_a_table_asked_by_number_is_quoted_from_its_own_title(res):
    """17.24.030 prints Tables 2-17 and 2-18: "Table 2-18" quotes 2-18, not the section's opening."""
    given = _check(section.by_table, "Table 2-18", res)
    assert given.first_line.startswith("Table 2-18 TOC Zone Development Standards")


@pytest.mark.parametrize("question", ["Can a third of the required parking stalls be compact?",
                                      "The applicant wants 40 of the 100 required stalls compact. OK?",
                                      "Compact stalls can make up half of a parking lot now, right?"])
def test_a_part_of_a_whole_asks_for_a_percentage(question):
    assert answer_type.units_asked(question) == frozenset({"percent"})
    assert not answer_type.units_agree(question, "Width: 8 feet; Length including bumper overhang: 16 feet")


@pytest.mark.parametrize("question", ["What are all the findings the council has to make to approve a rezoning?",
                                      "list the findings for a general plan amendment"])
def test_a_question_naming_the_findings_asks_for_findings(question):
    assert answer_type.asked(question) == "findings"
    assert not answer_type.answers("findings", "body")


def test_what_the_question_says_besides_the_row_is_measured(res):
    """A permit or standards cell does not answer what the question asks besides its row."""
    plain = _check(permit.candidates, "can I open a bar in CD?", res)
    beside = _check(permit.candidates, "can a ground-mounted cell tower have a backup generator in PF?", res)
    assert plain.signals["question_unexplained"] == 0.0
    assert beside.signals["question_unexplained"] > 5.0
    # a comparison of measures is not the permit route's to answer at all
    assert permit.candidates(res.read("can a ground-mounted cell tower be taller in PF than in CG?"), res) == []
    ratio = _check(standards.candidates, "how many parking spaces for a restaurant", res)
    assert ratio.signals["question_unexplained"] == 0.0
    # the cell of a cell tower in PF is S: what the question says beside it is what the cell leaves unanswered
    assert beside.signals["deferred_unexplained"] == beside.signals["question_unexplained"]
    assert plain.signals["deferred_unexplained"] == 0.0


def test_only_cells_that_defer_to_the_specific_use_regulations_carry_the_deferred_weight():
    signals = {"question_unexplained": 7.5}
    assert permit_cells.deferred_unexplained(signals, [{"value": "S"}, {"value": "S "}]) == 7.5
    assert permit_cells.deferred_unexplained(signals, [{"value": "S"}, {"value": "UP"}]) == 0.0
    assert permit_cells.deferred_unexplained(signals, []) == 0.0


def test_words_beside_weighs_only_words_the_corpus_uses():
    from assistant.permits import words_beside

    idf = {"solar": 4.0, "array": 3.0, "rural": 2.0}
    assert words_beside("a solar array on my rural land, exactly", {"rural"}, idf) == 7.0
    assert words_beside("what is RR exactly", {"rr"}, idf) == 0.0
