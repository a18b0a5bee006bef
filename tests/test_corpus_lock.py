"""Issue 26 items 1, 8, 9, 12: the manifest is part of the law. The folder, manifest.json and
corpus.lock.json must agree (an unlisted file, a removed entry, a back-dated one: one line naming
it, every entry point stops); `ingest add` checks the type by content and the size before reading
and adds nothing that does not verify; only regular files are read (a link to /dev/zero or a
FIFO is refused, never opened). Each test works on a copy of the corpus under tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.changes import add_document
from ingest.integrity import sign_corpus, verify_corpus
from ingest.lock import LOCK_NAME

from corpus_copy import CORPUS, ORD_001, REPO
from corpus_copy import copy_corpus as _copy


def _edit_manifest(folder: Path, change) -> None:
    data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    data["documents"] = [e for e in (change(dict(e)) for e in data["documents"]) if e]
    (folder / "manifest.json").write_text(json.dumps(data, indent=2), encoding="utf-8")


def _drop_001(folder: Path) -> None:
    _edit_manifest(folder, lambda e: None if e["id"] == "001" else e)


def _backdate_001(folder: Path) -> None:
    _edit_manifest(folder, lambda e: {**e, "date": "2020-01-01"} if e["id"] == "001" else e)


def _stray_file(folder: Path) -> None:
    (folder / "2026-10-01_ord-940.txt").write_text("Section 17.44.065 Fences.\n", encoding="utf-8")


def _no_lock(folder: Path) -> None:
    (folder / LOCK_NAME).unlink()


HARM = {"entry removed": (_drop_001, "001"), "back-dated": (_backdate_001, "2020-01-01"),
        "unlisted file": (_stray_file, "2026-10-01_ord-940.txt"), "no lock": (_no_lock, LOCK_NAME)}


def test_the_bundled_corpus_is_signed_off():
    assert (CORPUS / LOCK_NAME).is_file() and verify_corpus(CORPUS) == ()


@pytest.mark.parametrize("harm", HARM)
def test_a_manifest_or_folder_difference_is_named(harm, tmp_path):
    folder = _copy(tmp_path)
    change, word = HARM[harm]
    change(folder)
    errors = verify_corpus(folder)
    assert errors and word in str(errors[0]) and "\n" not in str(errors[0]), errors


def _run(args: list[str], folder: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COTATI_CORPUS_DIR": str(folder), "COTATI_INDEX_DIR": str(tmp_path / "index"),
           "COTATI_EMBED_MODEL": "hash:64", "GRADIO_ANALYTICS_ENABLED": "False"}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("entry", [["-m", "assistant", "ask", "Is a fence allowed in CD?"], ["-m", "ingest", "tables"],
                                   ["-m", "index", "build", "--quiet"], ["app.py", "--port", "65002"]])
def test_removing_001_from_the_manifest_stops_every_entry_point(entry, tmp_path):
    """The failure: the answers fell back to the older law, exit 0, no warning."""
    folder = _copy(tmp_path)
    _drop_001(folder)
    done = _run(entry, folder, tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("error: ") and "001" in lines[0] and "ingest checksum" in lines[0]


def test_checksum_signs_an_intended_edit_and_records_who_when(tmp_path):
    folder = _copy(tmp_path)
    _backdate_001(folder)
    changed, signed = sign_corpus(folder)
    assert changed == [] and signed == ["001: updated in the lock"] and verify_corpus(folder) == ()
    last = json.loads((folder / LOCK_NAME).read_text(encoding="utf-8"))["history"][-1]
    assert last["action"] == "checksum" and last["who"] and last["when"][:2] == "20"


def test_checksum_refuses_to_sign_an_unlisted_file(tmp_path):
    folder = _copy(tmp_path)
    _stray_file(folder)
    with pytest.raises(Exception, match="not in manifest.json"):
        sign_corpus(folder)


def _without_001(tmp_path: Path) -> Path:
    folder = _copy(tmp_path)
    _drop_001(folder)
    (folder / ORD_001).unlink()
    sign_corpus(folder)
    return folder


def test_ingest_add_updates_the_lock(tmp_path):
    folder = _without_001(tmp_path)
    entry = add_document(CORPUS / ORD_001, "2026-08-11", "Corrections", folder)
    lock = json.loads((folder / LOCK_NAME).read_text(encoding="utf-8"))
    assert entry["id"] in {d["id"] for d in lock["documents"]} and lock["history"][-1]["action"] == "add"
    assert verify_corpus(folder) == ()


def test_ingest_add_names_a_pdf_by_its_content(tmp_path):
    """The failure: a PDF named .txt was added as .txt, after which every entry point refused to start."""
    from pdf_fixtures import write_text_pdf

    folder = _without_001(tmp_path)
    disguised = write_text_pdf(tmp_path / "ord.txt", (CORPUS / ORD_001).read_text(encoding="utf-8")[:6000])
    entry = add_document(disguised, "2026-08-11", "Corrections", folder)
    assert entry["file"].endswith(".pdf") and verify_corpus(folder) == ()


def test_ingest_add_refuses_a_large_file_by_its_size_before_reading(tmp_path, monkeypatch):
    """The failure: a 4 GB file was read whole (4.2 GB of memory) before its size was checked."""
    folder = _without_001(tmp_path)
    big = tmp_path / "big.txt"
    with open(big, "wb") as handle:
        handle.truncate(5 * 1024**3)  # sparse: no disk used
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"read {self} whole"))
    with pytest.raises(ValueError, match="larger than a document may be"):
        add_document(big, "2026-08-11", "Big", folder)
    assert json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["documents"][-1]["id"] != "004"


def test_ingest_add_adds_nothing_that_does_not_ingest(tmp_path):
    folder = _without_001(tmp_path)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    junk = tmp_path / "junk.txt"
    junk.write_text("no section headings here at all\n", encoding="utf-8")
    with pytest.raises(Exception):
        add_document(junk, "2026-08-11", "Junk", folder)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
def test_a_document_that_is_not_a_regular_file_is_refused_not_read(kind, tmp_path):
    folder = _copy(tmp_path)
    (folder / ORD_001).unlink()
    if kind == "fifo":
        os.mkfifo(folder / ORD_001)
    else:
        (folder / ORD_001).symlink_to("/dev/zero")
    errors = verify_corpus(folder)  # would hang if it opened the file
    assert errors and "not a regular file" in str(errors[0]) and ORD_001 in str(errors[0])
    with pytest.raises(ValueError, match="not a regular file"):
        add_document(folder / ORD_001, "2026-10-01", "Link", tmp_path / "nowhere")
