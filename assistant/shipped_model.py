"""A model shipped in the package's data with a manifest that vouches for its files (the verifier,
the question encoder): the manifest read and every file's hash checked, or one line naming the file
and the command that writes it again."""

from __future__ import annotations

import json
from pathlib import Path

from ingest.integrity import file_sha256 as sha256_file  # the project's one file hash (the manifest's files)

MANIFEST_FILE = "manifest.json"


def checked_manifest(folder: Path, names: tuple[str, ...], command: str, error: type[Exception]) -> dict | None:
    """The manifest of ``folder`` once each of ``names`` matches its hash; None when no manifest is
    shipped. Raises ``error`` (one line naming the file and ``command``) otherwise."""
    manifest_path = folder / MANIFEST_FILE
    if not manifest_path.is_file():
        return None
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        int(manifest["max_length"])
        files = manifest["files"]
        if not isinstance(files, dict):
            raise TypeError("'files' is not an object")
    except (OSError, ValueError, KeyError, TypeError) as cause:
        raise error(f"{manifest_path}: not a model manifest ({cause}); refit with `{command}`") from cause
    for name in names:
        path = folder / name
        if not path.is_file() or sha256_file(path) != files.get(name):
            raise error(f"{path}: missing or not the file {manifest_path.name} names; refit with `{command}`")
    return manifest
