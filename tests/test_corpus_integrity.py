"""Corpus integrity through the real entry points: a corpus document that is missing, unreadable or
changed stops `python -m assistant ask`, `python -m ingest [tables]`, `python -m index build` and
`app.py` with one line naming the file and what to do (exit 1, no traceback), instead of serving
the law without it. Each test damages a copy of the corpus under tmp_path (COTATI_CORPUS_DIR);
corpus/ itself is never touched."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from ingest.integrity import sign_corpus, verify_corpus

from corpus_copy import CORPUS, ORD_001, REPO
from corpus_copy import copy_corpus as _copy


def _append_ff(folder: Path) -> None:
    with open(folder / ORD_001, "ab") as handle:
        handle.write(b"\xff")


def _delete(folder: Path) -> None:
    (folder / ORD_001).unlink()


def _edit(folder: Path) -> None:  # still UTF-8, one word changed: only the checksum tells
    path = folder / ORD_001
    path.write_text(path.read_text(encoding="utf-8").replace("Permit", "Permlt", 1), encoding="utf-8")


def _unrecorded(folder: Path) -> None:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest["documents"]:
        if entry["file"] == ORD_001:
            del entry["sha256"]
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


DAMAGE = {"not-utf8": (_append_ff, "not UTF-8"), "missing": (_delete, "missing"),
          "changed": (_edit, "changed"), "no-checksum": (_unrecorded, "no sha256")}

ENTRY_POINTS = {
    "assistant ask": ["-m", "assistant", "ask", "Can I open a bar on East Cotati Avenue?"],
    "ingest": ["-m", "ingest"],
    "ingest tables": ["-m", "ingest", "tables"],
    "index build": ["-m", "index", "build", "--quiet"],
    "index search": ["-m", "index", "search", "bar"],
    "app.py": ["app.py", "--port", "65001"],
}


def _env(folder: Path, tmp_path: Path) -> dict:
    return {**os.environ, "COTATI_CORPUS_DIR": str(folder), "COTATI_INDEX_DIR": str(tmp_path / "index"),
            "COTATI_EMBED_MODEL": "hash:64", "GRADIO_ANALYTICS_ENABLED": "False"}


def _run(args: list[str], folder: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=REPO, env=_env(folder, tmp_path), capture_output=True,
                          text=True, timeout=180)


def _one_line(done: subprocess.CompletedProcess, *words: str) -> str:
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and all(word in lines[0] for word in words), lines[0]
    return lines[0]


def test_the_bundled_corpus_verifies():
    assert verify_corpus(CORPUS) == ()


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_a_document_with_a_bad_byte_stops_every_entry_point(entry, tmp_path):
    folder = _copy(tmp_path)
    _append_ff(folder)
    done = _run(ENTRY_POINTS[entry], folder, tmp_path)
    assert done.returncode == 1, (done.returncode, done.stderr)
    line = _one_line(done, ORD_001, "not UTF-8", "python -m ingest checksum")
    assert "serving" not in done.stderr and not (tmp_path / "index").exists(), line


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("entry", ["assistant ask", "ingest tables", "app.py"])
def test_each_kind_of_damage_is_one_line_naming_the_file(entry, damage, tmp_path):
    folder = _copy(tmp_path)
    harm, word = DAMAGE[damage]
    harm(folder)
    done = _run(ENTRY_POINTS[entry], folder, tmp_path)
    assert done.returncode == 1
    _one_line(done, ORD_001, word)


def test_an_intact_copy_serves(tmp_path):
    folder = _copy(tmp_path)
    done = _run(["-m", "ingest", "tables", "--json", "--table", "2-4"], folder, tmp_path)
    assert done.returncode == 0 and done.stdout.count("\n") > 10, done.stderr
    assert any(json.loads(line)["document"] == "001" for line in done.stdout.splitlines())


def test_checksum_records_an_intended_edit(tmp_path):
    folder = _copy(tmp_path)
    _edit(folder)
    assert [e.path for e in verify_corpus(folder)] == [str(folder / ORD_001)]
    done = _run(["-m", "ingest", "checksum", "--corpus", str(folder)], folder, tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("001: sha256 "), done.stderr
    assert verify_corpus(folder) == ()


def test_checksum_refuses_a_document_that_does_not_read(tmp_path):
    folder = _copy(tmp_path)
    _append_ff(folder)
    before = (folder / "manifest.json").read_bytes()
    done = _run(["-m", "ingest", "checksum", "--corpus", str(folder)], folder, tmp_path)
    assert done.returncode == 1
    _one_line(done, ORD_001, "not UTF-8")
    assert (folder / "manifest.json").read_bytes() == before


def test_ingest_add_records_the_new_documents_checksum(tmp_path):
    folder = _copy(tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["documents"] = [d for d in manifest["documents"] if d["file"] != ORD_001]
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / ORD_001).unlink()
    sign_corpus(folder)
    done = _run(["-m", "ingest", "add", str(CORPUS / ORD_001), "--date", "2026-08-11", "--title", "Corrections",
                 "--corpus", str(folder)], folder, tmp_path)
    assert done.returncode == 0, done.stderr
    entry = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["documents"][-1]
    assert len(entry["sha256"]) == 64 and verify_corpus(folder) == ()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_app_starts_degraded_only_when_allowed_and_shows_a_banner(tmp_path):
    folder = _copy(tmp_path)
    _delete(folder)
    port = _free_port()
    log = open(tmp_path / "app.log", "w+")
    child = subprocess.Popen([sys.executable, "app.py", "--port", str(port), "--allow-degraded"], cwd=REPO,
                             env={**_env(folder, tmp_path), "PYTHONUNBUFFERED": "1"}, stdout=log,
                             stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        page = ""
        while time.monotonic() < deadline and child.poll() is None:
            try:
                # gradio serves the page's head (where the banner is) in its config
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=5) as response:
                    page = response.read().decode("utf-8", "replace")
                break
            except OSError:
                time.sleep(0.5)
        assert page, (tmp_path / "app.log").read_text()
        assert "cotati-degraded" in page and ORD_001 in page and "role=\\\"alert\\\"" in page
        output = (tmp_path / "app.log").read_text()
        assert f"warning: {folder / ORD_001}: document 001 is missing" in output and "Traceback" not in output
    finally:
        child.terminate()
        child.wait(timeout=30)
        log.close()
