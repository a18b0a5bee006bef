"""Which district's standard is higher or lower ("which is taller, the TOC height limit or SW's?",
"minimum lot size NL vs NM - which is bigger?"): pure functions over the cells each district's
answer used (``lookups``). Numbers compare in one unit only; a value that carries its own condition
("45 ft.; 55 ft. with use permit") or notes that differ between the districts is not ranked: the
answer says so and gives each value (issue 23 item 3)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import answer_type

# The direction a comparison asks for (general English): the word as the lead says it.
MORE = ("taller", "higher", "bigger", "larger", "wider", "deeper", "longer", "more", "greater", "most")
LESS = ("shorter", "lower", "smaller", "narrower", "less", "fewer", "least")
_SAID = {"more": "higher", "greater": "higher", "most": "higher", "less": "lower", "fewer": "lower", "least": "lower"}
MOST = ("tallest", "highest", "biggest", "largest", "widest", "deepest", "longest", "greatest")
LEAST = ("shortest", "lowest", "smallest", "narrowest", "shallowest", "fewest")
# "Which ... most/more ..., A or B?", "which district ... tallest ...": which of several items ranks first
# (general English). A superlative of one subject ("what's the most parking we can allow?") asks for a
# maximum, not a ranking; "what is more restrictive ..." without "which" is left to the routes' own readings.
WHICH = re.compile(r"\bwhich\b", re.I)
QUANTITY_BOUND = re.compile(r"\b(?:more|less|fewer|greater|higher|lower|larger|smaller|taller|shorter|bigger|wider|longer)"
                            r"\s+than\s+(?:\$?\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|"
                            r"thirty|forty|fifty|sixty|hundred|a (?:few|dozen|hundred|thousand))\b", re.I)
RANKED_ITEMS = re.compile(r"\b(?:or|vs|versus|than|compared)\b|\bwhich (?:district|districts|zone|zones|zoning district)\b", re.I)


def direction(question: str) -> tuple[str, int] | None:
    """(the lead's word, +1 for the larger value or -1 for the smaller), or None when none is asked."""
    # "tell me more about ..." asks for more words, not the larger value
    text = re.sub(r"\bmore\s+(?:about|info|information|details?|on)\b", " ", question.lower())
    for word in re.findall(r"[a-z]+", text):
        if word in MORE:
            return _SAID.get(word, word), 1
        if word in LESS:
            return _SAID.get(word, word), -1
    return None


def ranks(question: str) -> str:
    """"most" or "least" when the question asks which of several items (named alternatives, or the
    districts) ranks first by a measure; "" otherwise."""
    # "more than 6 feet" states a quantity; it ranks nothing
    question = QUANTITY_BOUND.sub(" ", question)
    if not (WHICH.search(question) and RANKED_ITEMS.search(question)):
        return ""
    text = re.sub(r"\bmore\s+(?:about|info|information|details?|on)\b", " ", question.lower())
    for word in re.findall(r"[a-z]+", text):
        if word in MORE or word in MOST:
            return "most"
        if word in LESS or word in LEAST:
            return "least"
    return ""


def measured(cells: Sequence[dict], question: str) -> list[dict]:
    """The cells that state the measure asked ("lot size ... bigger": the area, not the width)."""
    asked = [m for m in answer_type.MEASURES if m in answer_type.units_asked(question)]
    if not asked:
        return list(cells)
    for measure in asked:
        kept = [c for c in cells if answer_type.measure_in(str(c.get("value") or "")) == measure]
        if kept:
            return kept
    return list(cells)


def lead(question: str, by_district: dict[str, Sequence[dict]]) -> str:
    """"Taller in TOC:", "The same in NL and NM:", why the values are not ranked, or "" when the
    question asks no direction or the districts' values are not one number each in one unit."""
    asked = direction(question)
    if asked is None or len(by_district) < 2:
        return ""
    values, notes = {}, {}
    for district, cells in by_district.items():
        cells = measured(cells, question)
        quantities = [q for c in cells for q in c.get("quantities", ())]
        if len(cells) != 1 or not quantities:
            return ""
        if len(quantities) > 1:
            return f"Not ranked here, as a value carries a condition ({district}: {cells[0].get('value')}); each value:"
        values[district] = (quantities[0]["value"], quantities[0]["unit"])
        notes[district] = tuple(sorted(n.get("number", "") for n in cells[0].get("footnotes", ())))
    if len({unit for _, unit in values.values()}) != 1:
        return ""
    if len(set(notes.values())) > 1:
        which = "; ".join(f"{d}: notes {', '.join(n)}" for d, n in notes.items() if n)
        return f"Not ranked here, as the districts' values carry different notes ({which}); each value:"
    word, sign = asked
    best = max(sign * number for number, _ in values.values())
    first = [d for d, (number, _) in values.items() if sign * number == best]
    if len(first) == len(values):
        return f"The same in {' and '.join(first)}:"
    return f"{word.capitalize()} in {' and '.join(first)}:"
