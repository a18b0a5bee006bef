"""A cross-encoder reader (issue 27), measured against the feature reader: an experiment, not shipped.

    python -m eval.cross_reader speed [--threads 2] [--json]
    python -m eval.cross_reader cv [--questions 400] [--top 8] [--train-layers 1] [--epochs 2] [--json]
    # the README's figures: --cases FILE (the dev items, kept between runs)
    #   cv --questions 200 --corpus-queries 50 --epochs 2 --top 8 --train-layers 1 (23 min here)

``speed`` measures what a cross-encoder fine-tuned from the shipped MiniLM costs on this machine:
training steps (every layer trained, batch 16, pairs truncated to 128 word pieces) and scoring one
question's 8 candidates batched with onnxruntime, exported as ``index/onnx_encoder.py`` exports the
query model (TorchScript exporter, opset 17). Nothing is written outside a temporary folder.

``cv`` compares, held out by paraphrase group (``eval.calibrate.folds_by_group``), four ways to
choose a dev question's provision among the candidates ``eval.reader_fit`` gives it: (a) the
hand-weighted score, (b) the feature reader, (c) the cross-encoder over the feature reader's first
``--top`` candidates, (d) the feature reader with the cross-encoder's score as two more features
over the same short list. Reported: how often the first candidate answers, among questions that
have an answering candidate, and the AUC of right vs wrong first candidates. The cross-encoder of
each fold is trained on the other folds' questions (their answering candidates and the short
list's first non-answering ones) and on corpus-derived pairs (a provision's heading path and
printed head as a query for its text, another provision of the same section as its negative).
To fit the machine's budget only the top ``--train-layers`` layers and the head are trained: the
frozen layers' output is computed once per pair and reused by every fold; ``--questions`` draws
whole paraphrase groups (seeded) when dev has more. Seeded and deterministic on CPU. Dev only:
the test set is never read.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

MAX_LENGTH = 128
BATCH = 16
LEARNING_RATE = 5e-5
CORPUS_QUERIES = 100
NEGATIVES = 3  # non-answering candidates per training question: the short list's first ones
CROSS = ("cross", "cross_behind_best")


@dataclass(frozen=True)
class Item:
    """One dev question as the experiment uses it."""

    question: str
    case: object  # eval.reader_fit.Case
    texts: list[str]  # each candidate provision's text, in the case's order


def _model(threads: int, seed: int):
    """MiniLM with a fresh one-logit head, from the installed package's folder (never downloaded)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging as hf_logging

    from index.dense import _packaged_model_dir

    hf_logging.set_verbosity_error()
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    folder = str(_packaged_model_dir())
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(folder, num_labels=1, local_files_only=True)
    return tokenizer, model


def _encode(tokenizer, pairs, tensors: str = "pt"):
    return tokenizer([q for q, _ in pairs], [t for _, t in pairs], truncation="longest_first",
                     max_length=MAX_LENGTH, padding=True, return_tensors=tensors)


# ---- speed ----------------------------------------------------------------------------------


def speed(pairs: list[tuple[str, str]], threads: int = 2, steps: int = 6, seed: int = 0) -> dict:
    """Seconds per full training step of ``BATCH`` pairs, and ms to score 8 pairs batched with
    onnxruntime (1 and ``threads`` intra-op threads)."""
    import torch

    tokenizer, model = _model(threads, seed)
    batch = _encode(tokenizer, (pairs * BATCH)[:BATCH])
    labels = torch.tensor([float(i % 2) for i in range(BATCH)])
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    model.train()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        logits = model(**batch).logits.squeeze(-1)
        torch.nn.functional.binary_cross_entropy_with_logits(logits, labels).backward()
        optimizer.step()
        optimizer.zero_grad()
        times.append(time.perf_counter() - start)
    step = _median(times[1:])  # the first step allocates
    result = {"threads": threads, "pairs": len(pairs), "train_tokens_per_pair": _tokens(batch),
              "train_step_s": round(step, 2), "train_pairs_per_s": round(BATCH / step, 2),
              "train_steps_s": [round(t, 2) for t in times]}
    model.eval()
    with tempfile.TemporaryDirectory() as folder:
        path = _export(model, tokenizer, Path(folder) / "cross.onnx")
        result["onnx_mb"] = round(path.stat().st_size / 1e6, 1)
        eight = _encode(tokenizer, (pairs * 8)[:8], "np")
        result["score_tokens_per_pair"] = _tokens(eight)
        for n in sorted({1, threads}):
            result[f"onnx_8_pairs_ms_{n}_threads"] = _score_ms(path, eight, n)
    return result


