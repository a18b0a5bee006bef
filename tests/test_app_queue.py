"""The app's queue: a bounded size, and a full queue answers at once instead of waiting.

The real layout and launch settings (``webapp.ui.build_demo``, ``webapp.server.launch``) in this
process, with one worker and room for one waiting request; the assistant's answer is held until
the test releases it.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest

# gradio's queue bookkeeping uses pandas options that pandas 3 deprecates; not this app's code.
pytestmark = [pytest.mark.filterwarnings("ignore:.*no_silent_downcasting"), pytest.mark.filterwarnings("ignore:The copy keyword")]


@pytest.fixture(scope="module")
def held_app():
    from assistant.service import load_assistant
    from webapp.engine import Engine
    from webapp.server import launch
    from webapp.ui import build_demo

    loaded = load_assistant()
    engine = Engine(loaded.corpus, loaded.tables, lambda progress: None, echo=lambda line: None)
    started, release = threading.Event(), threading.Event()
    real_ask = engine.ask

    def held_ask(question):
        started.set()
        release.wait(30)
        return real_ask(question)

    engine.ask = held_ask
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    demo = build_demo(engine)
    launch(demo, "127.0.0.1", port, concurrency=1, queue_size=1, block=False)
    try:
        yield f"http://127.0.0.1:{port}/", started, release
    finally:
        release.set()
        demo.close()


def test_full_queue_is_refused_at_once(held_app):
    from gradio_client import Client
    from gradio_client.utils import QueueError

    url, started, release = held_app
    client = Client(url, verbose=False)
    running = client.submit("Can I open a bar on East Cotati Avenue?", api_name="/ask")
    assert started.wait(20), "the first request never started"
    waiting = client.submit("Can I build an ADU in the NL zone?", api_name="/ask")
    deadline = time.monotonic() + 10
    while waiting.status().code.name not in ("IN_QUEUE",) and time.monotonic() < deadline:
        time.sleep(0.05)
    refused_at = time.monotonic()
    with pytest.raises(QueueError, match="Queue is full"):
        client.submit("Can I keep chickens?", api_name="/ask").result(timeout=20)
    assert time.monotonic() - refused_at < 5, "a full queue must answer at once, not after the held request"
    release.set()
    assert running.result(timeout=30).startswith("**A use permit (UP) is required. This rests only on a proposed")
    assert waiting.result(timeout=30).startswith("**Permitted (P); a zoning clearance is required. This rests only on")
