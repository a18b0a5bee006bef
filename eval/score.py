"""Metric functions: pure, over plain values, no I/O. The definitions below are the contract.

Text matching (``eval/match.py``)
    Lower-case, dashes unified, whitespace collapsed. A fact matches at word boundaries only
    (``P`` is not in "(UP)"); a fact that starts with a number matches that number as a number
    (``10`` is not in "100" or "often"; "ten" states it). Facts are searched in the answer's
    *statements*: its lines without ``Source:``/``Nearest sections:`` lines and without the
    ``§ id (document, date):`` prefix of quoted passages. The *first line* is the text before
    the first newline of the stripped answer.

Outcome of one answer (``judge_answer``): right, wrong or abstained
    Item to decline (gold ``abstain: true``): right iff the assistant abstained, else wrong.
    Answerable item: abstained if the assistant abstained; otherwise right iff
      * every ``expected_facts`` string is stated (see above),
      * no ``contradicting_facts`` string is in the first line,
      * for a permit cell (Tables 2-2, 2-3, 2-4 of 17.22.020 and the cannabis table; the code is
        ``expected_value`` or, in the dev set, the code its facts encode), the first line states
        that code's meaning and none that contradicts it (``match.CONTRADICTS``: "P" is
        contradicted by a use permit, a minor use permit, specific use or not allowed, ...),
      * for a table answer (categories permit_table, amended_cell, standards with a gold row or
        column): the answer's ``lookups`` hold the gold cell (``eval/cells.py``) with the gold
        value and from the document in force (``expected_document``);
      * for a ``district_list`` item: the lookups hold every cell of the row that allows the use,
        each with its printed value;
    and wrong otherwise.
    ``accuracy`` = right / questions; ``wrong_rate`` = wrong / questions (a wrong answer is worse
    than none, so it is reported on its own); ``answered_accuracy`` = right answers / answers given (declines excluded).

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

Paraphrase consistency (items sharing a ``group``: the same question worded three ways)
    ``all_right``: share of groups whose answers are all right; ``agree``: share of groups whose
    answers agree (all abstained, or the same set of table cells, or the same first line).
    ``paraphrase_consistency`` is ``all_right``.

Risk-coverage (selective answering)
    The answered questions (right or wrong) are ordered by the assistant's ``confidence``, highest
    first (an answer without one gets its route's prior, ``ROUTE_PRIOR``; ties keep set order).
    At each cut k: coverage = k / questions, risk = wrong among the first k / k. ``aurc`` is the
    mean risk over all cuts (the area under the risk-coverage curve; lower is better);
    ``coverage_at_risk`` is the largest coverage whose risk is at most ``RISK_TARGET``.

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

from . import cells, match, statement
from .intervals import wilson
from .gold import GoldItem
from .records import MODES, AnswerView, ItemResult

RECALL_K = 5
MRR_K = 10
SEARCH_K = max(RECALL_K, MRR_K)  # hits fetched per query


RIGHT, WRONG, ABSTAINED = "right", "wrong", "abstained"
SECTION_LOOKUP = "section_lookup"  # asks for a section: its quoted text is the answer
TABLE_CATEGORIES = frozenset({"permit_table", "amended_cell", "standards", "district_list"})
PERMIT_TABLES = frozenset({"2-2", "2-3", "2-4", "2-2 cannabis"})
PERMIT_SECTION = "17.22.020"
# Confidence for answers that carry none, by route: how often each route is right is unknown
# until measured, so only the order matters (exact lookups first, quoted passages last).
ROUTE_PRIOR = {"section": 0.9, "permit": 0.8, "standards": 0.7, "definition": 0.6, "passage": 0.4}
DEFAULT_PRIOR = 0.5
RISK_TARGET = 0.03

normalize = match.normalize
first_line = match.first_line
missing_facts = match.missing_facts


def ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def contradictions(text: str, bad: Iterable[str]) -> list[str]:
    """The contradicting facts stated in the first line of ``text`` (whole words)."""
    return match.found_facts(first_line(text), bad)


@dataclass(frozen=True)
class Judgement:
    outcome: str  # RIGHT, WRONG or ABSTAINED
    reason: str  # "" when right; otherwise why, in a few words

    @property
    def correct(self) -> bool:
        return self.outcome == RIGHT


def expected_code(item: GoldItem) -> str | None:
    """The permit code a permit-table item expects, or None for other items."""
    if item.table is None or cells.table_key(item.table) not in PERMIT_TABLES:
        return None
    if item.expected_sections and PERMIT_SECTION not in item.expected_sections:
        return None  # the other "Table 2-4" (17.24.020) holds numbers
    if item.expected_value is not None:
        return match.normalize_code(item.expected_value)
    return match.code_from_facts(item.expected_facts)


@dataclass(frozen=True)
class _Need:
    """What one part of the question needs stated: its facts, the facts that contradict it, and
    whether the code answers it at all."""

    facts: tuple[str, ...]
    contradicting: tuple[str, ...]
    answerable: bool = True


def _needs(item: GoldItem) -> list[_Need]:
    if item.parts:
        return [_Need(p.expected_facts, p.contradicting_facts, p.answerable) for p in item.parts]
    return [_Need(item.expected_facts, item.contradicting_facts)]


def _paired(needs: Sequence[_Need], parts: Sequence[statement.Part]) -> list[tuple[_Need, statement.Part]]:
    """Each need with the answer part that answers it: part by part when the answer has as many
    parts as the question, else every need against the whole answer (declined if any part is)."""
    if len(parts) == len(needs) and len(needs) > 1:
        return list(zip(needs, parts))
    whole = statement.Part(tuple(line for p in parts for line in p.lines), all(p.answered for p in parts))
    return [(need, whole) for need in needs]


def _judge_need(need: _Need, part: statement.Part, item: GoldItem) -> tuple[list[str], list[str]]:
    """(problems that make the answer wrong, facts missing) for one need."""
    if not need.answerable:
        return [], []
    said, claim = statement.asked_statement(part, item.row, item.column)
    found = match.found_facts(claim, need.contradicting)
    wrong = ["contradicts: " + ", ".join(repr(f) for f in found)] if found else []
    return wrong, missing_facts(said, need.facts)


def _table_problem(item: GoldItem, answer: AnswerView, code: str | None) -> str:
    if item.category not in TABLE_CATEGORIES or item.table is None:
        return ""
    if item.expected_cells and item.row:
        return cells.row_problem(answer.lookups, table=item.table, row=item.row, cells=item.expected_cells,
                                 sections=item.expected_sections)
    if item.row or item.column:
        return cells.cell_problem(answer.lookups, table=item.table, row=item.row, column=item.column,
                                  value=item.expected_value or code, document=item.expected_document,
                                  sections=item.expected_sections)
    return ""


def _citation_problem(item: GoldItem, answer: AnswerView) -> str:
    expected = set(_unique(item.expected_sections)) | {s for p in item.parts for s in p.expected_sections}
    if not expected or expected & set(_unique(answer.cited_sections)):
        return ""
    return "cites none of " + ", ".join(sorted(expected))


def judge_answer(item: GoldItem, answer: AnswerView) -> Judgement:
    """Right, wrong or abstained (the module docstring is the contract)."""
    if item.abstain:
        return Judgement(RIGHT, "") if answer.abstained else Judgement(WRONG, "answered instead of abstaining")
    if answer.abstained:
        return Judgement(ABSTAINED, "abstained")
    wrong: list[str] = []
    missing: list[str] = []
    declined = False
    parts = statement.parts_of(answer.text, quotes_state=item.category == SECTION_LOOKUP)
    for need, part in _paired(_needs(item), parts):
        problems, absent = _judge_need(need, part, item)
        wrong += problems
        missing += absent
        declined |= need.answerable and not part.answered
    code = expected_code(item)
    if code is not None:
        wrong.append(match.meaning_problem(first_line(answer.text), code))
    wrong += [_table_problem(item, answer, code), _citation_problem(item, answer)]
    wrong = [w for w in wrong if w]
    if wrong:
        return Judgement(WRONG, "; ".join((["missing " + ", ".join(map(repr, missing))] if missing else []) + wrong))
    if declined:  # a part the question needs was not answered: partly declined, not right
        return Judgement(ABSTAINED, "a part was not answered" + ("; missing " + ", ".join(map(repr, missing)) if missing else ""))
    if missing:
        return Judgement(WRONG, "missing " + ", ".join(repr(f) for f in missing))
    return Judgement(RIGHT, "")


# -- citations -----------------------------------------------------------------------------------
CitationPair = tuple[Sequence[str], Sequence[str]]  # (cited sections, expected sections)


def _unique(seq: Iterable[str]) -> list[str]:
    out: list[str] = []
    for s in seq:
        s = s.strip()
        if s and s not in out:
            out.append(s)
    return out


def citation_counts(pairs: Iterable[CitationPair], precision: bool) -> tuple[int, int]:
    """(hits, total) behind ``citation_precision`` (``precision``) or ``citation_recall``."""
    good = total = 0
    for cited, expected in pairs:
        if not expected:
            continue
        exp = set(_unique(expected))
        c = _unique(cited)
        if precision:
            total += len(c)
            good += sum(1 for s in c if s in exp)
        else:
            total += 1
            good += any(s in exp for s in c)
    return good, total


def citation_precision(pairs: Iterable[CitationPair]) -> float | None:
    """Pooled: relevant distinct cited sections / distinct cited sections, over items with expected sections."""
    return ratio(*citation_counts(pairs, precision=True))


def citation_recall(pairs: Iterable[CitationPair]) -> float | None:
    """Fraction of items with expected sections whose citations include at least one of them."""
    return ratio(*citation_counts(pairs, precision=False))


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


# -- paraphrase groups and risk-coverage ---------------------------------------------------------
def answer_key(answer: AnswerView) -> tuple:
    """What an answer says, for agreement between paraphrases: abstained, its table cells, or its
    first line."""
    if answer.abstained:
        return ("abstained",)
    if answer.lookups:
        return tuple(sorted({
            (cells.table_key(lk.get("table")), normalize(str(lk.get("row", ""))), normalize(str(lk.get("column", ""))),
             normalize(str(lk.get("value", ""))))
            for lk in answer.lookups
        }))
    return ("text", normalize(first_line(answer.text)))


def paraphrase_consistency(results: Sequence[ItemResult], judgements: Sequence[Judgement]) -> dict[str, object]:
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(results):
        if r.item.group:
            groups.setdefault(r.item.group, []).append(i)
    groups = {g: idx for g, idx in groups.items() if len(idx) > 1}
    all_right = sum(all(judgements[i].correct for i in idx) for idx in groups.values())
    agree = sum(len({answer_key(results[i].answer) for i in idx}) == 1 for idx in groups.values())  # type: ignore[arg-type]
    return {"groups": len(groups), "all_right": ratio(all_right, len(groups)), "agree": ratio(agree, len(groups))}


def confidence_of(answer: AnswerView) -> float:
    if answer.confidence is not None:
        return answer.confidence
    return ROUTE_PRIOR.get(answer.route or "", DEFAULT_PRIOR)


def risk_coverage(results: Sequence[ItemResult], judgements: Sequence[Judgement]) -> dict[str, object]:
    """The risk-coverage curve of the answered questions ordered by confidence (module docstring)."""
    # Answers only: a question the assistant declined (rightly or not) is not on the curve.
    answered = [(confidence_of(r.answer), i) for i, r in enumerate(results) if not r.answer.abstained]  # type: ignore[union-attr]
    answered.sort(key=lambda ci: (-ci[0], ci[1]))
    n = len(results)
    points = []
    wrong = 0
    for k, (conf, i) in enumerate(answered, 1):
        wrong += judgements[i].outcome == WRONG
        points.append({"coverage": k / n, "risk": wrong / k, "confidence": conf})
    aurc = ratio(sum(p["risk"] for p in points), len(points))
    safe = [p["coverage"] for p in points if p["risk"] <= RISK_TARGET + 1e-12]
    return {
        "points": points,
        "aurc": aurc,
        "coverage_at_risk": max(safe) if safe else 0.0,
        "risk_target": RISK_TARGET,
        "confidence_source": "answer" if any(results[i].answer.confidence is not None for _, i in answered) else "route",  # type: ignore[union-attr]
    }


# -- putting it together -------------------------------------------------------------------------
def judge_result(r: ItemResult) -> Judgement:
    if r.answer is None:
        raise ValueError(f"{r.item.id}: no answer to judge")
    return judge_answer(r.item, r.answer)


def _outcomes(judgements: Sequence[Judgement]) -> dict[str, int]:
    return {o: sum(j.outcome == o for j in judgements) for o in (RIGHT, WRONG, ABSTAINED)}


def _group_metrics(results: Sequence[ItemResult], judgements: Sequence[Judgement] | None, modes: Sequence[str]) -> dict[str, object]:
    out: dict[str, object] = {"questions": len(results)}
    if judgements is None:  # retrieval-only run
        out.update(correct=None, wrong=None, abstained=None, accuracy=None, wrong_rate=None,
                   citation_precision=None, citation_recall=None)
    else:
        counts = _outcomes(judgements)
        cites = [(r.answer.cited_sections, r.item.expected_sections) for r in results if r.answer is not None]
        n = len(results)
        out.update(
            correct=counts[RIGHT],
            wrong=counts[WRONG],
            abstained=counts[ABSTAINED],
            accuracy=ratio(counts[RIGHT], n),
            wrong_rate=ratio(counts[WRONG], n),
            citation_precision=citation_precision(cites),
            citation_recall=citation_recall(cites),
        )
        out["intervals"] = {
            "accuracy": wilson(counts[RIGHT], n),
            "wrong_rate": wilson(counts[WRONG], n),
            "citation_precision": wilson(*citation_counts(cites, precision=True)),
            "citation_recall": wilson(*citation_counts(cites, precision=False)),
        }

    out["answer_accuracy"] = out["accuracy"]  # the name earlier reports used
    answerable = [r for r in results if not r.item.abstain]
    for name, fn, k in (("recall@5", recall_at_k, RECALL_K), ("mrr@10", mrr_at_k, MRR_K)):
        out[name] = {
            mode: (fn([(r.retrieved[mode], r.item.expected_sections) for r in answerable], k) if mode in modes else None)
            for mode in MODES
        }
    out.setdefault("intervals", {})["recall@5"] = {
        mode: (wilson(round(out["recall@5"][mode] * len(answerable)), len(answerable))
               if out["recall@5"][mode] is not None else None) for mode in MODES}
    return out


RELIABILITY_BANDS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0)  # confidence bands of the reliability table


def reliability(results: Sequence[ItemResult], judgements: Sequence[Judgement]) -> list[dict[str, object]]:
    """How often answers in each confidence band are right: band, answers, right, wrong, mean
    confidence, accuracy and its 95% interval (answers only; declines are not in any band)."""
    rows = []
    for low, high in zip(RELIABILITY_BANDS, RELIABILITY_BANDS[1:]):
        inside = [(confidence_of(r.answer), j) for r, j in zip(results, judgements)  # type: ignore[arg-type]
                  if not r.answer.abstained and (low <= confidence_of(r.answer) < high  # type: ignore[union-attr]
                                                 or (high == 1.0 and confidence_of(r.answer) == 1.0))]  # type: ignore[arg-type]
        right = sum(j.correct for _, j in inside)
        rows.append({
            "band": [low, high], "answers": len(inside), "right": right,
            "wrong": sum(j.outcome == WRONG for _, j in inside),
            "mean_confidence": ratio(sum(c for c, _ in inside), len(inside)),
            "accuracy": ratio(right, len(inside)), "interval": wilson(right, len(inside)),
        })
    return rows


# What each stated band promises (assistant.confidence.SURE_FLOORS; kept here so eval reads no
# assistant module at import time): the share of its answers that are right.
STATED_FLOORS = {"high": 0.98, "medium": 0.90, "low": None}


def stated_reliability(results: Sequence[ItemResult], judgements: Sequence[Judgement]) -> list[dict[str, object]]:
    """For each "how sure" band the answers state: answers, right, accuracy with its 95% interval,
    the floor the band promises and whether the observed accuracy holds it."""
    rows = []
    for band, floor in STATED_FLOORS.items():
        inside = [j for r, j in zip(results, judgements)
                  if not r.answer.abstained and r.answer.how_sure == band]  # type: ignore[union-attr]
        right = sum(j.correct for j in inside)
        accuracy = ratio(right, len(inside))
        rows.append({"band": band, "answers": len(inside), "right": right, "accuracy": accuracy,
                     "interval": wilson(right, len(inside)), "floor": floor,
                     "holds": None if floor is None or accuracy is None else accuracy >= floor})
    return rows


def _set_intervals(counts: dict[str, int] | None, answered: tuple[int, int], para: dict[str, object],
                   curve: dict[str, object], n: int) -> dict[str, object]:
    """95% intervals of the set-level rates that ``_group_metrics`` does not already carry."""
    if counts is None:
        return {}
    tp, fp, fn, tn = counts["tp"], counts["fp"], counts["fn"], counts["tn"]
    groups = int(para["groups"])  # type: ignore[arg-type]
    return {
        "answered_accuracy": wilson(*answered),
        "abstention_precision": wilson(tp, tp + fp),
        "abstention_recall": wilson(tp, tp + fn),
        "abstention_accuracy": wilson(tp + tn, tp + fp + fn + tn),
        "paraphrase_consistency": wilson(round((para["all_right"] or 0) * groups), groups),  # type: ignore[operator]
        "paraphrase_agree": wilson(round((para["agree"] or 0) * groups), groups),  # type: ignore[operator]
        "coverage_at_risk": wilson(round((curve["coverage_at_risk"] or 0) * n), n),  # type: ignore[operator]
    }


def summarize(results: Sequence[ItemResult], modes: Sequence[str] = MODES, sealed: bool = False) -> dict[str, object]:
    """The metrics of one question set (``python -m eval --json`` holds one per set).

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
    if judgements is not None:
        counts = abstention_counts((r.item.abstain, r.answer.abstained) for r in results)  # type: ignore[union-attr]
        abst = abstention_scores(counts)
        answered_results = [(r, j) for r, j in zip(results, judgements) if not r.answer.abstained]  # type: ignore[union-attr]
        answered_n = len(answered_results)
        answered_right = sum(j.correct for _, j in answered_results)
        para = paraphrase_consistency(results, judgements)
        curve = risk_coverage(results, judgements)
        bands = reliability(results, judgements)
        stated = stated_reliability(results, judgements)
    else:
        bands, stated = [], []
        counts, abst, answered_n, answered_right = None, {"precision": None, "recall": None, "accuracy": None}, 0, 0
        para = {"groups": 0, "all_right": None, "agree": None}
        curve = {"points": [], "aurc": None, "coverage_at_risk": None, "risk_target": RISK_TARGET, "confidence_source": None}
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
        "wrong": overall["wrong"],
        "abstained": overall["abstained"],
        "accuracy": overall["accuracy"],
        "answer_accuracy": overall["accuracy"],
        "wrong_rate": overall["wrong_rate"],
        "answered_accuracy": ratio(answered_right, answered_n) if judgements is not None else None,
        "citation_precision": overall["citation_precision"],
        "citation_recall": overall["citation_recall"],
        "abstention_precision": abst["precision"],
        "abstention_recall": abst["recall"],
        "abstention_accuracy": abst["accuracy"],
        "abstention_counts": counts,
        "paraphrase_consistency": para["all_right"],
        "paraphrase": para,
        "aurc": curve["aurc"],
        "risk_coverage": curve,
        "retrieval_modes": list(modes),
        "recall@5": overall["recall@5"],
        "mrr@10": overall["mrr@10"],
        "latency_ms": latency(results),
        "by_category": by_category,
        "by_style": _by_style(results, judgements, modes),
        "intervals": {**overall.get("intervals", {}),  # type: ignore[dict-item]
                      **_set_intervals(counts, (answered_right, answered_n), para, curve, len(results))},
        "reliability": bands,
        "reliability_stated": stated,
        # A sealed set (test) is read in aggregate only: no item, id or miss leaves the scorer.
        "sealed": sealed,
        "misses": misses(results, judgements) if judgements is not None and not sealed else [],
    }


