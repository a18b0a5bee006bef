"""Structural checks of the gold evaluation sets we write: eval/dev.jsonl (the dev set) and
eval/holdout.jsonl (dev's holdout part, read in aggregate only; see eval/GOLD.md).

Fast: standard library, pytest and the pure matching helpers of ``eval``; one test parses the
corpus tables (``ingest``, under a second). The key check ties every answerable item to the corpus:
``source.text`` must occur verbatim in line ``source.line`` (1-based, lines split on "\\n" exactly
as ``sed -n 'Np'`` counts them) of ``source.file``. Items from q321 on carry the fields of the test
set too: ``expected_value`` (table answers), ``expected_cells`` (``district_list``) and ``group``
(three wordings of one question that share every answer field); those are tied to the parsed cells.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from eval import cells as eval_cells
from eval.match import code_from_facts, has_fact, normalize_code

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "eval" / "dev.jsonl"
HOLDOUT = ROOT / "eval" / "holdout.jsonl"
MANIFEST = ROOT / "corpus" / "cotati" / "manifest.json"

CATEGORY_MINIMUMS = {
    "permit_table": 190,
    "amended_cell": 30,
    "district_list": 12,
    "standards": 95,
    "procedure": 45,
    "definition": 28,
    "section_lookup": 20,
    "district": 19,
    "rezoning": 6,
    "out_of_scope": 50,
}
MIN_ITEMS = 500
MIN_GROUPS = 15
# Items from this id on must carry expected_value / expected_cells like the test set.
NEW_FIELDS_FROM = 321
REQUIRED = {
    "id": str,
    "question": str,
    "category": str,
    "expected_answer": str,
    "expected_facts": list,
    "expected_sections": list,
    "table": (str, type(None)),
    "row": (str, type(None)),
    "column": (str, type(None)),
    "source": (dict, type(None)),
    "abstain": bool,
}
OPTIONAL = {
    "contradicting_facts": list,
    "group": (str, type(None)),
    "expected_value": str,
    "expected_cells": dict,
    "parts": list,  # a multi-part question: each part's facts, and whether the code answers it
    "style": str,  # how it is asked (resident, staff_memo, long_story, unit_conversion, ...)
    "origin": str,  # "log": added by `python -m eval add-from-log` from the question log
    "log_id": int,  # the question-log entry it came from
}
# What the three wordings of a paraphrase group share (everything but id and question).
ANSWER_FIELDS = ("category", "expected_answer", "expected_facts", "contradicting_facts", "expected_sections",
                 "expected_document", "table", "row", "column", "expected_value", "expected_cells", "source", "abstain")
PERMIT_TABLE_CATEGORIES = ("permit_table", "amended_cell", "district_list")
ALLOWED_KEYS = set(REQUIRED) | set(OPTIONAL) | {"expected_document"}
DISTRICTS = {
    "Table 2-2": {"OSC", "OSR", "RR", "RVL", "NL", "NM", "NU"},
    "Table 2-3": {"CE", "CG", "CD", "CI", "IG", "PF"},
    "Table 2-4": {"HC", "LP", "NG", "CA", "TOC", "SW"},
    "Table 2-2 Cannabis": {"OSC", "OSR", "RR", "RVL", "NL", "NM", "NU", "CE", "CG", "CD", "CI", "IG", "PF"},
}
# "17.22.020", "3.42.040", "17.44" style code ids, or an ordinance-only part "001:SECTION-17" (an
# ordinance's title and recitals, before its SECTION 1, are "001:PREAMBLE").
SECTION_ID = re.compile(r"^(\d{1,2}\.\d{2}(\.\d{3})?|\d{3}:SECTION-\d+|\d{3}:PREAMBLE)$")


def _load(path: Path) -> list[dict]:
    items = []
    if not path.exists():  # the holdout part is optional
        return items
    with path.open(encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:  # pragma: no cover - reported as a failure
                pytest.fail(f"eval/{path.name} line {n} is not valid JSON: {exc}")
            assert isinstance(obj, dict), f"eval/{path.name} line {n} is not a JSON object"
            items.append(obj)
    return items


# One set of checks for both files: ids, questions and groups must be unique across them.
ITEMS = _load(GOLD) + _load(HOLDOUT)
DOCS = {d["id"]: d for d in json.loads(MANIFEST.read_text(encoding="utf-8"))["documents"]}
_LINES: dict[str, list[str]] = {}


def _lines(rel: str) -> list[str]:
    if rel not in _LINES:
        _LINES[rel] = (ROOT / rel).read_text(encoding="utf-8").split("\n")
    return _LINES[rel]


def _ids(items):
    return [it.get("id", "?") for it in items]


def test_enough_items():
    assert len(ITEMS) >= MIN_ITEMS


def test_ids_unique_and_well_formed():
    ids = [it["id"] for it in ITEMS]
    assert len(ids) == len(set(ids)), [i for i, c in Counter(ids).items() if c > 1]
    # q-items, and the former test set's ta/tb items (moved into dev when the sealed test replaced it)
    assert all(re.fullmatch(r"q\d{3,}|t[ab]\d{3}", i) for i in ids)


def test_questions_unique():
    qs = [re.sub(r"\s+", " ", it["question"].strip().lower()) for it in ITEMS]
    assert len(qs) == len(set(qs)), [q for q, c in Counter(qs).items() if c > 1]


def test_category_minimums():
    counts = Counter(it["category"] for it in ITEMS)
    assert set(counts) <= set(CATEGORY_MINIMUMS), set(counts) - set(CATEGORY_MINIMUMS)
    for cat, minimum in CATEGORY_MINIMUMS.items():
        assert counts[cat] >= minimum, f"{cat}: {counts[cat]} < {minimum}"


def test_permit_tables_cover_every_district_group():
    tables = Counter(it["table"] for it in ITEMS if it["category"] == "permit_table")
    for table in ("Table 2-2", "Table 2-3", "Table 2-4", "Table 2-2 Cannabis"):
        assert tables[table] >= 1, table
    for table, cols in DISTRICTS.items():
        if table == "Table 2-2 Cannabis":
            continue
        seen = {it["column"] for it in ITEMS if it["table"] == table and it["category"] in ("permit_table", "amended_cell")}
        assert cols <= seen, f"{table}: no item for {sorted(cols - seen)}"


@pytest.mark.parametrize("item", ITEMS, ids=_ids(ITEMS))
def test_fields_and_types(item):
    missing = set(REQUIRED) - set(item)
    assert not missing, missing
    assert set(item) <= ALLOWED_KEYS, set(item) - ALLOWED_KEYS
    for key, typ in {**REQUIRED, **OPTIONAL}.items():
        if key in item:
            assert isinstance(item[key], typ), (key, type(item[key]))
    assert item["question"].strip() and item["expected_answer"].strip()
    assert item["category"] in CATEGORY_MINIMUMS
    if item.get("group") is not None:
        # D: dev q321-q505; A/B: the former test set's groups; R: the running-text items from q1001; N: the near-miss items from q1221;
        # T: the time, change, comparison and ordinance-fact items from q1441; S: the style items (staff memos,
        # long stories, unit conversions, wrong premises) from q1577; H: the holdout items (eval/holdout.jsonl)
        assert re.fullmatch(r"[DABRNTSH]\d{2}", item["group"]), item["group"]
    for key in ("expected_facts", "expected_sections", "contradicting_facts"):
        for value in item.get(key, []):
            assert isinstance(value, str) and value.strip(), (key, value)


@pytest.mark.parametrize("item", ITEMS, ids=_ids(ITEMS))
def test_abstain_consistency(item):
    if item["category"] == "out_of_scope":
        assert item["abstain"] is True
    if item["abstain"]:
        assert item["category"] == "out_of_scope"
        assert item["expected_facts"] == []
        assert item["expected_sections"] == []
        assert item["source"] is None
        assert item.get("expected_document") is None
        assert item["table"] is None and item["row"] is None and item["column"] is None
    else:
        assert item["expected_facts"], "an answerable item needs at least one expected fact"
        assert item["expected_sections"], "an answerable item needs at least one expected section"
        assert item["source"] is not None
        assert item.get("expected_document") in DOCS


@pytest.mark.parametrize("item", [i for i in ITEMS if not i["abstain"]], ids=_ids([i for i in ITEMS if not i["abstain"]]))
def test_sections_documents_and_tables(item):
    for sec in item["expected_sections"]:
        assert SECTION_ID.match(sec), sec
    # an amended cell may be a standards cell (Table 3-2's fences, 17.24.020's density "Table 2-4")
    standards_cell = item["category"] == "amended_cell" and "17.22.020" not in item["expected_sections"]
    if item["category"] in PERMIT_TABLE_CATEGORIES and not standards_cell:
        assert item["table"] in DISTRICTS, item["table"]
        if item["column"] is not None:
            assert item["column"] in DISTRICTS[item["table"]], item["column"]
    if item["category"] == "amended_cell":
        assert item["row"] and item["column"]
    if item["category"] == "rezoning":
        assert "001:SECTION-17" in item["expected_sections"]


@pytest.mark.parametrize("item", [i for i in ITEMS if not i["abstain"]], ids=_ids([i for i in ITEMS if not i["abstain"]]))
def test_source_text_is_in_the_corpus_line(item):
    src = item["source"]
    assert set(src) == {"file", "line", "text"}, src
    assert isinstance(src["line"], int) and src["line"] >= 1
    assert isinstance(src["text"], str) and 20 <= len(src["text"]) <= 120, len(src["text"])
    doc = DOCS[item["expected_document"]]
    assert src["file"] == f"corpus/cotati/{doc['file']}", "source must be the effective document's file"
    lines = _lines(src["file"])
    assert src["line"] <= len(lines), f"{src['file']} has {len(lines)} lines"
    assert src["text"] in lines[src["line"] - 1], (
        f"{item['id']}: {src['text']!r} not in {src['file']}:{src['line']}: {lines[src['line'] - 1][:160]!r}"
    )


@pytest.mark.parametrize("item", ITEMS, ids=_ids(ITEMS))
def test_expected_answer_is_consistent_with_facts(item):
    # read as the scorer reads answers (spelling variants alike: "pawn shops" is "pawnshops")
    answer = item["expected_answer"]
    first_line = answer.split("\n", 1)[0]
    for fact in item["expected_facts"]:
        assert has_fact(answer, fact), f"expected fact {fact!r} missing from expected_answer"
    for bad in item.get("contradicting_facts", []):
        assert not has_fact(first_line, bad), f"contradicting fact {bad!r} in the answer's first line"


@pytest.mark.parametrize("item", [i for i in ITEMS if not i["abstain"]], ids=_ids([i for i in ITEMS if not i["abstain"]]))
def test_question_does_not_copy_the_source_line(item):
    """Questions are in residents' words: no run of 6 words copied from the supporting line."""
    words = re.findall(r"[a-z0-9]+", item["question"].lower())
    line = " ".join(re.findall(r"[a-z0-9]+", _lines(item["source"]["file"])[item["source"]["line"] - 1].lower()))
    for i in range(len(words) - 5):
        assert " ".join(words[i : i + 6]) not in line, " ".join(words[i : i + 6])


