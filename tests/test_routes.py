"""Answer-type contracts: every route's candidates carry an answer type, and the chooser never gives
one whose type is not the type the question asked for (a Table 6-1 role does not answer "what must
be found", a permit cell does not answer "what happens to my permit if ...").

Hermetic: the bundled corpus and tables, the fake searcher of test_assistant (no index, no model).
"""

from __future__ import annotations

import pytest

from assistant import answer_type, chooser
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
    given = chooser._given(query, found, asked, res)
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
    given = chooser._given(query, [body], answer_type.asked(query.text), res)
    assert _declined_for_type(given) and "who decides" in given.answer
    text = Candidate("passage", Answer(query.text, "The review authority shall find ...", False, route="passage"))
    assert chooser._given(query, [body, text], "findings", res) is text.answer
