"""The question bank's route: the units the question's nearest bank questions vote for, each answered
for the asker's own slots (``assistant/unit_answers.py``). It proposes; the ranker decides.

Its signals: the similarity of the unit's nearest bank question, the margin over the next unit, the
unit's support among the nearest entries, its place in the vote.
"""

from __future__ import annotations

from dataclasses import replace

from .. import answer_type
from ..interpretation import interpretation_of
from ..resources import Resources
from ..standards import gives as standards_gives
from ..types import Candidate, Query
from ..unit_answers import compose_unit

GIVES_BY_KIND = {"permit_row": "permit_code", "definition": "definition", "section": "section_text",
                 "district": "district_description", "ordinance_fact": "ordinance_fact"}


def given_type(unit, answer) -> str:
    """The answer type a composed unit gives (as the route of its kind would say)."""
    if unit.kind in GIVES_BY_KIND:
        return GIVES_BY_KIND[unit.kind]
    if unit.kind == "standards":
        values = " ".join(str(cell.get("value") or "") for cell in answer.lookups)
        return standards_gives(unit.key["table"], values)
    kind = answer.interpretation.get("value_kind", "")
    if kind:
        return answer_type.GIVEN_AS.get(kind, kind)
    return "list" if answer.interpretation.get("list_items") else "passage"


def candidates(query: Query, res: Resources, k: int = 10, units: int = 3) -> list[Candidate]:
    votes = res.bank_votes(query, k)
    found = []
    for place, vote in enumerate(votes[:units]):
        unit = res.unit(vote.unit)
        answer = compose_unit(unit, query, res) if unit is not None else None
        if answer is None or answer.abstained:
            continue
        runner = next((v.similarity for v in votes if v.unit != vote.unit), 0.0)
        signals = {"bank_similarity": vote.similarity, "bank_margin": vote.similarity - runner,
                   "bank_support": vote.support, "bank_entries": float(vote.entries), "bank_place": float(place)}
        # The reading of the question is the asker's (its uses and districts), as any route's answer has it.
        base = answer.interpretation or interpretation_of(query, answer, res.vocabulary)
        interpretation = {**base, "unit": unit.id, "bank_question": vote.nearest}
        found.append(Candidate(given_type(unit, answer), replace(answer, signals={**answer.signals, **signals},
                                                                interpretation=interpretation)))
    return found