def _number(item) -> int:
    """q-items by their number; the former test set's items (ta..., tb..., moved into dev when the
    sealed test replaced it) were written with the test set's fields, so they count as new."""
    return int(item["id"][1:]) if re.fullmatch(r"q\d+", item["id"]) else 10**6


def test_paraphrase_groups_share_every_answer_field():
    groups: dict[str, list[dict]] = {}
    for item in ITEMS:
        if item.get("group") is not None:
            groups.setdefault(item["group"], []).append(item)
    assert len(groups) >= MIN_GROUPS, len(groups)
    for name, members in groups.items():
        assert len(members) == 3, (name, len(members))
        first = members[0]
        for other in members[1:]:
            assert {k: other.get(k) for k in ANSWER_FIELDS} == {k: first.get(k) for k in ANSWER_FIELDS}, name
        assert len({re.sub(r"\s+", " ", m["question"].strip().lower()) for m in members}) == 3, name


NEW_ITEMS = [i for i in ITEMS if _number(i) >= NEW_FIELDS_FROM]


@pytest.mark.parametrize("item", NEW_ITEMS, ids=_ids(NEW_ITEMS))
def test_new_items_carry_the_test_set_fields(item):
    """From q321 on, a permit cell carries its printed value and a "which districts" item its whole row."""
    cat = item["category"]
    if cat in ("permit_table", "amended_cell") and item["column"] is not None:
        assert "expected_value" in item, "a permit cell item needs expected_value"
    if cat == "district_list":
        assert item.get("expected_cells"), "a district_list item needs expected_cells"
    else:
        assert "expected_cells" not in item, "expected_cells is only for district_list items"
    if "expected_value" in item:
        assert item["table"] and item["row"], "expected_value belongs to a table cell"


