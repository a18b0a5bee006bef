"""Leak checks between the sealed test set and what the team tunes (eval/leaks.py): hermetic unit
tests on small synthetic sets, and one slow check of the shipped project with the real model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from eval import leaks

ROOT = Path(__file__).resolve().parents[1]


def test_a_vocabulary_phrase_added_after_the_freeze_and_seen_only_in_test_is_a_leak():
    tests = ["can I run a burger joint downtown?"]
    corpus = "Restaurant, cafe, coffee shop"
    found = leaks.vocabulary_leaks(["burger joint", "coffee shop", "granny unit"], ["granny unit"], tests, corpus, [])
    assert found == ["burger joint"]
    # a phrase a dev question uses, or the corpus prints, came from elsewhere
    assert leaks.vocabulary_leaks(["burger joint"], [], tests, corpus, ["where can a burger joint open"]) == []
    assert leaks.vocabulary_leaks(["coffee shop"], [], ["a coffee shop in CD?"], corpus, []) == []
    # frozen phrases were in the vocabulary before the test set existed
    assert leaks.vocabulary_leaks(["granny unit"], ["granny unit"], ["granny unit in NL?"], corpus, []) == []


def test_near_duplicates_by_content_words_and_by_cosine():
    dev = [("q1", "How tall can my fence be?"), ("q2", "how tall can MY fences be"), ("q3", "Is a gym allowed in CD?")]
    test = ["How tall can my fence be"]
    assert leaks.near_duplicates(dev, test) == ["q1", "q2"]  # the same content words, plural folded

    def encode(texts):  # a fake encoder: gyms one way, kennels at cosine 0.8 from the rest
        def vector(t):
            return [1.0, 0.0] if "gym" in t.lower() else [0.6, 0.8] if "kennel" in t.lower() else [0.0, 1.0]
        return np.array([vector(t) for t in texts], dtype=np.float32)

    assert leaks.near_duplicates(dev, ["can a gym open downtown"], encode) == ["q3"]
    assert leaks.near_duplicates([("q9", "what is a kennel")], ["how tall can a fence be"], encode) == []


def test_files_that_contain_a_test_question(tmp_path):
    (tmp_path / "a.py").write_text('QUESTION = "Can I open a bar on East Cotati Avenue, please?"\n', encoding="utf-8")
    (tmp_path / "b.py").write_text("nothing here\n", encoding="utf-8")
    found = leaks.files_with(sorted(tmp_path.iterdir()), ["can I open a bar on east cotati avenue please", "a bar?"])
    assert found == [str(tmp_path / "a.py")]


def test_vocabulary_phrases_come_from_the_data_files():
    phrases = leaks.vocabulary_phrases(ROOT)
    assert "granny unit" in phrases and all(not p.startswith("_") for p in phrases)


def test_the_freeze_records_the_vocabulary_and_checksum():
    freeze = json.loads((ROOT / "eval" / "test_freeze.json").read_text(encoding="utf-8"))
    assert freeze["vocabulary"] and len(freeze["sha256"]) == 64


@pytest.mark.slow
def test_the_shipped_sets_do_not_leak():
    """The CI leak check: no late vocabulary seen only in test, no dev question that nearly copies a
    test question (content words or real-model cosine >= 0.9), no test question in tests/ or
    assistant/. Its output never names a test item."""
    proc = subprocess.run([sys.executable, "-m", "eval", "leaks"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.strip().endswith("leak check: clean")
