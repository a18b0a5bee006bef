"""Table 6-1 (17.60.040): which review authority recommends, decides or hears appeals.

Each row prints a decision type, its code section (sometimes none), then one role word per
authority that has a role. When fewer role words than authority columns are printed, the
flattened text no longer says which column is empty, so those role cells are flagged for review
with the printed sequence; the code-section cell is still read.
"""

from __future__ import annotations

import re

from .segment import TableBlock
from .text import footnotes_for, normalise_label, parse_notes, squash
from .types import Cell, Footnote, TableError, TableVersion
from .vocab import vocabulary

SECTION_REF = re.compile(r"^\d{2}\.\d{2}(?:\.\d{3})?(?:\([A-Z]\))?$")


def parse(block: TableBlock, spec: dict, section) -> TableVersion:
    where = f"{section.id} Table {block.number} ({section.document})"
    text = "\n".join(block.lines)
    text = _join_split_letters(text, vocabulary().roles)
    notes_at = re.search(r"(?:^|\s)Notes:", text)
    body = text[: notes_at.start()] if notes_at else text
    notes = parse_notes(text[notes_at.end():] if notes_at else "")
    header = spec["header"]
    pieces = re.split(header, body, flags=re.I)
    if len(pieces) < 2:
        raise TableError(where, "column header not found")
    body = "\n".join(pieces[1:])
    role_re = re.compile(r"^(" + "|".join(vocabulary().roles) + r")(\(\d+\))?$")
    rows = _rows(body, role_re)
    section_column, *authorities = spec["columns"]
    cells: list[Cell] = []
    for category, words, ref, roles, source in rows:
        common = dict(
            table=spec["table"], section=section.id, category=category, row=normalise_label(" ".join(words)),
            document=section.document, date=section.date, kind="standard", source=source,
            ordinance_section=getattr(section, "ordinance_section", ""),
        )
        if ref:
            cells.append(Cell(column=section_column, value=ref, raw=ref, **common))
        else:
            cells.append(Cell(column=section_column, value=None, review=True, raw="",
                              review_reason="no code section printed (blank or merged cell)", **common))
        printed = " ".join(role + (f"({n})" if n else "") for role, n in roles)
        for index, column in enumerate(authorities):
            if len(roles) != len(authorities):
                cells.append(Cell(
                    column=column, value=None, review=True, raw=printed,
                    review_reason=f"{len(roles)} roles printed for {len(authorities)} authority columns: "
                    "cannot tell which columns are empty", **common,
                ))
                continue
            role, number = roles[index]
            cells.append(Cell(column=column, value=role, raw=role + (f"({number})" if number else ""),
                              footnotes=footnotes_for((number,) if number else (), notes, "cell"), **common))
    return TableVersion(
        table=spec["table"], section=section.id, title=block.title, document=section.document,
        date=section.date, columns=tuple(spec["columns"]), cells=tuple(cells),
        notes=tuple(Footnote(n, t, "table") for n, t in notes.items()),
    )


def _join_split_letters(text: str, words: tuple[str, ...]) -> str:
    """"Recom m end" -> "Recommend" for the role words, should cleaning have left them split."""
    for word in words:
        text = re.sub(r"\s?".join(re.escape(ch) for ch in word), word, text)
    return text


def _rows(body: str, role_re: re.Pattern) -> list[tuple[str, list[str], str, list[tuple[str, str]], str]]:
    """(category, label words, code section, roles, source) per row, in printed order."""
    lines = [line.strip() for line in body.split("\n") if line.strip()]
    rows: list = []
    category = ""
    words: list[str] = []
    ref = ""
    roles: list[tuple[str, str]] = []
    source: list[str] = []

    def finish() -> None:
        nonlocal words, ref, roles, source
        if roles:
            rows.append((category, words, ref, roles, squash(" | ".join(source))))
        words, ref, roles, source = [], "", [], []

    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        tokens = line.split()
        started_here = False
        for token in tokens:
            role = role_re.match(token)
            if role:
                roles.append((role.group(1), (role.group(2) or "").strip("()")))
            elif SECTION_REF.match(token) and not roles:
                ref = token
            else:
                if roles:
                    finish()
                if not words:
                    started_here = True
                    source.append(line)
                words.append(token)
        if line not in source and (words or roles):
            source.append(line)
        # Words that start on this line, after a finished row, followed by a capitalised line: a heading.
        if words and not roles and not ref and started_here and following[:1].isupper() \
                and not re.search(r"[-\u2013,]$", line):
            category = " ".join(words)
            words, source = [], []
    finish()
    return rows
