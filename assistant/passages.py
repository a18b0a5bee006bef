"""Pick the sentences of a passage that answer a question, to quote them word for word.

Sentences are scored by the question words they share, rare words weighing more (IDF over the
corpus sections); a sentence holding the kind of answer asked for (``answer_type``: a number, a
time span, a deciding body, a definition) is preferred. Section headings are never the quote when
the passage has a sentence, and a long quote is never cut before its best sentence's answer.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from . import answer_type
from .permits import STOP, words_of

SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z0-9(“\"])|\n+")
HEADING = re.compile(r"^§?\s*\d{1,2}\.\d{2}\.\d{3}\b")
MAX_QUOTE = 400
MEANING_WEIGHT = 1.0  # a sentence's closeness in meaning counts as much as carrying all the question's words


def document_frequencies(texts: Iterable[str]) -> tuple[Mapping[str, float], float]:
    """IDF of each word over the given texts, and the IDF of an unseen word."""
    counts: Counter = Counter()
    total = 0
    for text in texts:
        total += 1
        counts.update(set(words_of(text)))
    idf = {word: math.log(1 + total / count) for word, count in counts.items()}
    return idf, math.log(1 + total)


@dataclass(frozen=True)
class Quote:
    score: float  # IDF weight of the question words the best sentence shares (boosted by answer type)
    text: str  # the passage's best sentences in passage order, verbatim ("" when none speaks to it)
    coverage: float  # share of the question's word weight the best sentence carries (0-1)
    type_found: bool  # the best sentence holds the kind of answer asked for (a number, a body, ...)
    similarity: float = 0.0  # cosine of the best sentence and the question (0 without the model)


def scored_quote(text: str, question: str, limit: int = 2, idf: Mapping[str, float] | None = None,
                 definition: bool = False) -> tuple[float, str]:
    """(how well it answers, the passage's best sentences in passage order, verbatim)."""
    found = best_quote(text, question, limit, idf, definition)
    return found.score, found.text


def question_weight(question: str, idf: Mapping[str, float] | None) -> float:
    wanted = {word for word in words_of(question) if word not in STOP and len(word) > 1}
    return _score(" ".join(wanted), wanted, idf) or 1.0


def split_sentences(text: str) -> list[tuple[int, str]]:
    """(position, sentence) of the passage's sentences longer than 20 characters."""
    pieces = [s.strip() for s in SENTENCE.split(text) if s and s.strip()]
    # Positions in the passage, so only truly adjacent sentences are joined without "…".
    return [(index, piece) for index, piece in enumerate(pieces) if len(piece) > 20]


def best_quote(text: str, question: str, limit: int = 2, idf: Mapping[str, float] | None = None,
               definition: bool = False, meaning: Mapping[str, float] | None = None, kind: str | None = None) -> Quote:
    """``meaning``: sentence -> cosine with the question (``sentences.SentenceVectors``), when the
    model is at hand; a sentence is then scored by the question words it carries *and* by how
    close it is in meaning (MEANING_WEIGHT), so a sentence in other words can still be the answer.
    ``kind``: the answer type the question asks (``Query.detected``); None: classified here."""
    wanted = {word for word in words_of(question) if word not in STOP and len(word) > 1}
    sentences = split_sentences(text)
    if not sentences:
        return Quote(0.0, _trim(text.strip()), 0.0, False)
    kind = "definition" if definition else kind or answer_type.detect(question)
    weight = question_weight(question, idf)
    scored = []
    for index, sentence in sentences:
        score = 0.0 if _table_line(sentence) else _score(sentence, wanted, idf)
        if score and meaning is not None:
            score = score / weight + MEANING_WEIGHT * max(0.0, meaning.get(sentence, 0.0))
        if score and kind != "other" and kind != "yes_no" and answer_type.present(kind, sentence):
            score *= 1.5
        if HEADING.match(sentence) and len(sentences) > 1:
            score *= 0.1
        scored.append((score, -index, sentence))
    scored.sort(reverse=True)
    # A sentence printed twice (an amended section holds its old and new text) is quoted once.
    scored = _first_of_each(scored)
    chosen = sorted(scored[:limit], key=lambda item: -item[1])
    if scored[0][0] == 0:
        return Quote(0.0, "", 0.0, False)  # nothing in the passage speaks to the question
    if len(chosen) > 1 and chosen[-1][0] < 0.5 * scored[0][0]:
        chosen = [scored[0]]  # a weak second sentence adds noise, not support
    quote = chosen[0][2]
    for (_, before, _), (_, index, sentence) in zip(chosen, chosen[1:]):
        quote += (" " if before - index == 1 else " … ") + sentence
    best = scored[0][2]
    coverage = min(1.0, _score(best, wanted, idf) / weight)
    similarity = meaning.get(best, 0.0) if meaning is not None else 0.0
    return Quote(scored[0][0], _trim_around(quote, best, kind), coverage, answer_type.present(kind, best), similarity)


def _first_of_each(scored: list[tuple[float, int, str]]) -> list[tuple[float, int, str]]:
    seen: set[str] = set()
    return [item for item in scored if not (item[2] in seen or seen.add(item[2]))]


CODE_TOKEN = re.compile(r"^(?:[A-Z]{1,4}(?:/[A-Z]{1,4})?(?:\(\d+\))?|[-–—]+|\(\d+\)[-–—]?)$")


# The permit tables' printed legend ("UP Use Permit required", "- Use not allowed"): table text too.
LEGEND = re.compile(r"^(?:P|MUP|UP|S|[-–—]+)\s+(?:Permitted Use|Minor Use Permit|Use Permit|Permit requirement|Use not allowed)", re.I)


def _table_line(sentence: str) -> bool:
    """A flattened table row ("Park UP P P P", "CE CG CD CI") or the table's legend: table cells
    answer, not quotes of them."""
    if LEGEND.match(sentence):
        return True
    tokens = sentence.split()
    codes = sum(1 for token in tokens if CODE_TOKEN.match(token))
    if codes >= 4 and codes / len(tokens) >= 0.4:
        return True
    return _heading_run(tokens)


def _heading_run(tokens: list[str]) -> bool:
    """Column headings, a table's title or a row of role cells flattened into a line ("Location of
    Fence, Wall, or Hedge Maximum Height(2)", "... Recommend Recommend Decision Appeal"): mostly
    capitalised words with no closing period, or the same cell word twice in a row, twice."""
    if len(tokens) < 6:
        return False
    capitalised = sum(1 for token in tokens if token[:1].isupper() or token[:1].isdigit() or token in ("-", "–", "—"))
    words = [token for token in tokens if token[:1].isalpha()]
    repeated = sum(1 for a, b in zip(words, words[1:]) if a == b)
    return (capitalised / len(tokens) >= 0.7 and not tokens[-1].endswith(".")) or repeated >= 2


def _score(sentence: str, wanted: set[str], idf: Mapping[str, float] | None) -> float:
    shared = wanted & set(words_of(sentence))
    if idf is None:
        return float(len(shared))
    return sum(idf.get(word, 1.0) for word in shared)


def overlap(text: str, question: str) -> int:
    wanted = {word for word in words_of(question) if word not in STOP and len(word) > 2}
    return len(wanted & set(words_of(text)))


def _trim_around(quote: str, best: str, kind: str) -> str:
    """Trim a long quote, but never cut the best sentence before the answer it holds: when the
    head would cut it, the quote is the best sentence alone (trimmed only past its answer)."""
    if len(quote) <= MAX_QUOTE:
        return quote
    start = quote.find(best)
    if start >= 0 and start + len(best) <= MAX_QUOTE:
        return _trim(quote)
    return best if len(best) <= 2 * MAX_QUOTE else _trim(best, 2 * MAX_QUOTE)


def _trim(text: str, limit: int = MAX_QUOTE) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + "…"

