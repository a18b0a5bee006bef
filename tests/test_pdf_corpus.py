"""A PDF made at test time from a corpus document ingests to the same sections, with page numbers."""

from __future__ import annotations

from ingest import ingest_paths
from ingest.manifest import default_corpus_dir, load_manifest
from pdf_fixtures import write_text_pdf


def test_pdf_of_corpus_document_gives_same_section_ids_with_pages(tmp_path, corpus_result):
    document = next(doc for doc in load_manifest(default_corpus_dir()) if doc.id == "000")
    text = open(document.path, encoding="utf-8").read()
    # Named like the corpus file, so the manifest gives it the same id and date.
    pdf = write_text_pdf(tmp_path / (document.path.rsplit("/", 1)[1].rsplit(".", 1)[0] + ".pdf"), text)
    result = ingest_paths([pdf])
    assert result.errors == ()
    from_pdf = [s.id for s in result.sections]
    from_text = [s.id for s in corpus_result.sections if s.document == "000"]
    assert from_pdf == from_text
    pages = {s.id: s.pages for s in result.sections}
    assert pages["000:PREAMBLE"][0] == 1
    assert pages["17.44.080"][-1] > 10  # the chapter sits at the end of a long document
    assert all(pages[a][0] <= pages[b][0] for a, b in zip(from_pdf, from_pdf[1:]))
    titles_pdf = {s.id: s.title for s in result.sections if s.kind == "code"}
    titles_text = {s.id: s.title for s in corpus_result.sections if s.document == "000" and s.kind == "code"}
    assert titles_pdf == titles_text
