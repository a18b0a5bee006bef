"""Bounded sessions: what gradio keeps per browser tab or API call does not grow without end.

gradio keeps a ``SessionState`` per session (each page and each ``/gradio_api/call/...`` request
gets one): a copy of the page's configuration, whose values include the contents list, plus the
conversation. Left alone it keeps 10,000 of them, which is where the served app's memory went
(378 MB -> 1.64 GB under load). Here:

- at most ``COTATI_SESSION_CAPACITY`` sessions are kept (gradio's ``state_session_capacity``: the
  least recently used goes first);
- a session idle for ``COTATI_SESSION_IDLE_SECONDS`` is dropped by a sweep that runs in a daemon
  thread (``start_sweeper``), and the conversation's ``gr.State`` expires after as long;
- the conversation itself keeps at most ``webapp.viewer.MAX_TURNS`` turns.
"""

from __future__ import annotations

import datetime
import logging
import threading

log = logging.getLogger("webapp")


def drop_idle(holder, idle_seconds: float, now: datetime.datetime | None = None) -> int:
    """Remove the sessions of gradio's ``StateHolder`` unused for ``idle_seconds``; how many went."""
    now = now or datetime.datetime.now()
    cutoff = now - datetime.timedelta(seconds=idle_seconds)
    lock = getattr(holder, "lock", None) or threading.Lock()
    with lock:
        data, used = getattr(holder, "session_data", {}), getattr(holder, "time_last_used", {})
        idle = [sid for sid in list(data) if used.get(sid, now) < cutoff]
        for sid in idle:
            data.pop(sid, None)
            used.pop(sid, None)
    return len(idle)


def start_sweeper(demo, idle_seconds: float, every: float | None = None) -> threading.Event:
    """Sweep ``demo``'s idle sessions every ``every`` seconds (default: a quarter of the idle time, at
    most a minute) in a daemon thread; set the returned event to stop it."""
    stop = threading.Event()
    every = every or min(60.0, max(1.0, idle_seconds / 4))

    def sweep():
        while not stop.wait(every):
            holder = getattr(demo, "state_holder", None)
            if holder is None:
                continue
            try:
                gone = drop_idle(holder, idle_seconds)
            except Exception as error:  # noqa: BLE001 - gradio's internals moved: say so once, stop sweeping
                log.warning("sessions: cannot sweep idle sessions (%s: %s)", type(error).__name__, error)
                return
            if gone:
                log.debug("sessions: dropped %d idle for over %d s", gone, idle_seconds)

    threading.Thread(target=sweep, name="cotati-sessions", daemon=True).start()
    return stop
