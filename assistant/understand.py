"""Turn a plain-English question into a Query: sections, tables, districts, land use, topics.

Matching is on whole words of the lower-cased question, with one typo tolerated in longer words
(difflib against the vocabulary), so "acessory dwelling" and "nortern gateway" still match. A word
that is an English word is never corrected ("heater" stays "heater", see ``english``).
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from collections.abc import Callable, Iterable

from . import answer_type, comparison, premise
from .choose import TUNED
from .english import is_english_word
from .types import Query
from .vocab import Vocabulary

SECTION = re.compile(r"(?<![\d.])(\d{1,2}\.\d{2}\.\d{3})(?![\d])")
SUBSECTION = re.compile(r"(\d{1,2}\.\d{2}\.\d{3})\s*(?:\(\s*([A-Z])\s*\)|\s+([A-Z])\b)(?:\s*\(?\s*(\d{1,2})\s*\)?)?")
CHAPTER = re.compile(r"\bchapter\s+(\d{1,2}\.\d{2})\b", re.I)
TABLE = re.compile(r"\btable\s+(\d-\d{1,2})\b", re.I)
APN = re.compile(r"\b(\d{3}-\d{3}-\d{3})\b")
WORD = re.compile(r"[a-z0-9][a-z0-9/&+'-]*")
# Two-letter symbols that are also English words need capitals to count as districts.
AMBIGUOUS_SYMBOLS = frozenset({"CA", "LP", "NG", "SW", "PF", "CD", "CE", "NM", "RR", "HC", "IG", "CI", "NU", "NL", "CG"})
# Lower case, a symbol counts where the question puts a district there: "a bar in ce?", "zoned nl", "in the
# toc or sw" (the place a district is named, then the end, a comma or another district); never "in ca",
# which is California (issue 45).
LOWER_PLACE = r"(?:\b(?:in|into|within|zoned|at)\s+(?:the\s+|a\s+|an\s+|my\s+)?)"
LOWER_END = r"(?=\s*(?:[?.!,;:)]|$|\b(?:and|or|zones?|districts?|zoning|areas?)\b))"
LOWER_ALSO = r"(?:\s*(?:,|\band\b|\bor\b|/)\s*(?:the\s+)?[a-z]{2,4})*"
NOT_LOWER = frozenset({"CA"})


def understand(question: str, vocabulary: Vocabulary, known_words: Iterable[str] | None = None,
               is_word: Callable[[str], bool] = is_english_word) -> Query:
    """``known_words``: the words typos are corrected towards; by default the vocabulary's own.
    A caller answering many questions passes one precomputed set (see ``known_words_of``).
    ``is_word``: whether a word is an English word, and so never a typo."""
    known = known_words if isinstance(known_words, (set, frozenset)) else known_words_of(vocabulary, known_words or ())
    normalized = _normalize(question, known, is_word)
    corrected = _corrected(question, normalized)
    districts, district_words = _districts(question, normalized, vocabulary)
    land_uses = _land_uses(normalized, vocabulary)
    land_use, land_use_words = land_uses[0] if land_uses else ("", "")
    # On the question as typed ("$" is a cue), as most routes read it; its corrected spelling reads
    # the same on every dev question.
    asks = answer_type.classify(question)
    return Query(
        text=question,
        normalized=normalized,
        corrected=corrected,
        sections=tuple(dict.fromkeys(SECTION.findall(question))),
        subsection=_subsection_path(question),
        tables=tuple(dict.fromkeys(TABLE.findall(question))),
        districts=districts,
        district_words=district_words,
        land_use=land_use,
        land_use_words=land_use_words,
        land_uses=tuple(target for target, _ in land_uses),
        topics=_topics(_without(normalized, district_words + district_names_in(normalized, vocabulary)), vocabulary),
        apn=(APN.search(question).group(1) if APN.search(question) else ""),
        detected=asks.detected,
        asked=asks.asked,
        ranks=comparison.ranks(question),
        claim=premise.claim_of(question),
    )


def _subsection_path(question: str) -> tuple[str, ...]:
    match = SUBSECTION.search(question)
    if not match:
        return ()
    letter = match.group(2) or match.group(3)
    return (letter, match.group(4)) if match.group(4) else (letter,)


def _normalize(question: str, known: set[str], is_word: Callable[[str], bool] = is_english_word) -> str:
    """Lower case, apostrophes dropped, and each unknown longer word that is not an English word
    replaced by a close known word."""
    words = WORD.findall(question.lower().replace("’", "'"))
    fixed = []
    for word in words:
        if (len(word) >= 5 and word.isalpha() and word not in known and not _plural_of_known(word, known)
                and not is_word(word)):
            close = _closest_known(word, known)
            # An inflection of a known word ("remove" / "removed") is a word, not a typo.
            if close and not (close[0].startswith(word) or word.startswith(close[0])):
                word = close[0]
        fixed.append(word)
    return " ".join(fixed)


def _closest_known(word: str, known: frozenset[str]) -> list[str]:
    """difflib's closest known word at the cutoff. rapidfuzz first keeps the words whose Indel
    similarity 2*LCS/(a+b) reaches the cutoff: difflib's ratio counts at most the longest common
    subsequence, so no word it would accept is dropped, and difflib then decides as before."""
    from rapidfuzz import fuzz, process

    found = process.extract(word, known, scorer=fuzz.ratio, score_cutoff=100 * TUNED.typo_cutoff - 1e-6, limit=None)
    return difflib.get_close_matches(word, [candidate for candidate, _, _ in found], n=1, cutoff=TUNED.typo_cutoff)


def _corrected(question: str, normalized: str) -> str:
    """The question as typed, with each misspelt word replaced by its correction ("aplication" ->
    "application"), keeping everything else (section numbers, case, punctuation) for search."""
    typed = WORD.findall(question.lower().replace("’", "'"))
    fixes = {a: b for a, b in zip(typed, normalized.split(" ")) if a != b}
    if not fixes:
        return question
    pattern = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(re.escape(w) for w in fixes) + r")(?![A-Za-z0-9])", re.I)
    return pattern.sub(lambda m: fixes.get(m.group(0).lower(), m.group(0)), question)


def _plural_of_known(word: str, known: set[str]) -> bool:
    """A plural or singular of a known word is not a typo ("hours" is not "hour")."""
    return word.endswith("s") and word[:-1] in known or word + "s" in known


def known_words_of(vocabulary: Vocabulary, extra: Iterable[str] = ()) -> frozenset[str]:
    return frozenset(set(extra) | _vocabulary_words(vocabulary))


def _vocabulary_words(vocabulary: Vocabulary) -> set[str]:
    phrases = list(vocabulary.synonyms) + list(vocabulary.synonyms.values())
    for district in vocabulary.districts:
        phrases += [district.name.lower(), *district.aliases, *district.places]
    for words, _ in vocabulary.topics.values():
        phrases += list(words)
    return {word for phrase in phrases for word in WORD.findall(phrase.lower())}


def _contains(text: str, phrase: str) -> bool:
    """Whole-word phrase match that ignores simple plurals ("cell sites" names "cell site")."""
    return _whole_phrase_in(fold_plurals(text), fold_plurals(phrase))


# What the pattern (?<![a-z0-9])PHRASE(?![a-z0-9]) matched, by str.find: a cold process checks the
# question against hundreds of vocabulary phrases, and compiling a pattern for each was a tenth of
# a cold answer (issue 25).
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def _whole_phrase_in(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` with no lower-case letter or digit touching either end."""
    start = text.find(phrase)
    while start != -1:
        end = start + len(phrase)
        if (start == 0 or text[start - 1] not in _WORD_CHARS) and (end == len(text) or text[end] not in _WORD_CHARS):
            return True
        start = text.find(phrase, start + 1)
    return False


