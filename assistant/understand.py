"""Turn a plain-English question into a Query: sections, tables, districts, land use, topics.

Matching is on whole words of the lower-cased question, with one typo tolerated in longer words
(difflib against the vocabulary), so "acessory dwelling" and "nortern gateway" still match.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from .types import Query
from .vocab import Vocabulary

SECTION = re.compile(r"(?<![\d.])(\d{1,2}\.\d{2}\.\d{3})(?![\d])")
CHAPTER = re.compile(r"\bchapter\s+(\d{1,2}\.\d{2})\b", re.I)
TABLE = re.compile(r"\btable\s+(\d-\d{1,2})\b", re.I)
APN = re.compile(r"\b(\d{3}-\d{3}-\d{3})\b")
WORD = re.compile(r"[a-z0-9][a-z0-9/&+'-]*")
# Two-letter symbols that are also English words need capitals to count as districts.
AMBIGUOUS_SYMBOLS = frozenset({"CA", "LP", "NG", "SW", "PF", "CD", "CE", "NM", "RR", "HC", "IG", "CI", "NU", "NL", "CG"})


def understand(question: str, vocabulary: Vocabulary, known_words: Iterable[str] = ()) -> Query:
    normalized = _normalize(question, set(known_words) | _vocabulary_words(vocabulary))
    districts, district_words = _districts(question, normalized, vocabulary)
    land_use, land_use_words = _land_use(normalized, vocabulary)
    return Query(
        text=question,
        normalized=normalized,
        sections=tuple(dict.fromkeys(SECTION.findall(question))),
        tables=tuple(dict.fromkeys(TABLE.findall(question))),
        districts=districts,
        district_words=district_words,
        land_use=land_use,
        land_use_words=land_use_words,
        topics=_topics(normalized, vocabulary),
        apn=(APN.search(question).group(1) if APN.search(question) else ""),
    )


def _normalize(question: str, known: set[str]) -> str:
    """Lower case, apostrophes dropped, and each unknown longer word replaced by a close known word."""
    words = WORD.findall(question.lower().replace("’", "'"))
    fixed = []
    for word in words:
        if len(word) >= 5 and word.isalpha() and word not in known:
            close = difflib.get_close_matches(word, known, n=1, cutoff=0.85)
            word = close[0] if close else word
        fixed.append(word)
    return " ".join(fixed)


def _vocabulary_words(vocabulary: Vocabulary) -> set[str]:
    phrases = list(vocabulary.synonyms) + list(vocabulary.synonyms.values())
    for district in vocabulary.districts:
        phrases += [district.name.lower(), *district.aliases, *district.places]
    for words, _ in vocabulary.topics.values():
        phrases += list(words)
    return {word for phrase in phrases for word in WORD.findall(phrase.lower())}


def _contains(text: str, phrase: str) -> bool:
    return re.search(r"(?<![a-z0-9])" + re.escape(phrase) + r"(?![a-z0-9])", text) is not None


def _districts(question: str, normalized: str, vocabulary: Vocabulary) -> tuple[tuple[str, ...], tuple[str, ...]]:
    found: list[tuple[int, str, str]] = []  # (position, symbol, words)
    for district in vocabulary.districts:
        symbol_match = re.search(r"(?<![A-Za-z])" + district.symbol + r"(?![A-Za-z])", question)
        lower_symbol = re.search(r"\b" + district.symbol.lower() + r"\b(?= zone| district| zoning)", normalized)
        if symbol_match:
            found.append((symbol_match.start(), district.symbol, district.symbol))
            continue
        if lower_symbol and district.symbol not in AMBIGUOUS_SYMBOLS | {"TOC"}:
            found.append((lower_symbol.start(), district.symbol, district.symbol.lower()))
            continue
        if lower_symbol:
            found.append((lower_symbol.start(), district.symbol, district.symbol.lower()))
            continue
        for phrase in sorted((district.name.lower(), *district.aliases, *district.places), key=len, reverse=True):
            if _contains(normalized, phrase.lower()):
                found.append((normalized.index(phrase.lower()), district.symbol, phrase))
                break
    for group, symbols in vocabulary.groups.items():
        if _contains(normalized, group) and not any(symbol in symbols for _, symbol, _ in found):
            position = normalized.index(group)
            found.extend((position, symbol, group) for symbol in symbols)
    found = _drop_shadowed(found)
    found.sort(key=lambda item: item[0])
    symbols = tuple(dict.fromkeys(symbol for _, symbol, _ in found))
    return symbols, tuple(dict.fromkeys(words for _, _, words in found))


def _drop_shadowed(found: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """'Commercial - East Cotati Avenue' should not also count as 'Commerce Avenue' and the like."""
    kept = []
    for item in found:
        position, _, words = item
        inside = any(
            other is not item and other[0] <= position and position + len(words) <= other[0] + len(other[2])
            and len(other[2]) > len(words)
            for other in found
        )
        if not inside:
            kept.append(item)
    return kept


def _land_use(normalized: str, vocabulary: Vocabulary) -> tuple[str, str]:
    """The land-use phrase the question names through an everyday word, longest match first."""
    best = ("", "")
    for phrase, target in vocabulary.synonyms.items():
        if _contains(normalized, phrase) and len(phrase) > len(best[1]):
            best = (target, phrase)
    return best


def _topics(normalized: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    return tuple(
        topic for topic, (words, _) in vocabulary.topics.items()
        if any(_contains(normalized, word) for word in words)
    )