def _tokens(batch) -> float:
    return round(float(batch["attention_mask"].sum()) / len(batch["attention_mask"]), 1)


def _export(model, tokenizer, path: Path) -> Path:
    import warnings

    import torch

    from index.onnx_encoder import INPUTS, OPSET

    class Logit(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids,
                              return_dict=False)[0].squeeze(-1)

    example = _encode(tokenizer, [("a question of some words", "a provision"), ("b", "c")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.inference_mode():
            torch.onnx.export(Logit(model), tuple(example[n] for n in INPUTS), str(path), dynamo=False,
                              input_names=list(INPUTS), output_names=["logit"], opset_version=OPSET,
                              dynamic_axes={**{n: {0: "batch", 1: "sequence"} for n in INPUTS}, "logit": {0: "batch"}})
    return path


def _score_ms(path: Path, batch, threads: int, runs: int = 15) -> float:
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads, options.log_severity_level = threads, 1, 3
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    feed = {i.name: np.asarray(batch[i.name], dtype=np.int64) for i in session.get_inputs()}
    session.run(None, feed)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - start) * 1000)
    return round(_median(times), 1)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


# ---- the dev questions ----------------------------------------------------------------------


def items_of(res, progress=None) -> list[Item]:
    """Each answerable dev question's candidates, as ``eval.reader_fit`` builds the feature reader's cases."""
    from . import reader_fit
    from .gold import SETS, load_gold

    usable = [i for i in load_gold(SETS["dev"]) if not i.abstain and i.expected_facts and i.expected_sections]
    items = []
    for number, gold in enumerate(usable, 1):
        found = reader_fit.read_case(gold, res)
        if found is not None:
            text, provisions, case = found
            items.append(Item(text, case, [p.text for p in provisions]))
        if progress:
            progress(number, len(usable))
    return items


def corpus_pairs(provisions, count: int, seed: int) -> list[tuple[str, str, bool]]:
    """(query, text, answers): a provision's heading path and printed head as a query for its own
    text, and for another provision of the same section (seeded), for ``count`` provisions."""
    from assistant.reader import path_text

    by_section: dict[str, list] = {}
    for p in provisions:
        by_section.setdefault(p.section, []).append(p)
    rng = random.Random(seed)
    usable = [p for p in provisions if p.path and len(p.text.split()) >= 5 and len(by_section[p.section]) > 1]
    pairs = []
    for p in rng.sample(usable, min(count, len(usable))):
        other = rng.choice([o for o in by_section[p.section] if o.text != p.text] or [p])
        pairs += [(path_text(p), p.text, True), (path_text(p), other.text, other.text == p.text)]
    return pairs


def sample(items: list[Item], questions: int, seed: int) -> list[Item]:
    """Whole paraphrase groups (seeded) until ``questions`` items; all when dev has no more."""
    groups = sorted({i.case.group for i in items})
    random.Random(seed).shuffle(groups)
    chosen, count = set(), 0
    for group in groups:
        if count >= questions:
            break
        chosen.add(group)
        count += sum(i.case.group == group for i in items)
    return [i for i in items if i.case.group in chosen]


# ---- the folds --------------------------------------------------------------------------------


def held_out_reader(items: list[Item], folds: list[int]) -> list[list[float]]:
    """Each item's feature-reader probabilities, from the reader fitted on the other folds."""
    from assistant import reader as reader_mod

    from .calibrate import FOLDS
    from .reader_fit import L2

    out: list[list[float]] = [[] for _ in items]
    for fold in range(FOLDS):
        fitted = reader_mod.fit([(i.case.vectors, i.case.answers) for i, f in zip(items, folds) if f != fold], L2)
        for n, (item, f) in enumerate(zip(items, folds)):
            if f == fold:
                out[n] = fitted.probabilities(item.case.vectors)
    return out


def short_list(scores: list[float], top: int) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:top]


def training_pairs(item: Item, short: list[int], reader_p: list[float]) -> list[tuple[int, bool]]:
    """(candidate, answers) to train on: the short list's answering candidates (else the reader's
    first two answering ones) and its first non-answering ones."""
    answers = item.case.answers
    positives = [i for i in short if answers[i]] or [i for i in short_list(reader_p, len(reader_p)) if answers[i]][:2]
    negatives = [i for i in short if not answers[i]][:NEGATIVES]
    return [(i, True) for i in positives] + [(i, False) for i in negatives]


