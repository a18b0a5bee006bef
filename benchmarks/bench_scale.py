"""How each retrieval backend grows with the corpus: build time, hybrid query p50/p95, reopen to
first query, peak RSS, and (for an approximate engine) dense recall@10 against exact search.

Synthetic corpora, generated rather than embedded by the model: each chunk is 120 tokens drawn
from a Zipf distribution over a 50,000-word vocabulary (exponent 1.1, like word frequencies in
prose) and a 384-d unit vector (MiniLM's size): random (``--vectors random``, the default) or with
the structure real embeddings have (``--vectors lowrank``: a 32-d subspace plus noise, so
neighbours are close and an approximate index has something to find). Each (backend, size) runs in
its own child process, so its peak RSS is its own; "data" is the RSS once the corpus is generated,
before the backend builds anything. The query is what ``Searcher`` asks of a backend for a hybrid
search: ``backend.hybrid(corpus, tokens, vector, fetch=50)`` with 5 Zipf-drawn tokens and a vector
drawn like the chunks'. "Reopen" is what a new process pays before its first answer: builtin
rebuilds its BM25 statistics from the tokens and reads its FAISS file; edge opens its shard.

Backends: ``builtin`` (rank-bm25 + FAISS); ``edge`` (Qdrant Edge in this process, exact dense
search, as the ``qdrant`` backend runs without a server); ``edge-hnsw`` (the same with the
engine's HNSW index, approximate); ``qdrant`` (qdrant-client's local mode, or the server
``COTATI_QDRANT_URL``).

    .venv/bin/python benchmarks/bench_scale.py                         # 10k, 100k, 300k; builtin and edge
    .venv/bin/python benchmarks/bench_scale.py --sizes 10000,100000 --backends builtin,edge,edge-hnsw
    COTATI_QDRANT_URL=http://host:6333 .venv/bin/python benchmarks/bench_scale.py --backends qdrant

Local mode is the client's in-process Python implementation, brute force over every point, not
the Qdrant server: its figures say nothing about a server's. A query budget (``--query-seconds``)
stops timing queries early when one backend is slow; the table says how many were timed. Prints
figures only; nothing is asserted.
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


RANK = 32  # --vectors lowrank: the subspace real embeddings mostly live in, plus NOISE
NOISE = 0.35


def vectors(n: int, kind: str, rng):
    """``n`` unit vectors: ``random`` (uniform on the sphere) or ``lowrank`` (a fixed RANK-d
    subspace with decaying scales, plus isotropic noise: clustered, as sentence embeddings are)."""
    import numpy as np

    if kind == "random":
        v = rng.standard_normal((n, DIM), dtype=np.float32)
    else:
        basis = np.random.default_rng(1234).standard_normal((RANK, DIM)).astype(np.float32)  # the same for chunks and queries
        scales = (1.0 / np.sqrt(np.arange(1, RANK + 1))).astype(np.float32)
        v = (rng.standard_normal((n, RANK), dtype=np.float32) * scales) @ basis / np.sqrt(DIM)
        v += NOISE * rng.standard_normal((n, DIM), dtype=np.float32) / np.sqrt(DIM)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def synthetic(n: int, seed: int = 0, kind: str = "random"):
    """``n`` Entries: Zipf tokens and unit vectors of ``kind`` (deterministic for a seed)."""
    import numpy as np

    from index.backend import Entry

    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(VOCABULARY)]
    p = 1.0 / np.arange(1, VOCABULARY + 1) ** ZIPF_EXPONENT
    p /= p.sum()
    draws = rng.choice(VOCABULARY, size=(n, TOKENS_PER_CHUNK), p=p)
    matrix = vectors(n, kind, rng)
    entries = [Entry(f"c{i:07d}", f"d{i // 100:05d}", tuple(words[t] for t in draws[i]), matrix[i]) for i in range(n)]
    return entries, words, p


def queries(words, p, count: int, seed: int = 1, kind: str = "random"):
    import numpy as np

    rng = np.random.default_rng(seed)
    vs = vectors(count, kind, rng)
    return [([words[t] for t in rng.choice(len(words), size=QUERY_TOKENS, p=p)], vs[i]) for i in range(count)]


def _backend(name: str, folder: str):
    if name == "builtin":
        from index.builtin_backend import BuiltinBackend

        return BuiltinBackend(k1=1.2, b=0.75)
    if name in ("edge", "edge-hnsw"):
        from index.qdrant_edge_backend import EdgeBackend

        return EdgeBackend(folder, exact=name == "edge")
    from index.qdrant_backend import QdrantBackend

    if os.environ.get("COTATI_QDRANT_URL"):
        return QdrantBackend(collection="bench_scale")
    return QdrantBackend(path=folder, collection="bench_scale")


def _reopen(name: str, backend, folder: str, entries):
    """(a backend as a new process would open it, seconds it took) once ``backend`` is built."""
    if name == "builtin":
        from index import dense
        from index.builtin_backend import BuiltinBackend

        path = Path(folder) / "dense.faiss"
        dense.write_faiss(backend.faiss_of("bench"), path)
        ids, docs, tokens = zip(*[(e.id, e.document, e.tokens) for e in sorted(entries, key=lambda e: e.id)])
        backend.close()
        t0 = time.perf_counter()
        reopened = BuiltinBackend(k1=1.2, b=0.75)
        reopened.attach("bench", ids, docs, tokens, lambda: dense.read_faiss(path))
        return reopened, time.perf_counter() - t0
    backend.close()
    t0 = time.perf_counter()
    return _backend(name, folder), time.perf_counter() - t0


def _dense_recall(backend, entries, qs, k: int = 10) -> float:
    """Mean share of the exact top ``k`` (numpy over every vector) the backend's dense search finds."""
    import numpy as np

    ids = [e.id for e in entries]
    matrix = np.stack([e.vector for e in entries])
    found = 0
    for _, vector in qs:
        exact = {ids[i] for i in np.argsort(-(matrix @ vector))[:k]}
        found += len(exact & {i for i, _ in backend.dense("bench", vector, k)})
    return found / (k * len(qs))


