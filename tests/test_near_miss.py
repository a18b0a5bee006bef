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
