"""Strict text matching for scoring: facts as whole words and numbers, statements without citations,
and what a permit code's answer must say in its first line.

Pure functions over strings; no I/O. The rules (also in ``eval/README.md``):

* Text is compared lower-cased, with every dash (‐ ‑ ‒ – — ―) read as ``-``, curly quotes as straight
  ones and whitespace runs collapsed.
* A fact matches only at word boundaries: ``UP`` is not found in ``(MUP)``, ``P`` not in ``UP``; a
  fact ending in a word may take a plural ending ("0.5 acre" is stated by "0.5 acres").
* A fact that starts with a number matches that number as a number: ``10`` is not found in ``100``,
  ``10.5`` or ``1,100``; it is found in "ten" (number words are accepted for whole numbers, so
  "thirty-five feet" states ``35 feet``), never in "often".
* Facts are searched in the answer's *statements*: its lines without the ``Source:`` line, the
  ``Nearest sections:`` line and the ``§ id (document, date):`` prefix of a quoted passage.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_DASHES = re.compile(r"[\u2010-\u2015\u2212]")
_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
_CITATION_LINE = re.compile(r"^\s*(sources?|nearest sections?|citations?|cited)\s*:", re.IGNORECASE)
_SECTION_ID = re.compile(r"^\d{1,2}\.\d{2}(?:\.\d{3})?$")  # 17.42, 17.44.040, 3.42.040
_LEADING_NUMBER = re.compile(r"^(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?=\W|$)")

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def normalize(text: str) -> str:
    text = _DASHES.sub("-", text)
    for curly, straight in _QUOTES.items():
        text = text.replace(curly, straight)
    return " ".join(text.lower().split())


# Spelling variants read alike for every item (general English and the corpus's own abbreviations),
# so gold facts stay in plain English: "E. Cotati Ave." states "East Cotati Avenue", "42 in."
# states "42 inches", "twelve feet" states "12 feet", "half-mile" states "half mile".
_ABBREVIATIONS = (
    (re.compile(r"\be\.(?=\s)"), "east"), (re.compile(r"\bw\.(?=\s)"), "west"),
    (re.compile(r"\bave\b\.?"), "avenue"), (re.compile(r"\bblvd\b\.?"), "boulevard"),
    (re.compile(r"\bhwy\b\.?"), "highway"), (re.compile(r"\bst\.(?=\s|$)"), "street"),
    (re.compile(r"\bsq\.?\s*ft\b\.?"), "square feet"), (re.compile(r"\bft\b\.?"), "feet"),
    (re.compile(r"(?<=\d)\s*in\.(?=\s|$|[;,)])"), " inches"), (re.compile(r"(?<=\d)\s*%"), " percent"),
    (re.compile(r"\bhrs?\b\.?"), "hours"), (re.compile(r"\bone-half\b|\bone half\b"), "half"),
)
_WORD_HYPHEN = re.compile(r"(?<=[a-z])-(?=[a-z])")
_NUMBER_WORD = re.compile(
    r"\b(?:(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[ -](one|two|three|four|five|six|seven|eight|nine))?"
    r"|(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen))\b(?![ -](?:hundred|thousand)\b)")


_UNITS_WORD = "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_TENS_WORD = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_BELOW_HUNDRED = rf"(?:(?:{_TENS_WORD})(?:[ -](?:one|two|three|four|five|six|seven|eight|nine))?|(?:{_UNITS_WORD}))"
# "one hundred fifty", "two thousand five hundred": read as one number before the words below 100 are
# (else "one hundred fifty feet" became "one hundred 50 feet" and stated neither 150 nor itself).
_HUNDREDS_WORD = re.compile(
    rf"\b(?:(?P<thousands>{_BELOW_HUNDRED}) thousand(?: and)?(?= ?\w) ?)?(?:(?P<hundreds>{_BELOW_HUNDRED}) hundred)?"
    rf"(?:(?<=thousand)|(?<=hundred))(?:(?: and)? (?P<rest>{_BELOW_HUNDRED})\b(?![ -](?:hundred|thousand)\b))?")


def _below_hundred(words: str | None) -> int:
    if not words:
        return 0
    parts = re.split(r"[ -]", words)
    if parts[0] in _TENS:
        return _TENS.index(parts[0]) * 10 + (_ONES.index(parts[1]) if len(parts) > 1 else 0)
    return _ONES.index(parts[0])


def _hundreds_value(m: re.Match[str]) -> str:
    if not (m.group("thousands") or m.group("hundreds")):
        return m.group(0)
    value = 1000 * _below_hundred(m.group("thousands")) + 100 * _below_hundred(m.group("hundreds"))
    return str(value + _below_hundred(m.group("rest")))


def _number_value(m: re.Match[str]) -> str:
    if m.group(3):
        return str(_ONES.index(m.group(3)))
    return str(_TENS.index(m.group(1)) * 10 + (_ONES.index(m.group(2)) if m.group(2) else 0))


def canonical(text: str) -> str:
    """``normalize`` plus the spelling variants every item reads alike: abbreviations written out,
    hyphens between words read as spaces, whole-number words as digits."""
    text = normalize(text)
    for pattern, full in _ABBREVIATIONS:
        text = pattern.sub(full, text)
    text = _HUNDREDS_WORD.sub(_hundreds_value, text)
    text = _NUMBER_WORD.sub(_number_value, _WORD_HYPHEN.sub(" ", text))
    return " ".join(text.split())


def first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0]


def statements(text: str) -> str:
    """The answer's statements: every line but source/nearest lines, citation prefixes removed."""
    kept = []
    for line in text.strip().split("\n"):
        if _CITATION_LINE.match(line):
            continue
        kept.append(_strip_citation_prefix(line))
    return "\n".join(kept)


