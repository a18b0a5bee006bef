"""Issue 37 item 8: bounded sessions. The failure: under load the served app grew from 378 MB to
1.64 GB and did not give it back (the engine alone stayed at 228 MB): gradio kept a session's state,
with a copy of the page's configuration, for each of up to 10,000 sessions. Now at most
COTATI_SESSION_CAPACITY sessions are kept, an idle one is dropped, and a conversation keeps at most
MAX_TURNS turns. Issue 45: an API call without a session of its own leaves nothing behind once its
result is fetched (the 500 kept sessions were most of a load run's growth, 486 -> 632 MB), and the
app sets glibc's allocator so worker threads do not each keep an arena's worth."""

from __future__ import annotations

import datetime
import json
import socket
import time
import urllib.request

import pytest

pytestmark = [pytest.mark.filterwarnings("ignore:.*no_silent_downcasting"), pytest.mark.filterwarnings("ignore:The copy keyword")]

CAPACITY = 12


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    import os

    from assistant.service import load_assistant
    from webapp.engine import Engine
    from webapp.server import launch
    from webapp.ui import build_demo

    os.environ["COTATI_SESSION_CAPACITY"] = str(CAPACITY)
    try:
        loaded = load_assistant()
        engine = Engine(loaded.corpus, loaded.tables, lambda progress: None, echo=lambda line: None,
                        standards=loaded.standards)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        demo = build_demo(engine)
        launch(demo, "127.0.0.1", port, concurrency=2, queue_size=64, block=False)
    finally:
        del os.environ["COTATI_SESSION_CAPACITY"]
    try:
        yield demo, f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


