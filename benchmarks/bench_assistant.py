"""Benchmark of the answer layer (a script, not a test).

    .venv/bin/python benchmarks/bench_assistant.py [--rounds N] [--json]

With the corpus, tables and index loaded once, measures on the gold questions (eval/dev.jsonl and eval/test.jsonl):
  * answer latency p50/p95 over all questions, and per route (permit, standards, section,
    passage, abstain);
  * batch throughput (questions per second over one pass);
  * the time to embed one query alone (the floor of any answer that searches), measured in the
    same run on the same questions, and the ratio answer p50 / embedding p50.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="passes over the questions")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from assistant.service import load_assistant

    sets = {name: [json.loads(line)["question"] for line in (ROOT / "eval" / f"{name}.jsonl").open(encoding="utf-8")
                   if line.strip()] for name in ("dev", "test")}
    questions = [q for qs in sets.values() for q in qs]
    in_set = {q: name for name, qs in sets.items() for q in qs}
    started = time.perf_counter()
    assistant = load_assistant()
    load_s = time.perf_counter() - started
    searcher = assistant.searcher
    searcher.warm()
    for question in questions[:10]:
        assistant.ask(question)  # warm caches once

    latencies: list[float] = []
    by_route: dict[str, list[float]] = defaultdict(list)
    by_set: dict[str, list[float]] = defaultdict(list)
    embed: list[float] = []
    batch_seconds = []
    for _ in range(args.rounds):
        pass_start = time.perf_counter()
        for question in questions:
            t0 = time.perf_counter()
            answer = assistant.ask(question)
            elapsed = (time.perf_counter() - t0) * 1000
            latencies.append(elapsed)
            by_route[answer.route].append(elapsed)
            by_set[in_set[question]].append(elapsed)
        batch_seconds.append(time.perf_counter() - pass_start)
        for question in questions:
            t0 = time.perf_counter()
            searcher.embed_query(question)
            embed.append((time.perf_counter() - t0) * 1000)

    p50, p95 = percentile(latencies, 50), percentile(latencies, 95)
    embed_p50 = percentile(embed, 50)
    passage = by_route.get("passage", [])
    figures = {
        "questions": len(questions),
        "rounds": args.rounds,
        "load_seconds": round(load_s, 2),
        "answer_ms": {"p50": round(p50, 2), "p95": round(p95, 2)},
        "answer_ms_by_set": {name: {"p50": round(percentile(v, 50), 2), "p95": round(percentile(v, 95), 2)}
                             for name, v in by_set.items()},
        "answer_ms_by_route": {
            route: {"n": len(values) // args.rounds, "p50": round(percentile(values, 50), 2),
                    "p95": round(percentile(values, 95), 2)}
            for route, values in sorted(by_route.items())
        },
        "batch_questions_per_second": round(len(questions) / statistics.median(batch_seconds), 1),
        "embed_query_ms_p50": round(embed_p50, 2),
        "ratio_answer_p50_to_embed_p50": round(p50 / embed_p50, 2),
        "ratio_passage_p50_to_embed_p50": round(percentile(passage, 50) / embed_p50, 2) if passage else None,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:34} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
