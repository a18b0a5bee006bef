"""Issue 45 item 10: benchmarks/load.py reports answered, declined and refused apart (it counted the
assistant's declines as answered: three of its six questions declined)."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def load_tool():
    spec = importlib.util.spec_from_file_location("load_tool", REPO / "benchmarks" / "load.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def viewer():
    """The app's engine with its index (as load.py meets it: the app ready)."""
    from webapp.engine import Engine
    from webapp.viewer import Viewer

    engine = Engine.load(wait_seconds=60.0, echo=lambda line: None)
    engine.start_index()
    assert engine.wait_ready(600)
    yield Viewer(engine)
    engine.settle(120)


QUESTIONS = ["Can I open a bar on East Cotati Avenue?", "17.44.065", "17.99.999", "What is the capital of France?",
             "I want to put a hot tub in my backyard, how far from the property line?", "",
             "Was a bar allowed in TOC before Ord. 939?", "¿Puedo abrir un bar en CE?"]


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_decline_through_the_public_api_is_counted_as_declined(load_tool, viewer, question):
    """What /ask returns (its Markdown) is told declined exactly when the assistant declined."""
    answer = viewer.engine.ask(question)
    markdown = viewer.ask_markdown(question)
    assert load_tool.declined(markdown) == answer.abstained, (question, markdown.split("\n")[0])


def test_the_tools_own_questions_are_told_apart(load_tool, viewer):
    outcomes = {q: load_tool.declined(viewer.ask_markdown(q)) for q in load_tool.QUESTIONS}
    assert outcomes["What is the capital of France?"] is True
    assert outcomes["Can I open a bar on East Cotati Avenue?"] is False


def test_a_stream_is_read_as_answered_or_declined(load_tool, monkeypatch):
    class Response:
        def __init__(self, body):
            self.body = body

        def read(self):
            return self.body

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    bodies = []

    def urlopen(request, timeout=None):
        return Response(bodies.pop(0))

    monkeypatch.setattr(load_tool.urllib.request, "urlopen", urlopen)
    for lead, outcome in [("**A use permit (UP) is required.**", "answered"),
                          ("**No sure answer: the nearest passages ...**", "declined")]:
        bodies[:] = [json.dumps({"event_id": "e1"}).encode(),
                     f"event: complete\ndata: {json.dumps([lead + chr(10) + 'more'])}\n\n".encode()]
        assert load_tool.ask("http://x/", "q", 5)[0] == outcome


def test_the_question_log_is_counted_as_a_cross_check(load_tool, tmp_path):
    path = tmp_path / "q.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE questions (id INTEGER PRIMARY KEY, abstained INTEGER)")
        db.executemany("INSERT INTO questions (abstained) VALUES (?)", [(0,), (1,), (1,), (0,), (0,)])
    assert load_tool.logged(path) == {"answered": 3, "declined": 2}
    assert load_tool.logged(tmp_path / "none.sqlite3") is None
