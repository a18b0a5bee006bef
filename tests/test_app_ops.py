"""The web app's operations through the real entry point (`python app.py` in a child process):
its surface (no uploads, a Host check, no framing), the first start (table and section answers
never wait for the index; a build that failed says so and how to retry) and the question log."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from corpus_copy import PROPOSED_000

from app_process import REPO, app_process, http_get

pytestmark = [pytest.mark.filterwarnings("ignore:.*no_silent_downcasting"), pytest.mark.filterwarnings("ignore:The copy keyword")]

DECLINED = "What is the capital of France?"
PERMIT = "Can I open a bar on East Cotati Avenue?"


def _client(url: str):
    from gradio_client import Client

    return Client(url, verbose=False)


@pytest.fixture(scope="module")
def app():
    with app_process({"COTATI_ALLOWED_HOSTS": "code.cotati.example,127.0.0.1"}) as running:
        yield running


def test_the_app_takes_no_files(app):
    body = b'--x\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nhello\r\n--x--\r\n'
    request = urllib.request.Request(app.url + "gradio_api/upload", data=body, method="POST",
                                     headers={"Content-Type": "multipart/form-data; boundary=x"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 403 and refused.value.read() == b"This app takes no files."


@pytest.mark.parametrize("host, status", [("code.cotati.example", 200), ("127.0.0.1", 200), ("evil.example", 400),
                                          ("localhost", 400)])
def test_only_the_allowed_host_names_are_answered(app, host, status):
    port = app.url.rsplit(":", 1)[1].strip("/")
    assert http_get(app.url, {"Host": f"{host}:{port}"})[0] == status


@pytest.mark.parametrize("path", ["", "gradio_api/info", "config"])
def test_responses_forbid_framing_and_type_sniffing(app, path):
    status, _, headers = http_get(app.url + path)
    headers = {name.lower(): value for name, value in headers.items()}
    assert headers["x-frame-options"] == "DENY", (path, status)
    assert headers["content-security-policy"] == "frame-ancestors 'none'"
    assert headers["x-content-type-options"] == "nosniff"


def _log_cli(app, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COTATI_QUESTION_LOG_PATH": str(app.question_log)}
    return subprocess.run([sys.executable, "-m", "assistant", "log", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)


def test_questions_are_logged_and_the_unanswered_listed(app):
    client = _client(app.url)
    for question in (PERMIT, DECLINED, "what's the capital of France", PERMIT):
        client.predict(question, api_name="/ask")
    with sqlite3.connect(app.question_log) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(questions)")]
        rows = db.execute("SELECT route, abstained, question FROM questions ORDER BY id").fetchall()
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # No IP, no session: the question, what was answered, and a resident's mark when one is given.
    assert columns == ["id", "asked_at", "route", "confidence", "abstained", "question", "answer", "interpretation",
                       "mark", "comment", "marked_at", "corpus"]
    assert [r[2] for r in rows] == [PERMIT, DECLINED, "what's the capital of France", PERMIT]
    assert rows[0][:2] == ("permit", 0) and rows[1][1] == 1
    done = _log_cli(app, "--unanswered", "--json")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    groups = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(groups) == 1 and groups[0]["count"] == 2 and groups[0]["declined"] == 2
    assert groups[0]["variants"] == [DECLINED, "what's the capital of France"]
    assert _log_cli(app, "--unanswered", "--since", "2999-01-01", "--json").stdout == ""
    text = _log_cli(app, "--unanswered").stdout
    assert text.splitlines()[0].lstrip().startswith(f"2x  {DECLINED}")


def test_the_page_never_shows_the_log(app):
    page = http_get(app.url + "config")[1]
    assert "questions.sqlite3" not in page and DECLINED not in page


def test_table_and_section_answers_never_wait_for_the_index_build(tmp_path):
    """The build is held behind its lock (as while another build runs): permit, standards and
    section-number questions are answered at once meanwhile."""
    lock = open(tmp_path / ".index.lock", "a+")
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        with app_process({"COTATI_INDEX_DIR": str(tmp_path / "index")}, ready="serving on") as running:
            client = _client(running.url)
            for question, first in [(PERMIT, f"**A use permit (UP) is required. {PROPOSED_000}**"),
                                    ("How many parking spaces does a bowling alley need?",
                                     "**Bowling alley: 5 spaces for each lane.**"),
                                    ("17.44.065", "**§ 17.44.065 Limited Waiver to Avoid Prohibitions of Service "
                                                  f"({PROPOSED_000[:-1]})**")]:
                started = time.monotonic()
                answer = client.predict(question, api_name="/ask")
                assert time.monotonic() - started < 5, question
                assert answer.split("\n")[0] == first
            assert "search index: ready" not in running.output()
            fcntl.flock(lock, fcntl.LOCK_UN)
            deadline = time.monotonic() + 60
            while "search index: ready" not in running.output() and time.monotonic() < deadline:
                time.sleep(0.2)
            assert "search index: ready" in running.output()
    finally:
        lock.close()


def test_a_failed_build_says_so_and_how_to_retry():
    with app_process({"COTATI_EMBED_MODEL": str(Path("/nonexistent/model"))}, ready="search index: FAILED") as running:
        answer = _client(running.url).predict("What are the rules for outdoor lighting?", api_name="/ask")
        first = answer.split("\n")[0]
        # the reason names the model by its last part: the page never shows server paths (issue 26)
        assert "could not be built" in first and "'model'" in first and "restart the app" in first
        assert "/nonexistent" not in answer
        assert "python -m index build" in first and "try again in a minute" not in answer
        assert _client(running.url).predict(PERMIT, api_name="/ask").startswith("**A use permit (UP) is required. This "
                                                                                "rests only on a proposed ordinance")
        assert "Traceback" not in running.output()
