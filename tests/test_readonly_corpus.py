"""Issue 45 item 9: a corpus folder that cannot be written is one line for `ingest add` and `ingest checksum`
(it was a 29-line OSError traceback). As root a folder's mode does not stop writes, so the folder's
writes are made to fail as a read-only mount fails them; where the tests do not run as root, a real
read-only folder is tried too."""

from __future__ import annotations

import io
import os
import types
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from corpus_copy import copy_corpus as _copy

APIARIES = ("ORDINANCE NO. 940\n\nSECTION 1: Recitals.\nThe council finds that bees matter.\n\n"
            "SECTION 2: Amendment. Section 17.30.095 is added to read:\n17.30.095 Apiaries.\n"
            "A beehive must stand ten feet from a property line.\n")


def _read_only(monkeypatch, folder: Path) -> None:
    """Every temporary file the corpus writers make in ``folder`` fails as on a read-only file system."""
    import tempfile

    import ingest.corpus_writes as writes

    def mkstemp(*args, dir=None, **kw):
        if dir is not None and Path(dir).resolve() == folder.resolve():
            raise OSError(30, "Read-only file system", str(dir))
        return tempfile.mkstemp(*args, dir=dir, **kw)

    monkeypatch.setattr(writes, "tempfile", types.SimpleNamespace(mkstemp=mkstemp))


def _main(argv: list[str]) -> tuple[int, str, str]:
    from ingest.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_ingest_add_to_a_read_only_corpus_is_one_line(tmp_path, monkeypatch):
    folder = _copy(tmp_path)
    source = tmp_path / "bees.txt"
    source.write_text(APIARIES, encoding="utf-8")
    before = (folder / "manifest.json").read_bytes()
    _read_only(monkeypatch, folder)
    code, out, err = _main(["add", str(source), "--date", "2026-10-01", "--title", "Bees", "--corpus", str(folder)])
    assert code == 1 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("error: ") and "cannot write the corpus folder" in err and "Read-only" in err
    assert (folder / "manifest.json").read_bytes() == before


def test_ingest_checksum_of_a_read_only_corpus_is_one_line(tmp_path, monkeypatch):
    import json

    folder = _copy(tmp_path)
    data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    data["documents"][0]["status"] = "proposed ordinance (edited)"  # a change to sign
    (folder / "manifest.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    _read_only(monkeypatch, folder)
    code, out, err = _main(["checksum", "--corpus", str(folder)])
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("error: ") and "cannot write the corpus folder" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a read-only folder")
def test_a_really_read_only_folder_is_one_line(tmp_path):
    folder = _copy(tmp_path)
    source = tmp_path / "bees.txt"
    source.write_text(APIARIES, encoding="utf-8")
    folder.chmod(0o555)
    try:
        code, _, err = _main(["add", str(source), "--date", "2026-10-01", "--title", "Bees", "--corpus", str(folder)])
    finally:
        folder.chmod(0o755)
    assert code == 1 and err.count("\n") == 1 and "cannot write the corpus folder" in err
