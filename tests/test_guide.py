"""The guide (issue 46): "help", "?", "what can you do" and near-empty questions get what is loaded, the
kinds of question answered and example questions as buttons; the assistant is not asked, and its answers
are not rewritten. Hermetic: the bundled corpus, no index (a guide needs none)."""

from __future__ import annotations

import html
import json
import re

import pytest

from webapp import guide, pages, views
from webapp.viewer import READER_EMPTY, Viewer


@pytest.mark.parametrize("text", ["help", "HELP!", "  help me ", "?", "??", "...", "a", "What can you do?", "what can I ask",
                                  "How does this work?", "hi", "what can you do"])
def test_help_and_near_empty_questions_get_the_guide(text):
    assert guide.asks_for_help(text)


@pytest.mark.parametrize("text", ["", "   ", "Can I open a bar on East Cotati Avenue?", "17.44", "CE", "help with a fence permit",
                                  "What can you do about a noisy neighbor?", "ADU", None, 3])
def test_questions_are_not_taken_for_help(text):
    assert not guide.asks_for_help(text)


@pytest.fixture(scope="module")
def spy():
    """The app's engine over the bundled corpus (no index: a guide needs none), whose assistant records every
    question it is asked and the history it is given."""
    from assistant.service import load_assistant
    from assistant.types import Answer
    from webapp.engine import Engine

    loaded = load_assistant()
    engine = Engine(loaded.corpus, loaded.tables, lambda progress: None, wait_seconds=0, echo=lambda line: None)
    engine.asked = []

    def ask_logged(question, history=None, as_of=""):
        engine.asked.append((question, [q for q, _ in history or []]))
        return Answer(question=question, answer="Permitted (P).", abstained=False, route="permit"), None

    engine.ask_logged = ask_logged
    engine.ask = lambda question, history=None, as_of="": ask_logged(question, history, as_of)[0]
    return engine


def test_the_guide_says_what_is_loaded_and_offers_five_examples_as_buttons(spy):
    viewer = Viewer(spy)
    before = list(spy.asked)
    turns, live, reader = viewer.answer("help", [])
    assert spy.asked == before and reader == READER_EMPTY  # the assistant is not asked
    [(asked, found, entry, feedback)] = turns
    assert isinstance(found, guide.Guide) and entry is None and live == guide.LEAD
    card = pages.guide_card(0, found, latest=True)
    assert card.startswith('<article class="turn latest guide"')
    assert re.search(r'<h3 class="headline" id="turn-0-head" data-scroll-to="start">What I can answer, and how to ask</h3>',
                     card)
    assert "Loaded: 4 documents dated 2023-12-06 to 2026-09-10" in card and "?coverage=1" in card
    buttons = re.findall(r'<button type="button" class="follow example" data-nav="([^"]+)">([^<]+)</button>', card)
    assert len(buttons) >= 5
    for command, text in buttons:
        assert json.loads(html.unescape(command)) == {"do": "ask", "q": html.unescape(text)}
    assert [html.unescape(t) for _, t in buttons] == list(found.examples)
    assert "2026-09-10" in card and card.count("<li>") >= 4 + 5  # each loaded document, each kind of question


def test_a_guide_is_not_a_turn_the_assistant_reads_as_history(spy):
    viewer = Viewer(spy)
    turns, *_ = viewer.answer("Can I open a bar in CE?", [])
    turns, *_ = viewer.answer("?", turns)
    turns, *_ = viewer.answer("what about in CG?", turns)
    assert spy.asked[-1] == ("what about in CG?", ["Can I open a bar in CE?"])
    cards = viewer.cards(turns)
    assert cards.count('class="turn') == 3 and cards.count("turn latest") == 1
    assert "What I can answer, and how to ask" in cards


def test_the_ask_endpoint_gives_the_guide_as_markdown(spy):
    markdown = Viewer(spy).ask_markdown("what can you do?")
    lines = markdown.split("\n")
    assert lines[0] == "**What I can answer, and how to ask**"
    assert lines[1].startswith("Loaded: 4 documents dated 2023-12-06 to 2026-09-10")
    assert sum(line.startswith("- ") for line in lines) == len(guide.KINDS) >= 5
    assert views.md_escape("“Can I open a bar on East Cotati Avenue?”") in markdown
