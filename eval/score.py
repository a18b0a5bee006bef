"""Metric functions: pure, over plain values, no I/O. The definitions below are the contract.

Text matching (``normalize``)
    Lower-case, every run of whitespace (newlines included) collapsed to one space. A fact
    "matches" when its normalized form is a substring of the normalized text (GOLD.md: case-
    insensitive substrings). The *first line* is the text before the first newline, after
    stripping leading/trailing whitespace of the whole answer.

Answer accuracy (``judge``)
    Abstain item (gold ``abstain: true``): correct iff the assistant abstained.
    Answerable item: correct iff the assistant did NOT abstain, every ``expected_facts`` string
    occurs in the answer text (anywhere; citations and quotes are not searched), and no
    ``contradicting_facts`` string occurs in the answer's first line.
    ``answer_accuracy`` = correct / all questions.

Citations (section level; ids compared exactly after stripping spaces; a section cited
several times counts once per item). Only items with ``expected_sections`` (the answerable
ones) take part; abstain items never do. Every citation the answer object carries counts,
whether or not the assistant abstained.
    ``citation_precision`` (pooled / micro): over those items, (number of distinct cited
    sections that are among the item's expected sections) / (number of distinct cited
    sections). Items citing nothing add nothing to either count.
    ``citation_recall``: fraction of those items whose cited sections include at least one
    expected section (GOLD.md: "a correct answer cites at least one of them").

Abstention (positive class = "should abstain", i.e. gold ``abstain: true``)
    precision = TP / (TP + FP), recall = TP / (TP + FN), accuracy = (TP + TN) / N,
    with TP = gold abstain and assistant abstained, FP = gold answerable but abstained,
    FN = gold abstain but answered, TN = gold answerable and answered.

Retrieval (answerable items only; the query is the gold question verbatim)
    A hit is relevant when its section id is one of the item's ``expected_sections``. Ranks are
    positions in the hit list as returned (a list of chunks, so one section can fill several
    ranks). ``recall@k`` = fraction of items with a relevant hit in the first k;
    ``mrr@k`` = mean of 1/rank of the first relevant hit within the first k (0 if none).

Latency
    Per question: the answer's ``timing_ms`` when it is a number (or a dict with ``total``),
    else the wall time measured around the in-process ``ask()`` call. Percentiles use the
    nearest-rank method: the p-th percentile of n sorted values is value number ceil(p/100 * n).

Undefined ratios (0/0, e.g. precision when nothing was cited, or a metric over no items)
are ``None`` (JSON ``null``, "n/a" in tables), never 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .records import MODES, ItemResult

RECALL_K = 5
MRR_K = 10
SEARCH_K = max(RECALL_K, MRR_K)  # hits fetched per query


def normalize(text: str) -> str:
    return " ".join(text.lower().split())


def first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0]


def ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def missing_facts(text: str, facts: Iterable[str]) -> list[str]:
    """The expected facts that do not occur (case-insensitively) in ``text``."""
    hay = normalize(text)
    return [f for f in facts if normalize(f) not in hay]


def contradictions(text: str, bad: Iterable[str]) -> list[str]:
    """The contradicting facts that occur in the first line of ``text``."""
    hay = normalize(first_line(text))
    return [b for b in bad if normalize(b) in hay]


@dataclass(frozen=True)
class Judgement:
    correct: bool
    reason: str  # "" when correct; otherwise why, in a few words


def judge(
    *,
    should_abstain: bool,
    abstained: bool,
    text: str,
    expected_facts: Sequence[str] = (),
    contradicting_facts: Sequence[str] = (),
) -> Judgement:
    if should_abstain:
        return Judgement(True, "") if abstained else Judgement(False, "answered instead of abstaining")
    if abstained:
        return Judgement(False, "abstained")
    reasons = []
    missing = missing_facts(text, expected_facts)
    if missing:
        reasons.append("missing " + ", ".join(repr(f) for f in missing))
    found = contradictions(text, contradicting_facts)
    if found:
        reasons.append("first line contradicts: " + ", ".join(repr(f) for f in found))
    return Judgement(not reasons, "; ".join(reasons))


# -- citations -----------------------------------------------------------------------------------
CitationPair = tuple[Sequence[str], Sequence[str]]  # (cited sections, expected sections)


def _unique(seq: Iterable[str]) -> list[str]:
    out: list[str] = []
    for s in seq:
        s = s.strip()
        if s and s not in out:
            out.append(s)
    return out


def citation_precision(pairs: Iterable[CitationPair]) -> float | None:
    """Pooled: relevant distinct cited sections / distinct cited sections, over items with expected sections."""
    good = total = 0
    for cited, expected in pairs:
        if not expected:
            continue
        exp = set(_unique(expected))
        c = _unique(cited)
        total += len(c)
        good += sum(1 for s in c if s in exp)
    return ratio(good, total)


def citation_recall(pairs: Iterable[CitationPair]) -> float | None:
    """Fraction of items with expected sections whose citations include at least one of them."""
    hit = n = 0
    for cited, expected in pairs:
        if not expected:
            continue
        n += 1
        exp = set(_unique(expected))
        hit += any(s in exp for s in _unique(cited))
    return ratio(hit, n)


# -- abstention ----------------------------------------------------------------------------------
def abstention_counts(pairs: Iterable[tuple[bool, bool]]) -> dict[str, int]:
    """``pairs`` of (should abstain, did abstain) -> tp, fp, fn, tn (positive = should abstain)."""
    c = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for gold, pred in pairs:
        c[("t" if gold == pred else "f") + ("p" if pred else "n")] += 1
    return c


def abstention_scores(counts: dict[str, int]) -> dict[str, float | None]:
    tp, fp, fn, tn = counts["tp"], counts["fp"], counts["fn"], counts["tn"]
    return {
        "precision": ratio(tp, tp + fp),
        "recall": ratio(tp, tp + fn),
        "accuracy": ratio(tp + tn, tp + fp + fn + tn),
    }


# -- retrieval -----------------------------------------------------------------------------------
RankingPair = tuple[Sequence[str], Sequence[str]]  # (ranked section ids, expected sections)


def first_relevant_rank(ranked: Sequence[str], expected: Iterable[str], k: int) -> int | None:
    """1-based rank of the first hit among the first ``k`` whose section is expected, else None."""
    exp = set(expected)
    for rank, sec in enumerate(ranked[:k], 1):
        if sec in exp:
            return rank
    return None


def recall_at_k(pairs: Iterable[RankingPair], k: int) -> float | None:
    hits = n = 0
    for ranked, expected in pairs:
        n += 1
        hits += first_relevant_rank(ranked, expected, k) is not None
    return ratio(hits, n)


def mrr_at_k(pairs: Iterable[RankingPair], k: int) -> float | None:
    total = 0.0
    n = 0
    for ranked, expected in pairs:
        n += 1
        rank = first_relevant_rank(ranked, expected, k)
        total += 1.0 / rank if rank else 0.0
    return ratio(total, n)


# -- latency -------------------------------------------------------------------------------------
def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile: sorted value number ceil(p/100 * n) (1-based); None for no values."""
    if not values:
        return None
    if not 0 < p <= 100:
        raise ValueError(f"percentile must be in (0, 100], got {p}")
    ordered = sorted(values)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