@lru_cache(maxsize=8192)
def fold_plurals(text: str) -> str:
    return PLURAL.sub(lambda m: _singular(m.group(0)), text)


PLURAL = re.compile(r"\b([a-z]{3,}?)(?:ies|s)\b")


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ss") or len(word) <= 3:
        return word
    return word[:-1]


def _lower_placed(question: str, symbol: str) -> int | None:
    """Where a lower-case symbol stands as a district ("in ce?", "zoned nl", "in lp or ce"): its position in
    the question, else None."""
    text = question.lower()
    for match in re.finditer(LOWER_PLACE + r"((?:[a-z]{2,4}" + LOWER_ALSO + r"))" + LOWER_END, text):
        names = re.findall(r"[a-z]{2,4}", match.group(1))
        if symbol in names:
            return match.start(1) + match.group(1).find(symbol)
    return None


def _districts(question: str, normalized: str, vocabulary: Vocabulary) -> tuple[tuple[str, ...], tuple[str, ...]]:
    found: list[tuple[int, str, str]] = []  # (position, symbol, words)
    for district in vocabulary.districts:
        symbol_match = re.search(r"(?<![A-Za-z])" + district.symbol + r"(?![A-Za-z])", question)
        # "rr zone", and a printed variant of a district ("rr-1.0" in 17.24.020's table)
        lower_symbol = re.search(r"\b" + district.symbol.lower() + r"\b(?= zone| district| zoning|-\d)", normalized)
        if symbol_match:
            found.append((symbol_match.start(), district.symbol, district.symbol))
            continue
        if lower_symbol and district.symbol not in AMBIGUOUS_SYMBOLS | {"TOC"}:
            found.append((lower_symbol.start(), district.symbol, district.symbol.lower()))
            continue
        if lower_symbol:
            found.append((lower_symbol.start(), district.symbol, district.symbol.lower()))
            continue
        placed = None if district.symbol in NOT_LOWER else _lower_placed(question, district.symbol.lower())
        if placed is not None:
            found.append((placed, district.symbol, district.symbol.lower()))
            continue
        for phrase in sorted((district.name.lower(), *district.aliases, *district.places), key=len, reverse=True):
            if _contains(normalized, phrase.lower()):
                found.append((fold_plurals(normalized).find(fold_plurals(phrase.lower())), district.symbol, phrase))
                break
    named_phrases = [phrase.lower() for d in vocabulary.districts for phrase in (d.name, *d.aliases)
                     if _contains(normalized, phrase.lower())]
    for group, symbols in vocabulary.groups.items():
        if any(_contains(phrase, group) for phrase in named_phrases):
            continue  # "downtown commercial" names CD; its "downtown" is not the Downtown Specific Plan
        if _contains(normalized, group) and not any(symbol in symbols for _, symbol, _ in found):
            position = fold_plurals(normalized).find(fold_plurals(group))
            found.extend((position, symbol, group) for symbol in symbols)
    found = _with_group_words(found, normalized, vocabulary)
    found = _drop_shadowed(found)
    found = _drop_inside_names(found, normalized, vocabulary)
    found.sort(key=lambda item: item[0])
    found = _with_ranges(question, found, vocabulary)
    symbols = tuple(dict.fromkeys(symbol for _, symbol, _ in found))
    return symbols, tuple(dict.fromkeys(words for _, _, words in found))


