"""Issue 37 items 5 and 10: one writer at a time, and a killed `ingest add` leaves nothing misleading.

The failures: two `ingest add` at once both said "added 004" and the manifest and lock kept one (the
other's file sat unlisted, every entry point stopped, re-adding it was refused); a kill -9 during an
add left a `.manifest-*.json` temporary file, and the one-line message's advice ("add it with
ingest add") was refused. Each test works on a copy of the corpus under tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ingest.changes import add_document
from ingest.corpus_writes import JOURNAL, TEMP_PREFIX, writer
from ingest.integrity import sign_corpus, verify_corpus
from ingest.lock import LOCK_NAME

from corpus_copy import REPO
from corpus_copy import copy_corpus as _copy

ORDINANCE = ("ORDINANCE NO. {n}\n\nSECTION 1: Recitals.\nThe council finds that fences matter.\n\n"
             "SECTION 2: Amendment. Section 17.44.065 is amended to read:\n17.44.065 Fences.\n"
             "A fence may be {n} inches tall.\n")


def _document(tmp_path: Path, number: int) -> Path:
    path = tmp_path / f"ord{number}.txt"
    path.write_text(ORDINANCE.format(n=number), encoding="utf-8")
    return path


def _add_args(path: Path, folder: Path, number: int) -> list[str]:
    return [sys.executable, "-m", "ingest", "add", str(path), "--date", "2026-10-01", "--title", f"Ord {number}",
            "--corpus", str(folder)]


def _env(**extra) -> dict:
    return {**os.environ, "COTATI_EMBED_MODEL": "hash:64", **extra}


def _ids(folder: Path, name: str) -> set[str]:
    return {e["id"] for e in json.loads((folder / name).read_text(encoding="utf-8"))["documents"]}


def test_two_adds_at_once_both_land(tmp_path):
    folder = _copy(tmp_path)
    paths = [_document(tmp_path, n) for n in (940, 941)]
    with writer(folder):  # both start while the folder is held: they must queue, not race
        running = [subprocess.Popen(_add_args(p, folder, n), cwd=REPO, env=_env(), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for p, n in zip(paths, (940, 941))]
        time.sleep(1.0)
        assert all(p.poll() is None for p in running)  # waiting for the lock
    outs = [p.communicate(timeout=120) for p in running]
    assert [p.returncode for p in running] == [0, 0], outs
    assert _ids(folder, "manifest.json") == _ids(folder, LOCK_NAME) == {"000", "001", "002", "003", "004", "005"}
    assert verify_corpus(folder) == ()


def test_a_second_writer_that_cannot_wait_is_told_in_one_line(tmp_path):
    folder = _copy(tmp_path)
    path = _document(tmp_path, 940)
    with writer(folder):
        done = subprocess.run(_add_args(path, folder, 940), cwd=REPO, env=_env(COTATI_CORPUS_LOCK_WAIT="0"),
                              capture_output=True, text=True, timeout=120)
        checksum = subprocess.run([sys.executable, "-m", "ingest", "checksum", "--corpus", str(folder)], cwd=REPO,
                                  env=_env(COTATI_CORPUS_LOCK_WAIT="0"), capture_output=True, text=True, timeout=120)
    for run in (done, checksum):
        lines = run.stderr.strip().splitlines()
        assert run.returncode == 1 and len(lines) == 1 and "another" in lines[0] and "Traceback" not in run.stderr
    assert _ids(folder, "manifest.json") == {"000", "001", "002", "003"} and verify_corpus(folder) == ()


def test_writes_keep_the_files_mode(tmp_path):
    folder = _copy(tmp_path)
    os.chmod(folder / LOCK_NAME, 0o644)
    add_document(_document(tmp_path, 940), "2026-10-01", "Ord 940", folder)
    assert (folder / LOCK_NAME).stat().st_mode & 0o777 == 0o644


# Where a kill -9 can fall in an add: after each durable step (os._exit skips every clean-up, as a kill does).
KILL_POINTS = {
    "journal written": "ingest.corpus_writes.begin_add",
    "document copied": "ingest.corpus_writes.copy_atomic",
    "manifest written, not yet the lock": "ingest.changes._verify_added:before",
    "lock written": "ingest.lock.record_added",
    "nothing yet (the journal's temporary file)": "os.replace:1",
    "manifest's temporary file written, not renamed": "os.replace:3",
}
KILLER = textwrap.dedent("""
    import os, sys
    import ingest.changes, ingest.corpus_writes, ingest.lock
    point, path, folder = sys.argv[1:4]
    def killing(module, name, before=False):
        real = getattr(module, name)
        def wrapper(*args, **kwargs):
            if not before:
                real(*args, **kwargs)
            os._exit(137)
        setattr(module, name, wrapper)
    if point.startswith("os.replace:"):  # the Nth rename: journal, document, manifest, lock
        real, calls = os.replace, [0]
        def counting(*args, **kwargs):
            calls[0] += 1
            if calls[0] == int(point.split(":")[1]):
                os._exit(137)
            return real(*args, **kwargs)
        os.replace = counting
    elif point.endswith(":before"):
        module, name = point[:-len(":before")].rsplit(".", 1)
        killing(sys.modules[module], name, before=True)
    else:
        module, name = point.rsplit(".", 1)
        killing(sys.modules[module], name)  # ingest.changes imports these at call time: the patch is seen
    ingest.changes.add_document(path, "2026-10-01", "Ord 940", folder)
    os._exit(0)
""")


@pytest.mark.parametrize("point", KILL_POINTS)
def test_a_killed_add_is_named_in_one_line_and_adding_again_works(point, tmp_path):
    folder = _copy(tmp_path)
    path = _document(tmp_path, 940)
    killed = subprocess.run([sys.executable, "-c", KILLER, KILL_POINTS[point], str(path), str(folder)], cwd=REPO,
                            env=_env(), capture_output=True, text=True, timeout=120)
    assert killed.returncode == 137, killed.stderr
    errors = verify_corpus(folder)
    if point == "lock written":  # the add was whole: only its journal was left, and it misleads nobody
        assert errors == ()
    elif point.startswith("nothing yet"):  # only a temporary file: removed, nothing to say
        assert errors == () and not (folder / JOURNAL).exists()
    else:
        assert len(errors) == 1 and "interrupted" in str(errors[0]) and "ingest add" in str(errors[0]), errors
    assert not [p.name for p in folder.iterdir() if p.name.startswith((TEMP_PREFIX, ".manifest-"))]
    if point != "lock written":
        entry = add_document(path, "2026-10-01", "Ord 940", folder)  # the advice works: the add is undone, then made
        assert entry["id"] == "004"
    assert verify_corpus(folder) == () and not (folder / JOURNAL).exists()
    assert _ids(folder, "manifest.json") == _ids(folder, LOCK_NAME) == {"000", "001", "002", "003", "004"}


def test_checksum_undoes_a_killed_add(tmp_path):
    folder = _copy(tmp_path)
    path = _document(tmp_path, 940)
    subprocess.run([sys.executable, "-c", KILLER, KILL_POINTS["document copied"], str(path), str(folder)],
                   cwd=REPO, env=_env(), capture_output=True, timeout=120)
    sign_corpus(folder)
    assert verify_corpus(folder) == () and _ids(folder, "manifest.json") == {"000", "001", "002", "003"}
    assert not any(p.name.startswith("2026-10-01") for p in folder.iterdir())