def _ask(url: str, question: str, session: str = "") -> str:
    body = {"data": [question], **({"session_hash": session} if session else {})}
    request = urllib.request.Request(url + "gradio_api/call/ask", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        event = json.loads(response.read())["event_id"]
    with urllib.request.urlopen(f"{url}gradio_api/call/ask/{event}", timeout=60) as response:
        return response.read().decode()


def test_the_sessions_kept_stay_under_the_capacity(served):
    demo, url = served
    for n in range(3 * CAPACITY):  # each call names a session of its own, as a page or gradio_client does
        assert "event: complete" in _ask(url, "17.44.065" if n % 2 else "Can I open a bar in CE?", f"tab{n}")
    assert 0 < len(demo.state_holder.session_data) <= CAPACITY
    assert f"tab{3 * CAPACITY - 1}" in demo.state_holder.session_data  # a named session is kept


def test_an_api_call_without_a_session_leaves_nothing_once_its_result_is_fetched(served):
    demo, url = served
    queue = demo._queue
    kept = [set(demo.state_holder.session_data), set(queue.pending_messages_per_session), set(queue.pending_event_ids_session)]
    for n in range(6):
        assert "event: complete" in _ask(url, "17.44.065" if n % 2 else "Can I open a bar in CE?")

    def left() -> bool:  # the client has the last bytes a moment before the server's request has ended
        return not (set(demo.state_holder.session_data) <= kept[0] and
                    [set(queue.pending_messages_per_session), set(queue.pending_event_ids_session)] == kept[1:])

    deadline = time.monotonic() + 5
    while left() and time.monotonic() < deadline:
        time.sleep(0.05)
    # gradio named each call's session after its event: none is left (while one runs it counts against the
    # capacity, so the oldest kept one may have gone), nor the queue's message queue and event-id set for it
    assert set(demo.state_holder.session_data) <= kept[0]
    assert [set(queue.pending_messages_per_session), set(queue.pending_event_ids_session)] == kept[1:]


def test_the_queues_leftovers_of_sessions_no_longer_kept_go(served):
    """Calls whose results are never fetched, and pages' sessions past the capacity: gradio's queue kept a
    message queue (holding the answer) for each for ever."""
    from webapp.sessions import drop_orphans

    demo, url = served
    for n in range(2 * CAPACITY):
        body = json.dumps({"data": ["17.44.065" if n % 2 else "Can I open a bar in CE?"]}).encode()
        request = urllib.request.Request(url + "gradio_api/call/ask", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:  # the result is never fetched
            assert json.loads(response.read())["event_id"]
    queue = demo._queue
    deadline = time.monotonic() + 60
    while queue.event_ids_to_events and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(queue.pending_messages_per_session) > len(demo.state_holder.session_data)  # what was kept for ever
    assert drop_orphans(demo) >= CAPACITY
    kept = set(demo.state_holder.session_data)
    assert set(queue.pending_messages_per_session) <= kept and set(queue.pending_event_ids_session) <= kept


def test_only_finished_sessions_no_longer_kept_lose_their_queue():
    from webapp.sessions import drop_orphans

    class Demo:
        class state_holder:  # noqa: N801 - gradio's attribute names
            session_data = {"kept": 1}

        class _queue:  # noqa: N801
            event_ids_to_events = {"e-running": object()}
            pending_messages_per_session = {"kept": [], "running": [], "finished": [], "page": []}
            pending_event_ids_session = {"kept": set(), "running": {"e-running"}, "finished": {"e-done"}}

    assert drop_orphans(Demo) == 2
    assert set(Demo._queue.pending_messages_per_session) == {"kept", "running"}
    assert set(Demo._queue.pending_event_ids_session) == {"kept", "running"}


def test_a_session_with_an_event_still_pending_is_kept():
    from webapp.sessions import call_event, release

    class Holder:
        def __init__(self):
            self.session_data = {"e1": 1, "e2": 2}
            self.time_last_used = {"e1": 0, "e2": 0}

    class Queue:
        pending_event_ids_session = {"e1": {"e1"}, "e2": set()}
        pending_messages_per_session = {"e1": [], "e2": []}

    class Demo:
        state_holder, _queue = Holder(), Queue()

    demo = Demo()
    assert not release(demo, "e1") and "e1" in demo.state_holder.session_data  # its result is still to come
    assert release(demo, "e2") and "e2" not in demo.state_holder.session_data
    assert "e2" not in Queue.pending_messages_per_session and "e2" not in Queue.pending_event_ids_session
    assert not release(demo, "e2")
    assert call_event({"type": "http", "method": "GET", "path": "/gradio_api/call/ask/abc123"}) == "abc123"
    assert call_event({"type": "http", "method": "POST", "path": "/gradio_api/call/ask"}) == ""
    assert call_event({"type": "http", "method": "GET", "path": "/gradio_api/queue/data"}) == ""


def test_the_allocator_is_set_unless_the_operator_set_it():
    import ctypes.util

    from webapp.memory import tune_allocator

    if not ctypes.util.find_library("c"):
        pytest.skip("no C library to tune")
    assert tune_allocator({}) in ({}, {"MALLOC_ARENA_MAX": 2, "MALLOC_MMAP_THRESHOLD_": 1 << 20})  # {}: not glibc
    assert "MALLOC_ARENA_MAX" not in tune_allocator({"MALLOC_ARENA_MAX": "4"})


def test_idle_sessions_are_dropped():
    from webapp.sessions import drop_idle

    class Holder:
        def __init__(self):
            now = datetime.datetime.now()
            self.session_data = {"busy": 1, "idle": 2, "older": 3}
            self.time_last_used = {"busy": now, "idle": now - datetime.timedelta(hours=2),
                                   "older": now - datetime.timedelta(days=1)}

    holder = Holder()
    assert drop_idle(holder, 3600) == 2 and list(holder.session_data) == ["busy"] and list(holder.time_last_used) == ["busy"]


def test_a_conversation_keeps_at_most_its_turns():
    from webapp.viewer import MAX_TURNS, Viewer

    class Engine:
        def ask_logged(self, question, history=None, as_of=""):
            from assistant.types import Answer

            return Answer(question=question, answer="Not here.", abstained=True), None

    viewer, turns = Viewer(Engine()), []
    for n in range(3 * MAX_TURNS):
        turns, _, _ = viewer.answer(f"question {n}", turns)
    assert len(turns) == MAX_TURNS and turns[-1][0] == f"question {3 * MAX_TURNS - 1}"
