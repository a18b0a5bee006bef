"""The regression record (``eval/baseline.json``): figures the evaluation must not fall below.

Gated, for each question set (``dev`` and ``test``): ``accuracy`` and ``abstention_recall`` must
not fall, ``wrong_rate`` must not rise. ``check`` lists the figures that moved the wrong way;
``updated`` moves the record to better figures, and to worse ones only with ``force=True``
(which belongs in a commit of its own saying why).
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
GATED = ("accuracy", "wrong_rate", "abstention_recall")
LOWER_IS_BETTER = frozenset({"wrong_rate"})
TOLERANCE = 1e-9  # float noise only: a figure equal to the record passes

RECORDED_COMMENT = (
    "Regression record: tests/test_eval_gate.py (slow) fails when accuracy or abstention recall falls, "
    "or the wrong-answer rate rises, on dev or test. Move it with `python -m eval --update-baseline`; "
    "to a worse figure only with `--force`, in a commit of its own."
)


def _valid_figure(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 0.0 <= value <= 1.0


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
    if not isinstance(data, dict) or not isinstance(data.get("sets"), dict) or not data["sets"]:
        raise InputError(f"{shown}: needs a 'sets' object with the figures of each question set")
    for name, figures in data["sets"].items():
        if not isinstance(figures, dict):
            raise InputError(f"{shown}: sets.{name} must be an object")
        for key in GATED:
            if not _valid_figure(figures.get(key)):
                raise InputError(f"{shown}: sets.{name}.{key} must be a number from 0 to 1")
    return data


def _worse(key: str, got: float, want: float) -> bool:
    return got > want + TOLERANCE if key in LOWER_IS_BETTER else got < want - TOLERANCE


def _better(key: str, got: float, want: float) -> bool:
    return _worse(key, want, got)


def check(summaries: dict[str, dict[str, Any]], record: dict[str, Any]) -> list[str]:
    """One message per gated figure of a recorded set that moved the wrong way (or was not measured)."""
    failures = []
    for name, figures in record["sets"].items():
        summary = summaries.get(name)
        for key in GATED:
            want = float(figures[key])
            got = None if summary is None else summary.get(key)
            if got is None:
                failures.append(f"{name} {key}: not measured (recorded {want:.4f})")
            elif _worse(key, got, want):
                sign = ">" if key in LOWER_IS_BETTER else "<"
                failures.append(f"{name} {key}: {got:.4f} {sign} recorded {want:.4f}")
    return failures


def digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def updated(
    record: dict[str, Any],
    summaries: dict[str, dict[str, Any]],
    *,
    force: bool = False,
    digests: dict[str, str] | None = None,
    today: str | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The new record and one line per change. Without ``force`` a figure only gets better."""
    new = json.loads(json.dumps(record))
    changes = []
    for name, summary in summaries.items():
        figures = new["sets"].setdefault(name, {})
        for key in GATED:
            got = summary.get(key)
            if got is None:
                raise EvalError(f"cannot update the baseline: {name} {key} was not measured")
            old = figures.get(key)
            if old is None or _better(key, got, float(old)) or (force and _worse(key, got, float(old))):
                figures[key] = got
                changes.append(f"{name} {key}: {'none' if old is None else f'{float(old):.4f}'} -> {got:.4f}")
            elif _worse(key, got, float(old)):
                changes.append(f"{name} {key}: {got:.4f} is worse than the record {float(old):.4f}; kept (use --force)")
        figures["questions"] = summary.get("questions")
        if digests and name in digests:
            figures["sha256"] = digests[name]
    if any("->" in c for c in changes):
        new["comment"] = RECORDED_COMMENT
        new["recorded"] = today or _dt.date.today().isoformat()
    return new, changes


def save(path: str | Path, record: dict[str, Any]) -> None:
    ordered = {k: record[k] for k in ("comment", "sets", "recorded") if k in record}
    ordered.update({k: v for k, v in record.items() if k not in ordered})
    atomic.write_text(path, json.dumps(ordered, indent=2) + "\n")
