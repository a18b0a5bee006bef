"""Caches kept beside the index (``sentences.npz``, ``provisions.npz``, ``query_vectors.npz``...):
how to tell a damaged one. A ``.npz`` is a zip whose members carry CRC-32 checksums; a cache whose
checksums do not match (a truncated write, a flipped byte, another file renamed) is rebuilt by its
reader, and ``index build`` never carries it into a new index."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
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


# -- checksums remembered by file stamp ----------------------------------------------------------
# Every cold answer checked the 90 MB ONNX export against its sha256 in the manifest: about 0.25 s,
# a third of the whole onnxruntime + one-query floor (issue 25). The digest is remembered in a
# hidden file beside it, by the file's size, mtime (ns) and inode; any write changes the stamp, so
# the file is hashed again. As git does for its index ("racy git"), a file modified within
# RACY_SECONDS of now is not remembered: a write in the same clock tick could keep its stamp.
STAMPS = ".checksums.json"  # hidden: never carried into a rebuilt index (store._carry_caches)
RACY_SECONDS = 2.0


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _read_stamps(folder: Path) -> dict:
    import json

    try:
        found = json.loads((folder / STAMPS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _write_stamps(folder: Path, stamps: dict) -> None:
    import contextlib
    import json
    import os
    import tempfile

    with contextlib.suppress(OSError):  # a read-only index folder: hashed again next time
        handle, temp = tempfile.mkstemp(dir=folder, prefix=f"{STAMPS}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as f:
                json.dump(stamps, f)
            os.replace(temp, folder / STAMPS)
        finally:
            Path(temp).unlink(missing_ok=True)


def remembered_sha256(path: Path, digest) -> str:
    """``digest(path)`` (a file's sha256), taken from the folder's stamps when the file's size, mtime
    and inode are those it had when hashed; else computed and remembered."""
    import time

    stamp = _stamp(path)
    stamps = _read_stamps(path.parent)
    entry = stamps.get(path.name)
    if isinstance(entry, list) and len(entry) == 4 and entry[:3] == stamp:
        return str(entry[3])
    value = digest(path)
    if time.time() - stamp[1] / 1e9 > RACY_SECONDS and _stamp(path) == stamp:
        _write_stamps(path.parent, {**stamps, path.name: [*stamp, value]})
    return value


def fsync_dir(path: Path) -> None:
    """Make a rename into ``path`` durable (where the file system allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# -- caches the index manifest vouches for -------------------------------------------------------
# A cache whose only checksum sits in its own header vouches for itself: whoever can edit it can
# recompute that too (issue 37 item 3). The manifest records the sha256 of such a file with what it
# was made from (``caches``: name -> entry); the reader trusts the file only when they agree.
MANIFEST = "manifest.json"
CACHES = "caches"


@contextlib.contextmanager
def folder_lock(path: Path, wait: bool = True):
    """One writer of the index folder ``path`` at a time (a build, or a manifest entry added).
    ``wait=False``: ``BlockingIOError`` at once when another holds it."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f".{path.name}.lock", "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _manifest(folder: Path) -> dict | None:
    import json

    try:
        found = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def cache_entry(folder: Path, name: str) -> dict | None:
    """The manifest's entry for the cache file ``name`` beside the index (its sha256 and what it was
    made from); None when there is none."""
    manifest = _manifest(folder)
    caches = manifest.get(CACHES) if manifest is not None else None
    entry = caches.get(name) if isinstance(caches, dict) else None
    return entry if isinstance(entry, dict) else None


def replace_file(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: a temporary file beside it, fsynced, then renamed (``OSError``
    when that cannot be done; no temporary file is left)."""
    import tempfile

    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    finally:
        Path(temp).unlink(missing_ok=True)


def record_cache(folder: Path, name: str, entry: dict) -> bool:
    """Record ``entry`` for the cache ``name`` in the folder's manifest (rewritten atomically, under the
    folder's lock, so a build swapping the folder meanwhile is not overwritten); False where there is
    no manifest or it cannot be written."""
    import json

    try:
        with folder_lock(folder):
            manifest = _manifest(folder)
            if manifest is None:
                return False
            caches = manifest.get(CACHES) if isinstance(manifest.get(CACHES), dict) else {}
            manifest[CACHES] = {**caches, name: entry}
            replace_file(folder / MANIFEST, json.dumps(manifest, ensure_ascii=False, sort_keys=True, indent=1).encode())
            fsync_dir(folder)
    except OSError:
        return False
    return True


# -- entries vouched for by a key outside the index folder (issue 45) ----------------------------------
# The manifest sits in the same folder as the caches it describes: a sha256 there vouches for nothing
# against someone who can write the folder. An entry carries an HMAC under a key kept elsewhere.
KEY_BYTES = 32


def secret() -> bytes | None:
    """The key that vouches for cache entries, kept outside every index folder (made on first use, owner
    only); None when it cannot be read or made."""
    import settings

    path = Path(settings.cache_key_file())
    try:
        if path.stat().st_mode & 0o077:  # readable or writable by others: it vouches for nothing
            return None
        data = path.read_bytes()
    except FileNotFoundError:
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(os.urandom(KEY_BYTES))
                f.flush()
                os.fsync(f.fileno())
        except FileExistsError:  # another process made it first
            pass
        except OSError:
            return None
        try:
            data = path.read_bytes()
        except OSError:
            return None
    except OSError:
        return None
    return data if len(data) == KEY_BYTES else None


def mac(entry: dict, key: bytes) -> str:
    """HMAC-SHA256 of a cache entry's fields (all but ``mac``), under the key outside the index folder."""
    body = json.dumps({k: v for k, v in entry.items() if k != "mac"}, sort_keys=True, separators=(",", ":"))
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def vouched(entry: dict | None) -> bool:
    """True when the entry's HMAC verifies under the key kept outside the index folder."""
    key = secret()
    return bool(entry and key and isinstance(entry.get("mac"), str) and hmac.compare_digest(entry["mac"], mac(entry, key)))


def signed(entry: dict, key: bytes | None = None) -> dict:
    """``entry`` with its HMAC under the key outside the index folder (without ``mac`` when there is no key)."""
    key = key if key is not None else secret()
    bare = {k: v for k, v in entry.items() if k != "mac"}
    return {**bare, "mac": mac(bare, key)} if key else bare
