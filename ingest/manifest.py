"""The corpus manifest: which documents a corpus holds, their dates and kinds."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .types import DocumentInfo, IngestError

MANIFEST_NAME = "manifest.json"
REQUIRED_FIELDS = ("id", "file", "title", "kind", "date")
KINDS = ("ordinance", "codified chapter")


def default_corpus_dir() -> Path:
    """The bundled Cotati corpus, unless ``COTATI_CORPUS_DIR`` points elsewhere."""
    import settings

    override = settings.value("corpus_dir")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent / "corpus" / "cotati"


def load_manifest(corpus_dir: Path) -> tuple[DocumentInfo, ...]:
    """Documents of a corpus folder, oldest first (the order amendments apply in)."""
    path = Path(corpus_dir) / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IngestError(str(path), "no manifest.json in the corpus folder") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise IngestError(str(path), f"manifest is not valid JSON ({exc}); fix it or restore it (git checkout corpus/)") from None
    entries = data.get("documents") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise IngestError(str(path), "manifest has no 'documents' list")
    documents = [_document(path, entry, Path(corpus_dir)) for entry in entries]
    ids = [doc.id for doc in documents]
    if len(set(ids)) != len(ids):
        raise IngestError(str(path), "manifest repeats a document id")
    return tuple(sorted(documents, key=lambda doc: (doc.date, doc.id)))


def manifest_fields(corpus_dir: Path) -> tuple[dict, dict[str, dict]]:
    """The manifest as written: (its own fields but ``documents``, each entry by id with every field it
    has), what the corpus lock signs. Call after ``load_manifest`` has checked it (``IngestError`` when
    it does not read)."""
    path = Path(corpus_dir) / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IngestError(str(path), f"manifest does not read ({type(exc).__name__}); fix it or restore it "
                                     "(git checkout corpus/)") from None
    if not isinstance(data, dict) or not isinstance(data.get("documents"), list):
        raise IngestError(str(path), "manifest has no 'documents' list")
    top = {k: v for k, v in data.items() if k != "documents"}
    return top, {str(e["id"]): e for e in data["documents"] if isinstance(e, dict) and "id" in e}


def _document(manifest_path: Path, entry: object, corpus_dir: Path) -> DocumentInfo:
    if not isinstance(entry, dict):
        raise IngestError(str(manifest_path), "a manifest entry is not an object")
    missing = [name for name in REQUIRED_FIELDS if not entry.get(name)]
    if missing:
        raise IngestError(str(manifest_path), f"entry {entry.get('id', '?')!r} lacks {', '.join(missing)}")
    if not isinstance(entry["file"], str) or Path(entry["file"]).name != entry["file"]:
        raise IngestError(str(manifest_path), f"entry {entry['id']!r}: 'file' must be a file name in the corpus folder")
    sha256 = entry.get("sha256", "")
    if sha256 and not (isinstance(sha256, str) and re.fullmatch(r"[0-9a-f]{64}", sha256)):
        raise IngestError(str(manifest_path), f"entry {entry['id']!r} has a malformed sha256 (64 hex digits)")
    if not (isinstance(entry["date"], str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", entry["date"])):
        raise IngestError(str(manifest_path), f"entry {entry['id']!r} has a malformed date (YYYY-MM-DD, the day it "
                                              "takes effect)")
    if entry["kind"] not in KINDS:
        raise IngestError(str(manifest_path), f"entry {entry['id']!r} has unknown kind {entry['kind']!r}")
    return DocumentInfo(
        id=str(entry["id"]),
        path=str(corpus_dir / entry["file"]),
        title=entry["title"],
        kind=entry["kind"],
        date=entry["date"],
        status=entry.get("status", ""),
        source=entry.get("source", ""),
        short_title=entry.get("short_title", ""),
        chapter=entry.get("chapter", ""),
        date_basis=entry.get("date_basis", ""),
        sha256=sha256,
        introduced=_optional_date(manifest_path, entry, "introduced"),
        adopted=_optional_date(manifest_path, entry, "adopted"),
    )


def _optional_date(manifest_path: Path, entry: dict, name: str) -> str:
    value = entry.get(name) or ""
    if value and not (isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value)):
        raise IngestError(str(manifest_path), f"entry {entry['id']!r} has a malformed {name} date (YYYY-MM-DD)")
    return value
