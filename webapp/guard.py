"""The app's surface, as ASGI middleware around gradio's FastAPI app (``webapp.server.launch``).

- A ``Host`` header not among the allowed names gets 400 (starlette's ``TrustedHostMiddleware``):
  a page served under someone else's name (DNS rebinding) is refused.
- The app takes no files: gradio's routes that accept files or that the app does not use
  (``upload``, ``upload_progress``, ``process_recording``, ``component_server``, streaming inputs,
  run history, vibe editing) answer 403 before reading the body.
- A request body over ``COTATI_MAX_REQUEST_BYTES`` gets 413: at once when its ``Content-Length`` says
  so, else once that many bytes have come (a chunked body is read only up to the cap).
- A request gradio fails on (an unknown ``fn_index``: a ``KeyError`` deep in its queue) is one warning
  line in the app's log and a plain 500, not a multi-line traceback (the traceback is logged at DEBUG).
- Every response says it may not be framed by another site and its type is not to be guessed
  (``X-Frame-Options``, ``Content-Security-Policy: frame-ancestors``, ``X-Content-Type-Options``),
  the host check's 400 and every error included (this middleware is the outermost).
- Only ``/ask`` and ``/section`` are callable from outside (issue 45): ``/gradio_api/call/NAME`` for any
  other name (the page's private events) is 403; FastAPI's ``/openapi.json``, ``/docs`` and ``/redoc``
  are 404.
- An event call whose body is not JSON, names an event the page does not have, or brings fewer inputs
  than the event takes is 400 and one log line (gradio printed an 81-line traceback for each).
- A failure after the response has begun (``/gradio_api/queue/data`` for an unknown session) is one log
  line, and the response is ended, not a traceback.
- Once a SIGTERM came (``webapp.shutdown``), a new request is 503; the result of an event already
  started is still served.
"""

from __future__ import annotations

import logging

log = logging.getLogger("webapp")

SECURITY_HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
NO_FILES = b"This app takes no files."
NOT_PUBLIC = b"Only /ask and /section are callable from outside this app."
NOT_FOUND = b"Not found."
STOPPING = b"The app is shutting down; please try again in a moment."
BAD_CALL = b"The request is not an event this app takes."
PUBLIC_CALLS = ("ask", "section")
HIDDEN = ("openapi.json", "docs", "docs/oauth2-redirect", "redoc")
TOO_LARGE = b"The request is larger than this app takes."
FAILED = b"The request could not be handled."
# gradio's routes under /gradio_api/ that the app does not offer: each takes a file or a body it never needs.
CLOSED = ("upload", "upload_progress", "process_recording", "component_server")
CLOSED_PREFIXES = ("stream/", "run-history/", "vibe-", "undo-vibe-", "profiling/")
DEFAULT_MAX_BODY = 16 * 1024


def _refused(path: str) -> bool:
    """A gradio route the app does not offer (``/gradio_api/upload``, ``/gradio_api/process_recording``...),
    under any root path."""
    if "/gradio_api/" not in path:
        return False
    rest = path.rsplit("/gradio_api/", 1)[1].rstrip("/")
    return rest in CLOSED or rest.startswith(CLOSED_PREFIXES)


def _stopping() -> bool:
    from .shutdown import IN_FLIGHT

    return IN_FLIGHT.stopping


def _result_of_a_started_event(scope) -> bool:
    """A client fetching what an event it started gives (the queue's stream, ``GET call/NAME/ID``): served
    while the app stops, so the answers in flight reach their askers."""
    path = scope.get("path", "")
    if scope.get("method") != "GET":
        return False
    if path.rstrip("/").endswith(("/gradio_api/queue/data", "/gradio_api/heartbeat")):
        return True
    if "/gradio_api/call/" in path:
        return "/" in path.rsplit("/gradio_api/call/", 1)[1].strip("/")
    return False


def _private_call(path: str) -> bool:
    """``/gradio_api/call/NAME[/EVENT]`` for a NAME other than the two public endpoints."""
    if "/gradio_api/call/" not in path:
        return False
    name = path.rsplit("/gradio_api/call/", 1)[1].strip("/").split("/", 1)[0]
    return name not in PUBLIC_CALLS


def _hidden(path: str) -> bool:
    """FastAPI's schema and docs pages (gradio's app keeps them): nothing for the outside to read."""
    rest = path.split("/gradio_api/", 1)[-1] if "/gradio_api/" in path else path
    return rest.strip("/") in HIDDEN


def _event_target(path: str) -> tuple | None:
    """("fn", None) for gradio's queue join, ("api", NAME) for ``/gradio_api/call/NAME``; None for others."""
    if path.rstrip("/").endswith("/gradio_api/queue/join"):
        return ("fn", None)
    if "/gradio_api/call/" in path:
        rest = path.rsplit("/gradio_api/call/", 1)[1].strip("/")
        if rest and "/" not in rest:
            return ("api", rest)
    return None


