"""``python -m ingest tables [--json] [--review] [--table T] [--section S] [--district D] [--as-of DATE] [--corpus DIR]``.

With ``--json``: one JSON object per effective cell (table, section, row, column, value,
footnotes, document, date, history, ..., reviewed, reading, districts). Without: a readable
summary per table and the cells flagged for review, with the reviewed reading of each.
``--as-of DATE`` gives the cells as they stood on that day (later documents ignored; with
``--json`` each cell also carries ``as_of`` and whether its document is a proposed one).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ingest.types import IngestError

from .types import EffectiveCell, TableError, TableSet


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ingest tables", description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per effective cell")
    parser.add_argument("--review", action="store_true", help="only cells flagged for review")
    parser.add_argument("--table", help='only this table number ("2-4")')
    parser.add_argument("--section", help='only this section ("17.22.020")')
    parser.add_argument("--district", help='only cells about this district, as column or row ("SW")')
    parser.add_argument("--as-of", dest="as_of", metavar="DATE", help="the law as it stood on DATE (YYYY-MM-DD)")
    parser.add_argument("--corpus", help="corpus directory (default: the bundled corpus)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(argv) if argv is not None else None)
    from ingest.asof import as_of_option

    if not as_of_option(args):
        return 2
    from . import load_tables, tables_as_of  # heavy-ish work only once the arguments are valid
    from .districts_of import matches_district

    from ingest.integrity import CorpusError, check_corpus

    try:
        check_corpus(args.corpus)  # a missing, unreadable or changed document: one line, no smaller corpus
    except CorpusError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except IngestError as error:  # the manifest itself
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        tables = load_tables(args.corpus)
        documents = _documents(args.corpus) if args.as_of else ()
    except (TableError, IngestError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.as_of:
        tables = tables_as_of(tables, args.as_of)
    else:  # today's law: a document that takes effect later is pending, never today's law (issue 45)
        from ingest.asof import pending, today

        try:
            waiting = pending(_documents(args.corpus))
        except IngestError:
            waiting = []
        if waiting:
            tables = tables_as_of(tables, today())
            print(f"note: {', '.join(f'{d.id} (takes effect {d.date})' for d in waiting)} pending: left out of "
                  "today's cells; --as-of DAY shows the law on that day", file=sys.stderr)
    cells = [
        cell for cell in tables.effective
        if (not args.table or cell.cell.table == args.table)
        and (not args.section or cell.cell.section == args.section)
        and (not args.review or cell.cell.review)
        and (not args.district or matches_district(cell.cell, args.district))
    ]
    out = sys.stdout
    try:
        if args.json:
            status = {doc.id: doc for doc in documents}
            for cell in cells:
                record = cell.to_json()
                if args.as_of:
                    doc = status.get(cell.cell.document)
                    record["as_of"] = args.as_of
                    record["proposed"] = bool(doc and "proposed" in doc.status.lower())
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            if args.as_of:
                from ingest.asof import in_force_line

                out.write(in_force_line(documents, args.as_of) + "\n\n")
            out.write(summary(tables, cells))
        out.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        sys.stderr.close()
        return 0
    for error in tables.errors:
        print(f"error: {error}", file=sys.stderr)
    return 1 if tables.errors else 0


def _documents(corpus: str | None):
    from ingest.manifest import default_corpus_dir, load_manifest

    return load_manifest(Path(corpus) if corpus else default_corpus_dir())


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
        reviewed = [c for c in review if c.cell.reviewed]
        lines.append(f"{section} Table {table}: {len(rows)} rows x {len(columns)} columns, {len(group)} cells")
        lines.append("  columns: " + ", ".join(columns))
        lines.append("  versions: " + "; ".join(
            f"{v.document} {v.date}{' (excerpt)' if v.partial else ''}: {len(v.rows)} rows" for v in versions
        ))
        lines.append(f"  changed by a later document: {amended} cells; rows not restated: {len(dropped)};"
                     f" flagged for review: {len(review)} (reviewed readings: {len(reviewed)},"
                     f" unanswered: {len(review) - len(reviewed)})")
        for version in versions:
            for text in version.unparsed:
                lines.append(f"  unparsed text ({version.document}): {text[:120]}")
    review = [c for c in cells if c.cell.review]
    lines.append("")
    lines.append(f"Cells flagged for review: {len(review)}"
                 f" (answered by reviewed readings: {sum(1 for c in review if c.cell.reviewed)})")
    for c in review:
        cell = c.cell
        reading = cell.reading
        read = (f" | reviewed: {reading.status} {cell.value!r} ({reading.basis})" if reading
                else " | UNANSWERED")
        lines.append(
            f"  {cell.section} {cell.table} | {cell.row} | {cell.column} | {cell.document}"
            f" | raw={cell.raw!r} | {cell.review_reason}{read}"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
