"""`python app.py` in a child process for the tests: a free port, a fresh index folder inside a
temporary folder (so its build lock goes with it), a private question log, and the child stopped
and everything removed afterwards."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http_get(url: str, headers: dict | None = None) -> tuple[int, str, dict]:
    """(status, body, headers) of a GET; an HTTP error status is returned, not raised (0: nothing listens)."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace"), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace"), dict(error.headers)
    except urllib.error.URLError:
        return 0, "", {}


@dataclass
class App:
    url: str
    folder: Path  # holds index/ and questions.sqlite3
    log: Path  # the child's stdout and stderr
    process: subprocess.Popen | None = None  # the child (a test may signal it)

    @property
    def index_dir(self) -> Path:
        return self.folder / "index"

    @property
    def question_log(self) -> Path:
        return self.folder / "questions.sqlite3"

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextlib.contextmanager
def app_process(env: dict[str, str] | None = None, ready: str = "search index: ready", timeout: float = 120,
                args: tuple[str, ...] = ()):
    """Start app.py; yield an ``App`` once the page answers and ``ready`` is in its output."""
    import pytest

    env = env or {}
    port = int(env.get("GRADIO_SERVER_PORT") or free_port())  # gradio's variable alone, when a test gives it
    folder = Path(tempfile.mkdtemp(prefix="cotati-app-"))
    full = {**{k: v for k, v in os.environ.items() if not k.startswith(("COTATI_", "GRADIO_SERVER_"))},
            **({} if "GRADIO_SERVER_PORT" in env else {"COTATI_PORT": str(port)}), "COTATI_EMBED_MODEL": "hash:64", "COTATI_INDEX_DIR": str(folder / "index"),
            "COTATI_QUESTION_LOG_PATH": str(folder / "questions.sqlite3"), "GRADIO_ANALYTICS_ENABLED": "False",
            "PYTHONUNBUFFERED": "1", **env}
    app = App(f"http://127.0.0.1:{port}/", folder, folder / "app.log")
    with open(app.log, "w") as log:
        child = subprocess.Popen([sys.executable, "app.py", *args], cwd=REPO, env=full, stdout=log,
                                 stderr=subprocess.STDOUT)
    app.process = child
    try:
        deadline = time.monotonic() + timeout
        while True:
            if child.poll() is not None:
                pytest.fail(f"app.py exited with {child.returncode}:\n{app.output()}")
            if ready in app.output() and http_get(app.url)[0] == 200:
                break
            if time.monotonic() > deadline:
                pytest.fail(f"app.py not ready after {timeout} s:\n{app.output()}")
            time.sleep(0.3)
        yield app
    finally:
        child.terminate()
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        shutil.rmtree(folder, ignore_errors=True)
