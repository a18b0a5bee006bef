"""Issue 37 items 6 and 11: the web question is cleaned as the CLI's is, before anything touches it.

The failures: a lone surrogate typed in the web page broke the answer stream (`TypeError: str is not
valid UTF-8`: red "Error" badges, no answer, the conversation lost); a zero-width space or soft hyphen
inside a word ("b\\u200bar") made a plain question decline; full-width district letters ("ＣＥ") were
answered for all districts. `assistant.validate.clean_question` is the one cleaning: lone surrogates
and controls -> U+FFFD, invisible characters removed, NFKC."""

from __future__ import annotations

import json

import pytest

from assistant.validate import InvalidQuestion, check_question, clean_question

PLAIN = "Can I open a bar in CE?"
ODD = {
    "zero-width space": "Can I open a b\u200bar in CE?",
    "soft hyphen": "Can I open a b\u00adar in CE?",
    "zero-width joiner and BOM": "Can I open a \ufeffbar\u200d in CE?",
    "full-width district": "Can I open a bar in \uff23\uff25?",
    "full-width question": "\uff23\uff41\uff4e I open a bar in CE\uff1f",
    # issue 45: format and filler characters inside a word made a plain question decline
    "invisible separator U+2063": "Can I open a b\u2063ar in CE?",
    "combining grapheme joiner U+034F": "Can I open a b\u034far in CE?",
    "variation selector U+FE0F": "Can I open a b\ufe0far in CE?",
    "Hangul filler U+3164": "Can I open a b\u3164ar in CE?",
    "Braille blank U+2800": "Can I open a b\u2800ar in CE?",
    "tag characters": "Can I open a b\U000e0062\U000e0061ar in C\U000e007fE?",
    "half-width Hangul filler U+FFA0": "Can I open a b\uffa0ar in CE?",
}


@pytest.mark.parametrize("odd", ODD)
def test_odd_characters_clean_to_the_plain_question(odd):
    assert check_question(ODD[odd]) == PLAIN


def test_clean_question_replaces_what_cannot_be_stored():
    cleaned = clean_question("fence\udc80 height\x00")
    cleaned.encode("utf-8")
    assert cleaned == "fence\ufffd height\ufffd" and clean_question(None) == ""
    with pytest.raises(InvalidQuestion, match="broken text"):
        check_question("fence\udc80")


@pytest.fixture(scope="module")
def viewer():
    from assistant.service import load_assistant
    from webapp.engine import Engine
    from webapp.viewer import Viewer

    loaded = load_assistant()
    engine = Engine(loaded.corpus, loaded.tables, lambda progress: None, wait_seconds=0.1, echo=lambda line: None,
                    standards=loaded.standards)
    return Viewer(engine)


@pytest.mark.parametrize("odd", ODD)
def test_the_web_engine_answers_odd_characters_as_the_plain_question(odd, viewer):
    plain, answered = viewer.engine.ask(PLAIN), viewer.engine.ask(ODD[odd])
    assert (answered.route, answered.answer, answered.abstained) == (plain.route, plain.answer, plain.abstained)


@pytest.mark.parametrize("lower", ["Can I open a bar in ce?", "can i open a bar in the ce district",
                                   "can i open a bar in ce"])
def test_a_lower_case_district_symbol_where_a_district_stands_is_that_district(lower, viewer):
    """Issue 45: "ce" declined; a lower-case symbol counts where the question places a district."""
    plain, answered = viewer.engine.ask(PLAIN), viewer.engine.ask(lower)
    assert not answered.abstained and answered.first_line == plain.first_line
    assert [c["column"] for c in answered.lookups] == ["CE"]


def test_a_lower_case_symbol_that_is_a_place_or_a_word_is_no_district():
    from assistant.understand import understand
    from assistant.vocab import load_vocabulary

    vocabulary = load_vocabulary()
    assert understand("i live in ca, can i open a bar?", vocabulary).districts == ()  # California
    assert understand("can i open a bar in lp or ce?", vocabulary).districts == ("LP", "CE")
    assert understand("is the ce of the company allowed to sign?", vocabulary).districts == ()


def test_a_lone_surrogate_in_the_page_gives_an_answer_the_stream_can_send(viewer):
    """What the page's answer event returns must encode as UTF-8 (gradio's stream refused it)."""
    from webapp.ui import Events, Parts

    events = Events(viewer, Parts())
    out = events.respond("Can I build a fence\ud83d?", [], "")
    question_box, cards, turns, live = out[:4]
    asked, answer, *_ = turns[0]
    assert "\ud83d" not in asked and "\ufffd" in asked and answer.route == "invalid"
    for text in (cards, live, asked, answer.answer, answer.question):
        text.encode("utf-8")
    json.dumps([asked, answer.to_dict()], ensure_ascii=False).encode("utf-8")
    markdown = viewer.ask_markdown("fence\udc80 height?")  # the public API path
    markdown.encode("utf-8")
