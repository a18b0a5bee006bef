"""``python -m ingest provisions [--section S] [--as-of DATE] [--json] [--corpus DIR]``.

With ``--json``: one JSON object per effective provision (section, label, path, text, values,
untyped, scope, document, date, lines, history, ...). Without: a readable listing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .types import IngestError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ingest provisions", description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per provision")
    parser.add_argument("--section", help='only this section ("17.44.060")')
    parser.add_argument("--as-of", dest="as_of", metavar="DATE", help="the law as it stood on DATE (YYYY-MM-DD)")
    parser.add_argument("--corpus", help="corpus directory (default: the bundled corpus)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(argv) if argv is not None else None)
    from .asof import as_of_option

    if not as_of_option(args):
        return 2
    from .integrity import CorpusError, check_corpus
    from .provisions import load_provisions

    try:
        check_corpus(args.corpus)
        provisions = load_provisions(args.corpus, args.as_of)
    except CorpusError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except IngestError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.section:
        known = {p.section for p in provisions}
        if args.section not in known:
            when = f" as of {args.as_of}" if args.as_of else ""
            print(f"error: --section {args.section!r}: no such section in the corpus{when}", file=sys.stderr)
            return 2
        provisions = [p for p in provisions if p.section == args.section]
    try:
        _print(provisions, args.json, args.as_of)
    except BrokenPipeError:
        sys.stderr.close()
    return 0


def _print(provisions, as_json: bool, as_of: str | None) -> None:
    out = sys.stdout
    if as_json:
        for provision in provisions:
            record = provision.to_json()
            if as_of:
                record["as_of"] = as_of
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        out.flush()
        return
    for provision in provisions:
        values = "; ".join(_value_text(v) for v in provision.values)
        changed = f"  [amended; earlier: {', '.join(h.document for h in provision.history)}]" if provision.history else ""
        out.write(f"{provision.label}  ({provision.document} {provision.date}, lines "
                  f"{provision.lines[0]}-{provision.lines[1]}){changed}\n")
        out.write(f"  path: {' > '.join(provision.path)}\n")
        if provision.scope:
            out.write(f"  scope: {', '.join(provision.scope)}\n")
        out.write(f"  {provision.text[:300]}{'…' if len(provision.text) > 300 else ''}\n")
        if values:
            out.write(f"  values: {values}\n")
    out.write(f"{len(provisions)} provisions\n")
    out.flush()


def _value_text(value) -> str:
    if value.kind in ("permit", "body"):
        return f"{value.kind} {value.quantity_unit}"
    if value.kind == "rule":
        return f"rule {value.op} of {' | '.join(value.operands)}"
    bound = f" {value.bound}" if value.bound else ""
    return f"{value.kind}{bound} {value.text!r} = {value.quantity:g} {value.quantity_unit}" if value.quantity is not None \
        else f"{value.kind} {value.text!r}"


if __name__ == "__main__":
    raise SystemExit(main())