def _strip_citation_prefix(line: str) -> str:
    """``§ 17.64.080 (Ord. 939 (...), 2025-12-09): "quote"`` -> ``"quote"``."""
    stripped = line.lstrip()
    if not stripped.startswith("§"):
        return line
    depth = 0
    for i, ch in enumerate(stripped):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and stripped[i + 1 : i + 2] == ":":
                return stripped[i + 2 :]
    return line


def number_words(n: int) -> list[str]:
    """English spellings of a whole number below a million ("35" -> "thirty-five", "thirty five")."""
    if n < 0 or n >= 1_000_000:
        return []
    if n < 20:
        return [_ONES[n]]
    if n < 100:
        tens, ones = divmod(n, 10)
        return [_TENS[tens]] if not ones else [f"{_TENS[tens]}-{_ONES[ones]}", f"{_TENS[tens]} {_ONES[ones]}"]
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        head = f"{_ONES[hundreds]} hundred"
        if not rest:
            return [head]
        return [f"{head} {w}" for w in number_words(rest)] + [f"{head} and {w}" for w in number_words(rest)]
    thousands, rest = divmod(n, 1000)
    heads = [f"{w} thousand" for w in number_words(thousands)]
    if not rest:
        return heads
    return [f"{h} {w}" for h in heads for w in number_words(rest)]


def _edge(fact: str, pattern: str) -> str:
    start = r"(?<![\w])" if re.match(r"\w", fact) else ""
    end = r"(?:e?s)?(?![\w])" if re.search(r"[a-z]{2}$", fact) else r"(?![\w])" if re.search(r"\w$", fact) else ""
    return start + pattern + end


def _joinable(text: str) -> str:
    """``text`` as a regex whose spaces between words may also be written joined ("half mile"
    states "halfmile", "pawn shop" states "pawnshop")."""
    return r"[ ]?".join(re.escape(part) for part in text.split(" ")) if text.strip() else re.escape(text)


def fact_pattern(fact: str) -> re.Pattern[str]:
    """The regex that finds ``fact`` in normalized text (see the module docstring)."""
    fact = canonical(fact)
    if _SECTION_ID.match(fact):  # a chapter or section id also names its subsections
        return re.compile(r"(?<![\w.])" + re.escape(fact) + r"(?!\d)")
    m = _LEADING_NUMBER.match(fact)
    if not m:
        return re.compile(_edge(fact, _joinable(fact)))
    rest = fact[m.end():]
    number = re.escape(m.group(0))
    # a number is not part of a longer number: no digit, "1,1" or "1.5" around it
    digits = r"(?<![\w.,])(?<!\d[.,])" + number + r"(?![.,]?\d)"
    options = [digits + _joinable(rest)]
    if "," in m.group(1):  # "10,000" is also written "10000"
        options.append(r"(?<![\w.,])" + re.escape(m.group(0).replace(",", "")) + r"(?![.,]?\d)" + _joinable(rest))
    elif len(m.group(1)) > 3 and not m.group(1).startswith("0"):  # and "5000" is also written "5,000"
        grouped = f"{int(m.group(1)):,}" + (m.group(2) or "")
        options.append(r"(?<![\w.,])" + re.escape(grouped) + r"(?![.,]?\d)" + _joinable(rest))
    if not m.group(2):
        value = int(m.group(1).replace(",", ""))
        options += [r"(?<![\w-])" + re.escape(w) + _joinable(rest) for w in number_words(value)]
    end = r"(?:e?s)?(?![\w])" if re.search(r"[a-z]{2}$", fact) else r"(?![\w])" if re.search(r"\w$", fact) else ""
    return re.compile("(?:" + "|".join(options) + ")" + end)


