"""Pure rendering helpers for the web app: answers as Markdown, where a quote sits in a section's
text, section text and citation strings to copy (pages.py lays out the HTML). No gradio, no I/O:
the same inputs always give the same text."""

from __future__ import annotations

import re

from assistant.permits import SHORT_WORDS

MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")
MD_LINE_START = re.compile(r"^(\s*)(\d+)([.)])(?=\s|$)|^(\s*)([-+=])(?=\s|$)")
MIN_FRAGMENT_WORDS = 3
# A list number or letter the code prints before an item ("9. Stealth design means ...", "B) ...", "(c) ...").
LIST_MARKER = re.compile(r"^\s*(?:\(?(?:\d{1,2}|[A-Za-z]|[ivx]{1,4})[.)]|\((?:\d{1,2}|[A-Za-z]|[ivx]{1,4})\))\s+(?=\S)")

DISCLAIMER = (
    "Answers quote only the listed ordinances and code chapters, as of their dates. They are not legal "
    "advice, and City of Cotati planning staff have the final word on what applies to your property."
)


def md_escape(text: str) -> str:
    """Text shown as written: Markdown's special characters escaped, no list or heading made."""
    text = MD_SPECIAL.sub(r"\\\1", text)
    return MD_LINE_START.sub(lambda m: f"{m.group(1)}{m.group(2)}\\{m.group(3)}" if m.group(2) else f"{m.group(4)}\\{m.group(5)}", text)


def headline(first: str) -> str:
    """An answer's first line as a headline: without the list number the code prints before the item."""
    return LIST_MARKER.sub("", first, count=1) or first


def without_repeated_options(lines: list[str], options) -> list[str]:
    """The answer's lines without the "- option" lines a clarifying answer lists (the options are shown once,
    as buttons or list items of their own)."""
    listed = {f"- {option}".strip() for option in options or ()}
    return [line for line in lines if line.strip() not in listed]


def documents_markdown(documents) -> str:
    """One line per document: date, short title, full title, status; later documents prevail."""
    lines = [f"- **{d.date}** — {md_escape(d.short_title or d.title)}: {md_escape(d.title)}"
             + (f" ({md_escape(d.status)})" if d.status else "") for d in documents]
    return "\n".join(lines + ["", "Where two documents state the same provision, the later one stands."])


# -- citations -------------------------------------------------------------------------------
def ordinance_part(ordinance_section: str) -> str:
    """"SECTION 11; SECTION 12" -> "Sections 11, 12"."""
    numbers = re.findall(r"SECTION\s+(\d+)", ordinance_section or "", re.I)
    if not numbers:
        return ""
    return ("Section " if len(numbers) == 1 else "Sections ") + ", ".join(numbers)


def citation_string(section: str, table: str, sources: list[tuple[str, str, str, str]]) -> str:
    """"Cotati Municipal Code § 17.22.020, Table 2-3, as amended by ... (date)".

    ``sources``: (document label, document kind, date, ordinance section) of each document the
    provision rests on, oldest first. An ordinance part that is not a code section
    (``001:SECTION-17``) is cited by the ordinance itself.
    """
    table = table if not table or table.startswith("Table") else f"Table {table}"
    parts = []
    for label, kind, date, ordinance_section in sources:
        where = ordinance_part(ordinance_section)
        parts.append((kind, f"{label}{', ' + where if where else ''} ({date})"))
    if ":" in section:
        return "; ".join(text for _, text in parts) or section
    head = f"Cotati Municipal Code § {section}" + (f", {table}" if table else "")
    amended = [text for kind, text in parts if kind != "codified chapter"]
    codified = [text for kind, text in parts if kind == "codified chapter"]
    tail = []
    if amended:
        tail.append("as amended by " + " and ".join(amended))
    if codified:
        tail.append("as codified in " + " and ".join(codified))
    return ", ".join([head] + tail)


def citation_line(number: int, citation, document_label: str) -> str:
    """"1. § 17.22.020 Title, Table 2-3 — <document>, Section 5, <date>"; an ordinance part that is not a
    code section by its ordinance ("2. <document>, Section 7: Title, <date>"), never an internal id."""
    table = f", {citation.table}" if citation.table else ""
    where = ordinance_part(citation.ordinance_section)
    title = f" {citation.title}" if citation.title else ""
    if ":" in citation.section:
        part = citation.section.split(":", 1)[1]
        name = "preamble" if part == "PREAMBLE" else f"Section {part.split('-', 1)[-1]}"
        return f"{number}. {document_label}, {name}{':' + title if title else ''}{table}, {citation.date}"
    return (f"{number}. § {citation.section}{title}{table} — {document_label}"
            f"{', ' + where if where else ''}, {citation.date}")


