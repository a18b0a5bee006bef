"""Issue 45 item 7: SIGTERM finishes what it started. The failure: eight questions in flight and SIGTERM
0.5 s later: all eight connections reset, none logged, no shutdown line."""

from __future__ import annotations

import logging
import threading
import time

from webapp.shutdown import InFlight, shut_down


def _busy(flight: InFlight, seconds: float, done: list) -> threading.Thread:
    def work():
        with flight.one():
            time.sleep(seconds)
            done.append(seconds)

    thread = threading.Thread(target=work)
    thread.start()
    return thread


def test_the_answers_in_flight_finish_before_the_server_closes_and_one_line_says_so(caplog):
    flight, done, closed = InFlight(), [], []
    while_running = [_busy(flight, 0.3, done) for _ in range(8)]
    time.sleep(0.05)
    with caplog.at_level(logging.INFO, logger="webapp"):
        line = shut_down(lambda: closed.append(len(done)), 10, flight, grace=0)
    assert closed == [8] and len(done) == 8  # every answer finished before the server closed
    assert flight.stopping and flight.running == 0
    said = [r.getMessage() for r in caplog.records]
    assert said == [line] and "8 of 8 answer(s) in flight finished" in line and "cut off" not in line
    for thread in while_running:
        thread.join()


def test_an_answer_longer_than_the_setting_is_cut_off_and_named(caplog):
    flight, done, closed = InFlight(), [], []
    slow = _busy(flight, 1.5, done)
    time.sleep(0.05)
    started = time.monotonic()
    line = shut_down(lambda: closed.append(True), 0.3, flight, grace=0)
    assert time.monotonic() - started < 1.2 and closed == [True]
    assert "1 still running after 0.3 s were cut off" in line
    slow.join()


def test_a_stopping_app_refuses_new_requests_but_serves_the_results_of_started_ones(monkeypatch):
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    import webapp.shutdown as shutdown
    from webapp.guard import middleware

    flight = InFlight()
    monkeypatch.setattr(shutdown, "IN_FLIGHT", flight)

    async def ok(request):
        return PlainTextResponse("ok")

    client = TestClient(Starlette(routes=[Route("/{path:path}", ok, methods=["GET", "POST"])],
                                  middleware=middleware(("testserver",))))
    assert client.post("/gradio_api/queue/join", json={}).status_code == 200
    flight.stop()
    refused = client.post("/gradio_api/queue/join", json={})
    assert refused.status_code == 503 and refused.headers["x-frame-options"] == "DENY"
    assert client.get("/").status_code == 503
    assert client.get("/gradio_api/queue/data?session_hash=abc").status_code == 200
    assert client.get("/gradio_api/call/ask/event123").status_code == 200


def test_sigterm_to_the_app_lets_eight_questions_in_flight_finish_and_log(tmp_path):
    """Through the real entry point: eight /ask questions in flight, SIGTERM 0.5 s later."""
    import signal
    import sqlite3
    from concurrent.futures import ThreadPoolExecutor

    from gradio_client import Client

    from app_process import app_process

    questions = ["Can I open a bar on East Cotati Avenue?", "How tall can a fence be?", "What is a home occupation?",
                 "Can I open a gym in the CG district?", "17.44.065", "How long is a use permit valid?",
                 "Can I build an ADU in the NL zone?", "What is the capital of France?"]
    with app_process({"COTATI_CONCURRENCY": "8"}) as running:
        clients = [Client(running.url, verbose=False) for _ in questions]
        jobs = [client.submit(question, api_name="/ask") for client, question in zip(clients, questions)]
        time.sleep(0.5)
        child = running.process
        child.send_signal(signal.SIGTERM)
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda job: job.result(timeout=60), jobs))
        assert child.wait(timeout=30) == 0
        output = running.output()
        with sqlite3.connect(running.question_log) as db:
            logged = db.execute("SELECT COUNT(*) FROM questions").fetchone()[0]
    assert all(isinstance(a, str) and a.startswith("**") for a in answers), answers
    assert logged == 8
    lines = [line for line in output.splitlines() if "shutdown:" in line]
    assert len(lines) == 1 and "finished" in lines[0] and "Traceback" not in output, output[-3000:]
