"""The derived-records file beside the index (assistant/derived.py): kept only while it matches the
corpus and ingest code, never trusted when damaged, never written outside an index folder."""

from __future__ import annotations

from pathlib import Path

from assistant import derived


def _corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("17.44.050 Height. Ten feet.\n", encoding="utf-8")
    return folder


def _index(tmp_path: Path) -> Path:
    folder = tmp_path / "index"
    folder.mkdir()
    (folder / derived.MANIFEST).write_text("{}", encoding="utf-8")
    return folder


RECORDS = derived.Derived(sections=("s",), cells=("c",), provisions=("p",))


def test_round_trip_under_the_same_key(tmp_path):
    index, key = _index(tmp_path), derived.source_key(_corpus(tmp_path))
    derived.save(index, key, RECORDS)
    assert derived.load(index, key) == RECORDS


def test_an_edited_document_changes_the_key(tmp_path):
    corpus = _corpus(tmp_path)
    before = derived.source_key(corpus)
    (corpus / "a.txt").write_text("17.44.050 Height. Twelve feet.\n", encoding="utf-8")
    assert derived.source_key(corpus) != before


def test_another_key_or_a_damaged_file_is_not_used(tmp_path):
    index = _index(tmp_path)
    derived.save(index, "k1", RECORDS)
    assert derived.load(index, "k2") is None
    data = (index / derived.CACHE_FILE).read_bytes()
    (index / derived.CACHE_FILE).write_bytes(data[:-5] + b"xxxxx")  # a flipped tail: checksum fails
    assert derived.load(index, "k1") is None


def test_nothing_is_written_where_there_is_no_index(tmp_path):
    folder = tmp_path / "not-an-index"
    folder.mkdir()
    derived.save(folder, "k", RECORDS)
    assert not (folder / derived.CACHE_FILE).exists()


def test_load_or_derive_derives_once_then_reads(tmp_path, monkeypatch):
    index, corpus = _index(tmp_path), _corpus(tmp_path)
    calls = []
    monkeypatch.setattr(derived, "derive", lambda folder: calls.append(folder) or RECORDS)
    assert derived.load_or_derive(corpus, index) == RECORDS
    assert derived.load_or_derive(corpus, index) == RECORDS
    assert calls == [corpus]


def test_the_key_covers_the_assistant_code_the_idf_comes_from():
    # a file missing from ASSISTANT_SOURCES would leave an edit of the IDF's code unnoticed
    here = Path(derived.__file__).resolve().parent
    assert all((here / name).is_file() for name in derived.ASSISTANT_SOURCES)


def test_derived_idf_graph_and_names_are_what_the_corpus_computes():
    from ingest import load_manifest

    from assistant.resources import Corpus
    from assistant.vocab import load_vocabulary
    from corpus_copy import CORPUS

    records = derived.derive(CORPUS)
    documents = load_manifest(CORPUS)
    computed = Corpus(records.sections, documents, load_vocabulary())
    assert records.idf == computed.idf and list(records.idf) == list(computed.idf)
    assert records.references == computed.references() and records.references.missing()
    given = Corpus(records.sections, documents, load_vocabulary(), None, records.idf, records.references)
    assert given.idf is records.idf and given.references() is records.references
    from assistant.absent import printed

    vocabulary = load_vocabulary()
    kept = printed(records.sections, vocabulary, records.printed)
    assert kept == printed(records.sections, vocabulary) and kept.tables and kept.districts
