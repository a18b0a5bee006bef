"""Reject questions the assistant cannot take, with one line saying why."""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

MAX_CHARS = 2000
DATA = Path(__file__).resolve().parent / "data"
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # tab, LF and CR are whitespace


class InvalidQuestion(ValueError):
    """The question is empty, too long, garbled or not English; the message says which."""


def check_question(question: object) -> str:
    """The question with whitespace tidied, or InvalidQuestion naming what is wrong."""
    if not isinstance(question, str):
        raise InvalidQuestion("The question must be text.")
    if CONTROL.search(question):
        raise InvalidQuestion("The question contains control characters; please type plain text.")
    text = " ".join(question.split())
    if not text:
        raise InvalidQuestion("Please type a question about the Cotati municipal code.")
    if len(text) > MAX_CHARS:
        raise InvalidQuestion(f"The question is {len(text):,} characters long; the limit is {MAX_CHARS:,}.")
    if not re.search(r"[^\W_]", text):  # no letter or digit of any script
        raise InvalidQuestion("The question has no words or numbers in it; please type a question in English.")
    if _foreign(text):
        raise InvalidQuestion("This assistant answers questions in English about the Cotati municipal code.")
    return text


def _foreign(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    non_latin = sum(1 for ch in letters if not unicodedata.name(ch, "").startswith("LATIN"))
    if letters and non_latin / len(letters) > 0.3:
        return True
    words = re.findall(r"[^\W\d_]+", text.lower())
    foreign = sum(1 for word in words if word in _foreign_words())
    return len(words) >= 3 and foreign / len(words) >= 0.5


@lru_cache(maxsize=1)
def _foreign_words() -> frozenset[str]:
    return frozenset(json.loads((DATA / "foreign_words.json").read_text(encoding="utf-8"))["words"])
