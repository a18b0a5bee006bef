"""Query hygiene and the identifiers a query names (section and table numbers)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_QUERY_CHARS = 2000  # a question, not a document: longer input is refused, not truncated

_SECTION_REF = re.compile(r"(?<![\d.])(\d{1,2}\.\d{2}\.\d{3})(?![\d])")
_TABLE_REF = re.compile(r"\btables?\s*(\d{1,2})\s?[-\u2010-\u2015\u2212]\s?(\d{1,2})(?!\d)", re.IGNORECASE)


@dataclass(frozen=True)
class Ref:
    kind: str  # "section" | "table"
    value: str  # "17.44.050" | "2-4"


def clean_query(query: str) -> str:
    """Drop control, format and unassigned characters (binary junk, NULs); collapse whitespace."""
    text = unicodedata.normalize("NFKC", query)
    kept = [
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch)[0] != "C"
    ]
    return " ".join("".join(kept).split())


def refs_in(query: str) -> tuple[Ref, ...]:
    """Section and table numbers the query names, in the order it names them."""
    found: list[tuple[int, Ref]] = []
    for m in _SECTION_REF.finditer(query):
        found.append((m.start(), Ref("section", m.group(1))))
    for m in _TABLE_REF.finditer(query):
        found.append((m.start(), Ref("table", f"{m.group(1)}-{m.group(2)}")))
    out: list[Ref] = []
    for _, ref in sorted(found, key=lambda p: p[0]):
        if ref not in out:
            out.append(ref)
    return tuple(out)