VALUE_ITEMS = [i for i in ITEMS if "expected_value" in i]


@pytest.mark.parametrize("item", VALUE_ITEMS, ids=_ids(VALUE_ITEMS))
def test_expected_value_agrees_with_facts_and_source_line(item):
    value = item["expected_value"]
    assert value.strip()
    if item["table"] in DISTRICTS and "17.22.020" in item["expected_sections"]:  # a permit cell: a code
        code = normalize_code(value)
        assert code is not None, value
        assert code_from_facts(item["expected_facts"]) == code, (item["expected_facts"], value)
        if code == "S":
            assert len(item["expected_facts"]) >= 2, "an S cell also names its specific-use section"
        # the code is printed on the quoted line (glued tokens such as "UP(2)-" or "P)" allowed)
        text = item["source"]["text"]
        pattern = r"[-\u2013\u2014]" if code == "-" else rf"(?<![A-Z]){code}(?![A-Z])"
        assert re.search(pattern, text), (code, text)


DISTRICT_LISTS = [i for i in ITEMS if i["category"] == "district_list"]


@pytest.mark.parametrize("item", DISTRICT_LISTS, ids=_ids(DISTRICT_LISTS))
def test_district_lists_name_every_district_that_allows_the_use(item):
    cells = item["expected_cells"]
    assert item["row"] and item["column"] is None
    assert cells and set(cells) <= DISTRICTS[item["table"]], set(cells) - DISTRICTS[item["table"]]
    if item["table"] != "Table 2-2 Cannabis":  # the cannabis rows print only the commercial districts
        assert set(cells) == DISTRICTS[item["table"]], DISTRICTS[item["table"]] - set(cells)
    assert all(normalize_code(v) is not None for v in cells.values()), cells
    allowed = sorted(column for column, value in cells.items() if normalize_code(value) != "-")
    assert allowed, "a district list names at least one district"
    assert sorted(item["expected_facts"]) == allowed


