"""Choosing the provision that answers a running-text question (assistant/provision_choice.py):
synthetic provisions, no corpus, no model."""

from __future__ import annotations

from assistant.provision_choice import children_of, choose, head_said, outline, parent_of, wanted_kinds
from ingest.provisions import Provision
from ingest.values import Value

IDF = {}  # every word weighs 1


def provision(label, text, head="", values=(), kind="item", section="17.36.100"):
    return Provision(section=section, label=label, path=(f"{section} Driveways", head), text=text, kind=kind, head=head,
                     values=tuple(values), untyped=(), scope=(), document="001", date="2026-08-11", lines=(1, 1))


def length(text, feet):
    return Value(kind="length", number=feet, unit="feet", text=text, start=0, end=len(text), quantity=feet)


SINGLE = provision("17.36.100(C)(1)", "Single-Family Dwellings. Each parcel with a single-family dwelling shall have a "
                   "driveway with a minimum width of ten feet.", "Single-Family Dwellings", [length("ten feet", 10)])
MULTI = provision("17.36.100(C)(2)", "Multifamily Developments. A driveway serving six or more units shall have a "
                  "minimum width of twenty feet.", "Multifamily Developments", [length("twenty feet", 20)])
PARENT = provision("17.36.100(C)", "Driveway Width. Driveways shall be as follows:", "Driveway Width")
PLAIN = provision("17.36.100(A)", "Driveways shall be paved with an all-weather surface.")
ALL = [PARENT, SINGLE, MULTI, PLAIN]


def test_the_asked_measure_narrows_the_value_kinds():
    assert wanted_kinds("number", "how wide must the driveway be?") == {"length"}
    assert wanted_kinds("duration", "how long is a permit valid?") == {"duration"}
    assert wanted_kinds("yes_no", "is a driveway required?") == frozenset()


def test_a_value_question_gets_the_provision_whose_head_it_names():
    chosen = choose("how wide must the driveway be for multifamily developments?", "number", ALL, IDF, None, {"17.36.100": 0})
    assert chosen.provision is MULTI and [v.text for v in chosen.values] == ["twenty feet"]
    chosen = choose("how wide must a single-family driveway be?", "number", ALL, IDF, None, {"17.36.100": 0})
    assert chosen.provision is SINGLE


def test_no_provision_without_a_value_of_the_kind_or_enough_of_the_question():
    assert choose("how many days to pave the driveway?", "duration", ALL, IDF, None, {"17.36.100": 0}) is None
    assert choose("how tall can an antenna be?", "number", ALL, IDF, None, {"17.36.100": 0}) is None  # shares no word
    assert choose("is a driveway allowed?", "yes_no", ALL, IDF, None, {"17.36.100": 0}) is None


def test_a_list_question_gets_the_heading_and_its_items():
    chosen = choose("what driveway width rules are there for each kind of project?", "requirements", ALL, IDF, None,
                    {"17.36.100": 0})
    assert chosen.provision is PARENT and chosen.items == (SINGLE, MULTI) and chosen.values == ()


def test_outline_relations_and_the_head():
    assert children_of(PARENT, ALL) == (SINGLE, MULTI) and parent_of(MULTI, ALL) is PARENT and parent_of(PARENT, ALL) is None
    assert head_said("single family dwelling driveway", SINGLE) == 1.0 and head_said("driveway", PLAIN) == 0.0


def test_an_item_that_leads_a_list_brings_its_items_indented_one_level():
    inner = [provision(f"17.36.100(C)(2)({letter})", f"Finding {letter}.") for letter in "ab"]
    nested = ALL + inner
    assert outline((SINGLE, MULTI), nested) == [(0, SINGLE), (0, MULTI), (1, inner[0]), (1, inner[1])]
    assert outline((SINGLE, MULTI), nested, limit=3) == [(0, SINGLE), (0, MULTI), (1, inner[0])]
    assert outline((PLAIN,), nested) == [(0, PLAIN)]