def bad_event(body: bytes, target: tuple, inputs: dict) -> str:
    """Why an event call's body cannot be run ("" when it can): not JSON, an event the page does not have,
    or fewer inputs than the event takes. ``inputs``: ("fn", index) / ("api", name) -> inputs it takes."""
    import json

    try:
        data = json.loads(body or b"{}")
    except ValueError:
        return "the body is not JSON"
    if not isinstance(data, dict):
        return "the body is not a JSON object"
    values = data.get("data", [])
    if not isinstance(values, list):
        return "its data is not a list"
    if target[0] == "fn":
        index = data.get("fn_index")
        if not isinstance(index, int) or isinstance(index, bool) or ("fn", index) not in inputs:
            return f"no event {str(index)[:20]!r}"
        wanted = inputs[("fn", index)]
    else:
        wanted = inputs.get(("api", target[1]))
        if wanted is None:
            return ""
    if len(values) < wanted:
        return f"{len(values)} inputs given, the event takes {wanted}"
    return ""


async def _plain(send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


class NoFilesAndHeaders:
    """Refuses the closed routes and bodies over ``max_body`` bytes; adds the security headers to every
    HTTP response."""

    def __init__(self, app, max_body: int = DEFAULT_MAX_BODY, inputs=None):
        self.app = app
        self.max_body = max_body
        self.inputs = inputs  # callable: ("fn", index) / ("api", name) -> inputs the event takes; None: unchecked

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        if _stopping() and not _result_of_a_started_event(scope):
            return await _plain(send, 503, STOPPING)
        if _refused(path):
            return await _plain(send, 403, NO_FILES)
        if _private_call(path):
            return await _plain(send, 403, NOT_PUBLIC)
        if _hidden(path):
            return await _plain(send, 404, NOT_FOUND)
        length = dict(scope.get("headers") or ()).get(b"content-length")
        try:
            declared = int(length) if length is not None else None
        except ValueError:
            declared = None
        if declared is not None and declared > self.max_body:
            return await _plain(send, 413, TOO_LARGE)
        target = _event_target(path) if scope.get("method") == "POST" and self.inputs is not None else None
        if target is not None:
            body, whole = await _read_body(receive, self.max_body)
            if not whole:
                return await _plain(send, 413, TOO_LARGE)
            inputs = self.inputs() if callable(self.inputs) else self.inputs
            why = bad_event(body, target, inputs or {})
            if why:
                log.warning("request %s %s refused: %s", scope.get("method", ""), path, why)
                return await _plain(send, 400, BAD_CALL)
            receive = _replay(body, receive)
        started = False
        seen = 0

        async def counted_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:  # an HTTPException: FastAPI's body reading passes it on as it is
                    from starlette.exceptions import HTTPException

                    raise HTTPException(413, TOO_LARGE.decode())
            return message

        async def send_with_headers(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [header for header in SECURITY_HEADERS if header[0] not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        from starlette.exceptions import HTTPException

        try:
            return await self.app(scope, counted_receive, send_with_headers)
        except HTTPException as error:  # raised by counted_receive where no handler renders it
            if error.status_code != 413:
                raise
            if not started:
                await _plain(send, 413, TOO_LARGE)
            return None
        except Exception as error:  # noqa: BLE001 - one line for the operator, never the text to the client
            log.warning("request %s %s failed: %s: %s", scope.get("method", ""), scope.get("path", ""),
                        type(error).__name__, str(error)[:200])
            log.debug("request failed", exc_info=True)
            if started:  # a stream already begun (queue/data for an unknown session): end it
                try:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                except Exception:  # noqa: BLE001 - the response was already complete or the client gone
                    pass
                return None
            await _plain(send, 500, FAILED)
            return None


async def _read_body(receive, cap: int) -> tuple[bytes, bool]:
    """The whole request body (at most ``cap`` bytes), and whether it was whole within the cap."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), True
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap:
            return b"", False
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True


def _replay(body: bytes, receive):
    """A receive that gives the body already read, then what the client sends next (its disconnect)."""
    sent = False

    async def replayed():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def middleware(allowed_hosts: tuple[str, ...], max_body: int = DEFAULT_MAX_BODY, inputs=None) -> list:
    """For ``FastAPI(middleware=...)`` (gradio's ``launch(app_kwargs=...)``): the headers and refusals
    outermost, so the host check's 400 has the headers too; then the host check. ``inputs``: the events'
    input counts (``event_inputs``), or a callable giving them."""
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    return [Middleware(NoFilesAndHeaders, max_body=max_body, inputs=inputs),
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts), www_redirect=False)]


def event_inputs(demo) -> dict:
    """("fn", index) and ("api", name) -> how many inputs each of the demo's events takes ({} when the
    gradio version keeps them otherwise: nothing is then checked but JSON)."""
    found: dict = {}
    fns = getattr(demo, "fns", None)
    items = fns.items() if isinstance(fns, dict) else enumerate(fns or ())
    for index, fn in items:
        inputs = getattr(fn, "inputs", None)
        if inputs is None:
            continue
        found[("fn", index)] = len(inputs)
        name = getattr(fn, "api_name", None)
        if isinstance(name, str) and name:
            found[("api", name.lstrip("/"))] = len(inputs)
    return found
