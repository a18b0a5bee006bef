"""The question encoder (assistant/encoder.py) and its training batches (eval/encoder_train.py): an
ONNX model run the way the shipped one is (a tiny fixture graph here), the bank's shipped vectors
used where the manifest vouches for them, a file it does not vouch for refused in one line, and the
shipped artifacts current with the bank, the settings and the ranker fitted on them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from assistant import choose
from assistant import encoder as encoder_mod
from eval import encoder_train
from tests import tiny_onnx


# -- a tiny fixture graph: vector = normalise([word pieces, 4]) --
def _tiny_encoder(folder: Path, max_length: int = 8) -> None:
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["mask", "axes"], ["count"], keepdims=1),
             helper.make_node("Mul", ["count", "zero"], ["zeros"]),
             helper.make_node("Add", ["zeros", "four"], ["fours"]),
             helper.make_node("Concat", ["count", "fours"], ["raw"], axis=1),
             helper.make_node("LpNormalization", ["raw"], ["vector"], axis=1, p=2)]
    initial = [helper.make_tensor("axes", TensorProto.INT64, [1], [1]),
               helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
               helper.make_tensor("four", TensorProto.FLOAT, [], [4.0])]
    tiny_onnx.save(folder, encoder_mod.MODEL_FILE, encoder_mod.TOKENIZER_FILE, nodes, initial, "vector", ["b", 2])
    _vouch(folder, max_length)


def _vouch(folder: Path, max_length: int = 8) -> None:
    names = [n for n in (encoder_mod.MODEL_FILE, encoder_mod.TOKENIZER_FILE, encoder_mod.BANK_VECTORS)
             if (folder / n).is_file()]
    files = {n: encoder_mod.sha256_file(folder / n) for n in names}
    (folder / encoder_mod.MANIFEST_FILE).write_text(json.dumps({"max_length": max_length, "files": files}))


def _expected(pieces: int) -> np.ndarray:
    return np.array([pieces, 4.0]) / np.hypot(pieces, 4.0)


def test_a_model_encodes_each_question_truncated_to_its_length(tmp_path):
    _tiny_encoder(tmp_path / "e", max_length=8)
    model = encoder_mod.load(tmp_path / "e")
    short, long_ = model.encode(["fence height?", "a question " * 20])
    # [CLS] fence height ? [SEP]: 5 pieces; the long one is cut to 8
    assert short == pytest.approx(_expected(5), abs=1e-6)
    assert long_ == pytest.approx(_expected(8), abs=1e-6)
    assert model.encode([]).shape[0] == 0


def test_the_bank_vectors_shipped_are_used_and_the_rest_encoded(tmp_path):
    folder = tmp_path / "e"
    _tiny_encoder(folder)
    # a row the model would never give: proof the shipped one is read, not recomputed
    with open(folder / encoder_mod.BANK_VECTORS, "wb") as handle:
        np.savez_compressed(handle, questions=np.array(["known question"]), q8=np.array([[0, 127]], dtype="int8"),
                            scale=np.array([0.5], dtype="float32"))
    _vouch(folder)
    model = encoder_mod.load(folder)
    known, fresh = model.bank_vectors(["known question", "fence height?"])
    assert known == pytest.approx([0.0, 1.0]) and fresh == pytest.approx(_expected(5), abs=1e-6)
    # the file changed behind the manifest's back: not trusted, every question encoded
    with open(folder / encoder_mod.BANK_VECTORS, "ab") as handle:
        handle.write(b"\0")
    again = encoder_mod.load(folder).bank_vectors(["known question"])[0]
    assert again == pytest.approx(model.encode(["known question"])[0], abs=1e-6)


def test_written_bank_vectors_keep_the_models_directions(tmp_path):
    folder = tmp_path / "e"
    _tiny_encoder(folder)
    questions = ["a", "a longer question about fences", "what is the front setback in NL?"]
    encoder_mod.write_bank_vectors(encoder_mod.load(folder), questions, folder / encoder_mod.BANK_VECTORS)
    _vouch(folder)
    model = encoder_mod.load(folder)
    shipped, encoded = model.bank_vectors(questions), model.encode(questions)
    assert (shipped * encoded).sum(1) == pytest.approx([1.0] * 3, abs=1e-3)


def test_no_manifest_is_no_encoder_and_a_changed_model_is_refused_in_one_line(tmp_path):
    assert encoder_mod.load(tmp_path / "none") is None
    _tiny_encoder(tmp_path / "e")
    with open(tmp_path / "e" / encoder_mod.MODEL_FILE, "ab") as handle:
        handle.write(b"\0")
    with pytest.raises(encoder_mod.EncoderError) as raised:
        encoder_mod.load(tmp_path / "e")
    message = str(raised.value)
    assert "\n" not in message and "encoder.onnx" in message and "python -m eval.encoder_train" in message


# -- the training batches --
def _items() -> list[encoder_train.Item]:
    units = ["permit_row:2-2:Bar", "permit_row:2-2:Bank", "permit_row:2-4:Bar", "provision:17.64.080(A)(1)",
             "provision:17.64.080(B)", "definition:Fence"]
    return [encoder_train.Item(f"question {n} about {u}", u) for u in units for n in range(5)]


def test_a_unit_group_is_its_table_or_section():
    assert encoder_train.unit_group("permit_row:2-2:Bar, tavern") == "permit_row:2-2"
    assert encoder_train.unit_group("provision:17.64.080(A)(1)") == "provision:17.64.080"


def test_each_question_anchors_once_and_a_batch_holds_a_unit_once():
    items = _items()
    batches = encoder_train.epoch_batches(items, 4, seed=3)
    anchors = [a for batch in batches for a, _ in batch]
    assert sorted(a.question for a in anchors) == sorted(i.question for i in items)
    for batch in batches:
        units = [a.unit for a, _ in batch]
        assert len(units) == len(set(units))
        assert all(a.unit == p.unit and a.question != p.question for a, p in batch)
    assert batches == encoder_train.epoch_batches(items, 4, seed=3)  # seeded: the same epoch again


def test_unit_accuracy_counts_the_units_of_the_nearest_bank_questions():
    bank = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    found = encoder_train.unit_accuracy(np.array([[1.0, 0.0], [0.0, 1.0]]), ["a", "a"], bank, ["b", "a", "a"])
    assert found == {"questions": 2, "at1": 0.5, "at5": 1.0}


# -- the shipped artifacts --
REFIT = ("refit with `python -m eval.encoder_train`, then `python -m eval.verifier_data` and "
         "`python -m eval.verifier_fit --write`")


def test_the_shipped_encoder_is_current_with_the_bank_the_settings_and_the_ranker():
    shipped = encoder_mod.load()
    ranker = choose.load()
    if shipped is None:  # none shipped: the ranker's bank signals are the index model's
        assert ranker is not None and not ranker.fitted_on.get("encoder"), (
            f"the ranker was fitted with a question encoder that is not shipped; {REFIT}")
        return
    settings = choose.Settings()
    manifest = shipped.manifest
    assert manifest["settings_hash"] == settings.encoder_digest(), f"the encoder's settings changed; {REFIT}"
    assert manifest["training_data"]["bank_hash"] == encoder_mod.bank_hash(settings.encoder_batches), (
        f"the bank batches the encoder is trained on changed; {REFIT}")
    from assistant import bank as bank_mod

    questions = [e.question for e in bank_mod.load()]
    assert len(shipped._shipped_rows().keys() & set(questions)) == len(set(questions)), (
        "the shipped bank vectors lack questions of the bank; write them with "
        "`python -m eval.encoder_train --bank-vectors`")
    assert ranker is not None and ranker.fitted_on.get("encoder") == shipped.model_id, (
        f"the ranker was fitted with another question encoder; {REFIT}")


def test_the_model_files_together_stay_under_50_mb():
    from assistant import verifier as verifier_mod

    total = sum(p.stat().st_size for folder in (verifier_mod.VERIFIER_DIR, encoder_mod.ENCODER_DIR)
                if folder.is_dir() for p in folder.glob("*"))
    assert 0 < total <= 50 * 1024 * 1024
