"""The derived-records file beside the index (assistant/derived.py): kept only while the index
manifest vouches for it under this corpus and code, never trusted when damaged or forged, never a
pickle, never written outside an index folder, and vouched for only by a key kept outside it (issue 45)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from assistant import derived
from index.caches import cache_entry, signed
from ingest.tables.types import Cell, EffectiveCell, Footnote
from ingest.types import Section


@pytest.fixture(autouse=True)
def _key_outside(tmp_path, monkeypatch):
    """Each test's own key, outside its index folder (never the checkout's var/keys)."""
    import settings

    monkeypatch.setattr(settings, "cache_key_file", lambda: tmp_path / "keys" / "cache.key")


def _corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("17.44.050 Height. Ten feet.\n", encoding="utf-8")
    return folder


def _index(tmp_path: Path) -> Path:
    folder = tmp_path / "index"
    folder.mkdir()
    (folder / derived.MANIFEST).write_text('{"format_version": 1}', encoding="utf-8")
    return folder


SECTION = Section("17.44.050", "Height", "17.44", "000", "2023-11-06", "Ten feet.", 0, 9, (1, 2),
                  source_lines=((1, 1),))
CELL = EffectiveCell(Cell("2-2", "17.22.020", "", "Bar, tavern", "CE", "UP", "000", "2023-11-06",
                          footnotes=(Footnote("3", "See Section 17.42.165."),)))
RECORDS = derived.Derived(sections=(SECTION,), cells=(CELL,), provisions=(), idf={"feet": 1.5, "ten": 0.25},
                          printed=None)


def _forge(index: Path, old: str, new: str) -> None:
    """Edit the stored text, as someone who can write the index folder would (there is no header
    checksum in the file to recompute: the manifest holds it)."""
    path = index / derived.CACHE_FILE
    path.write_bytes(path.read_bytes().replace(old.encode(), new.encode()))


def test_round_trip_under_the_same_key(tmp_path):
    index, key = _index(tmp_path), derived.source_key(_corpus(tmp_path))
    assert derived.save(index, key, RECORDS)
    assert derived.load(index, key) == RECORDS
    assert cache_entry(index, derived.CACHE_FILE)["sha256"] == hashlib.sha256(
        (index / derived.CACHE_FILE).read_bytes()).hexdigest()
    assert json.loads((index / derived.MANIFEST).read_text())["format_version"] == 1  # the rest of the manifest kept


def test_the_file_is_json_and_names_only_record_classes(tmp_path):
    index = _index(tmp_path)
    derived.save(index, "k", RECORDS)
    body = json.loads((index / derived.CACHE_FILE).read_bytes())
    assert body["format"] == derived.FORMAT and body["key"] == "k"
    assert body["records"]["@"] == "Derived"


def test_an_edited_document_changes_the_key(tmp_path):
    corpus = _corpus(tmp_path)
    before = derived.source_key(corpus)
    (corpus / "a.txt").write_text("17.44.050 Height. Twelve feet.\n", encoding="utf-8")
    assert derived.source_key(corpus) != before


def test_the_key_does_not_depend_on_where_the_corpus_is(tmp_path):
    # a clone elsewhere (or the shipped prebuilt index) derives the same records
    first = _corpus(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    second = _corpus(tmp_path / "elsewhere")
    assert derived.source_key(first) == derived.source_key(second)


def test_another_key_or_a_damaged_file_is_not_used(tmp_path):
    index = _index(tmp_path)
    derived.save(index, "k1", RECORDS)
    assert derived.load(index, "k2") is None
    data = (index / derived.CACHE_FILE).read_bytes()
    (index / derived.CACHE_FILE).write_bytes(data[:-5] + b"xxxxx")  # a flipped tail: checksum fails
    assert derived.load(index, "k1") is None


def test_a_forged_cell_is_not_served_and_the_records_are_derived_again(tmp_path, monkeypatch):
    # issue 37 item 3: one cell changed in the file (and anything inside it recomputed) while the
    # corpus and the lock check clean; the manifest's sha256 no longer matches, so it is derived again
    index, corpus = _index(tmp_path), _corpus(tmp_path)
    calls = []
    monkeypatch.setattr(derived, "derive", lambda folder: calls.append(folder) or RECORDS)
    derived.load_or_derive(corpus, index)
    _forge(index, '"CE","UP"', '"CE","P"')
    body = json.loads((index / derived.CACHE_FILE).read_bytes())
    assert body["records"]["f"][1][0]["f"][0]["f"][5] == "P"  # the forged value is in the file, well formed
    found = derived.load_or_derive(corpus, index)
    assert found.cells[0].cell.value == "UP" and len(calls) == 2
    assert derived.load(index, derived.source_key(corpus)) == RECORDS  # rewritten, vouched for again


def test_a_file_the_manifest_does_not_vouch_for_is_not_read(tmp_path):
    index = _index(tmp_path)
    derived.save(index, "k", RECORDS)
    (index / derived.MANIFEST).write_text('{"format_version": 1}', encoding="utf-8")  # entry gone
    assert derived.load(index, "k") is None


def test_an_entry_for_another_corpus_lock_or_code_is_not_used(tmp_path):
    index = _index(tmp_path)
    want = {"key": "k", "lock": "a" * 64, "code": "c1", "version": derived.VERSION}
    derived.save(index, "k", RECORDS, want)
    assert derived.load(index, "k", want) == RECORDS
    assert derived.load(index, "k", {**want, "lock": "b" * 64}) is None
    assert derived.load(index, "k", {**want, "code": "c2"}) is None


@pytest.mark.parametrize("record", ['{"@":"os.system","f":["touch x"]}', '{"@":"Footnote","f":["3"]}',
                                    '{"@":"Footnote","f":["3","t","cell"],"x":1}', '{"@fs":"abc"}',
                                    '{"@d":[["k"]]}'])
def test_a_vouched_file_with_unknown_or_ill_fitting_records_is_derived_again(tmp_path, record):
    # even a file the manifest vouches for builds nothing but the listed record classes, field by field
    index = _index(tmp_path)
    derived.save(index, "k", RECORDS)
    _forge(index, '{"@":"Footnote","f":["3","See Section 17.42.165.","cell"]}', record)
    data = (index / derived.CACHE_FILE).read_bytes()
    entry = cache_entry(index, derived.CACHE_FILE)
    from index.caches import record_cache

    # signed with the key itself: what the format refuses, whoever vouches for the file
    record_cache(index, derived.CACHE_FILE, signed({**entry, "sha256": hashlib.sha256(data).hexdigest()}))
    assert derived.load(index, "k") is None


def test_a_cell_forged_with_the_manifest_beside_it_is_not_served(tmp_path, monkeypatch):
    """Issue 45 item 4: change a cell in derived.json and put the new sha256 into the index manifest (same
    folder): the HMAC under the key outside the folder no longer verifies, and the records are derived again."""
    from index.caches import record_cache

    index, corpus = _index(tmp_path), _corpus(tmp_path)
    calls = []
    monkeypatch.setattr(derived, "derive", lambda folder: calls.append(folder) or RECORDS)
    derived.load_or_derive(corpus, index)
    _forge(index, '"CE","UP"', '"CE","P"')
    entry = cache_entry(index, derived.CACHE_FILE)
    forged = {**entry, "sha256": hashlib.sha256((index / derived.CACHE_FILE).read_bytes()).hexdigest()}
    record_cache(index, derived.CACHE_FILE, forged)  # the mac kept: it was made over the old sha256
    assert derived.load(index, derived.source_key(corpus)) is None
    record_cache(index, derived.CACHE_FILE, {k: v for k, v in forged.items() if k != "mac"})  # or dropped
    assert derived.load(index, derived.source_key(corpus)) is None
    found = derived.load_or_derive(corpus, index)
    assert found.cells[0].cell.value == "UP" and len(calls) == 2
    assert derived.load(index, derived.source_key(corpus)) == RECORDS  # rewritten, vouched for again


def test_the_key_is_outside_the_index_folder_and_owner_only(tmp_path):
    import settings

    index = _index(tmp_path)
    assert derived.save(index, "k", RECORDS)
    key = Path(settings.cache_key_file())
    assert index not in key.parents and key.stat().st_mode & 0o777 == 0o600
    assert key.parent.stat().st_mode & 0o777 == 0o700
    assert key.read_bytes() not in (index / derived.MANIFEST).read_bytes()


def test_a_key_others_can_read_vouches_for_nothing_and_no_key_derives_every_time(tmp_path, monkeypatch):
    import settings

    index = _index(tmp_path)
    assert derived.save(index, "k", RECORDS) and derived.load(index, "k") == RECORDS
    key = Path(settings.cache_key_file())
    key.chmod(0o644)
    assert derived.load(index, "k") is None
    monkeypatch.setattr(settings, "cache_key_file", lambda: Path("/proc/no-such-folder/cache.key"))
    assert derived.load(index, "k") is None and not derived.save(index, "k", RECORDS)


MARKER = ""


def test_an_old_pickle_is_never_read_and_is_removed(tmp_path, monkeypatch):
    global MARKER
    index, corpus = _index(tmp_path), _corpus(tmp_path)
    MARKER = str(tmp_path / "the-pickle-ran")
    # a protocol-0 pickle that, if it were ever loaded, would call os.mkdir(MARKER)
    payload = b"cos\nmkdir\n(V" + MARKER.encode() + b"\ntR."
    header = json.dumps({"key": derived.source_key(corpus), "sha256": hashlib.sha256(payload).hexdigest()}).encode()
    (index / "derived.pickle").write_bytes(header + b"\n" + payload)  # the old format, self-vouched
    monkeypatch.setattr(derived, "derive", lambda folder: RECORDS)
    assert derived.load_or_derive(corpus, index) == RECORDS
    assert not (tmp_path / "the-pickle-ran").exists()
    assert not (index / "derived.pickle").exists() and (index / derived.CACHE_FILE).is_file()


def test_the_module_does_not_use_pickle():
    source = Path(derived.__file__).read_text(encoding="utf-8")
    assert "import pickle" not in source and "pickle.load" not in source


def test_no_pickle_anywhere_in_the_project():
    """Issue 45: no module, tool or test of the project imports pickle (eval/cross_reader.py --cases did)."""
    import subprocess

    repo = Path(__file__).resolve().parent.parent
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=repo, capture_output=True, text=True, check=True).stdout.split()
    import re

    used = re.compile(r"^\s*(?:import|from)\s+(?:c?pickle|dill|shelve)\b|\bpickle\.(?:loads?|dumps?|Unpickler)\(", re.M)
    assert [f for f in files if used.search((repo / f).read_text(encoding="utf-8"))] == []


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


def test_a_read_only_index_folder_only_means_deriving(tmp_path, monkeypatch):
    index, corpus = _index(tmp_path), _corpus(tmp_path)
    import errno
    import os

    monkeypatch.setattr(derived, "derive", lambda folder: RECORDS)

    def refuse(*args):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "replace", refuse)  # (chmod does not stop root, who runs CI here)
    assert derived.load_or_derive(corpus, index) == RECORDS
    assert derived.load(index, derived.source_key(corpus)) is None


def test_the_key_covers_the_assistant_code_the_idf_comes_from():
    # a file missing from ASSISTANT_SOURCES would leave an edit of the IDF's code unnoticed
    here = Path(derived.__file__).resolve().parent
    assert all((here / name).is_file() for name in derived.ASSISTANT_SOURCES)


def test_the_real_records_round_trip_exactly(tmp_path):
    # every class the corpus's records hold is one the format rebuilds, with tuples, sets and the
    # IDF's order kept (dataclass equality tells a tuple from a list)
    from corpus_copy import CORPUS

    records = derived.derive(CORPUS)
    back = derived.from_bytes(derived.to_bytes("k", records), "k")
    assert back == records and list(back.idf) == list(records.idf)
    assert type(back.printed.districts) is frozenset and type(back.sections[0].pages) is tuple


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
