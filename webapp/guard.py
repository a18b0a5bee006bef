"""The app's surface, as ASGI middleware around gradio's FastAPI app (``webapp.server.launch``).

- A ``Host`` header not among the allowed names gets 400 (starlette's ``TrustedHostMiddleware``):
  a page served under someone else's name (DNS rebinding) is refused.
- The app takes no files: gradio's upload routes answer 403 before reading the body.
- Every response says it may not be framed by another site and its type is not to be guessed
  (``X-Frame-Options``, ``Content-Security-Policy: frame-ancestors``, ``X-Content-Type-Options``).
"""

from __future__ import annotations

SECURITY_HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
NO_FILES = b"This app takes no files."


def _refused(path: str) -> bool:
    """gradio's upload routes (``/gradio_api/upload``, ``/gradio_api/upload_progress``), under any root path."""
    return path.rstrip("/").endswith(("/gradio_api/upload", "/gradio_api/upload_progress"))


class NoFilesAndHeaders:
    """Refuses uploads; adds the security headers to every HTTP response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if _refused(scope.get("path", "")):
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(NO_FILES)).encode()), *SECURITY_HEADERS]})
            await send({"type": "http.response.body", "body": NO_FILES})
            return None

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [header for header in SECURITY_HEADERS if header[0] not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return await self.app(scope, receive, send_with_headers)


def middleware(allowed_hosts: tuple[str, ...]) -> list:
    """For ``FastAPI(middleware=...)`` (gradio's ``launch(app_kwargs=...)``): the host check first."""
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    return [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts), www_redirect=False),
            Middleware(NoFilesAndHeaders)]