def latency(results: Sequence[ItemResult]) -> dict[str, object]:
    values: list[float] = []
    sources = set()
    for r in results:
        if r.answer is not None and r.answer.timing_ms is not None:
            values.append(r.answer.timing_ms)
            sources.add("timing_ms")
        elif r.wall_ms is not None:
            values.append(r.wall_ms)
            sources.add("wall")
    source = None if not sources else sources.pop() if len(sources) == 1 else "mixed"
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "n": len(values), "source": source}


# -- putting it together -------------------------------------------------------------------------
def judge_result(r: ItemResult) -> Judgement:
    if r.answer is None:
        raise ValueError(f"{r.item.id}: no answer to judge")
    return judge(
        should_abstain=r.item.abstain,
        abstained=r.answer.abstained,
        text=r.answer.text,
        expected_facts=r.item.expected_facts,
        contradicting_facts=r.item.contradicting_facts,
    )


def _group_metrics(results: Sequence[ItemResult], judgements: Sequence[Judgement] | None, modes: Sequence[str]) -> dict[str, object]:
    out: dict[str, object] = {"questions": len(results)}
    if judgements is None:  # retrieval-only run
        out.update(correct=None, answer_accuracy=None, citation_precision=None, citation_recall=None)
    else:
        correct = sum(j.correct for j in judgements)
        cites = [(r.answer.cited_sections, r.item.expected_sections) for r in results if r.answer is not None]
        out.update(
            correct=correct,
            answer_accuracy=ratio(correct, len(results)),
            citation_precision=citation_precision(cites),
            citation_recall=citation_recall(cites),
        )
    answerable = [r for r in results if not r.item.abstain]
    for name, fn, k in (("recall@5", recall_at_k, RECALL_K), ("mrr@10", mrr_at_k, MRR_K)):
        out[name] = {
            mode: (fn([(r.retrieved[mode], r.item.expected_sections) for r in answerable], k) if mode in modes else None)
            for mode in MODES
        }
    return out


