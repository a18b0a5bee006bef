"""The app's warm-up of a built index, as its own process: ``python -m webapp.warm DIR``.

``python -m index prebuilt`` runs this after building the bundled corpus's index so the caches the
assistant keeps beside it (``derived.json``, ``query_vectors.npz``) ship filled. It lives here, not in
``index``, because layers import downwards only (ingest <- index <- assistant <- webapp): the index
names the command, it imports nothing above it.
"""

from __future__ import annotations

import sys
from pathlib import Path


def warm(folder: Path) -> None:
    """Answer the app's warm-up questions on the index at ``folder`` (fills the caches beside it)."""
    from assistant import load_assistant

    from .engine import WARM_QUESTIONS

    built = load_assistant(index_dir=folder)
    for question in WARM_QUESTIONS:
        built.ask(question)
    resources = built.resources
    resources.question_bank()
    resources.provision_meaning("warm", [])
    resources.path_meaning("warm", [])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m webapp.warm INDEX_DIR", file=sys.stderr)
        return 2
    warm(Path(args[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
