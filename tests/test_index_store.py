"""Persistence: manifest, freshness checks, rebuild of stale/damaged indexes, atomic writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest_index import FAKE_MODEL, corpus, open_fake, section

from index import CorpusInput, IndexBuildError, IndexStoreError, open_index, store
from index.dense import HashingEncoder

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def built(tmp_path):
    path = tmp_path / "index"
    open_fake(path)
    return path


def manifest(path: Path) -> dict:
    return json.loads((path / "manifest.json").read_text())


def test_directory_holds_plain_files_and_a_manifest(built):
    assert {p.name for p in built.iterdir()} == {"manifest.json", "chunks.jsonl", "bm25_tokens.json", "dense.faiss"}
    m = manifest(built)
    assert m["format_version"] == store.FORMAT_VERSION
    assert m["settings"]["model"] == FAKE_MODEL
    assert {"faiss-cpu", "rank-bm25", "sentence-transformers", "torch", "numpy"} <= set(m["settings"]["libraries"])
    assert m["corpus"]["hash"] and m["counts"]["chunks"] == len((built / "chunks.jsonl").read_text().splitlines())
    assert set(m["files"]) == {"chunks.jsonl", "bm25_tokens.json", "dense.faiss"}


def test_fresh_index_is_loaded_not_rebuilt(built):
    before = manifest(built)["built_at"], (built / "dense.faiss").stat().st_mtime_ns
    open_fake(built, build_if_missing=False)
    assert (manifest(built)["built_at"], (built / "dense.faiss").stat().st_mtime_ns) == before


def test_missing_index_without_build_is_a_clear_error(tmp_path):
    with pytest.raises(IndexStoreError, match="missing"):
        open_fake(tmp_path / "none", build_if_missing=False)


def _rebuilt(path: Path, **kw) -> bool:
    before = manifest(path)["built_at"], (path / "chunks.jsonl").stat().st_ino
    open_fake(path, **kw)
    return (manifest(path)["built_at"], (path / "chunks.jsonl").stat().st_ino) != before


def test_changed_corpus_makes_it_stale_and_rebuilt(built):
    changed = CorpusInput(sections=corpus().sections + (section("17.50.010", "Signs", "Signs need a permit."),))
    with pytest.raises(IndexStoreError, match="stale: corpus"):
        open_fake(built, corpus=changed, build_if_missing=False)
    s = open_fake(built, corpus=changed)
    assert s.search("17.50.010", k=1)[0].section == "17.50.010"


@pytest.mark.parametrize(
    "edit, reason",
    [
        (lambda m: m.update(format_version=0), "stale: format"),
        (lambda m: m["settings"].update(model="hash:32"), "stale: settings"),
        (lambda m: m["settings"]["libraries"].update({"faiss-cpu": "0.0"}), "stale: settings"),
        (lambda m: m["settings"]["chunker"].update(max_pieces=128), "stale: settings"),
    ],
)
def test_stale_manifest_is_rebuilt(built, edit, reason):
    m = manifest(built)
    edit(m)
    (built / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexStoreError, match=reason):
        open_fake(built, build_if_missing=False)
    assert _rebuilt(built)
    open_fake(built, build_if_missing=False)  # fresh again


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda p: (p / "dense.faiss").write_bytes(b"not faiss"), "damaged: dense.faiss"),
        (lambda p: (p / "dense.faiss").unlink(), "damaged: dense.faiss missing"),
        (lambda p: (p / "chunks.jsonl").write_text("{broken"), "damaged: chunks.jsonl"),
        (lambda p: (p / "bm25_tokens.json").write_text("[]"), "damaged: bm25_tokens.json"),
        (lambda p: (p / "manifest.json").write_text("{not json"), "damaged: manifest"),
        (lambda p: (p / "manifest.json").unlink(), "missing"),
    ],
)
def test_damaged_index_is_rebuilt_never_used(built, damage, reason):
    damage(built)
    with pytest.raises(IndexStoreError, match=reason):
        open_fake(built, build_if_missing=False)
    s = open_fake(built)
    assert s.search("Table 3-7", k=1)[0].section == "17.36.050"


def test_damage_behind_a_matching_checksum_is_still_caught(built):
    """A manifest that vouches for a bad file (e.g. written by a buggy tool of this installation, so signed
    with its key) still fails to load."""
    m = manifest(built)
    (built / "bm25_tokens.json").write_text("[]")
    m["files"]["bm25_tokens.json"] = store._sha256(built / "bm25_tokens.json")
    (built / "manifest.json").write_text(json.dumps(store.sign_manifest(m)))
    with pytest.raises(IndexStoreError, match="damaged: counts"):
        open_fake(built, build_if_missing=False)
    assert open_fake(built).search("fences", k=1)


def test_a_file_forged_with_the_manifest_beside_it_is_refused_and_rebuilt(built):
    """Issue 45: nothing in the index folder vouches for itself. A chunk's text changed and its sha256 put
    into the manifest (no key to sign it with) is refused, and the index is rebuilt from the corpus."""
    chunks = (built / "chunks.jsonl").read_text(encoding="utf-8")
    forged = chunks.replace("exceed 3 feet", "exceed 9 feet")
    assert forged != chunks
    (built / "chunks.jsonl").write_text(forged, encoding="utf-8")
    m = manifest(built)
    m["files"]["chunks.jsonl"] = store._sha256(built / "chunks.jsonl")
    (built / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexStoreError, match="not vouched for"):
        open_fake(built, build_if_missing=False)
    rebuilt = open_fake(built)
    assert "exceed 9 feet" not in (built / "chunks.jsonl").read_text(encoding="utf-8")
    assert rebuilt.search("fences", k=1)


class _Crash(BaseException):
    """Stands in for a kill mid-build (BaseException: nothing may swallow it)."""


@pytest.mark.parametrize("where", ["encode", "write_faiss"])
def test_crash_mid_build_leaves_previous_index_intact(built, monkeypatch, where):
    before = {p.name: p.read_bytes() for p in built.iterdir()}
    if where == "encode":
        monkeypatch.setattr(HashingEncoder, "encode", lambda *a, **k: (_ for _ in ()).throw(_Crash()))
    else:
        monkeypatch.setattr(store.dense, "write_faiss", lambda *a, **k: (_ for _ in ()).throw(_Crash()))
    changed = CorpusInput(sections=corpus().sections + (section("17.50.010", "Signs", "Signs need a permit."),))
    with pytest.raises(_Crash):
        open_fake(built, corpus=changed)
    assert {p.name: p.read_bytes() for p in built.iterdir()} == before
    assert not [p for p in built.parent.iterdir() if ".tmp-" in p.name]
    monkeypatch.undo()
    open_fake(built, build_if_missing=False)  # the old index is still fresh for the old corpus


def test_leftovers_of_a_killed_build_are_ignored_and_cleaned(built):
    leftover = built.parent / f".{built.name}.tmp-999999-deadbeef"
    leftover.mkdir()
    (leftover / "chunks.jsonl").write_text("half written")
    open_fake(built, build_if_missing=False)  # a leftover temp dir never affects loading
    changed = CorpusInput(sections=corpus().sections[:2])
    open_fake(built, corpus=changed)
    assert not leftover.exists()


def test_build_refuses_to_replace_a_foreign_directory(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "thesis.txt").write_text("precious")
    with pytest.raises(IndexBuildError, match="not an index"):
        open_fake(home)
    assert (home / "thesis.txt").read_text() == "precious"


def test_rebuild_reuses_vectors_of_unchanged_chunks(built):
    changed = CorpusInput(sections=corpus().sections + (section("17.50.010", "Signs", "Signs need a permit."),))
    open_fake(built, corpus=changed)
    counts = manifest(built)["counts"]
    assert counts["embedded"] == 1 and counts["reused_vectors"] == counts["chunks"] - 1


def test_index_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("COTATI_INDEX_DIR", str(tmp_path / "envidx"))
    assert store.resolve_index_dir() == tmp_path / "envidx"
    assert store.resolve_index_dir(tmp_path / "flag") == tmp_path / "flag"
    open_index(model=FAKE_MODEL, corpus=corpus())
    assert (tmp_path / "envidx" / "manifest.json").is_file()


def test_default_index_dir_is_var_index_in_the_repo(monkeypatch):
    monkeypatch.delenv("COTATI_INDEX_DIR", raising=False)
    assert store.default_index_dir() == ROOT / "var" / "index"


def test_importing_and_searching_loads_no_heavy_library(tmp_path):
    code = (
        "import sys, index\n"
        "assert not {'torch', 'sentence_transformers', 'faiss', 'numpy'} & set(sys.modules), 'import'\n"
        "sys.path.insert(0, 'tests')\n"
        "from conftest_index import open_fake\n"
        f"s = open_fake(__import__('pathlib').Path({str(tmp_path / 'i')!r}))\n"
        "s.search('parking', k=3)\n"
        "assert not {'torch', 'sentence_transformers', 'transformers'} & set(sys.modules), 'search'\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)
