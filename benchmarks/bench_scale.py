"""How each retrieval backend grows with the corpus: build time, hybrid query p50/p95, peak RSS.

Synthetic corpora, generated rather than embedded by the model: each chunk is 120 tokens drawn
from a Zipf distribution over a 50,000-word vocabulary (exponent 1.1, like word frequencies in
prose) and a random 384-d unit vector (MiniLM's size). Each (backend, size) runs in its own child
process, so its peak RSS is its own; "data" is the RSS once the corpus is generated, before the
backend builds anything. The query is what ``Searcher`` asks of a backend for a hybrid search:
``backend.hybrid(corpus, tokens, vector, fetch=50)`` with 5 Zipf-drawn tokens and a random vector.

    .venv/bin/python benchmarks/bench_scale.py                         # 10k, 100k, 300k; both backends
    .venv/bin/python benchmarks/bench_scale.py --sizes 10000,100000 --backends builtin
    COTATI_QDRANT_URL=http://host:6333 .venv/bin/python benchmarks/bench_scale.py   # a Qdrant server

The qdrant backend runs in qdrant-client's local mode (a temp folder) unless COTATI_QDRANT_URL is
set. Local mode is the client's in-process Python implementation, brute force over every point,
not the Qdrant server: its figures say nothing about a server's. A query budget
(``--query-seconds``) stops timing queries early when one backend is slow; the table says how
many were timed. Prints figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DIM = 384
TOKENS_PER_CHUNK = 120
VOCABULARY = 50_000
ZIPF_EXPONENT = 1.1
QUERY_TOKENS = 5
FETCH = 50  # Searcher's candidates per list for k <= 10


def _rss_mb() -> float:
    """Peak resident set size of this process so far, MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _current_rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def synthetic(n: int, seed: int = 0):
    """``n`` Entries: Zipf tokens and random unit vectors (deterministic for a seed)."""
    import numpy as np

    from index.backend import Entry

    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(VOCABULARY)]
    p = 1.0 / np.arange(1, VOCABULARY + 1) ** ZIPF_EXPONENT
    p /= p.sum()
    draws = rng.choice(VOCABULARY, size=(n, TOKENS_PER_CHUNK), p=p)
    vectors = rng.standard_normal((n, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    entries = [Entry(f"c{i:07d}", f"d{i // 100:05d}", tuple(words[t] for t in draws[i]), vectors[i]) for i in range(n)]
    return entries, words, p


def queries(words, p, count: int, seed: int = 1):
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        v = rng.standard_normal(DIM).astype(np.float32)
        out.append(([words[t] for t in rng.choice(len(words), size=QUERY_TOKENS, p=p)], v / np.linalg.norm(v)))
    return out


def _backend(name: str, folder: str):
    if name == "builtin":
        from index.builtin_backend import BuiltinBackend

        return BuiltinBackend(k1=1.2, b=0.75)
    from index.qdrant_backend import QdrantBackend

    return QdrantBackend(path=folder, collection="bench_scale")


def child(backend_name: str, n: int, count: int, budget: float) -> dict:
    """One (backend, size): build, then time queries until ``count`` or ``budget`` seconds."""
    entries, words, p = synthetic(n)
    data_mb = _current_rss_mb()
    with tempfile.TemporaryDirectory() as folder:
        backend = _backend(backend_name, folder)
        t0 = time.perf_counter()
        backend.build("bench", entries)
        build_s = time.perf_counter() - t0
        del entries
        times = []
        started = time.perf_counter()
        for tokens, vector in queries(words, p, count):
            t = time.perf_counter()
            backend.hybrid("bench", tokens, vector, FETCH)
            times.append((time.perf_counter() - t) * 1000)
            if time.perf_counter() - started > budget:
                break
        backend.close()
    times.sort()
    return {"backend": backend_name, "chunks": n, "build_s": build_s, "queries": len(times),
            "p50_ms": times[(len(times) - 1) // 2], "p95_ms": times[max(0, -(-95 * len(times) // 100) - 1)],
            "data_mb": data_mb, "peak_mb": _rss_mb()}


def table(rows: list[dict]) -> str:
    out = ["| backend | chunks | build s | hybrid p50 ms | hybrid p95 ms | queries timed | RSS after data MB | peak RSS MB |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['backend']} | {r['chunks']:,} | failed: {r['error']} | | | | | |")
            continue
        out.append(f"| {r['backend']} | {r['chunks']:,} | {r['build_s']:.1f} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | "
                   f"{r['queries']} | {r['data_mb']:.0f} | {r['peak_mb']:.0f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sizes", default="10000,100000,300000", help="comma-separated corpus sizes in chunks")
    ap.add_argument("--backends", default="builtin,qdrant", help="comma-separated: builtin, qdrant")
    ap.add_argument("--queries", type=int, default=50, help="hybrid queries timed per run (default 50)")
    ap.add_argument("--query-seconds", type=float, default=120.0, help="stop timing queries after this long")
    ap.add_argument("--child", nargs=2, metavar=("BACKEND", "SIZE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), args.queries, args.query_seconds)))
        return 0
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        for name in args.backends.split(","):
            r = subprocess.run([sys.executable, __file__, "--child", name, str(n), "--queries", str(args.queries),
                                "--query-seconds", str(args.query_seconds)], capture_output=True, text=True)
            if r.returncode:
                rows.append({"backend": name, "chunks": n, "error": (r.stderr.strip().splitlines() or ["?"])[-1][:80]})
            else:
                rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    where = os.environ.get("COTATI_QDRANT_URL") and "a Qdrant server" or "qdrant-client local mode"
    print(f"{time.strftime('%Y-%m-%d')}, {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; qdrant backend: {where}")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
