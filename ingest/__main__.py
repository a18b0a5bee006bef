"""``python -m ingest [PATH ...] [--json]`` lists sections; ``python -m ingest tables`` lists table cells;
``python -m ingest diff FILE --date DATE`` shows what a new document would change; ``python -m ingest add
FILE --date DATE --title TITLE`` adds it to the corpus."""

from __future__ import annotations

import argparse
import json
import sys

from . import ingest_paths, load_corpus
from .integrity import check_corpus
from .types import IngestError, IngestResult, Section


def main(argv: list[str] | None = None) -> int:
    import settings

    argv = list(sys.argv[1:] if argv is None else argv)
    problem = settings.check()  # every setting parsed and range-checked before anything runs
    if problem:
        print(problem, file=sys.stderr)
        return 1
    if argv[:1] == ["tables"]:
        from .tables.cli import main as tables_main

        return tables_main(argv[1:])
    if argv[:1] == ["provisions"]:
        from .provisions_cli import main as provisions_main

        return provisions_main(argv[1:])
    if argv[:1] == ["checksum"]:
        return _checksum(argv[1:])
    if argv[:1] in (["diff"], ["add"]):
        from .changes_cli import main as changes_main

        return changes_main(argv)
    parser = argparse.ArgumentParser(
        prog="python -m ingest",
        description="Split ordinance and code documents (.txt, .pdf) into sections. "
        "Without PATH: the bundled corpus. Subcommands: 'tables' for table cells, 'provisions' for running text "
        "as provisions with typed values, 'diff' for what a new "
        "document changes, 'add' to add it to the corpus, 'checksum' to record the documents' sha256 in the "
        "manifest and sign the corpus lock after an intended edit.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="documents to ingest (.txt or .pdf)")
    parser.add_argument("--json", action="store_true", help="one JSON object per section")
    args = parser.parse_args(argv)
    try:
        if not args.paths:
            check_corpus()
        result = ingest_paths(args.paths) if args.paths else load_corpus()
    except IngestError as error:  # a broken manifest or a damaged document: say what, not a traceback
        print(f"error: {error}", file=sys.stderr)
        return 1
    try:
        _print(result, as_json=args.json)
    except BrokenPipeError:  # output piped into `head`: not an error
        sys.stderr.close()
        return 0
    for error in result.errors:
        print(f"error: {error}", file=sys.stderr)
    return 1 if result.errors else 0


def _checksum(argv: list[str]) -> int:
    from .integrity import sign_corpus

    parser = argparse.ArgumentParser(
        prog="python -m ingest checksum",
        description="Record each corpus document's sha256 in manifest.json, after checking the documents read, "
        "and sign corpus.lock.json (id, date, file, sha256 of each; who and when in its history). "
        "Run it only after an intended edit: the checksums are what every entry point verifies before serving.")
    parser.add_argument("--corpus", help="corpus directory (default: the bundled corpus or COTATI_CORPUS_DIR)")
    args = parser.parse_args(argv)
    try:
        changed, signed = sign_corpus(args.corpus)
    except IngestError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except OSError as error:  # a read-only corpus folder, a full disk: one line, not a traceback
        where = error.filename or args.corpus or "the corpus folder"
        print(f"error: {where}: cannot write the corpus folder ({error.strerror or error}); sign a writable copy or "
              "ask its owner", file=sys.stderr)
        return 1
    for doc_id, old, new in changed:
        print(f"{doc_id}: sha256 {old[:12] or '(none)'} -> {new[:12]}")
    for line in signed:
        print(line)
    if not changed and not signed:
        print("checksums already recorded and signed; nothing changed")
    return 0


def section_record(section: Section) -> dict:
    return {
        "section": section.id,
        "title": section.title,
        "chapter": section.chapter,
        "document": section.document,
        "date": section.date,
        "chars": section.chars,
        "pages": list(section.pages),
        "start": section.start,
        "end": section.end,
        "excerpt": section.excerpt,
        "ordinance_section": section.ordinance_section,
        "kind": section.kind,
    }


def _print(result: IngestResult, as_json: bool) -> None:
    out = sys.stdout
    if as_json:
        for section in result.sections:
            out.write(json.dumps(section_record(section), ensure_ascii=False) + "\n")
        return
    out.write(f"{'document':<9} {'date':<10} {'section':<16} {'chars':>6} {'pages':<9} title\n")
    for section in result.sections:
        pages = _page_range(section.pages)
        flag = " (excerpt)" if section.excerpt else ""
        out.write(
            f"{section.document:<9} {section.date:<10} {section.id:<16} {section.chars:>6} "
            f"{pages:<9} {section.title[:70]}{flag}\n"
        )
    documents = len({section.document for section in result.sections})
    out.write(f"{len(result.sections)} sections from {documents} documents\n")


def _page_range(pages: tuple[int, ...]) -> str:
    if not pages:
        return ""
    return str(pages[0]) if pages[0] == pages[-1] else f"{pages[0]}-{pages[-1]}"


if __name__ == "__main__":
    sys.exit(main())