# ---- the cross-encoder, trained above its frozen layers -------------------------------------


class Split:
    """The model cut after its frozen layers: ``lower`` runs once per pair (no gradient), each fold
    trains a fresh copy of the rest (``upper``): the top layers, the pooler and the one-logit head."""

    def __init__(self, tokenizer, model, train_layers: int):
        self.tokenizer, self.model = tokenizer, model.eval()
        self.cut = len(model.bert.encoder.layer) - train_layers

    def _mask(self, hidden, mask):
        from transformers.masking_utils import create_bidirectional_mask

        return create_bidirectional_mask(config=self.model.config, inputs_embeds=hidden, attention_mask=mask)

    def lower(self, pairs: list[tuple[str, str]]) -> list:
        """Each pair's frozen-layer output, unpadded (a [tokens, hidden] tensor)."""
        import torch

        out = []
        with torch.inference_mode():
            for start in range(0, len(pairs), BATCH):
                batch = _encode(self.tokenizer, pairs[start:start + BATCH])
                hidden = self.model.bert.embeddings(input_ids=batch["input_ids"], token_type_ids=batch["token_type_ids"])
                mask4 = self._mask(hidden, batch["attention_mask"])
                for layer in self.model.bert.encoder.layer[:self.cut]:
                    hidden = layer(hidden, mask4)
                lengths = batch["attention_mask"].sum(1).tolist()
                out += [hidden[i, :n].clone() for i, n in enumerate(lengths)]
        return out

    def upper(self):
        import copy

        import torch

        m = self.model
        parts = torch.nn.ModuleDict({"layers": torch.nn.ModuleList(copy.deepcopy(m.bert.encoder.layer[self.cut:])),
                                     "pooler": copy.deepcopy(m.bert.pooler), "dropout": copy.deepcopy(m.dropout),
                                     "head": copy.deepcopy(m.classifier)})
        return parts

    def logits(self, upper, states: list):
        import torch

        longest = max(s.shape[0] for s in states)
        hidden = torch.zeros(len(states), longest, states[0].shape[1])
        mask = torch.zeros(len(states), longest, dtype=torch.long)
        for i, s in enumerate(states):
            hidden[i, :s.shape[0]], mask[i, :s.shape[0]] = s, 1
        mask4 = self._mask(hidden, mask)
        for layer in upper["layers"]:
            hidden = layer(hidden, mask4)
        return upper["head"](upper["dropout"](upper["pooler"](hidden))).squeeze(-1)

    def check(self, pairs: list[tuple[str, str]]) -> float:
        """Largest difference between the whole model's logits and lower + upper's (should be ~0)."""
        import torch

        upper = self.upper().eval()
        with torch.inference_mode():
            whole = self.model(**_encode(self.tokenizer, pairs)).logits.squeeze(-1)
            split = self.logits(upper, self.lower(pairs))
        return float((whole - split).abs().max())


def train_upper(split: Split, states: list, labels: list[bool], epochs: int, seed: int):
    """A fresh upper part trained on the pairs' frozen states (AdamW, binary cross-entropy, seeded)."""
    import torch

    torch.manual_seed(seed)
    upper = split.upper().train()
    optimizer = torch.optim.AdamW(upper.parameters(), lr=LEARNING_RATE)
    order = list(range(len(states)))
    rng = random.Random(seed)
    for _ in range(epochs):
        rng.shuffle(order)
        for start in range(0, len(order), BATCH):
            chosen = order[start:start + BATCH]
            logits = split.logits(upper, [states[i] for i in chosen])
            target = torch.tensor([float(labels[i]) for i in chosen])
            torch.nn.functional.binary_cross_entropy_with_logits(logits, target).backward()
            optimizer.step()
            optimizer.zero_grad()
    return upper.eval()


def score_upper(split: Split, upper, states: list) -> list[float]:
    import torch

    out = []
    with torch.inference_mode():
        for start in range(0, len(states), BATCH):
            out += split.logits(upper, states[start:start + BATCH]).tolist()
    return out


# ---- the comparison ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    questions: int = 400
    top: int = 8
    train_layers: int = 1
    epochs: int = 2
    corpus_queries: int = CORPUS_QUERIES
    seed: int = 0
    threads: int = 2


