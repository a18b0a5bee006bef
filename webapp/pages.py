"""HTML for the web app's views: answer cards, the section reader, table grids, cell provenance,
the table of contents and the land-use finder. Pure functions, no gradio, no I/O.

Every link the app handles itself carries ``data-nav`` (a small JSON command the page script
sends to the server) and an ``href`` that is the shareable URL of the same view, so a link
opened in a new tab, or copied, shows the same thing.
"""

from __future__ import annotations

import html
import json
import re
from urllib.parse import urlencode

from assistant.compose import note_text

from . import structure, views

ORDINANCE_REF = re.compile(r"§\s*(\d{3}):(PREAMBLE|SECTION-\d+)")
SECTION_REF = re.compile(r"(?:(§§?\s*)|\b(Sections?\s+))?(?<![\d.])(\d{1,2}\.\d{2}\.\d{3})(?![\d])")
TABLE_REF = re.compile(r"\bTable (\d{1,2}-\d{1,2}), § (\d{1,2}\.\d{2}\.\d{3})")
# The CLI's list of what a document changed: in the page, the app's own change page instead.
CLI_DIFF = re.compile(r"`?python -m ingest diff --document (\w{1,20})`?")
NEAREST_LINE = re.compile(r"^Nearest sections?:", re.I)
READ_AS = re.compile(r"^Read as:\s*", re.I)
GENERIC_ASK = "Please ask the City of Cotati Planning Department."


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def nav(**command) -> str:
    """The ``data-nav`` attribute value: the command as JSON, escaped for an attribute."""
    return esc(json.dumps({k: v for k, v in command.items() if v not in (None, "")}, separators=(",", ":")))


def section_url(section_id: str, document: str = "", anchor: int = 0) -> str:
    query = urlencode({"section": section_id, **({"doc": document} if document else {})})
    return f"?{query}" + (f"#q{anchor}" if anchor else "")


def grid_url(section_id: str, table: str) -> str:
    return "?" + urlencode({"section": section_id, "table": table})


def link(text: str, href: str, command: dict, cls: str = "") -> str:
    extra = f' class="{cls}"' if cls else ""
    return f'<a href="{esc(href)}" data-nav="{nav(**command)}"{extra}>{esc(text)}</a>'


def section_label(section_id: str, title: str, document_label: str = "") -> str:
    """How a section is named to people: "§ 17.44.065 Title", or "<ordinance>, Section 17: Title"."""
    if ":" not in section_id:
        return f"§ {section_id} {title}".strip()
    part = section_id.split(":", 1)[1]
    if part == "PREAMBLE":
        return f"{document_label}, preamble".strip(", ")
    number = part.split("-", 1)[-1]
    return f"{document_label}, Section {number}" + (f": {title}" if title else "")


def section_link(section_id: str, text: str, document: str = "", anchor: int = 0, cls: str = "") -> str:
    return link(text, section_url(section_id, document, anchor),
                {"do": "section", "id": section_id, "doc": document, "anchor": anchor or None}, cls)


def linkify(text: str, known, label=None) -> str:
    """Escape ``text`` and turn section numbers (and "Table 2-3, § 17.22.020") into reader links.

    ``known(section_id)`` says whether the documents print the section; others still link (the
    reader says "not in these documents" and gives the title the code uses for it)."""
    out, at = [], 0
    spans = []
    for found in TABLE_REF.finditer(text):
        spans.append((found.start(), found.end(), "table", found))
    for found in ORDINANCE_REF.finditer(text):
        spans.append((found.start(), found.end(), "part", found))
    for found in CLI_DIFF.finditer(text):
        spans.append((found.start(), found.end(), "changes", found))
    for found in SECTION_REF.finditer(text):
        if not any(a <= found.start() < b for a, b, _, _ in spans):
            spans.append((found.start(), found.end(), "section", found))
    for start, end, kind, found in sorted(spans, key=lambda s: s[0]):
        out.append(esc(text[at:start]))
        if kind == "changes":
            document = found.group(1)
            out.append(link("the page of what it changed", f"?changes={document}",
                            {"do": "changes", "doc": document}, "changes-link"))
        elif kind == "part":
            section_id = f"{found.group(1)}:{found.group(2)}"
            shown = label(section_id) if label else section_id
            out.append(section_link(section_id, shown))
        elif kind == "table":
            table, section = found.group(1), found.group(2)
            out.append(link(f"Table {table}", grid_url(section, table), {"do": "grid", "section": section, "table": table})
                       + ", " + section_link(section, f"§ {section}"))
        else:
            section = found.group(3)
            cls = "" if known(section) else "not-in-corpus"
            out.append(section_link(section, found.group(0), cls=cls))
        at = end
    out.append(esc(text[at:]))
    return "".join(out)


# -- answers ---------------------------------------------------------------------------------
# "How sure" in words: the band the answer states and what it promised on the questions whose right answers
# were checked (assistant.confidence.SURE_FLOORS: "high" right at least 98% of the time, "medium" 90%), as a
# resident reads it; the probability itself is only in the JSON (issue 46: "medium (0.99)" read as certainty).
def _in_so_many(share: float) -> str:
    from fractions import Fraction

    part = Fraction(share).limit_denominator(100)
    return f"{part.numerator} in {part.denominator}"


def sure_words() -> dict[str, str]:
    from assistant.confidence import SURE_FLOORS

    said = {band: f"{band}: right for about {_in_so_many(floor)} of the checked questions this sure"
            for band, floor in SURE_FLOORS.items()}
    said["low"] = "low: right less often than that on the checked questions; check the cited section"
    return said


SURE_WORDS = sure_words()


def confidence_words(value, how_sure: str = "") -> str:
    """"How sure" as the answer states it: its band and what the band means, in words; "" when it states none
    (or gives no confidence). The number is not shown."""
    try:
        float(value)
    except (TypeError, ValueError):
        return ""
    return SURE_WORDS.get(how_sure, "")


# What the question was read as, in plain words: the topics and the kind of answer asked for.
TOPIC_WORDS = {"allowed": "whether it is allowed", "who_decides": "who decides", "setback": "setbacks",
               "coverage": "lot coverage", "height": "height", "parking": "parking", "fence": "fences",
               "definition": "what a term means", "density": "density", "lot": "lot size", "sign": "signs"}
ASKED_WORDS = {"number": "a number", "length": "a distance or height", "duration": "how long", "who": "who decides",
               "count": "how many", "yes_no": "a yes or no", "permit_code": "which permit is needed", "list": "a list",
               "definition": "what a term means", "date": "a date", "percent": "a percentage", "area": "an area",
               "money": "an amount of money", "body": "who decides", "section": "which section"}


