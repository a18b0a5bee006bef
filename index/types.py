"""Typed records at the index boundary: what the chunker produces and what a search returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

# progress(stage, done, total): the CLI draws a bar with it; library callers may pass None.
Progress = Callable[[str, int, int], None]

MODES = ("hybrid", "bm25", "dense")


class QueryError(ValueError):
    """A query cannot be searched; the message quotes (a prefix of) the query and says why."""

    def __init__(self, query: object, reason: str):
        shown = repr(query if not isinstance(query, str) or len(query) <= 40 else query[:40] + "...")
        super().__init__(f"query {shown}: {reason}")
        self.query = query
        self.reason = reason


class IndexStoreError(Exception):
    """An index directory is missing, stale or damaged and was not (re)built; names the directory."""

    def __init__(self, path: object, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


class IndexBuildError(Exception):
    """Building an index failed; names the directory or the input that failed."""


class EncoderError(Exception):
    """The embedding model could not be found or loaded; names the model setting."""

    def __init__(self, model: object, reason: str):
        super().__init__(f"embedding model {model!r}: {reason}")
        self.model = model
        self.reason = reason


@dataclass(frozen=True)
class TableRowText:
    """A table row rendered as text, indexed beside the sections so a query about a use finds its table.

    Only ``section``, ``document`` and ``text`` are required; the rest is filled from the section
    of the same (section, document) when it is known.
    """

    section: str
    document: str
    text: str
    table: str = ""  # table number, e.g. "2-4"
    title: str = ""
    date: str = ""
    pages: tuple[int, ...] = ()


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage: a whole section, part of a long section, or one table row."""

    id: str  # "002/17.44.050/p01", "002/17.22.020/r007": unique, sorts parts in order
    section: str
    document: str
    title: str
    chapter: str
    date: str
    pages: tuple[int, ...]
    heading: str  # "17.44.050 Title": repeated on every part so each part says where it is from
    text: str  # the passage itself, without the heading
    part: int = 1  # 1-based; rows count separately from passages
    parts: int = 1
    kind: str = "section"  # "section" | "table_row"
    tables: tuple[str, ...] = ()  # table numbers captioned in (or, for a row, owning) this chunk
    excerpt: bool = False

    @property
    def embed_text(self) -> str:
        """What is embedded and BM25-tokenised: heading and passage together."""
        return f"{self.heading}\n{self.text}" if self.heading else self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "section": self.section,
            "document": self.document,
            "title": self.title,
            "chapter": self.chapter,
            "date": self.date,
            "pages": list(self.pages),
            "heading": self.heading,
            "text": self.text,
            "part": self.part,
            "parts": self.parts,
            "kind": self.kind,
            "tables": list(self.tables),
            "excerpt": self.excerpt,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Chunk":
        return cls(
            id=d["id"],
            section=d["section"],
            document=d["document"],
            title=d["title"],
            chapter=d["chapter"],
            date=d["date"],
            pages=tuple(int(p) for p in d["pages"]),
            heading=d["heading"],
            text=d["text"],
            part=int(d["part"]),
            parts=int(d["parts"]),
            kind=d["kind"],
            tables=tuple(d["tables"]),
            excerpt=bool(d["excerpt"]),
        )


@dataclass(frozen=True)
class Hit:
    """One ranked search result.

    ``score`` depends on the mode: the reciprocal-rank-fusion score for ``hybrid``, the BM25 score
    for ``bm25``, the cosine similarity for ``dense``. The component ranks and scores (None when a
    list did not return the chunk) let a caller judge how well supported a hit is.
    """

    rank: int  # 1-based
    score: float
    chunk: Chunk
    mode: str
    bm25_rank: int | None = None
    bm25_score: float | None = None
    dense_rank: int | None = None
    dense_score: float | None = None
    direct: bool = False  # promoted because the query names its section or table number

    @property
    def section(self) -> str:
        return self.chunk.section

    @property
    def document(self) -> str:
        return self.chunk.document

    @property
    def text(self) -> str:
        return self.chunk.text

    @property
    def title(self) -> str:
        return self.chunk.title

    @property
    def pages(self) -> tuple[int, ...]:
        return self.chunk.pages

    def to_dict(self) -> dict[str, Any]:
        c = self.chunk
        return {
            "rank": self.rank,
            "section": c.section,
            "document": c.document,
            "score": round(self.score, 6),
            "text": c.text,
            "title": c.title,
            "date": c.date,
            "pages": list(c.pages),
            "chunk": c.id,
            "part": c.part,
            "parts": c.parts,
            "kind": c.kind,
            "tables": list(c.tables),
            "mode": self.mode,
            "direct": self.direct,
            "bm25_rank": self.bm25_rank,
            "bm25_score": None if self.bm25_score is None else round(self.bm25_score, 6),
            "dense_rank": self.dense_rank,
            "dense_score": None if self.dense_score is None else round(self.dense_score, 6),
        }


@dataclass(frozen=True)
class CorpusInput:
    """What an index is built from: sections (``ingest.types.Section``) and optional table rows."""

    sections: tuple[Any, ...]
    table_rows: tuple[TableRowText, ...] = field(default_factory=tuple)
