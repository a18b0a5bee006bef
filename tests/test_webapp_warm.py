"""Issue 25, quick from cold: the index thread answers one question of each kind (and runs the server's
warmers) before it says "ready", with the searcher reachable from that thread only."""

from __future__ import annotations

import pytest

from webapp.engine import WARM_QUESTIONS, Engine, IndexStatus


@pytest.fixture(scope="module")
def loaded():
    from assistant.service import load_assistant

    return load_assistant()


def test_one_answer_of_each_kind_is_made_before_ready(loaded):
    lines: list[str] = []
    searcher = object()
    engine = Engine(loaded.corpus, loaded.tables, lambda progress: searcher, echo=lines.append)
    seen = []
    engine.warmers = (lambda: seen.append(("gradio", engine.status.state, None)),)
    engine.assistant.ask = lambda question, **kw: seen.append((question, engine.status.state, engine._searcher()))
    engine.build_index()
    assert seen[0] == ("gradio", "warming", None)
    assert [q for q, _, _ in seen[1:]] == list(WARM_QUESTIONS)
    assert all(state == "warming" and found is searcher for _, state, found in seen[1:])
    assert lines[-2].startswith(f"answers: warm ({len(WARM_QUESTIONS)} questions, ")
    assert lines[-1].startswith("search index: ready") and engine.status.state == "ready"
    assert getattr(engine._waiting, "searcher", None) is None  # only the warming itself skipped the wait


def test_a_failing_warm_up_is_noted_not_fatal(loaded):
    engine = Engine(loaded.corpus, loaded.tables, lambda progress: object(), echo=lambda line: None)

    def broken():
        raise RuntimeError("no matplotlib here")

    engine.warmers = (broken,)
    engine.assistant.ask = lambda question, **kw: 1 / 0
    engine.build_index()
    assert engine.status.state == "ready"


def test_the_status_line_counts_the_answers_being_prepared():
    status = IndexStatus(state="warming", stage="answers", done=2, total=6)
    assert status.text().startswith("Loading the search model and preparing answers — answers 2/6…")


def test_the_app_answers_with_the_learned_parts_the_cli_uses(loaded):
    """The web engine once built its assistant without the ranker and the reader: the page answered by
    the routes' hand order while the CLI and the eval used the ranker."""
    engine = Engine.load(echo=lambda line: None)
    res = engine.assistant.resources
    assert res.ranker is not None and res.ranker == loaded.resources.ranker
    assert type(res.reader) is type(loaded.resources.reader)
    then = engine.assistant.then_factory("2025-01-01").resources  # "in 2024, ...": as the CLI's earlier law
    assert then.ranker is None and type(then.reader) is type(res.reader)
