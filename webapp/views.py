"""Pure rendering for the web app: answers as Markdown, sections as HTML with the quoted
passage highlighted, permit-table rows, and citation strings to copy. No gradio, no I/O:
the same inputs always give the same text."""

from __future__ import annotations

import html
import re

from assistant.permits import SHORT_WORDS

MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")
MD_LINE_START = re.compile(r"^(\s*)(\d+)([.)])(?=\s|$)|^(\s*)([-+=])(?=\s|$)")
MIN_FRAGMENT_WORDS = 3

DISCLAIMER = (
    "Answers quote only the listed ordinances and code chapters, as of their dates. They are not legal "
    "advice, and City of Cotati planning staff have the final word on what applies to your property."
)


def md_escape(text: str) -> str:
    """Text shown as written: Markdown's special characters escaped, no list or heading made."""
    text = MD_SPECIAL.sub(r"\\\1", text)
    return MD_LINE_START.sub(lambda m: f"{m.group(1)}{m.group(2)}\\{m.group(3)}" if m.group(2) else f"{m.group(4)}\\{m.group(5)}", text)


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
    table = f", {citation.table}" if citation.table else ""
    where = ordinance_part(citation.ordinance_section)
    title = f" {citation.title}" if citation.title else ""
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
    first, rest = lines[0], lines[1:]
    if answer.citations and rest and rest[-1].startswith("Source: "):
        rest = rest[:-1]
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


def citation_choices(answer, document_label) -> list[tuple[str, int]]:
    """(label, index) for the radio that opens a cited section."""
    return [(citation_line(number, citation, document_label(citation.document)), number - 1)
            for number, citation in enumerate(answer.citations, start=1)]


# -- sections --------------------------------------------------------------------------------
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


def marked_html(text: str, spans: list[tuple[int, int]]) -> str:
    out, at = [], 0
    for number, (start, end) in enumerate(spans, start=1):
        out.append(html.escape(text[at:start]))
        out.append(f'<mark id="quoted-{number}">{html.escape(text[start:end])}</mark>')
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out)


def table_spans(text: str, table: str) -> list[tuple[int, int]]:
    """The heading line(s) of Table ``table`` ("Table 2-4" at a line start), to mark on a jump."""
    return [(m.start(), m.end()) for m in re.finditer(rf"(?m)^Tables?\s+{re.escape(table)}\b.*$", text)]


def section_html(section, document_label: str, citation: str, quote: str = "", others: list[str] | None = None,
                 note: str = "", table: str = "") -> str:
    """A section's full text with the quoted passage (or a table's heading) marked, its document, date and citation."""
    spans = highlight_spans(section.text, quote) if quote else table_spans(section.text, table) if table else []
    heading = f"§ {section.id} {section.title}".strip() if ":" not in section.id else f"{section.id} {section.title}".strip()
    meta = [document_label, section.date]
    where = ordinance_part(section.ordinance_section)
    if where:
        meta.append(where)
    if section.pages:
        meta.append(("page " if len(section.pages) == 1 else "pages ") + ", ".join(str(p) for p in section.pages))
    if section.excerpt:
        meta.append("excerpt: the document states only part of this section")
    parts = ['<div class="section-view">']
    if note:
        parts.append(f'<p class="section-note">{html.escape(note)}</p>')
    parts.append(f"<h3>{html.escape(heading)}</h3>")
    parts.append(f'<p class="section-meta">{html.escape(" · ".join(meta))}</p>')
    parts.append(f'<p class="section-cite">Cite as: <span>{html.escape(citation)}</span></p>')
    if quote:
        status = ("The quoted passage is highlighted." if spans else
                  "The quoted passage could not be located word for word in this text; it reads: " + quote)
        parts.append(f'<p class="section-note">{html.escape(status)}</p>')
    if others:
        parts.append(f'<p class="section-note">Also stated in: {html.escape("; ".join(others))}.</p>')
    parts.append(f'<div class="section-text" tabindex="0" aria-label="Text of {html.escape(heading)}">'
                 f"{marked_html(section.text, spans)}</div>")
    parts.append("</div>")
    return "\n".join(parts)


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


def permit_markdown(table: str, row: str, cells: list, district_name, document_label) -> str:
    """Every column of one land-use row: requirement, footnotes, source document, history."""
    if not cells:
        return f"No cells are recorded for “{md_escape(row)}” in Table {md_escape(table)}."
    first = cells[0].cell
    out = [f"### {md_escape(row)} — Table {md_escape(table)} (§ {first.section})", ""]
    facts = []
    if first.category:
        facts.append(f"Category: {md_escape(first.category)}.")
    regulations = sorted({entry.cell.regulation for entry in cells if entry.cell.regulation})
    if regulations:
        facts.append("Specific use regulations: " + ", ".join(f"§ {r}" for r in regulations) + ".")
    if facts:
        out.extend([" ".join(facts), ""])
    out.append("| District | Requirement | Notes | Source | Earlier statements |")
    out.append("|---|---|---|---|---|")
    notes: dict[str, str] = {}
    for entry in cells:
        cell = entry.cell
        name = district_name(cell.column)
        district = f"**{md_escape(cell.column)}**" + (f" {md_escape(name)}" if name else "")
        value = md_escape(requirement_words(cell.value))
        flags = []
        if cell.review:
            flags.append("could not be read with confidence" + (f": {md_escape(cell.review_reason)}" if cell.review_reason else ""))
        if cell.interim:
            flags.append("\\* interim use only")
        if not entry.restated:
            flags.append("left out of the later restatement by " + ", ".join(md_escape(document_label(d)) for d in entry.dropped_by))
        if flags:
            value += " (" + "; ".join(flags) + ")"
        marks = []
        for note in cell.footnotes:
            marks.append(f"({md_escape(note.number)})")
            if note.text:
                notes.setdefault(note.number, note.text)
        where = ordinance_part(cell.ordinance_section)
        source = f"{md_escape(document_label(cell.document))}, {cell.date}" + (f", {where}" if where else "")
        history = "; ".join(
            f"{md_escape(requirement_words(h.value))} — {md_escape(document_label(h.document))}, {h.date}"
            + (" (changed)" if h.value != cell.value else "")
            for h in entry.history
        ) or "—"
        out.append(f"| {district} | {value} | {' '.join(marks) or '—'} | {source} | {history} |")
    if notes:
        out.extend(["", "**Notes**", ""])
        for number, text in sorted(notes.items(), key=lambda item: (not item[0].isdigit(), int(item[0]) if item[0].isdigit() else 0, item[0])):
            out.append(f"- ({md_escape(number)}) {md_escape(text)}")
    return "\n".join(out)


def row_sources(cells: list, document_label, document_kind) -> list[tuple[str, str, str, str]]:
    """The documents a row's effective cells come from, oldest first, for ``citation_string``."""
    seen: dict[str, tuple[str, str, str, str]] = {}
    for entry in sorted(cells, key=lambda e: (e.cell.date, e.cell.document)):
        cell = entry.cell
        seen.setdefault(cell.document, (document_label(cell.document), document_kind(cell.document), cell.date,
                                        cell.ordinance_section))
    return list(seen.values())
