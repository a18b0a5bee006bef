"""Choosing the provision that answers a running-text question: pure functions over the parsed
provisions (``ingest.provisions``), the question's words and, when the model is at hand, each
provision's closeness in meaning to the question.

A provision is scored like a quoted sentence (``passages.best_quote``): the IDF weight of the
question words its text and heading path carry, plus its cosine with the question. What it must
hold depends on what the question asks (``answer_type.asked``): a value of the asked kind (a
length for "how wide", a time span for "how long ... valid", a body for "who", a permit for "what
permit"), or a list (the items under a heading) for "what findings" and "what must an
application include".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import answer_type
from .choose import TUNED
from .passages import MEANING_WEIGHT, question_weight
from .permits import STOP, words_of

# The value kinds (ingest/values.py) that answer each asked type; a quantity question narrowed by
# the measure it names ("how wide" -> length).
VALUE_KINDS: dict[str, frozenset[str]] = {
    "duration": frozenset({"duration"}),
    "how_long": frozenset({"duration", "length"}),
    "money": frozenset({"money"}),
    "who": frozenset({"body"}),
    "permit": frozenset({"permit"}),
    "number": frozenset({"length", "area", "count", "ratio", "percentage", "density", "duration", "speed", "decibel",
                         "money", "floor area ratio"}),
}
MEASURE_KINDS = {"length": {"length"}, "area": {"area", "length"}, "percent": {"percentage"},
                 "count": {"count", "ratio", "density"}}
_ONE_LEVEL = re.compile(r"\([A-Za-z0-9]{1,4}\)")  # "(1)": one outline level below
LIST_ASKS = frozenset({"findings", "requirements"})
# A provision that carries less of the question's word weight than this does not answer it (the
# passages are tried instead). On dev, uncalibrated, 0.25 kept 63 of the 85 right provision answers
# and cut 44 of the 108 wrong ones; with the calibration refitted, dev accuracy 0.601 at 1.9% wrong
# against 0.580 at 1.7% without the route.


@dataclass(frozen=True)
class Choice:
    provision: object  # ingest.provisions.Provision
    score: float
    coverage: float  # share of the question's word weight the provision's words carry (0-1)
    similarity: float  # cosine with the question (0 without the model)
    values: tuple  # the typed values of the asked kind, for a value question (a minimum and a maximum ...)
    items: tuple = ()  # a list question: the list's items, in order
    margin: float = 0.0  # over the next provision's score


def wanted_kinds(asked: str, question: str) -> frozenset[str]:
    """The value kinds that answer the question, or empty when it asks for no value."""
    kinds = VALUE_KINDS.get(asked, frozenset())
    if asked == "number":
        measures = answer_type.units_asked(question)
        narrowed = {k for m in measures for k in MEASURE_KINDS.get(m, ())}
        kinds = frozenset(narrowed) or kinds
    return kinds


def head_said(question: str, provision, idf: Mapping[str, float] | None = None) -> float:
    """How much of the provision's printed head ("Single-Family Dwellings", "Nonresidential
    Projects") the question says: an item scoped by its head answers a question about that scope.
    With ``idf``, each head word weighs its IDF: saying "application" of "Expiration of Application"
    is saying little of it."""
    head = {w for w in words_of(provision.head) if w not in STOP and len(w) > 1}
    if not head:
        return 0.0
    weight = (lambda w: idf.get(w, 1.0)) if idf is not None else (lambda w: 1.0)
    return sum(weight(w) for w in head & set(words_of(question))) / sum(weight(w) for w in head)


def coverage(question: str, text: str, idf: Mapping[str, float], weight: float) -> float:
    wanted = {w for w in words_of(question) if w not in STOP and len(w) > 1}
    shared = wanted & set(words_of(text))
    return min(1.0, sum(idf.get(w, 1.0) for w in shared) / weight)


def values_of(provision, kinds: frozenset[str]) -> tuple:
    return tuple(v for v in provision.values if v.kind in kinds)[:TUNED.provision_max_values]


def children_of(provision, provisions: Sequence) -> tuple:
    """The list items printed directly under ``provision`` (its label followed by one more level)."""
    return tuple(p for p in provisions if p.section == provision.section and p.kind == "item"
                 and p.label.startswith(provision.label) and _ONE_LEVEL.fullmatch(p.label[len(provision.label):]))


def outline(items: Sequence, provisions: Sequence, limit: int = 2 * TUNED.provision_max_items) -> list[tuple[int, object]]:
    """``items`` with the items printed under each, depth first, as (depth, item), at most ``limit``:
    an item that leads a list of its own ("(2) Findings for Zoning Code/Map amendments." over its
    "(a) ..." to "(e) ...") answers with that list, not with its lead alone."""
    lines: list[tuple[int, object]] = []

    def add(level: Sequence, depth: int) -> None:
        for item in level:
            if len(lines) >= limit:
                return
            lines.append((depth, item))
            add(sorted(children_of(item, provisions), key=lambda p: p.order), depth + 1)

    add(items, 0)
    return lines


def marker(label: str) -> str:
    """An item's own outline marker ("(2)" of "17.44.040(B)(2)")."""
    found = re.search(r"\([A-Za-z0-9]{1,4}\)(?:#\d+)?$", label)
    return found.group(0) if found else label


