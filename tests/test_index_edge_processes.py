"""Several processes on one Qdrant Edge shard (``index/edge_shards.py``): readers in other processes
search while a writer publishes a new generation, keep the generation they opened until they
close it, and a second writer is refused at once in one line naming the folder, never made to
wait. Hermetic: a small synthetic corpus in a temp folder, child processes of this interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from index.backend import BackendError, Entry
from index.qdrant_edge_backend import EdgeBackend

ROOT = Path(__file__).resolve().parents[1]
WORDS = ("fence", "height", "setback", "tower", "parking", "bar", "permit", "yard", "unit", "transit")
QUERY = {"tokens": ["fence", "height", "permit"], "vector": [1.0] + [0.0] * 15}

READER = """
import json, sys
import numpy as np
from index.qdrant_edge_backend import EdgeBackend
backend = EdgeBackend(sys.argv[1])
for line in sys.stdin:
    q = json.loads(line)
    found = backend.hybrid("city", q["tokens"], np.asarray(q["vector"], dtype=np.float32), 10)
    print(json.dumps({"fused": [i for i, _ in found.fused], "key": backend.record("city")["key"]}), flush=True)
backend.close()
"""

# takes the writer lock as a build would, says so, and dies holding it when told (a crashed writer)
WRITER = """
import os, sys
from index.edge_shards import CorpusShards
with CorpusShards(sys.argv[1], "city").writing():
    print("writing", flush=True)
    sys.stdin.readline()
    os._exit(0)
"""


def _entries(n: int = 40, seed: int = 0) -> list[Entry]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        v = rng.standard_normal(16).astype(np.float32)
        tokens = tuple(WORDS[j] for j in rng.integers(0, len(WORDS), size=int(rng.integers(3, 9))))
        out.append(Entry(f"c{i:03d}", f"d{i // 10}", tokens, v / np.linalg.norm(v)))
    return out


def _child(code: str, root: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, str(root)], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _ask(proc: subprocess.Popen) -> dict:
    proc.stdin.write(json.dumps(QUERY) + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    assert line, proc.stderr.read()
    return json.loads(line)


def _fused(backend: EdgeBackend) -> list[str]:
    found = backend.hybrid("city", QUERY["tokens"], np.asarray(QUERY["vector"], dtype=np.float32), 10)
    return [i for i, _ in found.fused]


def test_readers_in_other_processes_keep_their_generation_while_a_writer_publishes(tmp_path):
    root = tmp_path / "edge"
    writer = EdgeBackend(root)
    writer.build("city", _entries(seed=0), key="first")
    first = _fused(writer)
    reader = _child(READER, root)
    try:
        assert _ask(reader) == {"fused": first, "key": "first"}  # another process reads the published shard
        writer.build("city", _entries(seed=1), key="second")  # ... and a writer publishes while it reads
        second = _fused(writer)
        assert second != first
        assert _ask(reader) == {"fused": first, "key": "first"}  # the reader's generation is intact
        late = _child(READER, root)
        try:
            assert _ask(late) == {"fused": second, "key": "second"}  # a process opening now gets the new one
        finally:
            late.stdin.close()
            late.wait(timeout=30)
        assert len(list((root / "city").glob("g-*"))) == 2  # the one the first reader holds is kept
    finally:
        reader.stdin.close()
        reader.wait(timeout=30)
    writer.remove("city", "d0")  # the next write deletes the generations no process holds
    assert len(list((root / "city").glob("g-*"))) == 1
    writer.close()


def test_a_second_writer_is_refused_at_once_in_one_line(tmp_path):
    root = tmp_path / "edge"
    backend = EdgeBackend(root)
    backend.build("city", _entries(), key="first")
    before = _fused(backend)
    holder = _child(WRITER, root)
    try:
        assert holder.stdout.readline().strip() == "writing", holder.stderr.read()
        started = time.monotonic()
        with pytest.raises(BackendError) as refused:
            backend.build("city", _entries(seed=1), key="second")
        assert time.monotonic() - started < 2  # refused, not queued behind the other writer
        message = str(refused.value)
        assert "\n" not in message and f"{root / 'city'}: another process is writing this index" in message
        assert _fused(backend) == before and backend.record("city")["key"] == "first"  # reading goes on meanwhile
    finally:
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=30)
    backend.build("city", _entries(seed=1), key="second")  # the writer died holding the lock: the lock died with it
    assert backend.record("city")["key"] == "second"
    assert len(list((root / "city").glob("g-*"))) == 1  # and the generation it left half-written is swept
    backend.close()
