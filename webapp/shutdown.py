"""SIGTERM finishes what it started (issue 45): stop taking requests, let the answers in flight finish
(up to ``COTATI_SHUTDOWN_SECONDS``, default 10 s; each is logged as any answer is), one shutdown line,
then close the server.

``IN_FLIGHT`` counts the page's and the API's events while they run (``webapp.ui.safe_event``);
``webapp.guard`` refuses new requests with 503 once ``IN_FLIGHT.stopping`` is set, but still lets a
client fetch the result of an event it already started (the queue's event stream, ``call/NAME/ID``).
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from contextlib import contextmanager

log = logging.getLogger("webapp")


class InFlight:
    """How many events are running now; whether the app is stopping."""

    def __init__(self):
        self._running = 0
        self._finished = 0  # events that finished since the app began stopping
        self._changed = threading.Condition()
        self.stopping = False

    @contextmanager
    def one(self):
        with self._changed:
            self._running += 1
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                if self.stopping:
                    self._finished += 1
                self._changed.notify_all()

    @property
    def running(self) -> int:
        with self._changed:
            return self._running

    def stop(self) -> int:
        """Stop taking requests; how many events are running then."""
        with self._changed:
            self.stopping = True
            self._finished = 0
            return self._running

    def wait(self, seconds: float) -> tuple[int, int]:
        """Wait until no event runs, at most ``seconds``: (finished meanwhile, still running)."""
        deadline = time.monotonic() + max(0.0, seconds)
        with self._changed:
            while self._running and time.monotonic() < deadline:
                self._changed.wait(min(0.1, max(0.0, deadline - time.monotonic())))
            return self._finished, self._running


IN_FLIGHT = InFlight()
STREAM_GRACE = 0.5  # seconds for the last results to reach their clients once their events finished


def shut_down(close, seconds: float, flight: InFlight = IN_FLIGHT, grace: float = STREAM_GRACE) -> str:
    """Stop taking requests, wait for the events in flight (at most ``seconds``), say so in one line,
    then ``close()`` the server. Returns the line."""
    started = time.monotonic()
    running = flight.stop()
    finished, left = flight.wait(seconds)
    if finished and not left:
        time.sleep(grace)
    line = (f"shutdown: stopped taking requests; {finished} of {running} answer(s) in flight finished"
            + (f", {left} still running after {seconds:g} s were cut off" if left else "")
            + f" ({time.monotonic() - started:.1f} s); closing the server")
    log.warning(line)
    close()
    return line


def on_sigterm(close, seconds: float) -> None:
    """Install the SIGTERM handler (main thread only): the shutdown runs in a thread, so the handler returns
    at once and the server keeps serving the answers in flight until it closes."""
    started = threading.Event()

    def handler(signum, frame):
        if started.is_set():
            return  # a second SIGTERM: the shutdown already runs
        started.set()
        threading.Thread(target=shut_down, args=(close, seconds), name="shutdown", daemon=True).start()

    signal.signal(signal.SIGTERM, handler)