# -- answers ---------------------------------------------------------------------------------
def answer_markdown(answer, document_label, nearest: list | None = None, contact: str = "") -> str:
    """The direct answer first (bold), then the reasons, then numbered citations.

    ``document_label``: document id -> short title. The assistant's closing "Source:" line is
    replaced by the numbered citations, which carry the same sections, documents and dates.
    """
    lines = [line for line in answer.answer.split("\n") if line.strip()]
    if not lines:
        return ""
    first, rest = headline(lines[0]), lines[1:]
    if answer.citations and rest and rest[-1].startswith("Source: "):
        rest = rest[:-1]
    clarify = tuple(getattr(answer, "clarify", None) or ())
    if clarify:  # listed once, as list items, not "- - option"
        rest = [line[2:] if line.strip() in {f"- {o}" for o in clarify} else line for line in rest]
    if nearest is not None:
        # Nearest sections by number and title, never an internal id such as 000:PREAMBLE.
        shown = "; ".join(label + ("" if inside else " (not in these documents)") for _, label, inside in nearest)
        rest = [(f"Nearest sections: {shown}." if shown else "") if line.startswith("Nearest sections:") else line
                for line in rest]
        rest = [line for line in rest if line]
    if contact and answer.abstained and answer.route == "abstain":
        rest = [line for line in rest if line.strip() != "Please ask the City of Cotati Planning Department."]
        rest.append(f"Ask the Planning Department: {contact}")
    if nearest is not None:
        rest = [re.sub(r"§\s*\d{3}:(?:PREAMBLE|SECTION-\d+)", lambda m: _part_label(m.group(0), document_label), line) for line in rest]
    out = [f"**{md_escape(first)}**"]
    if rest:
        out.append("")
        out.extend(f"- {md_escape(line)}" for line in rest)
    if answer.citations:
        out.append("")
        out.append("**Citations**")
        out.append("")
        for number, citation in enumerate(answer.citations, start=1):
            out.append(md_escape(citation_line(number, citation, document_label(citation.document))).replace(f"{number}\\.", f"{number}.", 1))
    return "\n".join(out)


def _part_label(text: str, document_label) -> str:
    """"§ 001:SECTION-17" -> "<ordinance>, Section 17"; "§ 000:PREAMBLE" -> "<ordinance>, preamble"."""
    found = re.search(r"(\d{3}):(PREAMBLE|SECTION-(\d+))", text)
    if not found:
        return text
    name = document_label(found.group(1))
    return f"{name}, preamble" if found.group(2) == "PREAMBLE" else f"{name}, Section {found.group(3)}"


def highlight_spans(text: str, quote: str) -> list[tuple[int, int]]:
    """Where the quote's pieces stand in ``text`` (start, end), in text order.

    The quote may join non-adjacent sentences with "…", end with "…" when cut, or have its
    spacing tidied; each piece is found word by word across any whitespace. A piece not found
    whole is shortened from the end until at least a few words match.
    """
    spans: list[tuple[int, int]] = []
    for fragment in re.split(r"\s*…\s*", quote or ""):
        words = fragment.strip().strip('"').split()
        while len(words) >= min(MIN_FRAGMENT_WORDS, len(fragment.split()) or 1) and words:
            pattern = r"\s+".join(re.escape(word) for word in words)
            found = re.search(pattern, text)
            if found:
                spans.append((found.start(), found.end()))
                break
            words = words[:-1]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(set(spans)):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def section_text(section, document_label: str, citation: str) -> str:
    """Plain text of a section for the API: heading, source line, citation, the text."""
    heading = f"§ {section.id} {section.title}".strip() if ":" not in section.id else f"{section.id} {section.title}".strip()
    where = ordinance_part(section.ordinance_section)
    source = f"{document_label}, {section.date}" + (f", {where}" if where else "")
    return "\n".join([heading, source, f"Cite as: {citation}", "", section.text])


# -- permit tables ---------------------------------------------------------------------------
def requirement_words(value: str | None) -> str:
    if value is None:
        return "unreadable"
    return SHORT_WORDS.get(value, value)  # "use permit (UP)", "not allowed"


def row_sources(cells: list, document_label, document_kind) -> list[tuple[str, str, str, str]]:
    """The documents a row's effective cells come from, oldest first, for ``citation_string``."""
    seen: dict[str, tuple[str, str, str, str]] = {}
    for entry in sorted(cells, key=lambda e: (e.cell.date, e.cell.document)):
        cell = entry.cell
        seen.setdefault(cell.document, (document_label(cell.document), document_kind(cell.document), cell.date,
                                        cell.ordinance_section))
    return list(seen.values())
