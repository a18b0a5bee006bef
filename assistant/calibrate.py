"""``python -m assistant calibrate``: fit the confidence model and the answering threshold on dev.

Answers every dev question with the uncalibrated assistant, judges each answer with the
evaluation's strict scorer, fits one logistic model per route on the route's signals, and picks
the lowest threshold at which wrong answers stay within ``--max-wrong-rate`` of the dev
questions. Writes ``assistant/data/calibration.json`` atomically. The test set is never read.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import defaultdict
from pathlib import Path

from .confidence import CALIBRATION, FEATURES, Calibration, choose_threshold, fit_route

MAX_WRONG_RATE = 0.03  # of the dev questions (issue 11: a wrong-answer rate of at most 3%)


def calibrate(max_wrong_rate: float = MAX_WRONG_RATE, path: Path = CALIBRATION, progress=None) -> Calibration:
    from eval.gold import SETS, load_gold
    from eval.records import parse_answer
    from eval.score import ABSTAINED, judge_answer

    from .service import load_assistant

    assistant = load_assistant(calibrated=False)
    items = load_gold(SETS["dev"])
    rows: dict[str, list[tuple[dict, bool]]] = defaultdict(list)
    for number, item in enumerate(items, 1):
        answer = assistant.ask(item.question)
        judgement = judge_answer(item, parse_answer(answer.to_dict(), item.id))
        if judgement.outcome != ABSTAINED and not answer.abstained:
            rows[answer.route].append((dict(answer.signals), judgement.correct))
        if progress:
            progress(number, len(items))
    models = {route: fit_route(found, FEATURES[route]) for route, found in sorted(rows.items())
              if route in FEATURES and len(found) >= 5}
    unthresholded = Calibration(0.0, models)
    # Every answer counts towards the wrong-answer rate, routes without a model by their prior.
    scored = [(confidence, right) for route, found in rows.items() for signals, right in found
              if (confidence := unthresholded.confidence(route, signals)) is not None]
    threshold = choose_threshold(scored, len(items), max_wrong_rate)
    kept = [right for confidence, right in scored if confidence >= threshold]
    fitted_on = {
        "set": "dev",
        "questions": len(items),
        "max_wrong_rate": max_wrong_rate,
        "answers_by_route": {route: len(found) for route, found in sorted(rows.items())},
        "kept_answers": len(kept),
        "kept_right": sum(kept),
        "kept_wrong": len(kept) - sum(kept),
    }
    calibration = Calibration(threshold, models, fitted_on)
    _write_json(path, calibration.to_json())
    return calibration


def _write_json(path: Path, data: dict) -> None:
    path = Path(path)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json.dumps(data, indent=2, sort_keys=False) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