def has_fact(text: str, fact: str) -> bool:
    return fact_pattern(fact).search(canonical(text)) is not None


def missing_facts(text: str, facts: Iterable[str]) -> list[str]:
    """The expected facts not stated in ``text`` (whole words, numbers as numbers)."""
    hay = canonical(text)
    return [f for f in facts if not fact_pattern(f).search(hay)]


def found_facts(text: str, facts: Iterable[str]) -> list[str]:
    hay = canonical(text)
    return [f for f in facts if fact_pattern(f).search(hay)]


# -- permit codes --------------------------------------------------------------------------------
# What a first line says about a land-use permit requirement. Code letters are matched in the
# original case ("UP", not "up"); words lower-cased.
_NOT = re.compile(r"\bnot (?:be )?(?:allowed|permitted)\b|\bprohibited\b|\bnot an? (?:allowed|permitted) use\b", re.I)
_MUP = re.compile(r"(?i:\bminor use permit\b)|\bMUP\b")
_UP = re.compile(r"(?<!minor )\buse permit\b|(?<![\w-])UP\b", re.I)
_UP_WORDS = re.compile(r"(?<!minor )\buse permit\b", re.I)
_UP_CODE = re.compile(r"(?<![\w-])UP(?![\w])")
_S = re.compile(r"(?i:\bspecific use\b)|\(S\)|(?<![\w-])S(?=[:)])")
_P = re.compile(
    r"\(P\)|(?i:(?<!not )(?<!not be )(?<!not a )\bpermitted\b(?! only\b)|(?<!not )(?<!not be )\ballowed by right\b)"
)

PERMIT_CODES = ("P", "MUP", "UP", "S", "-")
# For each expected code: the other meanings that make a first line wrong.
CONTRADICTS = {
    "P": ("UP", "MUP", "S", "-"),
    "MUP": ("UP", "-"),
    "UP": ("MUP", "-"),
    "S": ("-",),
    "-": ("P", "MUP", "UP"),
}


def permit_meanings(line: str) -> set[str]:
    """The permit codes a line states: {"P", "MUP", "UP", "S", "-"} (several when it hedges)."""
    line = _DASHES.sub("-", line)
    found = set()
    if _NOT.search(line):
        found.add("-")
    if _MUP.search(line):
        found.add("MUP")
    if _UP_WORDS.search(line) or _UP_CODE.search(line):
        found.add("UP")
    if _S.search(line):
        found.add("S")
    if _P.search(line):
        found.add("P")
    return found


def normalize_code(value: str) -> str | None:
    """A printed cell value as one of PERMIT_CODES ("P(2)" -> "P", "—" -> "-"), or None."""
    v = re.sub(r"\(\w{1,3}\)|\*", "", _DASHES.sub("-", value or "")).strip()
    if v and set(v) <= {"-"}:
        return "-"
    v = v.upper().replace(" ", "")
    return v if v in PERMIT_CODES else None


def code_from_facts(facts: Sequence[str]) -> str | None:
    """The permit code a dev item's facts encode (GOLD.md "How permit codes are written")."""
    norm = [f.strip() for f in facts]
    if "not allowed" in [f.lower() for f in norm]:
        return "-"
    for code in ("MUP", "UP", "P", "S"):
        if code in norm:
            return code
    return None


def meaning_problem(line: str, code: str) -> str:
    """Why ``line`` does not state permit ``code`` ("" when it does)."""
    said = permit_meanings(line)
    wrong = [c for c in CONTRADICTS[code] if c in said]
    if wrong:
        return f"first line says {', '.join(_NAMES[c] for c in wrong)}, not {_NAMES[code]}"
    if code not in said:
        return f"first line does not say {_NAMES[code]}"
    return ""


_NAMES = {"P": "permitted (P)", "MUP": "minor use permit (MUP)", "UP": "use permit (UP)", "S": "specific use (S)", "-": "not allowed"}
