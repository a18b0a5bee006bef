"""CLI through the real entry point (`python -m index`), over the real corpus with the fake encoder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest_index import FAKE_MODEL

ROOT = Path(__file__).resolve().parents[1]


def run(args, env, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "index", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    e = dict(os.environ)
    e["COTATI_INDEX_DIR"] = str(tmp_path_factory.mktemp("cli") / "index")
    e["COTATI_EMBED_MODEL"] = FAKE_MODEL
    r = run(["build"], e)
    assert r.returncode == 0, r.stderr
    assert "built" in r.stderr and "chunks" in r.stderr
    assert "embed" in r.stderr  # the progress bar
    return e


def test_search_json_is_one_list_of_hits(env):
    r = run(["search", "cell tower setback", "--json", "-k", "10"], env)
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)
    assert isinstance(hits, list) and 1 <= len(hits) <= 10
    for h in hits:
        assert {"section", "document", "score", "text"} <= set(h)
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1))


@pytest.mark.parametrize("query, section", [("17.44.065", "17.44.065"), ("Table 3-7", "17.36.050")])
def test_direct_hit_at_rank_one(env, query, section):
    r = run(["search", query, "--json", "-k", "3"], env)
    assert json.loads(r.stdout)[0]["section"] == section


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_modes(env, mode):
    r = run(["search", "fence height", "--json", "-k", "2", "--mode", mode], env)
    assert r.returncode == 0 and all(h["mode"] == mode for h in json.loads(r.stdout))


def test_plain_output(env):
    r = run(["search", "fence height", "-k", "2"], env)
    assert r.returncode == 0 and "doc" in r.stdout


def test_stop_words_only_prints_empty_list(env):
    r = run(["search", "what is the", "--json"], env)
    assert r.returncode == 0 and json.loads(r.stdout) == []


@pytest.mark.parametrize(
    "args",
    [
        ["search", ""],
        ["search", "x" * 10_000, "--json"],
        ["search", "\x01\x02\x03"],
        ["search", "fence", "-k", "0"],
        ["search", "fence", "--mode", "magic"],
        ["search", "fence", "-k", "ten"],
        ["frobnicate"],
    ],
    ids=["empty", "10k-chars", "control-only", "k0", "bad-mode", "k-text", "bad-command"],
)
def test_bad_input_one_line_nonzero_no_traceback(env, args):
    r = run(args, env)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("error: "), r.stderr


def test_missing_index_with_no_build_fails_clearly(env, tmp_path):
    e = dict(env, COTATI_INDEX_DIR=str(tmp_path / "nothing"))
    r = run(["search", "fence", "--no-build"], e)
    assert r.returncode == 1 and r.stderr.startswith("error:") and "missing" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("model, message", [("/no/such/model", "no such model folder"), ("hash:x", "hash:<integer")])
def test_unknown_model_fails_clearly(env, tmp_path, model, message):
    e = dict(env, COTATI_INDEX_DIR=str(tmp_path / "other"))
    r = run(["build", "--model", model], e)
    assert r.returncode == 1 and message in r.stderr and "Traceback" not in r.stderr


def test_info_reports_fresh(env):
    r = run(["info", "--json"], env)
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["fresh"] and out["manifest"]["settings"]["model"] == FAKE_MODEL
