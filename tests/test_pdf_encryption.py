"""Encrypted PDFs through `python -m ingest FILE`: an owner-only password (empty user password)
opens in any viewer, so its text is read, AES included (the `cryptography` dependency); a PDF that
needs a user password is one line, "encrypted (password required)"; without `cryptography` an AES
PDF says so instead of being called corrupt. PDFs are made at test time with fpdf2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TEXT = "SECTION 17.30.030 Fences, walls, and screening. Fences may be six feet high."


def _pdf(path: Path, method: str, user_password: str) -> Path:
    from fpdf import FPDF
    from fpdf.enums import EncryptionMethod

    pdf = FPDF()
    pdf.set_encryption(owner_password="owner", user_password=user_password,
                       encryption_method=getattr(EncryptionMethod, method))
    pdf.add_page()
    pdf.set_font("Helvetica", size=9)
    pdf.multi_cell(0, 5, TEXT)
    pdf.output(str(path))
    return path


def _ingest(path: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ingest", "--json", str(path)], cwd=REPO,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("method", ["AES_128", "AES_256", "RC4"])
def test_an_owner_only_password_reads(method, tmp_path):
    done = _ingest(_pdf(tmp_path / f"{method}.pdf", method, ""))
    assert done.returncode == 0, done.stderr
    titles = [json.loads(line)["title"] for line in done.stdout.splitlines()]
    assert any("Fences may be six feet high" in title for title in titles), titles


@pytest.mark.parametrize("method", ["AES_128", "AES_256", "RC4"])
def test_a_user_password_is_named(method, tmp_path):
    path = _pdf(tmp_path / f"{method}.pdf", method, "secret")
    done = _ingest(path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: {path}: PDF is encrypted (password required)"


def test_without_cryptography_an_aes_pdf_says_what_is_missing(tmp_path):
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "cryptography.py").write_text('raise ImportError("hidden for this test")\n')
    path = _pdf(tmp_path / "aes.pdf", "AES_128", "")
    done = _ingest(path, PYTHONPATH=os.pathsep.join(filter(None, [str(hide), os.environ.get("PYTHONPATH")])))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    line = done.stderr.strip()
    assert line.startswith(f"error: {path}: PDF is AES-encrypted") and "cryptography" in line and "corrupt" not in line