def interpretation_line(interpretation) -> str:
    """"Read as: a question about Bar, tavern (your word “bar”) in CE (Commercial, East Cotati Avenue
    Corridor), asking for a yes or no." from the assistant's dict, in plain words (no field names)."""
    if not isinstance(interpretation, dict) or not interpretation:
        return ""
    uses = [_named(item, ("label", "row")) for item in _items(interpretation.get("uses") or interpretation.get("use"))]
    districts = [_named(item, ("symbol", "name")) for item in _items(interpretation.get("districts"))]
    sections = [f"§ {s}" for s in _items(interpretation.get("sections")) if isinstance(s, str)]
    tables = [f"Table {t}" for t in _items(interpretation.get("tables")) if isinstance(t, str)]
    topics = [TOPIC_WORDS.get(t, str(t).replace("_", " ")) for t in _items(interpretation.get("topics")) if t]
    about = [u for u in uses if u] + sections + tables
    parts = []
    if about:
        parts.append("a question about " + ", ".join(about))
    elif topics:
        parts.append("a question about " + ", ".join(topics[:3]))
    if districts:
        parts.append(("in " if parts else "a question about ") + ", ".join(d for d in districts if d))
    asked = ASKED_WORDS.get(str(interpretation.get("answer_type") or ""))
    line = " ".join(parts)
    if asked:
        line += (", asking for " if line else "a question asking for ") + asked
    return f"Read as: {line}." if line else ""


def _items(value) -> list:
    if value in (None, ""):
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _named(item, keys: tuple[str, ...]) -> str:
    """A use or district as a resident reads it: its label, its name, and the words behind it."""
    if not isinstance(item, dict):
        return str(item)
    label = next((str(item[k]) for k in keys if item.get(k)), "")
    name = item.get("name") if keys[0] == "symbol" and item.get("name") else ""
    words = item.get("words") or item.get("from") or ""
    if isinstance(words, (list, tuple)):
        words = " ".join(str(w) for w in words)
    shown = f"{label} ({name})" if name else label
    if words and label and str(words).lower() not in (label.lower(), str(name).lower()):
        shown += f" (your words “{words}”)"
    return shown or str(words)


MARK_WORDS = {"helpful": "Helpful", "wrong": "Wrong"}
MAX_COMMENT_CHARS = 1000  # assistant.questionlog.MAX_COMMENT_CHARS


def feedback_block(turn: int, mark: str = "", comment: str = "", note: str = "", focus: bool = False) -> str:
    """"Was this answer right?": an optional comment and two buttons (helpful, wrong) whose ``data-nav``
    command the page script sends with the comment typed beside them. ``mark``: the mark kept for this
    answer ("" none yet); ``note``: why a mark was not kept; ``focus``: put the keyboard focus on the
    outcome (the answer was just marked, and the buttons were drawn anew)."""
    box = f"fb-{turn}"
    out = [f'<div class="feedback" role="group" aria-labelledby="{box}-ask">',
           f'<p class="feedback-ask" id="{box}-ask">Was this answer right?</p>',
           f'<label for="{box}">Comment (optional)</label>',
           f'<input type="text" id="{box}" class="fb-comment" maxlength="{MAX_COMMENT_CHARS}" autocomplete="off" '
           f'value="{esc(comment)}">']
    for value, word in MARK_WORDS.items():
        pressed = "true" if mark == value else "false"
        out.append(f'<button type="button" class="mark mark-{value}" aria-pressed="{pressed}" '
                   f'data-nav="{nav(do="mark", turn=turn, mark=value)}">{word}</button>')
    outcome = note or (f"Marked {mark}. Thank you: planning staff read these marks." if mark else "")
    if outcome:
        extra = ' tabindex="-1" data-focus="1"' if focus else ""
        cls = "feedback-note refused" if note else "feedback-note"
        out.append(f'<p class="{cls}"{extra}>{esc(outcome)}</p>')
    out.append("</div>")
    return "".join(out)


DEFAULT_CONTACT = ("the City of Cotati Planning Department, at City Hall or through the City's website "
                   "(the loaded documents give no phone number or address)")
NOT_LOADED = "Not loaded: "


def answer_card(turn: int, answer, document_label, known, nearest: list, contact: str = "", latest: bool = False,
                asked: str = "", label=None, anchors: list | None = None, feedback: dict | None = None,
                scroll: bool = True, note: str = "", closest_anchors: list | None = None, status=None,
                table: tuple[str, str] | None = None) -> str:
    """One question and its answer: the direct answer as the headline, then "Read as", reasons,
    follow-up buttons, the sources as links that open the cited section beside the chat, and (when
    the answer is in the question log) "Was this answer right?". A decline is short: a headline, one
    line saying why, the nearest sections as links and the planning contact (``DEFAULT_CONTACT`` when
    ``contact`` is empty), then the longer reasons folded.

    ``nearest``: (section id, label, in corpus) of the nearest sections of a refusal.
    ``feedback``: None when the answer cannot be marked, else ``feedback_block``'s keywords.
    ``scroll``: the latest answer's first line is scrolled into view (not when only a mark changed).
    ``note``: a line about the documents the answer came from (they changed since the answer above).
    ``closest_anchors``: the block (#qN) of each of a decline's closest passages in its section.
    ``status(document id)``: the manifest's status of a document ("proposed ..."): a proposed one says so
    beside each source it is.
    ``table``: (lead, grid HTML) when the assistant answered with a whole table: the lead is the headline
    and the grid the answer.
    """
    first, read_as, rest = _card_lines(answer)
    declined = answer.abstained and answer.route not in ("clarify", "invalid")
    head_id = f"turn-{turn}-head"
    cls = "turn latest" if latest else "turn"
    state = " abstained" if answer.abstained else ""
    out = [f'<article class="{cls}{state}" data-turn="{turn}" aria-labelledby="{head_id}">',
           f'<p class="asked"><span class="sr-only">You asked: </span>{esc(asked or answer.question)}</p>']
    scrolled = ' data-scroll-to="start"' if latest and scroll else ""
    if table is not None and not answer.abstained:
        lead, grid = table
        out.append(f'<h3 class="headline table-lead" id="{head_id}"{scrolled}>{esc(lead)}</h3>')
        out.append(f'<div class="answer-grid">{grid}</div>')
        out.append(_sources(turn, answer, document_label, anchors, status))
        if feedback is not None:
            out.append(feedback_block(turn, **feedback))
        out.append("</article>")
        return "".join(out)
    if declined:
        first, why, folded = decline_parts(first, [line for line in rest if line.strip() != GENERIC_ASK
                                                   and not line.startswith(CLOSEST_LINE)])
    out.append(f'<h3 class="headline" id="{head_id}"{scrolled}>{linkify(first, known, label)}</h3>')
    if declined:
        out.extend(f'<p class="why">{linkify(line, known, label)}</p>' for line in why)
        passages = list(getattr(answer, "closest", ()) or ())
        out.append(closest_block(passages, document_label, closest_anchors or []))
        shown = {c.section for c in passages[:1]}
        others = [(c.section, c.heading(), True, c) for c in passages[1:]]
        others += [(sid, text, inside, None) for sid, text, inside in nearest
                   if sid not in shown and sid not in {c.section for c in passages}]
        out.append(_nearest_list(others, closest_anchors[1:] if closest_anchors else [],
                                 "Other nearest sections" if passages else "Nearest sections"))
        out.append(f'<p class="contact">Ask the Planning Department: {esc(contact or DEFAULT_CONTACT)}</p>')
        out.extend(_reading(read_as, answer))
        if folded:
            out.append('<details class="more"><summary>Why, in the code\'s words</summary><ul class="reasons">'
                       + "".join(f"<li>{linkify(line, known, label)}</li>" for line in folded) + "</ul></details>")
    else:
        out.extend(_reading(read_as, answer))
        if rest:
            out.append('<ul class="reasons">' + "".join(f"<li>{linkify(line, known, label)}</li>" for line in rest) + "</ul>")
        out.append(_nearest_list(nearest))
    out.append(_options(answer))
    out.append(_sources(turn, answer, document_label, anchors, status))
    if note:
        out.append(f'<p class="corpus-note" role="note">{esc(note)}</p>')
    if feedback is not None:
        out.append(feedback_block(turn, **feedback))
    out.append("</article>")
    return "".join(out)


