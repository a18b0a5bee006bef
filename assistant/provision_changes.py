"""What an ordinance changed in the running text (issue 23 item 2), for a change question that names
a topic rather than a table cell ("what did the corrections ordinance change about cell tower
applications?", "did it add anything a telecom applicant has to submit?"): the provisions
(``ingest.provisions``, in force, with their history) that the document added to a section an
earlier document already stated, or whose text it rewrote, matched to the question's words.

A provision the document states in a section no earlier document stated is part of a new section,
not a change to one, and a provision it restates word for word changed nothing: neither is listed.
Pure functions over provisions; the answer is composed by the service (``assistant/service.py``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from . import compose
from .choose import TUNED
from .permits import STOP, words_of
from .types import Answer



@dataclass(frozen=True)
class ProvisionChange:
    provision: object  # ingest.provisions.Provision, as in force
    kind: str  # "added" | "amended"
    old_text: str = ""
    old_document: str = ""
    old_date: str = ""


def changed_by(provisions: Iterable, document: str, stated_before: set[str]) -> list[ProvisionChange]:
    """The provisions ``document`` added to or rewrote in a section stated before it
    (``stated_before``: the ids of sections an earlier document states)."""
    found = []
    for provision in provisions:
        if provision.document != document or provision.section not in stated_before:
            continue
        if not provision.history:
            found.append(ProvisionChange(provision, "added"))
        elif _normal(provision.history[-1].text) != _normal(provision.text):
            last = provision.history[-1]
            found.append(ProvisionChange(provision, "amended", last.text, last.document, last.date))
    return found


def _normal(text: str) -> str:
    return " ".join(words_of(text))


# "17.44.040(B)", "17.30.030": a section or one of its parts, by the label provisions carry.
PART = re.compile(r"\b\d{2}\.\d{2}\.\d{3}(?:\([A-Za-z0-9]{1,4}\))*")


def in_named_part(question: str, changes: Sequence[ProvisionChange]) -> list[tuple[float, ProvisionChange]]:
    """(1.0, change) of the changes inside a section or part the question names by number ("which
    item did it add to 17.44.040(B)?"): the number says what the question is about."""
    named = PART.findall(question)
    return [(1.0, change) for change in changes if any(change.provision.label.startswith(part) for part in named)]


def matching(question_words: Sequence[str], changes: Sequence[ProvisionChange], idf: Mapping[str, float]
             ) -> list[tuple[float, ProvisionChange]]:
    """(coverage, change) of the changes whose text and heading path carry at least ``change_min_coverage`` of
    the question's word weight, best first; none when the question has no words of its own."""
    wanted = {w for w in question_words if w not in STOP and len(w) > 2 and not w.isdigit()}
    weight = sum(idf.get(w, 1.0) for w in wanted)
    if not weight:
        return []
    scored = []
    for change in changes:
        said = set(words_of(" ".join([change.provision.text, *change.provision.path])))
        coverage = sum(idf.get(w, 1.0) for w in wanted & said) / weight
        if coverage >= TUNED.change_min_coverage:
            scored.append((coverage, change))
    return sorted(scored, key=lambda item: (-item[0], item[1].provision.order))


def change_line(change: ProvisionChange, label: str, old_label: str) -> str:
    """One change in words: what the document added, or the text it replaced and the new text."""
    provision = change.provision
    if change.kind == "added":
        return f"{label} added {provision.label}: \"{provision.text}\""
    return f"{label} changed {provision.label} from \"{change.old_text}\" ({old_label}) to \"{provision.text}\""


def answer_for(question: str, document, found: Sequence[tuple[float, ProvisionChange]], corpus,
               part_named: bool = False) -> Answer:
    """The answer: each matched change (at most ``change_shown``), both statements cited (route "provision_change")."""
    label = f"{document.short_title or document.title} ({document.date})"
    lines, cited = [], []
    for _, change in found[:TUNED.change_shown]:
        provision = change.provision
        old_label = f"{corpus.document_label(change.old_document)}, {change.old_date}" if change.kind == "amended" else ""
        lines.append(change_line(change, label, old_label))
        cited.append(_citation(corpus, provision.section, provision.document, provision.text))
        if change.kind == "amended":
            cited.append(_citation(corpus, provision.section, change.old_document, change.old_text))
    citations = tuple(c for c in dict.fromkeys(cited) if c is not None)
    lines.append(compose.source_line(citations, corpus))
    best = found[0][0]
    return Answer(question=question, answer="\n".join(lines), abstained=False, citations=citations,
                  route="provision_change", signals={"change_coverage": best, "changes_matched": float(len(found)),
                                                     "part_named": float(part_named)},
                  interpretation={"document": document.id, "provisions": [c.provision.label for _, c in found[:TUNED.change_shown]]})


def _citation(corpus, section_id: str, document: str, quote: str):
    section = corpus.by_key.get((section_id, document))
    return corpus.citation(section, quote) if section is not None else None
