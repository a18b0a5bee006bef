"""Presenting the metrics of one run: a plain-text table (stdout), a markdown report and two PNG
charts (accuracy by category, and the risk-coverage curve), each set side by side.

The markdown and the charts are functions of the summary only (no timestamps), so the same run
gives the same bytes. The charts need matplotlib (Agg backend, no pyplot state); without it the
report is still written, without images, and ``write_report`` says so in its warnings.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from . import atomic
from .records import MODES

CHART_SUFFIX = "_accuracy.png"
CURVE_SUFFIX = "_risk_coverage.png"
SET_COLORS = {"dev": "#3b75af", "test": "#c0504d", "holdout": "#8064a2"}


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _sets(s: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The per-set summaries of a run (a one-set summary without ``sets`` is its own set)."""
    names = s.get("sets") or ["dev"]
    return {name: s.get(name, s) for name in names}


def interval_text(interval: Any) -> str:
    """`` [low-high]`` for a 95% interval, or "" when there is none."""
    if not interval:
        return ""
    return f" [{interval[0]:.3f}-{interval[1]:.3f}]"


def _count_text(c: dict[str, Any], key: str, share: str) -> str:
    if c.get(share) is None:
        return "n/a"
    return f"{fmt(c[share])}{interval_text((c.get('intervals') or {}).get(share))} ({c[key]}/{c['questions']})"


def _rate(c: dict[str, Any], key: str) -> str:
    return fmt(c.get(key)) + interval_text((c.get("intervals") or {}).get(key))


def _latency_text(lat: dict[str, Any]) -> str:
    if not lat or lat.get("p50") is None:
        return "n/a"
    return f"p50 {lat['p50']:.1f}, p95 {lat['p95']:.1f}"


def _paraphrase_text(c: dict[str, Any]) -> str:
    p = c.get("paraphrase") or {}
    if not p.get("groups"):
        return "n/a (no groups)"
    return f"{fmt(p['all_right'])} all right, {fmt(p['agree'])} agree ({p['groups']} groups)"


def _headline_rows(c: dict[str, Any]) -> list[tuple[str, str]]:
    """The headline figures of one set, shared by the printed table and the markdown report."""
    curve = c.get("risk_coverage") or {}
    return [
        ("questions", f"{c['questions']} ({c['answerable']} answerable)"),
        ("accuracy", _count_text(c, "correct", "accuracy")),
        ("wrong-answer rate", _count_text(c, "wrong", "wrong_rate")),
        ("abstained (answerable)", "n/a" if c.get("abstained") is None else str(c["abstained"])),
        ("accuracy when answering", _rate(c, "answered_accuracy")),
        ("abstention precision", _rate(c, "abstention_precision")),
        ("abstention recall", _rate(c, "abstention_recall")),
        ("citation precision", _rate(c, "citation_precision")),
        ("citation recall", _rate(c, "citation_recall")),
        ("paraphrase consistency", _paraphrase_text(c)),
        ("AURC (lower is better)", fmt(c.get("aurc"))),
        (f"coverage at risk <= {fmt(curve.get('risk_target'), 2)}", fmt(curve.get("coverage_at_risk"))),
        ("latency ms", _latency_text(c["latency_ms"])),
    ]


def chart_path_for(md_path: str | Path) -> Path:
    md_path = Path(md_path)
    return md_path.with_name(md_path.stem + CHART_SUFFIX)


def curve_path_for(md_path: str | Path) -> Path:
    md_path = Path(md_path)
    return md_path.with_name(md_path.stem + CURVE_SUFFIX)


