"""Load against a local app (issue 37): N clients for T seconds (or R requests in all), each asking
the public ``/ask`` API in turn; prints answered / declined (the assistant gave no answer: "No sure
answer", not covered, not in these documents) / refused (the queue's 503 and "Queue is full") / errors,
p50 and p95 latency and the server's RSS before and after. A decline is told by the answer's first
line (``declined``); when this tool started the app it also counts the app's question log, which
records each answer and whether it declined, and prints both (issue 45: declines were counted as
answered).

    python benchmarks/load.py --clients 150 --seconds 60          # starts app.py on a free port
    python benchmarks/load.py --requests 5000 --clients 8         # a soak
    python benchmarks/load.py --url http://127.0.0.1:7860/ --pid 1234

Bounded: at most ``--clients`` requests in flight, each with a timeout; the app it starts is stopped
at the end. Without ``--url`` the app runs with ``COTATI_EMBED_MODEL`` as set (default: the real model).
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
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
QUESTIONS = ("Can I open a bar on East Cotati Avenue?", "17.44.065", "How tall can a fence be?",
             "What is a home occupation?", "Can I open a gym in the CG district?", "What is the capital of France?")


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children, in MB (from /proc)."""
    total = 0
    for p in [pid, *_children(pid)]:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def _children(pid: int) -> list[int]:
    try:
        found = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    return found + [g for c in found for g in _children(c)]


# How the assistant's declines begin (assistant/compose.py, assistant/routes, assistant/validate.py): what
# the /ask API's Markdown leads with, in bold, when no answer is given.
DECLINE_LEADS = ("No sure answer", "The Cotati code documents in this corpus do not answer",
                 "The Cotati land use documents in this corpus do not answer", "This assistant answers questions",
                 "Please type a question", "The question ", "Out of scope",
                 "This question needs the search index")  # the index not ready: no answer either
DECLINE_INSIDE = (" is not in these documents",)


def declined(markdown: str) -> bool:
    """Whether an /ask answer (its Markdown) is a decline, by its bold first line."""
    first = markdown.strip().split("\n", 1)[0].strip().strip("*").replace("\\", "")
    return first.startswith(DECLINE_LEADS) or any(part in first for part in DECLINE_INSIDE)


def ask(url: str, question: str, timeout: float) -> tuple[str, float]:
    """('answered' | 'declined' | 'refused' | 'error', seconds) for one /ask call."""
    started = time.perf_counter()
    try:
        request = urllib.request.Request(url + "gradio_api/call/ask", data=json.dumps({"data": [question]}).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=timeout) as response:
            event = json.loads(response.read())["event_id"]
        with urllib.request.urlopen(f"{url}gradio_api/call/ask/{event}", timeout=timeout) as response:
            body = response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return ("refused" if error.code in (429, 503) else "error"), time.perf_counter() - started
    except (OSError, ValueError, KeyError):
        return "error", time.perf_counter() - started
    if "event: complete" in body:
        data = body.split("event: complete", 1)[1].split("data:", 1)[-1].split("\n", 1)[0]
        try:
            markdown = json.loads(data)[0]
        except (ValueError, IndexError, TypeError):
            return "error", time.perf_counter() - started
        return ("declined" if declined(str(markdown)) else "answered"), time.perf_counter() - started
    return ("refused" if "Queue is full" in body else "error"), time.perf_counter() - started


def run(url: str, clients: int, seconds: float, requests: int, timeout: float) -> dict:
    counts = {"answered": 0, "declined": 0, "refused": 0, "error": 0}
    times: list[float] = []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds if seconds else float("inf")
    left = [requests or 10**12]

    def client(number: int) -> None:
        n = number
        while time.monotonic() < deadline:
            with lock:
                if left[0] <= 0:
                    return
                left[0] -= 1
            outcome, took = ask(url, QUESTIONS[n % len(QUESTIONS)], timeout)
            n += 1
            with lock:
                counts[outcome] += 1
                if outcome in ("answered", "declined"):
                    times.append(took)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    times.sort()
    return {**counts, "p50_ms": round(statistics.median(times) * 1000) if times else None,
            "p95_ms": round(times[int(0.95 * (len(times) - 1))] * 1000) if times else None}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running app (default: start app.py on a free port)")
    parser.add_argument("--pid", type=int, help="the running app's process id, for its RSS")
    parser.add_argument("--clients", type=int, default=150)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long (0: until --requests are made)")
    parser.add_argument("--requests", type=int, default=0, help="requests in all (0: as many as fit the time)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a request may take")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    child, url, pid = None, args.url, args.pid
    if url is None:
        port = _free_port()
        folder = Path(tempfile.mkdtemp(prefix="cotati-load-"))
        env = {**os.environ, "COTATI_PORT": str(port), "COTATI_QUESTION_LOG_PATH": str(folder / "q.sqlite3"),
               "GRADIO_ANALYTICS_ENABLED": "False"}
        log = open(folder / "app.log", "w")
        child = subprocess.Popen([sys.executable, "app.py"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        url, pid = f"http://127.0.0.1:{port}/", child.pid
        deadline = time.monotonic() + 600
        while "search index: ready" not in (folder / "app.log").read_text(errors="replace"):
            if child.poll() is not None or time.monotonic() > deadline:
                print(f"app.py did not start: see {folder / 'app.log'}", file=sys.stderr)
                return 1
            time.sleep(0.5)
    try:
        before = rss_mb(pid) if pid else None
        result = run(url, args.clients, args.seconds if not args.requests else 0, args.requests, args.timeout)
        after = rss_mb(pid) if pid else None
    finally:
        if child is not None:
            child.terminate()
            child.wait(30)
    result.update({"clients": args.clients, "rss_before_mb": before and round(before), "rss_after_mb": after and round(after)})
    if child is not None:
        result["question_log"] = logged(folder / "q.sqlite3")
    if args.json:
        print(json.dumps(result))
    else:
        log_line = ""
        if result.get("question_log"):
            log_line = (f"; the app's question log: {result['question_log']['answered']} answered, "
                        f"{result['question_log']['declined']} declined")
        print(f"answered {result['answered']}, declined {result['declined']}, refused {result['refused']}, "
              f"errors {result['error']}; p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms; RSS "
              f"{result['rss_before_mb']} -> {result['rss_after_mb']} MB ({args.clients} clients){log_line}")
    return 0 if result["error"] == 0 else 1


def logged(path: Path) -> dict | None:
    """{answered, declined} as the app's question log recorded them; None without a readable log."""
    import sqlite3

    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            rows = dict(db.execute("SELECT abstained, COUNT(*) FROM questions GROUP BY abstained").fetchall())
    except sqlite3.Error:
        return None
    return {"answered": rows.get(0, 0), "declined": rows.get(1, 0)}


if __name__ == "__main__":
    sys.exit(main())
