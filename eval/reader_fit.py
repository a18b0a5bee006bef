"""The reader's fit (``assistant/reader.py``): its weights, fitted on dev, and its figures on
questions the fit did not see.

Run by ``python -m assistant train-reader`` (which imports this module only when that command
runs: the fit needs the gold set, and ``assistant`` imports nothing of ``eval`` at module level).

Each answerable dev question with expected facts and sections becomes a case: the provisions of the
first sections the hybrid search finds (as the provision route reads them), each measured against
the question (``reader.measure``), and labelled as answering when it lies in an expected section and
states every expected fact (``eval.match``, the scorer's own matching). Folds keep a paraphrase
group on one side. The figures: how often the reader's first candidate answers, among questions
that have an answering candidate (top-1), against the hand-weighted score; and how well its
probability tells a right first candidate from a wrong one (AUC). The test set is never read.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from assistant import provision_search
from assistant import reader as reader_mod

from . import atomic, match
from .gold import SETS, GoldItem, load_gold

FOLDS = 5
L2 = 1.0


@dataclass(frozen=True)
class Case:
    item: str  # the dev item's id
    group: str  # its paraphrase group (its id when it has none)
    vectors: list[list[float]]  # reader.features of each candidate
    answers: list[bool]  # the candidate lies in an expected section and states every expected fact
    hand: list[float]  # the hand-weighted score the route used before the reader (for comparison)


def answers(provision, item: GoldItem) -> bool:
    return provision.section in item.expected_sections and not match.missing_facts(provision.text, item.expected_facts)


def case_of(item: GoldItem, res) -> Case | None:
    """The item's candidates, measured; None when the search finds no provision."""
    found = read_case(item, res)
    return found[2] if found is not None else None


def read_case(item: GoldItem, res) -> tuple[str, list, Case] | None:
    """The question as read, its candidate provisions and its case (``case_of``); None when the
    search finds no provision. The provisions are in the case's order (eval/cross_reader.py reads them)."""
    query = res.read(item.question)
    text = query.corrected or query.text
    ranked, both = provision_search.searched(query, res)
    rank = {section: i for i, section in enumerate(ranked)}
    provisions = [p for p in res.provisions() if p.section in rank]
    text_meaning = res.provision_meaning(text, provisions)
    path_meaning = res.path_meaning(text, provisions)
    if not provisions or text_meaning is None or path_meaning is None:
        return None
    question = reader_mod.Question(text, query.asked, rank, frozenset(both))
    rows = reader_mod.measure(question, provisions, res.corpus.idf, text_meaning, path_meaning)
    hand = [r["cov_all"] + r["sim_text"] + 0.5 * r["head"] + 0.05 * r["section_rank"] for r in rows]
    case = Case(item.id, item.group or item.id, reader_mod.features(rows), [answers(p, item) for p in provisions], hand)
    return text, provisions, case


def cases_of(items: Sequence[GoldItem], res, progress: Callable[[int, int], None] | None = None) -> list[Case]:
    usable = [i for i in items if not i.abstain and i.expected_facts and i.expected_sections]
    cases = []
    for number, item in enumerate(usable, 1):
        found = case_of(item, res)
        if found is not None:
            cases.append(found)
        if progress:
            progress(number, len(usable))
    return cases


def folds_by_group(groups: Sequence[str], seed: int = 0) -> list[int]:
    distinct = sorted(set(groups))
    random.Random(seed).shuffle(distinct)
    fold = {group: i % FOLDS for i, group in enumerate(distinct)}
    return [fold[group] for group in groups]


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """The probability that a right case scores above a wrong one (ties count half)."""
    right = [s for s, y in zip(scores, labels) if y]
    wrong = [s for s, y in zip(scores, labels) if not y]
    if not right or not wrong:
        return None
    wins = sum((r > w) + 0.5 * (r == w) for r in right for w in wrong)
    return wins / (len(right) * len(wrong))


def _first(scores: Sequence[float]) -> int:
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


def cross_validated(cases: Sequence[Case]) -> dict:
    """Held-out figures of the reader and of the hand score, folds by paraphrase group."""
    fold_of = folds_by_group([c.group for c in cases])
    reader_right, reader_p, hand_right, hand_s = [], [], [], []
    reachable = []
    for fold in range(FOLDS):
        fitted = reader_mod.fit([(c.vectors, c.answers) for c, f in zip(cases, fold_of) if f != fold], L2)
        for case, f in zip(cases, fold_of):
            if f != fold:
                continue
            p = fitted.probabilities(case.vectors)
            top, hand_top = _first(p), _first(case.hand)
            reader_right.append(case.answers[top])
            reader_p.append(p[top])
            hand_right.append(case.answers[hand_top])
            hand_s.append(case.hand[hand_top])
            reachable.append(any(case.answers))
    return {
        "cases": len(cases), "with_an_answering_candidate": sum(reachable), "folds": FOLDS,
        "reader": _figures(reader_right, reader_p, reachable),
        "hand_score": _figures(hand_right, hand_s, reachable),
    }


def _figures(right: list[bool], scores: list[float], reachable: list[bool]) -> dict:
    reach = [r for r, ok in zip(right, reachable) if ok]
    found = auc(scores, right)
    return {"top1_where_reachable": round(sum(reach) / max(1, len(reach)), 4), "top1_right": sum(right),
            "auc_first_right_vs_wrong": round(found, 4) if found is not None else None}


def checksum(cases: Sequence[Case]) -> str:
    digest = hashlib.sha256()
    for case in cases:
        digest.update(json.dumps([case.item, case.vectors, case.answers]).encode())
    return digest.hexdigest()


def train(path: Path = reader_mod.READER, progress=None) -> reader_mod.Reader:
    """Fit the reader on all of dev, with its cross-validated figures, and write it atomically."""
    from assistant import load_assistant

    assistant = load_assistant(calibrated=False, reader=False)
    cases = cases_of(load_gold(SETS["dev"]), assistant.resources, progress)
    figures = cross_validated(cases)
    fitted = reader_mod.fit([(c.vectors, c.answers) for c in cases], L2)
    encoder = getattr(assistant.searcher, "encoder", None)
    fitted_on = {"set": "dev", "model": getattr(encoder, "model_id", None), "l2": L2,
                 "cases_sha256": checksum(cases), **figures}
    result = reader_mod.Reader(fitted.weights, fitted.means, fitted.scales, fitted_on)
    atomic.write_text(path, json.dumps(result.to_json(), indent=2) + "\n")
    return result
