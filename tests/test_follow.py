"""Issue 37 item 2: a running app follows the corpus. The failure: with the app up, `ingest add
ord940.txt --build-index` succeeded and the CLI quoted the new ordinance, while the app kept answering
"§ 17.30.050 is not in these documents" until restarted, and nothing said so. Now the app notices the
corpus lock's new stamp, loads the new corpus in the background while the old state answers, switches
at once, and the page and the question log say which corpus state an answer came from."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from assistant.questionlog import QuestionLog
from ingest.changes import add_document
from ingest.lock import LOCK_NAME, stamp

from corpus_copy import REPO
from corpus_copy import copy_corpus as _copy

pytestmark = [pytest.mark.filterwarnings("ignore:.*no_silent_downcasting"), pytest.mark.filterwarnings("ignore:The copy keyword")]

APIARIES = ("ORDINANCE NO. 940\n\nSECTION 1: Recitals.\nThe council finds that bees matter.\n\n"
            "SECTION 2: Amendment. Section 17.30.050 is added to read:\n17.30.050 Apiaries.\n"
            "A beehive must stand ten feet from a property line.\n")


def _engine(folder: Path):
    from assistant.service import load_assistant
    from webapp.engine import Engine

    loaded = load_assistant(folder)
    engine = Engine(loaded.corpus, loaded.tables, lambda progress: None, wait_seconds=0.1, echo=lambda line: None,
                    standards=loaded.standards)
    return engine


@pytest.fixture
def following(tmp_path, monkeypatch):
    from webapp.follow import Following

    monkeypatch.setattr("webapp.engine.WARM_QUESTIONS", ())  # no index here: nothing to warm
    folder = _copy(tmp_path)
    engine = _engine(folder)
    engine.question_log = QuestionLog(tmp_path / "q.sqlite3")
    gate = threading.Event()  # the new state loads once the test opens it
    gate.set()
    made = Following(engine, folder, lambda: (gate.wait(60), _engine(folder))[1], check_seconds=0)
    made.gate = gate
    yield made, folder, tmp_path
    made.engine.question_log.close()


def _add(folder: Path, tmp_path: Path) -> None:
    source = tmp_path / "ord940.txt"
    source.write_text(APIARIES, encoding="utf-8")
    add_document(source, "2026-10-01", "Ord 940 apiaries", folder)


def test_an_added_document_is_served_without_a_restart(following, caplog):
    made, folder, tmp_path = following
    assert made.lookup("17.30.050").message == "§ 17.30.050 is not in these documents."
    old = made.engine
    made.gate.clear()
    _add(folder, tmp_path)
    with caplog.at_level(logging.INFO, logger="webapp"):
        assert made.lookup("17.30.050").kind == "none"  # the look starts the load; the old state still answers
        assert made.reloading and "loading them in the background" in made.status.text()
        assert made.lookup("17.44.065").kind == "section" and made.engine is old
        made.gate.set()
        assert made.reloaded.wait(120)
    assert made.engine is not old and made.lookup("17.30.050").kind == "section"
    assert made.engine.corpus_stamp == stamp(folder) != old.corpus_stamp
    said = [r.getMessage() for r in caplog.records]
    assert any(line.startswith("corpus: changed") for line in said) and any("now serving" in line for line in said)
    assert "documents changed" in made.status.text() and "5 documents" in made.status.text()


def test_the_log_and_the_page_name_the_corpus_state_of_an_answer(following):
    from webapp.viewer import Viewer

    made, folder, tmp_path = following
    viewer = Viewer(made)
    turns, _, _ = viewer.answer("17.44.065", [])
    before = made.engine.corpus_stamp
    _add(folder, tmp_path)
    made.check(force=True)
    assert made.reloaded.wait(120)
    turns, _, _ = viewer.answer("17.30.050", turns)
    with QuestionLog(tmp_path / "q.sqlite3", read_only=True) as log:
        states = [e.corpus for e in log.entries()]
    assert states == [before, stamp(folder)] and before != stamp(folder)
    cards = viewer.cards(turns)
    assert cards.count('class="corpus-note"') == 1 and "documents changed after the answer above" in cards


def test_an_unsigned_edit_or_a_change_that_does_not_verify_is_not_served(following, caplog):
    made, folder, tmp_path = following
    old = made.engine
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["documents"][0]["kind"] = "codified chapter"
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert made.check(force=True) is False  # nobody signed it: the stamp did not move
    lock = json.loads((folder / LOCK_NAME).read_text(encoding="utf-8"))
    lock["signature"] = "0" * 64  # a stamp that moved, over a corpus that does not verify
    (folder / LOCK_NAME).write_text(json.dumps(lock), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="webapp"):
        assert made.check(force=True) is True
        made._thread.join(60)
    assert made.engine is old and not made.reloaded.is_set()
    assert [r.getMessage() for r in caplog.records if "does not verify" in r.getMessage()]
    assert made.check(force=True) is False  # said once


def test_the_app_follows_an_ingest_add_while_it_serves(tmp_path):
    """Through the real entry point: `python app.py` serving, then `python -m ingest add` beside it."""
    from gradio_client import Client

    from app_process import app_process

    folder = _copy(tmp_path)
    env = {"COTATI_CORPUS_DIR": str(folder), "COTATI_CORPUS_CHECK_SECONDS": "0"}
    with app_process(env) as running:
        client = Client(running.url, verbose=False)
        assert "not in these documents" in client.predict("17.30.050", api_name="/section")
        source = tmp_path / "ord940.txt"
        source.write_text(APIARIES, encoding="utf-8")
        added = subprocess.run([sys.executable, "-m", "ingest", "add", str(source), "--date", "2026-10-01", "--title",
                                "Ord 940 apiaries", "--corpus", str(folder)], cwd=REPO,
                               env={**os.environ, "COTATI_EMBED_MODEL": "hash:64"}, capture_output=True, text=True,
                               timeout=120)
        assert added.returncode == 0, added.stderr
        deadline, shown = time.monotonic() + 120, ""
        while time.monotonic() < deadline:
            shown = client.predict("17.30.050", api_name="/section")
            if "Apiaries" in shown:
                break
            time.sleep(1)
        assert "Apiaries" in shown and "beehive" in shown, shown
        assert "corpus: now serving state" in running.output()
