"""Permit-table lookups: which row a question names, and what each district requires."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from collections.abc import Iterable
from dataclasses import dataclass

PERMIT_WORDS = {
    "P": "Permitted (P); a zoning clearance is required.",
    "MUP": "A minor use permit (MUP) is required.",
    "UP": "A use permit (UP) is required.",
    "S": "Allowed as set by the specific use regulations (S).",
    "P/MUP": "Permitted (P) or a minor use permit (MUP) is required, as the table's notes say (P/MUP).",
    "-": "Not allowed.",
}
SHORT_WORDS = {"P": "permitted (P)", "MUP": "minor use permit (MUP)", "UP": "use permit (UP)",
               "S": "specific use regulations (S)", "P/MUP": "P/MUP", "-": "not allowed"}
GENERIC = frozenset("and or of the a an with for in on to use uses facility facilities services service sales "
                    "store shop ft sq more less than or fewer business".split())
# Heading words every row of a table shares: they tell no row apart.
HEADING_FILLER = frozenset("residential commercial zone zones agricultural open space industry manufacturing "
                           "processing retail trade recreation education public assembly services".split())
STOP = frozenset("can i we my a an the in on at to of for is are be it do does what which where how "
                 "build open put start allowed permitted permit need zone district zoning cotati "
                 "there any you there's please or and by with from than as if that this these those not "
                 "doe".split())  # "doe": "does" with its plural s folded


def _content_words(text: str) -> set[str]:
    return {word for word in words_of(text) if word not in STOP}


def words_of(text: str) -> list[str]:
    return list(_folded_words(text))


@lru_cache(maxsize=16384)
def _folded_words(text: str) -> tuple[str, ...]:
    # Row labels and vocabulary phrases are read for every question: fold each once.
    return tuple(_fold(word) for word in re.findall(r"[a-z0-9&]+", text.lower()))


def _fold(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class RowMatch:
    table: str
    row: str
    score: float
    own: float = 0.0  # share of the label's words the question itself says
    complete: bool = False  # the question itself says every word of the label ("adult day care")
    covered: float = 0.0  # share of the label's words said by the question or its everyday words' labels


class PermitTables:
    """Effective permit cells indexed by table, row and district column."""

    def __init__(self, effective: Iterable):
        self.cells: dict[tuple[str, str, str], object] = {}
        self.columns: dict[str, list[str]] = defaultdict(list)
        self.rows: dict[str, list[str]] = defaultdict(list)
        self.categories: dict[tuple[str, str], str] = {}
        entries = [e for e in effective if e.cell.kind == "permit" and not e.dropped_by]  # dropped: restated away
        headings: dict[tuple[str, str], set[str]] = defaultdict(set)
        for entry in entries:
            headings[(entry.cell.table, entry.cell.row)].add(entry.cell.category)
        for entry in entries:
            cell = entry.cell
            row = self.label(cell, len(headings[(cell.table, cell.row)]) > 1)
            self.cells[(cell.table, row, cell.column)] = entry
            if cell.column not in self.columns[cell.table]:
                self.columns[cell.table].append(cell.column)
            if row not in self.rows[cell.table]:
                self.rows[cell.table].append(row)
                self.categories[(cell.table, row)] = cell.category

    @staticmethod
    def label(cell, shared: bool) -> str:
        """The row's label, with the last part of its heading when several headings print the same
        label ("Large" under Outdoor, Indoor and Mixed Light Cultivation -> "Indoor Cultivation - Large")."""
        if not shared or not cell.category:
            return cell.row
        return f"{cell.category.rsplit(' - ', 1)[-1]} - {cell.row}"

    def category(self, table: str, row: str) -> str:
        return self.categories.get((table, row), "")

    def tables_for(self, district: str) -> list[str]:
        return [table for table, columns in self.columns.items() if district in columns]

    def row_words(self) -> set[str]:
        return {word for rows in self.rows.values() for row in rows for word in re.findall(r"[a-z]+", row.lower())}

    def match(self, phrase: str, tables: Iterable[str] | None = None, synonyms: str = "") -> list[RowMatch]:
        """Rows the question names, best first.

        Words of the question itself count twice: an everyday word's table label ("restaurant"
        for a "fast food restaurant") only helps a row the question's own words fit less well.
        """
        asked = _content_words(phrase)
        asked |= {a + b for a, b in zip(words_of(phrase), words_of(phrase)[1:])}  # "mobile home"
        wanted = asked | _content_words(synonyms)
        if not wanted:
            return []
        quantity = asked_quantity(phrase)
        matches = []
        for table in tables if tables is not None else list(self.rows):
            needed = _tables_needing_words().get(table)
            if needed and not set(needed) & set(words_of(f"{phrase} {synonyms}")):
                continue
            for row in self.rows.get(table, []):
                # The numbers of a size range are matched by by_quantity, not as words.
                label = {w for w in words_of(row) if not w.isdigit()} - STOP
                if len(label) > 2:
                    label -= GENERIC
                if not label:
                    continue
                shared = label & wanted
                if not shared - GENERIC or len(shared) / len(label) < 0.5:
                    continue
                own = len(label & asked) / len(label)
                score = own + len(shared) / len(label) + 0.25 * len(shared) / len(wanted)
                # The heading tells rows with the same label apart ("Indoor Cultivation" / "Large").
                heading = set(words_of(self.category(table, row))) - STOP - GENERIC - HEADING_FILLER
                if heading:
                    score += 0.3 * len(heading & wanted) / len(heading)
                label_words = set(words_of(row)) - STOP
                complete = len(label_words) >= 2 and label_words <= asked  # "Large" alone names nothing
                # "adult day care for 5 people" names the row "Adult day care - 6 or fewer clients" outright.
                family_words = set(words_of(family(row))) - STOP
                span = label_span(row)
                complete = complete or bool(quantity and span and span.holds(*quantity)
                                            and len(family_words) >= 2 and family_words <= asked)
                matches.append(RowMatch(table, row, round(score, 4), own, complete, round(len(shared) / len(label), 4)))
        matches.sort(key=lambda m: (-m.score, len(m.row), m.table, m.row))
        return by_quantity(matches, phrase)

    def cell(self, table: str, row: str, district: str):
        return self.cells.get((table, row, district))


# A quantity a question states and a row label bounds: a count of dwellings or of the people cared
# for ("12 unit", "for 5 people": a care facility's clients are people), or a floor area ("3,000
# sq ft"; the tables print "sq. ft." and "sf", which the cannabis table's notes define as square feet).
COUNTED = (r"units?|clients?|homes?|apartments?|dwellings?|people|ppl|persons?|residents?|kids|children|adults|seniors|"
           r"folks|beds?")
AREA = r"sq\.?\s*f(?:ee)?t\.?|square\s+f(?:ee|oo)t|sf"
# Counts in words, as residents write them ("four units", "a dozen older folks"): general English.
NUMBER_WORDS = {word: value for value, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"dozen": 12, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100,
                                                       "half a dozen": 6, "half dozen": 6}
# Words that state a quantity: a row's range accounts for them, not its label.
QUANTITY_WORDS = frozenset({*(w for w in NUMBER_WORDS if " " not in w), *(_fold(w) for w in "unit units client clients people ppl person persons resident "
                                                             "residents kids children adults seniors folks bed beds".split())})
# Thousands are grouped by commas as typed, by spaces in the normalised question ("8,000" -> "8 000").
NUMBER = r"(\d{1,3}(?:[, ]\d{3})+|\d+(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")\s*(k)?"
# "12 unit", "five apartments", "a dozen older folks" (one describing word may stand between).
# A size of each home ("3 bedroom home", "2 story house") counts no homes.
QUANTITY_IN_QUESTION = re.compile(rf"\b{NUMBER}[ -]?(?:(?!bed|bath|stor|car\b|level|room)[a-z]+ )?"
                                  rf"(?:(?P<count>{COUNTED})|(?P<area>{AREA}))(?![a-z])")
SPAN_PATTERNS = (  # (pattern, low, high) with the matched number(s) as a, b
    (re.compile(r"(\d+) or more|(\d+)\+|more than (\d+)"), lambda a, b: (a, float("inf"))),
    (re.compile(r"(\d+)(?: \w+)? or (?:fewer|less)|up to (\d+)|less than (\d+)"), lambda a, b: (0, a)),
    (re.compile(r"(\d+) (?:\w+ )?(?:to|or) (\d+)"), lambda a, b: (a, b)),
    (re.compile(r"(\d+) (?:units?|clients?)"), lambda a, b: (a, a)),
)


@dataclass(frozen=True)
class Span:
    """What a row label bounds: ``kind`` "count" or "area", from ``low`` to ``high`` inclusive."""

    kind: str
    low: float
    high: float

    def holds(self, kind: str, value: float) -> bool:
        return kind == self.kind and self.low <= value <= self.high


def label_span(label: str) -> Span | None:
    """The quantity a row label covers: "3 or 4 units" -> count 3..4, "More than 5,000 sq. ft." ->
    area above 5,000. "Less than" and "more than" exclude the number itself."""
    text = label.lower().replace(",", "")
    kind = "area" if re.search(rf"\d\s*(?:{AREA})(?![a-z])", text) else "count" if re.search(r"\d.*\b(?:units?|clients?)\b", text) else ""
    if not kind:
        return None
    text = re.sub(rf"\s*(?:{AREA})(?![a-z])", "", text) if kind == "area" else text
    for pattern, make in SPAN_PATTERNS:
        match = pattern.search(text)
        if match:
            numbers = [int(group) for group in match.groups() if group]
            low, high = make(numbers[0], numbers[-1])
            # "more than 5000" starts above it; "less than 5000" ends below it.
            low = low + 1e-6 if match.group(0).startswith("more than") else low
            high = high - 1e-6 if match.group(0).startswith("less than") else high
            return Span(kind, low, high)
    return None


def asked_quantity(phrase: str) -> tuple[str, float] | None:
    """The count or floor area a question states: ("count", 12) for "a 12 unit building"."""
    found = QUANTITY_IN_QUESTION.search(phrase.lower())
    if not found:
        return None
    number = found.group(1) if found.group(1) in NUMBER_WORDS else found.group(1).replace(",", "").replace(" ", "")
    value = float(NUMBER_WORDS.get(number, 0) if number in NUMBER_WORDS else number) * (1000 if found.group(2) else 1)
    return ("count" if found.group("count") else "area"), value


def family(label: str) -> str:
    """A row's label without the quantity it bounds: rows of one family differ only by size."""
    return re.sub(r"[\s,-]*(?:up to |less than |more than )?\d[\d,]*.*$", "", label.lower()).strip(" ,-")