GROUP_NOUN = r"(?:\s+zoning)?\s+(?:districts|zones|areas|parts\s+of\s+(?:the\s+)?town)\b"


def _with_group_words(found: list[tuple[int, str, str]], normalized: str, vocabulary: Vocabulary):
    """"which residential districts allow ...", "the commercial and industrial zones": each district of
    the groups named (data/districts.json "group_words", from the code's headings), in place of the
    districts their words would otherwise name ("industrial": IG). A group word names a group only
    before a plural district noun, and not as part of a district's name ("Rural Residential zones")."""
    if not vocabulary.group_words:
        return found
    word = "|".join(_spelled(w) for w in sorted(vocabulary.group_words, key=len, reverse=True))
    pattern = re.compile(rf"(?<![a-z])((?:{word})(?:\s*(?:,|/|&|\band\b|\bor\b)?\s*(?:{word}))*){GROUP_NOUN}")
    names = [name.lower() for d in vocabulary.districts for name in (d.name, *d.aliases)]
    for match in pattern.finditer(normalized):
        if any(_name_starts_before(normalized, name, match.start()) for name in names):
            continue
        phrase = match.group(0)
        found = [item for item in found if item[2] == item[1]
                 or not re.search(rf"(?<![a-z]){re.escape(item[2].lower())}(?![a-z])", phrase)]
        symbols = [s for w, members in vocabulary.group_words.items() if re.search(_group_word(w), match.group(1))
                   for s in members]
        found += [(match.start() + i / 100, symbol, phrase) for i, symbol in enumerate(dict.fromkeys(symbols))]
    return found