def guide_card(turn: int, found, latest: bool = False, asked: str = "", scroll: bool = True) -> str:
    """The reply to "help" (``webapp.guide.Guide``): what is loaded (with the coverage page's link), the kinds of
    question answered, each with an example as a button that asks it, how to ask, and what is not answered."""
    from . import guide as guide_mod

    head_id = f"turn-{turn}-head"
    scrolled = ' data-scroll-to="start"' if latest and scroll else ""
    out = [f'<article class="{"turn latest" if latest else "turn"} guide" data-turn="{turn}" aria-labelledby="{head_id}">',
           f'<p class="asked"><span class="sr-only">You asked: </span>{esc(asked or found.question)}</p>',
           f'<h3 class="headline" id="{head_id}"{scrolled}>{esc(found.first_line)}</h3>',
           f'<p class="guide-loaded">Loaded: {esc(found.loaded)}. '
           + link("What is loaded, and what is not", "?coverage=1", {"do": "coverage"}, "coverage-link") + "</p>"]
    if found.documents:
        out.append('<ul class="guide-documents">' + "".join(f"<li>{esc(label)} ({esc(date)})</li>"
                                                              for label, date in found.documents) + "</ul>")
    out.append(f'<p class="guide-head" id="{head_id}-kinds">Questions it answers (press an example to ask it):</p>'
               f'<ul class="guide-kinds" aria-labelledby="{head_id}-kinds">')
    for label, example in found.kinds:
        out.append(f'<li><span class="guide-kind">{esc(label)}</span> '
                   f'<button type="button" class="follow example" data-nav="{nav(do="ask", q=example)}">{esc(example)}</button></li>')
    out.append("</ul>")
    out.append(f'<p class="guide-how">{esc(guide_mod.HOW_TO_ASK)}</p>')
    out.append(f'<p class="guide-not">{esc(guide_mod.NOT_ANSWERED)}</p>')
    out.append("</article>")
    return "".join(out)


def _card_lines(answer) -> tuple[str, list[str], list[str]]:
    """(headline, "Read as" lines, the other lines) of an answer, without its "Source:" and "Nearest sections:"
    lines (shown as links) and without a clarifying answer's "- option" lines (shown as buttons)."""
    lines = [line for line in (answer.answer or "").split("\n") if line.strip()]
    first, rest = (views.headline(lines[0]), lines[1:]) if lines else ("", [])
    if answer.citations and rest and rest[-1].startswith("Source: "):
        rest = rest[:-1]
    rest = views.without_repeated_options(rest, getattr(answer, "clarify", None))
    read_as = [line for line in rest if READ_AS.match(line)]
    rest = [line for line in rest if not READ_AS.match(line) and not NEAREST_LINE.match(line) and line.strip() != GENERIC_ASK]
    if not read_as:
        made = interpretation_line(getattr(answer, "interpretation", None))
        read_as = [made] if made else []
    return first, read_as, rest


def table_lead(grid) -> str:
    """The one-line lead of a table asked for by name."""
    rows = f"{len(grid.rows)} row{'s' if len(grid.rows) != 1 else ''}"
    columns = f"{len(grid.columns)} column{'s' if len(grid.columns) != 1 else ''}"
    return (f"Table {grid.table} of § {grid.section} {grid.title}: {rows} × {columns}, shown below; "
            "select a cell for its source and history.")


DECLINE_LEAD = "I could not find where the code answers this for certain."
# The assistant's two general decline lines: the page leads with DECLINE_LEAD instead.
GENERAL_DECLINES = ("The Cotati code documents in this corpus do not answer this question.",
                    "No sure answer: the nearest passages and table rows of the Cotati code documents do not clearly "
                    "answer this question, so none is given rather than a guess.")
CLOSEST_LINE = "Closest passage: "


def decline_parts(first: str, rest: list[str]) -> tuple[str, list[str], list[str]]:
    """A decline as (the lead, the lines saying why, the longer reasons to fold). The lead says in words what
    could not be found (``DECLINE_LEAD``); a specific first line ("No sure answer: the TOC district did not
    exist on ...", "There is no XYZ district ...") is the first why; what the loaded text cites but does not
    contain ("Not loaded: Chapter 17.84 (Appeals), which ...") follows, its citing passage folded."""
    why = []
    if first not in GENERAL_DECLINES:
        said = first.removeprefix("No sure answer: ")
        why.append(said[:1].upper() + said[1:])
    notes = [line for line in rest if line.startswith(NOT_LOADED)]
    why += [line.split(" — ", 1)[0].rstrip(".") + "." for line in notes]
    folded = [line.split(" — ", 1)[1] for line in notes if " — " in line]
    folded += [line for line in rest if not line.startswith(NOT_LOADED)]
    return DECLINE_LEAD, why, folded


