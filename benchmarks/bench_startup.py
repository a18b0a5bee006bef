"""Benchmark of cold starts (a script, not a test): what a staff member, a script or the app pays
before the first answer, with the ONNX query encoder and with sentence-transformers + torch.

    .venv/bin/python benchmarks/bench_startup.py [--runs 3] [--queries 200] [--no-app] [--cold-only] [--json]

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
  * the floor: a fresh process that loads onnxruntime and the tokenizer from the index folder and
    embeds the free-text question (no search, no answer), the least a cold answer can cost.
Ratios: free-text / floor (issue 25 asks <= 1.5), free-text / permit (issue 15 asks <= 5 with peak
RSS <= 300 MB) and ONNX / torch.
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
    # As installed, Python keeps compiled modules in __pycache__; with PYTHONDONTWRITEBYTECODE (set on
    # some CI machines) every cold process would compile this project's ~80 modules again, which
    # measures the machine's setting rather than the code. The warm-up run writes them.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cold_process(args: list[str], encoder: str) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, first line printed) of one fresh ``python ARGS`` process."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=_env(encoder),
                                stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        first = out.read().decode("utf-8", "replace").splitlines()[:1]
    if proc.returncode != 0:
        raise SystemExit(f"error: `python {' '.join(args)[:80]}` exited {proc.returncode}")
    return wall, usage.ru_maxrss / 1024.0, first[0] if first else ""


def cold_cli(question: str, encoder: str) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, first answer line) of one fresh `python -m assistant ask`."""
    return cold_process(["-m", "assistant", "ask", question], encoder)


# The floor a cold answer is held to (issue 25): Python, onnxruntime and the tokenizer loaded and one
# query embedded with the index's own ONNX export, as the assistant's encoder sets them up; no search.
FLOOR = """
import sys
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer
folder, question = sys.argv[1], sys.argv[2]
tok = Tokenizer.from_file(folder + "/query_tokenizer.json")
tok.enable_truncation(max_length=256)
options = ort.SessionOptions()
options.intra_op_num_threads, options.inter_op_num_threads, options.log_severity_level = 1, 1, 3
session = ort.InferenceSession(folder + "/query_encoder.onnx", options, providers=["CPUExecutionProvider"])
names = {i.name for i in session.get_inputs()}
e = tok.encode(question)
feed = {"input_ids": e.ids, "attention_mask": e.attention_mask, "token_type_ids": e.type_ids}
print(session.run(None, {k: np.array([v], dtype=np.int64) for k, v in feed.items() if k in names})[0].shape)
"""


def measure_floor(index: Path, runs: int) -> dict:
    """Median wall time and peak RSS of the floor process (``FLOOR``), after one warm-up."""
    args = ["-c", FLOOR, str(index), FREE_TEXT]
    cold_process(args, "onnx")
    samples = [cold_process(args, "onnx") for _ in range(runs)]
    return {"question": FREE_TEXT, "encoder": "onnx", "wall_s": statistics.median(s[0] for s in samples),
            "walls_s": [round(s[0], 3) for s in samples], "peak_rss_mb": max(s[1] for s in samples),
            "answer": samples[-1][2]}


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


def cold_measurements(runs: int, cold_only: bool) -> dict:
    """The cold CLI answers; ``cold_only`` keeps the ONNX ones (the floor's comparison)."""
    plan = {
        "free_text_onnx": (FREE_TEXT, "onnx"),
        "free_text_torch": (FREE_TEXT, "torch"),
        "permit_table": (PERMIT_TABLE, "onnx"),
        "permit_meaning_onnx": (PERMIT_MEANING, "onnx"),
        "permit_meaning_torch": (PERMIT_MEANING, "torch"),
    }
    return {name: measure_cli(q, enc, runs) for name, (q, enc) in plan.items() if not (cold_only and enc == "torch")}


