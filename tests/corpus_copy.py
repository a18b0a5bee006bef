"""The bundled corpus and a writable copy of it, for tests that damage or extend a corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "corpus" / "cotati"
ORD_001 = "2026-08-11_ord-corrections-streamlining.txt"


def copy_corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    shutil.copytree(CORPUS, folder)
    return folder
