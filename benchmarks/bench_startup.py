"""Benchmark of cold starts (a script, not a test): what a staff member, a script or the app pays
before the first answer, with the ONNX query encoder and with sentence-transformers + torch.

    .venv/bin/python benchmarks/bench_startup.py [--runs 3] [--queries 200] [--no-app] [--json]

Needs a built index (``python -m index build``; COTATI_INDEX_DIR or var/index). In one run:
  * cold CLI answers, each a fresh ``python -m assistant ask`` process (median wall time of
    ``--runs`` after one warm-up, and the process's peak RSS from ``wait4``): a free-text question
    (searches: BM25 + dense + sentence meaning) with the ONNX encoder and with torch
    (``COTATI_QUERY_ENCODER=torch``), a permit question answered by the table alone, and the
    permit question of issue 15 (its land use is found by meaning, so it embeds the question);
  * app start to first answer: ``app.py`` on a free port, polled with gradio_client until the
    free-text question is answered, with each encoder;
  * query embedding in-process, ONNX vs torch: median per query over the first ``--queries``
    questions of eval/dev.jsonl, the two alternated question by question so load hits both alike.
Ratios: free-text / permit (issue 15 asks <= 5 with peak RSS <= 300 MB) and ONNX / torch.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FREE_TEXT = "What does the code say about bicycle parking for offices?"
PERMIT_TABLE = "Can I open a bar, tavern in CE?"  # the row's label word for word: no model, no faiss
PERMIT_MEANING = "Can I open a bar in CE?"  # "bar" -> Bar, tavern also checked by meaning: embeds the question
ENV = "COTATI_QUERY_ENCODER"


def _env(encoder: str) -> dict[str, str]:
    env = dict(os.environ)
    env[ENV] = encoder
    return env


def cold_cli(question: str, encoder: str) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, first answer line) of one fresh `python -m assistant ask`."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "assistant", "ask", question], cwd=ROOT, env=_env(encoder),
                                stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        first = out.read().decode("utf-8", "replace").splitlines()[:1]
    if proc.returncode != 0:
        raise SystemExit(f"error: `python -m assistant ask {question!r}` exited {proc.returncode}")
    return wall, usage.ru_maxrss / 1024.0, first[0] if first else ""


def measure_cli(question: str, encoder: str, runs: int) -> dict:
    cold_cli(question, encoder)  # warm-up: file cache, the sentence-vector cache beside the index
    samples = [cold_cli(question, encoder) for _ in range(runs)]
    return {"question": question, "encoder": encoder, "wall_s": statistics.median(s[0] for s in samples),
            "walls_s": [round(s[0], 3) for s in samples], "peak_rss_mb": max(s[1] for s in samples),
            "answer": samples[-1][2]}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app_first_answer(encoder: str, timeout: float = 300.0) -> dict:
    """Seconds from starting app.py to the first answer of FREE_TEXT through gradio_client."""
    from gradio_client import Client

    port = _free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "app.py", "--port", str(port)], cwd=ROOT, env=_env(encoder),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client, answer = None, ""
        while time.perf_counter() - t0 < timeout:
            if proc.poll() is not None:
                raise SystemExit(f"error: app.py exited {proc.returncode} before answering")
            try:
                client = client or Client(f"http://127.0.0.1:{port}/", verbose=False)
                answer = client.predict(FREE_TEXT, api_name="/ask")
                answer = answer if isinstance(answer, str) else json.dumps(answer)[:200]
                if answer and "index" not in answer.lower()[:80]:  # not "the search index is starting"
                    break
            except Exception:  # noqa: BLE001 - not listening yet: poll again
                pass
            time.sleep(0.2)
        seconds = time.perf_counter() - t0
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return {"encoder": encoder, "seconds": seconds, "answer": answer.strip().splitlines()[0][:120] if answer else ""}


def embedding(n: int) -> dict:
    """Median ms per query embedding, ONNX vs torch, the same questions alternated."""
    from index import dense, open_index

    os.environ.pop(ENV, None)
    searcher = open_index(build_if_missing=False)
    onnx = searcher.encoder
    torch = dense.get_encoder(searcher.model)
    if getattr(onnx, "target", torch) is torch:  # code before the ONNX encoder, or an index without it
        print("note: no ONNX query encoder here (old code, or `python -m index build` not run): torch twice",
              file=sys.stderr)
    questions = [json.loads(line)["question"] for line in (ROOT / "eval" / "dev.jsonl").open(encoding="utf-8")
                 if line.strip()][:n]
    for q in questions[:5]:
        onnx.encode([q]), torch.encode([q])
    times: dict[str, list[float]] = {"onnx": [], "torch": []}
    for i, q in enumerate(questions):
        for name in (("onnx", "torch") if i % 2 == 0 else ("torch", "onnx")):
            enc = onnx if name == "onnx" else torch
            t = time.perf_counter()
            enc.encode([q])
            times[name].append((time.perf_counter() - t) * 1000.0)
    return {"queries": len(questions), **{f"{k}_median_ms": statistics.median(v) for k, v in times.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="cold runs per measurement, after one warm-up")
    parser.add_argument("--queries", type=int, default=200, help="dev questions for the in-process embedding")
    parser.add_argument("--no-app", action="store_true", help="skip app start to first answer")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from index import open_index

    searcher = open_index(build_if_missing=False)  # refuses (one line) when there is no fresh index
    report: dict = {"machine": {"cpus": os.cpu_count(), "load_avg": os.getloadavg()[0]},
                    "index": str(searcher.path), "has_onnx": "query_encoder" in searcher.manifest}
    cli = {
        "free_text_onnx": measure_cli(FREE_TEXT, "onnx", args.runs),
        "free_text_torch": measure_cli(FREE_TEXT, "torch", args.runs),
        "permit_table": measure_cli(PERMIT_TABLE, "onnx", args.runs),
        "permit_meaning_onnx": measure_cli(PERMIT_MEANING, "onnx", args.runs),
        "permit_meaning_torch": measure_cli(PERMIT_MEANING, "torch", args.runs),
    }
    report["cli"] = cli
    base = cli["permit_table"]["wall_s"]
    report["ratios"] = {
        "free_text_onnx / permit_table": cli["free_text_onnx"]["wall_s"] / base,
        "free_text_torch / permit_table": cli["free_text_torch"]["wall_s"] / base,
        "free_text_onnx / permit_meaning_onnx": cli["free_text_onnx"]["wall_s"] / cli["permit_meaning_onnx"]["wall_s"],
        "free_text_onnx / free_text_torch": cli["free_text_onnx"]["wall_s"] / cli["free_text_torch"]["wall_s"],
    }
    if not args.no_app:
        report["app"] = {enc: app_first_answer(enc) for enc in ("onnx", "torch")}
        report["ratios"]["app onnx / torch"] = report["app"]["onnx"]["seconds"] / report["app"]["torch"]["seconds"]
    report["embedding"] = embedding(args.queries)
    e = report["embedding"]
    report["ratios"]["embed onnx / torch"] = e["onnx_median_ms"] / e["torch_median_ms"]
    report["done_when"] = {
        "free_text <= 5x permit": report["ratios"]["free_text_onnx / permit_table"] <= 5.0,
        "free_text peak RSS <= 300 MB": cli["free_text_onnx"]["peak_rss_mb"] <= 300.0,
        "embed onnx <= 1.2x torch": report["ratios"]["embed onnx / torch"] <= 1.2,
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"machine: {report['machine']['cpus']} cpus, load average {report['machine']['load_avg']:.2f}; index {report['index']}")
    print("cold CLI answer (median of %d after a warm-up)      wall s   peak RSS MB" % args.runs)
    for name, m in cli.items():
        print(f"  {name:<24} {m['question'][:30]:<31} {m['wall_s']:7.2f}   {m['peak_rss_mb']:8.0f}")
    if "app" in report:
        for enc, a in report["app"].items():
            print(f"app start to first answer ({enc}): {a['seconds']:.2f} s")
    print(f"query embedding in-process, median of {e['queries']}: onnx {e['onnx_median_ms']:.2f} ms, "
          f"torch {e['torch_median_ms']:.2f} ms")
    print("ratios:")
    for name, value in report["ratios"].items():
        print(f"  {name:<40} {value:6.2f}")
    print("done when: " + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in report["done_when"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
