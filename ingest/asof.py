"""The law as of a date: which corpus documents were in force on an ISO date.

A document is in force from its manifest date. A document whose status says it is proposed
(000: dated by its Planning Commission hearing, no adoption date in its text) is still applied
from that date, and marked as proposed wherever the in-force list is shown.
"""

from __future__ import annotations

import datetime as _dt
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from .types import DocumentInfo

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def check_date(text: str, what: str = "date") -> str:
    """``text`` when it is an ISO date (YYYY-MM-DD); else ValueError with one line naming it."""
    value = (text or "").strip()
    if not ISO_DATE.match(value):
        raise ValueError(f"{what} {text!r}: not a date (YYYY-MM-DD)")
    try:
        _dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{what} {text!r}: no such day") from None
    return value



def as_of_option(args) -> bool:
    """A CLI's ``--as-of`` (``args.as_of``) checked and normalised in place; False after printing its
    one-line error to stderr (the command then exits 2)."""
    if not args.as_of:
        return True
    try:
        args.as_of = check_date(args.as_of, "--as-of")
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return False
    return True

@dataclass(frozen=True)
class InForce:
    id: str
    date: str
    label: str
    proposed: bool  # the manifest calls it proposed: no adoption date
    date_basis: str = ""


def is_proposed(document: DocumentInfo) -> bool:
    return "proposed" in document.status.lower()


def documents_in_force(documents: Iterable[DocumentInfo], as_of: str) -> tuple[list[InForce], list[InForce]]:
    """(in force on ``as_of``, dated after it), oldest first. Undated documents count as later."""
    now: list[InForce] = []
    later: list[InForce] = []
    for document in sorted(documents, key=lambda d: (d.date, d.id)):
        entry = InForce(document.id, document.date, document.short_title or document.title,
                        is_proposed(document), document.date_basis)
        (now if document.date and document.date <= as_of else later).append(entry)
    return now, later


def in_force_line(documents: Iterable[DocumentInfo], as_of: str) -> str:
    """One line for an answer: the documents in force on ``as_of`` and those not yet."""
    now, later = documents_in_force(documents, as_of)
    if not now:
        return f"As of {as_of}: no document of this corpus is dated on or before that day."
    parts = [f"{d.id} {d.label} ({d.date}{'; proposed, no adoption date' if d.proposed else ''})" for d in now]
    line = f"As of {as_of}, in force: " + "; ".join(parts) + "."
    if later:
        line += " Not yet: " + ", ".join(f"{d.id} ({d.date or 'undated'})" for d in later) + "."
    return line


def in_force_json(documents: Iterable[DocumentInfo], as_of: str) -> dict:
    now, later = documents_in_force(documents, as_of)
    return {
        "date": as_of,
        "documents": [{"id": d.id, "date": d.date, "title": d.label, "proposed": d.proposed,
                       "date_basis": d.date_basis} for d in now],
        "ignored": [{"id": d.id, "date": d.date, "title": d.label} for d in later],
    }