def summarize(results: Sequence[ItemResult], modes: Sequence[str] = MODES) -> dict[str, object]:
    """The metrics JSON (``python -m eval --json``) for scored results.

    ``modes``: the retrieval modes that were run (every answerable result must carry a ranking
    for each); the others are reported as null. Results without answers (a retrieval-only run;
    all or none) report every answer metric as null.
    """
    answered = [r.answer is not None for r in results]
    if any(answered) and not all(answered):
        raise ValueError("some results have answers and some do not")
    for r in results:
        if not r.item.abstain:
            for mode in modes:
                if mode not in r.retrieved:
                    raise ValueError(f"{r.item.id}: no {mode} ranking")
    has_answers = bool(results) and all(answered)
    judgements = [judge_result(r) for r in results] if has_answers else None
    overall = _group_metrics(results, judgements, modes)
    if has_answers:
        counts = abstention_counts((r.item.abstain, r.answer.abstained) for r in results)
        abst = abstention_scores(counts)
    else:
        counts, abst = None, {"precision": None, "recall": None, "accuracy": None}
    by_category: dict[str, object] = {}
    for cat in dict.fromkeys(r.item.category for r in results):  # first-appearance order
        idx = [i for i, r in enumerate(results) if r.item.category == cat]
        by_category[cat] = _group_metrics(
            [results[i] for i in idx], [judgements[i] for i in idx] if judgements is not None else None, modes
        )
    return {
        "questions": len(results),
        "answerable": sum(not r.item.abstain for r in results),
        "answers": has_answers,
        "correct": overall["correct"],
        "answer_accuracy": overall["answer_accuracy"],
        "citation_precision": overall["citation_precision"],
        "citation_recall": overall["citation_recall"],
        "abstention_precision": abst["precision"],
        "abstention_recall": abst["recall"],
        "abstention_accuracy": abst["accuracy"],
        "abstention_counts": counts,
        "retrieval_modes": list(modes),
        "recall@5": overall["recall@5"],
        "mrr@10": overall["mrr@10"],
        "latency_ms": latency(results),
        "by_category": by_category,
        "misses": misses(results, judgements) if has_answers else [],
    }


def misses(results: Sequence[ItemResult], judgements: Sequence[Judgement] | None = None) -> list[dict[str, object]]:
    """The wrongly answered items, in gold order: id, category, question, expected, got, reason."""
    if judgements is None:
        judgements = [judge_result(r) for r in results]
    out = []
    for r, j in zip(results, judgements):
        if j.correct:
            continue
        assert r.answer is not None
        out.append(
            {
                "id": r.item.id,
                "category": r.item.category,
                "question": r.item.question,
                "expected": "(abstain)" if r.item.abstain else r.item.expected_first_line,
                "expected_facts": list(r.item.expected_facts),
                "got": "(abstained) " + r.answer.first_line if r.answer.abstained else r.answer.first_line,
                "cited": list(r.answer.cited_sections),
                "reason": j.reason,
            }
        )
    return out
