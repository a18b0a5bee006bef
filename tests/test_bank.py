"""The question bank (issue 34): its files, its coverage of the units, its matching, and the leak check."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import numpy as np
import pytest

from assistant import bank as bank_mod

MINIMUM = {"provision": 5, "standards": 5, "definition": 5, "permit_row": 3, "section": 3, "district": 3,
           "ordinance_fact": 3}
WRITTEN_STYLES = {"resident", "formal", "staff_memo", "keywords", "typo", "long_story", "yes_no", "wrong_premise", "jargon",
                  "unit_conversion"}


# -- reading bank files (hermetic) --------------------------------------------------------------------
def test_a_bad_line_is_named(tmp_path):
    path = tmp_path / "b.jsonl"
    path.write_text(json.dumps({"question": "how tall?", "unit": "standards:3-2@17.30.030:Front", "style": "resident"})
                    + "\n{not json\n", encoding="utf-8")
    with pytest.raises(bank_mod.BankError, match=r"b\.jsonl, line 2: not JSON"):
        bank_mod.load(tmp_path)


@pytest.mark.parametrize("entry, problem", [
    ({"question": "", "unit": "section:17.30.030", "style": "resident"}, "'question'"),
    ({"question": "fences?", "unit": "fences", "style": "resident"}, "'unit'"),
    ({"question": "fences?", "unit": "section:17.30.030", "style": "poem"}, "style 'poem'"),
    ({"question": "fences?", "unit": "section:17.30.030", "style": "resident", "slots": {"zone": "NL"}}, "'slots'"),
])
def test_an_entry_that_breaks_the_format_is_refused(tmp_path, entry, problem):
    (tmp_path / "b.jsonl").write_text(json.dumps(entry) + "\n", encoding="utf-8")
    with pytest.raises(bank_mod.BankError, match=problem):
        bank_mod.load(tmp_path)


def test_a_repeated_question_is_kept_once(tmp_path):
    rows = [{"question": "How tall can a fence be?", "unit": "section:17.30.030", "style": "resident"},
            {"question": "how  tall can a fence be?", "unit": "section:17.30.030", "style": "typo"}]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert len(bank_mod.load(tmp_path)) == 1


# -- matching (hermetic: vectors given) --------------------------------------------------------------
def _bank():
    entries = [bank_mod.Entry("a1", "u:a"), bank_mod.Entry("a2", "u:a"), bank_mod.Entry("b1", "u:b"),
               bank_mod.Entry("c1", "u:c")]
    vectors = np.array([[1, 0, 0], [0.9, 0.1, 0], [0.8, 0.6, 0], [0, 0, 1]], dtype="float32")
    return bank_mod.Bank(entries, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))


def test_nearest_entries_vote_for_their_units():
    votes = _bank().votes(np.array([1.0, 0.05, 0.0]), k=3)
    assert [v.unit for v in votes] == ["u:a", "u:b"]
    assert votes[0].entries == 2 and votes[0].nearest == "a1"
    assert bank_mod.margin(votes) == pytest.approx(votes[0].similarity - votes[1].similarity)


def test_a_questions_own_group_does_not_vote():
    votes = _bank().votes(np.array([0.8, 0.6, 0.0]), k=4, left_out={"B1 "})  # its paraphrase group's questions
    assert "u:b" not in [v.unit for v in votes]


def test_no_entries_no_votes():
    assert bank_mod.Bank([], np.zeros((0, 3))).votes(np.ones(3), k=5) == []
    assert bank_mod.margin([]) == 0.0


# -- the shipped bank against the corpus ---------------------------------------------------------------
@pytest.fixture(scope="module")
def shipped():
    return bank_mod.load()


@pytest.fixture(scope="module")
def units():
    from assistant.service import load_assistant
    from assistant.units import catalogue

    return {u.id: u for u in catalogue(load_assistant(calibrated=False).resources)}


def test_the_bank_holds_at_least_6000_written_entries(shipped):
    written = [e for e in shipped if e.style in WRITTEN_STYLES]
    assert len(written) >= 6000
    assert {e.style for e in written} == WRITTEN_STYLES
    assert all(e.batch for e in shipped)


def test_every_unit_id_resolves(shipped, units):
    unknown = sorted({e.unit for e in shipped} - set(units) - {bank_mod.DECLINE})
    assert not unknown, unknown[:10]


def test_every_unit_kind_meets_its_minimum(shipped, units):
    written = Counter(e.unit for e in shipped if e.style in WRITTEN_STYLES)
    short = defaultdict(list)
    for unit in units.values():
        if written[unit.id] < MINIMUM[unit.kind]:
            short[unit.kind].append(unit.id)
    assert not short, {kind: ids[:5] for kind, ids in short.items()}


def test_no_entry_repeats_another():
    seen: dict[str, str] = {}
    repeated = []
    for path in sorted(bank_mod.BANK_DIR.glob("*.jsonl")):
        for entry in bank_mod.read_file(path):
            key = " ".join(entry.question.lower().split())
            if key in seen:
                repeated.append((entry.question, seen[key], path.name))
            seen[key] = path.name
    assert not repeated, repeated[:5]


def test_slots_name_known_districts(shipped):
    from assistant.vocab import load_vocabulary

    known = {d.symbol for d in load_vocabulary().districts}
    named = {d.split("-")[0] for e in shipped for d in e.slots.get("district", [])}
    assert named - known <= {"SWSP", "MHP", "CP", "DSP"}, named - known


def test_no_entry_shares_its_words_with_a_sealed_question(shipped):
    """The leak check's word test: no bank question has exactly the content words of a test or
    holdout question (read in aggregate: only the count is reported)."""
    from eval.gold import load_gold
    from eval.leaks import near_duplicates

    from eval.ranker_fit import HOLDOUT
    from eval.bank_eval import SETS

    sealed = [i.question for path in (SETS["test"], HOLDOUT) for i in load_gold(path)]
    flagged = near_duplicates([(str(n), e.question) for n, e in enumerate(shipped)], sealed)
    assert len(flagged) == 0, f"{len(flagged)} bank entries share a sealed question's words"


@pytest.mark.slow
def test_no_entry_is_near_a_sealed_question_in_meaning(shipped):
    """The leak check's distance under the real model (eval/leaks.py NEAR_COSINE)."""
    from eval.gold import load_gold
    from eval.leaks import near_duplicates
    from index.dense import get_encoder

    from eval.ranker_fit import HOLDOUT
    from eval.bank_eval import SETS

    encoder = get_encoder()
    sealed = [i.question for path in (SETS["test"], HOLDOUT) for i in load_gold(path)]
    flagged = near_duplicates([(str(n), e.question) for n, e in enumerate(shipped)], sealed,
                              encode=lambda texts: encoder.encode(list(texts), batch_size=64))
    assert len(flagged) == 0, f"{len(flagged)} bank entries are within the leak distance of a sealed question"


