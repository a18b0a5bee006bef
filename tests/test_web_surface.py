"""Issue 37 items 7, 9 (and 4 through the real entry point): the web path is bounded.

The failures: twelve concurrent 50 MB JSON posts to /gradio_api/call/ask took the server to 2.97 GB
(no request-body limit); `POST /gradio_api/process_recording` with a file wrote it to gradio's
temporary folder and returned it, though the app takes no files; a log that could not be opened
stopped `python app.py`. Now a body over COTATI_MAX_REQUEST_BYTES is 413, the routes that take files
or that the app does not use are 403 before the body is read, and the app serves without a log."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from app_process import app_process

pytestmark = [pytest.mark.filterwarnings("ignore:.*no_silent_downcasting"), pytest.mark.filterwarnings("ignore:The copy keyword")]


@pytest.fixture(scope="module")
def small_app():
    """A Starlette app that reads every body it is sent, behind the app's middleware (cap: 4 kB)."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from webapp.guard import middleware

    async def read(request):
        return JSONResponse({"read": len(await request.body())})

    app = Starlette(routes=[Route("/{path:path}", read, methods=["POST"])],
                    middleware=middleware(("testserver",), max_body=4096))
    return TestClient(app)


def test_a_body_over_the_cap_is_413_by_its_length(small_app):
    assert small_app.post("/gradio_api/call/ask", json={"data": ["x" * 100]}).status_code == 200
    refused = small_app.post("/gradio_api/call/ask", json={"data": ["x" * 5000]})
    assert refused.status_code == 413 and refused.headers["x-frame-options"] == "DENY"


def test_a_chunked_body_is_read_only_up_to_the_cap(small_app):
    def chunks():
        for _ in range(1000):  # 1 MB, sent without a Content-Length
            yield b"x" * 1024

    assert small_app.post("/gradio_api/call/ask", content=chunks()).status_code == 413


@pytest.mark.parametrize("path", ["/gradio_api/upload", "/gradio_api/upload_progress", "/gradio_api/process_recording",
                                  "/gradio_api/process_recording/", "/gradio_api/component_server",
                                  "/gradio_api/stream/abc", "/root/gradio_api/process_recording",
                                  "/gradio_api/run-history/connect", "/gradio_api/vibe-edit"])
def test_routes_the_app_does_not_offer_are_closed(small_app, path):
    refused = small_app.post(path, files={"files": ("a.wav", b"RIFF....WAVE")})
    assert refused.status_code == 403 and refused.text == "This app takes no files."


def test_the_cap_defaults_a_few_kb_above_the_longest_question():
    import settings
    from assistant.validate import MAX_CHARS

    cap = settings.load(environ={}).max_request_bytes
    longest = len(json.dumps({"data": ["\ud83d" * MAX_CHARS, None, "2026-01-01"], "fn_index": 3,
                              "session_hash": "x" * 12}).encode())
    assert longest < cap < longest + 8192


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("surface")
    (folder / "file").write_text("a file where the log's folder should be")
    env = {"COTATI_QUESTION_LOG_PATH": str(folder / "file" / "questions.sqlite3"), "GRADIO_TEMP_DIR": str(folder / "tmp")}
    with app_process(env, ready="serving on") as running:
        running.temp = folder / "tmp"
        yield running


def _post(url: str, body: bytes, content_type: str = "application/json") -> int:
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_app_serves_without_a_log_it_cannot_open_saying_so_once(app):
    output = app.output()
    assert "Traceback" not in output and "LogError" not in output
    assert len([line for line in output.splitlines() if "question log" in line and "WARNING" in line]) == 1
    assert _post(app.url + "gradio_api/call/ask", json.dumps({"data": ["Can I open a bar in CE?"]}).encode()) == 200


def test_a_large_post_to_the_api_is_413(app):
    assert _post(app.url + "gradio_api/call/ask", json.dumps({"data": ["x" * 200_000]}).encode()) == 413


def test_process_recording_takes_no_file(app):
    body = (b'--x\r\nContent-Disposition: form-data; name="files"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n'
            + b"RIFF" + b"\0" * 64 + b"\r\n--x--\r\n")
    assert _post(app.url + "gradio_api/process_recording", body, "multipart/form-data; boundary=x") == 403
    written = [p for p in Path(app.temp).rglob("*") if p.is_file()] if Path(app.temp).exists() else []
    assert not [p for p in written if p.suffix == ".wav"], written


def test_a_request_gradio_fails_on_is_one_log_line(caplog):
    """The failure: an unknown fn_index (a KeyError in gradio's queue) logged a multi-line traceback."""
    import logging

    from starlette.applications import Starlette
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from webapp.guard import middleware

    async def join(request):
        return {}[999]

    app = Starlette(routes=[Route("/gradio_api/queue/join", join, methods=["POST"])],
                    middleware=middleware(("testserver",)))
    with caplog.at_level(logging.WARNING):
        failed = TestClient(app, raise_server_exceptions=False).post("/gradio_api/queue/join", json={"fn_index": 999})
    assert failed.status_code == 500 and failed.text == "The request could not be handled."
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "KeyError: 999" in lines[0] and "\n" not in lines[0]
    assert not any(r.exc_info for r in caplog.records)