def by_quantity(matches: list[RowMatch], phrase: str) -> list[RowMatch]:
    """When the question states a quantity ("12 unit", "for 5 people"), rows whose label range
    holds it come first, and rows of the same family whose range excludes it go last."""
    asked = asked_quantity(phrase)
    if not asked:
        return matches
    fitting, excluded = [], []
    for match in matches:
        span = label_span(match.row)
        if span and span.holds(*asked):
            fitting.append(match)
        elif span and span.kind == asked[0]:
            excluded.append(match)
    if not fitting:
        return matches
    return fitting + [m for m in matches if m not in fitting and m not in excluded] + excluded


def contradicted(row: str, phrase: str) -> bool:
    """The row's printed limits exclude the count or area the question states ("8,000 sq ft" and
    "5,000 sq. ft. or less"): such a row is never the answer."""
    asked = asked_quantity(phrase)
    span = label_span(row) if asked else None
    return bool(span and span.kind == asked[0] and not span.holds(*asked))


def quantity_decides(matches: list[RowMatch], phrase: str) -> bool:
    """The best row was chosen over its own family by the quantity the question states."""
    asked = asked_quantity(phrase)
    if not asked or not matches:
        return False
    span = label_span(matches[0].row)
    return bool(span and span.holds(*asked))


@lru_cache(maxsize=1)
def _tables_needing_words() -> dict[str, tuple[str, ...]]:
    path = Path(__file__).resolve().parent / "data" / "permit_tables.json"
    data = json.loads(path.read_text(encoding="utf-8"))["tables_needing_words"]
    return {table: tuple(_fold(word) for word in words) for table, words in data.items()}


def words_beside(question: str, named: set[str], idf: dict, asking: frozenset[str] = frozenset()) -> float:
    """The IDF weight of what ``question`` says besides the ``named`` words (a row's names, a district)
    and the words that only ask (``asking``): "can a cell tower be *taller* in PF", "a *solar array* on my
    rural land": a question about something the answer given does not state. Words the corpus never
    uses weigh nothing ("exactly", "actually")."""
    own = {w for w in words_of(question) if w not in STOP and w not in asking and len(w) > 2}
    return round(sum(idf.get(w, 0.0) for w in own - named), 4)
