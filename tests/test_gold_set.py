"""Structural checks of the gold evaluation set (eval/dev.jsonl, the dev set).

Hermetic and fast: standard library + pytest only. The key check ties every answerable item to
the corpus: ``source.text`` must occur verbatim in line ``source.line`` (1-based, lines split on
"\\n" exactly as ``sed -n 'Np'`` counts them) of ``source.file``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "eval" / "dev.jsonl"
MANIFEST = ROOT / "corpus" / "cotati" / "manifest.json"

CATEGORY_MINIMUMS = {
    "permit_table": 40,
    "amended_cell": 8,
    "standards": 35,
    "procedure": 20,
    "definition": 10,
    "section_lookup": 10,
    "district": 8,
    "rezoning": 3,
    "out_of_scope": 25,
}
MIN_ITEMS = 160
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
OPTIONAL = {"contradicting_facts": list}
ALLOWED_KEYS = set(REQUIRED) | set(OPTIONAL) | {"expected_document"}
DISTRICTS = {
    "Table 2-2": {"OSC", "OSR", "RR", "RVL", "NL", "NM", "NU"},
    "Table 2-3": {"CE", "CG", "CD", "CI", "IG", "PF"},
    "Table 2-4": {"HC", "LP", "NG", "CA", "TOC", "SW"},
    "Table 2-2 Cannabis": {"OSC", "OSR", "RR", "RVL", "NL", "NM", "NU", "CE", "CG", "CD", "CI", "IG", "PF"},
}
# "17.22.020", "3.42.040", "17.44" style code ids, or an ordinance-only part "001:SECTION-17".
SECTION_ID = re.compile(r"^(\d{1,2}\.\d{2}(\.\d{3})?|\d{3}:SECTION-\d+)$")


def _load() -> list[dict]:
    items = []
    with GOLD.open(encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:  # pragma: no cover - reported as a failure
                pytest.fail(f"eval/dev.jsonl line {n} is not valid JSON: {exc}")
            assert isinstance(obj, dict), f"line {n} is not a JSON object"
            items.append(obj)
    return items


ITEMS = _load()
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
    assert all(re.fullmatch(r"q\d{3,}", i) for i in ids)


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
    if item["category"] in ("permit_table", "amended_cell"):
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
    answer = item["expected_answer"].lower()
    first_line = answer.split("\n", 1)[0]
    for fact in item["expected_facts"]:
        assert fact.lower() in answer, f"expected fact {fact!r} missing from expected_answer"
    for bad in item.get("contradicting_facts", []):
        assert bad.lower() not in first_line, f"contradicting fact {bad!r} in the answer's first line"


@pytest.mark.parametrize("item", [i for i in ITEMS if not i["abstain"]], ids=_ids([i for i in ITEMS if not i["abstain"]]))
def test_question_does_not_copy_the_source_line(item):
    """Questions are in residents' words: no run of 6 words copied from the supporting line."""
    words = re.findall(r"[a-z0-9]+", item["question"].lower())
    line = " ".join(re.findall(r"[a-z0-9]+", _lines(item["source"]["file"])[item["source"]["line"] - 1].lower()))
    for i in range(len(words) - 5):
        assert " ".join(words[i : i + 6]) not in line, " ".join(words[i : i + 6])
