"""Whether a word is an English word: a typo is corrected, a real word never is.

A word the question types that neither the vocabulary nor the corpus prints is corrected towards
a close known word only when it is not an English word ("hieght" -> "height"), so "heater" is
never read as "theater": a real word that names nothing in the code leaves the question about
something the code does not cover. The word list is ``wordfreq``'s (maintained, with frequencies,
shipped inside the package: nothing downloads); it is imported on the first word that needs it.
"""

from __future__ import annotations

from functools import lru_cache

from .choose import TUNED

# The Zipf frequency (log10 per billion words) at or over which a word is an English word is
# ``choose.Settings.english_zipf`` (measured on the dev questions' corrections: every corrected word under 3.0
# was a typo, "buisness" 2.41, "hight" 2.50; every one at or over it a real word read as another, "planner"
# 3.53 -> planter, "heater" 3.55 -> theater).


@lru_cache(maxsize=65536)
def is_english_word(word: str) -> bool:
    """True when ``word`` (lower case) is common enough in English to be a word, not a typo."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= TUNED.english_zipf
