"""Typed records at the ingest boundary: what readers, cleaning and sectioning hand on."""

from __future__ import annotations

from dataclasses import dataclass, field


class IngestError(Exception):
    """A document could not be read; the message names the file and the reason."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class DocumentInfo:
    """One corpus document as the manifest describes it."""

    id: str
    path: str
    title: str
    kind: str  # "ordinance" | "codified chapter"
    date: str  # ISO date it takes effect (in force from): orders documents in time, decides "as of"
    status: str = ""
    source: str = ""
    short_title: str = ""
    chapter: str = ""  # for a codified chapter, e.g. "17.20"
    date_basis: str = ""  # why it takes effect on ``date`` (adoption + 30 days, the earliest it could, a download)
    sha256: str = ""  # the file's checksum as the manifest records it ("" when not recorded)
    introduced: str = ""  # ISO date of its council introduction, when its text (or the code) gives one
    adopted: str = ""  # ISO date of its adoption, when known; "" when no adoption date is known


@dataclass(frozen=True)
class Page:
    """Text of one page as read from the file (a .txt file is one page unless it holds form feeds)."""

    number: int  # 1-based
    text: str


@dataclass(frozen=True)
class Line:
    """A cleaned line of a document, remembering the page it came from."""

    page: int
    text: str
    heads: tuple[str, ...] = ()  # running-head section numbers printed at this page break
    page_break: bool = False  # a marker where page furniture was removed; text is empty
    number: int = 0  # 1-based line of the source text this line starts on (0: not known)
    last: int = 0  # the source line it ends on (a paragraph re-joined across a page break ends later)


@dataclass(frozen=True)
class Section:
    """A code section (``17.44.050``) or an ordinance section (``002:SECTION-17``) of one document."""

    id: str
    title: str
    chapter: str  # "17.44"; "" for ordinance-only sections
    document: str  # manifest id
    date: str  # the document's date
    text: str
    start: int  # character offsets into the document's cleaned text
    end: int
    pages: tuple[int, ...]
    excerpt: bool = False  # the document marks the text "(excerpt)": only part of the section
    ordinance_section: str = ""  # e.g. "SECTION 10" when the text comes from an ordinance
    kind: str = "code"  # "code" | "ordinance"
    # (first, last) source line of each line of ``text`` (``text.split("\n")``); () when not known
    source_lines: tuple[tuple[int, int], ...] = ()

    @property
    def chars(self) -> int:
        return len(self.text)


@dataclass(frozen=True)
class IngestResult:
    """Sections from the files that could be read, and one error per file that could not."""

    sections: tuple[Section, ...]
    errors: tuple[IngestError, ...] = field(default_factory=tuple)
