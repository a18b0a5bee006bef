"""The query encoder the assistant uses: ONNX when the index carries it, sentence-transformers
otherwise (said once), loaded only when a question needs meaning; answers identical either way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from index import dense, onnx_encoder

ROOT = Path(__file__).resolve().parent.parent


def _fake_model_dir(tmp_path: Path) -> Path:
    """A folder that resolves as a sentence-transformers model (never loaded by these tests)."""
    model = tmp_path / "model"
    (model / "1_Pooling").mkdir(parents=True)
    (model / "modules.json").write_text("[]")
    (model / "1_Pooling" / "config.json").write_text(json.dumps({"word_embedding_dimension": 8}))
    return model


def _manifest(model: Path, **extra) -> dict:
    return {"settings": {"model": dense.model_id(str(model))}, "counts": {"dim": 8}, **extra}


def test_no_onnx_in_the_index_means_the_model_itself_with_one_note(tmp_path, capfd, monkeypatch):
    monkeypatch.delenv(onnx_encoder.BACKEND_ENV, raising=False)
    model = _fake_model_dir(tmp_path)
    manifest = _manifest(model)
    enc = dense.query_encoder(str(model), tmp_path, manifest)
    assert enc.model_id == manifest["settings"]["model"] and enc.dim == 8
    assert capfd.readouterr().err == ""  # nothing decided, nothing loaded until it is used
    assert isinstance(enc.target, dense.SentenceTransformerEncoder)
    assert enc.target is enc.target
    assert dense.query_encoder(str(model), tmp_path, manifest) is enc
    err = capfd.readouterr().err
    assert err.count("note:") == 1 and "no ONNX query encoder" in err and "python -m index build" in err


@pytest.mark.parametrize("damage, reason", [
    (lambda d: (d / onnx_encoder.ONNX_FILE).unlink(), "query_encoder.onnx is missing"),
    (lambda d: (d / onnx_encoder.ONNX_FILE).write_bytes(b"changed"), "query_encoder.onnx does not match its checksum in the manifest"),
    (lambda d: (d / onnx_encoder.TOKENIZER_FILE).write_text("{}"), "query_tokenizer.json does not match its checksum in the manifest"),
])
def test_a_missing_or_changed_file_is_not_loaded(tmp_path, damage, reason):
    for name in onnx_encoder.FILES:
        (tmp_path / name).write_bytes(name.encode())
    entry = {"file": onnx_encoder.ONNX_FILE, "tokenizer": onnx_encoder.TOKENIZER_FILE, "model": "m",
             "sha256": {name: onnx_encoder.sha256(tmp_path / name) for name in onnx_encoder.FILES}}
    damage(tmp_path)
    enc, why = onnx_encoder.load(tmp_path, {"query_encoder": entry}, "m")
    assert enc is None and why == reason
    assert onnx_encoder.load(tmp_path, {"query_encoder": entry}, "other")[1].startswith("the ONNX query encoder was exported from m")


def test_vector_cache_keeps_vectors_by_text_for_its_key_only(tmp_path):
    import numpy as np

    cache = onnx_encoder.VectorCache(tmp_path / "v.npz", "model:sha")
    assert cache.get(["a", "b"]) == {}
    cache.add(["a", "b"], np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32))
    again = onnx_encoder.VectorCache(tmp_path / "v.npz", "model:sha").get(["b", "c"])
    assert list(again) == ["b"] and again["b"].tolist() == [0.0, 1.0]
    assert onnx_encoder.VectorCache(tmp_path / "v.npz", "model:other").get(["a", "b"]) == {}
    (tmp_path / "v.npz").write_bytes(b"damaged")
    assert onnx_encoder.VectorCache(tmp_path / "v.npz", "model:sha").get(["a"]) == {}


def test_torch_can_be_asked_for(tmp_path, monkeypatch):
    monkeypatch.setenv(onnx_encoder.BACKEND_ENV, "torch")
    model = _fake_model_dir(tmp_path)
    assert isinstance(dense.query_encoder(str(model), tmp_path, _manifest(model)), dense.SentenceTransformerEncoder)


def test_the_hashing_encoder_is_used_as_is(tmp_path):
    assert isinstance(dense.query_encoder("hash:8", tmp_path, {}), dense.HashingEncoder)


# ---- the real index (built by `python -m index build`, or here when missing) -----------------


@pytest.fixture(scope="module")
def real_index():
    from index import open_index

    return open_index()  # the default index, as the CLI uses it; built once if missing or stale


HEAVY = ("torch", "sentence_transformers", "transformers", "onnxruntime", "faiss")


@pytest.mark.slow
@pytest.mark.parametrize("question, route", [
    ("Can I open a bar, tavern in CE?", "permit"),
    ("17.44.065", "section"),
])
def test_a_permit_or_section_answer_loads_no_model_and_no_faiss(real_index, question, route):
    """Under the routes' hand order (COTATI_RANKER=0). The ranker reads the question bank and the
    search for every candidate, so with it every answer embeds the question."""
    assert "query_encoder" in real_index.manifest
    code = (
        "import json, sys\n"
        "from assistant import load_assistant\n"
        f"answer = load_assistant().ask({question!r})\n"
        f"print(json.dumps([answer.route, sorted(m for m in {HEAVY!r} if m in sys.modules)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
                         env={**os.environ, "COTATI_RANKER": "0"})
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [route, []], out.stderr


@pytest.mark.slow
def test_a_permit_answer_from_the_table_alone_opens_no_index(real_index):
    """The calibration's model check reads a fresh index's model id from its manifest, checked as opening
    checks it (service.IndexOpener), instead of loading the index, and says what the opened index's
    encoder then says, under the routes' hand order (COTATI_RANKER=0). (A damaged index is still
    opened, and reported: test_one_line_errors.)"""
    code = (
        "import json\n"
        "from assistant import load_assistant\n"
        "built = load_assistant()\n"
        "answer = built.ask('Can I open a bar, tavern in CE?')\n"
        "res = built.resources\n"
        "unopened, declared = res._searcher is None, res.model_comparable()\n"
        "print(json.dumps([answer.route, answer.confidence, unopened, declared, res.comparable_encoder() is not None]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
                         env={**os.environ, "COTATI_RANKER": "0"})
    route, confidence, unopened, declared, opened = json.loads(out.stdout.strip().splitlines()[-1])
    assert route == "permit" and confidence is not None and unopened and declared is opened is True, out.stderr


@pytest.mark.slow
def test_answers_are_identical_with_the_onnx_and_the_torch_encoder(real_index, monkeypatch):
    """Every fourth dev and test question answered with each encoder: the same answer, route, citations
    and lookups, byte for byte; the confidence within rounding."""
    from assistant import load_assistant

    # Every fourth gold question (over 400, every route among them): the whole set took CI minutes.
    questions = [json.loads(line)["question"] for name in ("dev", "test")
                 for line in (ROOT / "eval" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()][::4]

    def answers() -> list[dict]:
        assistant = load_assistant()
        out = []
        for q in questions:
            a = assistant.ask(q).to_dict()
            a.pop("timing_ms", None)
            out.append(a)
        assert type(assistant.searcher.encoder).__name__ == ("SentenceTransformerEncoder" if torch else "DeferredEncoder")
        return out

    torch = True
    monkeypatch.setenv(onnx_encoder.BACKEND_ENV, "torch")
    by_torch = answers()
    torch = False
    monkeypatch.delenv(onnx_encoder.BACKEND_ENV)
    by_onnx = answers()
    assert len(by_torch) == len(by_onnx) == len(questions) > 400
    for q, t, o in zip(questions, by_torch, by_onnx):
        assert json.dumps({k: v for k, v in t.items() if k not in ("confidence", "signals")}, sort_keys=True) == \
            json.dumps({k: v for k, v in o.items() if k not in ("confidence", "signals")}, sort_keys=True), q
        assert abs((t["confidence"] or 0) - (o["confidence"] or 0)) < 1e-3, q
        assert t["signals"].keys() == o["signals"].keys(), q