def passage_command(closest) -> dict:
    """The data-nav command that opens a closest passage where it was found, highlighted: a table row in its
    grid, running text in its section."""
    if closest.table and closest.path:
        return {"do": "grid", "section": closest.section, "table": closest.table.removeprefix("Table ").strip(),
                "row": closest.path[-1]}
    return {"do": "section", "id": closest.section, "doc": closest.document, "quote": closest.quote}


def passage_href(closest, anchor: int = 0) -> str:
    if closest.table and closest.path:
        return grid_url(closest.section, closest.table.removeprefix("Table ").strip())
    return section_url(closest.section, closest.document, anchor)


def closest_block(passages: list, document_label, anchors: list) -> str:
    """The closest passage of a decline: its heading path and section, the words quoted (highlighted as
    found), and a link that opens it highlighted where it stands."""
    if not passages:
        return ""
    top = passages[0]
    anchor = anchors[0] if anchors else 0
    where = f"{top.heading()} — {document_label(top.document)}" if top.document else top.heading()
    opener = link("Open it where it stands, highlighted", passage_href(top, anchor), passage_command(top), "closest-open")
    return ('<div class="closest" role="group" aria-label="The closest passage">'
            '<p class="closest-head">The closest passage in the loaded code:</p>'
            f'<p class="closest-where">{esc(where)}</p>'
            f'<blockquote class="closest-quote"><mark>{esc(top.quote)}</mark></blockquote>'
            f"<p>{opener}</p></div>")


def _reading(read_as: list[str], answer) -> list[str]:
    out = [f'<p class="read-as">{esc(line)}</p>' for line in read_as]
    confidence = confidence_words(getattr(answer, "confidence", None), getattr(answer, "how_sure", ""))
    if confidence:
        out.append(f'<p class="confidence">How sure: {esc(confidence)}</p>')
    valid = valid_for(getattr(answer, "as_of", None))
    if valid:
        out.append(f'<p class="valid-for">{esc(valid)}</p>')
    return out


def valid_for(as_of) -> str:
    """The day an answer is valid for, from its JSON ``as_of``: "Valid for 2024-06-01: the law as
    it stood under Telecommunications facilities ordinance (2023-11-06); later documents not applied."."""
    if not isinstance(as_of, dict) or not as_of.get("date"):
        return ""
    day, documents = as_of["date"], as_of.get("documents") or []
    if not documents:
        return f"Valid for {day}: no loaded document was in force that day."
    if not as_of.get("ignored"):
        newest = max((d.get("date") or "" for d in documents), default="")
        if newest == day:  # today's law: its date is the newest document's
            return f"Valid from {day}, the newest loaded document's date: the law as all {len(documents)} state it."
        return f"Valid for {day}: the law as all {len(documents)} loaded documents state it."
    names = "; ".join(f"{d.get('title') or d.get('id')} ({d.get('date')})" for d in documents)
    return f"Valid for {day}: the law as it stood under {names}; later documents not applied."


def _nearest_list(nearest: list, anchors: list | None = None, head: str = "Nearest sections") -> str:
    """The nearest sections as links: (section id, label, in the corpus[, closest passage]); one with its
    closest passage opens highlighted there."""
    if not nearest:
        return ""
    items = []
    for number, (sid, text, inside, *more) in enumerate(nearest):
        closest = more[0] if more else None
        if closest is not None:
            anchor = anchors[number] if anchors and number < len(anchors) else 0
            items.append(f"<li>{link(text, passage_href(closest, anchor), passage_command(closest))}</li>")
        else:
            items.append(f"<li>{section_link(sid, text, cls='' if inside else 'not-in-corpus')}</li>")
    return f'<p class="nearest-head">{esc(head)}:</p><ul class="nearest">{"".join(items)}</ul>'


def _options(answer) -> str:
    options = list(getattr(answer, "clarify", None) or ()) + list(getattr(answer, "follow_ups", None) or ())
    if not options:
        return ""
    label = "Did you mean:" if getattr(answer, "clarify", None) else "You could also ask:"
    buttons = "".join(f'<button type="button" class="follow" data-nav="{nav(do="ask", q=str(option))}">'
                      f"{esc(option)}</button>" for option in options if str(option).strip())
    return f'<div class="followups" role="group" aria-label="{esc(label)}"><p>{esc(label)}</p>{buttons}</div>'


def proposed_note(status: str) -> str:
    """Beside a source whose document the manifest calls proposed: what that means for the reader."""
    if not str(status or "").lower().startswith("proposed"):
        return ""
    return " (a proposed ordinance: the loaded copy shows no adoption by the City Council)"


def _sources(turn: int, answer, document_label, anchors: list | None, status=None) -> str:
    if not answer.citations:
        return ""
    out = ['<p class="sources-head">Sources (open one to read the quoted text):</p><ol class="sources">']
    for number, citation in enumerate(answer.citations):
        title = section_label(citation.section, citation.title, document_label(citation.document))
        table = f", Table {citation.table}" if citation.table and not citation.table.startswith("Table") else (
            f", {citation.table}" if citation.table else "")
        where = views.ordinance_part(citation.ordinance_section)
        meta = f" — {document_label(citation.document)}{', ' + where if where else ''}, {citation.date}"
        anchor = anchors[number] if anchors and number < len(anchors) else 0
        href = section_url(citation.section, citation.document, anchor)
        said = proposed_note(status(citation.document)) if status else ""
        flag = f'<span class="proposed">{esc(said)}</span>' if said else ""
        out.append(f"<li>{link(title + table, href, {'do': 'cite', 'turn': turn, 'n': number}, 'cite')}{esc(meta)}{flag}</li>")
    out.append("</ol>")
    return "".join(out)


def conversation(cards: list[str]) -> str:
    """Newest first: the latest answer sits right under the question box."""
    if not cards:
        return ('<div class="chat-empty"><p>Ask about permits, zoning districts, setbacks, fences, parking… '
                "The answer comes first; each source opens beside it.</p></div>")
    latest, earlier = cards[-1], cards[-2::-1]
    out = ['<h2 class="sr-only">Answers</h2>', latest]
    if earlier:
        out.append('<h2 class="earlier-head">Earlier questions</h2>')
        out.extend(earlier)
    return "".join(out)


