"""Vocabularies the answer layer reads: districts, everyday land-use words, topics (data files)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class District:
    symbol: str
    name: str
    aliases: tuple[str, ...]
    places: tuple[str, ...]
    also_means: tuple[str, ...] = ()  # what the symbol means in everyday English ("CA": California)


@dataclass(frozen=True)
class Vocabulary:
    districts: tuple[District, ...]
    groups: dict  # "downtown" -> (symbols)
    synonyms: dict  # everyday phrase -> table label phrase
    topics: dict  # topic -> (words, sections)
    paired_topics: dict  # topic -> (words, words that must come with them): "lot" only with "wide", "size" ...
    also: dict = field(default_factory=dict)  # everyday phrase -> the labels another table prints for it ("duplex")
    # A group word the code's headings print -> its districts ("residential" -> OSC..NU), read only
    # before a plural "districts"/"zones" (understand._group_districts).
    group_words: dict = field(default_factory=dict)

    @property
    def everyday_pairs(self) -> tuple[tuple[str, str], ...]:
        """(everyday phrase, table label) for every label a phrase points to, its other tables' too."""
        return (*self.synonyms.items(), *((phrase, label) for phrase, labels in self.also.items() for label in labels))

    def district(self, symbol: str) -> District | None:
        return next((d for d in self.districts if d.symbol == symbol), None)


@lru_cache(maxsize=1)
def load_vocabulary() -> Vocabulary:
    districts = _read("districts.json")
    return Vocabulary(
        districts=tuple(
            District(d["symbol"], d["name"], tuple(d["aliases"]), tuple(d["places"]), tuple(d.get("also_means", ())))
            for d in districts["districts"]
        ),
        groups={name: tuple(group["districts"]) for name, group in districts["groups"].items()},
        group_words={name: tuple(group["districts"]) for name, group in districts.get("group_words", {}).items()
                     if not name.startswith("_")},
        synonyms=dict(_read("land_uses.json")["synonyms"]),
        also={phrase: tuple(labels) for phrase, labels in _read("land_uses.json").get("also", {}).items()},
        topics={name: (tuple(t["words"]), tuple(t["sections"])) for name, t in _read("topics.json")["topics"].items()},
        paired_topics={
            name: (tuple(t["paired"]["words"]), tuple(t["paired"]["with"]))
            for name, t in _read("topics.json")["topics"].items() if "paired" in t
        },
    )


def _read(name: str) -> dict:
    path = DATA / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise RuntimeError(f"{path}: cannot read vocabulary ({error})") from None
