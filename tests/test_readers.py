"""Reading files: text, PDF through the limited child process, and every kind of bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ingest import ingest_paths
from ingest.readers import PdfLimits, read_document
from ingest.types import IngestError
from pdf_fixtures import write_drawing_pdf, write_text_pdf

REPO = Path(__file__).resolve().parent.parent
ORDINANCE_TEXT = """SECTION 1: Recitals.
The recitals are true.
SECTION 2: Amendment to the Cotati Municipal Code. Section 17.64.080 is amended as follows:
17.64.080 Permit time limits, extensions, and expiration.
A. A permit expires after one year."""


def test_text_file_is_one_page_unless_it_has_form_feeds(tmp_path):
    path = tmp_path / "doc.txt"
    path.write_text("page one\fpage two", encoding="utf-8")
    assert [(p.number, p.text) for p in read_document(path)] == [(1, "page one"), (2, "page two")]


def test_pdf_pages_are_numbered(tmp_path):
    pdf = write_text_pdf(tmp_path / "doc.pdf", "\n".join(f"Line {n} of the ordinance." for n in range(150)))
    pages = read_document(pdf)
    assert len(pages) >= 2 and pages[0].number == 1
    assert "Line 0 of the ordinance." in pages[0].text


def bad_inputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (file, words the error must contain)."""
    (tmp_path / "notes.docx").write_bytes(b"PK\x03\x04 a zip file")
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("Caf\xe9 ordinance".encode("latin-1"))
    (tmp_path / "binary.txt").write_bytes(b"abc\x00\x01\x02")
    (tmp_path / "empty.pdf").write_bytes(b"")
    (tmp_path / "corrupt.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ngarbage without xref")
    (tmp_path / "fake.pdf").write_bytes(b"just text pretending to be a PDF")
    write_text_pdf(tmp_path / "locked.pdf", ORDINANCE_TEXT, user_password="secret")
    write_drawing_pdf(tmp_path / "scan.pdf")
    return {
        "unsupported type": (tmp_path / "notes.docx", "unsupported file type"),
        "empty text": (tmp_path / "empty.txt", "empty"),
        "non-UTF-8 text": (tmp_path / "latin1.txt", "not UTF-8"),
        "binary text": (tmp_path / "binary.txt", "not a text file"),
        "empty PDF": (tmp_path / "empty.pdf", "empty"),
        "corrupt PDF": (tmp_path / "corrupt.pdf", "PDF"),
        "not a PDF": (tmp_path / "fake.pdf", "not a PDF"),
        "encrypted PDF": (tmp_path / "locked.pdf", "encrypted"),
        "PDF without text": (tmp_path / "scan.pdf", "no extractable text"),
        "missing file": (tmp_path / "nowhere.txt", "no such file"),
    }


@pytest.mark.parametrize(
    "case",
    ["unsupported type", "empty text", "non-UTF-8 text", "binary text", "empty PDF", "corrupt PDF",
     "not a PDF", "encrypted PDF", "PDF without text", "missing file"],
)
def test_bad_input_gets_one_clear_error_naming_the_file(tmp_path, case):
    path, words = bad_inputs(tmp_path)[case]
    with pytest.raises(IngestError) as caught:
        read_document(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and words in message
    assert "\n" not in message and "Traceback" not in message


def test_page_cap_rejects_long_pdf(tmp_path):
    pdf = write_text_pdf(tmp_path / "long.pdf", "\n".join(f"Line {n}" for n in range(200)))
    with pytest.raises(IngestError, match="more than the limit of 1"):
        read_document(pdf, PdfLimits(max_pages=1))


def test_text_cap_rejects_pdf_with_too_much_text(tmp_path):
    pdf = write_text_pdf(tmp_path / "big.pdf", "\n".join(f"Line {n}" for n in range(50)))
    with pytest.raises(IngestError, match="exceeds the limit of 100 characters"):
        read_document(pdf, PdfLimits(max_chars=100))


def test_other_files_still_ingest_when_one_fails(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(ORDINANCE_TEXT, encoding="utf-8")
    cases = bad_inputs(tmp_path)
    result = ingest_paths([good] + [path for path, _ in cases.values()])
    assert "17.64.080" in {s.id for s in result.sections}
    assert sorted(e.path for e in result.errors) == sorted(str(path) for path, _ in cases.values())


def test_cli_reports_each_bad_file_on_one_line_and_exits_non_zero(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(ORDINANCE_TEXT, encoding="utf-8")
    cases = bad_inputs(tmp_path)
    bad = [cases["non-UTF-8 text"][0], cases["encrypted PDF"][0], cases["unsupported type"][0]]
    done = subprocess.run(
        [sys.executable, "-m", "ingest", str(good), *map(str, bad), "--json"],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert done.returncode == 1
    assert '"section": "17.64.080"' in done.stdout
    errors = done.stderr.strip().splitlines()
    assert len(errors) == 3 and all(line.startswith("error: ") for line in errors)
    for path in bad:
        assert any(str(path) in line for line in errors)
