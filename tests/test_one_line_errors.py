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


# -- issue 14, the rest: each case through its real entry point ---------------------------------
def _read_only(args: list[str], folder: Path, **env: str) -> subprocess.CompletedProcess:
    """``args`` with ``folder`` mounted read-only (a private mount namespace; root cannot write it either)."""
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare(1)")
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True)
    if probe.returncode:
        pytest.skip("cannot make a private mount namespace here")
    script = f'mount --bind "{folder}" "{folder}" && mount -o remount,ro,bind "{folder}" && exec "$0" "$@"'
    return _run(["-c", "import os, sys; os.execvp('unshare', ['unshare', '--mount', 'sh', '-c', sys.argv[1], *sys.argv[2:]])",
                 script, sys.executable, *args], **env)


@pytest.fixture(scope="module")
def built_index(tmp_path_factory):
    """A small index (hashing encoder) of the bundled corpus, built once."""
    folder = tmp_path_factory.mktemp("ro")
    done = _run(["-m", "index", "build", "--quiet"], COTATI_INDEX_DIR=str(folder / "index"))
    assert done.returncode == 0, done.stderr
    return folder


@pytest.mark.parametrize("args", [
    ["-m", "assistant", "ask", "Are home occupations allowed in residences?"], ["-m", "index", "search", "fence"],
    ["-m", "index", "build", "--quiet"],
])
def test_damaged_index_in_a_read_only_folder(args, built_index, tmp_path):
    folder = tmp_path / "ro"
    shutil.copytree(built_index, folder)
    with open(folder / "index" / "chunks.jsonl", "a", encoding="utf-8") as damage:
        damage.write("garbage\n")
    done = _read_only(args, folder, COTATI_INDEX_DIR=str(folder / "index"))
    _one_line(done, 1, str(folder / "index"), "cannot write the index", "Read-only file system", "COTATI_INDEX_DIR")
    if args[1] != "index" or args[2] != "build":
        assert "damaged" in done.stderr


def test_index_build_never_replaces_a_folder_it_did_not_make(tmp_path):
    folder = tmp_path / "index"
    folder.mkdir()
    (folder / "chunks.jsonl").write_text("mine\n")
    done = _run(["-m", "index", "build", "--quiet"], COTATI_INDEX_DIR=str(folder))
    _one_line(done, 1, str(folder), "not an index directory", "refusing to replace it")
    assert [p.name for p in folder.iterdir()] == ["chunks.jsonl"] and (folder / "chunks.jsonl").read_text() == "mine\n"


@pytest.mark.parametrize("question, answer", [
    ("هل يمكنني فتح مطعم في المنطقة التجارية؟", "This assistant answers questions in English about the Cotati municipal code."),
    ("Можно ли открыть бар?", "This assistant answers questions in English about the Cotati municipal code."),
    ("?!?", "The question has no words or numbers in it; please type a question in English."),
])
def test_a_question_not_in_english_is_told_so(question, answer, tmp_path):
    done = _run(["-m", "assistant", "ask", question], COTATI_INDEX_DIR=str(tmp_path / "index"))
    assert "Traceback" not in done.stderr and done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[0] == answer


def test_a_folder_given_to_ingest_is_named(tmp_path):
    (tmp_path / "docs").mkdir()
    done = _run(["-m", "ingest", str(tmp_path / "docs")])
    _one_line(done, 1, str(tmp_path / "docs"), "is a folder, not a document")


def test_a_file_with_no_sections_is_an_error_naming_it(tmp_path):
    path = tmp_path / "minutes.txt"
    path.write_text("Minutes of the meeting.\nThe council discussed parking and adjourned at nine.\n", encoding="utf-8")
    done = _run(["-m", "ingest", "--json", str(path)])
    _one_line(done, 1, str(path), "no sections found")
    assert done.stdout == ""


@pytest.mark.parametrize("variable, value, words", [
    ("COTATI_PORT", "eighty", ("COTATI_PORT='eighty'", "whole number")),
    ("COTATI_QUESTION_LOG", "maybe", ("COTATI_QUESTION_LOG='maybe'",)),
    ("COTATI_LOG_LEVEL", "loud", ("COTATI_LOG_LEVEL='LOUD'", "not a log level")),
])
def test_a_setting_that_does_not_parse(variable, value, words, tmp_path):
    done = _run(["app.py"], COTATI_INDEX_DIR=str(tmp_path / "index"), **{variable: value})
    _one_line(done, 1, *words)
