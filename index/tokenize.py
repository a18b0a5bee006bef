"""BM25 tokenizer: keeps code identifiers whole, folds case and simple plurals, drops stop words.

Identifiers matter more than prose here: staff search by "17.44.065" or "Table 3-7", so section
numbers, table numbers and district symbols stay single tokens, and a number keeps its unit
("35 feet" -> "35", "35ft") so "35-foot" and "35 ft." match each other.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from . import vocab

TOKENIZER_VERSION = 1  # bump when the rules below change: it is part of the index key

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
_DASH_BETWEEN_DIGITS = re.compile(rf"(?<=\d)\s?[{_DASHES}]\s?(?=\d)")
_POSSESSIVE = re.compile(r"(?<=[^\W\d_])['\u2019]s\b")
_TOKEN = re.compile(
    r"""
      (?P<dotted>\d+(?:\.\d+)+)            # 17.44.050, chapter 17.44, decimal 2.5
    | (?P<range>\d+(?:-\d+)+)              # Table 2-4, 25-35, 2023-11-06
    | (?P<num>\d{1,3}(?:,\d{3})+(?!\d)|\d+)  # 1,200 -> 1200
    | (?P<word>[^\W\d_][^\W_]*)            # words, PA25
    """,
    re.VERBOSE,
)
_IRREGULAR = {"feet": "foot"}  # the one irregular plural the code uses constantly
_TABLE_WORD = re.compile(r"tables?\s*$", re.IGNORECASE)


@lru_cache(maxsize=1)
def _unit_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    surface_to_unit = {}
    for unit, forms in vocab.units().items():
        for form in forms:
            surface_to_unit[form.lower()] = unit
    alts = "|".join(re.escape(f) for f in sorted(surface_to_unit, key=len, reverse=True))
    # the unit may follow after one space or a hyphen ("35-foot"); it must end at a word edge
    pattern = re.compile(rf"[ \t]?-?[ \t]?({alts})(?![^\W_])", re.IGNORECASE)
    return pattern, surface_to_unit


def normalize(text: str) -> str:
    """Unicode-normalise and unify dashes between digits so "2–4" and "2-4" tokenise alike."""
    text = unicodedata.normalize("NFKC", text)
    text = _DASH_BETWEEN_DIGITS.sub("-", text)
    return _POSSESSIVE.sub("", text)


def fold_plural(word: str) -> str:
    """Simple English plural folding ("units" -> "unit", "facilities" -> "facility"); short words,
    district symbols and listed exceptions are left alone."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or word in vocab.districts() or word in vocab.nofold():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("s"):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Tokens for BM25, in text order (a query and a passage go through the same function)."""
    if not text:
        return []
    text = normalize(text)
    stop, districts = vocab.stopwords(), vocab.districts()
    unit_re, surface_to_unit = _unit_pattern()
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        kind, tok = m.lastgroup, m.group()
        if kind == "word":
            low = tok.lower()
            if low in districts:
                out.append(low)
                continue
            if len(low) == 1 or low in stop:  # one letter: list markers "A." "(b)"
                continue
            low = fold_plural(low)
            if low not in stop:
                out.append(low)
            continue
        if kind == "range":
            out.append(tok)
            if _TABLE_WORD.search(text, 0, m.start()):
                out.append("table:" + tok)  # a caption or reference, not a numeric range
            continue
        if kind == "num":
            tok = tok.replace(",", "")
        out.append(tok)
        if kind == "num" or (kind == "dotted" and tok.count(".") == 1):
            u = unit_re.match(text, m.end())
            if u:
                out.append(tok + surface_to_unit[u.group(1).lower()])
    return out
