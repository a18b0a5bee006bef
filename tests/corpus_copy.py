"""The bundled corpus and a writable copy of it, for tests that damage or extend a corpus."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "corpus" / "cotati"
ORD_001 = "2026-08-11_ord-corrections-streamlining.txt"


def copy_corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    shutil.copytree(CORPUS, folder)
    return folder


def corpus_without(tmp_path: Path, document_id: str) -> Path:
    """A signed copy of the corpus without one document: what the corpus was before it was added."""
    from ingest.integrity import sign_corpus

    folder = tmp_path / "corpus"
    folder.mkdir()
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    manifest["documents"] = [d for d in manifest["documents"] if d["id"] != document_id]
    for document in manifest["documents"]:
        shutil.copyfile(CORPUS / document["file"], folder / document["file"])
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    sign_corpus(folder)  # the operator signs off the smaller corpus
    return folder

# What the lead of an answer resting only on the 2023 telecommunications ordinance (a proposal: no adoption
# date in its text) adds after its first sentence (issue 45).
PROPOSED_000 = ("This rests only on a proposed ordinance, not shown adopted: Telecommunications facilities ordinance "
                "(000, effective 2023-12-06 at the earliest).")
