"""Caches kept beside the index (``sentences.npz``, ``provisions.npz``, ``query_vectors.npz``...):
how to tell a damaged one. A ``.npz`` is a zip whose members carry CRC-32 checksums; a cache whose
checksums do not match (a truncated write, a flipped byte, another file renamed) is rebuilt by its
reader, and ``index build`` never carries it into a new index."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

# What numpy raises on a damaged .npz: each means "rebuild", never a failed answer.
DAMAGED = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error)


def cache_intact(path: Path) -> bool:
    """True when ``path`` is a cache worth keeping: a ``.npz`` whose members all pass their CRC
    check; any other regular file as it is."""
    if not path.is_file():
        return False
    if path.suffix != ".npz":
        return True
    try:
        with zipfile.ZipFile(path) as archive:
            return bool(archive.namelist()) and archive.testzip() is None
    except DAMAGED:
        return False
