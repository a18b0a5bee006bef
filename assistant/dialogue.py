"""A question in a conversation: two questions in one, a follow-up that leans on the previous
question, and a symbol that needs asking back. Pure functions over understood queries; ``read``
turns text into a ``Query`` (the assistant's ``understand`` with its vocabulary)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .permits import STOP, words_of
from .types import Query
from .understand import WORD

# Where a second question starts: after a question mark, or at "and" before a question word.
# ("Can I build an ADU? im in NL" is one question with its context, not two.)
SECOND_QUESTION = re.compile(
    r"(?:\?\s+|,?\s+(?:and|also)\s+)(?=(?:how|what|who|where|when|which|do|does|is|are|can|could|may|must)\b)", re.I)
# A word about zoning: with it, "CA" can only be the district.
ZONING_CONTEXT = re.compile(r"\b(?:zon(?:e|ed|es|ing)|district|districts|overlay)\b", re.I)
# Words of a follow-up that add nothing of their own ("what about in NL?", "and in CD?", "same
# question but for the CG zone").
FOLLOW_UP_WORDS = frozenset("what about how and also then same there here instead question thing but for zone "
                            "district".split())
FOLLOW_UP = re.compile(r"^\s*(?:and |so )?(?:what|how) about\b|^\s*and\b"
                       r"|^\s*(?:and\s+)?(?:the\s+)?same\s+(?:question|thing|for)\b", re.I)


def split_questions(text: str, read: Callable[[str], Query]) -> list[Query]:
    """Two questions in one ("Can I open a gym in CD, and how many parking spaces does it need?"):
    split where a second question starts, when each part names something of its own (a use, a
    district, a topic or a section). Otherwise []: one question."""
    pieces = [p.strip(" ,;?") for p in SECOND_QUESTION.split(text) if p and p.strip(" ,;?")]
    if len(pieces) != 2 or any(len(WORD.findall(p.lower())) < 3 for p in pieces):
        return []
    queries = [read(p + "?") for p in pieces]
    if not all(q.districts or q.land_uses or q.topics or q.sections or q.apn for q in queries):
        return []
    return [_completed(piece, query, other, read)
            for piece, query, other in zip(pieces, queries, reversed(queries))]


def _completed(piece: str, query: Query, other: Query, read: Callable[[str], Query]) -> Query:
    """A part that names no district takes the other part's ("What is the HC district, and how
    dense can housing be there?"); one that names no use takes the other's ("Can I open a gym in
    CD, and how many parking spaces does it need?"), as a follow-up takes the previous question's."""
    if query.sections or query.apn or other.apn:
        return query
    added = []
    if other.land_uses and not query.land_uses and other.land_use_words:
        added.append(f"for {other.land_use_words}")
    if other.districts and not query.districts:
        added.append("in " + " and ".join(other.district_words))
    return read(f"{piece} {' '.join(added)}?") if added else query


def clarifying_options(query: Query, vocabulary) -> tuple[str, tuple[str, ...]] | None:
    """A district symbol that is also everyday shorthand ("I live in CA"), named by the symbol
    alone (not by its name, nor beside another district's symbol) and with no word about zoning:
    (the question back, the one-click options), else None."""
    if ZONING_CONTEXT.search(query.text):
        return None
    for symbol in query.districts:
        district = vocabulary.district(symbol)
        if district is None or not district.also_means or symbol not in query.district_words:
            continue
        names = (district.name.lower(), *district.aliases, *district.places)
        if any(re.search(rf"\b{re.escape(name)}\b", query.normalized) for name in names):
            continue  # also named by its name ("Commerce Avenue (CA)")
        if any(other != symbol and other in query.district_words for other in query.districts):
            continue  # named beside other district symbols ("CA vs HC", "HC, LP, NG, CA"): the district
        symbol_pattern = rf"(?<![A-Za-z]){symbol}(?![A-Za-z])"
        options = [re.sub(symbol_pattern, f"the {symbol} district", query.text, count=1)]
        options += [re.sub(symbol_pattern, meaning, query.text, count=1) for meaning in district.also_means]
        meanings = " or ".join(district.also_means)
        return f"Do you mean the {symbol} zoning district ({district.name}) or {meanings}?", tuple(options)
    return None


def with_previous(query: Query, history: Sequence, read: Callable[[str], Query]) -> tuple[Query, str]:
    """The question completed from the previous one when it names only a district (takes the
    use or topic) or only a use (takes the districts). Returns (query, previous question or "")."""
    if not history:
        return query, ""
    # Earlier questions, oldest first: plain strings, or (question, answer) turns as the app keeps them.
    asked = [h if isinstance(h, str) else h[0] for h in history if isinstance(h, (str, tuple, list)) and h]
    previous_text = next((h for h in reversed(asked) if isinstance(h, str) and h.strip()), "")
    if not previous_text:
        return query, ""
    previous = read(previous_text)
    own_words = [w for w in words_of(without_words(query.normalized, query.district_words))
                 if w not in STOP and w not in FOLLOW_UP_WORDS]
    # Only a follow-up's form carries over ("what about NM?", "and in CE", "NL?"): "What is the TOC
    # district?" names only a district too, but asks a question of its own.
    follow_up = bool(FOLLOW_UP.search(query.text)) or len(WORD.findall(query.text.lower())) <= 3
    if not follow_up:
        return query, ""
    if query.districts and not query.land_uses and not own_words and not query.sections and not query.apn:
        if not (previous.land_uses or previous.topics):
            return query, ""
        text = swap_districts(previous_text, previous.district_words, " ".join(query.district_words))
        return read(text), previous_text
    if not query.districts and previous.districts and not query.sections and not query.apn:
        text = f"{query.text.rstrip(' ?.!')} in {' and '.join(previous.district_words)}?"
        return read(text), previous_text
    return query, ""


def names_only_a_district(query: Query) -> bool:
    """The question names a district and no use, topic, section or parcel of its own."""
    return bool(query.districts) and not (query.land_uses or query.topics or query.sections or query.apn)


def without_words(text: str, phrases) -> str:
    for phrase in phrases:
        text = text.replace(phrase.lower(), " ")
    return text


def swap_districts(text: str, old_words, new_words: str) -> str:
    """The previous question with its district words replaced by the new ones."""
    for words in old_words:
        pattern = re.compile(rf"(?<![A-Za-z]){re.escape(words)}(?![A-Za-z])", re.I)
        if pattern.search(text):
            return pattern.sub(new_words, text, count=1)
    return f"{text.rstrip(' ?.!')} in {new_words}?"
