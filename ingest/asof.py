"""The law as of a date: which corpus documents were in force on an ISO date.

A document is in force from its manifest ``date``: the day it takes effect (thirty days after its
adoption where its text says so; where no adoption date is known, the earliest day it could take
effect, and its ``date_basis`` says so). A document that takes effect after the day asked is
pending ("introduced ..., takes effect ..."), never that day's law; "today" is the calendar day
(``today()``). A document whose status says it is proposed (000: no adoption date in its text) is
applied from its earliest effective day, and marked as proposed wherever the in-force list is shown.
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

def today() -> str:
    """The calendar day "today's law" is the law of (ISO date)."""
    return _dt.date.today().isoformat()


def pending(documents: Iterable[DocumentInfo], day: str | None = None) -> list[DocumentInfo]:
    """The documents that take effect after ``day`` (default today): not yet law on it."""
    day = day or today()
    return [d for d in documents if not d.date or d.date > day]


@dataclass(frozen=True)
class InForce:
    id: str
    date: str  # the day it takes effect
    label: str
    proposed: bool  # the manifest calls it proposed: no adoption date
    date_basis: str = ""
    introduced: str = ""
    adopted: str = ""
    earliest: bool = False  # no adoption date is known: ``date`` is the earliest day it could take effect


def is_proposed(document: DocumentInfo) -> bool:
    return "proposed" in document.status.lower()


def effective_words(document) -> str:
    """"adopted 2026-01-13, in effect from 2026-02-12" / "introduced 2026-08-11, takes effect 2026-09-10 at the
    earliest": a document's dates as an answer says them (``document``: DocumentInfo or InForce)."""
    parts = []
    if document.adopted:
        parts.append(f"adopted {document.adopted}")
    elif document.introduced:
        parts.append(f"introduced {document.introduced}, no adoption date known")
    when = f"effective {document.date}" + (" at the earliest" if _earliest(document) else "")
    return ", ".join([*parts, when])


def _earliest(document) -> bool:
    return "at the earliest" in (document.date_basis or "")


def documents_in_force(documents: Iterable[DocumentInfo], as_of: str) -> tuple[list[InForce], list[InForce]]:
    """(in force on ``as_of``, dated after it), oldest first. Undated documents count as later."""
    now: list[InForce] = []
    later: list[InForce] = []
    for document in sorted(documents, key=lambda d: (d.date, d.id)):
        entry = InForce(document.id, document.date, document.short_title or document.title,
                        is_proposed(document), document.date_basis, document.introduced, document.adopted,
                        _earliest(document))
        (now if document.date and document.date <= as_of else later).append(entry)
    return now, later


def in_force_line(documents: Iterable[DocumentInfo], as_of: str) -> str:
    """One line for an answer: the documents in force on ``as_of`` and those not yet."""
    now, later = documents_in_force(documents, as_of)
    if not now:
        return f"As of {as_of}: no document of this corpus is dated on or before that day."
    parts = [f"{d.id} {d.label} ({effective_words(d)}{'; proposed, no adoption date' if d.proposed else ''})"
             for d in now]
    line = f"As of {as_of}, in force: " + "; ".join(parts) + "."
    if later:
        line += " Not yet: " + ", ".join(f"{d.id} (pending: {effective_words(d)})" if d.date else f"{d.id} (undated)"
                                         for d in later) + "."
    return line


def in_force_json(documents: Iterable[DocumentInfo], as_of: str) -> dict:
    now, later = documents_in_force(documents, as_of)
    return {
        "date": as_of,
        "documents": [{"id": d.id, "date": d.date, "title": d.label, "proposed": d.proposed,
                       "date_basis": d.date_basis, "introduced": d.introduced, "adopted": d.adopted,
                       "effective": d.date} for d in now],
        "ignored": [{"id": d.id, "date": d.date, "title": d.label, "pending": True, "introduced": d.introduced,
                     "adopted": d.adopted, "effective": d.date, "date_basis": d.date_basis} for d in later],
    }
