"""Bounded sessions: what gradio keeps per browser tab or API call does not grow without end.

gradio keeps a ``SessionState`` per session (each page and each ``/gradio_api/call/...`` request
gets one): a copy of the page's configuration, whose values include the contents list, plus the
conversation. Left alone it keeps 10,000 of them, which is where the served app's memory went
(378 MB -> 1.64 GB under load). Here:

- at most ``COTATI_SESSION_CAPACITY`` sessions are kept (gradio's ``state_session_capacity``: the
  least recently used goes first);
- a session idle for ``COTATI_SESSION_IDLE_SECONDS`` is dropped by a sweep that runs in a daemon
  thread (``start_sweeper``), and the conversation's ``gr.State`` expires after as long;
- the conversation itself keeps at most ``webapp.viewer.MAX_TURNS`` turns;
- an API call made without a session of its own (``POST /gradio_api/call/ask`` with no
  ``session_hash``: gradio names its session after the event) drops that session once its result
  has been fetched, with the queue's leftovers for it (``ReleaseCallSessions``): nothing can use
  them again, and 500 such sessions, about 0.25 MB each, were most of what a load run added to the
  app's memory (issue 45); the queue's leftovers of any session no longer kept (a page's, a call
  whose result was never fetched: its answer stayed queued for ever) go once a minute.
"""

from __future__ import annotations

import datetime
import logging
import threading
import time

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


def call_event(scope) -> str:
    """The event id of ``GET .../gradio_api/call/NAME/EVENT`` (fetching an API call's result); "" for any
    other request."""
    if scope.get("type") != "http" or scope.get("method") != "GET" or "/gradio_api/call/" not in scope.get("path", ""):
        return ""
    parts = scope["path"].rsplit("/gradio_api/call/", 1)[1].strip("/").split("/")
    return parts[1] if len(parts) == 2 and parts[1] else ""


def release(demo, session_id: str) -> bool:
    """Drop what gradio keeps for the session ``session_id`` once none of its events is pending: its
    ``SessionState`` and the queue's per-session message queue and event-id set (gradio empties these
    after an event but keeps them, about 4 kB a call). Whether anything went."""
    queue = getattr(demo, "_queue", None)
    pending = getattr(queue, "pending_event_ids_session", {})
    if not session_id or pending.get(session_id):  # still running: its result is still to be sent
        return False
    gone = pending.pop(session_id, None) is not None
    gone = getattr(queue, "pending_messages_per_session", {}).pop(session_id, None) is not None or gone
    holder = getattr(demo, "state_holder", None)
    lock = getattr(holder, "lock", None) or threading.Lock()
    with lock:
        gone = getattr(holder, "session_data", {}).pop(session_id, None) is not None or gone
        getattr(holder, "time_last_used", {}).pop(session_id, None)
    return gone


def drop_orphans(demo) -> int:
    """Drop the queue's message queue and event-id set of each session gradio no longer keeps (over the
    capacity, idle, or released) once every event of it has finished: a page's, or a call whose result was
    never fetched (the queue would keep its answer for ever). How many sessions' leftovers went."""
    queue, holder = getattr(demo, "_queue", None), getattr(demo, "state_holder", None)
    if queue is None or holder is None:
        return 0
    kept, running = getattr(holder, "session_data", {}), getattr(queue, "event_ids_to_events", {})
    messages, pending = queue.pending_messages_per_session, queue.pending_event_ids_session
    gone = [session for session in set(messages) | set(pending)
            if session not in kept and not any(event in running for event in pending.get(session, ()))]
    for session in gone:
        messages.pop(session, None)
        pending.pop(session, None)
    return len(gone)


class ReleaseCallSessions:
    """ASGI middleware: when the result of an API call has been fetched, what gradio keeps for the
    session named after the event goes (``release``). A call made with a ``session_hash`` of its own
    (gradio_client, the page) has a session of another name and keeps it. At most every
    ``ORPHANS_EVERY`` seconds, after a request, the queue's leftovers of sessions no longer kept go too
    (``drop_orphans``)."""

    ORPHANS_EVERY = 60.0

    def __init__(self, app, demo):
        self.app = app
        self.demo = demo
        self.swept = time.monotonic()

    async def __call__(self, scope, receive, send):
        event = call_event(scope)
        try:
            return await self.app(scope, receive, send)
        finally:  # on the event loop, as gradio's own changes to these dicts are
            if event:
                release(self.demo, event)
            if time.monotonic() - self.swept > self.ORPHANS_EVERY:
                self.swept = time.monotonic()
                gone = drop_orphans(self.demo)
                if gone:
                    log.debug("sessions: dropped the queue's leftovers of %d sessions no longer kept", gone)


def release_middleware(demo):
    """For ``FastAPI(middleware=...)``: ``ReleaseCallSessions`` over ``demo``'s sessions."""
    from starlette.middleware import Middleware

    return Middleware(ReleaseCallSessions, demo=demo)