def ratios(cli: dict, floor: dict) -> dict[str, float]:
    base = cli["permit_table"]["wall_s"]
    found = {
        "free_text_onnx / floor": cli["free_text_onnx"]["wall_s"] / floor["wall_s"],
        "permit_meaning_onnx / floor": cli["permit_meaning_onnx"]["wall_s"] / floor["wall_s"],
        "free_text_onnx / permit_table": cli["free_text_onnx"]["wall_s"] / base,
        "free_text_onnx / permit_meaning_onnx": cli["free_text_onnx"]["wall_s"] / cli["permit_meaning_onnx"]["wall_s"],
    }
    if "free_text_torch" in cli:
        found["free_text_torch / permit_table"] = cli["free_text_torch"]["wall_s"] / base
        found["free_text_onnx / free_text_torch"] = cli["free_text_onnx"]["wall_s"] / cli["free_text_torch"]["wall_s"]
    return found


def done_when(report: dict) -> dict[str, bool]:
    cli, found = report["cli"], report["ratios"]
    checks = {
        "free_text <= 1.5x floor": found["free_text_onnx / floor"] <= 1.5,
        "free_text <= 5x permit": found["free_text_onnx / permit_table"] <= 5.0,
        "free_text peak RSS <= 300 MB": cli["free_text_onnx"]["peak_rss_mb"] <= 300.0,
    }
    if "embed onnx / torch" in found:
        checks["embed onnx <= 1.2x torch"] = found["embed onnx / torch"] <= 1.2
    return checks


def print_report(report: dict, runs: int) -> None:
    print(f"machine: {report['machine']['cpus']} cpus, load average {report['machine']['load_avg']:.2f}; index {report['index']}")
    print("cold process (median of %d after a warm-up)        wall s   peak RSS MB   each run s" % runs)
    for name, m in {"floor": report["floor"], **report["cli"]}.items():
        walls = " ".join(f"{w:.2f}" for w in m["walls_s"])
        print(f"  {name:<24} {m['question'][:30]:<31} {m['wall_s']:7.2f}   {m['peak_rss_mb']:8.0f}      {walls}")
    for enc, a in report.get("app", {}).items():
        print(f"app start to first answer ({enc}): {a['seconds']:.2f} s")
    if "embedding" in report:
        e = report["embedding"]
        print(f"query embedding in-process, median of {e['queries']}: onnx {e['onnx_median_ms']:.2f} ms, "
              f"torch {e['torch_median_ms']:.2f} ms")
    print("ratios:")
    for name, value in report["ratios"].items():
        print(f"  {name:<40} {value:6.2f}")
    print("done when: " + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in report["done_when"].items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="cold runs per measurement, after one warm-up")
    parser.add_argument("--queries", type=int, default=200, help="dev questions for the in-process embedding")
    parser.add_argument("--no-app", action="store_true", help="skip app start to first answer")
    parser.add_argument("--cold-only", action="store_true",
                        help="only the floor and the ONNX cold answers (no torch, no app, no in-process embedding)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from index import open_index

    searcher = open_index(build_if_missing=False)  # refuses (one line) when there is no fresh index
    report: dict = {"machine": {"cpus": os.cpu_count(), "load_avg": os.getloadavg()[0]},
                    "index": str(searcher.path), "has_onnx": "query_encoder" in searcher.manifest}
    report["floor"] = measure_floor(Path(searcher.path), args.runs)
    report["cli"] = cold_measurements(args.runs, args.cold_only)
    report["ratios"] = ratios(report["cli"], report["floor"])
    if not (args.no_app or args.cold_only):
        report["app"] = {enc: app_first_answer(enc) for enc in ("onnx", "torch")}
        report["ratios"]["app onnx / torch"] = report["app"]["onnx"]["seconds"] / report["app"]["torch"]["seconds"]
    if not args.cold_only:
        report["embedding"] = e = embedding(args.queries)
        report["ratios"]["embed onnx / torch"] = e["onnx_median_ms"] / e["torch_median_ms"]
    report["done_when"] = done_when(report)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_report(report, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
