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
  (``X-Frame-Options``, ``Content-Security-Policy: frame-ancestors``, ``X-Content-Type-Options``).
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


async def _plain(send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


class NoFilesAndHeaders:
    """Refuses the closed routes and bodies over ``max_body`` bytes; adds the security headers to every
    HTTP response."""

    def __init__(self, app, max_body: int = DEFAULT_MAX_BODY):
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if _refused(scope.get("path", "")):
            return await _plain(send, 403, NO_FILES)
        length = dict(scope.get("headers") or ()).get(b"content-length")
        try:
            declared = int(length) if length is not None else None
        except ValueError:
            declared = None
        if declared is not None and declared > self.max_body:
            return await _plain(send, 413, TOO_LARGE)
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
            if started:
                raise
            log.warning("request %s %s failed: %s: %s", scope.get("method", ""), scope.get("path", ""),
                        type(error).__name__, str(error)[:200])
            log.debug("request failed", exc_info=True)
            await _plain(send, 500, FAILED)
            return None


def middleware(allowed_hosts: tuple[str, ...], max_body: int = DEFAULT_MAX_BODY) -> list:
    """For ``FastAPI(middleware=...)`` (gradio's ``launch(app_kwargs=...)``): the host check first."""
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    return [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts), www_redirect=False),
            Middleware(NoFilesAndHeaders, max_body=max_body)]
