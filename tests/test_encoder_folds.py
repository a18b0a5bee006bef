"""The fold encoders of issue 43: encoders trained on some bank batches (``encoder_train --batches``)
score the bank questions they never saw (``verifier_data --fold-encoders``), so the ranker is fitted on
the whole bank (``verifier_fit``) with honest bank signals. Hermetic: fake encoders, a fake chooser,
a tiny random BERT for the export."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pytest

from assistant import bank as bank_mod
from assistant import encoder as encoder_mod
from assistant.resources import Resources
from eval import encoder_train, verifier_data, verifier_fit


# -- training on named batches --
def test_the_batches_named_are_read_in_the_banks_order_and_an_unknown_one_refused():
    assert encoder_train.parse_batches("b3, b1") == ("b1", "b3")
    for bad in ("b5", "", "b1,dev"):
        with pytest.raises(SystemExit) as raised:
            encoder_train.parse_batches(bad)
        assert "--batches" in str(raised.value) and "\n" not in str(raised.value)


def test_only_the_named_batches_train():
    entries = [bank_mod.Entry(f"q{n} {b}", "definition:Fence", {}, "", f"{b}-x") for b in ("b1", "b2", "b3", "b4")
               for n in range(2)] + [bank_mod.Entry("no", "decline:x", {}, "", "b1-x")]
    assert {i.question.split()[1] for i in encoder_train.training_items(entries, ("b3", "b4"))} == {"b3", "b4"}


def test_the_export_writes_a_whole_folder_vouching_for_the_whole_banks_vectors(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    from transformers import AutoTokenizer, BertConfig, BertModel

    from eval.verifier_train import base_model_dir

    torch.manual_seed(0)
    model = BertModel(BertConfig(vocab_size=30522, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                 intermediate_size=32, max_position_embeddings=64)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(base_model_dir()))
    bank = (bank_mod.Entry("how tall may a fence be?", "definition:Fence", {}, "", "b1-x"),
            bank_mod.Entry("fence height in the back yard", "definition:Fence", {}, "", "b4-x"),
            bank_mod.Entry("what is a fence?", "definition:Fence", {}, "dev", "dev"))
    monkeypatch.setattr(bank_mod, "load", lambda folder=None: bank)
    out = tmp_path / "A"
    manifest = {"training_data": {"batches": ["b1", "b2"]}, "metrics": {"dev_unit_accuracy_after": {"at1": 0.5}}}
    written = encoder_train.export(model, tokenizer, tmp_path / "work", out, manifest, ["a fence"], 16)
    opened = encoder_mod.load(out)
    assert opened is not None and opened.manifest == written
    assert set(written["files"]) == {encoder_mod.MODEL_FILE, encoder_mod.TOKENIZER_FILE, encoder_mod.BANK_VECTORS}
    assert written["training_data"]["batches"] == ["b1", "b2"] and "int8_min_cosine" in written["metrics"]
    # every bank question (dev's too) is read from the shipped file, none encoded again
    assert set(opened._shipped_rows()) == {e.question for e in bank}


# -- a Resources matched with a given encoder --
@dataclass
class FakeEncoder:
    """vector = normalise([len(text), scale]): two scales, two encoders that match differently."""

    scale: float
    batches: tuple = ()
    name: str = ""
    calls: list = field(default_factory=list)

    @property
    def model_id(self) -> str:
        return f"question-encoder:{self.name or self.scale}"

    @property
    def manifest(self) -> dict:
        return {"training_data": {"batches": list(self.batches)}}

    @property
    def trained_batches(self) -> tuple:
        return tuple(self.batches)

    def encode(self, texts):
        self.calls.append(list(texts))
        rows = np.array([[len(t), self.scale] for t in texts], dtype="float32").reshape(-1, 2)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    def bank_vectors(self, questions):
        return self.encode(questions)


def _bare_resources(entries) -> Resources:
    res = object.__new__(Resources)  # the bank's part only: no corpus, no index
    res.bank_entries, res.bank_left_out, res.bank_left_out_by_question = tuple(entries), frozenset(), {}
    res._bank = res._last_votes = res._question_encoder = None
    res.units = lambda: [type("U", (), {"id": e.unit})() for e in entries]
    return res


def test_a_resources_given_an_encoder_matches_its_bank_and_votes_with_it():
    entries = [bank_mod.Entry("a" * n, f"definition:T{n}", {}, "", "b1-x") for n in (2, 9, 30)]
    res = _bare_resources(entries)
    one, two = FakeEncoder(1.0), FakeEncoder(20.0)
    res.use_question_encoder(one)
    assert res.question_encoder is one
    query = type("Q", (), {"text": "a" * 8})()
    first = res.bank_votes(query, 3)
    assert np.allclose(res.question_bank().vectors, one.bank_vectors([e.question for e in entries]))
    res.use_question_encoder(two)  # the bank and the last votes are dropped: the same question votes anew
    second = res.bank_votes(query, 3)
    assert np.allclose(res.question_bank().vectors, two.bank_vectors([e.question for e in entries]))
    assert [v.similarity for v in first] != [v.similarity for v in second]
    res.use_question_encoder(None)
    assert res.question_encoder is None and res._bank is None


# -- scoring the bank with fold encoders --
def test_fold_encoders_are_opened_once_and_one_trained_on_its_batch_is_refused():
    a, b = FakeEncoder(1.0, ("b1", "b2")), FakeEncoder(2.0, ("b3", "b4"))
    opened = []
    opener = lambda folder: opened.append(folder) or {"A": a, "B": b}[folder]  # noqa: E731
    folds = verifier_data.fold_encoders("b1=B, b2=B,b3=A,b4=A", opener)
    assert folds == {"b1": b, "b2": b, "b3": a, "b4": a} and opened == ["B", "A"]
    for spec, words in (("b1=A", "trained on b1,b2"), ("b1=B,b3", "BATCH=DIR"),
                        ("b1=C", "unrecorded")):
        with pytest.raises(SystemExit) as raised:
            verifier_data.fold_encoders(spec, lambda f: {"A": a, "B": b, "C": FakeEncoder(3.0)}[f])
        assert words in str(raised.value) and "\n" not in str(raised.value)


class FakeRes:
    def __init__(self, shipped):
        self._encoder, self.bank_left_out, self.seen = shipped, frozenset(), []

    @property
    def question_encoder(self):
        return self._encoder

    def use_question_encoder(self, encoder):
        self._encoder = encoder

    def unit(self, unit_id):
        return unit_id

    def read(self, text):
        return text


def test_each_bank_question_is_scored_by_the_encoder_that_never_saw_its_batch(monkeypatch):
    from assistant import chooser
    from assistant import verifier as verifier_mod
    from eval import ranker_fit

    entries = tuple(bank_mod.Entry(f"question {b} {n}", "definition:Fence", {}, "", f"{b}-x")
                    for n in range(3) for b in ("b1", "b2", "b3", "b4"))
    monkeypatch.setattr(bank_mod, "load", lambda folder=None: entries)
    full, a, b = FakeEncoder(9.0, ("b1", "b2", "b3", "b4")), FakeEncoder(1.0, ("b1", "b2")), FakeEncoder(2.0, ("b3", "b4"))
    res = FakeRes(full)
    monkeypatch.setattr(chooser, "scored", lambda query, r: (r.seen.append((query, r.question_encoder, r.bank_left_out))
                                                             or [({"x": 1.0}, type("C", (), {"answer": None})())], None))
    monkeypatch.setattr(ranker_fit, "answers_unit", lambda c, unit, slots: True)
    monkeypatch.setattr(verifier_mod, "statement", lambda answer: "")
    folds = {"b1": b, "b2": b, "b3": a, "b4": a}
    rows = list(verifier_data.bank_rows(res, (1, 2), lambda text: None, frozenset(), folds))
    assert sorted(r["question"] for r in rows) == sorted(e.question for n, e in enumerate(entries) if n % 2 == 1)
    for row in rows:
        batch = row["batch"].split("-")[0]
        assert row["encoder"] == folds[batch].model_id and batch not in row["encoder_batches"] and row["fold"]
    for query, encoder, left_out in res.seen:
        assert encoder is folds[query.split()[1]] and left_out == frozenset({query})
    assert res.question_encoder is full and res.bank_left_out == frozenset()  # put back for dev and the holdout
    with pytest.raises(SystemExit) as raised:
        list(verifier_data.bank_rows(res, (0, 1), lambda text: None, frozenset(), {"b1": b}))
    assert "b2,b3,b4" in str(raised.value)
    plain = list(verifier_data.bank_rows(res, (0, 1), lambda text: None, frozenset({"b4"})))
    assert {r["encoder"] for r in plain} == {full.model_id} and not any("fold" in r for r in plain)


# -- fitting on them --
def _rows(set_name, batches, encoder="", trained=(), fold=False):
    return [{"set": set_name, "batch": f"{b}-x" if set_name == "bank" else set_name, "encoder": encoder,
             "encoder_batches": list(trained), **({"fold": True} if fold else {})} for b in batches]


def test_the_fit_takes_a_whole_bank_scored_by_fold_encoders_and_refuses_anything_else():
    full = "question-encoder:full"
    dev, holdout = _rows("dev", ["dev"], full), _rows("holdout", ["holdout"], full)
    folded = (_rows("bank", ["b1", "b2"], "question-encoder:B", ("b3", "b4"), fold=True)
              + _rows("bank", ["b3", "b4"], "question-encoder:A", ("b1", "b2"), fold=True))
    kept, ids, why = verifier_fit.bank_to_fit(dev, holdout, folded, full, ("b1", "b2", "b3", "b4"), False)
    assert why == "" and kept == folded and ids == ["question-encoder:A", "question-encoder:B"]

    # scored by the full encoder itself: the batches it was trained on are left out, as before
    plain = _rows("bank", ["b1", "b4"], full, ("b1", "b2", "b3"))
    kept, ids, why = verifier_fit.bank_to_fit(dev, holdout, plain, full, ("b1", "b2", "b3"), False)
    assert why == "" and [r["batch"] for r in kept] == ["b4-x"] and ids == []

    refusals = {
        "another question encoder": (_rows("dev", ["dev"], "question-encoder:A"), folded),
        "mix": (dev, folded + plain),
        "own batch": (dev, _rows("bank", ["b1"], "question-encoder:A", ("b1", "b2"), fold=True)),
        "not recorded": (dev, _rows("bank", ["b1"], "question-encoder:A", (), fold=True)),
    }
    for words, (dev_rows, bank_rows) in refusals.items():
        kept, ids, why = verifier_fit.bank_to_fit(dev_rows, holdout, bank_rows, full, ("b1", "b2", "b3", "b4"), False)
        assert words in why and "\n" not in why and kept == []
    kept, ids, why = verifier_fit.bank_to_fit(dev, holdout, _rows("bank", ["b1"], full, (), fold=True), full, (), False)
    assert "itself" in why
