"""Checksums remembered by file stamp (index/caches.py): a file hashed once is not hashed again while
its size, mtime and inode stay; any rewrite is hashed again; a just-written file is never remembered."""

from __future__ import annotations

import hashlib
import os
import time

from index.caches import STAMPS, remembered_sha256


def _digest(calls):
    def digest(path):
        calls.append(path.name)
        return hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


def _aged(path, seconds=60):
    old = time.time() - seconds
    os.utime(path, (old, old))


def test_an_unchanged_file_is_hashed_once(tmp_path):
    f = tmp_path / "model.onnx"
    f.write_bytes(b"weights")
    _aged(f)
    calls = []
    first = remembered_sha256(f, _digest(calls))
    assert remembered_sha256(f, _digest(calls)) == first == hashlib.sha256(b"weights").hexdigest()
    assert calls == ["model.onnx"] and (tmp_path / STAMPS).is_file()


def test_a_rewritten_file_is_hashed_again(tmp_path):
    f = tmp_path / "model.onnx"
    f.write_bytes(b"weights")
    _aged(f, 120)
    remembered_sha256(f, _digest([]))
    f.write_bytes(b"weighTs")  # same size, new content
    _aged(f, 60)
    assert remembered_sha256(f, _digest([])) == hashlib.sha256(b"weighTs").hexdigest()


def test_a_file_written_just_now_is_not_remembered(tmp_path):
    f = tmp_path / "model.onnx"
    f.write_bytes(b"weights")
    calls = []
    remembered_sha256(f, _digest(calls))
    remembered_sha256(f, _digest(calls))
    assert calls == ["model.onnx", "model.onnx"] and not (tmp_path / STAMPS).exists()
