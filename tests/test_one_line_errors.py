"""Operator mistakes through the real entry points (subprocesses): each is one line on stderr
naming the path or port and what to do, a non-zero exit status, and no traceback."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "corpus" / "cotati"
ASK = ["-m", "assistant", "ask", "Can I open a bar on East Cotati Avenue?"]


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    full = {**{k: v for k, v in os.environ.items() if not k.startswith(("COTATI_", "GRADIO_SERVER_"))},
            "COTATI_EMBED_MODEL": "hash:64", "GRADIO_ANALYTICS_ENABLED": "False", **env}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=full, capture_output=True, text=True, timeout=180)


def _one_line(done: subprocess.CompletedProcess, status: int, *words: str) -> None:
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and all(word in lines[0] for word in words), lines[0]
    assert done.returncode == status, (done.returncode, lines[0])


@pytest.mark.parametrize("args, status", [
    (ASK, 1), (["app.py", "--port", "65002"], 1), (["-m", "index", "build", "--quiet"], 1),
    (["-m", "index", "search", "bar"], 1),
])
def test_index_dir_that_is_a_file(args, status, tmp_path):
    path = tmp_path / "index"
    path.write_text("not a folder")
    done = _run(args, COTATI_INDEX_DIR=str(path))
    _one_line(done, status, str(path), "COTATI_INDEX_DIR")
    assert path.read_text() == "not a folder"


def test_index_dir_under_a_file(tmp_path):
    (tmp_path / "file").write_text("")
    done = _run(ASK, COTATI_INDEX_DIR=str(tmp_path / "file" / "index"))
    _one_line(done, 1, str(tmp_path / "file"), "is a file")


@pytest.mark.parametrize("args, status", [
    (ASK, 1), (["-m", "ingest", "tables"], 2), (["app.py", "--port", "65003"], 1), (["-m", "ingest"], 1),
    (["-m", "index", "build", "--quiet"], 1),
])
def test_manifest_that_is_not_json(args, status, tmp_path):
    folder = tmp_path / "corpus"
    shutil.copytree(CORPUS, folder)
    (folder / "manifest.json").write_text('{"documents": [', encoding="utf-8")
    done = _run(args, COTATI_CORPUS_DIR=str(folder), COTATI_INDEX_DIR=str(tmp_path / "index"))
    _one_line(done, status, str(folder / "manifest.json"), "not valid JSON")


def test_busy_port(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _run(["app.py", "--port", str(port)], COTATI_INDEX_DIR=str(tmp_path / "index"))
    _one_line(done, 1, f"port {port}", "in use", "--port")
    assert "serving on" not in done.stderr


def test_unknown_host(tmp_path):
    done = _run(["app.py", "--host", "no-such-host.invalid"], COTATI_INDEX_DIR=str(tmp_path / "index"))
    _one_line(done, 1, "no-such-host.invalid", "--host")
