"""The answer verifier (issue 43): a cross-encoder trained here that reads a question beside one
candidate answer and gives the probability that the candidate answers it.

What the verifier reads of a candidate (``statement``) is built here, once, for training
(``eval/verifier_train.py``) and answering alike: the route, the lead line, the table cells it
rests on (row, district column, value), and the cited section's title and quote. The model is a
copy of the first layers of the shipped MiniLM with a one-logit head, fine-tuned on the question
bank's written questions (their candidates labelled by whether they answer the question's unit),
exported to ONNX (int8) with its tokenizer and a manifest in ``data/verifier/``.

The verifier does not decide: its probability enters the ranker (``choose.verifier_features``),
and the ranker's one operating point answers or declines. Without the shipped files there is no
verifier and the ranker answers from the candidates' signals alone.

Nothing loads at import time; onnxruntime and tokenizers are imported when a model is opened.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .shipped_model import MANIFEST_FILE, checked_manifest, sha256_file  # noqa: F401  (the trainer's imports)

VERIFIER_DIR = Path(__file__).parent / "data" / "verifier"
MODEL_FILE = "verifier.onnx"
TOKENIZER_FILE = "tokenizer.json"
CELLS_READ = 4  # table cells of a candidate the verifier reads (the rest say the same of other columns)
QUOTE_CHARS = 240  # of the first citation's quote


class VerifierError(ValueError):
    """The shipped verifier cannot be used; the message names the file and the command to refit."""


def _squash(text: str) -> str:
    return " ".join(str(text).split())


def statement(answer) -> str:
    """What the verifier reads of one candidate answer (an ``assistant.types.Answer``)."""
    parts = [answer.route or "answer", _squash(answer.first_line)]
    for cell in list(answer.lookups)[:CELLS_READ]:
        parts.append(_squash(f"{cell.get('table', '')} {cell.get('row', '')} / {cell.get('column', '')}: "
                             f"{cell.get('value', '')}"))
    if answer.citations:
        first = answer.citations[0]
        parts.append(_squash(f"§ {first.section} {first.title}"))
        parts.append(_squash(first.quote)[:QUOTE_CHARS])
    return " | ".join(p for p in parts if p)


def logit(p: float) -> float:
    p = min(1.0 - 1e-6, max(1e-6, p))
    return math.log(p / (1.0 - p))


def bank_hash(batches: Sequence[str], bank_dir: Path | None = None) -> str:
    """The hash of the bank entries of ``batches`` the verifier is trained from (its manifest records
    it; a changed bank makes the shipped verifier stale)."""
    from . import bank as bank_mod

    return bank_mod.batches_hash(batches, bank_dir)


@dataclass
class Verifier:
    """The exported cross-encoder: ``score(question, statements)`` gives one probability each."""

    folder: Path
    max_length: int
    manifest: dict
    _session: object = None
    _tokenizer: object = None

    def _open(self):
        if self._session is None:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            options = ort.SessionOptions()
            options.intra_op_num_threads = 1  # answers run in parallel threads; one core each
            options.inter_op_num_threads = 1
            self._session = ort.InferenceSession(str(self.folder / MODEL_FILE), options,
                                                 providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_file(str(self.folder / TOKENIZER_FILE))
            # the statement is cut first; a question longer than the whole budget is cut too
            tokenizer.enable_truncation(self.max_length, strategy="longest_first")
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            self._tokenizer = tokenizer
        return self._session, self._tokenizer

    def score(self, question: str, statements: Sequence[str]) -> list[float]:
        if not statements:
            return []
        import numpy as np

        session, tokenizer = self._open()
        encoded = tokenizer.encode_batch([(question, s) for s in statements])
        feeds = {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                 "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                 "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64)}
        names = {i.name for i in session.get_inputs()}
        logits = session.run(None, {k: v for k, v in feeds.items() if k in names})[0].reshape(-1)
        return [1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, float(z))))) for z in logits]


def load(folder: Path = VERIFIER_DIR) -> Verifier | None:
    """The shipped verifier, or None when none is shipped. A manifest that does not vouch for the
    model file is a ``VerifierError`` naming the file."""
    manifest = checked_manifest(folder, (MODEL_FILE, TOKENIZER_FILE), "python -m eval.verifier_train", VerifierError)
    return None if manifest is None else Verifier(folder, int(manifest["max_length"]), manifest)
