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


SURROGATE = re.compile(r"[\ud800-\udfff]")
REPLACEMENT = "\ufffd"
# Invisible in a word and never meant: every Unicode format character (category Cf: soft hyphen, zero-width
# space / non-joiner / joiner, word joiner, invisible separator U+2063, bidi controls, byte-order mark,
# Mongolian vowel separator, tag characters U+E0020-E007F), the combining grapheme joiner U+034F, the
# variation selectors (U+FE0F) and the blank fillers that look like nothing (Hangul fillers U+115F, U+1160,
# U+3164, U+FFA0; Braille blank U+2800). Removed once, here ("b\u2063ar" is "bar"; issue 45).
INVISIBLE = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"  # the format characters (Cf)
    "\u034f\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef"  # joiner and variation selectors
    "\u115f\u1160\u3164\uffa0\u2800]")  # blank fillers
# Shown escaped, never printed raw: controls, and the codes that reorder text on a terminal or page.
UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def normalise_input(text: object) -> str:
    """Any question as text that can be stored and compared: not a string -> "", each lone surrogate
    (what a browser sends for a broken emoji; not encodable as UTF-8) and each control character but
    tab, LF and CR (NUL, ESC, BEL...) -> U+FFFD. The one normalisation the CLI, the web API and the
    question log all apply before anything else touches a question."""
    if not isinstance(text, str):
        return ""
    return CONTROL.sub(REPLACEMENT, SURROGATE.sub(REPLACEMENT, text))


def clean_question(text: object) -> str:
    """A question as every path answers it (the CLI, the web page, the API): ``normalise_input``, then
    invisible characters removed (``INVISIBLE``: soft hyphen, zero-width codes) and compatibility forms
    folded by NFKC (full-width "ＣＥ" is "CE", a ligature its letters). Whitespace is left as it is."""
    # again after NFKC: it maps some compatibility forms onto fillers (U+FFA0 -> U+1160)
    return INVISIBLE.sub("", unicodedata.normalize("NFKC", INVISIBLE.sub("", normalise_input(text))))


def escape_for_terminal(text: str) -> str:
    """``text`` with every control and bidi code shown as its escape (``\\x1b``, ``\\u202e``): what staff
    tools print of text an anonymous resident typed, so it cannot drive the terminal or reorder a line."""
    return UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                           else f"\\u{ord(m.group()):04x}", SURROGATE.sub(REPLACEMENT, text))


class InvalidQuestion(ValueError):
    """The question is empty, too long, garbled or not English; the message says which."""


def check_question(question: object) -> str:
    """The question with whitespace tidied, or InvalidQuestion naming what is wrong."""
    if not isinstance(question, str):
        raise InvalidQuestion("The question must be text.")
    if REPLACEMENT in normalise_input(question):  # a control code, a lone surrogate (or U+FFFD typed as such)
        raise InvalidQuestion("The question contains control characters or broken text; please type plain text.")
    text = " ".join(clean_question(question).split())
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