def _by_style(results: Sequence[ItemResult], judgements: Sequence[Judgement] | None, modes: Sequence[str]) -> dict[str, object]:
    """The set's figures by how questions are asked (items that carry a ``style``)."""
    out: dict[str, object] = {}
    for style in dict.fromkeys(r.item.style for r in results if r.item.style):
        idx = [i for i, r in enumerate(results) if r.item.style == style]
        out[style] = _group_metrics([results[i] for i in idx], [judgements[i] for i in idx] if judgements is not None else None, modes)  # type: ignore[arg-type]
    return out


def compare(sets: dict[str, dict[str, object]]) -> dict[str, object]:
    """The figures across sets: ``generalization_gap`` = dev accuracy - test accuracy."""
    dev, test = sets.get("dev"), sets.get("test")
    gap = None
    if dev and test and dev.get("accuracy") is not None and test.get("accuracy") is not None:
        gap = dev["accuracy"] - test["accuracy"]  # type: ignore[operator]
    return {"generalization_gap": gap}


def misses(results: Sequence[ItemResult], judgements: Sequence[Judgement] | None = None) -> list[dict[str, object]]:
    """The items not answered right, in set order: id, category, outcome, question, expected,
    the answer given (first line) and why."""
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
                "outcome": j.outcome,
                "group": r.item.group,
                "question": r.item.question,
                "expected": "(abstain)" if r.item.abstain else r.item.expected_first_line,
                "expected_facts": list(r.item.expected_facts),
                "got": "(abstained) " + r.answer.first_line if r.answer.abstained else r.answer.first_line,
                "cited": list(r.answer.cited_sections),
                "confidence": r.answer.confidence,
                "reason": j.reason,
            }
        )
    return out
