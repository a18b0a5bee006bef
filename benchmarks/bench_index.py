"""Benchmark of the hybrid index (a script, not a test).

    .venv/bin/python benchmarks/bench_index.py [--index-dir DIR] [--model SPEC] [--json]

Measures, in one run:
  * build time of a fresh index in a temp dir (chunking, model load, embedding, writing);
    with --index-dir the existing index is used and the build is skipped;
  * cold load, in a fresh subprocess: opening the stored index, then loading the model and
    embedding one query (``Searcher.warm``);
  * search latency p50/p95 per mode (bm25, dense, hybrid) once loaded, and the query-embedding
    time alone on the same queries, with the ratio hybrid / embedding;
  * peak RSS (resource.getrusage) of this process and of the cold-load subprocess;
  * retrieval quality on eval/dev.jsonl if it exists: Recall@5 and MRR@10 per mode. Hits are
    collapsed to sections in rank order (first occurrence wins; 50 hits fetched) and compared with
    ``expected_sections``; out-of-scope questions (no expected sections) are skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOLD = ROOT / "eval" / "dev.jsonl"
MODES = ("bm25", "dense", "hybrid")
FALLBACK_QUERIES = [
    "Can I build a granny unit in my backyard?",
    "cell tower near my house",
    "how tall can my fence be",
    "parking spaces for a restaurant",
    "bar on East Cotati Avenue",
    "What is the TOC district?",
    "17.44.065",
    "Table 3-7",
    "who approves a use permit",
    "minimum parcel size in the NM district",
]


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0  # KiB on Linux


def load_gold(path: Path) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
    return rows


def section_ranking(hits) -> list[str]:
    out: list[str] = []
    for h in hits:
        if h.section not in out:
            out.append(h.section)
    return out


def quality(searcher, gold: list[dict]) -> dict:
    answerable = [g for g in gold if g.get("expected_sections") and g.get("category") != "out_of_scope"]
    result: dict = {"questions": len(answerable)}
    per_cat: dict = {}
    for mode in MODES:
        recalls, rrs = [], []
        for g in answerable:
            expected = set(g["expected_sections"])
            ranked = section_ranking(searcher.search(g["question"], k=50, mode=mode))
            recalls.append(len(expected & set(ranked[:5])) / len(expected))
            rr = next((1.0 / i for i, s in enumerate(ranked[:10], 1) if s in expected), 0.0)
            rrs.append(rr)
            cat = per_cat.setdefault(g.get("category", ""), {}).setdefault(mode, [[], []])
            cat[0].append(recalls[-1])
            cat[1].append(rr)
        result[mode] = {"recall@5": statistics.fmean(recalls), "mrr@10": statistics.fmean(rrs)}
    result["by_category"] = {
        cat: {m: {"n": len(v[0]), "recall@5": statistics.fmean(v[0]), "mrr@10": statistics.fmean(v[1])} for m, v in modes.items()}
        for cat, modes in sorted(per_cat.items())
    }
    return result


COLD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
def hwm_mb():
    # VmHWM: this process's own peak (getrusage's ru_maxrss carries the parent's peak over fork)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
from pathlib import Path
from index import store
from index.corpus import source_fingerprint
from index.search import Searcher
# what open_index does for a fresh index: settings, corpus fingerprint, manifest and checksums,
# parse the files (the corpus comparison is skipped: the benchmark may index extra table rows)
path = Path({path!r})
settings = store.index_settings({model!r})
source_fingerprint()
check = store.check_index(path, settings)
assert check.ok, check.reason
s = Searcher(path, store.load_files(path, check.manifest), {model!r}, 0.0)
t1 = time.perf_counter()
s.search("fence height", k=10, mode="bm25")
t2 = time.perf_counter()
s.warm()
t3 = time.perf_counter()
s.search("fence height", k=10, mode="hybrid")
t4 = time.perf_counter()
print(json.dumps({{"open_s": t1 - t0, "first_bm25_s": t2 - t1, "model_load_and_first_embed_s": t3 - t2,
                  "first_hybrid_after_warm_s": t4 - t3, "total_s": t4 - t0,
                  "peak_rss_mb": hwm_mb()}}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index-dir", help="use this existing index instead of building a fresh one")
    ap.add_argument("--model", default=None)
    ap.add_argument("--gold", default=str(GOLD))
    ap.add_argument("--max-queries", type=int, default=200, help="queries used for latency (default 200)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("--with-tables", action="store_true",
                    help="also index table rows parsed by ingest.tables (what the default corpus will do once wired)")
    args = ap.parse_args()

    from index import dense, open_index, store
    from index.corpus import default_corpus, table_rows_from_cells

    corpus = None
    if args.with_tables:
        from ingest.tables import load_tables

        base = default_corpus()
        corpus = type(base)(sections=base.sections, table_rows=table_rows_from_cells(load_tables().effective))

    report: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    tmp = None
    if args.index_dir:
        path = Path(args.index_dir)
        searcher = open_index(path, model=args.model, corpus=corpus)
        report["build"] = {"skipped": True, "path": str(path)}
    else:
        tmp = tempfile.TemporaryDirectory(prefix="bench-index-")
        path = Path(tmp.name) / "index"
        t0 = time.perf_counter()
        searcher = open_index(path, model=args.model, corpus=corpus)
        build_s = time.perf_counter() - t0
        enc = dense.get_encoder(args.model)
        report["build"] = {
            "seconds": build_s,
            "model_load_seconds": getattr(enc, "load_seconds", 0.0),
            "chunks": searcher.manifest["counts"]["chunks"],
            "sections": searcher.manifest["corpus"]["sections"],
            "table_rows": searcher.manifest["corpus"]["table_rows"],
        }
    print(f"index: {path} ({len(searcher.chunks)} chunks)", file=sys.stderr)

    # cold load in a fresh process (imports included: that is what a restart costs)
    cold = subprocess.run(
        [sys.executable, "-c", COLD.format(root=str(ROOT), path=str(path), model=args.model)],
        capture_output=True, text=True, timeout=600,
    )
    report["cold_load"] = json.loads(cold.stdout) if cold.returncode == 0 else {"error": cold.stderr.strip()[-500:]}

    gold = load_gold(Path(args.gold)) if Path(args.gold).is_file() else []
    queries = [g["question"] for g in gold][: args.max_queries] or FALLBACK_QUERIES
    searcher.warm()
    enc = searcher.encoder
    for q in queries[:5]:  # let allocator and caches settle
        searcher.search(q, k=10, mode="hybrid")

    # every query runs through all four measurements back to back, in rotating order, so that
    # background load on the machine hits each of them alike (the ratio is then meaningful)
    lat: dict = {}
    timings: dict[str, list[float]] = {name: [] for name in ("embed", *MODES)}

    def run(name: str, q: str) -> None:
        t = time.perf_counter()
        if name == "embed":
            enc.encode([q], batch_size=1)
        else:
            searcher.search(q, k=10, mode=name)
        timings[name].append((time.perf_counter() - t) * 1000)

    names = ["embed", *MODES]
    for i, q in enumerate(queries):
        for j in range(len(names)):
            run(names[(i + j) % len(names)], q)
    embed_ms = timings["embed"]
    for mode in MODES:
        ms = timings[mode]
        lat[mode] = {"p50_ms": pct(ms, 50), "p95_ms": pct(ms, 95), "mean_ms": statistics.fmean(ms)}
    lat["query_embedding"] = {"p50_ms": pct(embed_ms, 50), "p95_ms": pct(embed_ms, 95), "mean_ms": statistics.fmean(embed_ms)}
    lat["hybrid_over_embedding_p50"] = lat["hybrid"]["p50_ms"] / lat["query_embedding"]["p50_ms"]
    lat["hybrid_minus_embedding_p50_ms"] = lat["hybrid"]["p50_ms"] - lat["query_embedding"]["p50_ms"]
    lat["queries"] = len(queries)
    report["latency"] = lat

    if gold:
        report["quality"] = quality(searcher, gold)
    else:
        report["quality"] = {"skipped": f"no gold set at {args.gold}"}
    report["peak_rss_mb"] = {"this_process": peak_rss_mb(), "cold_load_process": report["cold_load"].get("peak_rss_mb")}

    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_report(report)
    if tmp:
        tmp.cleanup()
    return 0


def print_report(r: dict) -> None:
    b, c, lat = r["build"], r["cold_load"], r["latency"]
    print(f"machine: {r['machine']['cpus']} CPUs, Python {r['machine']['python']}")
    if b.get("skipped"):
        print(f"build: skipped (existing index {b['path']})")
    else:
        print(f"build: {b['seconds']:.1f} s for {b['sections']} sections + {b['table_rows']} table rows -> {b['chunks']} chunks (model load {b['model_load_seconds']:.1f} s)")
    if "error" in c:
        print(f"cold load: failed: {c['error']}")
    else:
        print(
            f"cold load (fresh process): open index {c['open_s']*1000:.0f} ms; first bm25 search {c['first_bm25_s']*1000:.1f} ms; "
            f"model import+load+first embedding {c['model_load_and_first_embed_s']:.1f} s; total {c['total_s']:.1f} s"
        )
    print(f"latency over {lat['queries']} queries, k=10 (once loaded):")
    for mode in (*MODES, "query_embedding"):
        print(f"  {mode:16} p50 {lat[mode]['p50_ms']:7.2f} ms   p95 {lat[mode]['p95_ms']:7.2f} ms")
    print(f"  hybrid / query embedding (p50): {lat['hybrid_over_embedding_p50']:.2f}x; "
          f"hybrid minus embedding: {lat['hybrid_minus_embedding_p50_ms']:.2f} ms")
    rss = r["peak_rss_mb"]
    print(f"peak RSS: {rss['this_process']:.0f} MB (this process, incl. build), cold-load process {rss['cold_load_process'] or float('nan'):.0f} MB")
    q = r["quality"]
    if "skipped" in q:
        print(f"quality: skipped ({q['skipped']})")
        return
    print(f"quality on {q['questions']} answerable gold questions (section level):")
    for mode in MODES:
        print(f"  {mode:7} Recall@5 {q[mode]['recall@5']:.3f}   MRR@10 {q[mode]['mrr@10']:.3f}")
    print("  by category (Recall@5 bm25 / dense / hybrid):")
    for cat, modes in q["by_category"].items():
        vals = " / ".join(f"{modes[m]['recall@5']:.2f}" for m in MODES)
        print(f"    {cat:16} n={modes['hybrid']['n']:3}  {vals}")


if __name__ == "__main__":
    sys.exit(main())
