"""The question understood once (issue 35): ``understand`` classifies the question's answer type
(``answer_type.classify``) and the Query carries it; no route or helper classifies the question
again, and answering a question builds one Query."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from assistant import answer_type
from assistant.understand import understand
from assistant.vocab import load_vocabulary

DEV = Path(__file__).resolve().parents[1] / "eval" / "dev.jsonl"
EVERY = 25  # every 25th dev question: about 65, a few seconds of answering


@pytest.mark.parametrize("question,detected,asked", [
    ("how tall can a fence be?", "number", "number"),
    ("What must the review authority find?", "other", "findings"),  # refined: a list in the code's text
    ("how long can the driveway be?", "duration", "how_long"),  # a length or a time span
    ("how long is a use permit valid?", "duration", "duration"),
    ("who approves a variance?", "who", "who"),
    ("what is a kennel?", "definition", "definition"),
    ("can I open a bar in CE?", "yes_no", "yes_no"),
])
def test_understand_classifies_the_question_once_and_the_query_carries_both_types(monkeypatch, question, detected, asked):
    real_classify, real_detect = answer_type.classify, answer_type.detect
    classified, detected_calls = [], []
    monkeypatch.setattr(answer_type, "classify", lambda text: classified.append(text) or real_classify(text))
    monkeypatch.setattr(answer_type, "detect", lambda text: detected_calls.append(text) or real_detect(text))
    query = understand(question, load_vocabulary())
    assert (query.detected, query.asked) == (detected, asked)
    assert classified == [question] and detected_calls == [question]  # one run of the classifier


@pytest.mark.parametrize("question", ["how tall can a fence be?", "What must the review authority find?",
                                      "how long can the driveway be?", "what is a kennel?", "How much is the fee?"])
def test_classify_gives_what_detect_and_asked_give(question):
    assert answer_type.classify(question) == answer_type.Asks(answer_type.detect(question), answer_type.asked(question))


def _sample() -> list[str]:
    items = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [item["question"] for item in items[::EVERY]]


def _one_pass(question: str, built) -> bool:
    """Answered by one pass of the chooser: no second question for the splitter to read apart, and no
    time or change named (those are answered as of then and as of today, a Query each)."""
    from assistant import dialogue, timepoint
    from assistant.validate import check_question

    text = check_question(question)
    documents = list(built.corpus.documents.values())
    pieces: list[str] = []
    dialogue.split_questions(text, lambda piece: pieces.append(piece) or built.resources.read(piece))
    return not pieces and timepoint.asked_change(text, documents) is None and timepoint.asked_time(text, documents) is None


@pytest.mark.slow
def test_a_question_is_read_and_classified_once_per_answer(monkeypatch):
    """Counted on the real assistant: Query objects built (``understand``, which ``Resources.read``
    calls) and classifier runs (``answer_type.detect``, also inside ``classify``) per ``ask``."""
    from assistant import load_assistant, resources
    from assistant import understand as understand_mod

    built = load_assistant()
    questions = _sample()
    single = {question for question in questions if _one_pass(question, built)}
    assert len(single) >= 50, "the sample should be mostly ordinary single-part questions"

    counts: Counter = Counter()

    import threading

    asking = threading.get_ident()

    def counting(name, function):
        def counted(*args, **kwargs):
            # Only this thread's answers: an app engine an earlier test started may still be warming up
            # its own answers in the background (seen in a full run: its reads were counted here).
            if threading.get_ident() == asking:
                counts[name] += 1
            return function(*args, **kwargs)
        return counted

    monkeypatch.setattr(resources, "understand", counting("read", resources.understand))
    monkeypatch.setattr(understand_mod, "understand", counting("read", understand_mod.understand))
    for name in ("detect", "asked", "classify"):
        monkeypatch.setattr(answer_type, name, counting(name, getattr(answer_type, name)))
    seen = {}
    for question in questions:
        counts.clear()
        built.ask(question)
        seen[question] = dict(counts)
    for question, got in seen.items():
        # every Query built is classified once, and nothing else classifies a question
        assert got.get("detect", 0) == got.get("classify", 0) == got.get("read", 0), (question, got)
        assert "asked" not in got, (question, got)
        if question in single:
            assert got == {"read": 1, "classify": 1, "detect": 1}, (question, got)
