"""Pick the sentences of a passage that answer a question, to quote them word for word."""

from __future__ import annotations

import re

from .permits import STOP, words_of

SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z0-9(])|\n+")
MAX_QUOTE = 400


def best_sentences(text: str, question: str, limit: int = 2) -> str:
    """The passage's sentences sharing most words with the question, in passage order."""
    wanted = {word for word in words_of(question) if word not in STOP and len(word) > 1}
    pieces = [s.strip() for s in SENTENCE.split(text) if s and s.strip()]
    # Indices are positions in the passage, so only truly adjacent sentences are joined without "…".
    sentences = [(index, piece) for index, piece in enumerate(pieces) if len(piece) > 20]
    if not sentences:
        return _trim(text.strip())
    scored = []
    for index, sentence in sentences:
        words = set(words_of(sentence))
        overlap = len(words & wanted)
        scored.append((overlap, -index, sentence))
    scored.sort(reverse=True)
    chosen = sorted(scored[:limit], key=lambda item: -item[1])
    if chosen and chosen[0][0] == 0:
        chosen = [max(scored, key=lambda item: item[1])]  # nothing shared: the opening sentence
    # Sentences that were not next to each other are joined with an ellipsis: a quote stays verbatim.
    quote = chosen[0][2]
    for (_, before, _), (_, index, sentence) in zip(chosen, chosen[1:]):
        quote += (" " if before - index == 1 else " … ") + sentence
    return _trim(quote)


def overlap(text: str, question: str) -> int:
    wanted = {word for word in words_of(question) if word not in STOP and len(word) > 2}
    return len(wanted & set(words_of(text)))


def _trim(text: str) -> str:
    return text if len(text) <= MAX_QUOTE else text[: MAX_QUOTE - 1].rsplit(" ", 1)[0] + "…"
