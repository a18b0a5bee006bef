"""Vocabulary data files shipped inside ``index/data`` (loaded on first use, cached)."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources

DATA_FILES = ("stopwords.txt", "districts.txt", "nofold.txt", "units.json")


def _read(name: str) -> str:
    return resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8")


def _word_list(name: str) -> frozenset[str]:
    words = (line.split("#", 1)[0].strip() for line in _read(name).splitlines())
    return frozenset(w.lower() for w in words if w)


@lru_cache(maxsize=None)
def stopwords() -> frozenset[str]:
    return _word_list("stopwords.txt")


@lru_cache(maxsize=None)
def districts() -> frozenset[str]:
    """District symbols, lower case."""
    return _word_list("districts.txt")


@lru_cache(maxsize=None)
def nofold() -> frozenset[str]:
    return _word_list("nofold.txt")


@lru_cache(maxsize=None)
def units() -> dict[str, tuple[str, ...]]:
    """Canonical unit -> surface forms."""
    raw = json.loads(_read("units.json"))
    return {k: tuple(v) for k, v in raw.items() if not k.startswith("_")}


@lru_cache(maxsize=None)
def fingerprint() -> str:
    """Hash of all vocabulary files: a changed word list changes the index key and forces a rebuild."""
    h = hashlib.sha256()
    for name in DATA_FILES:
        h.update(name.encode())
        h.update(_read(name).encode("utf-8"))
    return h.hexdigest()[:16]