# -- the section reader ----------------------------------------------------------------------
def section_view(section, document_label: str, citation: str, quote: str = "", others: list[str] | None = None,
                 note: str = "", grids: dict | None = None, anchor: int = 0, subsection: tuple = (),
                 from_url: bool = False, heading_level: int = 3) -> str:
    """A section laid out by its structure, the quote (or subsection) marked and scrolled to.

    ``grids``: table number -> section id of the tables this section prints that open as grids.
    """
    text = section.text
    laid = structure.blocks(text, section.id, section.title)
    spans = views.highlight_spans(text, quote) if quote else []
    target = anchor
    if subsection and not target:
        target = structure.subsection_anchor(laid, subsection, text)
    heading = section_label(section.id, section.title, document_label)
    attrs = ' data-from-url="1"' if from_url else ""
    out = [f'<div class="section-view" data-section="{esc(section.id)}"{attrs}>']
    if note:
        out.append(f'<p class="section-note">{note}</p>')
    out.append(f'<h{heading_level} class="section-head">{esc(heading)}</h{heading_level}>')
    out.append(f'<p class="section-meta">{esc(" · ".join(_section_meta(section, document_label)))}</p>')
    out.append(f'<p class="section-cite">Cite as: <span>{esc(citation)}</span></p>')
    status = _section_status(quote, bool(spans), subsection, bool(target), others)
    out.extend(f'<p class="section-note">{esc(line)}</p>' for line in status)
    out.append(f'<div class="section-text" tabindex="0" role="region" aria-label="Text of {esc(heading)}">')
    out.extend(_section_blocks(text, laid, spans, target, grids))
    out.append("</div></div>")
    return "".join(out)


def _section_meta(section, document_label: str) -> list[str]:
    """Where the section's text comes from: document, date, ordinance part, pages, excerpt."""
    meta = [document_label, section.date]
    where = views.ordinance_part(section.ordinance_section)
    if where:
        meta.append(where)
    if section.pages:
        meta.append(("page " if len(section.pages) == 1 else "pages ") + ", ".join(str(p) for p in section.pages))
    if section.excerpt:
        meta.append("excerpt: the document states only part of this section")
    return meta


def _section_status(quote: str, found: bool, subsection: tuple, marked: bool, others: list[str] | None) -> list[str]:
    """The notes above the text: whether the quote or subsection is marked, and other statements of it."""
    lines = []
    if quote:
        lines.append("The quoted passage is highlighted." if found else
                     "The quoted passage could not be located word for word in this text; it reads: " + quote)
    elif subsection:
        wanted = "".join(f"({p})" for p in subsection)
        lines.append(f"Subsection {wanted} is highlighted." if marked else f"Subsection {wanted} is not printed in this text.")
    if others:
        lines.append(f"Also stated in: {'; '.join(others)}.")
    return lines


def _section_blocks(text: str, laid: list, spans: list, target: int, grids: dict | None) -> list[str]:
    """Each block as HTML, anchored q1, q2 ...; the first mark (or the target block) is scrolled to."""
    out, scrolled = [], False
    for number, block in enumerate(laid, start=1):
        has_mark = any(a < block.end and b > block.start for a, b in spans)
        body = _marked(text, block, spans, first=has_mark and not scrolled)
        classes = [f"b-{block.kind}"] + ([f"lvl-{block.level}"] if block.level else [])
        extra = ""
        if number == target and not spans:
            classes.append("cited")
            if not scrolled:
                extra = ' data-scroll-to="center"'
        scrolled = scrolled or has_mark or bool(extra)
        if block.kind != "table":
            out.append(f'<p class="{" ".join(classes)}" data-anchor="q{number}"{extra}>{body}</p>')
            continue
        lines = text[block.start:block.end].strip().split("\n", 2)
        # its printed title: "Table 2-3" and, when the number stands alone on its line, the next line's name
        printed = " ".join(lines[:2]) if len(lines[0].split()) <= 2 and len(lines) > 1 else lines[0]
        key = _grid_key(block.table, printed, grids or {})
        if not key:  # not parsed: the printed lines are all there is
            out.append(f'<div class="{" ".join(classes)}" data-anchor="q{number}"{extra}><pre>{body}</pre></div>')
            continue
        # Parsed: the table's title and a link to it as a grid; its flattened printed lines folded (open when the
        # quote is in them), so the section reads as text, not as a block of table rows.
        owner = grids[key]
        name = f"Table {key}"
        button = link(f"Open {name} as a grid", grid_url(owner, key), {"do": "grid", "section": owner, "table": key},
                      "grid-open")
        out.append(f'<div class="{" ".join(classes + ["printed-table"])}" data-anchor="q{number}"{extra}>'
                   f'<p class="table-title">{esc(printed)}</p>'
                   f'<p>{button} <span class="table-how">(its rows, the district columns, and each cell\'s source)</span></p>'
                   f'<details{" open" if has_mark else ""}><summary>The table as printed (lines flattened by text extraction)'
                   f'</summary><pre>{body}</pre></details></div>')
    return out


def _grid_key(number: str, printed: str, grids: dict) -> str:
    """The grid a printed table opens as: of the grids of its number, the one whose other words its title line
    says ("Table 2-2: ... Cannabis Uses" -> "2-2 cannabis"); "" when none is parsed."""
    keys = sorted((k for k in grids if k.split(" ")[0] == number), key=len, reverse=True)
    said = printed.lower()
    return next((k for k in keys if all(w in said for w in k.split(" ")[1:])), "")


def _marked(text: str, block, spans, first: bool = False) -> str:
    keep_lines = block.kind == "table"
    out, at = [], block.start
    for start, end in spans:
        start, end = max(start, block.start), min(end, block.end)
        if start >= end:
            continue
        out.append(_piece(text[at:start], keep_lines))
        scroll = ' data-scroll-to="center"' if first else ""
        first = False
        out.append(f'<mark class="quote"{scroll}>{_piece(text[start:end], keep_lines)}</mark>')
        at = end
    out.append(_piece(text[at:block.end], keep_lines))
    return "".join(out)


def _piece(text: str, keep_lines: bool) -> str:
    return esc(text if keep_lines else re.sub(r"\s*\n\s*", " ", text))


