"""Typed records of the answer layer: the understood question, citations, the answer."""

from __future__ import annotations

from dataclasses import dataclass, field


class SearchUnavailable(RuntimeError):
    """The search index (and its model) cannot be used yet, e.g. while it is first built: answers
    that need it wait, table answers go on without the parts that would use it."""


@dataclass(frozen=True)
class Query:
    """What the assistant understood of a question."""

    text: str
    normalized: str
    corrected: str = ""  # the question as typed with misspelt words corrected (what search and quotes use)
    sections: tuple[str, ...] = ()  # section numbers named ("17.44.065")
    subsection: tuple[str, ...] = ()  # subsection of the first one: ("E",) or ("D", "5")
    tables: tuple[str, ...] = ()  # table numbers named ("2-4")
    districts: tuple[str, ...] = ()  # district symbols, in the order mentioned
    district_words: tuple[str, ...] = ()  # the words that named them ("east cotati avenue")
    land_use: str = ""  # the land-use phrase after synonyms ("accessory dwelling unit")
    land_use_words: str = ""  # the words of the question that named it
    land_uses: tuple[str, ...] = ()  # every table label its everyday words stand for, longest phrase first
    topics: tuple[str, ...] = ()
    apn: str = ""  # assessor's parcel number ("144-720-061")
    # Permit-table rows (labels) carried from the previous question by a follow-up that names only a
    # district ("what about NL?"): the use is kept exactly as it was read, not read again.
    carried_rows: tuple[str, ...] = ()
    # The answer type asked, classified once from the question as typed (answer_type.classify): routes
    # read these, never classifying the question again. "other" (asks for no particular type) in a
    # Query built by hand.
    detected: str = "other"  # answer_type.detect's type ("number", "who", "definition", "yes_no" ...)
    asked: str = "other"  # the refined type candidates must give (answer_type.asked: "findings", "how_long" ...)
    # "most" or "least": the question asks which of several items ranks first ("which needs more parking,
    # a bank or a laundromat?"; comparison.ranks); only a candidate stating two or more of them answers it.
    ranks: str = ""
    # What a leading or negated yes/no question asserts ("a tattoo parlor can't open in CG, can it?":
    # premise.NOT_ALLOWED); the lead then says whether the asker is right.
    claim: str = ""


@dataclass(frozen=True)
class Citation:
    section: str
    title: str
    document: str
    date: str
    quote: str
    table: str = ""
    ordinance_section: str = ""

    def to_dict(self) -> dict:
        return {
            "section": self.section, "title": self.title, "document": self.document,
            "date": self.date, "quote": self.quote, "table": self.table,
            "ordinance_section": self.ordinance_section,
        }


@dataclass(frozen=True)
class Answer:
    question: str
    answer: str  # plain text; the first line is the direct answer
    abstained: bool
    citations: tuple[Citation, ...] = ()
    lookups: tuple[dict, ...] = ()  # table cells used, as `python -m ingest tables --json` dumps them
    timing_ms: float = 0.0
    route: str = ""  # which path produced it: permit, section, passage, abstain, invalid
    nearest: tuple[str, ...] = field(default_factory=tuple)  # nearest sections when abstaining
    # How sure the assistant is that this answer is right (0-1, calibrated on dev; None: not scored).
    confidence: float | None = None
    # What the question was read as: use rows, districts, topics, each with the words behind it.
    interpretation: dict = field(default_factory=dict)
    # The explainable measurements the confidence is computed from (match shares, margins, ...).
    signals: dict = field(default_factory=dict)
    # Follow-up questions offered when the question was ambiguous (one click each in the app).
    clarify: tuple[str, ...] = ()
    # The day the answer is valid for and the documents then in force, when the question named one.
    as_of: dict = field(default_factory=dict)
    # "How sure" in words ("high", "medium", "low"), from the bands fitted on dev; "" when not stated.
    how_sure: str = ""
    # A decline's closest passages of the loaded text (assistant.closest.Closest), closest first.
    closest: tuple = ()

    @property
    def first_line(self) -> str:
        return self.answer.split("\n", 1)[0]

    def to_dict(self) -> dict:
        return {
            "question": self.question,
            "answer": self.answer,
            "abstained": self.abstained,
            "citations": [citation.to_dict() for citation in self.citations],
            "lookups": list(self.lookups),
            "timing_ms": round(self.timing_ms, 2),
            "route": self.route,
            "nearest": list(self.nearest),
            "confidence": None if self.confidence is None else round(self.confidence, 4),
            "how_sure": self.how_sure,
            "interpretation": self.interpretation,
            "signals": {name: round(value, 4) for name, value in self.signals.items()},
            "clarify": list(self.clarify),
            **({"as_of": self.as_of} if self.as_of else {}),
            **({"closest": [c.to_dict() for c in self.closest]} if self.closest else {}),
        }


@dataclass(frozen=True)
class Candidate:
    """One route's answer to the understood question: the answer type it gives (``permit_code``,
    ``body``, a quantity such as ``length`` or ``duration``, ``definition``, ``section_text``,
    ``passage``, ``list`` ...; see answer_type.GIVEN), the answer itself (value and citations) and,
    in ``answer.signals``, the features its confidence uses. ``decline``: the route declines with
    a reason. ``follow``: the question to route again and join to this one (a parcel read as the
    district it is zoned)."""

    answer_type: str
    answer: Answer
    follow: Query | None = None

    @property
    def features(self) -> dict:
        return self.answer.signals
