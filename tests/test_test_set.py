"""The sealed test set (eval/test.jsonl): frozen, and every answerable item tied to the corpus.

Written from the corpus and eval/GOLD.md alone by writers who had read neither assistant/ nor the
dev set nor the former test set (now part of dev), then frozen (checksum here and in
eval/test_freeze.json). It is read in aggregate only: these checks report how many items fail a
rule, never an item, its id or its question. Changing a byte of it needs its own commit that says
why (a wrong gold answer, with the corpus line), and the new checksum.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from eval import cells as eval_cells
from eval.match import has_fact, normalize_code

ROOT = Path(__file__).resolve().parents[1]
TEST_SET = ROOT / "eval" / "test.jsonl"
FREEZE = ROOT / "eval" / "test_freeze.json"
MANIFEST = ROOT / "corpus" / "cotati" / "manifest.json"
FROZEN_SHA256 = "0751ffa93b0eb56cd43ef7d27f2be7fb422687681339e1b136fc8b2ea6b6e1b6"

CATEGORIES = {"permit_table", "amended_cell", "district_list", "standards", "procedure", "definition",
              "section_lookup", "district", "rezoning", "out_of_scope"}
REQUIRED = {"id", "question", "category", "expected_answer", "expected_facts", "expected_sections",
            "expected_document", "table", "row", "column", "source", "abstain", "group"}
ALLOWED = REQUIRED | {"contradicting_facts", "expected_value", "expected_cells", "parts", "style"}
ANSWER_FIELDS = ("category", "expected_answer", "expected_facts", "contradicting_facts", "expected_sections",
                 "expected_document", "table", "row", "column", "expected_value", "expected_cells", "source", "abstain",
                 "parts")
SECTION_ID = re.compile(r"^(\d{1,2}\.\d{2}(\.\d{3})?|\d{3}:SECTION-\d+)$")
ITEMS = [json.loads(line) for line in TEST_SET.read_text(encoding="utf-8").splitlines() if line.strip()]
DOCS = {d["id"]: d for d in json.loads(MANIFEST.read_text(encoding="utf-8"))["documents"]}
ANSWERABLE = [item for item in ITEMS if not item["abstain"]]


def _line(file: str, number: int) -> str:
    lines = (ROOT / file).read_text(encoding="utf-8").split("\n")
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _failing(rule) -> int:
    """How many items break ``rule`` (a function returning a reason or "")."""
    return sum(bool(rule(item)) for item in ITEMS)


def test_the_test_set_is_frozen():
    digest = hashlib.sha256(TEST_SET.read_bytes()).hexdigest()
    assert digest == FROZEN_SHA256 == json.loads(FREEZE.read_text(encoding="utf-8"))["sha256"], (
        "eval/test.jsonl changed. The test set is sealed: change it only in a commit of its own that says why "
        "(a wrong gold answer, with the corpus line), and record the new checksum here and in eval/test_freeze.json."
    )


def test_size_groups_and_declines():
    assert len(ITEMS) >= 400
    assert len({item["id"] for item in ITEMS}) == len(ITEMS)
    groups = Counter(item["group"] for item in ITEMS if item["group"])
    assert len(groups) >= 80 and set(groups.values()) == {3}
    assert sum(item["abstain"] for item in ITEMS) >= 60
    categories = Counter(item["category"] for item in ITEMS)
    assert set(categories) <= CATEGORIES
    for needed in ("permit_table", "amended_cell", "district_list", "standards", "procedure", "definition"):
        assert categories[needed] >= 10, needed


def test_paraphrases_share_every_answer_field():
    groups = defaultdict(list)
    for item in ITEMS:
        if item["group"]:
            groups[item["group"]].append(item)
    differ = sum(any({k: m.get(k) for k in ANSWER_FIELDS} != {k: ms[0].get(k) for k in ANSWER_FIELDS} for m in ms)
                 or len({m["question"].strip().lower() for m in ms}) != 3 for ms in groups.values())
    assert differ == 0, f"{differ} paraphrase groups do not share their answer fields or repeat a wording"


def _field_problem(item) -> str:
    if not REQUIRED <= set(item) <= ALLOWED or item["category"] not in CATEGORIES:
        return "fields"
    if item["abstain"]:
        ok = (item["category"] == "out_of_scope" and item["expected_facts"] == [] and item["expected_sections"] == []
              and item["source"] is None and item["expected_document"] is None)
        return "" if ok else "decline fields"
    if not (item["expected_facts"] and item["expected_sections"] and item["source"]):
        return "answer fields"
    if item["expected_document"] not in DOCS or not all(SECTION_ID.match(s) for s in item["expected_sections"]):
        return "document or section"
    first = item["expected_answer"].split("\n", 1)[0]
    if not all(has_fact(item["expected_answer"], f) for f in item["expected_facts"]):
        return "fact not in expected answer"
    if any(has_fact(first, bad) for bad in item.get("contradicting_facts", [])):
        return "contradiction in the expected first line"
    return ""


def test_fields():
    problems = Counter(p for p in map(_field_problem, ITEMS) if p)
    assert not problems, dict(problems)


def _parts_problem(item) -> str:
    parts = item.get("parts")
    if parts is None:
        return ""
    if len(parts) < 2 or not all(isinstance(p.get("answerable"), bool) for p in parts):
        return "parts"
    facts = {f for p in parts if p["answerable"] for f in p["expected_facts"]}
    return "" if facts == set(item["expected_facts"]) else "item facts are not the union of the parts'"


def test_parts_add_up():
    problems = Counter(p for p in map(_parts_problem, ITEMS) if p)
    assert not problems, dict(problems)


def _source_problem(item) -> str:
    if item["abstain"]:
        return ""
    source = item["source"]
    if not 20 <= len(source["text"]) <= 120:
        return "source length"
    if source["file"] != f"corpus/cotati/{DOCS[item['expected_document']]['file']}":
        return "source not in the document in force"
    return "" if source["text"] in _line(source["file"], source["line"]) else "source text not on its line"


def test_source_text_is_in_the_corpus_line_of_the_document_in_force():
    problems = Counter(p for p in map(_source_problem, ITEMS) if p)
    assert not problems, dict(problems)


def test_district_lists_name_every_district_that_allows_the_use():
    def problem(item) -> str:
        if item["category"] != "district_list":
            return ""
        allowed = sorted(c for c, v in item["expected_cells"].items() if normalize_code(v) != "-")
        return "" if sorted(item["expected_facts"]) == allowed else "list"

    assert _failing(problem) == 0


@pytest.fixture(scope="module")
def effective_cells():
    from ingest import load_corpus
    from ingest.tables import build_tables

    return [entry.to_json() for entry in build_tables(load_corpus().sections).effective]


def _cell_problem(item, cells) -> str:
    columns = list((item.get("expected_cells") or {})) or [item["column"]]
    for column in columns:
        found = [c for c in cells if eval_cells.cell_matches(
            c, table=item["table"], row=item["row"], column=column, sections=item["expected_sections"])]
        if not found:
            return "no such parsed cell"
    return ""


@pytest.mark.slow
def test_every_gold_cell_is_a_cell_of_the_parsed_tables(effective_cells):
    """The cell the scorer will look for exists in ``python -m ingest tables`` output, so an answer
    can be right: a gold row or column the parser does not know would make the item unwinnable."""
    table_items = [i for i in ANSWERABLE if i["category"] in ("permit_table", "amended_cell", "district_list", "standards")
                   and i["table"] and i["row"]]
    problems = Counter(p for p in (_cell_problem(i, effective_cells) for i in table_items) if p)
    assert not problems, dict(problems)
