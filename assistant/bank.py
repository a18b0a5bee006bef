"""The question bank (issue 34): every answer unit described by the questions people ask about it.

The bank is data (``assistant/data/bank/*.jsonl``): each entry is a question, the unit id it asks
about (``assistant/units.py``), the slots the question names, its style and the batch that wrote
it. A new question is compared with the bank's questions by the index's model (question with
question is what the model does best); its nearest entries vote for units. The bank never holds
an answer: the unit is answered for the asker's own slots (``assistant/unit_answers.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

BANK_DIR = Path(__file__).parent / "data" / "bank"
CACHE_NAME = "bank.npz"  # the entries' vectors, beside the index (keyed by model and questions)
STYLES = frozenset({"resident", "formal", "staff_memo", "keywords", "typo", "long_story", "yes_no", "wrong_premise",
                    "jargon", "unit_conversion", "dev", "logged"})
SLOT_NAMES = frozenset({"district", "use", "numbers"})
# Not a unit: a question the loaded documents do not answer (dev's declined questions). Its vote says
# so to the ranker; nothing is ever composed from it.
DECLINE = "decline:not_answered"


class BankError(ValueError):
    """A bank file that cannot be read; the message names the file and the line."""


@dataclass(frozen=True)
class Entry:
    question: str
    unit: str
    slots: dict = field(default_factory=dict, compare=False, hash=False)
    style: str = ""
    batch: str = ""

    def to_dict(self) -> dict:
        return {"question": self.question, "unit": self.unit, "slots": self.slots, "style": self.style,
                "batch": self.batch}


def question_key(text: str) -> str:
    """A question as the bank compares wordings: case and spacing folded."""
    return " ".join(str(text).lower().split())


@dataclass(frozen=True)
class Vote:
    """One unit's share of a question's nearest bank entries."""

    unit: str
    similarity: float  # cosine of its nearest entry
    support: float  # summed similarity of its entries among the nearest
    entries: int  # how many of the nearest are its
    nearest: str  # the bank question nearest (shown to staff, never answered from)


def parse_entry(obj: object, where: str) -> Entry:
    if not isinstance(obj, dict):
        raise BankError(f"{where}: an entry is a JSON object")
    question, unit = obj.get("question"), obj.get("unit")
    if not isinstance(question, str) or not question.strip():
        raise BankError(f"{where}: 'question' must be a non-empty string")
    if not isinstance(unit, str) or ":" not in unit:
        raise BankError(f"{where}: 'unit' must be a unit id such as 'provision:17.64.080(A)(1)'")
    slots = obj.get("slots", {})
    if not isinstance(slots, dict) or set(slots) - SLOT_NAMES:
        raise BankError(f"{where}: 'slots' must be an object with keys among {sorted(SLOT_NAMES)}")
    style = obj.get("style", "")
    if style not in STYLES:
        raise BankError(f"{where}: style {style!r} is not one of {sorted(STYLES)}")
    return Entry(" ".join(question.split()), unit, slots, style, str(obj.get("batch", "")))


def read_file(path: Path) -> list[Entry]:
    entries = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise BankError(f"{path}: cannot be read ({error})") from error
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as error:
            raise BankError(f"{path}, line {number}: not JSON ({error})") from error
        entries.append(parse_entry(obj, f"{path}, line {number}"))
    return entries


def load(folder: Path = BANK_DIR) -> tuple[Entry, ...]:
    """Every entry of the bank files in ``folder`` (file name order), a repeated question kept once."""
    seen: dict[str, Entry] = {}
    for path in sorted(Path(folder).glob("*.jsonl")):
        for entry in read_file(path):
            seen.setdefault(question_key(entry.question), entry)
    return tuple(seen.values())


def batches_hash(batches: Iterable[str], folder: Path | None = None) -> str:
    """The hash of the entries of bank ``batches`` (what a model trained on them is stale against)."""
    import hashlib

    wanted = set(batches)
    chosen = sorted(json.dumps([e.question, e.unit, e.batch], ensure_ascii=False)
                    for e in load(folder if folder is not None else BANK_DIR) if e.batch.split("-")[0] in wanted)
    return hashlib.sha256("\n".join(chosen).encode()).hexdigest()[:16]


class Bank:
    """The entries and their unit vectors; ``votes`` for a question's vector."""

    def __init__(self, entries: Sequence[Entry], vectors):
        import numpy as np

        self.entries = tuple(entries)
        self.vectors = np.asarray(vectors, dtype="float32")
        self.units = tuple(e.unit for e in self.entries)
        self.row_of = {question_key(e.question): i for i, e in enumerate(self.entries)}

    def __len__(self) -> int:
        return len(self.entries)

    def votes(self, query_vector, k: int, left_out: Iterable[str] = ()) -> list[Vote]:
        """The units of the ``k`` nearest entries, best first (by nearest similarity, then support).
        ``left_out``: questions whose entries do not vote (a dev question's paraphrase group, or a bank
        question itself, when it is scored)."""
        import numpy as np

        if not self.entries:
            return []
        query = np.asarray(query_vector, dtype="float32")
        query = query / max(float(np.linalg.norm(query)), 1e-9)
        sims = self.vectors @ query
        skipped = {self.row_of[key] for key in map(question_key, left_out) if key in self.row_of}
        if skipped:
            sims = sims.copy()
            sims[list(skipped)] = -2.0
        # The k nearest without sorting the whole bank; among them, by similarity then entry order.
        near = np.argpartition(-sims, k - 1)[:k] if k < len(sims) else np.arange(len(sims))
        top = sorted(near.tolist(), key=lambda i: (-float(sims[i]), i))
        found: dict[str, list] = {}
        for i in top:
            if sims[i] <= -1.5:
                continue
            unit = self.units[i]
            vote = found.setdefault(unit, [float(sims[i]), 0.0, 0, self.entries[i].question])
            vote[1] += float(sims[i])
            vote[2] += 1
        votes = [Vote(unit, s, support, n, q) for unit, (s, support, n, q) in found.items()]
        return sorted(votes, key=lambda v: (-v.similarity, -v.support, v.unit))


def margin(votes: Sequence[Vote]) -> float:
    """How far the first unit's nearest entry is above the next unit's (1.0 when it stands alone)."""
    if not votes:
        return 0.0
    return votes[0].similarity - votes[1].similarity if len(votes) > 1 else 1.0


LOGGED = "logged.jsonl"  # questions staff added from the question log (``python -m assistant bank-add``)


def add_entry(question: str, unit_id: str, known_units: Iterable[str], slots: dict | None = None,
              batch: str = "staff", folder: Path = BANK_DIR) -> Entry:
    """Add one logged question to the bank for a unit: the unit must exist, the question must be new.
    The file is rewritten whole and replaced, so a failure leaves it as it was."""
    text = " ".join(str(question).split())
    if not text:
        raise BankError("the question is empty")
    if unit_id not in set(known_units):
        raise BankError(f"unit {unit_id!r} is not a unit of the loaded corpus (python -m assistant units lists them)")
    if any(question_key(e.question) == question_key(text) for e in load(folder)):
        raise BankError(f"the bank already holds the question {text!r}")
    entry = parse_entry({"question": text, "unit": unit_id, "slots": slots or {}, "style": "logged", "batch": batch},
                        "the new entry")
    from ingest.corpus_writes import write_atomic

    path = Path(folder) / LOGGED
    try:
        old = path.read_text(encoding="utf-8") if path.is_file() else ""
        write_atomic(path, old + json.dumps(entry.to_dict(), ensure_ascii=False) + "\n")
    except OSError as error:
        raise BankError(f"{path}: cannot be written ({error})") from error
    return entry