def missing_section(section_id: str, title: str, referrers: list[tuple[str, str, str]]) -> str:
    """A section the documents only refer to: its number, the title the code gives it where known,
    and where it is referred to (links)."""
    heading = f"§ {section_id} {title}".strip()
    out = [f'<div class="section-view missing" data-section="{esc(section_id)}">', f'<h3 class="section-head">{esc(heading)}</h3>',
           '<p class="section-note"><strong>Not in these documents.</strong> The code refers to this section, but none of '
           "the documents answers quote prints it; the City's published municipal code has its text.</p>"]
    if referrers:
        items = "".join(f"<li>{section_link(sid, label, doc)}</li>" for sid, label, doc in referrers)
        out.append(f'<p class="section-note">Referred to in:</p><ul>{items}</ul>')
    out.append("</div>")
    return "".join(out)


def note(text: str) -> str:
    return f'<p class="section-note">{esc(text)}</p>'


# -- tables as grids -------------------------------------------------------------------------
VALUE_WORDS = views.requirement_words


def proposed_only_note(proposed: tuple) -> str:
    """The grid's header line when every cell rests on proposed documents (``proposed``: each named as an
    answer's lead names it, "Telecommunications facilities ordinance (000, effective ...)"); "" otherwise."""
    if not proposed:
        return ""
    return (f'<p class="section-note proposed-only"><strong>This table rests only on a proposed ordinance, not shown '
            f"adopted: {esc('; '.join(proposed))}.</strong></p>")


def grid_view(grid, district_name, document_label, highlight_rows: tuple = (), highlight_columns: tuple = (),
              proposed: tuple = ()) -> str:
    """A table as a grid: districts (or the printed headings) as columns, sticky header, footnote
    markers, amended and doubtful cells marked; each cell a button opening its provenance. ``proposed``:
    the documents the grid rests on when each is only proposed (the header says so, as an answer's lead
    does), else ()."""
    caption = f"Table {grid.table} — § {grid.section} {grid.title}".strip()
    permit = grid.kind == "permit"
    out = [f'<div class="grid-view" data-section="{esc(grid.section)}" data-table="{esc(grid.table)}">',
           f'<h3 class="section-head">{esc(caption)}</h3>', proposed_only_note(proposed),
           f'<p class="section-meta">{esc(grid.summary(document_label))} · '
           + section_link(grid.section, f"Read § {grid.section} as text") + "</p>",
           '<p class="grid-legend">'
           + ("P permitted (zoning clearance) · MUP minor use permit · UP use permit · S set by specific use "
              "regulations · — not allowed. " if permit else "")
           + '<span class="mark-amended" aria-hidden="true">▲</span> amended by a later document · '
             '<span class="mark-review" aria-hidden="true">?</span> could not be read with confidence · '
             '<span class="mark-reviewed" aria-hidden="true">ʳ</span> read by a reviewer from the print (its note is in '
             "the cell's details) · "
             "(n) footnote. Select a cell to see its document, date, source line and history.</p>",
           f'<div class="grid-scroll" tabindex="0" role="region" aria-label="{esc(caption)} (scrolls)">',
           f'<table class="grid"><caption class="sr-only">{esc(caption)}</caption><thead><tr>'
           f'<th scope="col" class="rowhead">{"Land use" if permit else "Row"}</th>']
    for column in grid.columns:
        name = district_name(column) if permit else ""
        label = f'<abbr title="{esc(name)}">{esc(column)}</abbr>' if name else esc(column)
        out.append(f'<th scope="col">{label}</th>')
    out.append("</tr></thead><tbody>")
    width = len(grid.columns) + 1
    category = None
    scrolled = False
    for cat, row in grid.rows:
        if cat != category and cat:
            out.append(f'<tr class="category"><th scope="colgroup" colspan="{width}">{esc(cat)}</th></tr>')
        category = cat
        wanted = row in highlight_rows
        attrs = ' class="cited"' if wanted else ""
        if wanted and not scrolled:
            attrs += ' data-scroll-to="center"'
            scrolled = True
        out.append(f'<tr{attrs}><th scope="row" class="rowhead">{esc(row)}</th>')
        for column in grid.columns:
            entry = grid.cells.get((cat, row, column))
            if entry is None:
                out.append('<td class="empty"><span class="sr-only">no cell</span></td>')
                continue
            out.append(_grid_cell(grid, entry, row, column, wanted and (not highlight_columns or column in highlight_columns)))
        out.append("</tr>")
    out.append("</tbody></table></div>")
    if grid.notes:
        out.append(f'<details class="grid-notes"><summary>Notes to Table {esc(grid.table)} ({len(grid.notes)})</summary><ul>')
        for number, text in grid.notes:
            out.append(f"<li>({esc(number)}) {esc(note_text(text))}</li>")
        out.append("</ul></details>")
    out.append("</div>")
    return "".join(out)


def _grid_cell(grid, entry, row, column, cited) -> str:
    cell = entry.cell
    value = cell.value if cell.value is not None else "?"
    marks, words = [], []
    amended = any(h.value != cell.value for h in entry.history) or bool(entry.history and cell.document != entry.history[0].document)
    if amended:
        marks.append('<span class="mark-amended" aria-hidden="true">▲</span>')
        words.append("amended")
    if cell.reading is not None:  # the parser could not; a reviewer read the print (the note says how)
        value = cell.value if cell.value is not None else ("blank" if cell.reading.status == "blank" else "?")
        marks.append('<span class="mark-reviewed" aria-hidden="true">ʳ</span>')
        words.append("read by a reviewer from the print" if cell.value is not None or cell.reading.status == "blank"
                     else "the print cannot tell: read § " + cell.reading.refer)
    elif cell.review:
        marks.append('<span class="mark-review" aria-hidden="true">?</span>')
        words.append("could not be read with confidence")
    if cell.interim:
        words.append("interim use only")
    if not entry.restated:
        words.append("left out of a later restatement")
    notes = "".join(f"<sup>({esc(n.number)})</sup>" for n in cell.footnotes if n.scope == "cell")
    label = f"{row}, {column}: {value}" + (f" ({', '.join(words)})" if words else "") + ". Show where it comes from."
    review = cell.review and cell.reading is None
    classes = ["cell"] + (["amended"] if amended else []) + (["review"] if review else []) + (["cited"] if cited else [])
    command = nav(do="cell", section=grid.section, table=grid.table, category=cell.category, row=row, column=column)
    shown = esc(value if len(value) <= 60 else value[:57] + "…")
    return (f'<td><button type="button" class="{" ".join(classes)}" data-nav="{command}" aria-label="{esc(label)}">'
            f"{shown}{'*' if cell.interim else ''}{notes}{''.join(marks)}</button></td>")


