"""The question encoder (issue 43): the shipped MiniLM fine-tuned here so that a question lands near the
bank questions written for the same unit (``eval/encoder_train.py``), exported to ONNX (int8) with
its tokenizer and a manifest in ``data/encoder/``.

It serves the bank only: the bank's questions and each asked question are encoded with it, and the
nearest entries vote for units (``assistant/bank.py``). Search keeps the index's own model, whose
vectors the prebuilt index holds. Without the shipped files the bank uses the index's model as
before.

Nothing loads at import time; onnxruntime and tokenizers are imported when the model is opened.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .shipped_model import MANIFEST_FILE, checked_manifest, sha256_file  # noqa: F401  (the trainer's imports)

ENCODER_DIR = Path(__file__).parent / "data" / "encoder"
MODEL_FILE = "encoder.onnx"
TOKENIZER_FILE = "tokenizer.json"
# The bank's questions encoded by this model, shipped beside it so that no process encodes 20,000
# questions at start: int8 rows with one scale each (cosine within 0.001 of the float vectors).
BANK_VECTORS = "bank_vectors.npz"
REFIT = "python -m eval.encoder_train"


class EncoderError(ValueError):
    """The shipped encoder cannot be used; the message names the file and the command to refit."""


def bank_hash(batches: Sequence[str], bank_dir: Path | None = None) -> str:
    """The hash of the bank entries the encoder is trained from (a changed bank makes it stale)."""
    from . import bank as bank_mod

    return bank_mod.batches_hash(batches, bank_dir)


@dataclass
class QuestionEncoder:
    """``encode(texts)``: one normalised vector per text (float32 rows)."""

    folder: Path
    max_length: int
    manifest: dict
    _opened: tuple | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def model_id(self) -> str:
        """What the bank's cached vectors are keyed by: this model file's hash."""
        return "question-encoder:" + self.manifest["files"][MODEL_FILE][:16]

    @property
    def trained_batches(self) -> tuple[str, ...]:
        """The bank batches it was trained on, as its manifest records them (() when it does not)."""
        return tuple(str(b) for b in self.manifest.get("training_data", {}).get("batches", []))

    def _open(self):
        with self._lock:
            if self._opened is None:
                import onnxruntime as ort
                from tokenizers import Tokenizer

                options = ort.SessionOptions()
                options.intra_op_num_threads = 1  # answers run in parallel threads; one core each
                options.inter_op_num_threads = 1
                session = ort.InferenceSession(str(self.folder / MODEL_FILE), options,
                                               providers=["CPUExecutionProvider"])
                tokenizer = Tokenizer.from_file(str(self.folder / TOKENIZER_FILE))
                tokenizer.enable_truncation(self.max_length)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                self._opened = (session, tokenizer, {i.name for i in session.get_inputs()})
        return self._opened

    def bank_vectors(self, questions: Sequence[str]):
        """Unit vectors of bank questions: the shipped rows where they hold the question, the model
        for the rest (a question staff added since)."""
        import numpy as np

        known = self._shipped_rows()
        missing = [q for q in dict.fromkeys(questions) if q not in known]
        fresh = dict(zip(missing, self.encode(missing))) if missing else {}
        rows = [known[q] if q in known else fresh[q] for q in questions]
        return np.asarray(rows, dtype="float32").reshape(len(rows), -1)

    def _shipped_rows(self) -> dict:
        path = self.folder / BANK_VECTORS
        if not path.is_file() or sha256_file(path) != self.manifest["files"].get(BANK_VECTORS):
            return {}  # none shipped, or not the file the manifest names: every question is encoded
        import numpy as np

        with np.load(path, allow_pickle=False) as stored:
            vectors = stored["q8"].astype("float32") * stored["scale"][:, None]
            questions = [str(q) for q in stored["questions"]]
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
        return dict(zip(questions, vectors))

    def encode(self, texts: Sequence[str], batch: int = 32):
        import numpy as np

        session, tokenizer, names = self._open()
        rows = []
        texts = [str(t) for t in texts]
        for i in range(0, len(texts), batch):
            encoded = tokenizer.encode_batch(texts[i:i + batch])
            feeds = {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                     "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                     "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64)}
            rows.append(session.run(None, {k: v for k, v in feeds.items() if k in names})[0])
        return np.concatenate(rows).astype("float32") if rows else np.zeros((0, 384), dtype="float32")


def write_bank_vectors(encoder: QuestionEncoder, questions: Sequence[str], path: Path) -> None:
    """Encode ``questions`` and write them as ``BANK_VECTORS`` (int8 rows, one scale each)."""
    import numpy as np

    questions = list(dict.fromkeys(questions))
    vectors = encoder.encode(questions)
    scale = np.maximum(np.abs(vectors).max(axis=1), 1e-9) / 127.0
    q8 = np.clip(np.round(vectors / scale[:, None]), -127, 127).astype("int8")
    with open(path, "wb") as handle:
        np.savez_compressed(handle, questions=np.array(questions, dtype=str), q8=q8, scale=scale.astype("float32"))


def load(folder: Path = ENCODER_DIR) -> QuestionEncoder | None:
    """The shipped encoder, or None when none is shipped; files the manifest does not vouch for are an
    ``EncoderError`` naming the file."""
    manifest = checked_manifest(folder, (MODEL_FILE, TOKENIZER_FILE), REFIT, EncoderError)
    return None if manifest is None else QuestionEncoder(folder, int(manifest["max_length"]), manifest)
