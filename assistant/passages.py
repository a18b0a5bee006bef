"""Pick the sentences of a passage that answer a question, to quote them word for word.

Sentences are scored by the question words they share, rare words weighing more (IDF over the
corpus sections); a "how long / how many" question favours sentences that state a quantity, a
definition question favours sentences that say what a term "means". Section headings are never
the quote when the passage has a sentence.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from .permits import STOP, words_of

SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z0-9(“\"])|\n+")
HEADING = re.compile(r"^§?\s*\d{1,2}\.\d{2}\.\d{3}\b")
QUANTITY_QUESTION = re.compile(r"\bhow (?:long|many|much|far|close|tall|high|wide|big|deep|soon|large)\b|\b(?:minimum|maximum|max|min|limit)\b")
QUANTITY = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|"
    r"ninety|hundred|thousand|half|percent)\b", re.I)
DEFINITION = re.compile(r"[”\"] means\b|\bmeans\b")
MAX_QUOTE = 400


def document_frequencies(texts: Iterable[str]) -> tuple[Mapping[str, float], float]:
    """IDF of each word over the given texts, and the IDF of an unseen word."""
    counts: Counter = Counter()
    total = 0
    for text in texts:
        total += 1
        counts.update(set(words_of(text)))
    idf = {word: math.log(1 + total / count) for word, count in counts.items()}
    return idf, math.log(1 + total)


def scored_quote(text: str, question: str, limit: int = 2, idf: Mapping[str, float] | None = None,
                 definition: bool = False) -> tuple[float, str]:
    """(how well it answers, the passage's best sentences in passage order, verbatim)."""
    wanted = {word for word in words_of(question) if word not in STOP and len(word) > 1}
    pieces = [s.strip() for s in SENTENCE.split(text) if s and s.strip()]
    # Indices are positions in the passage, so only truly adjacent sentences are joined without "…".
    sentences = [(index, piece) for index, piece in enumerate(pieces) if len(piece) > 20]
    if not sentences:
        return 0.0, _trim(text.strip())
    wants_quantity = bool(QUANTITY_QUESTION.search(question.lower()))
    scored = []
    for index, sentence in sentences:
        score = 0.0 if _table_line(sentence) else _score(sentence, wanted, idf)
        if score and wants_quantity and QUANTITY.search(sentence):
            score *= 1.5
        if score and definition and DEFINITION.search(sentence):
            score *= 1.5
        if HEADING.match(sentence) and len(sentences) > 1:
            score *= 0.1
        scored.append((score, -index, sentence))
    scored.sort(reverse=True)
    chosen = sorted(scored[:limit], key=lambda item: -item[1])
    if scored[0][0] == 0:
        return 0.0, ""  # nothing in the passage speaks to the question
    if len(chosen) > 1 and chosen[-1][0] < 0.5 * scored[0][0]:
        chosen = [scored[0]]  # a weak second sentence adds noise, not support
    quote = chosen[0][2]
    for (_, before, _), (_, index, sentence) in zip(chosen, chosen[1:]):
        quote += (" " if before - index == 1 else " … ") + sentence
    return scored[0][0], _trim(quote)


CODE_TOKEN = re.compile(r"^(?:[A-Z]{1,4}(?:/[A-Z]{1,4})?(?:\(\d+\))?|[-–—]+|\(\d+\)[-–—]?)$")


def _table_line(sentence: str) -> bool:
    """A flattened table row ("Park UP P P P", "CE CG CD CI"): table cells answer, not quotes of them."""
    tokens = sentence.split()
    codes = sum(1 for token in tokens if CODE_TOKEN.match(token))
    return codes >= 4 and codes / len(tokens) >= 0.4


def _score(sentence: str, wanted: set[str], idf: Mapping[str, float] | None) -> float:
    shared = wanted & set(words_of(sentence))
    if idf is None:
        return float(len(shared))
    return sum(idf.get(word, 1.0) for word in shared)


def overlap(text: str, question: str) -> int:
    wanted = {word for word in words_of(question) if word not in STOP and len(word) > 2}
    return len(wanted & set(words_of(text)))


def _trim(text: str) -> str:
    return text if len(text) <= MAX_QUOTE else text[: MAX_QUOTE - 1].rsplit(" ", 1)[0] + "…"