def cross_validate(items: list[Item], provisions, settings: Settings, log=print) -> dict:
    """The held-out figures of (a)-(d) on a sample of dev, and of (a)-(b) on all of it."""
    from .calibrate import folds_by_group

    folds = folds_by_group([i.case.group for i in items], settings.seed)
    reader_p = held_out_reader(items, folds)
    result = {"settings": settings.__dict__, "all_dev": {"cases": len(items), **_baselines(items, reader_p)}}
    chosen = {id(i) for i in sample(items, settings.questions, settings.seed)}
    keep = [n for n, i in enumerate(items) if id(i) in chosen]
    items, folds, reader_p = [items[n] for n in keep], [folds[n] for n in keep], [reader_p[n] for n in keep]
    shorts = [short_list(p, settings.top) for p in reader_p]
    started = time.perf_counter()
    logits, timing = _cross_scores(items, folds, reader_p, shorts, provisions, settings, log)
    result["sample"] = {"cases": len(items), "groups": len({i.case.group for i in items}),
                        "short_list_holds_an_answer": sum(any(i.case.answers[j] for j in s) for i, s in zip(items, shorts)),
                        **_baselines(items, reader_p), "cross_encoder": _cross_figures(items, shorts, logits),
                        "reader_plus_cross": _stacked(items, folds, shorts, logits), "timing_s": timing}
    result["sample"]["timing_s"]["total"] = round(time.perf_counter() - started, 1)
    return result


def _baselines(items: list[Item], reader_p: list[list[float]]) -> dict:
    from .reader_fit import _figures, _first

    reachable = [any(i.case.answers) for i in items]
    hand = [_first(i.case.hand) for i in items]
    read = [_first(p) for p in reader_p]
    return {"with_an_answering_candidate": sum(reachable),
            "hand_score": _figures([i.case.answers[t] for i, t in zip(items, hand)],
                                   [i.case.hand[t] for i, t in zip(items, hand)], reachable),
            "feature_reader": _figures([i.case.answers[t] for i, t in zip(items, read)],
                                       [p[t] for p, t in zip(reader_p, read)], reachable)}


def _cross_scores(items, folds, reader_p, shorts, provisions, settings: Settings, log) -> tuple[list[dict], dict]:
    """Each item's short list scored by the cross-encoder of its fold (trained on the other folds)."""
    from .calibrate import FOLDS

    split = Split(*_model(settings.threads, settings.seed), settings.train_layers)
    trains = [training_pairs(i, s, p) for i, s, p in zip(items, shorts, reader_p)]
    keys = sorted({(n, j) for n, s in enumerate(shorts) for j in s} | {(n, j) for n, t in enumerate(trains) for j, _ in t})
    corpus = corpus_pairs(provisions, settings.corpus_queries, settings.seed)
    log(f"check: whole vs split logits differ by {split.check([(items[0].question, items[0].texts[0])] * 2):.2e}")
    start = time.perf_counter()
    states = split.lower([(items[n].question, items[n].texts[j]) for n, j in keys] + [(q, t) for q, t, _ in corpus])
    timing = {"frozen_layers": round(time.perf_counter() - start, 1), "pairs": len(states), "folds": []}
    log(f"frozen layers of {len(states)} pairs in {timing['frozen_layers']} s")
    at = {key: k for k, key in enumerate(keys)}
    corpus_states, corpus_labels = states[len(keys):], [y for _, _, y in corpus]
    logits: list[dict] = [{} for _ in items]
    for fold in range(FOLDS):
        chosen = [(at[(n, j)], y) for n, t in enumerate(trains) if folds[n] != fold for j, y in t]
        start = time.perf_counter()
        upper = train_upper(split, [states[k] for k, _ in chosen] + corpus_states,
                            [y for _, y in chosen] + corpus_labels, settings.epochs, settings.seed + fold)
        trained = time.perf_counter() - start
        held = [(n, j) for n, s in enumerate(shorts) if folds[n] == fold for j in s]
        for (n, j), value in zip(held, score_upper(split, upper, [states[at[key]] for key in held])):
            logits[n][j] = value
        pairs = (len(chosen) + len(corpus_states)) * settings.epochs
        timing["folds"].append({"train_pairs": len(chosen) + len(corpus_states), "train_s": round(trained, 1),
                                "train_pairs_per_s": round(pairs / trained, 2), "scored": len(held)})
        log(f"fold {fold}: {timing['folds'][-1]}")
    return logits, timing


