"""``python -m ingest diff FILE --date DATE [--title T] [--json] [--corpus DIR]``,
``python -m ingest diff --document ID [--json] [--corpus DIR]`` (what a loaded document changed) and
``python -m ingest add FILE --date DATE --title TITLE [--id ID] [--kind K] [--corpus DIR] [--build-index]``."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from .changes import add_document, diff_document, format_diff
from .types import IngestError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ingest", description="What a new document changes; add it.")
    commands = parser.add_subparsers(dest="command", required=True)
    diff = commands.add_parser("diff", help="what a new document would change (the corpus is not touched)")
    diff.add_argument("file", metavar="FILE", nargs="?", help="the new document (.txt or .pdf)")
    diff.add_argument("--date", help="its date (YYYY-MM-DD): where it falls among the corpus documents")
    diff.add_argument("--document", metavar="ID", help="a document already in the corpus (manifest id): what it changed")
    diff.add_argument("--effective", default="", help="the day it takes effect, when not what its text says")
    diff.add_argument("--title", default="", help="its title")
    diff.add_argument("--kind", default="ordinance", help="ordinance (default) or 'codified chapter'")
    diff.add_argument("--json", action="store_true", help="one JSON object")
    diff.add_argument("--corpus", help="corpus directory (default: the bundled corpus or COTATI_CORPUS_DIR)")
    add = commands.add_parser("add", help="copy a document into the corpus with a manifest entry")
    add.add_argument("file", metavar="FILE")
    add.add_argument("--date", required=True, help="its date (YYYY-MM-DD): the day it was adopted (a codified "
                     "chapter: published); it takes effect then, or as many days later as its text says")
    add.add_argument("--effective", default="", help="the day it takes effect (YYYY-MM-DD), when not what its text says")
    add.add_argument("--pending", action="store_true",
                     help="it takes effect more than a year ahead: add it as pending (never today's law before then)")
    add.add_argument("--replaces", default="", metavar="ID",
                     help="the loaded document it supersedes, when it restates one")
    add.add_argument("--title", required=True)
    add.add_argument("--short-title", dest="short_title", default="")
    add.add_argument("--status", default="", help='e.g. "adopted (Ord. 940)"')
    add.add_argument("--id", dest="doc_id", default="", help="manifest id (default: the next free number)")
    add.add_argument("--kind", default="ordinance")
    add.add_argument("--corpus", help="corpus directory (default: the bundled corpus or COTATI_CORPUS_DIR)")
    add.add_argument("--build-index", action="store_true",
                     help="rebuild the search index now (python -m index build; unchanged chunks keep their vectors)")
    return parser


def _diff(args):
    """The new file's diff, or (``--document``) the loaded document's; ValueError for a wrong mix."""
    if args.document:
        if args.file:
            raise ValueError("give FILE (a new document) or --document ID (a loaded one), not both")
        from . import load_corpus, load_manifest
        from .changes import loaded_document_diff
        from .manifest import default_corpus_dir

        documents = {d.id: d for d in load_manifest(args.corpus or default_corpus_dir())}
        if args.document not in documents:
            raise ValueError(f"--document {args.document!r}: not in the manifest ({', '.join(sorted(documents))})")
        return loaded_document_diff(load_corpus(args.corpus).sections, documents[args.document])
    if not args.file or not args.date:
        raise ValueError("diff needs FILE and --date (a new document), or --document ID (a loaded one)")
    return diff_document(args.file, args.date, args.corpus, args.title, args.kind, args.effective)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "diff":
            from .integrity import check_corpus

            check_corpus(args.corpus)  # a manifest the lock does not vouch for stops here, as everywhere
            diff = _diff(args)
            if args.json:
                sys.stdout.write(json.dumps(diff.to_json(), ensure_ascii=False) + "\n")
            else:
                sys.stdout.write(format_diff(diff))
            return 0
        entry = add_document(args.file, args.date, args.title, args.corpus, args.kind, args.doc_id,
                             args.short_title, args.status, args.effective, args.pending, args.replaces)
    except (ValueError, IngestError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    from .asof import today

    print(f"added {entry['id']}: {entry['file']} ({entry['date']}) {entry['title']}")
    print(f"It {entry['date_basis']}." + (f" Pending: not the law before {entry['date']}." if entry["date"] > today()
                                          else ""))
    if not args.build_index:
        print("The search index is now stale: it rebuilds on next use, or run `python -m index build` "
              "(unchanged chunks keep their vectors).")
        return 0
    env = dict(os.environ)
    if args.corpus:
        env["COTATI_CORPUS_DIR"] = args.corpus
    return subprocess.run([sys.executable, "-m", "index", "build"], env=env).returncode
