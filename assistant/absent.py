"""What a question names that the loaded documents do not have: a zoning district Cotati does not
have ("the XYZ district"), a table no document prints ("Table 2-9"), a term no document defines
("what does accessory dwelling unit mean?"), and a question that names a district and nothing to
ask about it ("what about NL?" as a first question). Pure functions over text; the answers that
say so are ``routes/absent.py``'s."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .permits import STOP, words_of

# A district named by a symbol-like word and "district" / "zone" ("the XYZ district", "R-1 zone",
# "zone C-2"). Only capitals count: "my zone", "a residential zone" name no district.
_SYMBOL = r"(?:[A-Z][A-Z0-9]{1,4}(?:-[A-Z0-9]{1,3})?|[A-Z]-[A-Z0-9]{1,3})"
# Between the symbol and "district": a gloss in brackets or up to two describing words ("DT
# (downtown) district", "R-1 single-family district", "M-1 light industrial zone"); not a word that
# starts a new phrase ("ADU in the residential zone" names no district).
_GLOSS = (r"(?:\s*\([^()]{1,30}\)|\s+(?!(?i:in|the|a|an|of|for|on|at|my|our|this|that|to|is|are|and|or|with|from|by"
          r"|near|into|next)\b)[A-Za-z][a-z-]*){0,2}")
NAMED_DISTRICT = re.compile(
    rf"(?<![A-Za-z0-9-])\(?(?P<a>{_SYMBOL})\)?{_GLOSS}\s+(?i:zoning\s+)?(?i:districts?|zones?|zoning|overlay)\b"
    rf"|\b(?i:district|zone|zoned)\s+(?P<b>{_SYMBOL})(?![A-Za-z0-9-])")
# A table named by number, printed as a heading in the code's text ("Table 2-4 ...").
TABLE_HEADING = re.compile(r"^Tables?\s+(\d-\d{1,2})\b", re.M)
TABLE_MENTION = re.compile(r"\bTables?\s+(\d-\d{1,2})\b")
# "what does X mean", "what is meant by X", "define X", "the definition / meaning of X", "what is a 'X'?".
MEANING = re.compile(
    r"\bwhat\s+(?:does|do|is|are)\s+(?:the\s+(?:term|word|phrase)\s+)?(?P<a>.+?)\s+mean\b"
    r"|\bwhat\s+is\s+meant\s+by\s+(?P<b>.+?)\s*(?:[?.!]|$)"
    r"|\b(?:define|definition\s+of|meaning\s+of)\s+(?P<c>.+?)\s*(?:[?.!]|$)"
    # "What is a 'zoning clearance'?": a term in quotes, alone after "what is", is asked the meaning of
    r"|^\s*what\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<d>[\"“'‘][^\"”'’]{2,60}[\"”'’])\s*[?.!]?\s*$", re.I)
_ARTICLE = re.compile(r"^(?:(?:an?|the)\s+)?(?:(?:term|word|phrase)\s+)?", re.I)
_TRAILER = re.compile(r"\s+(?:in|under|per|according\s+to)\s+(?:the\s+)?(?:code|zoning\s+code|cotati\b.*|city\b.*|ordinance)$", re.I)
_QUOTES = "'\"‘’“”"


def district_names_printed(texts: Iterable[str]) -> frozenset[str]:
    """Every symbol-like word the documents print as a district's or zone's name ("SWSP Zoning
    Districts", "Downtown Specific Plan (DSP) districts"): these are not unknown."""
    return frozenset(m.group("a") or m.group("b") for text in texts for m in NAMED_DISTRICT.finditer(text))


def unknown_districts(question: str, known: frozenset[str]) -> tuple[str, ...]:
    """The symbol-like district names the question uses that are not ``known``."""
    named = (m.group("a") or m.group("b") for m in NAMED_DISTRICT.finditer(question))
    return tuple(dict.fromkeys(name for name in named if name not in known))


def tables_printed(texts: Iterable[str]) -> frozenset[str]:
    return frozenset(number for text in texts for number in TABLE_HEADING.findall(text))


def tables_mentioned(texts: Iterable[str]) -> frozenset[str]:
    return frozenset(number for text in texts for number in TABLE_MENTION.findall(text))


def term_asked(question: str) -> str:
    """The term a question asks the meaning of, without quotes, articles or "in the code"; ""."""
    match = MEANING.search(question)
    if not match:
        return ""
    term = next(group for group in match.groups() if group).strip().strip(_QUOTES + " ?.!")
    term = _TRAILER.sub("", _ARTICLE.sub("", term)).strip(_QUOTES + " ?.!")
    return term if [w for w in words_of(term) if w not in STOP] else ""


def uses_of(term: str, texts: Iterable[tuple[str, str]], limit: int = 3) -> list[str]:
    """The ids of the sections (``(id, text)``) that print the term, most uses first."""
    pattern = re.compile(r"(?<![A-Za-z])" + r"[\s-]+".join(re.escape(w) for w in term.split()) + r"(?:e?s)?(?![A-Za-z])",
                         re.I)
    counts: dict[str, int] = {}
    for section_id, text in texts:
        found = len(pattern.findall(text))
        if found:
            counts[section_id] = counts.get(section_id, 0) + found
    return [section_id for section_id, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]


@dataclass(frozen=True)
class Printed:
    """What the loaded documents name: district symbols (the vocabulary's and those printed with
    "district" / "zone"), the tables printed as headings and the tables referred to."""

    districts: frozenset[str]
    tables: frozenset[str]
    tables_mentioned: frozenset[str]


def printed(sections, vocabulary, in_text: Printed | None = None) -> Printed:
    """What the documents name, with the vocabulary's district symbols; ``in_text``: ``printed_in_text``
    of these sections when already read (``assistant.derived`` keeps it beside the index)."""
    in_text = in_text if in_text is not None else printed_in_text(sections)
    symbols = {d.symbol for d in vocabulary.districts}
    symbols |= {w for d in vocabulary.districts for name in (d.name, *d.aliases) for w in re.findall(r"\b[A-Z]{2,5}\b", name)}
    return Printed(frozenset(symbols) | in_text.districts, in_text.tables, in_text.tables_mentioned)


def printed_in_text(sections) -> Printed:
    """What the sections' text alone names: scanning it is most of ``printed`` (a tenth of a cold answer)."""
    texts = [section.text for section in sections]
    code_texts = [section.text for section in sections if getattr(section, "kind", "code") == "code"]
    return Printed(district_names_printed(texts), tables_printed(code_texts), tables_mentioned(texts))
