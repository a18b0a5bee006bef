"""Leak checks between the sealed test set and what the team tunes (issue 24).

Three ways a test set stops predicting unseen questions, each checked without showing a test item:
* a vocabulary phrase that appears in test questions, in no corpus line and in no dev question,
  and was not in the vocabulary when the test set was frozen (it can only have come from test);
* a dev question that nearly copies a test question (the same content words, or an embedding
  cosine of ``NEAR_COSINE`` or more): reported by its dev id, so the dev item can go;
* a file under ``tests/`` or ``assistant/`` that contains a test question.
``python -m eval leaks`` prints the findings (never a test question) and exits 1 when there is one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

NEAR_COSINE = 0.9
MIN_QUESTION_CHARS = 20  # shorter test questions ("what is a kennel") are too common to flag in files
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# General-English function words (not content): which words two questions share that say nothing.
STOP = frozenset("""a an the and or of to in on at for from by with about as is are was were be been being do does did
i me my we our you your it its this that these those there here what which who whom whose when where why how can
could would should may might must will shall if so any some all no not than then just also im i'm id i'd ive i've
please tell know want need like get""".split())

Encode = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Findings:
    vocabulary: tuple[str, ...]  # vocabulary phrases seen only in test questions
    near_duplicates: tuple[str, ...]  # dev ids of questions that nearly copy a test question
    files: tuple[str, ...]  # files under tests/ or assistant/ that contain a test question

    @property
    def clean(self) -> bool:
        return not (self.vocabulary or self.near_duplicates or self.files)


def normalized(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def content_words(text: str) -> frozenset[str]:
    """The question's content words, plural -s folded ("permits" and "permit" are one word)."""
    words = (w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in _WORD.findall(text.lower()))
    return frozenset(w for w in words if w not in STOP)


def _contains(haystack: str, phrase: str) -> bool:
    return re.search(r"(?<![a-z0-9])" + re.escape(phrase) + r"(?![a-z0-9])", haystack) is not None


def vocabulary_leaks(phrases: Iterable[str], frozen: Iterable[str], test_questions: Sequence[str],
                     corpus_text: str, dev_questions: Sequence[str]) -> list[str]:
    """Phrases added after the freeze that test questions use and neither the corpus nor dev does."""
    corpus = normalized(corpus_text)
    tests = [normalized(q) for q in test_questions]
    devs = [normalized(q) for q in dev_questions]
    old = {normalized(p) for p in frozen}
    found = []
    for phrase in sorted({normalized(p) for p in phrases} - old):
        if phrase and any(_contains(t, phrase) for t in tests) and not _contains(corpus, phrase) \
                and not any(_contains(d, phrase) for d in devs):
            found.append(phrase)
    return found


def near_duplicates(dev: Sequence[tuple[str, str]], test_questions: Sequence[str], encode: Encode | None = None,
                    threshold: float = NEAR_COSINE) -> list[str]:
    """Ids of dev questions ((id, question) pairs) that share their content words with a test
    question, or whose embedding is within ``threshold`` cosine of one."""
    test_words = {content_words(q) for q in test_questions}
    flagged = {i for i, (_, q) in enumerate(dev) if content_words(q) and content_words(q) in test_words}
    if encode is not None and dev and test_questions:
        d = np.asarray(encode([q for _, q in dev]), dtype=np.float32)
        t = np.asarray(encode(list(test_questions)), dtype=np.float32)
        flagged |= set(np.nonzero((d @ t.T).max(axis=1) >= threshold)[0].tolist())
    return [dev[i][0] for i in sorted(flagged)]


def files_with(paths: Iterable[Path], test_questions: Sequence[str]) -> list[str]:
    """The files whose text contains a test question (whole, normalised; short ones skipped)."""
    wanted = [normalized(q) for q in test_questions if len(q.strip()) >= MIN_QUESTION_CHARS]
    found = []
    for path in paths:
        try:
            text = normalized(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        if any(w and w in text for w in wanted):
            found.append(str(path))
    return found


def check(root: Path, encode: Encode | None = None) -> Findings:
    """Every leak check over the project at ``root`` (its shipped dev set, with its holdout part, and test set)."""
    from .gold import load_gold

    dev = load_gold(root / "eval" / "dev.jsonl")
    holdout = root / "eval" / "holdout.jsonl"
    dev += load_gold(holdout) if holdout.exists() else []  # dev's holdout part is dev too
    test = [item.question for item in load_gold(root / "eval" / "test.jsonl")]
    corpus = "\n".join(p.read_text(encoding="utf-8") for p in sorted((root / "corpus").rglob("*.txt")))
    freeze = json.loads((root / "eval" / "test_freeze.json").read_text(encoding="utf-8"))
    files = [p for folder in ("tests", "assistant") for p in sorted((root / folder).rglob("*"))
             if p.is_file() and p.suffix in {".py", ".json", ".jsonl", ".txt", ".md"}]
    return Findings(
        vocabulary=tuple(vocabulary_leaks(vocabulary_phrases(root), freeze["vocabulary"], test, corpus,
                                          [i.question for i in dev])),
        near_duplicates=tuple(near_duplicates([(i.id, i.question) for i in dev], test, encode)),
        files=tuple(files_with(files, test)),
    )


def vocabulary_phrases(root: Path) -> list[str]:
    """Every phrase of the answer layer's vocabulary files: everyday land-use words, district names
    and places, topic words."""
    data = root / "assistant" / "data"
    land = json.loads((data / "land_uses.json").read_text(encoding="utf-8"))
    districts = json.loads((data / "districts.json").read_text(encoding="utf-8"))
    topics = json.loads((data / "topics.json").read_text(encoding="utf-8"))
    phrases = [p for p in land.get("synonyms", {}) if not p.startswith("_")] + list(land.get("also", {}))
    for d in districts["districts"]:
        phrases += [*d.get("aliases", []), *d.get("places", [])]
    for name, topic in topics["topics"].items():
        if isinstance(topic, dict):
            phrases += [*topic.get("words", []), *topic.get("paired", {}).get("words", [])]
    return sorted({p for p in phrases if isinstance(p, str) and p.strip()})
