"""Issue 45 item 5: no traceback from a request. Behind the app's middleware (webapp/guard.py): only /ask
and /section callable from outside, security headers on every response (the host check's 400 too), a
malformed or short event call one log line and a 400, a stream that fails after it began one log line;
and the page's events (webapp/ui.safe_event) take every text through the question box's normalisation
and fail in one line."""

from __future__ import annotations

import logging
import time

import pytest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from webapp.guard import SECURITY_HEADERS, middleware

INPUTS = {("fn", 0): 3, ("fn", 1): 1, ("api", "ask"): 1, ("api", "section"): 1}


@pytest.fixture(scope="module")
def client():
    async def echo(request):
        return JSONResponse({"read": len(await request.body()), "path": request.url.path})

    async def stream(request):
        async def events():
            yield b"data: hello\n\n"
            raise HTTPException(404)  # gradio's queue/data for a session it does not have

        return StreamingResponse(events(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/gradio_api/queue/data", stream), Route("/{path:path}", echo, methods=["GET", "POST"])],
                    middleware=middleware(("testserver",), max_body=4096, inputs=lambda: INPUTS))
    return TestClient(app, raise_server_exceptions=False)


def _has_headers(response) -> bool:
    return all(response.headers.get(name.decode()) == value.decode() for name, value in SECURITY_HEADERS)


def test_a_foreign_host_gets_400_with_the_security_headers(client):
    refused = client.get("/", headers={"host": "evil.example"})
    assert refused.status_code == 400 and _has_headers(refused)


@pytest.mark.parametrize("path", ["/gradio_api/call/respond", "/gradio_api/call/navigate", "/gradio_api/call/jump/abc",
                                  "/gradio_api/call/lambda"])
def test_the_pages_private_events_are_not_callable_from_outside(client, path):
    refused = client.post(path, json={"data": ["x"]})
    assert refused.status_code == 403 and _has_headers(refused) and "Only /ask and /section" in refused.text


@pytest.mark.parametrize("path", ["/openapi.json", "/docs", "/redoc", "/gradio_api/openapi.json"])
def test_the_schema_and_docs_pages_are_not_served(client, path):
    refused = client.get(path)
    assert refused.status_code == 404 and _has_headers(refused)


def test_the_two_public_endpoints_stay_callable(client):
    for name in ("ask", "section"):
        done = client.post(f"/gradio_api/call/{name}", json={"data": ["17.44.065"]})
        assert done.status_code == 200 and done.json()["read"] > 0  # the body read once by the guard reaches the app


@pytest.mark.parametrize("path, body, why", [
    ("/gradio_api/queue/join", b"{not json", "not JSON"),
    ("/gradio_api/queue/join", b'{"fn_index": 99, "data": []}', "no event"),
    ("/gradio_api/queue/join", b'{"fn_index": 0, "data": ["only one"]}', "1 inputs given, the event takes 3"),
    ("/gradio_api/call/ask", b'{"data": []}', "0 inputs given, the event takes 1"),
    ("/gradio_api/queue/join", b'{"fn_index": 1, "data": "text"}', "not a list"),
])
def test_a_malformed_or_short_event_call_is_400_and_one_log_line(client, caplog, path, body, why):
    with caplog.at_level(logging.WARNING, logger="webapp"):
        refused = client.post(path, content=body, headers={"content-type": "application/json"})
    assert refused.status_code == 400 and _has_headers(refused)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and why in lines[0] and "\n" not in lines[0] and not any(r.exc_info for r in caplog.records)


def test_a_whole_event_call_reaches_the_app(client):
    done = client.post("/gradio_api/queue/join", json={"fn_index": 0, "data": ["a", [], ""], "session_hash": "zz1"})
    assert done.status_code == 200 and done.json()["read"] > 20


def test_a_stream_that_fails_after_it_began_is_one_log_line(client, caplog):
    """The failure: GET /gradio_api/queue/data?session_hash=zz1 wrote an 81-line traceback to the log."""
    with caplog.at_level(logging.DEBUG, logger="webapp"):
        done = client.get("/gradio_api/queue/data?session_hash=zz1")
    assert done.status_code == 200 and _has_headers(done) and "hello" in done.text
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "queue/data failed" in warnings[0] and "\n" not in warnings[0]


# -- the page's events ------------------------------------------------------------------------------------
def test_every_page_input_goes_through_the_question_box_normalisation():
    from webapp.ui import safe_event

    seen = []
    event = safe_event(lambda text, turns: seen.append((text, turns)) or "ok", "jump")
    assert event("17.44.065\ud83d\u2063", []) == "ok"
    text, _ = seen[0]
    text.encode("utf-8")  # a lone surrogate cannot reach pages.jump_url (a UnicodeEncodeError before)
    assert text == "17.44.065\ufffd"


def test_a_failing_page_event_is_one_line_and_prints_no_traceback(caplog):
    import gradio as gr

    from webapp.ui import safe_event

    def navigate(raw, turns):
        return {}["do"]  # a malformed navigation command that slipped through

    with caplog.at_level(logging.WARNING, logger="webapp"), pytest.raises(gr.Error) as raised:
        safe_event(navigate, "navigate")('{"do": 1}', [])
    assert raised.value.print_exception is False
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and lines[0].startswith("event navigate failed: KeyError")


def test_the_real_viewer_jump_and_finder_take_a_lone_surrogate():
    """pages.jump_url and the land-use finder broke on a lone surrogate (UnicodeEncodeError, 'not valid UTF-8')."""
    from assistant.service import load_assistant
    from webapp.engine import Engine
    from webapp.ui import safe_event
    from webapp.viewer import Viewer

    loaded = load_assistant()
    viewer = Viewer(Engine(loaded.corpus, loaded.tables, lambda progress: None, wait_seconds=0.1,
                           echo=lambda line: None, standards=loaded.standards))
    jumped = safe_event(viewer.jump, "jump")("17.44.065\udc80")
    found = safe_event(viewer.find_use, "find use")("bar\ud83d")
    for value in (*jumped, found):
        if isinstance(value, str):
            value.encode("utf-8")


def test_the_real_app_gives_no_traceback_for_the_issues_requests():
    """Through `python app.py`: an unknown session's event stream twenty times, a malformed navigation
    command, an empty ask, a call with too few inputs, a private event, the schema, a foreign Host."""
    import json
    import urllib.request

    from app_process import app_process, http_get

    def post(url, body):
        request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode("utf-8", "replace")

    with app_process(ready="serving on") as running:
        url = running.url
        for _ in range(20):
            http_get(url + "gradio_api/queue/data?session_hash=zz1")
        assert post(url + "gradio_api/queue/join", b'{"fn_index": 4, "data": ["{not json"]}')[0] == 400
        assert post(url + "gradio_api/queue/join", b'{"fn_index": 9999, "data": []}')[0] == 400
        assert post(url + "gradio_api/call/ask", json.dumps({"data": []}).encode())[0] == 400
        assert post(url + "gradio_api/call/ask", json.dumps({"data": [""]}).encode())[0] == 200
        for name in ("respond", "navigate", "jump", "find_use"):
            assert post(url + f"gradio_api/call/{name}", json.dumps({"data": ["x", [], ""]}).encode())[0] == 403
        status, _, headers = http_get(url + "openapi.json")
        assert status == 404 and {k.lower(): v for k, v in headers.items()}.get("x-frame-options") == "DENY"
        status, _, headers = http_get(url, headers={"Host": "evil.example"})
        assert status == 400 and {k.lower(): v for k, v in headers.items()}.get("x-frame-options") == "DENY"
        assert post(url + "gradio_api/call/section", json.dumps({"data": ["17.44.065"]}).encode())[0] == 200
        time.sleep(1)
        output = running.output()
    assert "Traceback" not in output, output[-4000:]
    assert output.count("queue/data failed") <= 20
