"""What the route tests share: the hermetic assistant's loaded state (the bundled corpus and tables,
the fake searcher of test_assistant: no index, no model) and a route's proposals for a question,
each checked to be that route's and of an answer type the registry knows."""

from __future__ import annotations

import pytest

from assistant import answer_type


@pytest.fixture(scope="module")
def res():
    from tests.test_assistant import hermetic_assistant

    return hermetic_assistant().resources


def proposed(route, res, question: str) -> list:
    name = route.__name__.rsplit(".", 1)[-1]
    found = route.candidates(res.read(question), res)
    assert all(c.answer_type in answer_type.GIVEN and c.answer.route == name for c in found)
    return found