def cell_info(entry, district_name, document_label) -> str:
    """Where a cell comes from: value, footnotes, document and date, the printed source line, history."""
    cell = entry.cell
    name = district_name(cell.column)
    column = f"{cell.column} ({name})" if name else cell.column
    out = ['<div class="cell-info">', f'<h4>{esc(cell.row)} — {esc(column)}</h4><dl>',
           f"<dt>Value</dt><dd>{esc(views.requirement_words(cell.value) if cell.kind == 'permit' else (cell.value if cell.value is not None else 'unreadable'))}</dd>"]
    if cell.category:
        out.append(f"<dt>Category</dt><dd>{esc(cell.category)}</dd>")
    if cell.footnotes:
        out.append("<dt>Footnotes</dt><dd><ul>" + "".join(
            f"<li>({esc(n.number)}) {esc(note_text(n.text) or 'text not printed')} <span class='scope'>(on the {esc(n.scope)})</span></li>"
            for n in cell.footnotes) + "</ul></dd>")
    if cell.interim:
        out.append("<dt>Interim</dt><dd>Allowed only as an interim use in existing structures (*).</dd>")
    if cell.regulation:
        out.append(f"<dt>Specific use regulations</dt><dd>{section_link(cell.regulation, '§ ' + cell.regulation)}</dd>")
    where = views.ordinance_part(cell.ordinance_section)
    out.append(f"<dt>Stated by</dt><dd>{esc(document_label(cell.document))}{esc(', ' + where if where else '')}, "
               f"{esc(cell.date)}</dd>")
    if cell.source:
        out.append(f"<dt>Source line</dt><dd><code>{esc(cell.source)}</code></dd>")
    if cell.raw and cell.raw != cell.value:
        out.append(f"<dt>Read from</dt><dd><code>{esc(cell.raw)}</code></dd>")
    if cell.reading is not None:
        reading = cell.reading
        said = (reading.value if reading.value is not None else
                ("left blank in the print" if reading.status == "blank" else f"the print cannot tell; read § {reading.refer}"))
        basis = "confirmed by the print or another passage" if reading.basis == "confirmed" else "inferred from the table's pattern"
        out.append(f"<dt>Reviewer's reading</dt><dd>{esc(said)} ({esc(basis)}); the parser could not read it"
                   f"{esc(': ' + cell.review_reason if cell.review_reason else '')}.</dd>")
        out.append(f"<dt>Reviewer's note</dt><dd>{esc(reading.note)}</dd>")
    elif cell.review:
        out.append(f"<dt>Review</dt><dd>Could not be read with confidence{esc(': ' + cell.review_reason if cell.review_reason else '')}.</dd>")
    if cell.note:
        out.append(f"<dt>Reading note</dt><dd>{esc(cell.note)}</dd>")
    if entry.history:
        items = "".join(f"<li>{esc(views.requirement_words(h.value) if cell.kind == 'permit' else h.value)} — "
                        f"{esc(document_label(h.document))}, {esc(h.date)}{' (changed)' if h.value != cell.value else ''}</li>"
                        for h in entry.history)
        out.append(f"<dt>Earlier statements</dt><dd><ol>{items}</ol></dd>")
    else:
        out.append("<dt>Earlier statements</dt><dd>none: this document is the first to state it</dd>")
    if not entry.restated:
        out.append("<dt>Restatement</dt><dd>Left out of the later restatement by "
                   + esc(", ".join(document_label(d) for d in entry.dropped_by)) + ".</dd>")
    out.append("</dl>")
    out.append("<p>" + section_link(cell.section, f"Open § {cell.section} in {document_label(cell.document)}", cell.document) + "</p>")
    out.append("</div>")
    return "".join(out)


def permit_row_view(table: str, row: str, cells: list, district_name, document_label) -> str:
    """Every district of one land-use row: requirement, notes, source, history; scrolls inside itself."""
    if not cells:
        return note(f"No cells are recorded for “{row}” in Table {table}.")
    first = cells[0].cell
    out = [f'<div class="permit-view"><h3 class="section-head">{esc(row)} — Table {esc(table)} (§ {esc(first.section)})</h3>']
    facts = []
    if first.category:
        facts.append(f"Category: {esc(first.category)}.")
    regulations = sorted({entry.cell.regulation for entry in cells if entry.cell.regulation})
    if regulations:
        facts.append("Specific use regulations: " + ", ".join(section_link(r, f"§ {r}") for r in regulations) + ".")
    facts.append(link(f"Open Table {table} as a grid", grid_url(first.section, table),
                      {"do": "grid", "section": first.section, "table": table, "row": row}))
    out.append(f'<p class="section-meta">{" ".join(facts)}</p>')
    out.append(f'<div class="grid-scroll" tabindex="0" role="region" aria-label="{esc(row)}: every district (scrolls)">'
               '<table class="grid permit-row"><thead><tr><th scope="col">District</th><th scope="col">Requirement</th>'
               '<th scope="col">Notes</th><th scope="col">Source</th><th scope="col">Earlier statements</th></tr></thead><tbody>')
    notes: dict[str, str] = {}
    for entry in cells:
        cell = entry.cell
        name = district_name(cell.column)
        flags = []
        if cell.review:
            flags.append("could not be read with confidence" + (f": {cell.review_reason}" if cell.review_reason else ""))
        if cell.interim:
            flags.append("* interim use only")
        if not entry.restated:
            flags.append("left out of the later restatement by " + ", ".join(document_label(d) for d in entry.dropped_by))
        value = views.requirement_words(cell.value) + (f" ({'; '.join(flags)})" if flags else "")
        for n in cell.footnotes:
            if n.text:
                notes.setdefault(n.number, note_text(n.text))
        where = views.ordinance_part(cell.ordinance_section)
        source = f"{document_label(cell.document)}, {cell.date}" + (f", {where}" if where else "")
        history = "; ".join(f"{views.requirement_words(h.value)} — {document_label(h.document)}, {h.date}"
                            + (" (changed)" if h.value != cell.value else "") for h in entry.history) or "—"
        marks = " ".join(f"({n.number})" for n in cell.footnotes) or "—"
        out.append(f'<tr><th scope="row"><strong>{esc(cell.column)}</strong> {esc(name)}</th><td>{esc(value)}</td>'
                   f"<td>{esc(marks)}</td><td>{esc(source)}</td><td>{esc(history)}</td></tr>")
    out.append("</tbody></table></div>")
    if notes:
        out.append('<div class="grid-notes"><p>Notes</p><ul>' + "".join(
            f"<li>({esc(n)}) {esc(t)}</li>" for n, t in sorted(notes.items(), key=lambda i: (not i[0].isdigit(), int(i[0]) if i[0].isdigit() else 0, i[0])))
            + "</ul></div>")
    out.append("</div>")
    return "".join(out)