def _cross_figures(items, shorts, logits) -> dict:
    from .reader_fit import _figures

    firsts = [max(s, key=lambda j: (logits[n][j], -s.index(j))) for n, s in enumerate(shorts)]
    return _figures([i.case.answers[j] for i, j in zip(items, firsts)],
                    [1 / (1 + math.exp(-logits[n][j])) for n, j in enumerate(firsts)], [any(i.case.answers) for i in items])


def _stacked(items, folds, shorts, logits) -> dict:
    """(d): the feature reader's conditional logit with the cross-encoder's logit and its distance
    to the short list's best as two more features, fitted on the other folds' short lists."""
    from assistant import reader as reader_mod

    from .calibrate import FOLDS
    from .reader_fit import L2, _figures, _first

    cases = []
    for n, (item, s) in enumerate(zip(items, shorts)):
        best = max(logits[n][j] for j in s)
        cases.append(([item.case.vectors[j] + [logits[n][j], logits[n][j] - best] for j in s], [item.case.answers[j] for j in s]))
    right, scores = [False] * len(items), [0.0] * len(items)
    for fold in range(FOLDS):
        fitted = reader_mod.fit([c for c, f in zip(cases, folds) if f != fold], L2, names=reader_mod.FEATURES + CROSS)
        for n, (case, f) in enumerate(zip(cases, folds)):
            if f == fold:
                p = fitted.probabilities(case[0])
                top = _first(p)
                right[n], scores[n] = case[1][top], p[top]
    return _figures(right, scores, [any(i.case.answers) for i in items])


# ---- command line -----------------------------------------------------------------------------


def _load_items(path: Path | None) -> tuple[list[Item], list]:
    """The dev items and the corpus provisions, from ``path`` when it holds them (a JSON file this
    command wrote: records rebuilt by class name, as ``assistant.derived`` reads its file; never a
    pickle, which could run code), else read (minutes: one search per dev question) and kept there."""
    from assistant.derived import FormatError, encode, rebuild, record_types

    from .reader_fit import Case

    types = {**record_types(), "Case": Case}
    if path is not None and path.is_file():
        try:
            body = json.loads(path.read_text(encoding="utf-8"), object_hook=rebuild(types))
            rows, provisions = body["rows"], body["provisions"]
            items = [Item(question, Case(c.item, c.group, [list(v) for v in c.vectors], list(c.answers), list(c.hand)),
                          list(texts)) for question, c, texts in rows]
        except (OSError, ValueError, KeyError, TypeError, AttributeError, FormatError) as error:
            raise SystemExit(f"error: {path}: not a --cases file this command wrote ({type(error).__name__}); "
                             "remove it to read the dev items again") from None
        return items, list(provisions)
    from assistant import load_assistant

    res = load_assistant(calibrated=False, reader=False).resources
    found = (items_of(res, lambda d, t: print(f"\rdev questions: {d}/{t}", end="" if d < t else "\n",
                                              file=sys.stderr, flush=True)), list(res.provisions()))
    if path is not None:
        names = {cls: name for name, cls in types.items()}
        rows = tuple((i.question, Case(i.case.item, i.case.group, tuple(tuple(v) for v in i.case.vectors),
                                       tuple(i.case.answers), tuple(i.case.hand)), tuple(i.texts)) for i in found[0])
        path.write_text(json.dumps({"rows": encode(rows, names), "provisions": encode(tuple(found[1]), names)}),
                        encoding="utf-8")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.cross_reader", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("speed", "cv"))
    parser.add_argument("--cases", type=Path, help="JSON file of the dev items (read if present, else written)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    defaults = Settings()
    for name, value in defaults.__dict__.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=value)
    args = parser.parse_args(argv)
    settings = Settings(**{name: getattr(args, name) for name in defaults.__dict__})
    log = (lambda text: print(text, file=sys.stderr, flush=True))
    if args.command == "speed":
        items, _ = _load_items(args.cases) if args.cases else ([], [])
        rng = random.Random(settings.seed)
        pairs = [(i.question, rng.choice(i.texts)) for i in rng.sample(items, min(BATCH, len(items)))] or [
            ("How long is a use permit valid?", "A use permit shall expire two years after its approval unless it "
             "has been exercised or an extension has been granted by the review authority.")]
        result = speed(pairs, settings.threads, seed=settings.seed)
    else:
        result = cross_validate(*_load_items(args.cases), settings, log)
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
