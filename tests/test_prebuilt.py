"""The shipped prebuilt index of the bundled corpus (index/prebuilt.py, issue 36): current with the
corpus, the bank, the model and the code (else one line naming the refresh command), used only when
it is what a build would write now, its ONNX export put back together byte for byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from index import prebuilt, store

STALE = f"index/prebuilt is stale; refresh it with `{prebuilt.REFRESH}`"


def test_the_prebuilt_index_is_current():
    # fails while the corpus, the ingest code, the model or the libraries changed since the refresh
    why = prebuilt.problem()
    assert not why, f"{STALE} ({why})"


def test_its_derived_records_are_current():
    from assistant import derived
    from corpus_copy import CORPUS
    from index.caches import cache_entry

    entry = cache_entry(prebuilt.PREBUILT, derived.CACHE_FILE) or {}
    want = derived.expected(CORPUS)
    assert all(entry.get(k) == v for k, v in want.items()), f"{STALE} (derived.json: {sorted(k for k in want if entry.get(k) != want[k])})"


@pytest.mark.slow
def test_installed_it_answers_without_deriving_or_embedding_a_text_list(tmp_path, monkeypatch):
    # the bank's, the sentences' and the provisions' vectors and the derived records all come from it:
    # a stale bank or a changed assistant text shows here as the model running
    from assistant import derived, load_assistant
    from index.onnx_encoder import OnnxEncoder

    folder = tmp_path / "index"
    assert prebuilt.install(folder) == ""
    assert (folder / prebuilt.ONNX).is_file() and store.check_index(
        folder, prebuilt._settings(None), fingerprint=__import__("index.corpus", fromlist=["x"]).source_fingerprint()).ok

    def no_derive(corpus_dir):
        raise AssertionError(f"{STALE} (derived.json was derived again)")

    monkeypatch.setattr(derived, "derive", no_derive)
    built = load_assistant(index_dir=folder)
    ran = []
    monkeypatch.setattr(OnnxEncoder, "_run", lambda self, texts: ran.append(texts[0]) or np.zeros((1, 384), "float32"))
    resources = built.resources
    assert resources.question_bank() is not None
    resources.sentence_meaning("x", [])
    resources.provision_meaning("x", [])
    resources.path_meaning("x", [])
    assert resources.searcher.encoder.model_id == prebuilt._settings(None)["model"]
    then = built.then_factory("2024-06-01").resources
    then.use_searcher(lambda: resources.searcher)
    then.question_bank()
    ran = [text for text in ran if text != "x"]  # the question itself is embedded, as always
    assert not ran, f"{STALE} ({len(ran)} texts embedded, e.g. {ran[0][:60]!r})"


def test_a_damaged_or_stale_copy_is_not_used(tmp_path, monkeypatch):
    copy = tmp_path / "prebuilt"
    shutil.copytree(prebuilt.PREBUILT, copy)
    data = bytearray((copy / "query_vectors.npz").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (copy / "query_vectors.npz").write_bytes(bytes(data))
    assert "query_vectors.npz" in prebuilt.problem(folder=copy)
    assert prebuilt.install(tmp_path / "index", folder=copy) and not (tmp_path / "index").exists()

    shutil.copyfile(prebuilt.PREBUILT / "query_vectors.npz", copy / "query_vectors.npz")
    assert prebuilt.problem(folder=copy) == ""
    assert "model" in prebuilt.problem("hash:64", folder=copy)  # another model: built as before

    from corpus_copy import copy_corpus

    corpus = copy_corpus(tmp_path)
    (corpus / "SOURCE_NOTES.md").write_text("edited\n", encoding="utf-8")
    monkeypatch.setenv("COTATI_CORPUS_DIR", str(corpus))
    assert prebuilt.problem(folder=copy).startswith("stale: corpus")


def test_an_index_that_is_there_is_not_replaced(tmp_path):
    folder = tmp_path / "index"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n", encoding="utf-8")
    assert prebuilt.install(folder)  # not an index folder: left alone (the build then says so)
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


# -- the export's skeleton, on a small synthetic model --------------------------------------------
def _safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header, body, offset = {}, b"", 0
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        body += raw
        offset += len(raw)
    text = json.dumps(header).encode()
    path.write_bytes(len(text).to_bytes(8, "little") + text + body)


def _model(tmp_path: Path) -> tuple[Path, Path]:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weight, bias = rng.standard_normal((4, 3)).astype("float32"), np.ones(3, dtype="float32")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"]), helper.make_node("Add", ["y", "b"], ["z"])], "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 3])],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")])
    onnx_path = tmp_path / "tiny.onnx"
    onnx.save(helper.make_model(graph), str(onnx_path))
    weights = tmp_path / "model.safetensors"
    _safetensors(weights, {"layer.weight": weight.T.copy(), "layer.bias": bias})  # stored transposed, as torch's Linear
    return onnx_path, weights


def test_the_skeleton_gives_back_the_export_byte_for_byte(tmp_path):
    onnx_path, weights = _model(tmp_path)
    shell, splices = prebuilt.skeleton(onnx_path, weights)
    assert len(shell) < onnx_path.stat().st_size - 48  # the weights' bytes are cut out
    assert {(s["tensor"], s["transform"]) for s in splices} == {("layer.weight", "T"), ("layer.bias", "")}
    assert prebuilt.assemble(shell, splices, prebuilt._safetensors(weights)) == onnx_path.read_bytes()


def test_other_weights_do_not_give_the_export(tmp_path):
    onnx_path, weights = _model(tmp_path)
    shell, splices = prebuilt.skeleton(onnx_path, weights)
    other = tmp_path / "other.safetensors"
    _safetensors(other, {"layer.weight": np.zeros((3, 4), "float32"), "layer.bias": np.ones(3, "float32")})
    assert prebuilt.assemble(shell, splices, prebuilt._safetensors(other)) != onnx_path.read_bytes()
    _safetensors(other, {"layer.weight": np.zeros((3, 4), "float32")})
    with pytest.raises(ValueError):
        prebuilt.skeleton(onnx_path, other)  # an initializer that is no tensor of the model


def test_a_build_under_way_is_not_waited_for_before_the_first_answer(tmp_path):
    # load_assistant puts the copy in place before reading the derived records: it never waits on a
    # build another process holds the folder for (the index opener waits for that build instead)
    import fcntl

    with open(tmp_path / ".index.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert prebuilt.install(tmp_path / "index", wait=False) == "another process is building the index there"
        assert not prebuilt.install_if_missing(tmp_path / "index")
    assert not (tmp_path / "index").exists()


def test_the_refresh_warms_through_the_app_s_own_command():
    # index names the warm-up process but imports nothing above it (issue 44): the module it runs exists
    import importlib.util

    from webapp import warm

    assert prebuilt.WARM_COMMAND[0] == "-m" and importlib.util.find_spec(prebuilt.WARM_COMMAND[1]) is not None
    assert warm.main([]) == 2  # no folder given: usage, nothing loaded
