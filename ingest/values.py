"""Typed values in a provision's text: lengths, areas, durations, percentages, counts, ratios,
permit types, decision bodies and the rules that combine them ("whichever is greater").

``read_values(text)`` returns every value it can type and, for every other number in the text,
an ``Untyped`` record saying why (a reference to a section, a history note, a date, no unit).
The words it knows (number words, units, bodies, permits) are data: ``data/provisions_vocabulary.json``.
Pure functions; the vocabulary loads once, on first use.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

VOCABULARY_FILE = Path(__file__).resolve().parent / "data" / "provisions_vocabulary.json"


@dataclass(frozen=True)
class Value:
    """One typed value: what it is, as printed, and normalised (``quantity`` in ``quantity_unit``)."""

    kind: str  # length|area|duration|speed|percentage|money|frequency|decibel|count|ratio|time|permit|body|rule
    number: float | None
    unit: str
    text: str  # the span as printed
    start: int  # offsets into the provision's text
    end: int
    quantity: float | None = None  # in the kind's base unit: feet, square feet, days, mph, %
    quantity_unit: str = ""  # for permits and bodies: the canonical name
    bound: str = ""  # "min" | "max" | "" (as the words around it say)
    per: float | None = None  # ratios: "1 space for each 250 sq. ft." -> per=250, per_unit="sq ft"
    per_unit: str = ""
    op: str = ""  # rules: "greater" | "lesser"
    operands: tuple[str, ...] = ()

    def to_json(self) -> dict:
        out = {"kind": self.kind, "number": self.number, "unit": self.unit, "text": self.text,
               "span": [self.start, self.end], "quantity": self.quantity, "quantity_unit": self.quantity_unit}
        for name in ("bound", "per_unit", "op"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.per is not None:
            out["per"] = self.per
        if self.operands:
            out["operands"] = list(self.operands)
        return out


@dataclass(frozen=True)
class Untyped:
    """A number in running text that is not a quantity this stage types, and why."""

    text: str
    start: int
    end: int
    reason: str

    def to_json(self) -> dict:
        return {"text": self.text, "span": [self.start, self.end], "reason": self.reason}


@dataclass(frozen=True)
class _Vocab:
    words: dict[str, float]
    scales: dict[str, float]
    fractions: dict[str, float]
    number: re.Pattern
    units: tuple[tuple[str, re.Pattern, str, float], ...]  # kind, pattern, unit, factor
    count_nouns: re.Pattern
    qualifiers: dict[str, re.Pattern]
    permits: tuple[tuple[str, re.Pattern], ...]
    bodies: tuple[tuple[str, re.Pattern], ...]
    rules: tuple[tuple[str, re.Pattern], ...]
    abbreviations: frozenset[str]
    raw: dict = field(repr=False, default_factory=dict)


def _entries(mapping: dict) -> dict:
    return {key: value for key, value in mapping.items() if not key.startswith("_")}


@lru_cache(maxsize=1)
def vocab() -> _Vocab:
    data = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    words = _entries(data["number_words"])
    scales = _entries(data["scale_words"])
    fractions = _entries(data["fraction_words"])
    word = "|".join(sorted(list(words) + list(scales), key=len, reverse=True))
    fraction = "|".join(re.escape(f) for f in sorted(fractions, key=len, reverse=True))
    spelled = (rf"(?:(?:{word})(?:(?:\s+and\s+|[\s-]+)(?:{fraction}|{word}))*|{fraction})")
    digits = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
    number = re.compile(rf"(?<![\w.$/])(?:(?P<digits>{digits})|(?P<words>{spelled}))(?![\w]|\.\d)", re.I)
    units = tuple(
        (kind, re.compile(rf"(?:{entry['pattern']})", re.I), entry["unit"], float(entry["factor"]))
        for kind, entries in _entries(data["units"]).items() for entry in entries
    )
    flags = re.I
    return _Vocab(
        words={k.lower(): float(v) for k, v in words.items()},
        scales={k.lower(): float(v) for k, v in scales.items()},
        fractions={k.lower(): float(v) for k, v in fractions.items()},
        number=number,
        units=units,
        count_nouns=re.compile(data["count_nouns"]["pattern"], flags),
        qualifiers={k: re.compile(rf"\b(?:{v})\b", flags) for k, v in _entries(data["qualifiers"]).items()},
        permits=tuple((k, re.compile(rf"\b(?:{v})", flags)) for k, v in _entries(data["permit_types"]).items()),
        bodies=tuple((k, re.compile(rf"(?:{v})", flags)) for k, v in _entries(data["bodies"]).items()),
        rules=tuple((k, re.compile(v, flags)) for k, v in _entries(data["rules"]).items()),
        abbreviations=frozenset(data["abbreviations"]["list"]),
        raw=data,
    )


def spelled_value(text: str) -> float | None:
    """ "one hundred fifty" -> 150, "twenty-five" -> 25, "one and one-half" -> 1.5, "12,000" -> 12000."""
    v = vocab()
    cleaned = text.strip().lower()
    if re.fullmatch(r"[\d,]*\.?\d+", cleaned):
        return float(cleaned.replace(",", ""))
    total, current = 0.0, 0.0
    for fraction in sorted(v.fractions, key=len, reverse=True):
        if cleaned.endswith(fraction) and (cleaned == fraction or cleaned[: -len(fraction)].rstrip().endswith(("and", "-"))
                                           or cleaned == fraction):
            head = re.sub(r"(?:\s+and\s*|-)$", "", cleaned[: -len(fraction)].strip())
            base = spelled_value(head) if head else 0.0
            return (base or 0.0) + v.fractions[fraction]
    for token in re.split(r"[\s-]+", cleaned):
        if token == "and" or not token:
            continue
        if token in v.words:
            current += v.words[token]
        elif token in v.scales:
            scale = v.scales[token]
            if scale >= 1000:
                total += (current or 1) * scale
                current = 0.0
            else:
                current = (current or 1) * scale
        else:
            return None
    return total + current


# --- references and other numbers that are not quantities ----------------------------------

REFERENCE_PATTERNS: tuple[tuple[str, re.Pattern], ...] = tuple(
    (reason, re.compile(pattern, re.I)) for reason, pattern in (
        ("history note", r"\((?:[^()]|\([^()]*\))*\bOrd\.?\s*\d+(?:[^()]|\([^()]*(?:\([^()]*\))?[^()]*\))*\)?"),
        ("date", r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)"
                 r"\s*\d{1,2},?\s+\d{4}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b"),
        ("parcel number", r"\b(?:APN\s*)?\d{3}-\d{3}-\d{3}\b"),
        ("code reference", r"(?:\b(?:Sections?|Chapters?|Articles?|Titles?|Divisions?|Parts?|§+|Subsections?|Ord\.|"
                           r"Ordinances?|Resolutions?|Res\.|No\.|Nos\.|Tables?|Figures?|Appendix|Exhibit|Exh\.|"
                           r"Government\s+Code|Code|C\.F\.R\.|U\.S\.C\.|FCC|AB|SB|PRB|PA|Policy|Program|Goal|"
                           r"Attachment|Att\.|Condition)\s*)"
                           r"(?:[A-Z]?\d[\w.-]*(?:\([\w.]+\))*)(?:\s*(?:,|and|or|through|to|&)\s*\d[\w.-]*(?:\([\w.]+\))*)*"),
        ("code reference", r"\b\d{1,2}\.\d{2}(?:\.\d{2,3})?(?:\.\d+)?(?:\s*\([\w.]+\))*"),
        ("code reference", r"\b\d{1,2}\s+C\.F\.R\.|\b\d{1,2}\s+U\.S\.C\.|\bPart\s+\d+"),
        ("outline reference", r"(?:\((?:[A-Z]|\d{1,2}|[a-z]{1,4})\)){1,4}"),
        ("outline reference", r"\b[A-Z]\.\d+(?:\.[a-z])?\b"),
        ("road name", r"\b(?:Highway|Route|US|Interstate)\s+\d+\b"),
        ("general plan policy number", r"(?:\b(?:Policy|Goal|Program|Action|Objective)\s+[A-Z]{0,4}[\s-]?)?"
                                       r"\b\d+(?:\.\d+)+(?=:)|\b(?:Policy|Goal|Program|Action|Objective)\s+"
                                       r"[A-Z]{0,4}[\s-]?\d+(?:\.\d+)*"),
        ("inline enumeration", r"(?<![\w(])\d{1,2}\)(?=\s)"),
        ("identifier (state code section or record number)", r"\b\d{5,}\b"),
        ("year", r"\b(?:19|20)\d{2}\b"),
    )
)


HAS_DIGIT = re.compile(r"\d")


def _claimed_references(text: str) -> list[tuple[int, int, str]]:
    spans: list[tuple[int, int, str]] = []
    if not HAS_DIGIT.search(text):
        return spans
    for reason, pattern in REFERENCE_PATTERNS:
        for match in pattern.finditer(text):
            if not re.search(r"\d", match.group(0)):
                continue
            if any(s <= match.start() < e or s < match.end() <= e for s, e, _ in spans):
                continue
            spans.append((match.start(), match.end(), reason))
    return spans


# --- numbers with units -------------------------------------------------------------------


@dataclass(frozen=True)
class _Number:
    value: float
    start: int
    end: int


def _numbers(text: str) -> list[_Number]:
    out = []
    for match in vocab().number.finditer(text):
        raw = match.group(0)
        value = spelled_value(raw)
        if value is None:
            continue
        out.append(_Number(value, match.start(), match.end()))
    return out


def _unit_at(text: str, position: int) -> tuple[str, str, float, int] | None:
    """(kind, unit, factor, end) of a unit word right after ``position`` ("-foot", " sq. ft.")."""
    rest = text[position:]
    gap = re.match(r"[\s-]*(?:horizontal\s+|vertical\s+|linear\s+|lineal\s+|gross\s+|net\s+)?", rest)
    offset = gap.end()
    best = None
    for kind, pattern, unit, factor in vocab().units:
        match = pattern.match(rest, offset)
        if match and match.end() > offset and (unit in ("ft", "in") or not re.match(r"\w", rest[match.end():match.end() + 1])):
            if unit in ("ft", "in") and match.group(0) in ("'", '"') and offset:
                continue
            if best is None or match.end() > best[3] - position:
                best = (kind, unit, factor, position + match.end())
    return best


def _count_at(text: str, position: int) -> tuple[str, int] | None:
    gap = re.match(r"[\s-]*(?:or\s+more\s+|or\s+fewer\s+|or\s+less\s+)?", text[position:])
    match = vocab().count_nouns.match(text, position + gap.end())
    if match and not re.match(r"\w", text[match.end():match.end() + 1]):
        return re.sub(r"\s+", " ", match.group(0)).lower(), match.end()
    return None


ECHO = re.compile(r"\s*\(\d[\d,.]*\)")
RANGE = re.compile(r"\s*(?:-|–|to|or|and|,)\s*", re.I)
PER = re.compile(r"\s*(?:,\s*)?(?:for\s+each|for\s+every|per|each|every|to\s+each)\s+", re.I)


def _measured(text: str, number: _Number, numbers: dict[int, _Number]) -> Value | None:
    """A number with its unit, count noun or ratio, or None."""
    if text[max(0, number.start - 1):number.start] == "$":
        return Value("money", number.value, "USD", text[number.start - 1:number.end], number.start - 1,
                     number.end, number.value, "USD")
    time = re.match(r"\s*(?::(\d{2}))?\s*([ap])\.?\s?m\.?", text[number.end:], re.I)
    if time and number.value <= 12 and float(number.value).is_integer():
        end = number.end + time.end()
        return Value("time", number.value, time.group(2).lower() + "m", text[number.start:end], number.start, end)
    echo = ECHO.match(text, number.end)  # "thirty (30) days": the figure repeated in brackets
    unit = _unit_at(text, echo.end() if echo else number.end)
    if unit:
        kind, name, factor, end = unit
        value = Value(kind, number.value, name, text[number.start:end], number.start, end,
                      round(number.value * factor, 4), _BASE[kind])
        return _with_second_unit(text, value, numbers) if kind == "length" else value
    count = _count_at(text, number.end)
    if count:
        noun, end = count
        return Value("count", number.value, noun, text[number.start:end], number.start, end, number.value, noun)
    return None


_BASE = {"length": "ft", "area": "sq ft", "duration": "day", "speed": "mph", "percentage": "%",
         "money": "USD", "frequency": "MHz", "decibel": "dB", "density": "units per acre",
         "floor area ratio": "FAR", "volume": "cu ft"}


def _with_second_unit(text: str, value: Value, numbers: dict[int, _Number]) -> Value:
    """ "3 ft. 6 in." / "seven feet, six inches" -> one length; "1.2 m [48 in.]" -> the metric figure
    with its inches in brackets (the quantity is the bracketed imperial figure as printed)."""
    rest = text[value.end:]
    bracket = re.match(r"\s*[\[(]\s*", rest)
    gap = re.match(r"\s*,?\s*(?:and\s+)?", rest)
    for match, closing in ((bracket, True), (gap, False)):
        if not match:
            continue
        start = value.end + match.end()
        second = numbers.get(start)
        if second is None:
            continue
        unit = _unit_at(text, second.end)
        if not unit or unit[0] != "length":
            continue
        end = unit[3]
        if closing:
            close = re.match(r"\s*[\])]", text[end:])
            if not close:
                continue
            end += close.end()
            quantity = round(second.value * unit[2], 4)
        else:
            if unit[1] == value.unit or unit[2] > _factor(value.unit):
                continue
            quantity = round((value.quantity or 0) + second.value * unit[2], 4)
        return Value("length", value.number, value.unit, text[value.start:end], value.start, end, quantity, "ft")
    return value


def _factor(unit: str) -> float:
    for kind, _, name, factor in vocab().units:
        if kind == "length" and name == unit:
            return factor
    return 1.0


def _ratio(text: str, value: Value, numbers: dict[int, _Number]) -> Value:
    """ "1 space for each 250 sq. ft." / "one horizontal foot for every one foot" -> a ratio."""
    match = PER.match(text, value.end)
    if not match or value.kind not in ("count", "length"):
        return value
    position = match.end()
    per = numbers.get(position)
    if per is not None:
        unit = _unit_at(text, per.end)
        count = None if unit else _count_at(text, per.end)
        if unit:
            end, per_unit, per_value = unit[3], unit[1], per.value
        elif count:
            end, per_unit, per_value = count[1], count[0], per.value
        else:
            word = re.match(r"[\s-]*([A-Za-z][\w-]*(?:\s+[a-z][\w-]*)?)", text[per.end:])
            if not word:
                return value
            end, per_unit, per_value = per.end + word.end(), word.group(1).lower(), per.value
    else:
        word = re.match(r"([A-Za-z][\w-]*(?:\s+(?!of\b|in\b|and\b|or\b|for\b)[a-z][\w-]*)?)", text[position:])
        if not word:
            return value
        end, per_unit, per_value = position + word.end(), word.group(1).lower(), 1.0
    return Value("ratio", value.number, value.unit, text[value.start:end], value.start, end,
                 round((value.number or 0) / per_value, 6) if per_value else None, f"{value.unit} per {per_unit}",
                 value.bound, per_value, per_unit)


def _ranged(text: str, number: _Number, numbers: dict[int, _Number]) -> Value | None:
    """ "25-35 units", "five or ten feet": the first figure takes the unit of the one after it."""
    match = RANGE.match(text, number.end)
    following = numbers.get(match.end()) if match else None
    if following is None:
        return None
    after = _measured(text, following, numbers)
    if after is None or after.kind in ("time", "money"):
        return None
    factor = (after.quantity / after.number) if after.quantity is not None and after.number else None
    quantity = round(number.value * factor, 4) if factor is not None else number.value
    return Value(after.kind, number.value, after.unit, text[number.start:number.end], number.start, number.end,
                 quantity, after.quantity_unit)


def _bound(text: str, value: Value) -> str:
    before = text[max(0, value.start - 45):value.start]
    after = text[value.end:value.end + 14]
    found = ""
    best = (-1, 0)
    for name, pattern in vocab().qualifiers.items():
        for match in pattern.finditer(before):
            key = (match.end(), match.end() - match.start())  # the nearest, then the longest
            if key > best:
                best, found = key, name
    for name, pattern in vocab().qualifiers.items():
        if re.match(r"\s*(?:or\s+(?:more|greater|larger|less|fewer)|and\s+(?:over|above))\b", after, re.I):
            match = pattern.match(after.strip())
            if match:
                return name
    return found


# --- words: permits, bodies, rules -----------------------------------------------------------


@lru_cache(maxsize=4)
def _keyed(kind: str) -> tuple[tuple[str, re.Pattern, tuple[str, ...]], ...]:
    """Each name's pattern with the literal words one of its alternatives must contain (lower case):
    a pattern runs only on a text holding one of them."""
    table = vocab().permits if kind == "permit" else vocab().bodies
    out = []
    for name, pattern in table:
        keys = []
        for alternative in pattern.pattern.split("|"):
            literal = re.sub(r"\(\?<?[!=][^)]*\)|\\[a-z]|\w\?", " ", alternative)  # lookarounds, escapes, optionals
            words = re.findall(r"[A-Za-z]{2,}", literal)
            keys.append(max(words, key=len).lower() if words else "")
        out.append((name, pattern, tuple(keys)))
    return tuple(out)


def _named(text: str, kind: str) -> list[Value]:
    """Permit types or bodies named in the text; where two overlap, the longer name wins."""
    lower = text.lower()
    found: list[Value] = []
    for name, pattern, keys in _keyed(kind):
        if not any(key in lower for key in keys):
            continue
        for match in pattern.finditer(text):
            found.append(Value(kind, None, "", match.group(0), match.start(), match.end(), None, name))
    found.sort(key=lambda v: (v.start, -(v.end - v.start)))
    out: list[Value] = []
    for value in found:
        if out and value.start < out[-1].end:
            continue
        out.append(value)
    return out


def _rules(text: str) -> list[Value]:
    out = []
    for op, pattern in vocab().rules:
        for match in pattern.finditer(text):
            clause_start = max(text.rfind(". ", 0, match.start()) + 2, text.rfind("; ", 0, match.start()) + 2,
                               text.rfind(": ", 0, match.start()) + 2, 0)
            clause = text[clause_start:match.start()].rstrip(" ,")
            split = clause.rfind(" or ")
            if split < 0:
                continue
            left, right = clause[:split], clause[split + 4:]
            left = _operand(left)
            start = clause_start + clause.rfind(left) if left in clause else clause_start
            out.append(Value("rule", None, "", text[start:match.end()], start, match.end(), None, "", op=op,
                             operands=(left, right.strip())))
    return out


def _operand(left: str) -> str:
    """The first term of "X or Y, whichever is greater": after the verb, from "the equivalent of" if said."""
    equivalent = re.search(r"\b(?:the\s+equivalent\s+of|equal\s+to)\b", left, re.I)
    if equivalent:
        return left[equivalent.start():].strip(" ,")
    parts = re.split(r"\b(?:shall\s+(?:be|have|provide|not\s+exceed)|must\s+be|is|are|be|of|requires?)\s+", left)
    return parts[-1].strip(" ,")


# --- the whole text -------------------------------------------------------------------------


def read_values(text: str) -> tuple[tuple[Value, ...], tuple[Untyped, ...]]:
    """Typed values of ``text`` in order, and every number not typed with the reason."""
    references = _claimed_references(text)
    numbers = [n for n in _numbers(text) if not _inside(n.start, n.end, references)]
    by_start = {n.start: n for n in numbers}
    values: list[Value] = []
    untyped: list[Untyped] = [Untyped(text[s:e], s, e, reason) for s, e, reason in references]
    taken_until = -1
    for number in numbers:
        if number.start < taken_until:
            continue
        value = _measured(text, number, by_start) or _ranged(text, number, by_start)
        if value is None:
            following = text[number.end:number.end + 24].strip().split(" ")[0:2]
            untyped.append(Untyped(text[number.start:number.end], number.start, number.end,
                                   "no unit or counted noun (followed by " + repr(" ".join(following)) + ")"))
            continue
        value = _ratio(text, value, by_start)
        bound = _bound(text, value)
        if bound and not value.bound:
            value = _replace(value, bound=bound)
        values.append(value)
        taken_until = value.end
    values.extend(_named(text, "permit"))
    values.extend(_named(text, "body"))
    values.extend(_rules(text))
    untyped = [u for u in untyped if not any(v.start <= u.start and u.end <= v.end for v in values)]
    values.sort(key=lambda v: (v.start, v.end, v.kind))
    untyped.sort(key=lambda u: u.start)
    return tuple(values), tuple(untyped)


def _inside(start: int, end: int, spans) -> bool:
    return any(s <= start and end <= e for s, e, *_ in spans)


def _replace(value: Value, **changes) -> Value:
    return Value(**{**value.__dict__, **changes})


def numbers_in(text: str) -> list[tuple[int, int]]:
    """Spans of every number in ``text`` (digits or spelled), for completeness checks."""
    return [(n.start, n.end) for n in _numbers(text)]
