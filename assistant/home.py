"""Home-based wording ("out of my house", "in my garage", "at home") and the rows of uses the
tables list as carried on in a home (Home occupation, the family day care homes, residential care
in a single-family dwelling). A question that says the use is run from home prefers those rows over
the facility rows of the same use ("a day care out of my house": a family day care home, not a
day care center). Cues and row markers are a data file (``data/home_uses.json``), each with its source."""

from __future__ import annotations

import json
import re
from functools import lru_cache

from .vocab import DATA


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    data = json.loads((DATA / "home_uses.json").read_text(encoding="utf-8"))
    join = lambda entries: re.compile("|".join(f"(?:{e['pattern']})" for e in entries), re.I)  # noqa: E731
    return join(data["cues"]), join(data["row_markers"])


def says_home(question: str) -> bool:
    """The question says the use is carried on in the resident's own home."""
    return _patterns()[0].search(question.replace("’", "'")) is not None


def is_home_row(label: str) -> bool:
    """The row is a use the table lists as carried on in a home."""
    return _patterns()[1].search(label) is not None


def home_rows_preferred(matches: list, question: str) -> list:
    """With home-based wording, the home rows of the best row's use among ``matches`` (RowMatch-like,
    with ``row``), in their order: the facility rows of that use are not what was asked. Otherwise,
    or when no home row is of that use, ``matches`` as they are."""
    if not matches or not says_home(question):
        return matches
    homes = [m for m in matches if is_home_row(m.row) and same_use(m.row, matches[0].row)]
    return homes or matches


def same_use(home_row: str, row: str) -> bool:
    """The home row is a form of ``row``'s use. Labels printed as "Family - kind" are of one use only
    within one family ("Child day care - Small family day care home" is a form of "Child day care -
    Day care center", not of "Adult day care - 6 or fewer clients"); other labels share a word once
    the home marker is removed."""
    if home_row == row:
        return True
    if " - " in home_row and " - " in row:
        return _family(home_row) == _family(row)
    rest = _patterns()[1].sub(" ", home_row)
    return bool(_words(rest) & _words(row))


def _family(label: str) -> str:
    return label.split(" - ", 1)[0].strip().lower()


def _words(label: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", label.lower()) if len(w) > 2} - {"and", "the", "for", "with", "fewer", "more", "less"}