# -- a bank that grows from use -------------------------------------------------------------------
def test_staff_add_a_logged_question_for_a_unit(tmp_path):
    entry = bank_mod.add_entry("can i put a hot tub by the fence?", "section:17.30.030", ["section:17.30.030"],
                               {"district": ["NL"]}, batch="staff-test", folder=tmp_path)
    assert entry.style == "logged"
    assert [e.question for e in bank_mod.load(tmp_path)] == ["can i put a hot tub by the fence?"]


@pytest.mark.parametrize("question, unit, problem", [
    ("how tall can my fence be", "section:99.99.999", "not a unit"),
    ("   ", "section:17.30.030", "empty"),
    ("Existing question", "section:17.30.030", "already holds"),
])
def test_a_bad_addition_is_refused_and_nothing_is_written(tmp_path, question, unit, problem):
    bank_mod.add_entry("existing question", "section:17.30.030", ["section:17.30.030"], folder=tmp_path)
    before = (tmp_path / bank_mod.LOGGED).read_text(encoding="utf-8")
    with pytest.raises(bank_mod.BankError, match=problem):
        bank_mod.add_entry(question, unit, ["section:17.30.030"], folder=tmp_path)
    assert (tmp_path / bank_mod.LOGGED).read_text(encoding="utf-8") == before
    assert not list(tmp_path.glob(".*.tmp"))
