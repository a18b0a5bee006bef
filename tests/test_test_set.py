"""The blind test set (eval/test.jsonl): frozen, and every answerable item tied to the corpus.

Written from the corpus and eval/GOLD.md alone by people who had not read assistant/ or its data,
then frozen. Changing a byte of it needs its own commit that says why (a wrong gold answer, with
the corpus line), and the new checksum below. Never add vocabulary, rules or data because a test
question failed: fix the general mechanism, then see whether the test set moved.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from eval import cells as eval_cells
from eval.match import normalize_code

ROOT = Path(__file__).resolve().parents[1]
TEST_SET = ROOT / "eval" / "test.jsonl"
MANIFEST = ROOT / "corpus" / "cotati" / "manifest.json"
FROZEN_SHA256 = "441bddf777485ae76f7f88e2ac10f02a04327107d3489609ea3f09286dbdbfcd"

CATEGORIES = {"permit_table", "amended_cell", "district_list", "standards", "procedure", "definition",
              "section_lookup", "district", "rezoning", "out_of_scope"}
KEYS = {"id", "question", "category", "expected_answer", "expected_facts", "contradicting_facts", "expected_sections",
        "expected_document", "table", "row", "column", "expected_value", "expected_cells", "source", "abstain", "group"}
ANSWER_FIELDS = ("category", "expected_answer", "expected_facts", "contradicting_facts", "expected_sections",
                 "expected_document", "table", "row", "column", "expected_value", "expected_cells", "source", "abstain")
SECTION_ID = re.compile(r"^(\d{1,2}\.\d{2}(\.\d{3})?|\d{3}:SECTION-\d+)$")
ITEMS = [json.loads(line) for line in TEST_SET.read_text(encoding="utf-8").splitlines() if line.strip()]
DOCS = {d["id"]: d for d in json.loads(MANIFEST.read_text(encoding="utf-8"))["documents"]}
ANSWERABLE = [item for item in ITEMS if not item["abstain"]]


def _ids(items):
    return [item["id"] for item in items]


def _line(file: str, number: int) -> str:
    return (ROOT / file).read_text(encoding="utf-8").split("\n")[number - 1]


def test_the_test_set_is_frozen():
    digest = hashlib.sha256(TEST_SET.read_bytes()).hexdigest()
    assert digest == FROZEN_SHA256, (
        "eval/test.jsonl changed. The test set is frozen: change it only in a commit of its own that says why "
        "(a wrong gold answer, with the corpus line), and record the new checksum here."
    )


def test_size_groups_and_declines():
    assert len(ITEMS) >= 300
    ids = _ids(ITEMS)
    assert len(ids) == len(set(ids))
    groups = Counter(item["group"] for item in ITEMS if item["group"])
    assert len(groups) >= 60 and set(groups.values()) == {3}
    assert sum(item["abstain"] for item in ITEMS) >= 40
    categories = Counter(item["category"] for item in ITEMS)
    assert set(categories) <= CATEGORIES
    for needed in ("amended_cell", "district_list", "standards", "procedure"):
        assert categories[needed] >= 10, needed


def test_paraphrases_share_every_answer_field():
    groups = defaultdict(list)
    for item in ITEMS:
        if item["group"]:
            groups[item["group"]].append(item)
    for name, members in groups.items():
        first = members[0]
        for other in members[1:]:
            assert {k: other[k] for k in ANSWER_FIELDS} == {k: first[k] for k in ANSWER_FIELDS}, name
        assert len({m["question"].strip().lower() for m in members}) == 3, name


@pytest.mark.parametrize("item", ITEMS, ids=_ids(ITEMS))
def test_fields(item):
    assert set(item) == KEYS
    assert item["category"] in CATEGORIES
    if item["abstain"]:
        assert item["category"] == "out_of_scope"
        assert item["expected_facts"] == [] and item["expected_sections"] == [] and item["source"] is None
        assert item["expected_document"] is None
    else:
        assert item["expected_facts"] and item["expected_sections"] and item["source"]
        assert item["expected_document"] in DOCS
        assert all(SECTION_ID.match(s) for s in item["expected_sections"])
    answer = item["expected_answer"].lower()
    for fact in item["expected_facts"]:
        assert fact.lower() in answer, fact
    for bad in item["contradicting_facts"]:
        assert bad.lower() not in answer.split("\n", 1)[0], bad


@pytest.mark.parametrize("item", ANSWERABLE, ids=_ids(ANSWERABLE))
def test_source_text_is_in_the_corpus_line_of_the_document_in_force(item):
    source = item["source"]
    assert 20 <= len(source["text"]) <= 120
    assert source["file"] == f"corpus/cotati/{DOCS[item['expected_document']]['file']}"
    assert source["text"] in _line(source["file"], source["line"])


DISTRICT_LISTS = [item for item in ITEMS if item["category"] == "district_list"]


@pytest.mark.parametrize("item", DISTRICT_LISTS, ids=_ids(DISTRICT_LISTS))
def test_district_lists_name_every_district_that_allows_the_use(item):
    allowed = sorted(column for column, value in item["expected_cells"].items() if normalize_code(value) != "-")
    assert sorted(item["expected_facts"]) == allowed


@pytest.fixture(scope="module")
def effective_cells():
    from ingest import load_corpus
    from ingest.tables import build_tables

    return [entry.to_json() for entry in build_tables(load_corpus().sections).effective]


TABLE_ITEMS = [item for item in ANSWERABLE if item["category"] in ("permit_table", "amended_cell", "district_list", "standards")
               and item["table"] and item["row"]]


@pytest.mark.slow
@pytest.mark.parametrize("item", TABLE_ITEMS, ids=_ids(TABLE_ITEMS))
def test_every_gold_cell_is_a_cell_of_the_parsed_tables(item, effective_cells):
    """The cell the scorer will look for exists in ``python -m ingest tables`` output, so an answer
    can be right: a gold row or column the parser does not know would make the item unwinnable."""
    columns = [column for column, _ in (item["expected_cells"] or {}).items()] or [item["column"]]
    for column in columns:
        found = [cell for cell in effective_cells if eval_cells.cell_matches(
            cell, table=item["table"], row=item["row"], column=column, sections=item["expected_sections"])]
        assert found, f"{item['table']} / {item['row']} / {column}: no such parsed cell"