# -- plain text ----------------------------------------------------------------------------------
def format_table(s: dict[str, Any]) -> str:
    sets = _sets(s)
    names = list(sets)
    rows = [_headline_rows(c) for c in sets.values()]
    width = max(len(name) for name, _ in rows[0]) + 2
    col = max(34, *(len(v) + 2 for r in rows for _, v in r))
    lines = [f"{'':<{width}}" + "".join(f"{n:<{col}}" for n in names)]
    for i, (label, _) in enumerate(rows[0]):
        lines.append(f"{label:<{width}}" + "".join(f"{r[i][1]:<{col}}" for r in rows))
    if s.get("generalization_gap") is not None:
        lines.append(f"{'generalization gap':<{width}}{fmt(s['generalization_gap'])} (dev accuracy - test accuracy)")
    for name, figures in (s.get("baselines") or {}).items():
        lines += ["", f"baselines on {name}:"]
        for label, b in figures.items():
            lines.append(f"  {label:<22} accuracy {fmt(b['accuracy'])}  wrong {fmt(b['wrong_rate'])}")
    for name, c in sets.items():
        if any(c["recall@5"][m] is not None for m in MODES):
            lines += ["", f"retrieval ({name}){'':<4}{'Recall@5':>10}{'MRR@10':>10}"]
            for mode in MODES:
                lines.append(f"{mode:<20}{fmt(c['recall@5'][mode]):>10}{fmt(c['mrr@10'][mode]):>10}")
    for name, c in sets.items():
        cw = max([len("category")] + [len(k) for k in c["by_category"]]) + 2
        for title, groups in (("by category", c["by_category"]), ("by style", c.get("by_style") or {})):
            if not groups:
                continue
            lines += ["", f"{name + ' ' + title:<{cw + 6}}{'n':>5}{'right':>7}{'wrong':>7}{'abst':>6}{'accuracy':>10}  95% interval"]
            for cat, g in groups.items():
                lines.append(
                    f"{cat:<{cw + 6}}{g['questions']:>5}{fmt(g['correct']):>7}{fmt(g['wrong']):>7}{fmt(g['abstained']):>6}"
                    f"{fmt(g['accuracy']):>10}{interval_text((g.get('intervals') or {}).get('accuracy'))}"
                )
    if any(c.get("answers") for c in sets.values()):
        listed = [n for n, c in sets.items() if not c.get("sealed")]
        sealed = [n for n, c in sets.items() if c.get("sealed")]
        lines += ["", "misses: " + ", ".join(f"{n} {len(sets[n]['misses'])}" for n in listed)
                  + (" (listed in the report)" if listed else "")
                  + ("; " if listed and sealed else "") + ", ".join(f"{n} sealed (aggregate only)" for n in sealed)]
    return "\n".join(lines) + "\n"


