"""Definitions the code states ("“Micromobility” means ...", "9. Stealth design means ..."),
found by the term a question names."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .choose import TUNED
from .permits import STOP, words_of

# "“Micromobility” means ...", and "“Personal services” mean ..." for a plural term.
QUOTED_TERM = re.compile(r"[“\"](?P<term>[^”\"]{2,80})[”\"](?:\s+[a-z]+)?\s+means?\b")
NUMBERED_TERM = re.compile(r"^\d+\.+\s*(?P<term>[A-Z][A-Za-z /-]{1,60}?)\s+means\b", re.M)
# A sentence that opens by saying what a thing is, in the English defining form "A woonerf is an
# internal driveway ...": the term's definition where the code gives no "means" line for it.
DEFINING_SENTENCE = re.compile(r"(?:^|(?<=[.:] ))(?:A|An) (?P<term>[a-z][a-z -]{2,40}?) is (?:a|an|the) ")
# Words of a definition question that are not the term asked about.
CUE_WORDS = frozenset(words_of("what whats is are a an the does do mean means meaning define definition defined "
                               "count counts counted consider considered treat treated include includes code zoning "
                               "cotati term word"))


@dataclass(frozen=True)
class Definition:
    term: str
    text: str  # the definition as printed, from the term to the next definition or line end
    section: object  # ingest Section


TERM_PATTERNS = (QUOTED_TERM, NUMBERED_TERM, DEFINING_SENTENCE)
LIST_ITEM = re.compile(r"^\s*(?:\d{1,2}|[a-z])\.\s+\S")


def collect(sections) -> list[Definition]:
    """Every definition printed in the sections: a term's text runs to the next term on its line;
    a definition that ends by introducing a list ("Examples of these uses include:") takes the
    numbered items that follow, and "“X” also means ..." joins the definition of X before it."""
    found: list[Definition] = []
    for section in sections:
        lines = section.text.split("\n")
        for number, line in enumerate(lines):
            if "mean" not in line and " is " not in line:  # what every term pattern needs: most lines, untried
                continue
            starts = sorted({m.start() for pattern in TERM_PATTERNS for m in pattern.finditer(line)})
            for index, start in enumerate(starts):
                end = starts[index + 1] if index + 1 < len(starts) else len(line)
                text = line[start:end].strip()
                match = next((m for m in (pattern.match(text) for pattern in TERM_PATTERNS) if m), None)
                if not match:
                    continue
                if end == len(line) and text.endswith(":"):
                    text = " ".join([text, *_list_after(lines, number)])
                term = match.group("term").strip()
                if found and found[-1].term == term and found[-1].section is section:
                    found[-1] = Definition(term, _clip(f"{found[-1].text} {text}"), section)
                else:
                    found.append(Definition(term, _clip(text), section))
    return found


def _list_after(lines: list[str], number: int) -> list[str]:
    """The numbered or lettered items printed after line ``number`` (blank lines between them)."""
    items = []
    for line in lines[number + 1:]:
        if not line.strip():
            continue
        if not LIST_ITEM.match(line) or QUOTED_TERM.search(line):
            break
        items.append(line.strip())
    return items


def lookup(definitions: list[Definition], question: str) -> Definition | None:
    """The definition whose whole term the question names; the longest term, then the newest text."""
    asked = {word for word in words_of(question) if word not in STOP and word not in CUE_WORDS}
    quoted_words = set(words_of(quoted(question)))
    best = None
    for definition in definitions:
        term = {word for word in words_of(definition.term) if word not in STOP}
        if not term or not term <= asked:
            continue
        # A term the question puts in quotes is the one asked about ("when is a pole a 'tower'").
        key = (term <= quoted_words, len(term), definition.section.date, definition.section.document)
        if best is None or key > best[0]:
            best = (key, definition)
    return best[1] if best else None


QUOTED = re.compile(r"['‘“\"]([^'’”\"]+)['’”\"]")


def quoted(text: str) -> str:
    """The words a question puts in quotes ("is that 'demolition'?"), joined; "" when none.
    An apostrophe inside a word ("what's", "can't") opens no quote."""
    return " ".join(QUOTED.findall(re.sub(r"(?<=[A-Za-z])['’](?=[A-Za-z])", "", text)))


# Words that ask for a meaning rather than say what about ("what does X mean in the code"): the
# definition route's and the district route's questions both ask so.
ASKING_WORDS = frozenset("mean means meaning defined define definition term word code what whats".split())


def question_share(question: str, term: list[str]) -> float:
    """Share of the question's own words that are the term's: "what is a woonerf?" is about the term;
    "can we put speed bumps in the woonerf?" asks something else of it."""
    own = {w for w in words_of(question) if w not in STOP and w not in ASKING_WORDS and len(w) > 2}
    return len(own & set(term)) / len(own) if own else 1.0


def _clip(text: str) -> str:
    return text if len(text) <= TUNED.definition_max_chars else text[: TUNED.definition_max_chars - 1].rsplit(" ", 1)[0] + "…"
