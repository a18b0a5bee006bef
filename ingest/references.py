"""The corpus's cross-reference graph: every section, chapter and article the loaded text cites
("Section 17.42.170", "§ 17.24.050(C)", "Chapter 17.84 (Appeals)", "Article 9 (Glossary)"),
with the passage that cites it, resolved to loaded or not.

Pure functions over sections (anything with ``id``, ``title``, ``chapter``, ``document``, ``text``):
``references_in`` finds the citations in one text, ``build_graph`` resolves a corpus's, and
``missing_cited`` / ``coverage`` say what is cited but not loaded. Nothing is read from disk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# "Section 17.42.170", "Sections 17.24.030", "§ 17.24.050(C)", "§§ 17.36.080": a section by number;
# a bare number in a table's specific-use column ("... P P 17.42.170") too.
_SECTION = re.compile(r"(?:\b(?:Sections?|Sec\.)\s+|§§?\s*)?(?<![\d.])(\d{1,2}\.\d{2}\.\d{3})(?![\d])")
# "Chapter 17.84 (Appeals)", "Chapters 17.22 and ...": a chapter only when the word "Chapter" says so.
_CHAPTER = re.compile(r"\bChapters?\s+(\d{1,2}\.\d{2})(?![\d.]\d)")
_ARTICLE = re.compile(r"\bArticle\s+(\d{1,2}|[IVX]{1,4})\b")
# The name the code gives a cited unit right after its number: "(Appeals)" or ", Retail use maximum floor area."
_NAME_AFTER = re.compile(r"^(?:\([A-Za-z0-9]{1,4}\))*\s*(?:\(([A-Z][^()]{2,80})\)|,\s*([A-Z][A-Za-z ,/'’-]{3,80}?)(?:[.;)]|$))")
_SENTENCE_END = re.compile(r"(?<=[.;:])\s+(?=[A-Z(\"“])|\n\s*\n")
MAX_PASSAGE = 320


@dataclass(frozen=True)
class Reference:
    """One citation in the loaded text: what it cites, the name printed with it, and where."""

    kind: str  # section | chapter | article
    target: str  # "17.42.170", "17.84", "9"
    name: str  # the name printed with it ("Appeals"), "" when none
    section: str  # the citing section's id
    document: str  # the citing section's document
    passage: str  # the sentence that cites it

    @property
    def label(self) -> str:
        """"Chapter 17.84 (Appeals)", "Section 17.42.170", "Article 9 (Glossary)"."""
        head = {"section": "Section", "chapter": "Chapter", "article": "Article"}[self.kind]
        return f"{head} {self.target}" + (f" ({self.name})" if self.name else "")


@dataclass(frozen=True)
class Target:
    """A cited section, chapter or article, resolved: ``status`` is loaded | partly loaded | not loaded
    | unresolved (an article: the documents do not say which chapters it holds)."""

    kind: str
    target: str
    name: str
    status: str
    cited_by: tuple[Reference, ...]

    @property
    def label(self) -> str:
        return Reference(self.kind, self.target, self.name, "", "", "").label

    def to_json(self) -> dict:
        return {"kind": self.kind, "target": self.target, "name": self.name, "status": self.status,
                "cited_by": [{"section": r.section, "document": r.document, "passage": r.passage} for r in self.cited_by]}


@dataclass(frozen=True)
class Graph:
    """The loaded section ids and chapters, and every cited target resolved."""

    sections: frozenset[str]
    chapters: dict  # chapter -> "loaded" (a codified chapter document) | "partly loaded"
    targets: tuple[Target, ...]

    def target(self, kind: str, target: str) -> Target | None:
        return next((t for t in self.targets if t.kind == kind and t.target == target), None)

    def missing(self) -> tuple[Target, ...]:
        return tuple(t for t in self.targets if t.status == "not loaded")


def passage_around(text: str, start: int, end: int, limit: int = MAX_PASSAGE) -> str:
    """The sentence of ``text`` holding ``text[start:end]``, one line, cut to ``limit`` characters
    around the citation when longer."""
    left = max((m.end() for m in _SENTENCE_END.finditer(text, 0, start)), default=0)
    right = next((m.start() for m in _SENTENCE_END.finditer(text, end)), len(text))
    left = max(left, text.rfind("\n", 0, start) + 1)  # a line of its own (a table row, a list item) is its sentence
    newline = text.find("\n", end)
    right = min(right, newline) if newline != -1 else right
    sentence = " ".join(text[left:right].split())
    if len(sentence) <= limit:
        return sentence
    at = sentence.find(" ".join(text[start:end].split()))
    lo = max(0, min(at - limit // 2, len(sentence) - limit))
    return ("…" if lo else "") + sentence[lo:lo + limit].strip() + ("…" if lo + limit < len(sentence) else "")


def _name_after(text: str, end: int) -> str:
    found = _NAME_AFTER.match(text[end:end + 90])
    if not found:
        return ""
    return " ".join((found.group(1) or found.group(2) or "").split()).rstrip(",")


def references_in(text: str) -> list[tuple[str, str, str, int, int]]:
    """(kind, target, printed name, start, end) of each citation in ``text``, in text order."""
    found = []
    for kind, pattern in (("section", _SECTION), ("chapter", _CHAPTER), ("article", _ARTICLE)):
        for match in pattern.finditer(text):
            found.append((kind, match.group(1), _name_after(text, match.end()), match.start(), match.end()))
    return sorted(found, key=lambda item: item[3])


def references_of(sections) -> tuple[Reference, ...]:
    """Every citation of every section, one per (citing section, cited target); a section citing itself
    is not a reference."""
    out: dict[tuple, Reference] = {}
    for section in sections:
        for kind, target, name, start, end in references_in(section.text):
            if kind == "section" and section.id.endswith(target):  # itself, or its own heading with a digit lost
                continue
            key = (section.id, section.document, kind, target)
            if key not in out or (name and not out[key].name):
                out[key] = Reference(kind, target, name, section.id, section.document, passage_around(section.text, start, end))
    return tuple(out.values())


def loaded_chapters(sections, codified: frozenset[str] = frozenset()) -> dict[str, str]:
    """Chapter -> "loaded" when a codified-chapter document holds it whole (``codified``), else
    "partly loaded" when some of its sections are loaded."""
    chapters = {s.id.rsplit(".", 1)[0] for s in sections if ":" not in s.id}
    return {c: ("loaded" if c in codified else "partly loaded") for c in sorted(chapters, key=number_key)}


def _status(kind: str, target: str, sections: frozenset[str], chapters: dict) -> str:
    if kind == "section":
        return "loaded" if target in sections else "not loaded"
    if kind == "chapter":
        return chapters.get(target, "not loaded")
    return "unresolved"


def build_graph(sections, codified: frozenset[str] = frozenset()) -> Graph:
    """Resolve every citation of ``sections``; ``codified``: chapters a codified-chapter document holds."""
    sections = list(sections)
    loaded = frozenset(s.id for s in sections)
    chapters = loaded_chapters(sections, codified)
    grouped: dict[tuple[str, str], list[Reference]] = {}
    for reference in references_of(sections):
        grouped.setdefault((reference.kind, reference.target), []).append(reference)
    targets = []
    for (kind, target), refs in sorted(grouped.items(), key=lambda kv: (kv[0][0], number_key(kv[0][1]))):
        name = next((r.name for r in refs if r.name), "")
        if kind == "section" and target in loaded:
            name = next((s.title for s in sections if s.id == target), name)
        targets.append(Target(kind, target, name, _status(kind, target, loaded, chapters), tuple(refs)))
    return Graph(loaded, chapters, tuple(targets))


def number_key(text: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[.:-]", text))


# Words too common in the code to tie a question to a citation.
_COMMON = frozenset("this that with from shall such which their there these those have been will would could should "
                    "about what when where does city cotati code section sections chapter chapters title article "
                    "compliance accordance provided provisions required requirements other under into than more".split())


def stems(text: str) -> frozenset[str]:
    """Content words of ``text`` cut to five letters ("Appeals", "appeal" -> "appea"); three letters at least."""
    return frozenset(w[:5] for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in _COMMON)


def cited_missing(question: str, citing: list[str], graph: Graph, limit: int = 2) -> list[tuple[Target, Reference]]:
    """Targets not loaded that the sections ``citing`` (ids, nearest first) cite and the question is
    about: the printed name shares a word with the question, or the citing passage shares two.
    Best first (name matches, then more shared words, then the nearer citing section), at most ``limit``."""
    asked = stems(question)
    order = {section: rank for rank, section in enumerate(citing)}
    scored = []
    for target in graph.missing():
        for reference in target.cited_by:
            if reference.section not in order:
                continue
            by_name = len(asked & stems(target.name))
            # A passage cut short is a table's flattened rows, not a sentence: only its name can tie it.
            by_passage = 0 if reference.passage.endswith("…") else len(asked & stems(reference.passage))
            if by_name or by_passage >= 2:
                scored.append(((-min(by_name, 1), -by_passage, order[reference.section], target.target), target, reference))
    out: dict[tuple[str, str], tuple[Target, Reference]] = {}
    for _, target, reference in sorted(scored, key=lambda item: item[0]):
        out.setdefault((target.kind, target.target), (target, reference))
    return list(out.values())[:limit]