# -- browsing --------------------------------------------------------------------------------
def contents(toc, grids) -> str:
    """Table of contents: each document (oldest first), its chapters and sections; then the tables.

    ``toc``: [(document label, date, [(chapter or "", [(section id, label)])])];
    ``grids``: [(section, table, title)]."""
    out = ['<nav class="toc" aria-label="Table of contents">']
    for label, date, chapters in toc:
        out.append(f"<details><summary>{esc(label)} ({esc(date)})</summary><ul>")
        for chapter, sections in chapters:
            items = "".join(f"<li>{section_link(sid, text, doc)}</li>" for sid, text, doc in sections)
            if chapter:
                head = link(f"Chapter {chapter}", "?" + urlencode({"chapter": chapter}), {"do": "chapter", "id": chapter})
                out.append(f"<li>{head}<ul>{items}</ul></li>")
            else:
                out.append(f"<li>Ordinance text<ul>{items}</ul></li>")
        out.append("</ul></details>")
    out.append("<details open><summary>Tables (open as grids)</summary><ul>")
    for section, table, title in grids:
        out.append("<li>" + link(f"Table {table} — § {section} {title}".strip(), grid_url(section, table),
                                 {"do": "grid", "section": section, "table": table}) + "</li>")
    out.append("</ul></details></nav>")
    return "".join(out)


def chapter_view(chapter: str, sections: list[tuple[str, str, str, str]], referred: list[tuple[str, str]]) -> str:
    """The sections of chapter ``17.44`` these documents print (id, title, document label, date, document)."""
    out = [f'<div class="chapter-view"><h3 class="section-head">Chapter {esc(chapter)}</h3>']
    if sections:
        out.append(f'<p class="section-meta">{len(sections)} section{"s" if len(sections) != 1 else ""} printed in these documents:</p><ul>')
        for sid, title, label, date, document in sections:
            out.append(f"<li>{section_link(sid, f'§ {sid} {title}', document)} — {esc(label)}, {esc(date)}</li>")
        out.append("</ul>")
    else:
        out.append(f'<p class="section-note">No section of Chapter {esc(chapter)} is printed in these documents.</p>')
    if referred:
        items = "".join(f"<li>{section_link(sid, f'§ {sid} {title}'.strip(), cls='not-in-corpus')} (not in these documents)</li>"
                        for sid, title in referred)
        out.append(f'<p class="section-meta">Referred to but not printed:</p><ul>{items}</ul>')
    out.append("</div>")
    return "".join(out)


def use_results(query: str, rows: list[tuple[str, str, str]]) -> str:
    """The land-use finder's rows: (table, row, section) as buttons opening each row's districts."""
    if not query.strip():
        return ""
    if not rows:
        return note(f"No land-use row matches “{query}”. Try another word (e.g. gym, bar, granny unit, day care).")
    items = "".join(f'<li><button type="button" class="use" data-nav="{nav(do="use", table=table, row=row)}">'
                    f"{esc(row)} — Table {esc(table)}</button></li>" for table, row, _ in rows)
    return f'<p class="section-meta">{len(rows)} row{"s" if len(rows) != 1 else ""} for “{esc(query)}”:</p><ul class="use-list">{items}</ul>'


def jump_url(found, text: str) -> str:
    """The shareable URL of what the jump box found (``engine.Lookup``): "?section=17.36.040(E)",
    "?table=2-4", "?chapter=17.44"; "" when it found nothing."""
    if found.kind == "section":
        return "?" + urlencode({"section": " ".join(text.split()).removeprefix("§").strip()})
    if found.kind == "table":
        return "?" + urlencode({"table": found.table})
    if found.kind == "chapter":
        return "?" + urlencode({"chapter": found.chapter})
    return ""


def coverage_line(summary: str) -> str:
    """The header's line on what is loaded, with the link to the coverage page."""
    return (f'<p class="coverage-line">Loaded: {esc(summary)}. '
            + link("What is loaded, and what is not", "?coverage=1", {"do": "coverage"}, "coverage-link") + "</p>")


def coverage_view(coverage, summary: str) -> str:
    """The coverage page: every loaded document with its date, sections and tables, then what the loaded
    text cites but does not contain, each with the sections that cite it."""
    out = ['<div class="coverage-view" data-scroll-to="start"><h2 class="section-head">What is loaded</h2>',
           f'<p class="section-meta">{esc(summary)}. Answers come only from these documents; where two state the '
           "same provision, the later one stands.</p>"]
    for document in coverage.documents:
        out.append(f"<h3>{esc(document.short_title)} ({esc(document.date)})</h3>")
        out.append(f'<p class="section-meta">{esc(document.title)}; {esc(document.kind)}'
                   + (f"; {esc(document.status)}" if document.status else "") + "</p>")
        out.append(f'<p>{link("What it changed", "?changes=" + document.id, {"do": "changes", "doc": document.id}, "changes-link")}'
                   "</p>")
        if document.tables:
            tables = ", ".join(link(f"Table {t}", grid_url(s, t), {"do": "grid", "section": s, "table": t})
                               for t, s in document.tables)
            out.append(f"<p>Tables: {tables}</p>")
        items = "".join(f"<li>{section_link(sid, section_label(sid, title, document.short_title), document.id)}</li>"
                        for sid, title in document.sections)
        out.append(f"<details><summary>{len(document.sections)} sections</summary><ul>{items}</ul></details>")
    missing = coverage.missing()
    out.append("<h3>Cited but not loaded</h3>")
    out.append(f'<p class="section-meta">The loaded text cites these {len(missing)} sections and chapters but does not '
               "contain them, so questions about them are declined; ask the Planning Department.</p><ul>")
    names = {d.id: d.short_title for d in coverage.documents}
    for target in missing:
        citing = {(r.section, r.document): None for r in target.cited_by}
        links = ", ".join(section_link(sid, section_label(sid, "", names.get(doc, doc)), doc) for sid, doc in citing)
        out.append(f"<li>{esc(target.label)} — cited by {links}</li>")
    out.append("</ul></div>")
    return "".join(out)
