"""The vocabularies the table parsers read: data files under ``ingest/data/tables_*.json``.

Loaded lazily and once; nothing is read at import time.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .types import TableError

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
VOCABULARY_FILE = DATA_DIR / "tables_vocabulary.json"
LAYOUTS_FILE = DATA_DIR / "tables_layouts.json"


@dataclass(frozen=True, eq=False)  # hashed by identity: loaded once, used as a cache key
class Vocabulary:
    districts: dict[str, str]
    name_variants: dict[str, tuple[str, ...]]
    codes: tuple[str, ...]  # longest first, so "MUP" is tried before "UP" and "P"
    dashes: tuple[str, ...]
    not_allowed: str
    meanings: dict[str, str]
    transect_tokens: tuple[str, ...]
    roles: tuple[str, ...]
    row_equivalents: tuple[tuple[str, str], ...] = ()  # (regex, replacement) for matching row labels

    @property
    def symbol_pattern(self) -> str:
        """Regex alternation of district symbols, longest first."""
        return "|".join(re.escape(s) for s in sorted(self.districts, key=len, reverse=True))

    @property
    def dash_pattern(self) -> str:
        return "|".join(re.escape(d) for d in sorted(self.dashes, key=len, reverse=True))

    @property
    def code_pattern(self) -> str:
        return "|".join(re.escape(c) for c in sorted(self.codes, key=len, reverse=True))


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise TableError(str(path), f"cannot read table vocabulary: {error}") from error


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    data = _read(VOCABULARY_FILE)
    variants = {
        symbol: tuple(names)
        for symbol, names in data.get("district_name_variants", {}).items()
        if not symbol.startswith("_")
    }
    return Vocabulary(
        districts=dict(data["districts"]),
        name_variants=variants,
        codes=tuple(sorted(data["permit_codes"], key=len, reverse=True)),
        dashes=tuple(sorted(data["not_allowed_dashes"], key=len, reverse=True)),
        not_allowed=data["not_allowed_value"],
        meanings=dict(data["code_meanings"]),
        transect_tokens=tuple(data["transect_tokens"]),
        roles=tuple(data["review_roles"]),
        row_equivalents=tuple(
            (pattern, replacement)
            for pattern, replacement in data.get("row_key_equivalents", {}).items()
            if not pattern.startswith("_")
        ),
    )


@lru_cache(maxsize=1)
def layouts() -> dict:
    """Per-table layout specs keyed by "<section> <table>" (see tables_layouts.json)."""
    data = _read(LAYOUTS_FILE)
    return {key: value for key, value in data.items() if not key.startswith("_")}
