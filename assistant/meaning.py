"""Land-use rows by meaning: each permit-table row described in the code's own words (its label,
its heading, the definition the code gives the term, the everyday words of ``data/land_uses.json``
that point to it), embedded once with the index's own model; a question is compared with them.

Word matching finds rows whose label the question says; this finds the row a question *means*
("workout studio" -> Health/fitness facility, not Broadcasting studio), and says how sure it is
(the similarity and the margin over the next row), which the calibrated confidence weighs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .choose import TUNED
from .permits import STOP, words_of



@dataclass(frozen=True)
class Meaning:
    table: str
    row: str
    similarity: float  # cosine of the question and the row's description


def describe(row: str, category: str, definition: str, everyday: Sequence[str]) -> str:
    """The text embedded for a row: what the code calls it, under which heading, what it means."""
    parts = [f"{row} ({category})" if category else row]
    if everyday:
        parts.append("Also called: " + ", ".join(everyday) + ".")
    if definition:
        parts.append(definition[:TUNED.meaning_definition_chars])
    return " ".join(parts)


def _label_words(text: str) -> frozenset[str]:
    return frozenset(w for w in words_of(text) if w not in STOP)


def defined_terms(definitions) -> dict[frozenset[str], str]:
    """Each defined term's words -> its definition (the first printed, as the code reads them)."""
    defined: dict[frozenset[str], str] = {}
    for definition in definitions:
        defined.setdefault(_label_words(definition.term), definition.text)
    return defined


def everyday_words(row: str, synonyms: Iterable[tuple[str, str]]) -> list[str]:
    """The everyday words of the vocabulary that point to ``row`` (their target is its label, or part).
    ``synonyms``: (phrase, label) pairs, ``Vocabulary.everyday_pairs``."""
    label = _label_words(row)
    return sorted({phrase for phrase, target in synonyms if target and _label_words(target) and _label_words(target) <= label})


def row_names(row: str, defined: dict[frozenset[str], str], synonyms: Iterable[tuple[str, str]]) -> list[str]:
    """The short names of a row: its label, each everyday word that points to it, and each example
    its definition lists (17.90.020: a check cashing store is a restricted personal service)."""
    return [row, *everyday_words(row, synonyms), *definition_examples(defined.get(_label_words(row), ""))]


def row_descriptions(tables, definitions, synonyms: Iterable[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(table, row, description) for every permit row, in table order."""
    defined = defined_terms(definitions)
    out = []
    for table, rows in tables.rows.items():
        for row in rows:
            definition = defined.get(_label_words(row), "")
            out.append((table, row, describe(row, tables.category(table, row), definition,
                                             everyday_words(row, synonyms)[:8])))
    return out


EXAMPLES = re.compile(r"\binclude:?\s*(?P<items>(?:\d{1,2}\.\s*[^;]+;?\s*)+)", re.I)
EXAMPLE_ITEM = re.compile(r"\d{1,2}\.\s*([^;]+)")


def definition_examples(definition: str) -> list[str]:
    """The examples a definition lists ("Examples of these uses include: 1. Check cashing stores;
    2. Fortune tellers; ..." -> ["Check cashing stores", "Fortune tellers", ...])."""
    found = EXAMPLES.search(definition)
    if not found:
        return []
    return [item.strip().rstrip(".") for item in EXAMPLE_ITEM.findall(found.group("items")) if item.strip()]


def row_phrases(descriptions: list[tuple[str, str, str]], definitions,
                synonyms: Iterable[tuple[str, str]]) -> list[tuple[int, str]]:
    """(description index, text) of the short names of each row (``row_names``). A short question
    ("restaurant") is nearest to a name, not to a long description; a row is as near as the nearest
    of its texts."""
    defined = defined_terms(definitions)
    return [(index, name) for index, (_, row, _) in enumerate(descriptions) for name in row_names(row, defined, synonyms)]


class UseMeanings:
    """Row descriptions and their vectors; ``encode(texts) -> unit vectors`` is the index's encoder.
    ``phrases``: (description index, text) of further texts for a row (its label, its everyday
    words); a row's similarity is that of its nearest text."""

    def __init__(self, descriptions: list[tuple[str, str, str]], encode: Callable[[list[str]], object],
                 phrases: Sequence[tuple[int, str]] = ()):
        self.descriptions = descriptions
        self._encode = encode
        self._owners = list(range(len(descriptions))) + [index for index, _ in phrases]
        self._texts = [text for _, _, text in descriptions] + [text for _, text in phrases]
        self._vectors = None

    def _matrix(self):
        if self._vectors is None:
            import numpy as np

            vectors = np.asarray(self._encode(self._texts), dtype="float32")
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            self._vectors = vectors / np.maximum(norms, 1e-9)
        return self._vectors

    def rank(self, question: str, tables: Sequence[str] | None = None, n: int = 5,
             spans: Sequence[str] = ()) -> list[Meaning]:
        """The rows nearest in meaning to ``question`` (only ``tables`` when given), best first.
        ``spans``: parts of a long question that name the use; a row is as near as the nearest of
        the question and its spans, as it is as near as the nearest of its own names."""
        import numpy as np

        vectors = self._matrix()
        queries = np.asarray(self._encode([question, *spans]), dtype="float32")
        queries = queries / np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-9)
        every = (vectors @ queries.T).max(axis=1)
        sims = np.full(len(self.descriptions), -1.0, dtype="float32")
        np.maximum.at(sims, np.asarray(self._owners), every)
        order = sorted(range(len(self.descriptions)), key=lambda i: (-float(sims[i]), i))
        out: list[Meaning] = []
        for i in order:
            table, row, _ = self.descriptions[i]
            if tables is not None and table not in tables:
                continue
            out.append(Meaning(table, row, round(float(sims[i]), 4)))
            if len(out) >= n:
                break
        return out
