"""Issue 26 items 7 and 11: every setting is parsed and range-checked in settings.py when an entry point
starts; a bad value stops it with one line naming the variable, the value and what is allowed (no
traceback, nothing loaded); `--port` wins over GRADIO_SERVER_PORT."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import settings

REPO = Path(__file__).resolve().parent.parent

BAD = [  # variable, value, words the one line holds
    ("COTATI_CORPUS_DIR", str(REPO / "README.md"), "is a file, not a folder"),
    ("COTATI_LOG_RETENTION_DAYS", "99999999", "out of range (1 to 36,500)"),
    ("COTATI_LOG_RETENTION_DAYS", "-1", "out of range"),
    ("GRADIO_SERVER_PORT", "abc", "not a whole number"),
    ("COTATI_PORT", "70000", "out of range (1 to 65,535)"),
    ("COTATI_QUERY_THREADS", "abc", "not a whole number"),
    ("COTATI_QUERY_THREADS", "0", "out of range"),
    ("COTATI_QUERY_JIT", "maybe", "not 1/0"),
    ("COTATI_QUERY_ENCODER", "banana", "not allowed (onnx, torch)"),
    ("COTATI_LOG_LEVEL", "LOUD", "not a log level"),
    ("COTATI_QUESTION_LOG", "maybe", "not 1/0"),
    ("COTATI_INDEX_BACKEND", "banana", "not allowed (builtin, qdrant)"),
    ("COTATI_EMBED_MODEL", "hash:abc", "hash:DIM"),
    ("COTATI_LOW_CONFIDENCE", "nan", "not a number"),
    ("COTATI_LOW_CONFIDENCE", "1.5", "out of range (0 to 1)"),
    ("COTATI_QDRANT_URL", "localhost:6333", "not an http:// or https:// URL"),
    ("COTATI_LOG_MAX_ROWS", "5", "out of range"),
    ("COTATI_RANKER", "maybe", "not 1/0"),  # issue 45: a setting the Settings record does not carry is checked too
    ("COTATI_READER", "perhaps", "not 1/0"),
]


@pytest.mark.parametrize("variable, text, words", BAD)
def test_each_bad_value_is_one_settings_error(variable, text, words):
    with pytest.raises(settings.SettingError) as caught:
        settings.load(environ={variable: text})
    message = str(caught.value)
    assert message.startswith(f"{variable}=") and text.strip("-") in message and words in message, message


def test_good_values_are_read_and_normalised():
    got = settings.load(environ={"COTATI_INDEX_BACKEND": "Qdrant", "COTATI_LOG_LEVEL": "debug",
                                 "COTATI_QDRANT_URL": "http://qdrant:6333", "COTATI_EMBED_MODEL": "hash:64"})
    assert (got.index_backend, got.log_level, got.qdrant_url) == ("qdrant", "DEBUG", "http://qdrant:6333")


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    full = {**{k: v for k, v in os.environ.items() if not k.startswith(("COTATI_", "GRADIO_SERVER_"))},
            "COTATI_EMBED_MODEL": "hash:64", "GRADIO_ANALYTICS_ENABLED": "False", **env}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=full, capture_output=True, text=True, timeout=120)


ENTRY_POINTS = [["-m", "assistant", "ask", "How tall can a fence be?"], ["-m", "assistant", "log"],
                ["-m", "ingest", "tables"], ["-m", "index", "search", "fence"], ["app.py"], ["-m", "eval", "--no-report"]]


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=lambda e: " ".join(e[:3]))
@pytest.mark.parametrize("variable, text", [("COTATI_INDEX_BACKEND", "banana"), ("COTATI_CORPUS_DIR", "README.md"),
                                            ("COTATI_LOG_RETENTION_DAYS", "99999999"), ("COTATI_RANKER", "maybe")])
def test_every_entry_point_stops_on_a_bad_setting_with_one_line(entry, variable, text, tmp_path):
    done = _run(entry, COTATI_INDEX_DIR=str(tmp_path / "index"), **{variable: text})
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"error: {variable}="), lines[0]
    assert not (tmp_path / "index").exists()


def test_port_flag_wins_over_a_bad_gradio_port(tmp_path):
    """The failure: GRADIO_SERVER_PORT=abc ended in a traceback even with --port given."""
    import socket

    with socket.socket() as sock:  # a port in use: the app stops before serving, after settings are read
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        done = _run(["app.py", "--port", str(port)], GRADIO_SERVER_PORT="abc", COTATI_INDEX_DIR=str(tmp_path / "i"))
    assert "Traceback" not in done.stderr and "GRADIO_SERVER_PORT" not in done.stderr, done.stderr
    assert done.returncode == 1 and str(port) in done.stderr
