"""What kind of answer a question asks for, and whether a sentence holds one.

Types: ``money`` (a fee, fine, tax or cost), ``section`` (which section covers ...), ``duration`` (how long, when does it expire, within how many days), ``number`` (how
tall/many/far/wide, minimum/maximum, what size), ``who`` (who decides/approves/hears), ``definition``
(what is/what does ... mean), ``yes_no`` (can I/is it/do I need), else ``other``. The cue words are
general English, not the code's vocabulary; a quote that holds the asked type is preferred, and
whether one was found is a confidence signal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CUES = (
    ("money", re.compile(r"\b(?:fee|fees|fine|fines|penalty|penalties|cost|costs|charge|price|tax|taxes)\b|\$|\bhow much (?:does|do|will|is)\b"
                         r".*\b(?:cost|pay|charge)", re.I)),
    ("section", re.compile(r"\b(?:which|what) (?:section|chapter|part of the code)\b|\bwhere in the (?:code|ordinance)\b", re.I)),
    ("duration", re.compile(r"\bhow (?:long|soon|late|early|many (?:days|months|years|weeks|hours|hrs|yrs|wks|mins|minutes))\b|\bexpir\w*|\bdeadline\b"
                            r"|\btime limit\b|\bwhat (?:hours|time|period)\b|\bwithin what\b"
                            r"|\bwithin how\b|\bwhen (?:does|do|will|must|is)\b.*\b(?:expire|lapse|end|due|decide)", re.I)),
    # "Who counts as a service provider?" asks what a term means, not who decides (general English).
    ("who", re.compile(r"\bwho\b(?! (?:counts|qualifies) as\b)|\bwhich (?:body|official|board|commission|department)\b|\bwhat body\b", re.I)),
    ("number", re.compile(r"\bhow (?:many|much|far|close|tall|high|wide|big|deep|large|small|low|long)\b|\b(?:minimum|maximum|max|min)\b"
                          r"|\b(?:limit|size|height|width|depth|distance|percent(?:age)?|ratio|number of|square f(?:ee|oo)t)\b"
                          # a comparison of measures (general English): "taller in PF than in CG", "higher than 6 feet"
                          r"|\b(?:taller|shorter|wider|narrower|bigger|larger|smaller|deeper)\b|\b(?:higher|lower|longer) than\b", re.I)),
    ("definition", re.compile(r"\bwhat (?:is|are|does|do) (?:an? |the )?['\"“]?[\w -]+['\"”]? (?:mean|means)\b|\bdefin\w+\b"
                              r"|\b(?:what|who) (?:counts|qualifies) as\b|\bmeaning of\b|^\s*what(?:'s| is| are) (?:an? |the )?[\w -]{3,40}\??\s*$", re.I)),
    ("yes_no", re.compile(r"^\s*(?:can|could|may|is|are|do|does|must|am|should|will)\b", re.I)),
)

_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|hundred|thousand|half|percent)\b", re.I)
_TIME_UNIT = re.compile(r"\b(?:days?|weeks?|months?|years?|hours?|hrs?)\b", re.I)
_BODY = re.compile(r"\b(?:planning commission|city council|council|commission|director|zoning administrator|"
                   r"review authority|city engineer|building official|staff|planning department)\b", re.I)
_DEFINES = re.compile(r"[”\"] means\b|\bmeans\b|\bis defined as\b|\bincludes\b", re.I)


def detect(question: str) -> str:
    for name, cue in _CUES:
        if cue.search(question):
            return name
    return "other"


QUANTITIES = frozenset({"duration", "number", "money"})  # kinds answered only by a stated quantity
_LIST_NUMBER = re.compile(r"(?:^|(?<=[\s;:]))\(?\d{1,2}(?:\.{1,2}|\))(?=\s)")
_SECTION_NUMBER = re.compile(r"\b\d{1,2}\.\d{2}(?:\.\d{3})?(?:\([A-Za-z0-9]+\))*")


def present(kind: str, sentence: str) -> bool:
    """Whether ``sentence`` holds an answer of ``kind`` (a number, a time span, a body, a definition)."""
    if kind == "section":
        return bool(re.search(r"\b\d{1,2}\.\d{2}(?:\.\d{3})?\b", sentence))
    sentence = _SECTION_NUMBER.sub(" ", sentence)  # "See Section 17.42.170" states no quantity
    sentence = _LIST_NUMBER.sub(" ", sentence)  # nor does a list's numbering ("10. Tower means ...")
    if kind == "money":
        return bool(re.search(r"\$\s*\d|\b\d[\d,]*(?:\.\d\d)? dollars\b", sentence, re.I))
    if kind == "duration":
        return bool(_NUMBER.search(sentence) and _TIME_UNIT.search(sentence))
    if kind == "number":
        return bool(_NUMBER.search(sentence))
    if kind == "who":
        return bool(_BODY.search(sentence))
    if kind == "definition":
        return bool(_DEFINES.search(sentence))
    return True


# -- units: what a number is measured in -------------------------------------------------------------
_UNIT_CUES = (
    ("percent", re.compile(r"\bpercent(?:age)?\b|%|\bshare of\b|\bportion of\b|\bfraction of\b|\bhow much of\b"
                           # a part of a whole in words or figures: "a third of", "half of the", "40 of the 100"
                           r"|\b(?:a|one|two|three) (?:half|third|thirds|quarter|quarters|fourth|fifth)s? of\b"
                           r"|\bhalf (?:of )?(?:the|a|all|our|my|their)\b|\b\d+ (?:out )?of (?:the |our |my |their )?\d+\b", re.I)),
    ("length", re.compile(r"\bhow (?:tall|high|wide|far|deep|close|long|low)\b|\b(?:height|width|depth|setback|clearance|"
                          r"distance|feet|foot|inches|inch)\b|\bset back\b", re.I)),
    ("area", re.compile(r"\bhow big\b|\b(?:size|area|square f(?:ee|oo)t|sq\.? ?ft|acres?|dimensions?)\b", re.I)),
    ("count", re.compile(r"\bhow many\b|\bnumber of\b|\bhow much parking\b|\b(?:spaces|spots|units per)\b", re.I)),
)
_UNITS_IN_VALUE = (
    ("percent", re.compile(r"%|\bpercent\b", re.I)),
    ("area", re.compile(r"\bsq\.? ?ft\b|\bsquare f(?:ee|oo)t\b|\bacres?\b", re.I)),
    ("length", re.compile(r"\d\s*(?:ft\b|feet\b|foot\b|in\.|inch|inches\b)(?!\s*of floor)|\bstor(?:y|ies)\b", re.I)),
    ("count", re.compile(r"\bspaces?\b|\bunits?\b|\bper\b", re.I)),
)
# "how big" may be answered by a width and a length; "dimensions" likewise.
_ALSO = {"area": {"length"}}


def units_asked(question: str) -> frozenset[str]:
    """The measures a question asks for ("how wide" -> length; "what share" -> percent); empty when
    it names none. A percent question asks only for a percent."""
    found = {name for name, cue in _UNIT_CUES if cue.search(question)}
    if "percent" in found:
        return frozenset({"percent"})
    for name in list(found):
        found |= _ALSO.get(name, set())
    return frozenset(found)


def units_in(value: str) -> frozenset[str]:
    return frozenset(name for name, cue in _UNITS_IN_VALUE if cue.search(value))


def units_agree(question: str, values: str) -> bool:
    """False only when the question asks for a measure the values plainly do not give
    (a percentage answered by a width, a width answered by a count of spaces)."""
    asked, given = units_asked(question), units_in(values)
    return not asked or not given or bool(asked & given)


# -- the answer types routes give, and which of them answer what a question asks ----------------------
MEASURES = ("percent", "area", "length", "count")  # in this order: a value "10 ft per unit" is a length
QUANTITY_TYPES = frozenset({*MEASURES, "duration", "money", "number"})
# What a table cell states when it is not a measure, and the other kinds of answer the routes give.
GIVEN = QUANTITY_TYPES | {"permit_code", "body", "list", "text", "definition", "section", "section_text",
                          "district_description", "passage", "decline", "ordinance_fact", "change_list", "table"}

# ingest/values.py kinds of a stated value as the answer types above (a provision's value, read by the
# provision route and by the question bank's provision units alike)
GIVEN_AS = {"percentage": "percent", "ratio": "count", "density": "count", "permit": "permit_code",
            "speed": "number", "decibel": "number", "floor area ratio": "number"}


def measure_in(values: str) -> str:
    """The kind of quantity a table value states ("35 ft" -> length, "1 per 300 sf" -> count, "1 year"
    -> duration); ``text`` when it states none."""
    units = units_in(values)
    for name in MEASURES:
        if name in units:
            return name
    for name in ("duration", "money", "number"):
        if present(name, values):
            return name
    return "text"


# Questions whose answer is a list or a consequence in running text, however their first words read
# (general English): what must be found or shown, whether a decision may be referred, what happens if.
_ASKED_CUES = (
    ("findings", re.compile(r"\bwhat (?:findings|criteria)\b|\bfindings? (?:are |is )?(?:required|needed|necessary)\b"
                            r"|\b(?:the|all|list|every|any) (?:\w+ )?findings\b"
                            r"|\b(?:required|necessary) findings\b|\bwhat (?:must|does|do|has to|have to|shall|should|needs? to)\b"
                            r"[\w\s]{0,40}?\b(?:find|found|determine|determined|show|shown|demonstrate|prove)\b", re.I)),
    ("referral", re.compile(r"\brefer(?:s|red|ral|ring)?\b", re.I)),
    ("consequence", re.compile(r"\bwhat (?:happens|will happen|would happen)\b|\bconsequences?\b", re.I)),
    # what an application or submittal must hold: a list in the code's text, never a table cell
    ("requirements", re.compile(r"\bwhat (?:\w+ )?(?:information|documents?|paperwork|materials?|reports?|studies|plans|items)\b"
                                r"|\bwhat\b[\w\s]{0,30}?\b(?:application|submittal|submission)s?\b[\w\s]{0,60}?"
                                r"\b(?:include|contain|show)\b", re.I)),
    # which permit or review a project needs: a permit cell or the code's text, not a definition
    ("permit", re.compile(r"\b(?:what|which) (?:kind of |type of |sort of |level of )?(?:city |planning |land use )?"
                          r"(?:permits?|approvals?|reviews?|entitlements?)\b(?! (?:authority|authorities|body|board))", re.I)),
)
# What answers each asked type; an asked type not listed here is answered by any type.
# A table of who decides (body) or a permit code answers none of the first three; a permit code
# states no quantity, and a quantity names no body.
_RUNNING_TEXT = frozenset({"passage", "section_text", "section", "definition", "list", "decline", "ordinance_fact"})
ACCEPTS: dict[str, frozenset[str]] = {
    "findings": _RUNNING_TEXT,
    "referral": _RUNNING_TEXT,
    "consequence": _RUNNING_TEXT | {"duration"},
    "duration": _RUNNING_TEXT | {"duration", "number", "text"},
    "how_long": _RUNNING_TEXT | {"duration", "length", "number", "text"},
    "number": _RUNNING_TEXT | QUANTITY_TYPES | {"text", "district_description"},
    "money": _RUNNING_TEXT | {"money", "number", "text"},
    "who": _RUNNING_TEXT | {"body", "permit_code", "text"},
    "requirements": _RUNNING_TEXT - {"definition"},
    "permit": (_RUNNING_TEXT - {"definition"}) | {"permit_code", "text"},
}
DESCRIBED = {
    "findings": "what must be found or shown (a list in the code's text)",
    "referral": "whether a decision may be referred to another body (the code's text)",
    "consequence": "what happens in a case (the code's text)",
    "requirements": "what an application must include (a list in the code's text)",
    "permit": "which permit or review is needed", "definition": "a definition",
    "duration": "a time span", "how_long": "a length or a time span", "number": "a quantity", "money": "an amount of money", "who": "who decides",
    "permit_code": "a permit requirement (a permit table cell)", "body": "who decides (Table 6-1)",
    "list": "a list of districts (a table)", "text": "a table cell's words",
    "length": "a length", "area": "an area", "count": "a count", "percent": "a percentage",
    "ordinance_fact": "a fact an ordinance states about itself (a date, its number, its applicant)",
    "change_list": "what an ordinance changed (its cells' history)",
    "table": "a whole table (its title, section and cells)",
}


# Words that make a "how long" question one of time ("how long is a use permit valid?"); without
# them "how long" may ask for a length ("how long does the driveway need to be?").
_TIME_WORDS = re.compile(r"\bhow (?:soon|late|early|many)\b|\bexpir\w*|\bdeadline\b|\btime\b|\bperiod\b|\bwithin\b|\bwhen\b"
                         r"|\b(?:have to|has to|do (?:i|we|you) have|valid|good|last|lasts|take|takes|wait|stay|remain|run|runs|days?|weeks?|months?|years?|hours?)\b", re.I)


@dataclass(frozen=True)
class Asks:
    """What a question asks for, classified once (``classify``): ``detected`` is ``detect``'s type,
    ``asked`` the refined type the chooser holds candidates to (``asked``)."""

    detected: str
    asked: str


def classify(question: str) -> Asks:
    """Both readings of ``question`` from one run of ``detect``: the Query carries them, so no route
    classifies the question again (issue 35)."""
    detected = detect(question)
    return Asks(detected, _refined(question, detected))


def asked(question: str) -> str:
    """The answer type a question asks for: ``detect``'s, refined where the answer lies in running
    text (``findings``, ``referral``, ``consequence``) and where "how long" may ask for a length
    (``how_long``). A question already understood carries it (``Query.asked``)."""
    return classify(question).asked


def _refined(question: str, detected: str) -> str:
    for name, cue in _ASKED_CUES:
        if cue.search(question):
            return name
    if detected == "duration" and re.search(r"\bhow long\b", question, re.I) and not _TIME_WORDS.search(question):
        return "how_long"
    return detected


def answers(asked_type: str, given: str) -> bool:
    """Whether an answer of type ``given`` can answer a question asking for ``asked_type``."""
    accepted = ACCEPTS.get(asked_type)
    return accepted is None or given in accepted
