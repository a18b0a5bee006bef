"""``python -m ingest tables [--json] [--review] [--table T] [--section S] [--corpus DIR]``.

With ``--json``: one JSON object per effective cell (table, section, row, column, value,
footnotes, document, date, history, ...). Without: a readable summary per table and the cells
flagged for review.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .types import EffectiveCell, TableError, TableSet


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ingest tables", description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per effective cell")
    parser.add_argument("--review", action="store_true", help="only cells flagged for review")
    parser.add_argument("--table", help='only this table number ("2-4")')
    parser.add_argument("--section", help='only this section ("17.22.020")')
    parser.add_argument("--corpus", help="corpus directory (default: the bundled corpus)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(argv) if argv is not None else None)
    from . import load_tables  # heavy-ish work only once the arguments are valid

    try:
        tables = load_tables(args.corpus)
    except TableError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    cells = [
        cell for cell in tables.effective
        if (not args.table or cell.cell.table == args.table)
        and (not args.section or cell.cell.section == args.section)
        and (not args.review or cell.cell.review)
    ]
    out = sys.stdout
    try:
        if args.json:
            for cell in cells:
                out.write(json.dumps(cell.to_json(), ensure_ascii=False) + "\n")
        else:
            out.write(summary(tables, cells))
        out.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        sys.stderr.close()
        return 0
    for error in tables.errors:
        print(f"error: {error}", file=sys.stderr)
    return 1 if tables.errors else 0


def summary(tables: TableSet, cells: list[EffectiveCell]) -> str:
    lines: list[str] = []
    groups: dict[tuple[str, str], list[EffectiveCell]] = {}
    for cell in cells:
        groups.setdefault((cell.cell.section, cell.cell.table), []).append(cell)
    for (section, table), group in groups.items():
        versions = [v for v in tables.versions if (v.section, v.table) == (section, table)]
        rows = {(c.cell.category, c.cell.row) for c in group}
        columns = list(dict.fromkeys(c.cell.column for c in group))
        amended = sum(1 for c in group if c.history and c.history[-1].value != c.cell.value)
        dropped = {(c.cell.category, c.cell.row) for c in group if not c.restated}
        review = [c for c in group if c.cell.review]
        lines.append(f"{section} Table {table}: {len(rows)} rows x {len(columns)} columns, {len(group)} cells")
        lines.append("  columns: " + ", ".join(columns))
        lines.append("  versions: " + "; ".join(
            f"{v.document} {v.date}{' (excerpt)' if v.partial else ''}: {len(v.rows)} rows" for v in versions
        ))
        lines.append(f"  changed by a later document: {amended} cells; rows not restated: {len(dropped)};"
                     f" flagged for review: {len(review)}")
        for version in versions:
            for text in version.unparsed:
                lines.append(f"  unparsed text ({version.document}): {text[:120]}")
    review = [c for c in cells if c.cell.review]
    lines.append("")
    lines.append(f"Cells flagged for review: {len(review)}")
    for c in review:
        cell = c.cell
        lines.append(
            f"  {cell.section} {cell.table} | {cell.row} | {cell.column} | {cell.document}"
            f" | value={cell.value!r} raw={cell.raw!r} | {cell.review_reason}"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
