"""The bundled corpus's index, shipped prebuilt and checked (issue 36): a fresh clone's first start
copies it instead of building (about 40 s of embedding the chunks, then as long again embedding the
question bank, the sentences and the provisions on the first answers).

``index/prebuilt/`` is an index folder as ``index build`` writes it (its manifest, chunks, BM25
tokens, FAISS vectors, the ONNX export's tokenizer) with two caches the assistant keeps beside it
(``derived.json``; ``query_vectors.npz``, every text list's vectors: the question bank's, the
sentences', the provisions'), less the 90 MB ONNX export: that is the model's own weights, so only its
graph is shipped (``query_encoder.skeleton``: the export with the weights' bytes cut out, and where
each goes) and the export is put back together from the installed model's ``model.safetensors``,
byte for byte (its sha256 is the manifest's).

It is used only when it is what a build would write now: ``index.store.check_index`` against this
machine's settings (model id, library and Python versions, chunker, tokenizer, BM25) and the corpus
fingerprint (the corpus folder's files, the lock among them, and the ingest code), every shipped
file against its sha256 in ``prebuilt.json``, and the reassembled export against the manifest. Any
difference (another corpus, model or code) and the index is built as before; the caches check
their own keys when read. ``python -m index prebuilt`` refreshes it; ``tests/test_prebuilt.py``
fails while it is stale.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from . import store

PREBUILT = Path(__file__).resolve().parent / "prebuilt"
RECORD = "prebuilt.json"
SKELETON = "query_encoder.skeleton"
REFRESH = "python -m index prebuilt"
# The derived records, and the vectors of every text list the assistant embeds (the question bank,
# the sentences, the provisions and their heading paths, the permit rows' descriptions) as the ONNX
# encoder's own cache keeps them: bank.npz, sentences.npz and the others are written from it on first
# use without running the model. (Shipping those too would hold the same vectors twice.)
CACHES = ("derived.json", "query_vectors.npz")
TOKENIZER = "query_tokenizer.json"
ONNX = "query_encoder.onnx"
SHIPPED = (store.MANIFEST, *store.DATA_FILES, TOKENIZER, SKELETON, *CACHES)
# The caches are the layers above's (the assistant's records, the app's questions' vectors): the refresh
# runs the app's warm-up as a process by name, so ``index`` imports nothing from ``assistant``/``webapp``.
WARM_COMMAND = ("-m", "webapp.warm")


def _sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- the ONNX export without its weights -------------------------------------------------------------
def _safetensors(path: Path) -> dict[str, Any]:
    """The tensors of a ``.safetensors`` file as numpy arrays (its format: an 8-byte header length, a
    JSON header of dtype, shape and offsets, then the bytes; read here without torch)."""
    import numpy as np

    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}
    data = path.read_bytes()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    body = memoryview(data)[8 + size:]
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        out[name] = np.frombuffer(body[start:end], dtype=dtypes[spec["dtype"]]).reshape(spec["shape"])
    return out


def _weight_bytes(tensors: dict[str, Any], name: str, transform: str) -> bytes:
    import numpy as np

    array = tensors[name]
    return np.ascontiguousarray(array.T if transform == "T" else array).tobytes()


def skeleton(onnx_path: Path, weights: Path) -> tuple[bytes, list[dict[str, Any]]]:
    """The export with each initializer's bytes cut out, and the splices that put them back (where,
    which tensor of ``weights``, transposed or not). ``ValueError`` when an initializer is not a
    tensor of the model or the splices do not give back the same bytes."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    data = onnx_path.read_bytes()
    tensors = _safetensors(weights)
    by_bytes: dict[str, tuple[str, str]] = {}
    for name, array in tensors.items():
        by_bytes.setdefault(_sha256_bytes(np.ascontiguousarray(array).tobytes()), (name, ""))
        if array.ndim == 2:
            by_bytes.setdefault(_sha256_bytes(np.ascontiguousarray(array.T).tobytes()), (name, "T"))
    pieces, splices, cursor = [], [], 0
    kept = 0
    for initializer in onnx.load_model_from_string(data).graph.initializer:
        raw = numpy_helper.to_array(initializer).tobytes()
        source = by_bytes.get(_sha256_bytes(raw))
        at = data.find(raw, cursor) if source else -1
        if source is None or at < 0:
            raise ValueError(f"initializer {initializer.name} is not a tensor of {weights.name}")
        pieces.append(data[cursor:at])
        kept += at - cursor
        splices.append({"at": kept, "tensor": source[0], "transform": source[1], "bytes": len(raw)})
        cursor = at + len(raw)
    pieces.append(data[cursor:])
    shell = b"".join(pieces)
    if assemble(shell, splices, tensors) != data:
        raise ValueError("the skeleton does not give back the export")
    return shell, splices


