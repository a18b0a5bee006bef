"""Writing a corpus folder: one writer at a time, durable atomic writes, an interrupted add undone.

- ``writer(corpus)``: an exclusive ``fcntl.flock`` on the corpus folder for a whole read-modify-write
  (``ingest add``, ``ingest checksum``); ``reader(corpus)``: a shared one, so a check never sees half
  of an add. A second writer waits up to ``COTATI_CORPUS_LOCK_WAIT`` seconds, then is refused with
  ``CorpusBusy`` (one line: another writer is running). The lock is on the folder itself: nothing
  is created in it.
- ``write_atomic`` / ``copy_atomic``: a temporary file in the same folder, fsynced, renamed over the
  target, then the folder fsynced: a power cut or kill -9 leaves the old file or the new one.
- ``ingest add`` writes a journal (``.add-journal.json``) before it touches the folder and removes it
  when the lock holds the new document. A journal left by a killed add is one line for every entry
  point (``interrupted``); the next writer undoes the unfinished add (``recover``) and removes the
  temporary files it left.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from .types import IngestError

log = logging.getLogger(__name__)

TEMP_PREFIX = ".cotati-tmp-"
OLD_TEMP_PREFIX = ".manifest-"  # what writes before issue 37 named their temporary files
JOURNAL = ".add-journal.json"
_held: dict[str, list] = {}  # folder -> [fd, mode, depth]: this process's lock (flock is per open file)
_guard = threading.Lock()


class CorpusBusy(IngestError):
    """Another process is writing the corpus folder (``ingest add`` or ``ingest checksum``)."""


def _wait_seconds() -> float:
    import settings

    return float(settings.value("corpus_lock_wait"))


@contextmanager
def _flock(corpus: Path, exclusive: bool):
    key = os.path.realpath(corpus)
    with _guard:
        held = _held.get(key)
        if held is not None and (held[1] or not exclusive):  # nested in this process: already covered
            held[2] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield True
        finally:
            with _guard:
                _held[key][2] -= 1
        return
    try:
        fd = os.open(corpus, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # no such folder: the manifest's own check names it
        yield False
        return
    deadline = time.monotonic() + _wait_seconds()
    try:
        while True:
            try:
                fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
                break
            except OSError as error:
                if error.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
                if time.monotonic() >= deadline:
                    raise CorpusBusy(str(corpus), "another `python -m ingest add` or `ingest checksum` is writing "
                                                  "this corpus; try again when it has finished") from None
                time.sleep(0.05)
        with _guard:
            _held[key] = [fd, exclusive, 0]
        try:
            yield True
        finally:
            with _guard:
                _held.pop(key, None)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextmanager
def writer(corpus: Path):
    """The corpus folder, locked for writing (exclusive); what a killed add left is undone first."""
    with _flock(Path(corpus), exclusive=True):
        recover(Path(corpus))
        yield


@contextmanager
def reader(corpus: Path):
    """The corpus folder, locked for reading (shared): no writer is halfway through while held."""
    with _flock(Path(corpus), exclusive=False) as locked:
        if locked and not _writing_here(Path(corpus)):
            remove_temporaries(Path(corpus))  # no writer runs: any temporary file is a killed one's
            _forget_whole_add(Path(corpus))
        yield


def _writing_here(corpus: Path) -> bool:
    with _guard:
        held = _held.get(os.path.realpath(corpus))
        return bool(held and held[1])


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _mode(path: Path) -> int:
    """The mode a replaced file keeps (a new one: 0666 less the umask, as ``open`` would make it)."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text``: written to a temporary file beside it, fsynced, renamed, the folder
    fsynced. The file keeps its mode."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX, suffix=".json")
    try:
        os.fchmod(handle, _mode(path))
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
        _fsync_folder(path.parent)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def copy_atomic(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` as ``write_atomic`` writes (never a half-copied document)."""
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=TEMP_PREFIX, suffix=target.suffix)
    try:
        os.fchmod(handle, _mode(target))
        with os.fdopen(handle, "wb") as out, open(source, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
        _fsync_folder(target.parent)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def remove(path: Path) -> None:
    """Remove a file and make that durable (the folder fsynced)."""
    try:
        path.unlink()
    except FileNotFoundError:
        return
    _fsync_folder(path.parent)


def remove_temporaries(corpus: Path) -> list[str]:
    """Delete the temporary files a killed writer left (call only with the folder locked); their names."""
    gone = []
    try:
        names = [p for p in corpus.iterdir() if p.name.startswith((TEMP_PREFIX, OLD_TEMP_PREFIX)) and p.is_file()]
    except OSError:
        return gone
    for path in names:
        try:
            path.unlink()
            gone.append(path.name)
        except OSError:  # a read-only corpus: left, and hidden from every check
            pass
    return gone


# ---- the journal of ingest add -------------------------------------------------------------------

def begin_add(corpus: Path, doc_id: str, file: str, source: str) -> None:
    write_atomic(corpus / JOURNAL, json.dumps({"id": doc_id, "file": file, "source": source}) + "\n")


def end_add(corpus: Path) -> None:
    remove(corpus / JOURNAL)


def pending_add(corpus: Path) -> dict | None:
    """The journal of an add that did not finish ({id, file, source}); {} when it does not read; None
    when there is none."""
    path = corpus / JOURNAL
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and {"id", "file"} <= data.keys() else {}


def interrupted(corpus: Path) -> str:
    """One line naming an ``ingest add`` killed before it finished ("" when none): the lock does not hold
    the document its journal names."""
    from .lock import LockError, read

    journal = pending_add(corpus)
    if journal is None:
        return ""
    try:
        if journal and journal["id"] in read(corpus).documents:
            return ""  # killed after the lock was written: the add is whole
    except LockError:
        pass
    what = (f"an `ingest add` of {journal.get('source') or journal['file']} (as {journal['id']}, {journal['file']})"
            if journal else "an `ingest add`")
    return (f"{what} was interrupted before it finished; run that `python -m ingest add` again, or `python -m ingest "
            "checksum` to undo it (either undoes the unfinished add first)")


def _forget_whole_add(corpus: Path) -> None:
    """Remove the journal of an add killed after its lock was written (the add is whole)."""
    if pending_add(corpus) and not interrupted(corpus):
        try:
            end_add(corpus)
        except OSError:  # a read-only corpus: the journal misleads nobody
            pass


def recover(corpus: Path) -> str:
    """Undo an add a kill interrupted (its manifest entry and file, unless the lock holds them) and remove
    leftover temporary files; one line saying what was undone ("" when nothing was). Call with the
    folder locked for writing."""
    from .lock import LockError, read
    from .manifest import MANIFEST_NAME

    remove_temporaries(corpus)
    journal = pending_add(corpus)
    if journal is None:
        return ""
    try:
        lock = read(corpus)
    except LockError:
        lock = None
    said = ""
    if journal and not (lock and journal["id"] in lock.documents):
        manifest = corpus / MANIFEST_NAME
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
            kept = [e for e in data["documents"] if not (isinstance(e, dict) and str(e.get("id")) == journal["id"])]
            if len(kept) != len(data["documents"]):
                data["documents"] = kept
                write_atomic(manifest, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a manifest that does not read is named by the check, as ever
        signed_files = {d.file for d in lock.documents.values()} if lock else set()
        if journal["file"] not in signed_files and "/" not in journal["file"]:
            remove(corpus / journal["file"])
        said = f"undid an interrupted `ingest add` of {journal.get('source') or journal['file']} (as {journal['id']})"
        log.warning("%s: %s", corpus, said)
    end_add(corpus)
    return said
