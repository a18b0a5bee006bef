"""Issue 26 item 3: a damaged sentences.npz / provisions.npz beside the index (a BadZipFile once broke
every passage question) is rebuilt by its reader, and `index build` never copies it into the new
index. Hermetic: caches written under tmp_path with a fake encoder."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.sentences import load_or_build
from index.caches import cache_intact
from index.onnx_encoder import VectorCache
from index.store import _carry_caches

SENTENCES = ["Fences may not exceed six feet.", "A use permit is required.", "Parking is one space per unit."]


def _encode(texts):
    return np.array([[len(t), i + 1.0, 1.0] for i, t in enumerate(texts)], dtype="float32")


def _good(folder, name="sentences.npz"):
    load_or_build(folder, "fake", SENTENCES, _encode, cache_name=name)
    return folder / name


def _truncate(path):
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


def _flip(path):  # one byte of the vectors changed: the zip's CRC no longer matches
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0xFF
    path.write_bytes(bytes(data))


def _garbage(path):
    path.write_bytes(b"PK\x03\x04 not really a zip" * 10)


DAMAGE = {"truncated": _truncate, "flipped byte": _flip, "garbage": _garbage}


@pytest.mark.parametrize("name", ["sentences.npz", "provisions.npz"])
@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_cache_is_rebuilt_not_a_failed_answer(name, damage, tmp_path):
    path = _good(tmp_path, name)
    DAMAGE[damage](path)
    vectors = load_or_build(tmp_path, "fake", SENTENCES, _encode, cache_name=name)  # once: BadZipFile
    assert set(vectors.row) == set(SENTENCES)
    assert cache_intact(path)  # written again, whole


@pytest.mark.parametrize("damage", DAMAGE)
def test_index_build_never_carries_a_damaged_cache_forward(damage, tmp_path):
    previous, new = tmp_path / "old", tmp_path / "new"
    previous.mkdir(), new.mkdir()
    _good(previous, "sentences.npz")
    DAMAGE[damage](_good(previous, "provisions.npz"))
    assert not cache_intact(previous / "provisions.npz")
    _carry_caches(previous, new)
    assert sorted(p.name for p in new.iterdir()) == ["sentences.npz"]


def test_the_query_vector_cache_survives_damage(tmp_path):
    path = tmp_path / "query_vectors.npz"
    cache = VectorCache(path, "k")
    cache.add(["a"], np.ones((1, 3), dtype="float32"))
    _truncate(path)
    assert VectorCache(path, "k").get(["a"]) == {}


def test_index_build_never_carries_a_pickle_forward(tmp_path):
    # issue 37 item 3: an older version's derived.pickle is never read, so never kept either
    previous, new = tmp_path / "old", tmp_path / "new"
    previous.mkdir(), new.mkdir()
    (previous / "derived.pickle").write_bytes(b'{"key": "k"}\n\x80\x05N.')
    _good(previous, "sentences.npz")
    assert _carry_caches(previous, new) == {}
    assert sorted(p.name for p in new.iterdir()) == ["sentences.npz"]


def test_a_rebuilt_index_keeps_the_manifest_entry_of_a_cache_it_carries(tmp_path):
    # the manifest vouches for derived.json; a rebuild copies the file and the entry together, and
    # drops the entry of a file that changed since it was recorded
    import json

    from assistant import derived
    from conftest_index import corpus, open_fake
    from index.caches import cache_entry

    folder = tmp_path / "index"
    open_fake(folder)
    records = derived.Derived(sections=(), cells=(), provisions=(), idf={"a": 1.0})
    assert derived.save(folder, "k", records)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["key"] = "stale"  # any reason to rebuild
    (folder / "manifest.json").write_text(json.dumps(manifest))
    open_fake(folder, corpus=corpus())
    assert json.loads((folder / "manifest.json").read_text())["key"] != "stale"
    assert derived.load(folder, "k") == records and cache_entry(folder, derived.CACHE_FILE)

    (folder / derived.CACHE_FILE).write_bytes(b"{}")  # changed after it was recorded
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["key"] = "stale"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    open_fake(folder, corpus=corpus())
    assert cache_entry(folder, derived.CACHE_FILE) is None and derived.load(folder, "k") is None
