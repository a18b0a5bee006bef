"""Shared fixtures: the bundled corpus ingested once per test session."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def corpus_result():
    from ingest import load_corpus

    return load_corpus()


@pytest.fixture(scope="session")
def corpus_sections(corpus_result):
    """{(document id, section id): Section} for the bundled corpus."""
    return {(section.document, section.id): section for section in corpus_result.sections}
