"""Where the embedded engine's shards live on disk, and how several processes share one.

One folder per corpus (city) under the root (``edge`` beside the index folder, i.e. ``var/edge``,
unless ``$COTATI_QDRANT_PATH``)::

    <root>/<corpus>/
        writer.lock        held (flock, exclusive, never waited for) while a process writes the corpus
        CURRENT            the name of the published generation, replaced atomically
        g-<ns>-<hex>/      one generation, never changed once published:
            shard/         the engine's files
            record.json    what it holds: corpus, key (the index it was loaded from), avgdl, chunks, dim
            readers.lock   held shared by every process that has this generation open

Why generations: Qdrant Edge 0.9 has no read-only open. With its write-ahead log on, a second
process cannot open the shard at all (the WAL's lock: "Can't init WAL: WouldBlock"); with it off,
nothing stops two processes from opening it, and every process writes its state back on close, so a
writer's changes could be lost or seen half done by a reader. So a writer never changes a published
shard: it writes a new generation (a copy of the current one for an add or a remove), flushes it,
opens it once more to settle it (the first open consumes the engine's journals and rewrites its
config; later opens write back only the bytes already there), then publishes it by replacing
CURRENT. Readers open the generation CURRENT names and hold its readers.lock shared; a writer
deletes an old generation only when it can take that lock exclusively, i.e. no process has it open.
A second writer is refused at once with one line naming the folder: never a wait.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator

from .backend import BackendError
from .caches import fsync_dir

SHARD = "shard"
RECORD = "record.json"
CURRENT = "CURRENT"
WRITER_LOCK = "writer.lock"
READERS_LOCK = "readers.lock"
_GENERATION = re.compile(r"g-\d+-[0-9a-f]{8}")
_CORPUS = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_OPEN_TRIES = 50  # a generation is being deleted only after CURRENT moved on: re-reading it succeeds


def _error(where: Path, reason: str) -> BackendError:
    return BackendError("qdrant", f"{where}: {reason}")


@dataclass
class Opened:
    """A published generation this process has open: its folder, its record, and the shared lock
    that keeps a writer from deleting it (released by ``release``)."""

    path: Path
    record: dict[str, Any]
    lock: IO[str] | None

    @property
    def shard(self) -> Path:
        return self.path / SHARD

    def release(self) -> None:
        if self.lock is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self.lock, fcntl.LOCK_UN)
            self.lock.close()
            self.lock = None


class CorpusShards:
    """The generations of one corpus's shard under ``root``."""

    def __init__(self, root: Path, corpus: str):
        if not _CORPUS.fullmatch(corpus):
            raise _error(Path(root), f"corpus name {corpus!r}: use letters, digits, '.', '_' or '-' (it names a folder)")
        self.dir = Path(root) / corpus
        self.corpus = corpus

    # -- reading -------------------------------------------------------------------------------
    def current(self) -> Path | None:
        """The published generation's folder, or None when nothing was ever published."""
        try:
            name = (self.dir / CURRENT).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        except OSError as e:
            raise _error(self.dir, f"cannot read {CURRENT} ({e.strerror or e})") from None
        if not _GENERATION.fullmatch(name):
            raise _error(self.dir, f"damaged: {CURRENT} names {name[:40]!r}, not a generation; delete the folder to rebuild")
        return self.dir / name

    def open(self) -> Opened | None:
        """The published generation, locked shared so no writer deletes it while it is open."""
        if self.dir.exists() and not self.dir.is_dir():
            raise _error(self.dir, "is a file, not a folder")
        for _ in range(_OPEN_TRIES):
            gen = self.current()
            if gen is None:
                return None
            try:
                lock = open(gen / READERS_LOCK, "a+")
            except FileNotFoundError:  # deleted after CURRENT moved on: read CURRENT again
                continue
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:  # a writer is deleting it (CURRENT has moved on)
                lock.close()
                time.sleep(0.01)
                continue
            if (gen / SHARD).is_dir() and (gen / RECORD).is_file():
                return Opened(gen, read_record(gen), lock)
            lock.close()
        raise _error(self.dir, f"{CURRENT} keeps naming a generation that is gone; is a writer looping?")

    # -- writing -------------------------------------------------------------------------------
    @contextlib.contextmanager
    def writing(self) -> Iterator[Path]:
        """A new, empty generation folder to write a shard and its record into; published when the
        block ends without an error, deleted when it raises. Only one process writes at a time: a
        second is refused at once (``BackendError``), never made to wait."""
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            lock = open(self.dir / WRITER_LOCK, "a+")
        except OSError as e:
            raise _error(self.dir, f"cannot write here ({e.strerror or e})") from None
        try:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise _error(self.dir, f"another process is writing this index (it holds {WRITER_LOCK}); "
                                       "try again when it has finished") from None
            gen = self.dir / f"g-{time.time_ns()}-{uuid.uuid4().hex[:8]}"
            gen.mkdir()
            (gen / READERS_LOCK).touch()
            try:
                yield gen
                self._publish(gen)
            except BaseException:
                shutil.rmtree(gen, ignore_errors=True)
                raise
            self._sweep()
        finally:
            lock.close()  # releases the flock

    def _publish(self, gen: Path) -> None:
        if not (gen / SHARD).is_dir() or not (gen / RECORD).is_file():  # a writer's bug, never a reader's problem
            raise _error(gen, f"not published: no {SHARD}/ or no {RECORD} written")
        tmp = self.dir / f".{CURRENT}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(gen.name + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.dir / CURRENT)
        fsync_dir(self.dir)

    def _sweep(self) -> None:
        """Delete every generation but the current one that no process has open (and what crashed
        writers left); one still open is left for a later writer to delete."""
        live = self.current()
        for gen in self.dir.glob("g-*"):
            if gen == live or not gen.is_dir():
                continue
            try:
                with open(gen / READERS_LOCK, "a+") as lock:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    shutil.rmtree(gen, ignore_errors=True)
            except (BlockingIOError, OSError):
                continue


def read_record(gen: Path) -> dict[str, Any]:
    try:
        record = json.loads((gen / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise _error(gen, f"damaged: {RECORD} unreadable ({e}); delete the folder to rebuild") from None
    if not isinstance(record, dict):
        raise _error(gen, f"damaged: {RECORD} is not an object")
    return record


def write_record(gen: Path, record: dict[str, Any]) -> None:
    with open(gen / RECORD, "w", encoding="utf-8") as f:
        json.dump(record, f, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())


