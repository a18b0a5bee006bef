"""Read a document file into pages: UTF-8 text directly, PDF through a sandboxed child process.

pypdf has a record of hangs and decompression bombs on hostile files, so a PDF is never parsed
in this process: ``ingest.pdf_worker`` runs with a CPU-time, wall-time and memory limit and caps
on pages and extracted characters, and hands back JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .types import IngestError, Page

PDF_MAGIC = b"%PDF-"


@dataclass(frozen=True)
class PdfLimits:
    seconds: int = 60
    memory_mb: int = 1024
    max_pages: int = 2000
    max_chars: int = 5_000_000
    max_bytes: int = 200_000_000  # a PDF file larger than this is refused before it is read


def read_document(path: str | Path, limits: PdfLimits = PdfLimits()) -> tuple[Page, ...]:
    """Pages of a .txt or .pdf file, or IngestError naming the file and the reason."""
    path = Path(path)
    if path.is_dir():
        raise IngestError(str(path), "is a folder, not a document; name the .txt or .pdf files in it")
    if not path.is_file():
        raise IngestError(str(path), "no such file" if not path.exists() else "not a regular file")
    head = _head(path)
    suffix = path.suffix.lower()
    if suffix == ".pdf" or head.startswith(PDF_MAGIC):
        return read_pdf(path, limits)
    if suffix in (".txt", ".text", ""):
        return read_text(path, limits.max_chars)
    raise IngestError(str(path), f"unsupported file type {suffix!r} (expected .txt or .pdf)")


def read_text(path: Path, max_chars: int = PdfLimits.max_chars) -> tuple[Page, ...]:
    """Pages of a UTF-8 text file of at most ``max_chars`` characters (the cap PDFs have): a larger
    file is refused by its size before it is read, when it cannot hold fewer characters."""
    too_long = f"text exceeds the limit of {max_chars:,} characters; split the document"
    if path.stat().st_size > 4 * max_chars + 3:  # UTF-8: at most 4 bytes a character (+ a BOM)
        raise IngestError(str(path), too_long)
    raw = path.read_bytes()
    if not raw.strip():
        raise IngestError(str(path), "file is empty")
    if b"\x00" in raw:
        raise IngestError(str(path), "not a text file (contains NUL bytes)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(str(path), f"not UTF-8 text (bad byte at offset {exc.start})") from None
    if len(text) > max_chars:
        raise IngestError(str(path), too_long)
    # A form feed is the page break that text extractors (pdftotext) write.
    parts = text.replace("\r\n", "\n").split("\f")
    return tuple(Page(number=i, text=part) for i, part in enumerate(parts, start=1))


def read_pdf(path: Path, limits: PdfLimits = PdfLimits()) -> tuple[Page, ...]:
    if path.stat().st_size == 0:
        raise IngestError(str(path), "file is empty")
    if not _head(path).startswith(PDF_MAGIC):
        raise IngestError(str(path), "not a PDF (no %PDF- header)")
    command = [
        sys.executable, "-m", "ingest.pdf_worker", str(path),
        "--memory-mb", str(limits.memory_mb),
        "--cpu-seconds", str(limits.seconds),
        "--max-pages", str(limits.max_pages),
        "--max-chars", str(limits.max_chars),
    ]
    try:
        done = subprocess.run(
            command, capture_output=True, timeout=limits.seconds + 5,
            cwd=str(Path(__file__).resolve().parent.parent),
        )
    except subprocess.TimeoutExpired:
        raise IngestError(str(path), f"PDF reading took longer than {limits.seconds} s; gave up") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        message = reason[-1] if reason else ""
        if done.returncode < 0 or not message:
            message = f"PDF reader stopped (exit {done.returncode}; memory or time limit?)"
        raise IngestError(str(path), message)
    pages = tuple(Page(number=n, text=t) for n, t in json.loads(done.stdout))
    if not any(page.text.strip() for page in pages):
        raise IngestError(str(path), "PDF has no extractable text (scanned image?)")
    return pages


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(1024).lstrip()