def child(backend_name: str, n: int, count: int, budget: float, kind: str) -> dict:
    """One (backend, size): build, reopen, then time queries until ``count`` or ``budget`` seconds."""
    entries, words, p = synthetic(n, kind=kind)
    qs = queries(words, p, count, kind=kind)
    data_mb = _current_rss_mb()
    with tempfile.TemporaryDirectory() as folder:
        backend = _backend(backend_name, folder)
        t0 = time.perf_counter()
        backend.build("bench", entries)
        build_s = time.perf_counter() - t0
        backend, reopen_s = _reopen(backend_name, backend, folder, entries)
        t = time.perf_counter()
        backend.hybrid("bench", *qs[0], FETCH)
        first_s = reopen_s + time.perf_counter() - t
        recall = _dense_recall(backend, entries, qs[:20]) if backend_name == "edge-hnsw" else None
        del entries
        times = []
        started = time.perf_counter()
        for tokens, vector in qs:
            t = time.perf_counter()
            backend.hybrid("bench", tokens, vector, FETCH)
            times.append((time.perf_counter() - t) * 1000)
            if time.perf_counter() - started > budget:
                break
        backend.close()
    times.sort()
    return {"backend": backend_name, "chunks": n, "vectors": kind, "build_s": build_s, "queries": len(times),
            "p50_ms": times[(len(times) - 1) // 2], "p95_ms": times[max(0, -(-95 * len(times) // 100) - 1)],
            "reopen_first_s": first_s, "dense_recall10": recall, "data_mb": data_mb, "peak_mb": _rss_mb()}


def table(rows: list[dict]) -> str:
    out = ["| backend | vectors | chunks | build s | hybrid p50 ms | hybrid p95 ms | queries timed | reopen + first query s "
           "| dense recall@10 | RSS after data MB | peak RSS MB |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['backend']} | {r['vectors']} | {r['chunks']:,} | failed: {r['error']} | | | | | | | |")
            continue
        recall = "exact" if r["dense_recall10"] is None else f"{r['dense_recall10']:.3f}"
        out.append(f"| {r['backend']} | {r['vectors']} | {r['chunks']:,} | {r['build_s']:.1f} | {r['p50_ms']:.2f} | "
                   f"{r['p95_ms']:.2f} | {r['queries']} | {r['reopen_first_s']:.2f} | {recall} | {r['data_mb']:.0f} | "
                   f"{r['peak_mb']:.0f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sizes", default="10000,100000,300000", help="comma-separated corpus sizes in chunks")
    ap.add_argument("--backends", default="builtin,edge", help="comma-separated: builtin, edge, edge-hnsw, qdrant")
    ap.add_argument("--vectors", default="random", help="comma-separated: random, lowrank (see the docstring)")
    ap.add_argument("--queries", type=int, default=50, help="hybrid queries timed per run (default 50)")
    ap.add_argument("--query-seconds", type=float, default=120.0, help="stop timing queries after this long")
    ap.add_argument("--child", nargs=3, metavar=("BACKEND", "SIZE", "VECTORS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), args.queries, args.query_seconds, args.child[2])))
        return 0
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        for kind in args.vectors.split(","):
            for name in args.backends.split(","):
                rows.append(_run_child(name, n, kind, args))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(_versions())
    print(table(rows))
    return 0


def _run_child(name: str, n: int, kind: str, args) -> dict:
    r = subprocess.run([sys.executable, __file__, "--child", name, str(n), kind, "--queries", str(args.queries),
                        "--query-seconds", str(args.query_seconds)], capture_output=True, text=True)
    if r.returncode:
        return {"backend": name, "chunks": n, "vectors": kind, "error": (r.stderr.strip().splitlines() or ["?"])[-1][:80]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    def v(pkg: str) -> str:
        try:
            return version(pkg)
        except PackageNotFoundError:
            return "not installed"

    where = os.environ.get("COTATI_QDRANT_URL") and "a Qdrant server" or "qdrant-client local mode"
    return (f"{time.strftime('%Y-%m-%d')}, {platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}; qdrant-edge-py {v('qdrant-edge-py')}, faiss-cpu {v('faiss-cpu')}, "
            f"rank-bm25 {v('rank-bm25')}; qdrant rows: {where}")


if __name__ == "__main__":
    sys.exit(main())
