"""Issue 26 item 13: errors shown to residents never contain server paths (the page showed the index
folder's full path when the index failed), and a permit question is answered whatever state the
index is in."""

from __future__ import annotations

import pytest

from index import IndexStoreError
from webapp.engine import Engine, without_paths

SECRET = "/srv/cotati-secret/var/index"


@pytest.fixture(scope="module")
def failed_engine():
    from assistant.service import load_assistant

    loaded = load_assistant()

    def damaged(progress):
        raise IndexStoreError(SECRET, "index is damaged and the folder cannot be written ([Errno 30] Read-only file "
                                      f"system: '{SECRET}/chunks.jsonl'); build it elsewhere (COTATI_INDEX_DIR)")

    engine = Engine(loaded.corpus, loaded.tables, damaged, wait_seconds=0.1, echo=lambda line: None)
    engine.start_index()
    engine.wait_ready(10)
    return engine


def test_the_status_and_answers_name_no_server_path(failed_engine):
    assert failed_engine.status.state == "failed" and SECRET in failed_engine.status.message  # the terminal has it
    shown = [failed_engine.status.text(), failed_engine.ask("What does the code say about home occupations?").answer]
    for text in shown:
        assert "/srv" not in text and "cotati-secret" not in text, text
        assert "index is damaged" in text


def test_a_permit_question_needs_no_index(failed_engine):
    answer = failed_engine.ask("Can I open a bar on East Cotati Avenue?")
    assert answer.route == "permit" and answer.answer.startswith("A use permit (UP) is required.")


@pytest.mark.parametrize("text, shown", [
    ("/a/b/index: damaged", "index: damaged"), ("read '/x/y/chunks.jsonl' failed", "read 'chunks.jsonl' failed"),
    ("§ 17.44.065 and 2/3 of the lot", "§ 17.44.065 and 2/3 of the lot"), ("see http://example.org/a", "see http://example.org/a"),
])
def test_without_paths(text, shown):
    assert without_paths(text) == shown
