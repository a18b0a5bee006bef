"""Bounded input through the real entry points: `assistant ask --batch` streams its file, splits
lines at LF and CRLF only and stops at the stated line-length and line-count caps with one line;
`.txt` documents have the character cap PDFs have."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.__main__ import BATCH_MAX_LINE_CHARS, BATCH_MAX_LINES
from ingest.readers import PdfLimits

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def env(tmp_path):
    return {**{k: v for k, v in os.environ.items() if not k.startswith("COTATI_")},
            "COTATI_EMBED_MODEL": "hash:64", "COTATI_INDEX_DIR": str(tmp_path / "index")}


def _ask(args, env, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant", "ask", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=kwargs.pop("timeout", 180), **kwargs)


def _answers(done) -> list[dict]:
    return [json.loads(line) for line in done.stdout.splitlines()]


def _error_line(done, status: int, *words: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert all(word in lines[0] for word in words), lines[0]
    assert done.returncode == status


def test_help_states_the_caps(env):
    done = _ask(["--help"], env)
    text = " ".join(done.stdout.split())
    assert f"{BATCH_MAX_LINES:,} lines" in text and f"{BATCH_MAX_LINE_CHARS:,} characters" in text
    assert "CRLF" in text and "bare CR" in text


def test_lines_end_at_lf_and_crlf_only(env, tmp_path):
    path = tmp_path / "questions.txt"
    path.write_bytes(b"17.44.065\r\nCan I open a bar\rin the CG district?\r\n17.30.030\n")
    done = _ask(["--json", "--batch", str(path)], env)
    assert done.returncode == 0, done.stderr
    answers = _answers(done)
    # A bare CR inside a line is whitespace in the question: one question, answered as typed.
    assert [a["question"] for a in answers] == ["17.44.065", "Can I open a bar in the CG district?", "17.30.030"]
    assert [a["route"] for a in answers] == ["section", "permit", "section"]


def test_a_question_given_with_its_crlf_is_answered(env):
    done = _ask(["17.44.065\r\n", "--json"], env)
    assert done.returncode == 0, done.stderr
    assert _answers(done)[0]["route"] == "section"


def test_an_over_long_line_stops_the_batch_there(env, tmp_path):
    path = tmp_path / "questions.txt"
    path.write_text("17.44.065\n" + "a" * (BATCH_MAX_LINE_CHARS + 1) + "\n17.30.030\n", encoding="utf-8")
    done = _ask(["--json", "--batch", str(path)], env)
    _error_line(done, 2, str(path), "line 2", f"{BATCH_MAX_LINE_CHARS:,} characters")
    assert [a["question"] for a in _answers(done)] == ["17.44.065"]


def test_a_line_at_the_cap_is_answered(env, tmp_path):
    path = tmp_path / "questions.txt"
    path.write_text("é" * BATCH_MAX_LINE_CHARS + "\r\n", encoding="utf-8")
    done = _ask(["--json", "--batch", str(path)], env)
    assert done.returncode == 0 and len(_answers(done)) == 1, done.stderr


def test_dev_zero_stops_at_once_in_bounded_memory(env):
    done = _ask(["--json", "--batch", "/dev/zero"], env, timeout=60)
    _error_line(done, 2, "/dev/zero", "line 1", "longer than")


def test_more_lines_than_the_cap(env, tmp_path):
    path = tmp_path / "questions.txt"
    path.write_text("\n" * (BATCH_MAX_LINES + 1), encoding="utf-8")  # blank lines: refused fast, one answer each
    done = _ask(["--json", "--batch", str(path)], env)
    _error_line(done, 2, str(path), f"more than {BATCH_MAX_LINES:,} lines")
    assert len(done.stdout.splitlines()) == BATCH_MAX_LINES


def test_a_line_that_is_not_utf8_is_named(env, tmp_path):
    path = tmp_path / "questions.txt"
    path.write_bytes(b"17.44.065\n17.30.030\nbad \xff byte\n")
    done = _ask(["--json", "--batch", str(path)], env)
    _error_line(done, 2, str(path), "line 3", "not UTF-8")
    assert len(_answers(done)) == 2


def test_a_folder_is_one_line(env, tmp_path):
    done = _ask(["--json", "--batch", str(tmp_path)], env)
    _error_line(done, 2, str(tmp_path), "cannot read questions")


def test_the_batch_is_streamed(env):
    """The first answer comes out while the input is still open: the file is not read whole first."""
    child = subprocess.Popen([sys.executable, "-m", "assistant", "ask", "--json", "--batch", "/dev/stdin"], cwd=REPO,
                             env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        child.stdin.write("17.44.065\n")
        child.stdin.flush()
        first = json.loads(child.stdout.readline())
        assert first["question"] == "17.44.065" and child.poll() is None
        child.stdin.write("17.30.030\n")
        child.stdin.close()
        assert json.loads(child.stdout.readline())["question"] == "17.30.030"
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.mark.parametrize("size", ["chars", "bytes"])
def test_a_text_document_has_the_pdf_character_cap(size, tmp_path):
    cap = PdfLimits.max_chars
    path = tmp_path / "huge.txt"
    with open(path, "w", encoding="utf-8") as out:
        if size == "chars":  # just over the cap: read, counted, refused
            out.write("SECTION 1. Title.\n" + "a" * cap)
        else:  # too large to hold fewer characters: refused by its size, unread
            out.write("a" * (4 * cap + 4))
    done = subprocess.run([sys.executable, "-m", "ingest", str(path)], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: {path}: text exceeds the limit of {cap:,} characters; split the document"
