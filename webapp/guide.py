"""The guide: what a person who types "help", "?", "what can you do" or next to nothing gets instead of
the sections nearest to that word (issue 46). It is a reply of its own kind, decided where the page meets
the answer layer (``Viewer.answer``, ``Viewer.ask_markdown``): the assistant is not asked, and no answer
text is rewritten. It says what is loaded, the kinds of question answered (each with an example that the
real assistant answers: tests/test_examples.py checks every one) and how to ask."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# What a person types to ask what the assistant is (issue 46's "help", "?", "what can you do"), matched whole
# after lower-casing and dropping punctuation. Source: issue 46 and the usual words for the same request.
HELP_PHRASES = frozenset({
    "help", "help me", "help please", "please help", "i need help", "need help", "hi", "hello", "hey", "hi there",
    "start", "menu", "info", "about", "instructions", "guide", "how to", "how to use", "how to use this",
    "what can you do", "what can i ask", "what can i ask you", "what do you do", "what do you know",
    "what is this", "what are you", "who are you", "how does this work", "how do i use this", "how do i ask",
    "what questions can i ask", "what can you answer", "what can you help with", "what can you help me with",
    "test", "testing",
})

# The kinds of question the assistant answers, each with an example it answers (checked in
# tests/test_examples.py with the real assistant).
KINDS = (
    ("Whether a use is allowed in a district, and which permit it needs (the permit tables)",
     "Can I open a bar on East Cotati Avenue?"),
    ("Building standards of a district: height, setbacks, lot coverage (the standards tables)",
     "How tall can a building be in the TOC district?"),
    ("Parking a use needs", "How much parking does a gym need?"),
    ("What a term of the code means (its definitions)", "What is a woonerf?"),
    ("A section, chapter or table by its number", "17.44.065"),
)

HOW_TO_ASK = ("Name the use in everyday words and the district or street (“a gym in CG”, “a bar on East Cotati "
              "Avenue”); give a section or table number to read it; ask what an ordinance changed (“What did Ord. 939 "
              "change?”); use the “Law as of” box for the law on an earlier day.")
NOT_ANSWERED = ("Not answered: rules in chapters the loaded documents cite but do not contain (the coverage page "
                "lists them), building and fire codes, and advice on a particular property — the Planning "
                "Department decides what applies.")
LEAD = "What I can answer, and how to ask"


@dataclass(frozen=True)
class Guide:
    """A guide to the assistant, the reply to "help": no citations, never recorded as an answer."""

    question: str
    loaded: str  # the coverage summary: "4 documents dated 2023-12-06 to 2026-09-10: ..." (the days they take effect)
    documents: tuple[tuple[str, str], ...]  # (label, date), oldest first
    kinds: tuple[tuple[str, str], ...] = KINDS
    route: str = "guide"
    abstained: bool = False
    citations: tuple = ()
    closest: tuple = ()
    nearest: tuple = ()

    @property
    def first_line(self) -> str:
        return LEAD

    @property
    def examples(self) -> tuple[str, ...]:
        return tuple(example for _, example in self.kinds)

    def lines(self) -> list[str]:
        """The guide as plain lines (the live region, the public /ask endpoint's Markdown)."""
        out = [LEAD, f"Loaded: {self.loaded}."]
        out += [f"- {label} (“{example}”)" for label, example in self.kinds]
        out += [HOW_TO_ASK, NOT_ANSWERED]
        return out


def asks_for_help(question: object) -> bool:
    """Whether a question asks what the assistant is or says next to nothing: a help phrase, or no letter or
    digit at all ("?", "..."). An empty box is not asked (the page does nothing)."""
    if not isinstance(question, str):
        return False
    text = unicodedata.normalize("NFKC", question).strip().lower()
    if not text:
        return False
    tokens = re.findall(r"[a-z0-9']+", text.replace("’", "'"))
    words = " ".join(tokens).replace("'", "")
    if not words or all(len(t) == 1 and t.isalpha() for t in tokens):
        return True  # "?", "...", "a", "x y": nothing to read a question from
    return words in HELP_PHRASES


def guide(question: str, loaded: str, documents: list[tuple[str, str]]) -> Guide:
    return Guide(question=question, loaded=loaded, documents=tuple(documents))


def markdown(found: Guide, escape) -> str:
    """The guide as the /ask endpoint's Markdown (``escape``: webapp.views.md_escape): its lead in bold."""
    lead, *rest = found.lines()
    return "\n".join([f"**{escape(lead)}**", *(("- " + escape(line[2:])) if line.startswith("- ") else escape(line)
                                               for line in rest)])