def assemble(shell: bytes, splices: list[dict[str, Any]], tensors: dict[str, Any]) -> bytes:
    """The export from its skeleton and the model's tensors."""
    out, cursor = [], 0
    for splice in splices:
        out.append(shell[cursor:splice["at"]])
        piece = _weight_bytes(tensors, splice["tensor"], splice["transform"])
        if len(piece) != splice["bytes"]:
            raise ValueError(f"tensor {splice['tensor']} has {len(piece)} bytes, the export {splice['bytes']}")
        out.append(piece)
        cursor = splice["at"]
    out.append(shell[cursor:])
    return b"".join(out)


def _model_weights(model: str | None) -> Path | None:
    from . import dense

    kind, location = dense.resolve_model(model)
    found = Path(location) / "model.safetensors" if kind == "path" else None
    return found if found is not None and found.is_file() else None


# -- checking and installing -------------------------------------------------------------------------
def _settings(model: str | None) -> dict[str, Any]:
    from . import dense

    return store.index_settings(dense.model_setting(model))


def problem(model: str | None = None, folder: Path = PREBUILT) -> str:
    """Why the prebuilt index cannot stand for one built now from the bundled corpus with this model
    and code ("" when it can): the first difference, in a few words."""
    from .corpus import source_fingerprint

    try:
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
        files = record["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"no readable {RECORD}"
    check = store.check_index(folder, _settings(model), fingerprint=source_fingerprint(), vouch=False)
    if not check.ok:
        return check.reason
    entry = check.manifest.get("query_encoder")
    if not isinstance(entry, dict) or record.get("onnx") != _onnx_version():
        return "its ONNX export was made by another exporter"
    for name in SHIPPED:
        path = folder / name
        if not path.is_file() or files.get(name) != store._sha256(path):
            return f"{name} is missing or does not match its checksum"
    return ""


def _onnx_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("onnx")
    except metadata.PackageNotFoundError:
        return ""


def install(path: Path, model: str | None = None, folder: Path = PREBUILT, wait: bool = True) -> str:
    """Put the prebuilt index at ``path`` when it fits (``problem``) and ``path`` holds no usable index;
    "" when done, else why not (then the index is built as before). Atomic, as a build is.
    ``wait=False``: not while another process builds there (say so and leave it to that build)."""
    from .caches import folder_lock
    from .corpus import source_fingerprint

    if not (folder / RECORD).is_file():
        return "no prebuilt index"
    why = problem(model, folder)  # before the lock: another model or corpus never waits for a build
    if why:
        return why
    settings = _settings(model)
    try:
        with folder_lock(path, wait=wait):
            return _install_locked(path, model, folder, settings, source_fingerprint())
    except BlockingIOError:
        return "another process is building the index there"


def _install_locked(path: Path, model: str | None, folder: Path, settings: dict[str, Any], fingerprint: str) -> str:
    if store.check_index(path, settings, fingerprint=fingerprint).ok:
        return ""  # another process put it there meanwhile
    weights = _model_weights(model)
    if weights is None:
        return "the model has no model.safetensors to put the ONNX export together from"
    if path.exists() and (not path.is_dir() or (any(path.iterdir()) and not (path / store.MANIFEST).exists())):
        return "the index folder holds something else"  # the build then says so in its own words
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir(parents=True)
    try:
        manifest = json.loads((folder / store.MANIFEST).read_text(encoding="utf-8"))
        export = assemble((folder / SKELETON).read_bytes(),
                          json.loads((folder / RECORD).read_text(encoding="utf-8"))["splices"],
                          _safetensors(weights))
        if _sha256_bytes(export) != manifest["query_encoder"]["sha256"][ONNX]:
            return "the installed model's weights do not give the shipped export"
        (tmp / ONNX).write_bytes(export)
        for name in (*store.DATA_FILES, TOKENIZER, *CACHES):
            shutil.copyfile(folder / name, tmp / name)
        manifest["installed"] = {"from": "index/prebuilt", "at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        # Each shipped file matched its sha256 in prebuilt.json (the code's, not the index folder's): the
        # caches' entries are vouched for here under this installation's own key (caches.signed).
        from .caches import signed

        caches = manifest.get("caches")
        if isinstance(caches, dict):
            manifest["caches"] = {name: signed(entry) if isinstance(entry, dict) else entry
                                  for name, entry in caches.items()}
        manifest = store.sign_manifest(manifest)  # vouched for here, as a build on this machine would be
        store._write_json(tmp / store.MANIFEST, manifest)  # last: a manifest means a complete index
        store.fsync_dir(tmp)
        store._swap_into_place(tmp, path)
    except (OSError, ValueError, KeyError, TypeError) as e:
        return f"cannot install it ({type(e).__name__}: {e})"
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return ""


def install_if_missing(index_dir: str | os.PathLike[str] | None = None) -> bool:
    """Before the first answer reads the derived records beside it: put the prebuilt index in an index
    folder that has none (a fresh clone). Cheap when there is one: one file's existence. True when
    installed."""
    path = store.resolve_index_dir(index_dir)
    if (path / store.MANIFEST).is_file() or not (PREBUILT / RECORD).is_file():
        return False
    try:
        return install(path, wait=False) == ""  # a build under way: the index opener waits for it, not this
    except Exception as e:  # noqa: BLE001 - an optimisation: the index is then built as before
        print(f"note: the prebuilt index was not used ({type(e).__name__}: {e})", file=sys.stderr)
        return False


# -- refreshing (the maintainer's command) ------------------------------------------------------------
def refresh(folder: Path = PREBUILT, progress=None, warm_command: tuple[str, ...] = WARM_COMMAND) -> dict[str, Any]:
    """Build the bundled corpus's index afresh with the real model, fill the caches the assistant keeps
    beside it (``warm_command`` run on the built folder), and write it to ``folder`` with the export's
    skeleton and ``prebuilt.json``."""
    import subprocess
    import tempfile

    from . import dense
    from .corpus import default_corpus, source_fingerprint

    spec = dense.model_setting(None)
    if dense.resolve_model(spec)[0] != "path":
        raise store.IndexBuildError(f"{folder}: the prebuilt index is of the shipped model, not {spec}")
    weights = _model_weights(spec)
    with tempfile.TemporaryDirectory(prefix="cotati-prebuilt-") as scratch:
        built = Path(scratch) / "index"
        manifest = store.build_index(built, default_corpus(), dense.get_encoder(spec), settings=store.index_settings(spec),
                                     fingerprint=source_fingerprint(), progress=progress)
        if "query_encoder" not in manifest or weights is None:
            raise store.IndexBuildError(f"{built}: no ONNX export to ship")
        # A fresh process answers the app's warm-up questions: it embeds every text list once.
        subprocess.run([sys.executable, *warm_command, str(built)], check=True,
                       cwd=Path(__file__).resolve().parent.parent)
        shell, splices = skeleton(built / ONNX, weights)
        (built / SKELETON).write_bytes(shell)
        missing = [name for name in SHIPPED if not (built / name).is_file()]
        if missing:
            raise store.IndexBuildError(f"{built}: the warm-up left no {', '.join(missing)}")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for name in SHIPPED:
            shutil.copyfile(built / name, folder / name)
    record = {"about": "the bundled corpus's index, prebuilt; refresh with `python -m index prebuilt`",
              "onnx": _onnx_version(), "splices": splices,
              "files": {name: store._sha256(folder / name) for name in SHIPPED}}
    store._write_json(folder / RECORD, record)
    return record

