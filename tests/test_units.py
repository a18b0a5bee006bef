"""The answer-unit catalogue (issue 34): every provision and every table row of the corpus is a unit,
ids are unique and derived from the corpus, and ``python -m assistant units`` lists them."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest


@pytest.fixture(scope="module")
def res():
    from assistant.service import load_assistant

    return load_assistant(calibrated=False).resources


@pytest.fixture(scope="module")
def units(res):
    from assistant.units import catalogue

    return catalogue(res)


def test_ids_are_unique_and_kinds_known(units):
    from assistant.units import KINDS

    ids = [u.id for u in units]
    assert len(ids) == len(set(ids))
    assert {u.kind for u in units} == set(KINDS)
    assert all(u.id.startswith(u.kind + ":") for u in units)


def test_every_provision_in_force_is_a_unit(res, units):
    labels = {u.key["label"] for u in units if u.kind == "provision"}
    assert labels == {p.label for p in res.provisions()}


def test_every_table_row_is_a_unit(units):
    from ingest import load_corpus
    from ingest.tables import build_tables

    effective = build_tables(load_corpus().sections).effective
    rows = {(e.cell.table, e.cell.section, e.cell.row) for e in effective if not e.dropped_by}
    found = {(u.key["table"], u.section, u.key["row"]) for u in units if u.kind in ("permit_row", "standards")}
    assert found == rows


def test_counts_match_the_corpus(res, units):
    from assistant.units import counts

    tally = counts(units)
    assert tally["section"] == len(res.corpus.latest)
    assert tally["district"] == len(res.vocabulary.districts)
    assert tally["definition"] == len({(d.section.id, d.term.lower()) for d in res.definitions})
    ordinances = [d for d in res.corpus.documents.values() if "ordinance" in d.kind]
    assert tally["ordinance_fact"] == 7 * len(ordinances)


def test_ids_survive_a_rebuild(res, units):
    """Built again from the same corpus, the catalogue names the same units by the same ids."""
    from assistant.units import catalogue

    assert [u.id for u in catalogue(res)] == [u.id for u in units]


def test_district_units_quote_their_purpose(res, units):
    """Each district's unit carries its printed purpose paragraph (17.20.030) where the loaded text
    prints one, else its row of Table 2-1 (name and general plan designation), not just its name."""
    purposes = res.corpus.section("17.20.030").text
    listed = {u.key["row"] for u in units if u.kind == "standards" and u.key["table"] == "2-1"}
    for unit in (u for u in units if u.kind == "district"):
        symbol = unit.key["symbol"]
        if f"{symbol} (" in purposes or f"({symbol})" in purposes:
            assert " district " in unit.text.lower() and len(unit.text) > 80, symbol
        elif symbol in listed:
            assert "General Plan" in unit.text, symbol


def test_units_cli_lists_and_counts():
    done = subprocess.run([sys.executable, "-m", "assistant", "units", "--kind", "district", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert rows and {r["kind"] for r in rows} == {"district"}
    assert {"id", "kind", "section", "text", "citation"} <= set(rows[0])
    assert f"district {len(rows)}" in done.stderr


def test_kind_counts_printed_for_all():
    done = subprocess.run([sys.executable, "-m", "assistant", "units"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert all(kind in line for kind in ("provision", "permit_row", "standards", "definition", "section"))
    assert Counter(l.split(":", 1)[0] for l in done.stdout.splitlines())["provision"] > 0
