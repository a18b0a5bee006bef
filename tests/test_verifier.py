"""The answer verifier (assistant/verifier.py) and the ranker's second stage over it (choose.Head):
what the verifier reads of a candidate, the features through which its score enters the decider,
an ONNX model run the way the shipped one is (a tiny fixture graph here), a file its manifest does
not vouch for refused in one line, and the shipped artifacts current with the bank and settings."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from assistant import choose
from assistant import verifier as verifier_mod
from assistant.types import Answer, Candidate, Citation
from tests import tiny_onnx


def _answer(lead: str, route: str = "permit", cells=(), quote: str = "Bar, tavern UP UP UP") -> Answer:
    return Answer("q", lead + "\nmore lines the verifier does not read", False,
                  (Citation("17.22.020", "Allowable land uses", "000", "2020-01-01", quote),), tuple(cells), route=route)


def test_the_statement_holds_the_lead_the_cells_and_the_cited_passage_only():
    cells = [{"table": "2-4", "row": "Bar, tavern", "column": d, "value": "UP"} for d in ("CD", "CE", "CG", "CI", "CN")]
    said = verifier_mod.statement(_answer("A use permit (UP) is required.", cells=cells, quote="x" * 1000))
    assert said.startswith("permit | A use permit (UP) is required. | 2-4 Bar, tavern / CD: UP")
    assert "/ CI: UP" in said and "/ CN: UP" not in said  # the first few cells only
    assert "§ 17.22.020 Allowable land uses" in said and "more lines" not in said
    assert said.count("x") == verifier_mod.QUOTE_CHARS


def test_verifier_features_say_where_the_candidate_stands():
    first = choose.verifier_features(0.9, 0.8, [0.3, 0.1], True)
    behind = choose.verifier_features(0.5, 0.2, [0.8], False)
    assert set(first) == set(choose.VERIFIER_FEATURES)
    assert first["verifier_first"] == 1.0 and behind["verifier_first"] == 0.0
    assert behind["verifier_behind_best"] == pytest.approx(0.6)
    assert first["verifier_logit"] == pytest.approx(math.log(0.8 / 0.2))
    assert first["signals_first"] == 1.0 and behind["signals_first"] == 0.0


def _head(threshold: float = 0.5) -> choose.Head:
    # trusts the verifier alone: p = logistic(4 * verifier_logit)
    return choose.Head(("verifier_logit",), (0.0,), (1.0,), (4.0,), 0.0, threshold, {"medium": 0.9}, "abc")


def test_a_head_round_trips_through_json_and_states_its_bands():
    head = _head()
    again = choose.Head.from_json(json.loads(json.dumps(head.to_json())))
    assert again == head
    assert head.probability({"verifier_logit": 0.0}) == pytest.approx(0.5)
    assert head.how_sure(0.95) == "medium" and head.how_sure(0.5) == ""


class FakeVerifier:
    """Reads the statement for the word 'right'."""

    def __init__(self):
        self.read = []

    def score(self, question, statements):
        self.read.append(list(statements))
        return [0.95 if "right" in s else 0.05 for s in statements]


def _candidate(lead: str) -> Candidate:
    return Candidate("permit_code", _answer(lead))


def test_the_second_stage_reorders_only_the_candidates_the_verifier_read():
    ranker = choose.Ranker(choose.Settings(verifier_top=2), head=_head())
    best = [(0.9, _candidate("wrong one")), (0.8, _candidate("the right one")), (0.7, _candidate("right but unread"))]
    fake = FakeVerifier()
    found = choose.verified(best, "q?", fake, ranker)
    assert [c.answer.first_line for _, c, _ in found] == ["the right one", "wrong one"]
    assert len(fake.read[0]) == 2  # the third was not read: it cannot be chosen
    assert found[0][0] > 0.99 and found[0][2] == 0.95


def test_a_ranker_file_with_a_second_stage_loads_it(tmp_path):
    ranker = choose.Ranker(choose.Settings(), ("x",), (0.0,), (1.0,), (1.0,), 0.0, {}, {}, _head(0.7))
    path = tmp_path / "ranker.json"
    path.write_text(json.dumps(ranker.to_json()), encoding="utf-8")
    loaded = choose.load(path)
    assert loaded.head == ranker.head and loaded.settings == ranker.settings


# -- an ONNX model run as the shipped one is: a tiny fixture graph (logit = 0.1 * word pieces - 1) --
def _tiny_model(folder: Path, max_length: int = 16) -> None:
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["mask", "axes"], ["count"], keepdims=1),
             helper.make_node("Mul", ["count", "tenth"], ["scaled"]),
             helper.make_node("Sub", ["scaled", "one"], ["logits"])]
    initial = [helper.make_tensor("axes", TensorProto.INT64, [1], [1]),
               helper.make_tensor("tenth", TensorProto.FLOAT, [], [0.1]),
               helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])]
    tiny_onnx.save(folder, verifier_mod.MODEL_FILE, verifier_mod.TOKENIZER_FILE, nodes, initial, "logits", ["b", 1])
    files = {n: verifier_mod.sha256_file(folder / n) for n in (verifier_mod.MODEL_FILE, verifier_mod.TOKENIZER_FILE)}
    (folder / verifier_mod.MANIFEST_FILE).write_text(json.dumps({"max_length": max_length, "files": files}))


def test_a_model_scores_each_pair_truncated_to_its_length(tmp_path):
    _tiny_model(tmp_path / "v", max_length=16)
    model = verifier_mod.load(tmp_path / "v")
    short, long_ = model.score("fence height?", ["7 ft.", "a statement " * 40])
    # [CLS] fence height ? [SEP] 7 ft . [SEP] = 9 pieces; the long pair is cut to 16
    assert short == pytest.approx(1 / (1 + math.exp(-(0.9 - 1))), abs=1e-5)
    assert long_ == pytest.approx(1 / (1 + math.exp(-(1.6 - 1))), abs=1e-5)
    assert model.score("q", []) == []


def test_no_manifest_is_no_verifier_and_a_changed_model_is_refused_in_one_line(tmp_path):
    assert verifier_mod.load(tmp_path / "none") is None
    _tiny_model(tmp_path / "v")
    with open(tmp_path / "v" / verifier_mod.MODEL_FILE, "ab") as handle:
        handle.write(b"\0")
    with pytest.raises(verifier_mod.VerifierError) as raised:
        verifier_mod.load(tmp_path / "v")
    message = str(raised.value)
    assert "\n" not in message and "verifier.onnx" in message and "python -m eval.verifier_train" in message


# -- the shipped artifacts --
REFIT = "refit with `python -m eval.verifier_data`, `python -m eval.verifier_train`, `python -m eval.verifier_fit --write`"


def test_the_shipped_verifier_is_current_with_the_bank_and_the_settings():
    shipped = verifier_mod.load()
    assert shipped is not None, f"assistant/data/verifier is missing; {REFIT}"
    settings = choose.Settings()
    manifest = shipped.manifest
    assert manifest["settings_hash"] == settings.verifier_digest(), f"the verifier's settings changed; {REFIT}"
    assert manifest["training_data"]["bank_hash"] == verifier_mod.bank_hash(settings.verifier_batches), (
        f"the bank batches the verifier is trained on changed; {REFIT}")
    assert manifest["max_length"] == settings.verifier_max_length
    ranker = choose.load()
    assert ranker is not None, f"no ranker; {REFIT}"
    if not settings.verifier_decides:  # trained and shipped, but its stage is not kept (the settings say why)
        assert ranker.head is None, f"the settings keep no verifier stage, yet the ranker has one; {REFIT}"
        return
    assert ranker.head is not None, f"the ranker has no verifier stage; {REFIT}"
    assert ranker.head.verifier == manifest["training_data"]["hash"], f"the ranker was fitted on another verifier; {REFIT}"


@pytest.mark.slow
def test_the_shipped_verifier_tells_the_row_asked_from_another():
    shipped = verifier_mod.load()
    right, wrong = shipped.score("Can I open a bar in the CE district?", [
        "permit | A use permit (UP) is required. | 2-4 Bar, tavern / CE: UP | § 17.22.020 Allowable land uses",
        "permit | Permitted (P). | 2-2 Child day care - Small family day care home / RVL: P | § 17.22.020 Allowable"])
    assert right > wrong
