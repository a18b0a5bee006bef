"""Issue 37 item 1: the whole manifest is law. Every field of every manifest entry (kind, chapter,
status, title, short title, date basis, source, any other) and the manifest's own fields are signed
in corpus.lock.json; a difference is one line naming the document and the field, every entry point
stops on it, and `ingest checksum` (or `ingest add`) is the only way to sign a change. Each test
works on a copy of the corpus under tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.integrity import sign_corpus, verify_corpus
from ingest.lock import LOCK_NAME

from corpus_copy import REPO
from corpus_copy import copy_corpus as _copy


def _edit(folder: Path, doc_id: str | None, field: str, value) -> None:
    data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    target = data if doc_id is None else next(e for e in data["documents"] if e["id"] == doc_id)
    if value is None:
        target.pop(field, None)
    else:
        target[field] = value
    (folder / "manifest.json").write_text(json.dumps(data, indent=2), encoding="utf-8")


EDITS = {
    "kind": ("001", "kind", "codified chapter"),  # the failure: 86 cells of 001 disappeared, no warning
    "chapter": ("001", "chapter", "17.22"),
    "status": ("002", "status", "repealed"),
    "title": ("000", "title", "Another ordinance"),
    "short_title": ("002", "short_title", "Ord. 940"),
    "date_basis": ("003", "date_basis", "adoption"),
    "source": ("001", "source", "somewhere else"),
    "a new field": ("001", "effective", "2020-01-01"),
    "a field removed": ("003", "chapter", None),
    "the manifest's title": (None, "title", "City of Elsewhere"),
}


@pytest.mark.parametrize("edit", EDITS)
def test_every_manifest_field_is_signed(edit, tmp_path):
    folder = _copy(tmp_path)
    doc_id, field, value = EDITS[edit]
    _edit(folder, doc_id, field, value)
    errors = verify_corpus(folder)
    assert len(errors) == 1, errors
    line = str(errors[0])
    assert "\n" not in line and field in line and "ingest checksum" in line, line
    if doc_id:
        assert f"document {doc_id}" in line


def test_checksum_signs_a_field_change_and_the_lock_records_every_field(tmp_path):
    folder = _copy(tmp_path)
    _edit(folder, "001", "status", "adopted (Ord. 941)")
    changed, signed = sign_corpus(folder)
    assert signed == ["001: updated in the lock"] and verify_corpus(folder) == ()
    lock = json.loads((folder / LOCK_NAME).read_text(encoding="utf-8"))
    entry = next(e for e in lock["documents"] if e["id"] == "001")
    assert entry["status"] == "adopted (Ord. 941)" and entry["kind"] == "ordinance" and lock["signature"]


def test_a_lock_entry_edited_without_its_signature_is_named(tmp_path):
    """Editing the lock and the manifest alike (but not the lock's signature) is still a difference."""
    folder = _copy(tmp_path)
    _edit(folder, "001", "kind", "codified chapter")
    lock = json.loads((folder / LOCK_NAME).read_text(encoding="utf-8"))
    next(e for e in lock["documents"] if e["id"] == "001")["kind"] = "codified chapter"
    (folder / LOCK_NAME).write_text(json.dumps(lock), encoding="utf-8")
    errors = verify_corpus(folder)
    assert len(errors) == 1 and "signature" in str(errors[0])


def test_a_lock_from_before_every_field_was_locked_is_one_line(tmp_path):
    folder = _copy(tmp_path)
    lock = json.loads((folder / LOCK_NAME).read_text(encoding="utf-8"))
    lock.pop("manifest")
    lock.pop("signature")
    lock["documents"] = [{f: e[f] for f in ("id", "date", "file", "sha256")} for e in lock["documents"]]
    (folder / LOCK_NAME).write_text(json.dumps(lock), encoding="utf-8")
    errors = verify_corpus(folder)
    assert len(errors) == 1 and "ingest checksum" in str(errors[0]), errors
    sign_corpus(folder)
    assert verify_corpus(folder) == ()


def _run(args: list[str], folder: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COTATI_CORPUS_DIR": str(folder), "COTATI_INDEX_DIR": str(tmp_path / "index"),
           "COTATI_EMBED_MODEL": "hash:64", "GRADIO_ANALYTICS_ENABLED": "False",
           "COTATI_QUESTION_LOG_PATH": str(tmp_path / "log.sqlite3")}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("entry", [["-m", "assistant", "ask", "Can I build multifamily plex housing in NG?"],
                                   ["-m", "ingest", "tables"], ["-m", "index", "build", "--quiet"],
                                   ["app.py", "--port", "65003"],
                                   # issue 45: these two ran on it (diff's output changed; eval ended in an IndexError)
                                   ["-m", "ingest", "diff", "--document", "001"],
                                   ["-m", "eval", "--no-report", "--set", "dev", "--limit", "1"]])
def test_a_changed_kind_stops_every_entry_point(entry, tmp_path):
    """The failure: document 001 read as a codified chapter answered "Not allowed." for plex housing in NG."""
    folder = _copy(tmp_path)
    _edit(folder, "001", "kind", "codified chapter")
    done = _run(entry, folder, tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("error: ") and "001" in lines[0] and "kind" in lines[0]
