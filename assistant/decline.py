"""A decline that still helps: the closest passage of the loaded text, quoted, and reasons that are
true. ``helped`` is pure (an Answer and the evidence in, an Answer out); ``help_decline`` gathers the
evidence from ``Resources``.

What a decline says is not loaded:
- a section the loaded text cites but does not contain ("Not loaded: Section 17.62.050 ...", from
  ``compose.cited_not_loaded``) is said only when no loaded passage comes close enough to answer the
  question itself (``decline_answers_floor``), or when the close passage's running text defers to that section;
  and only when its rules are the ones the question needs: its printed name shares a word with the
  question (a front setback is not told that § 17.42.160, "Residential accessory uses and structures", is
  missing because a garage-setback passage cites it), or the closest passage defers to it (issue 46);
- a subject whose rules sit in such a section (a hot tub: the accessory-structure rules of § 17.42.160,
  ``data/not_loaded_subjects.json``) is named when the question says it and no loaded passage answers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from .choose import TUNED
from .closest import Closest
from .types import Answer
from .vocab import DATA

SUBJECTS = DATA / "not_loaded_subjects.json"
# A passage this close in meaning to the question (cosine under the index's model) is taken to answer
# it, so the decline does not claim the answer is "not loaded" (``choose.Settings.decline_answers_floor``).
NOT_LOADED = "Not loaded: "
CLOSEST = "Closest passage: "
NO_HELP = frozenset({"invalid", "unavailable", "clarify"})  # declines that are about the question itself
_TARGET = re.compile(r"^Not loaded: (?:Section|Chapter|Article) ([0-9.]+|[IVX]+)")


@dataclass(frozen=True)
class Subject:
    """A subject whose rules the loaded text cites but does not hold: its everyday words and the section."""

    subject: str
    words: tuple[str, ...]
    section: str

    def said_in(self, question: str) -> str:
        """The word of the question that names this subject ("hot tub"), or ""."""
        text = question.lower()
        for word in sorted(self.words, key=len, reverse=True):
            if re.search(r"(?<![a-z])" + re.escape(word.lower()) + r"(?![a-z])", text):
                return word
        return ""


class SubjectsError(ValueError):
    """The not-loaded subjects file does not parse; the message names the file."""


@lru_cache(maxsize=4)
def load_subjects(path: Path = SUBJECTS) -> tuple[Subject, ...]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return tuple(Subject(str(s["subject"]), tuple(str(w) for w in s["words"]), str(s["section"]))
                     for s in data["subjects"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SubjectsError(f"{path}: not a list of subjects ({error})") from None


def answered_nearby(closest: list[Closest] | tuple[Closest, ...]) -> bool:
    """Whether the closest loaded passage is near enough in meaning to answer the question."""
    return bool(closest) and closest[0].by_meaning and closest[0].similarity >= TUNED.decline_answers_floor


def helped(answer: Answer, closest: list[Closest], said: list[str], graph=None, subjects: tuple[Subject, ...] = (),
           label_of=None) -> Answer:
    """``answer`` (a decline) with the closest passage quoted and its not-loaded reasons made true.

    ``said``: the question's words as read (its text); ``graph``: the cross-reference graph
    (``ingest.references.Graph``); ``label_of(section id)``: "§ 17.24.030 Title" for a citing section."""
    lines = answer.answer.split("\n")
    first, rest = lines[0], lines[1:]
    near = answered_nearby(closest)
    asked = " ".join(said)
    kept = [line for line in rest if not line.startswith(NOT_LOADED)
            or ((not near or _cited_by(closest[0], line)) and (_needed(line, asked) or (closest and _cited_by(closest[0], line))))]
    if near or any(line.startswith(NOT_LOADED) for line in kept):
        extra = []
    else:
        extra = subject_lines(" ".join(said), graph, subjects, label_of)
    if closest:
        extra.append(closest_line(closest[0]))
    at = next((i for i, line in enumerate(kept) if line.startswith(("Nearest sections", "Where the code uses it",
                                                                     "Please ask"))), len(kept))
    kept = kept[:at] + [line for line in extra if line not in kept] + kept[at:]
    return replace(answer, answer="\n".join([first, *kept]), closest=tuple(closest))


def closest_line(closest: Closest) -> str:
    return f'{CLOSEST}{closest.heading()}: "{closest.quote}"'


_NAMED = re.compile(r"^Not loaded: (?:Section|Chapter|Article) (?:[0-9.]+|[IVX]+) \(([^)]*)\)")


def _needed(line: str, question: str) -> bool:
    """Whether the rules a "Not loaded:" line names are the ones the question asks about: the section's printed
    name shares a content word with the question (the words that tie a question to no section left out). A line
    that prints no name is kept as it is."""
    from ingest.references import stems

    from .compose import without_generic

    found = _NAMED.match(line)
    if not found:
        return True
    words = lambda text: stems(text) - FUNCTION_WORDS  # noqa: E731
    return bool(words(without_generic(question)) & words(found.group(1)))


# English words that name no subject (``ingest.references.stems`` keeps words of three letters and more).
FUNCTION_WORDS = frozenset("the and for are was were how can may any our you your its has had did not but who why "
                           "all off out own per via one two".split())


def _cited_by(closest: Closest, line: str) -> bool:
    """Whether the close passage defers to the section a "Not loaded:" line names: running text that cites it
    ("... in compliance with Chapter 17.84 (Appeals)"). A table row that prints it (Table 6-1's "Applicable Land
    Use Code Section" column) still answers from its own cells."""
    found = _TARGET.match(line)
    return bool(found) and not closest.table and found.group(1) in closest.quote


def subject_lines(question: str, graph, subjects: tuple[Subject, ...], label_of=None) -> list[str]:
    """"Not loaded: Section 17.42.160 (Residential accessory uses and structures), the rules on accessory
    structures (“hot tub”), ..." for a subject the question names whose section is cited and not loaded."""
    if graph is None:
        return []
    missing = {(t.kind, t.target): t for t in graph.missing()}
    out = []
    for subject in subjects:
        word = subject.said_in(question)
        target = missing.get(("section", subject.section)) if word else None
        if target is None:
            continue
        line = (f"{NOT_LOADED}{target.label}, the rules on {subject.subject} (“{word}”), which the loaded text cites "
                "but does not contain")
        if target.cited_by:
            # The citing passage that names the subject ("Accessory structures See CMC Section 17.42.160"),
            # else the one that reads most as a sentence (most letters, not a table's flattened cells)
            named = subject.subject.lower().split()
            reference = max(target.cited_by, key=lambda r: (sum(w in r.passage.lower() for w in named),
                                                            len(re.findall(r"[A-Za-z]", r.passage)), -target.cited_by.index(r)))
            where = label_of(reference.section) if label_of else f"§ {reference.section}"
            line += f' — {where}: "{reference.passage}"'
        out.append(line)
    return out


def help_decline(question: str, answer: Answer, res) -> Answer:
    """The decline with its closest passage and true reasons (``res``: ``Resources``); other answers as they are."""
    if not answer.abstained or answer.route in NO_HELP or answer.closest:
        return answer
    from . import closest as closest_mod
    from .compose import section_label

    found = closest_mod.find(question, res, answer.nearest)
    return helped(answer, found, [question], res.corpus.references(), load_subjects(),
                  lambda section: section_label(section, res.corpus))