@pytest.fixture(scope="module")
def effective_cells():
    """The effective cells on a date: ``cells(date)`` (cached per date)."""
    from ingest import load_corpus
    from ingest.tables import build_tables, tables_as_of

    tables = build_tables(load_corpus().sections)
    cache: dict[str, list[dict]] = {}

    def cells(date: str) -> list[dict]:
        if date not in cache:
            cache[date] = [entry.to_json() for entry in tables_as_of(tables, date).effective]
        return cache[date]

    return cells


CELL_ITEMS = [i for i in ITEMS if not i["abstain"] and ("expected_value" in i or "expected_cells" in i)]


@pytest.mark.parametrize("item", CELL_ITEMS, ids=_ids(CELL_ITEMS))
def test_gold_cells_are_parsed_cells_with_the_gold_value(item, effective_cells):
    """The cell the scorer looks for exists in ``python -m ingest tables`` output, read as the gold
    value and taken from the document in force, so a right answer is possible. The cells are those
    in force on the date of the item's document (``--as-of``): today's for an item about today's
    law, the earlier ones for an item that asks about an earlier date ("in 2024 ...")."""
    cells_on_date = effective_cells(DOCS[item["expected_document"]]["date"])
    # a two-column answer ("Width; Length ...") gives one printed value per column, in order
    wanted = item.get("expected_cells") or (
        dict(zip(item["column"].split("; "), item["expected_value"].split("; "))) if item["column"]
        else {None: item["expected_value"]})
    for column, value in wanted.items():
        found = [cell for cell in cells_on_date if eval_cells.cell_matches(
            cell, table=item["table"], row=item["row"], column=column, sections=item["expected_sections"])]
        assert found, f"{item['table']} / {item['row']} / {column}: no such parsed cell"
        agree = [cell for cell in found if eval_cells._value_agrees(cell, value)]
        assert agree, f"{item['table']} / {item['row']} / {column}: parsed {[c['value'] for c in found]}, gold {value!r}"
        assert any(cell["document"] == item["expected_document"] for cell in agree), (
            f"{item['table']} / {item['row']} / {column}: value from {[c['document'] for c in agree]}, "
            f"in force is {item['expected_document']}")
