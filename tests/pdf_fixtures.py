"""Small PDFs made at test time with fpdf2 (hermetic: nothing downloaded, nothing checked in)."""

from __future__ import annotations

from pathlib import Path

# Core PDF fonts are Latin-1: map the few typographic characters the corpus uses.
LATIN1_FALLBACKS = {"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "•": "-", "…": "..."}


def latin1(text: str) -> str:
    for wide, narrow in LATIN1_FALLBACKS.items():
        text = text.replace(wide, narrow)
    return text.encode("latin-1", "replace").decode("latin-1")


def write_text_pdf(path: Path, text: str, *, user_password: str | None = None) -> Path:
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    pdf.set_auto_page_break(auto=True, margin=15)
    if user_password:
        pdf.set_encryption(owner_password="owner", user_password=user_password)
    pdf.add_page()
    pdf.set_font("Helvetica", size=9)
    for line in text.split("\n"):
        pdf.multi_cell(0, 4.5, latin1(line), new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path


def write_drawing_pdf(path: Path) -> Path:
    """A PDF with a page but no text at all, like a scanned image."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 60)
    pdf.output(str(path))
    return path