# -- markdown ------------------------------------------------------------------------------------
def _cell(text: Any, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("\\", "\\\\").replace("|", "\\|")


def render_markdown(
    s: dict[str, Any], *, sources: dict[str, str] | None = None, chart: str | None = None, curve: str | None = None
) -> str:
    sets = _sets(s)
    names = list(sets)
    sources = sources or {}
    out = ["# Evaluation report", ""]
    for name, c in sets.items():
        modes = c.get("retrieval_modes") or []
        out.append(
            f"- **{name}** (`{sources.get(name, name)}`): {c['questions']} questions, {c['answerable']} answerable; "
            f"answers {'scored' if c.get('answers') else 'not collected'}; retrieval {', '.join(modes) if modes else 'not run'}."
        )
    out += ["", "Strict scoring: facts as whole words and numbers in the answer's statements (never its Source line), "
            "permit codes by their meaning in the first line, table answers by the cell they used. "
            "Definitions: `eval/score.py` (module docstring) and `eval/README.md`.", ""]
    out += ["## Summary", "", "| metric | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    rows = [_headline_rows(c) for c in sets.values()]
    for i, (label, _) in enumerate(rows[0]):
        out.append(f"| {label} | " + " | ".join(r[i][1] for r in rows) + " |")
    if s.get("generalization_gap") is not None:
        out.append(f"| generalization gap (dev - test accuracy) | {fmt(s['generalization_gap'])} |" + " |" * (len(names) - 1))
    if s.get("baselines"):
        out += ["", "## Baselines", "", "The same questions answered by simple baselines, scored the same way.", ""]
        out += ["| answerer | " + " | ".join(f"{n} accuracy | {n} wrong" for n in names) + " |", "|---|" + "---|---|" * len(names)]
        out.append("| **assistant** | " + " | ".join(f"{fmt(c['accuracy'])} | {fmt(c['wrong_rate'])}" for c in sets.values()) + " |")
        labels = list(next(iter(s["baselines"].values())))
        for label in labels:
            cells = []
            for n in names:
                b = s["baselines"].get(n, {}).get(label)
                cells.append(f"{fmt(b['accuracy'])} | {fmt(b['wrong_rate'])}" if b else "n/a | n/a")
            out.append(f"| {label} | " + " | ".join(cells) + " |")
    if curve:
        out += ["", "## Risk-coverage", "",
                "Answered questions ordered by the assistant's confidence (or, without one, by route); "
                "accuracy of the answered share at each coverage.", "", f"![Risk-coverage curve]({curve})"]
    for name, c in sets.items():
        if not any(c["recall@5"][m] is not None for m in MODES):
            continue
        out += ["", f"## Retrieval ({name})", "", "Answerable questions; the query is the question as written; a hit is a chunk whose section is expected.", ""]
        out += ["| mode | Recall@5 | MRR@10 |", "|---|---|---|"]
        for mode in MODES:
            out.append(f"| {mode} | {fmt(c['recall@5'][mode])} | {fmt(c['mrr@10'][mode])} |")
    out += ["", "## By category", ""]
    if chart:
        out += [f"![Accuracy by category]({chart})", ""]
    for name, c in sets.items():
        out += [f"### {name}", "", "| category | questions | right | wrong | abstained | accuracy | citation recall | Recall@5 hybrid |",
                "|---|---|---|---|---|---|---|---|"]
        for cat, g in c["by_category"].items():
            out.append(
                f"| {cat} | {g['questions']} | {fmt(g['correct'])} | {fmt(g['wrong'])} | {fmt(g['abstained'])} | "
                f"{fmt(g['accuracy'])}{interval_text((g.get('intervals') or {}).get('accuracy'))} | "
                f"{fmt(g['citation_recall'])} | {fmt(g['recall@5']['hybrid'])} |"
            )
        out.append("")
    out += _reliability_markdown(sets)
    for name, c in sets.items():
        out += [f"## Misses ({name})", ""]
        if c.get("sealed"):
            out += ["Sealed set: read in aggregate only; its items and misses are not listed.", ""]
            continue
        if not c.get("answers"):
            out += ["Answers were not collected in this run.", ""]
            continue
        if not c["misses"]:
            out += ["None: every question was answered right.", ""]
            continue
        by_cat: dict[str, list[dict[str, Any]]] = {}
        for m in c["misses"]:
            by_cat.setdefault(m["category"], []).append(m)
        for cat in [k for k in c["by_category"] if k in by_cat]:
            misses = by_cat[cat]
            out += [f"### {name}: {cat} ({len(misses)} of {c['by_category'][cat]['questions']})", ""]
            out += ["| id | outcome | question | expected | answer given (first line) | cited | why |", "|---|---|---|---|---|---|---|"]
            for m in misses:
                out.append(
                    f"| {m['id']} | {m.get('outcome', 'wrong')} | {_cell(m['question'])} | {_cell(m['expected'])} | {_cell(m['got']) or '(empty)'} | "
                    f"{_cell(', '.join(m['cited'])) or '-'} | {_cell(m['reason'])} |"
                )
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _reliability_markdown(sets: dict[str, dict[str, Any]]) -> list[str]:
    """The reliability table: how often answers in each confidence band were right."""
    out: list[str] = []
    for name, c in sets.items():
        if not c.get("reliability"):
            continue
        out += [f"## Reliability ({name})", "", "Answers by the confidence they were given; a band whose accuracy sits "
                "below its mean confidence is over-confident.", "",
                "| confidence | answers | right | wrong | mean confidence | accuracy [95% interval] |", "|---|---|---|---|---|---|"]
        for band in c["reliability"]:
            low, high = band["band"]
            out.append(f"| {low:.2f}-{high:.2f} | {band['answers']} | {band['right']} | {band['wrong']} | "
                       f"{fmt(band['mean_confidence'])} | {fmt(band['accuracy'])}{interval_text(band['interval'])} |")
        out.append("")
        out += _stated_markdown(c.get("reliability_stated") or [])
    return out


def _stated_markdown(rows: list[dict[str, Any]]) -> list[str]:
    """The "how sure" bands as answers state them, against what each promises."""
    if not rows:
        return []
    out = ["How sure, as stated: each band's answers against the accuracy it promises.", "",
           "| how sure | answers | right | accuracy [95% interval] | promises | holds |", "|---|---|---|---|---|---|"]
    for row in rows:
        holds = {True: "yes", False: "no", None: "n/a"}[row["holds"]]
        out.append(f"| {row['band']} | {row['answers']} | {row['right']} | {fmt(row['accuracy'])}{interval_text(row['interval'])} | "
                   f"{fmt(row['floor'])} | {holds} |")
    return out + [""]


# -- charts --------------------------------------------------------------------------------------
def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _png(fig) -> bytes:
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def render_chart(s: dict[str, Any]) -> bytes:
    """PNG bytes: horizontal bars of accuracy per category, one bar per set.

    Raises ImportError without matplotlib, ValueError when the summary has no answers."""
    sets = {n: c for n, c in _sets(s).items() if c.get("accuracy") is not None}
    if not sets:
        raise ValueError("no answer accuracy to chart")
    labels = ["all"] + list(dict.fromkeys(cat for c in sets.values() for cat in c["by_category"]))
    fig = _figure(7.5, 0.5 * len(labels) * max(1, len(sets)) / 1.5 + 1.5)
    ax = fig.add_subplot(1, 1, 1)
    height = 0.8 / len(sets)
    for k, (name, c) in enumerate(sets.items()):
        values = [c["accuracy"]] + [(c["by_category"].get(cat) or {}).get("accuracy") or 0.0 for cat in labels[1:]]
        ypos = [len(labels) - 1 - i + 0.4 - height * (k + 0.5) for i in range(len(labels))]
        ax.barh(ypos, values, height=height * 0.95, color=SET_COLORS.get(name, "#777777"), label=name)
        for y, v in zip(ypos, values):
            ax.text(v + 0.01, y, f"{v:.2f}", va="center", fontsize=7)
    ax.set_yticks(list(range(len(labels)))[::-1], labels)
    ax.set_xlim(0, 1.15)
    ax.set_xlabel("accuracy (strict)")
    ax.set_title("Accuracy by category")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    return _png(fig)


def render_curve(s: dict[str, Any]) -> bytes:
    """PNG bytes: accuracy of the answered share against coverage, one line per set."""
    sets = {n: c for n, c in _sets(s).items() if (c.get("risk_coverage") or {}).get("points")}
    if not sets:
        raise ValueError("no risk-coverage curve to chart")
    fig = _figure(7.0, 4.2)
    ax = fig.add_subplot(1, 1, 1)
    for name, c in sets.items():
        points = c["risk_coverage"]["points"]
        ax.plot([p["coverage"] for p in points], [1 - p["risk"] for p in points], color=SET_COLORS.get(name, "#777777"),
                label=f"{name} (AURC {c['aurc']:.3f})")
    target = 1 - next(iter(sets.values()))["risk_coverage"]["risk_target"]
    ax.axhline(target, color="#555555", linestyle="--", linewidth=0.8, label=f"accuracy {target:.2f}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("coverage (share of all questions answered)")
    ax.set_ylabel("accuracy of the answered share")
    ax.set_title("Risk-coverage: answers ordered by confidence")
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)


def write_report(s: dict[str, Any], md_path: str | Path, *, sources: dict[str, str] | None = None) -> tuple[list[Path], list[str]]:
    """Write the markdown report and (when possible) its charts next to it, atomically.

    Returns (paths written, warnings)."""
    md_path = Path(md_path)
    written: list[Path] = []
    warnings: list[str] = []
    names: dict[str, str | None] = {"chart": None, "curve": None}
    if any(c.get("accuracy") is not None for c in _sets(s).values()):
        for key, path, render in (("chart", chart_path_for(md_path), render_chart), ("curve", curve_path_for(md_path), render_curve)):
            try:
                data = render(s)
            except ImportError:
                warnings.append("matplotlib is not installed: the charts were not written (pip install matplotlib)")
                break
            except ValueError:
                continue
            atomic.write_bytes(path, data)
            written.append(path)
            names[key] = path.name
    atomic.write_text(md_path, render_markdown(s, sources=sources, chart=names["chart"], curve=names["curve"]))
    written.insert(0, md_path)
    return written, warnings
