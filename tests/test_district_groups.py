"""District groups (assistant/understand.py, data/districts.json "group_words"): a group word the
code's headings print names its districts only before a plural district noun; "residential use",
"a residential project" and a district's own name ("Rural Residential") name no group. The groups'
members are checked against the printed headings they come from (a text check, no parsing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.understand import understand
from assistant.vocab import DATA, load_vocabulary

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "cotati"
RESIDENTIAL = ("OSC", "OSR", "RR", "RVL", "NL", "NM", "NU")
COMMERCIAL = ("CE", "CG", "CD", "CI", "IG", "PF")


@pytest.mark.parametrize("question, districts", [
    ("Which residential districts allow a mobile home park?", RESIDENTIAL),
    ("which residential zones allow a duplex", RESIDENTIAL),
    ("In which residential or open space districts is a cell tower allowed at all?", RESIDENTIAL),
    ("Where in the commercial and industrial districts is a kennel not allowed?", COMMERCIAL),
    ("Which of the commercial/industrial districts don't allow an ADU?", COMMERCIAL),
    ("dog boarding in the commercial / industrial parts of town?", COMMERCIAL),
    ("which industrial zones allow a brewery?", ("CI", "IG")),
    ("which mixed-use zones allow a bar", COMMERCIAL),
    ("is a church allowed in the special purpose districts?", ("PF",)),
])
def test_a_group_word_before_a_plural_district_noun_names_the_groups_districts(question, districts):
    assert understand(question, load_vocabulary()).districts == districts


@pytest.mark.parametrize("question, districts", [
    ("can I build a residential project in CE?", ("CE",)),
    ("is a residential use allowed in CG", ("CG",)),
    ("what is the fence height in a residential zone?", ()),  # one zone, not the group
    ("Rural Residential zones: are horses allowed?", ("RR",)),  # a district's own name
    ("which general industrial zones allow a brewery", ("IG",)),
    ("Is a bar allowed in the Commercial/Industrial district?", ("CI",)),
    ("bar in the Commercial/Industrial (CI) or IG districts", ("CI", "IG")),
])
def test_a_group_word_elsewhere_names_no_group(question, districts):
    assert understand(question, load_vocabulary()).districts == districts


def test_each_group_names_known_districts_and_says_where_the_code_prints_it():
    data = json.loads((DATA / "districts.json").read_text(encoding="utf-8"))
    symbols = {d["symbol"] for d in data["districts"]}
    for name, group in data["group_words"].items():
        if name.startswith("_"):
            continue
        assert group["districts"] and set(group["districts"]) <= symbols, name
        assert group["basis"].strip(), name


def test_the_residential_and_commercial_groups_are_the_columns_under_those_headings():
    """The cannabis table (document 000) prints RESIDENTIAL over OSC..NU and COMMERCIAL over CE..PF."""
    lines = (CORPUS / "2023-11-06_ord-telecom-facilities.txt").read_text(encoding="utf-8").split("\n")
    groups = load_vocabulary().group_words

    def columns_after(heading: str) -> tuple[str, ...]:
        start = lines.index(heading)
        row = next(line for line in lines[start:] if line.startswith("AU "))
        return tuple(row.split()[1:])

    assert columns_after("RESIDENTIAL") == groups["residential"]
    assert columns_after("COMMERCIAL") == groups["commercial"]
    table_2_3 = next(i for i, line in enumerate(lines) if line.startswith("Allowed Land Uses and Permit Requirements for Mixed Use"))
    printed = next(line for line in lines[table_2_3:] if line.startswith("CE "))  # the column headings
    assert lines[table_2_3 - 1] == "Table 2-3" and printed.split()[:6] == list(groups["mixed use"])


def test_ca_beside_other_district_symbols_is_the_district_not_california():
    from assistant.dialogue import clarifying_options

    vocabulary = load_vocabulary()
    assert clarifying_options(understand("I live in CA, can I build an ADU?", vocabulary), vocabulary) is not None
    for question in ("back office in CA vs HC: which needs the lesser permit?", "which of HC, LP, NG, CA, TOC and SW allow a bar?"):
        assert clarifying_options(understand(question, vocabulary), vocabulary) is None, question
