"""Presenting a metrics summary: a plain-text table (stdout), a markdown report and a PNG chart.

The markdown and the chart are functions of the summary only (no timestamps), so the same run
gives the same bytes. The chart needs matplotlib (Agg backend, no pyplot state); without it the
report is still written, without the image, and ``write_report`` says so in its warnings.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from . import atomic
from .records import MODES

CHART_SUFFIX = "_accuracy.png"


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _accuracy_text(s: dict[str, Any]) -> str:
    if s.get("answer_accuracy") is None:
        return "n/a"
    return f"{fmt(s['answer_accuracy'])} ({s['correct']}/{s['questions']})"


def _latency_text(lat: dict[str, Any]) -> str:
    if not lat or lat.get("p50") is None:
        return "n/a"
    return f"p50 {lat['p50']:.1f}, p95 {lat['p95']:.1f} ({lat['source']}, n={lat['n']})"


def chart_path_for(md_path: str | Path) -> Path:
    md_path = Path(md_path)
    return md_path.with_name(md_path.stem + CHART_SUFFIX)


# -- plain text ----------------------------------------------------------------------------------
def _summary_rows(s: dict[str, Any]) -> list[tuple[str, str]]:
    """The headline figures, shared by the printed table and the markdown report."""
    return [
        ("answer accuracy", _accuracy_text(s)),
        ("citation precision", fmt(s["citation_precision"])),
        ("citation recall", fmt(s["citation_recall"])),
        ("abstention precision", fmt(s["abstention_precision"])),
        ("abstention recall", fmt(s["abstention_recall"])),
        ("abstention accuracy", fmt(s["abstention_accuracy"])),
        ("latency (ms)", _latency_text(s["latency_ms"])),
    ]


def format_table(s: dict[str, Any]) -> str:
    rows = [("questions", f"{s['questions']} ({s['answerable']} answerable)"), *_summary_rows(s)]
    lines = [f"{name:<22}{value}" for name, value in rows]
    lines += ["", f"{'retrieval':<12}{'Recall@5':>10}{'MRR@10':>10}"]
    for mode in MODES:
        lines.append(f"{mode:<12}{fmt(s['recall@5'][mode]):>10}{fmt(s['mrr@10'][mode]):>10}")
    width = max([len("category")] + [len(c) for c in s["by_category"]]) + 2
    lines += ["", f"{'category':<{width}}{'n':>5}{'accuracy':>10}{'cite recall':>13}{'R@5 hybrid':>12}{'MRR@10 hybrid':>15}"]
    for cat, c in s["by_category"].items():
        lines.append(
            f"{cat:<{width}}{c['questions']:>5}{fmt(c['answer_accuracy']):>10}{fmt(c['citation_recall']):>13}"
            f"{fmt(c['recall@5']['hybrid']):>12}{fmt(c['mrr@10']['hybrid']):>15}"
        )
    if s.get("answers"):
        lines += ["", f"misses: {len(s['misses'])} (listed in the report)"]
    return "\n".join(lines) + "\n"


# -- markdown ------------------------------------------------------------------------------------
def _cell(text: Any, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("\\", "\\\\").replace("|", "\\|")


def render_markdown(s: dict[str, Any], *, gold: str = "eval/gold.jsonl", chart: str | None = None) -> str:
    out = ["# Evaluation report", ""]
    modes = s.get("retrieval_modes") or []
    out.append(
        f"Gold set `{gold}`: {s['questions']} questions, {s['answerable']} answerable. "
        f"Answers: {'scored' if s.get('answers') else 'not collected'}. "
        f"Retrieval: {', '.join(modes) if modes else 'not run'}. "
        "Metric definitions: `eval/score.py` (module docstring) and `eval/README.md`."
    )
    out += ["", "## Summary", "", "| metric | value |", "|---|---|"]
    for name, value in _summary_rows(s):
        out.append(f"| {name} | {value} |")
    out += ["", "## Retrieval", "", "Answerable questions; the query is the question as written; a hit is a chunk whose section is expected.", ""]
    out += ["| mode | Recall@5 | MRR@10 |", "|---|---|---|"]
    for mode in MODES:
        out.append(f"| {mode} | {fmt(s['recall@5'][mode])} | {fmt(s['mrr@10'][mode])} |")
    out += ["", "## By category", ""]
    out += [
        "| category | questions | accuracy | citation precision | citation recall | Recall@5 bm25 | Recall@5 dense | Recall@5 hybrid | MRR@10 hybrid |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for cat, c in s["by_category"].items():
        acc = "n/a" if c["answer_accuracy"] is None else f"{fmt(c['answer_accuracy'])} ({c['correct']}/{c['questions']})"
        out.append(
            f"| {cat} | {c['questions']} | {acc} | {fmt(c['citation_precision'])} | {fmt(c['citation_recall'])} | "
            f"{fmt(c['recall@5']['bm25'])} | {fmt(c['recall@5']['dense'])} | {fmt(c['recall@5']['hybrid'])} | {fmt(c['mrr@10']['hybrid'])} |"
        )
    if chart:
        out += ["", f"![Answer accuracy by category]({chart})"]
    out += ["", "## Misses", ""]
    if not s.get("answers"):
        out.append("Answers were not collected in this run.")
    elif not s["misses"]:
        out.append("None: every question was answered correctly.")
    else:
        by_cat: dict[str, list[dict[str, Any]]] = {}
        for m in s["misses"]:
            by_cat.setdefault(m["category"], []).append(m)
        order = [c for c in s["by_category"] if c in by_cat]
        for cat in order:
            items = by_cat[cat]
            out += [f"### {cat} ({len(items)} of {s['by_category'][cat]['questions']})", ""]
            out += ["| id | question | expected | got (first line) | cited | why |", "|---|---|---|---|---|---|"]
            for m in items:
                out.append(
                    f"| {m['id']} | {_cell(m['question'])} | {_cell(m['expected'])} | {_cell(m['got']) or '(empty)'} | "
                    f"{_cell(', '.join(m['cited'])) or '-'} | {_cell(m['reason'])} |"
                )
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# -- chart ---------------------------------------------------------------------------------------
def render_chart(s: dict[str, Any]) -> bytes:
    """PNG bytes: horizontal bars of answer accuracy per category (plus all questions).

    Raises ImportError without matplotlib, ValueError when the summary has no answers."""
    if s.get("answer_accuracy") is None:
        raise ValueError("no answer accuracy to chart")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    labels = ["all"] + list(s["by_category"])
    values = [s["answer_accuracy"]] + [c["answer_accuracy"] or 0.0 for c in s["by_category"].values()]
    counts = [s["questions"]] + [c["questions"] for c in s["by_category"].values()]
    fig = Figure(figsize=(7.5, 0.42 * len(labels) + 1.3), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ypos = list(range(len(labels)))[::-1]
    colors = ["#4c4c4c"] + ["#3b75af"] * (len(labels) - 1)
    ax.barh(ypos, values, color=colors, height=0.65)
    ax.set_yticks(ypos, labels)
    ax.set_xlim(0, 1.18)
    ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_xlabel("answer accuracy")
    ax.set_title(f"Answer accuracy by category ({s['questions']} questions)")
    for y, v, n in zip(ypos, values, counts):
        ax.text(v + 0.01, y, f"{v:.2f} (n={n})", va="center", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def write_report(s: dict[str, Any], md_path: str | Path, *, gold: str = "eval/gold.jsonl") -> tuple[list[Path], list[str]]:
    """Write the markdown report and (when possible) its chart next to it, atomically.

    Returns (paths written, warnings)."""
    md_path = Path(md_path)
    written: list[Path] = []
    warnings: list[str] = []
    chart_name = None
    if s.get("answer_accuracy") is not None:
        png = chart_path_for(md_path)
        try:
            data = render_chart(s)
        except ImportError:
            warnings.append("matplotlib is not installed: the accuracy chart was not written (pip install matplotlib)")
        else:
            atomic.write_bytes(png, data)
            written.append(png)
            chart_name = png.name
    atomic.write_text(md_path, render_markdown(s, gold=gold, chart=chart_name))
    written.insert(0, md_path)
    return written, warnings
