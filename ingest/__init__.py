"""Ingestion: read ordinance and code documents (.txt, .pdf), clean extraction damage, split into sections.

Public API: ``load_corpus()`` for the bundled (or configured) corpus, ``ingest_paths()`` for any
files. Both return an ``IngestResult``: the sections of every file that could be read, oldest
document first, and one ``IngestError`` per file that could not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from .clean import build_vocabulary, first_pass, second_pass
from .manifest import default_corpus_dir, load_manifest
from .readers import PdfLimits, read_document
from .sections import ORDINANCE_PART, headings_in, split_sections
from .types import DocumentInfo, IngestError, IngestResult, Line, Page, Section

__all__ = [
    "DocumentInfo", "IngestError", "IngestResult", "Line", "Page", "Section",
    "default_corpus_dir", "ingest_documents", "ingest_paths", "load_corpus", "load_manifest",
]

TITLES_FILE = Path(__file__).resolve().parent / "data" / "section_titles.json"


def load_corpus(corpus_dir: str | Path | None = None, limits: PdfLimits = PdfLimits()) -> IngestResult:
    """Sections of every document the corpus manifest lists."""
    corpus = Path(corpus_dir) if corpus_dir else default_corpus_dir()
    return ingest_documents(load_manifest(corpus), limits)


def ingest_paths(
    paths: Sequence[str | Path], corpus_dir: str | Path | None = None, limits: PdfLimits = PdfLimits()
) -> IngestResult:
    """Sections of the given files. A file named like a manifest entry (any suffix) takes its
    id, date and kind from the manifest; any other file is an undated document named by its stem."""
    corpus = Path(corpus_dir) if corpus_dir else default_corpus_dir()
    try:
        known = {Path(doc.path).stem: doc for doc in load_manifest(corpus)}
    except IngestError:
        known = {}
    documents = [known.get(Path(path).stem) or _unlisted(Path(path)) for path in paths]
    documents = [
        DocumentInfo(**{**doc.__dict__, "path": str(path)}) for doc, path in zip(documents, paths)
    ]
    return ingest_documents(documents, limits)


def ingest_documents(documents: Sequence[DocumentInfo], limits: PdfLimits = PdfLimits()) -> IngestResult:
    read: list[tuple[DocumentInfo, list[Line]]] = []
    errors: list[IngestError] = []
    for document in documents:
        try:
            read.append((document, first_pass(read_document(document.path, limits))))
        except IngestError as error:
            errors.append(error)
    # One vocabulary for the whole corpus: a word split in one document is whole in another.
    vocabulary = build_vocabulary(line.text for _, lines in read for line in lines)
    cleaned = [(document, second_pass(lines, vocabulary)) for document, lines in read]
    titles = dict(fallback_titles())
    for _, lines in cleaned:
        titles.update(headings_in(lines))
    sections: list[Section] = []
    for document, lines in sorted(cleaned, key=lambda item: (item[0].date, item[0].id)):
        document = _with_kind(document, lines)
        found = split_sections(document, lines, titles)
        if all(section.id.endswith(":PREAMBLE") for section in found):  # no section heading anywhere
            errors.append(IngestError(document.path, "no sections found (no code section number such as 17.44.050 "
                                                     "and no ordinance SECTION heading); not a code document?"))
            continue
        sections.extend(found)
    return IngestResult(sections=tuple(sections), errors=tuple(errors))


@lru_cache(maxsize=1)
def fallback_titles() -> tuple[tuple[str, str], ...]:
    """Section titles the corpus text does not print (data file), lowest priority."""
    data = json.loads(TITLES_FILE.read_text(encoding="utf-8"))
    return tuple((key, value["title"]) for key, value in data.items() if not key.startswith("_"))


def _unlisted(path: Path) -> DocumentInfo:
    return DocumentInfo(id=path.stem, path=str(path), title=path.stem, kind="ordinance", date="")


def _with_kind(document: DocumentInfo, lines: list[Line]) -> DocumentInfo:
    """An unlisted document without ordinance parts but with running heads is codified text."""
    if document.kind != "ordinance" or any(ORDINANCE_PART.match(line.text) for line in lines):
        return document
    heads = [head for line in lines for head in line.heads]
    if not heads:
        return document
    chapter = re.sub(r"\.\d+$", "", heads[0])
    return DocumentInfo(**{**document.__dict__, "kind": "codified chapter", "chapter": chapter})
