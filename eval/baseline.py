"""The regression record (``eval/baseline.json``): figures the evaluation must not fall below.

Gated metrics: ``answer_accuracy``, ``citation_recall``, ``abstention_accuracy``. ``check``
lists the ones below the record; ``updated`` raises the record to the new figures, and lowers
one only with ``force=True``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from pathlib import Path
from typing import Any

from . import atomic
from .gold import EvalError, InputError, display_path

DEFAULT_BASELINE = Path(__file__).resolve().parent / "baseline.json"
GATED = ("answer_accuracy", "citation_recall", "abstention_accuracy")
TOLERANCE = 1e-9  # float noise only: a figure equal to the record passes

RECORDED_COMMENT = (
    "Regression record: tests/test_eval_gate.py (slow) fails when a gated figure falls below this. "
    "Raise it with `python -m eval --update-baseline`; lower it only with `--force`."
)


def load(path: str | Path = DEFAULT_BASELINE) -> dict[str, Any]:
    shown = display_path(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{shown}: baseline file not found") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{shown}: not a valid JSON file ({e})") from None
    except OSError as e:
        raise InputError(f"{shown}: cannot read ({e.strerror or e})") from None
    if not isinstance(data, dict):
        raise InputError(f"{shown}: not a JSON object")
    for key in GATED:
        value = data.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise InputError(f"{shown}: {key!r} must be a number from 0 to 1")
    return data


def check(summary: dict[str, Any], record: dict[str, Any]) -> list[str]:
    """One message per gated metric that is below the record (or was not measured)."""
    failures = []
    for key in GATED:
        got = summary.get(key)
        want = float(record[key])
        if got is None:
            failures.append(f"{key}: not measured (recorded {want:.4f})")
        elif got < want - TOLERANCE:
            failures.append(f"{key}: {got:.4f} < recorded {want:.4f}")
    return failures


def gold_digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def updated(
    record: dict[str, Any],
    summary: dict[str, Any],
    *,
    force: bool = False,
    gold_sha256: str | None = None,
    today: str | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The new record and one line per change. Without ``force`` a figure only goes up."""
    new = dict(record)
    changes = []
    for key in GATED:
        got = summary.get(key)
        if got is None:
            raise EvalError(f"cannot update the baseline: {key} was not measured")
        old = float(record[key])
        if got > old + TOLERANCE or (force and got < old - TOLERANCE):
            new[key] = got
            changes.append(f"{key}: {old:.4f} -> {got:.4f}")
        elif got < old - TOLERANCE:
            changes.append(f"{key}: {got:.4f} is below the record {old:.4f}; kept (use --force to lower it)")
    if any("->" in c for c in changes):
        new["comment"] = RECORDED_COMMENT
        new["questions"] = summary.get("questions")
        if gold_sha256 is not None:
            new["gold_sha256"] = gold_sha256
        new["recorded"] = today or _dt.date.today().isoformat()
    return new, changes


def save(path: str | Path, record: dict[str, Any]) -> None:
    ordered = {k: record[k] for k in ("comment", *GATED, "questions", "gold_sha256", "recorded") if k in record}
    ordered.update({k: v for k, v in record.items() if k not in ordered})
    atomic.write_text(path, json.dumps(ordered, indent=2) + "\n")
