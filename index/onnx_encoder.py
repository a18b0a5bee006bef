"""The query encoder without torch: the index's model exported to ONNX by ``index build`` and run
at answer time with onnxruntime and the model's own ``tokenizer.json`` (``tokenizers``).

It computes what sentence-transformers computes for all-MiniLM-L6-v2: word pieces truncated to
the model's ``max_seq_length`` (256, not the 128 the tokenizer file itself says), the
transformer, mean pooling over the attention mask, L2 normalisation. The export is checked
against the sentence-transformers model on probe texts before it is written; a model whose
pipeline differs (another pooling) is not exported and queries keep the torch path.

Files in the index folder (checksums in the manifest's ``query_encoder`` entry)::

    query_encoder.onnx     transformer + mean pooling + normalisation, float32 (no quantization)
    query_tokenizer.json   the model's tokenizer.json
    query_vectors.npz      a cache: vectors of the text lists embedded at answer time (the permit
                           rows' descriptions), by text hash, for the next process

A missing or changed file, or onnxruntime missing, falls back to sentence-transformers with one
note on stderr. ``COTATI_QUERY_ENCODER=torch`` chooses the torch path on purpose.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .caches import remembered_sha256
from .store import _sha256 as sha256  # one file hash for the whole index folder
from .types import Progress

ONNX_FILE = "query_encoder.onnx"
TOKENIZER_FILE = "query_tokenizer.json"
FILES = (ONNX_FILE, TOKENIZER_FILE)
CACHE_FILE = "query_vectors.npz"  # vectors of text lists embedded at answer time (``VectorCache``)
EXPORT_VERSION = 1  # bump when the exported graph changes: older exports are then not reused
OPSET = 17
CHECK_COSINE = 0.99999  # an export reproducing the model less closely than this is not written
BACKEND_ENV = "COTATI_QUERY_ENCODER"  # "onnx" (default) or "torch"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")

_PROBES = (
    "",
    "cell tower",
    "Can I build a granny unit in my backyard in the NL district?",
    "  Café   signage — naïve façades; 17.44.065(A)(1) Table 2-3 “UP” ",
    "ACCESSORY DWELLING UNITS shall be permitted in the R-1 zone per Government Code §65852.2.",
    " ".join(["setback requirements for accessory structures"] * 60),  # longer than max_seq_length
)


def backend() -> str:
    """The query encoder asked for: "onnx" unless $COTATI_QUERY_ENCODER says "torch"."""
    import settings

    return "torch" if str(settings.value("query_encoder")).strip().lower() == "torch" else "onnx"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return ""


# ---- build side (torch) ---------------------------------------------------------------------


def _tokenizer_json(st_encoder, model) -> str:
    """The model's own tokenizer.json (its folder's file; else the tokenizer the model loaded)."""
    if getattr(st_encoder, "_kind", "") == "path":
        f = Path(st_encoder._loc) / "tokenizer.json"
        if f.is_file():
            return f.read_text(encoding="utf-8")
    return model.tokenizer.backend_tokenizer.to_str()


def export(st_encoder, folder: Path, progress: Progress | None = None) -> dict[str, Any] | None:
    """Export ``st_encoder``'s model (a loaded SentenceTransformerEncoder) to ``folder``; returns
    the manifest entry, or None when the export does not reproduce the model (then nothing is
    written and queries use the torch path)."""
    import warnings

    import torch

    from .dense import mean_pooled_module

    if progress:
        progress("onnx", 0, 1)
    model = st_encoder._loaded()
    max_len = int(model.max_seq_length)
    module = mean_pooled_module(model[0].auto_model).eval()
    # two texts of different lengths: the traced graph keeps the attention mask (no all-ones shortcut)
    tokenize = getattr(model, "preprocess", None) or model.tokenize
    example = tokenize([_PROBES[2], _PROBES[1]])
    if "token_type_ids" not in example:
        return None
    onnx_path = folder / ONNX_FILE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.inference_mode():
            torch.onnx.export(
                module, tuple(example[n] for n in INPUTS), str(onnx_path), dynamo=False,
                input_names=list(INPUTS), output_names=["sentence_embedding"], opset_version=OPSET,
                dynamic_axes={**{n: {0: "batch", 1: "sequence"} for n in INPUTS}, "sentence_embedding": {0: "batch"}},
            )
    (folder / TOKENIZER_FILE).write_text(_tokenizer_json(st_encoder, model), encoding="utf-8")
    entry = {
        "file": ONNX_FILE,
        "tokenizer": TOKENIZER_FILE,
        "export_version": EXPORT_VERSION,
        "model": st_encoder.model_id,
        "dim": int(st_encoder.dim),
        "max_seq_length": max_len,
        "pooling": "mean",
        "normalize": True,
        "exporter": f"torch.onnx TorchScript exporter, opset {OPSET}",
        "torch": _version("torch"),
        "onnx": _version("onnx"),
        "sha256": {name: sha256(folder / name) for name in FILES},
    }
    try:
        onnx_encoder = OnnxEncoder(folder, entry)
        reference = st_encoder.encode(list(_PROBES), batch_size=8)  # batched and padded, as the build embeds
        cosine, why = float((onnx_encoder.encode(list(_PROBES)) * reference).sum(1).min()), ""
    except Exception as e:  # any failure of the check: no ONNX file, the torch path answers
        cosine, why = -1.0, f"failed its check ({type(e).__name__}: {e})"
    entry["check_min_cosine"] = round(cosine, 8)
    if cosine < CHECK_COSINE:
        for name in FILES:
            (folder / name).unlink(missing_ok=True)
        print(f"note: the ONNX query encoder {why or f'reproduces the model only to cosine {cosine:.6f}'}; "
              "queries will use sentence-transformers", file=sys.stderr)
        return None
    if progress:
        progress("onnx", 1, 1)
    return entry


def reuse(previous: Path, folder: Path, model: str) -> dict[str, Any] | None:
    """Copy the previous index's export into ``folder`` when it is intact and was made from the
    same model by the same exporter and library versions (a rebuild then needs no torch for it)."""
    try:
        manifest = json.loads((previous / "manifest.json").read_text(encoding="utf-8"))
        entry = manifest.get("query_encoder")
        if not isinstance(entry, dict) or entry.get("model") != model or entry.get("export_version") != EXPORT_VERSION:
            return None
        if entry.get("torch") != _version("torch") or entry.get("onnx") != _version("onnx"):
            return None
        if any(sha256(previous / name) != entry["sha256"][name] for name in FILES):
            return None
        for name in FILES:
            shutil.copy2(previous / name, folder / name)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return entry


# ---- answer side (no torch) -----------------------------------------------------------------


class OnnxEncoder:
    """Encoder protocol over the exported model. ``model_id`` is the model's own identity: the
    vectors are those of the same model, so the index and the calibration apply unchanged."""

    def __init__(self, folder: Path, entry: dict[str, Any]):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.model_id = str(entry["model"])
        self.dim = int(entry["dim"])
        self.max_seq_length = int(entry["max_seq_length"])
        self.path = folder / entry["file"]
        self._cache = VectorCache(folder / CACHE_FILE, f"{self.model_id}:{entry['sha256'][ONNX_FILE]}")
        self._tokenizer_file = folder / entry["tokenizer"]
        tok = Tokenizer.from_file(str(self._tokenizer_file))
        self._pieces = None  # the tokenizer count_pieces uses, read on first use: a query never counts
        # the file says max_length 128 and fixed padding to 128: sentence-transformers truncates at
        # max_seq_length and pads to the longest text of the batch
        tok.enable_truncation(max_length=self.max_seq_length, strategy="longest_first")
        pad = tok.token_to_id("[PAD]")
        tok.enable_padding(pad_id=0 if pad is None else pad, pad_token="[PAD]")
        self._tok = tok
        options = ort.SessionOptions()
        options.intra_op_num_threads = _threads()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}

    def count_pieces(self, text: str) -> int | None:
        if self._pieces is None:  # only chunking counts pieces; reading the file again cost every cold answer ~30 ms
            from tokenizers import Tokenizer

            pieces = Tokenizer.from_file(str(self._tokenizer_file))
            pieces.no_padding()
            pieces.no_truncation()
            self._pieces = pieces  # whole before it is shared: a racing thread at worst reads it twice
        return len(self._pieces.encode(text, add_special_tokens=False).ids)

    def _run(self, texts: list[str]) -> np.ndarray:
        encodings = self._tok.encode_batch(texts)
        feed = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        out = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        return np.asarray(out, dtype=np.float32)

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, progress: Progress | None = None) -> np.ndarray:
        """One text per run: on one CPU thread, batching only adds padding and larger attention
        buffers (measured: 325 row descriptions 1.8 s one by one, 2.1-3.7 s in padded batches).
        A list of texts (the permit rows' descriptions every process embeds before its first
        meaning match) is looked up first in ``query_vectors.npz`` beside the index, by text hash."""
        texts = [str(t) for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        known = self._cache.get(texts) if len(texts) > 1 else {}
        for i, text in enumerate(texts):
            out[i] = known[text] if text in known else self._run([text])[0]
            if progress and ((i + 1) % batch_size == 0 or i + 1 == len(texts)):
                progress("embed", i + 1, len(texts))
        if len(texts) > 1 and len(known) < len(set(texts)):
            self._cache.add(texts, out)
        return out


class VectorCache:
    """Vectors of texts by blake2b hash, in one .npz beside the index, keyed by the model and the
    ONNX file's checksum (another export: another key, the file is started again). Written
    atomically; a damaged or read-only file only means the texts are embedded again."""

    def __init__(self, path: Path, key: str):
        self.path = path
        self.key = key
        self._vectors: dict[str, np.ndarray] | None = None

    @staticmethod
    def _hash(text: str) -> str:
        return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()

    def _load(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            self._vectors = {}
            from .caches import DAMAGED

            with contextlib.suppress(*DAMAGED):
                with np.load(self.path, allow_pickle=False) as stored:
                    if str(stored["key"]) == self.key:
                        self._vectors = dict(zip((str(h) for h in stored["hashes"]), stored["vectors"]))
        return self._vectors

    def get(self, texts: list[str]) -> dict[str, np.ndarray]:
        vectors = self._load()
        return {t: vectors[h] for t in texts if (h := self._hash(t)) in vectors}

    def add(self, texts: list[str], rows: np.ndarray) -> None:
        vectors = self._load()
        vectors.update((self._hash(t), row) for t, row in zip(texts, rows))
        hashes = list(vectors)
        with contextlib.suppress(OSError):
            handle, temp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as f:
                    np.savez(f, key=np.array(self.key), hashes=np.array(hashes), vectors=np.stack([vectors[h] for h in hashes]))
                os.replace(temp, self.path)
            finally:
                Path(temp).unlink(missing_ok=True)


def _threads() -> int:
    """Intra-op threads: $COTATI_QUERY_THREADS, else 1 (one query is a few dozen tokens; see
    ``dense._use_threads`` for why one thread is the better default on a shared machine)."""
    import settings

    try:
        return max(1, int(settings.value("query_threads") or 1))
    except settings.SettingError:
        return 1


def load(folder: Path, manifest: dict[str, Any], model: str) -> tuple[OnnxEncoder | None, str]:
    """The ONNX encoder of the index at ``folder``, or (None, why not)."""
    entry = manifest.get("query_encoder")
    if not isinstance(entry, dict):
        return None, "the index has no ONNX query encoder (built before it existed)"
    if entry.get("model") != model:
        return None, f"the ONNX query encoder was exported from {entry.get('model')}, not {model}"
    try:
        for name in FILES:
            f = folder / entry.get("file" if name == ONNX_FILE else "tokenizer", name)
            if not f.is_file():
                return None, f"{f.name} is missing"
            if remembered_sha256(f, sha256) != entry.get("sha256", {}).get(name):
                return None, f"{f.name} does not match its checksum in the manifest"
        return OnnxEncoder(folder, entry), ""
    except ImportError as e:
        return None, f"{e.name or 'onnxruntime'} is not installed"
    except Exception as e:  # a file onnxruntime or tokenizers cannot read: the torch path answers
        return None, f"cannot load it ({type(e).__name__}: {e})"