def _spelled(word: str) -> str:
    """The pattern of a group word ("mixed use" also as "mixed-use")."""
    return re.escape(word).replace(r"\ ", r"[\s-]")


def _group_word(word: str) -> str:
    return rf"\b{_spelled(word)}\b"


def _name_starts_before(text: str, name: str, start: int) -> bool:
    """A district's name runs into ``start`` from before it ("rural residential" before "residential")."""
    return any(m.start() < start < m.end() for m in re.finditer(rf"(?<![a-z]){re.escape(name)}(?![a-z])", text))


RANGE = re.compile(r"(?<![A-Za-z])([A-Z]{2,3})\s*(?:through|thru|to|[-–—])\s*([A-Z]{2,3})(?![A-Za-z])")


def _with_ranges(question: str, found: list[tuple[int, str, str]], vocabulary: Vocabulary):
    """"OSC through NU" names every district between the two, in the order the code lists them
    (17.20.020, Table 2-1: OSC, OSR, RR, ..., NU, then the commercial and downtown districts)."""
    order = [district.symbol for district in vocabulary.districts]
    for match in RANGE.finditer(question):
        first, last = match.group(1), match.group(2)
        if first not in order or last not in order or order.index(first) >= order.index(last):
            continue
        between = order[order.index(first):order.index(last) + 1]
        found = [item for item in found if item[1] not in between]
        found += [(match.start() + i, symbol, match.group(0)) for i, symbol in enumerate(between)]
        found.sort(key=lambda item: item[0])
    return found


def _drop_inside_names(found: list[tuple[int, str, str]], normalized: str, vocabulary: Vocabulary):
    """A district named by its symbol with its name beside it ("Commercial/Industrial (CI)"): the
    words of that name name no other district ("industrial" is not General Industrial here)."""
    folded = fold_plurals(normalized)
    symbols = {symbol for _, symbol, _ in found}
    spans = []
    for district in vocabulary.districts:
        if district.symbol not in symbols:
            continue
        for phrase in (district.name.lower(), *district.aliases):
            if _contains(normalized, phrase):
                start = folded.find(fold_plurals(phrase))
                spans.append((district.symbol, start, start + len(fold_plurals(phrase))))
    return [item for item in found
            if not any(symbol != item[1] and start <= item[0] and item[0] + len(fold_plurals(item[2].lower())) <= end
                       and item[2].lower() != item[1].lower() for symbol, start, end in spans)]


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


def _land_uses(normalized: str, vocabulary: Vocabulary) -> list[tuple[str, str]]:
    """(table label, everyday phrase) for each everyday word the question uses, longest phrase first."""
    found = [(target, phrase) for phrase, target in vocabulary.synonyms.items() if target and _contains(normalized, phrase)]
    # The same use under another table's label ("duplex": Multifamily plex housing in Table 2-4), after its own.
    found += [(label, phrase) for _, phrase in list(found) for label in vocabulary.also.get(phrase, ())]
    found.sort(key=lambda item: (-len(item[1]), item[1]))
    return list({target: (target, phrase) for target, phrase in reversed(found)}.values())[::-1]


def district_names_in(normalized: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """Every district name or alias the question says, even when its symbol named the district
    ("low density neighborhood zone (NL)"): a name is not a topic ("density")."""
    return tuple(phrase for d in vocabulary.districts for phrase in (d.name.lower(), *d.aliases)
                 if _contains(normalized, phrase))


def _without(text: str, phrases: tuple[str, ...]) -> str:
    """The text with district names blanked, so "Neighborhood Medium Density" is not a density question."""
    for phrase in phrases:
        text = text.replace(phrase.lower(), " ")
    return text


def _topics(normalized: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    def named(topic: str, words: tuple[str, ...]) -> bool:
        if any(_contains(normalized, word) for word in words):
            return True
        pair = vocabulary.paired_topics.get(topic)
        return bool(pair) and any(_contains(normalized, w) for w in pair[0]) and any(_contains(normalized, w) for w in pair[1])

    return tuple(topic for topic, (words, _) in vocabulary.topics.items() if named(topic, words))