def outline_lines(items, provisions) -> list[str]:
    """A list's items one a line, each followed by the items printed under it, indented (the provision
    route's lists and the passage route's announced lists print alike)."""
    return [f"{'  ' * depth}{marker(item.label)} {item.text}" for depth, item in outline(items, provisions)]


def parent_of(provision, provisions: Sequence):
    label = provision.label
    if not label.endswith(")") or "(" not in label:
        return None
    head = label[: label.rfind("(")]
    return next((p for p in provisions if p.section == provision.section and p.label == head), None)


def choose(question: str, asked: str, provisions: Sequence, idf: Mapping[str, float],
           meaning: Mapping[str, float] | None, section_rank: Mapping[str, int],
           read: Mapping[tuple[str, str], float] | None = None) -> Choice | None:
    """The provision that answers the question best among ``provisions`` (those of the sections the
    search found, ``section_rank`` their order), or None when none holds what is asked. ``read``:
    the reader's probability of each provision ((document, label) -> p); when given, it ranks the
    provisions that hold what is asked instead of the hand-weighted score."""
    kinds = wanted_kinds(asked, question)
    if not kinds and asked not in LIST_ASKS:
        return None
    weight = question_weight(question, idf)
    scored = []
    for p in provisions:
        fits = bool(values_of(p, kinds)) if kinds else bool(list_of(p, provisions)[1])
        if not fits:
            continue
        carried = coverage(question, p.text + " " + " ".join(p.path), idf, weight)
        if carried < TUNED.provision_min_coverage:
            continue
        similarity = max(0.0, (meaning or {}).get(p.text, 0.0))
        if read is not None:
            score = read.get((p.document, p.label), 0.0)
        else:
            score = (carried + MEANING_WEIGHT * similarity + TUNED.provision_head_weight * head_said(question, p, idf)
                     + 0.05 / (1 + section_rank.get(p.section, 9)))
        scored.append((score, carried, similarity, p))
    if not scored:
        return None
    scored.sort(key=lambda s: (-s[0], s[3].section, s[3].order))
    score, carried, similarity, best = scored[0]
    margin = score - scored[1][0] if len(scored) > 1 else score
    if kinds:
        return Choice(best, score, carried, similarity, values_of(best, kinds), margin=margin)
    head, items = list_of(best, provisions)
    return Choice(head, score, carried, similarity, (), items[:TUNED.provision_max_items], margin)


def list_of(provision, provisions: Sequence) -> tuple[object, tuple]:
    """The list ``provision`` heads or belongs to: (its lead, its items). A list printed right under
    the section's own text (17.44.065's "(a) ... (b) ...") is led by the sentence before it."""
    if children_of(provision, provisions):
        return provision, children_of(provision, provisions)
    parent = parent_of(provision, provisions)
    if parent is not None:
        return parent, children_of(parent, provisions)
    siblings = _top_items(provision, provisions)
    if len(siblings) < 2:
        return provision, ()
    before = [p for p in provisions if p.section == provision.section and p.kind == "sentence" and p.order < siblings[0].order]
    return (before[-1] if before else provision), siblings


def _top_items(provision, provisions: Sequence) -> tuple:
    """The items at the section's first outline level, when ``provision`` is one of them."""
    if provision.kind != "item" or not _ONE_LEVEL.fullmatch(provision.label[len(provision.section):]):
        return ()
    return tuple(sorted((p for p in provisions if p.section == provision.section and p.kind == "item"
                         and _ONE_LEVEL.fullmatch(p.label[len(p.section):])), key=lambda p: p.order))
