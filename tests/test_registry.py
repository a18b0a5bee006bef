"""The route registry (assistant/routes/registry.py, issue 44): every route declared once; the chooser's
proposer lists, the ranker's route names and the signals per route are read from it."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from assistant import answer_type, choose, chooser, confidence
from assistant.routes import registry

ROUTES_DIR = Path(__file__).resolve().parent.parent / "assistant" / "routes"


def _function(path: str):
    module, function = path.split(".")
    return getattr(importlib.import_module(f"assistant.routes.{module}"), function)


def test_every_proposer_is_a_route_function_declared_once():
    paths = [p.path for p in registry.PROPOSERS]
    assert len(paths) == len(set(paths))
    assert all(callable(_function(path)) for path in paths)
    assert {p.group for p in registry.PROPOSERS} == {registry.FIRST, registry.DECIDING, registry.RANKED}


def test_every_route_module_proposes_through_the_registry():
    # bank.py is the question bank's proposer, asked by the chooser beside the routes; absent.py reads what
    # the documents do not hold (a reasoned decline before any candidate), so neither is a registry entry
    modules = {path.stem for path in ROUTES_DIR.glob("*.py")} - {"__init__", "registry", "bank", "absent"}
    assert modules == {p.path.split(".")[0] for p in registry.PROPOSERS}


def test_the_three_lists_are_read_from_it():
    assert chooser.ROUTES == tuple(_function(p.path) for p in registry.proposers(registry.FIRST))
    assert chooser.ROUTES_DECIDING == tuple(_function(p.path) for p in registry.proposers(registry.DECIDING))
    assert chooser.ROUTES_RANKED == tuple(_function(p.path) for p in registry.proposers(registry.RANKED))
    assert choose.ROUTES == registry.ranked_names()
    assert confidence.FEATURES == registry.signals()


def test_every_name_a_proposer_gives_is_declared():
    declared = {n.name for n in registry.NAMES}
    assert len(declared) == len(registry.NAMES)
    assert {name for p in registry.PROPOSERS for name in p.names} <= declared
    assert all(set(p.types) <= answer_type.GIVEN for p in registry.PROPOSERS)


@pytest.fixture(scope="module")
def res():
    from tests.test_assistant import hermetic_assistant

    return hermetic_assistant().resources


@pytest.mark.parametrize("question", ["Table 2-4", "Cite the section on cell tower setbacks.",
                                      "Which ordinance last changed the fence table?",
                                      "Which district allows the tallest buildings?",
                                      "Which needs more parking, a bank or a laundromat of the same size?"])
def test_the_ranked_routes_give_what_they_declare(res, question):
    query = res.read(question)
    proposed = 0
    for proposer in registry.proposers(registry.RANKED):
        for candidate in _function(proposer.path)(query, res):
            proposed += 1
            assert candidate.answer.route in proposer.names and candidate.answer_type in proposer.types
            assert set(candidate.answer.signals) <= set(confidence.FEATURES[candidate.answer.route])
    assert proposed
