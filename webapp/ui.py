"""The Blocks layout and its events: an answer-first chat with a section reader beside it, and a
"Browse the code" tab (table of contents, jump box, tables as grids, a land-use finder).

``build_demo(engine)`` imports gradio and wires events; nothing runs until the app is launched.
Public API endpoints (``gradio_client``): ``/ask`` (question -> answer Markdown with citations)
and ``/section`` (section or table number -> the section's plain text with its citation).

Links and buttons inside the HTML views carry a ``data-nav`` command; the page script (``JS``)
sends it through one hidden textbox (``#nav``) to ``navigate``, which renders the view asked
for. Each such link's ``href`` is the shareable URL of the same view (``/?section=17.44.065#q2``),
read back by ``on_load``.
"""


import json

from . import pages, structure, views
from .engine import MAX_LOOKUP_CHARS, MAX_QUESTION_CHARS, Engine

EXAMPLES = (
    "Can I open a bar on East Cotati Avenue?",
    "Can I build an ADU in the NL zone?",
    "Can I keep chickens?",
    "How tall can a fence be?",
    "What is the TOC district?",
)
MAX_TURNS = 10  # questions kept per session (server-side state)
READER_EMPTY = ('<div class="reader-empty"><h2 class="reader-title">Sources</h2><p>Open a source under an answer '
                "to read the section here, with the quoted words highlighted.</p></div>")
STAFF_EMPTY = ('<div class="reader-empty"><p>Open a section, chapter or table from the contents, or type its number '
               "above.</p></div>")

# Colours chosen for WCAG AA contrast (4.5:1 or more for text): white on #1d4ed8 is 6.7:1,
# #374151 on white 10.3:1, the amber mark on its background 12:1.
CSS = """
.sr-only { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
#nav { display: none !important; }
#app-head h1 { margin: 0 0 2px; font-size: 1.45em; }
#app-head p { margin: 0; color: #374151; }
#app-head .coverage-line { font-size: 0.9em; }
.turn .why { margin: 2px 0 4px; color: #1f2937; }
.turn .contact { margin: 6px 0 2px; font-size: 0.95em; }
.turn details.more summary { cursor: pointer; font-size: 0.92em; color: #374151; }
.coverage-view h3 { margin: 10px 0 2px; font-size: 1.05em; } .coverage-view ul { margin: 2px 0 2px 1.1em; font-size: 0.92em; }
#disclaimer { border-left: 4px solid #b45309; background: #fffbeb; color: #1f2937; padding: 8px 12px; border-radius: 4px; }
#disclaimer p { margin: 0; }
#index-status p { margin: 0; font-size: 0.9em; color: #374151; }
#examples { gap: 6px; flex-wrap: wrap; }
#examples button { flex: 1 1 auto; min-width: 0 !important; white-space: normal; }
#examples-label p { margin: 0; font-size: 0.92em; color: #374151; }
.turn { border: 1px solid #d1d5db; border-radius: 8px; padding: 10px 14px; margin: 0 0 12px; background: #fff; color: #111827; }
.turn.latest { border-color: #1d4ed8; box-shadow: 0 0 0 1px #1d4ed8; }
.turn .asked { margin: 0 0 4px; color: #374151; font-size: 0.92em; overflow-wrap: anywhere; }
.turn .headline { font-size: 1.2em; line-height: 1.35; margin: 2px 0 6px; color: #111827; scroll-margin-top: 12px; }
.turn.abstained .headline { color: #7c2d12; }
.turn .read-as, .turn .confidence { margin: 2px 0; font-size: 0.9em; color: #374151; font-style: italic; }
.turn ul, .turn ol { margin: 6px 0 6px 1.3em; padding: 0; }
.turn li { margin: 2px 0; }
.turn .sources-head, .turn .nearest-head, .turn .followups p { margin: 8px 0 2px; font-weight: 600; font-size: 0.95em; }
.turn a, .section-view a, .grid-view a, .toc a, .chapter-view a, .cell-info a, .permit-view a { color: #1d4ed8; text-decoration: underline; }
a.not-in-corpus { color: #7c2d12 !important; text-decoration-style: dashed !important; }
button.follow, button.use { border: 1px solid #1d4ed8; color: #1d4ed8; background: #fff; border-radius: 16px; padding: 4px 10px;
  margin: 2px 4px 2px 0; cursor: pointer; font: inherit; font-size: 0.92em; }
button.follow:hover, button.use:hover { background: #eff6ff; }
.earlier-head { font-size: 1em; color: #374151; margin: 14px 0 6px; }
.feedback { margin: 10px 0 2px; padding-top: 8px; border-top: 1px solid #e5e7eb; display: flex; flex-wrap: wrap;
  align-items: center; gap: 6px 8px; font-size: 0.92em; color: #374151; }
.feedback .feedback-ask { margin: 0; font-weight: 600; flex-basis: 100%; }
.feedback label { color: #374151; }
.feedback .fb-comment { flex: 1 1 12em; min-width: 0; padding: 4px 6px; border: 1px solid #6b7280; border-radius: 4px;
  background: #fff; color: #111827; font: inherit; }
button.mark { border: 1px solid #1d4ed8; color: #1d4ed8; background: #fff; border-radius: 16px; padding: 4px 12px;
  cursor: pointer; font: inherit; }
button.mark:hover { background: #eff6ff; }
button.mark[aria-pressed="true"] { background: #1d4ed8; color: #fff; }
.feedback .feedback-note { margin: 0; flex-basis: 100%; color: #166534; }
.feedback .feedback-note.refused { color: #7c2d12; }
.chat-empty p { color: #374151; margin: 6px 0; }
.reader-empty p { color: #374151; }
.reader-title { font-size: 1.1em; margin: 0 0 4px; }
.section-view h2, .section-view h3, .grid-view h3, .permit-view h3, .chapter-view h3 { margin: 6px 0; font-size: 1.1em; }
.section-meta, .section-note, .section-cite, .grid-legend { margin: 4px 0; font-size: 0.92em; color: #1f2937; }
.section-text { max-height: 70vh; overflow: auto; border: 1px solid #d1d5db; border-radius: 4px; padding: 8px 12px;
  background: #fff; color: #111827; line-height: 1.5; }
.section-text p { margin: 6px 0; }
.section-text .b-heading { font-weight: 700; }
.section-text .lvl-1 { margin-left: 0; } .section-text .lvl-2 { margin-left: 1.4em; }
.section-text .lvl-3 { margin-left: 2.8em; } .section-text .lvl-4 { margin-left: 4.2em; }
.section-text pre { white-space: pre-wrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.85em;
  background: #f9fafb; border: 1px solid #e5e7eb; padding: 6px; margin: 6px 0; }
.section-text .cited { background: #fef9c3; outline: 2px solid #ca8a04; }
.section-text mark, .grid mark { background: #fde047; color: #111827; padding: 0 1px; }
.section-view.missing { border-left: 4px solid #7c2d12; padding-left: 10px; }
.grid-scroll { max-height: 70vh; max-width: 100%; overflow: auto; border: 1px solid #d1d5db; border-radius: 4px; }
table.grid { border-collapse: separate; border-spacing: 0; font-size: 0.88em; min-width: 100%; }
table.grid th, table.grid td { border-bottom: 1px solid #e5e7eb; border-right: 1px solid #e5e7eb; padding: 0; text-align: left;
  background: #fff; color: #111827; }
table.grid thead th { position: sticky; top: 0; z-index: 2; background: #f3f4f6; padding: 4px 6px; white-space: nowrap; }
table.grid th.rowhead { position: sticky; left: 0; z-index: 1; background: #f9fafb; padding: 4px 6px; min-width: 11em;
  max-width: 18em; font-weight: 600; }
table.grid thead th.rowhead { z-index: 3; }
table.grid tr.category th { background: #e5e7eb; padding: 4px 6px; position: static; }
table.grid tr.cited th, table.grid tr.cited td, table.grid tr.cited button { background: #fef9c3; }
table.grid button.cell { width: 100%; min-width: 3.2em; padding: 4px 6px; border: 0; background: transparent; color: #111827;
  cursor: pointer; font: inherit; text-align: left; }
table.grid button.cell:hover { background: #eff6ff; }
table.grid button.cell.cited { background: #fde047 !important; font-weight: 700; }
table.grid td.empty { background: #f9fafb; }
table.grid.permit-row td, table.grid.permit-row th { padding: 4px 6px; }
.mark-amended { color: #1d4ed8; font-size: 0.8em; margin-left: 2px; }
.mark-review { color: #7c2d12; font-weight: 700; margin-left: 2px; }
table.grid sup { font-size: 0.75em; color: #374151; }
.cell-info { border: 1px solid #1d4ed8; border-radius: 6px; padding: 6px 12px; margin-top: 8px; background: #fff; color: #111827; }
.cell-info h4 { margin: 4px 0; }
.cell-info dl { display: grid; grid-template-columns: minmax(7em, max-content) 1fr; gap: 2px 10px; margin: 4px 0; }
.cell-info dt { font-weight: 600; } .cell-info dd { margin: 0; overflow-wrap: anywhere; }
.cell-info ul, .cell-info ol { margin: 0 0 0 1.2em; padding: 0; }
.grid-notes summary { font-weight: 600; margin: 6px 0 2px; cursor: pointer; } .grid-notes ul { margin: 0 0 0 1.2em; font-size: 0.9em; }
.toc details { margin: 4px 0; } .toc summary { cursor: pointer; font-weight: 600; }
.toc ul { margin: 2px 0 2px 1.1em; padding: 0; font-size: 0.92em; } .toc li { margin: 2px 0; }
.use-list { list-style: none; margin: 4px 0; padding: 0; }
footer, footer a, footer button, footer span { color: #374151 !important; opacity: 1 !important; }
:focus-visible { outline: 3px solid #1d4ed8 !important; outline-offset: 2px; }
@media (max-width: 600px) { .gradio-container { padding-left: 8px !important; padding-right: 8px !important; }
  .turn { padding: 8px 10px; } .turn .headline { font-size: 1.08em; } }
.turn .headline { max-height: none; }
@media (min-width: 1000px) { #reader-col { position: sticky; top: 8px; align-self: flex-start; } }
"""

# The page script: data-nav links and buttons, scrolling the new answer's first line and the
# quoted words into view, the reader's shareable URL, and the answer region as a live region.
JS = """
() => {
  const send = (cmd) => {
    const box = document.querySelector('#nav textarea, #nav input');
    if (!box) return false;
    cmd.nonce = String(Date.now()) + String(Math.random()).slice(2, 8);
    box.value = JSON.stringify(cmd);
    box.dispatchEvent(new Event('input', {bubbles: true}));
    return true;
  };
  document.addEventListener('click', (event) => {
    const el = event.target.closest('[data-nav]');
    if (!el || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    let cmd;
    try { cmd = JSON.parse(el.getAttribute('data-nav')); } catch (e) { return; }
    event.preventDefault();
    cmd.target = el.closest('#staff-panel') ? 'staff' : 'ask';
    if (cmd.do === 'ask') cmd.target = 'ask';
    if (cmd.do === 'mark') {
      const box = el.closest('.feedback') && el.closest('.feedback').querySelector('.fb-comment');
      cmd.comment = box ? box.value : '';
    }
    const href = el.getAttribute('href');
    if (href) { try { history.replaceState(null, '', href); } catch (e) {} }
    window.__cotatiPending = cmd.do === 'cell' ? 'cell' : 'view';
    send(cmd);
  });
  const inView = (el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight - 24; };
  const settle = () => {
    document.querySelectorAll('[data-scroll-to]:not([data-scrolled])').forEach((el) => {
      el.setAttribute('data-scrolled', '1');
      const how = el.getAttribute('data-scroll-to');
      if (how === 'inner') {
        const box = el.closest('.section-text, .grid-scroll');
        if (box) box.scrollTop = Math.max(0, el.offsetTop - box.offsetTop - box.clientHeight / 3);
        return;
      }
      if (how === 'start' && inView(el)) {
        // A decline's planning contact closes its first screen: scroll it up when the contact is below the fold.
        const turn = el.closest('.turn');
        const tail = turn && turn.querySelector('.contact');
        if (!tail || tail.getBoundingClientRect().bottom <= window.innerHeight) return;
      }
      const tall = el.getBoundingClientRect().height > window.innerHeight * 0.6;
      el.scrollIntoView({block: how === 'start' || tall ? 'start' : 'center'});
    });
    document.querySelectorAll('[data-set-url]:not([data-url-done])').forEach((el) => {
      el.setAttribute('data-url-done', '1');
      try { history.replaceState(null, '', el.getAttribute('data-set-url')); } catch (e) {}
    });
    const shared = document.querySelector('.section-view[data-from-url]:not([data-hash-done])');
    if (shared) {
      shared.setAttribute('data-hash-done', '1');
      const anchor = (location.hash || '').slice(1);
      const el = anchor && shared.querySelector('[data-anchor="' + anchor.replace(/[^A-Za-z0-9_-]/g, '') + '"]');
      if (el) { el.classList.add('cited'); el.scrollIntoView({block: 'center'}); }
    }
    if (window.__cotatiPending === 'cell') {
      const info = document.querySelector('.cell-info:not([data-seen])');
      if (info) { info.setAttribute('data-seen', '1'); window.__cotatiPending = null;
        const r = info.getBoundingClientRect(); if (r.top > window.innerHeight - 40 || r.top < 0) info.scrollIntoView({block: 'nearest'}); }
    }
    document.querySelectorAll('[data-focus]:not([data-focused])').forEach((el) => {
      el.setAttribute('data-focused', '1');
      el.focus({preventScroll: inView(el)});
    });
    const live = document.getElementById('answer-live');
    if (live && !live.getAttribute('aria-live')) {
      live.setAttribute('role', 'status'); live.setAttribute('aria-live', 'polite'); live.setAttribute('aria-atomic', 'true');
    }
  };
  new MutationObserver(() => requestAnimationFrame(settle)).observe(document.body, {childList: true, subtree: true});
  settle();
}
"""


def build_demo(engine: Engine, contact: str = ""):
    """The app. ``contact``: the Planning Department contact line shown with refusals (none when empty)."""
    import gradio as gr

    from ingest import coverage as coverage_mod

    def document_label(document: str) -> str:
        return engine.document_label(document)

    def known(section_id: str) -> bool:
        return engine.section(section_id) is not None

    # -- answers -----------------------------------------------------------------------------
    def ask_markdown(question: str) -> str:
        """Answer a question about the Cotati land-use code: Markdown, direct answer first, numbered citations."""
        if not isinstance(question, str):
            question = ""
        answer = engine.ask(question)
        return views.answer_markdown(answer, document_label, nearest=_nearest(answer), contact=contact)

    def _nearest(answer) -> list:
        ids = list(getattr(answer, "nearest", ()) or ())
        out = []
        for section_id in ids:
            label, inside = engine.section_label(section_id)
            out.append((section_id, _short(label), inside))
        return out

    def _label(section_id: str) -> str:
        return _short(engine.section_label(section_id)[0])

    def _anchor(citation) -> int:
        """The block of the cited section holding the quote: the #qN of the citation's shareable URL."""
        section = engine.section(citation.section, citation.document) or engine.section(citation.section)
        if section is None or not citation.quote:
            return 0
        spans = views.highlight_spans(section.text, citation.quote)
        return structure.anchor_of(structure.blocks(section.text, section.id, section.title), spans[0][0]) if spans else 0

    def _cards(turns: list, marked: int | None = None) -> str:
        """The conversation; ``marked``: the turn whose answer was just marked (its outcome takes the
        focus, and the latest answer is not scrolled to again)."""
        cards = []
        for number, (asked, answer, entry, feedback) in enumerate(turns):
            shown = asked if len(asked) <= 300 else asked[:300] + "…"
            marks = None if entry is None else {**feedback, "focus": number == marked}
            cards.append(pages.answer_card(number, answer, document_label, known, _nearest(answer), contact,
                                           latest=number == len(turns) - 1, asked=shown, label=_label,
                                           anchors=[_anchor(c) for c in answer.citations], feedback=marks,
                                           scroll=marked is None))
        return pages.conversation(cards)

    def _answer(question: str, turns: list):
        """Turns are (question, Answer, its question-log id or None, the resident's mark: {mark, comment, note})."""
        answer, entry = engine.ask_logged(question, history=[(q, a) for q, a, *_ in turns])
        turns = (list(turns or []) + [(question, answer, entry, {})])[-MAX_TURNS:]
        live = views.md_escape(answer.first_line)
        reader = READER_EMPTY
        if answer.citations:
            reader = _citation_view(answer, 0, scroll="inner")
        return turns, live, reader

    def respond(question: str, turns: list):
        if not isinstance(question, str) or not question.strip():
            return (gr.skip(),) * 6  # an empty submit does nothing
        turns, live, reader = _answer(question, turns or [])
        return "", _cards(turns), turns, live, reader, ""

    def _citation_view(answer, index: int, scroll: str = "center") -> str:
        if not 0 <= index < len(answer.citations):
            return READER_EMPTY
        citation = answer.citations[index]
        table = citation.table.replace("Table ", "") if citation.table else ""
        grid = engine.grid(citation.section, table) if table else None
        if grid is not None:
            rows = tuple(dict.fromkeys(c.get("row") for c in answer.lookups if c.get("table") == table and c.get("row")))
            columns = tuple(dict.fromkeys(c.get("column") for c in answer.lookups if c.get("table") == table))
            view = pages.grid_view(grid, engine.district_name, document_label, rows, columns)
            return view.replace('data-scroll-to="center"', f'data-scroll-to="{scroll}"', 1)
        section = engine.section(citation.section, citation.document) or engine.section(citation.section)
        if section is None:
            return _missing(citation.section)
        view = _section_view(section, quote=citation.quote, cite_table=citation.table,
                             ordinance_section=citation.ordinance_section, heading_level=2)
        return view.replace('data-scroll-to="center"', f'data-scroll-to="{scroll}"', 1)

    def _missing(section_id: str) -> str:
        referrers = [(s.id, pages.section_label(s.id, _short(s.title), document_label(s.document)), s.document)
                     for s in engine.referrers(section_id)]
        return pages.missing_section(section_id, engine.referenced_title(section_id), referrers)

    def _section_cite(section, table: str = "", ordinance_section: str = "") -> str:
        return views.citation_string(section.id, table, [(document_label(section.document), engine.document_kind(section.document),
                                                          section.date, ordinance_section or section.ordinance_section)])

    def _section_view(section, quote: str = "", anchor: int = 0, subsection: tuple = (), note: str = "",
                      cite_table: str = "", ordinance_section: str = "", from_url: bool = False, heading_level: int = 3) -> str:
        others = [f"{document_label(v.document)} ({v.date})" for v in engine.versions(section.id) if v.document != section.document]
        return pages.section_view(section, document_label(section.document), _section_cite(section, cite_table, ordinance_section),
                                  quote, others, note, engine.grids_of(section.id), anchor, subsection, from_url, heading_level)

    # -- staff: jump box, contents, grids ----------------------------------------------------
    def _lookup_view(text: str, from_url: bool = False, anchor: int = 0):
        """(view HTML, citation to copy) for the jump box's text."""
        found = engine.lookup(text)
        if found.kind == "chapter":
            sections = [(s.id, s.title, document_label(s.document), s.date, s.document) for s in found.sections]
            return pages.chapter_view(found.chapter, sections, engine.referred_only(found.chapter)), ""
        if found.kind == "table":
            choices = [g for g in engine.grid_list() if g[1] == found.table]
            if choices:
                section_id, table, _ = choices[0] if len(choices) == 1 else next(
                    (g for g in choices if g[0] == found.sections[0].id), choices[0])
                grid = engine.grid(section_id, table)
                view = pages.grid_view(grid, engine.district_name, document_label)
                if len(choices) > 1:
                    others = "; ".join(pages.link(f"Table {t} in § {s} {title}", pages.grid_url(s, t),
                                                  {"do": "grid", "section": s, "table": t})
                                       for s, t, title in choices if s != section_id)
                    view = (f'<p class="section-note">Two tables are numbered {pages.esc(found.table)}: showing the one in '
                            f"§ {pages.esc(section_id)}. Also: {others}.</p>") + view
                return view, views.citation_string(section_id, table, _grid_sources(grid))
        if not found.sections:
            if found.message.endswith("is not in these documents.") and found.message.startswith("§ "):
                return _missing(found.message.split()[1]), ""
            return pages.note(found.message), ""
        section = found.sections[0]
        note = ""
        if found.kind == "table":
            names = [f"§ {s.id} {s.title}" for s in found.sections]
            note = pages.esc(f"Table {found.table} is printed in: " + "; ".join(names) + f". Showing § {section.id}.")
        view = _section_view(section, anchor=anchor, subsection=found.subsection, note=note, from_url=from_url)
        return view, _section_cite(section)

    def _grid_sources(grid) -> list:
        seen = {}
        for entry in sorted(grid.cells.values(), key=lambda e: (e.cell.date, e.cell.document)):
            cell = entry.cell
            seen.setdefault(cell.document, (document_label(cell.document), engine.document_kind(cell.document), cell.date,
                                            cell.ordinance_section))
        return list(seen.values())

    def jump(text: str):
        """The jump box's view; its shareable URL goes to the address bar (``data-set-url``)."""
        if not isinstance(text, str):
            text = ""
        view, cite = _lookup_view(text)
        url = pages.jump_url(engine.lookup(text), text)
        return (f'<span hidden data-set-url="{pages.esc(url)}"></span>' if url else "") + view, cite, ""

    def section_lookup(text: str) -> str:
        """Full text of a section (17.44.065) or of the section printing a table (Table 2-4), with its citation."""
        found = engine.lookup(text)
        if not found.sections:
            return found.message
        section = found.sections[0]
        return views.section_text(section, document_label(section.document), _section_cite(section))

    def find_use(text: str):
        if not isinstance(text, str):
            text = ""
        return pages.use_results(text, engine.resolve_uses(text))

    def _use_view(table: str, row: str):
        cells = engine.permit_row(table, row)
        view = pages.permit_row_view(table, row, cells, engine.district_name, document_label)
        cite = views.citation_string(cells[0].cell.section, table, views.row_sources(cells, document_label, engine.document_kind)) if cells else ""
        return view, cite

    # -- the one entry point of data-nav links ------------------------------------------------
    def navigate(raw: str, turns: list):
        try:
            command = json.loads(raw) if isinstance(raw, str) and raw else {}
        except ValueError:
            command = {}
        if not isinstance(command, dict):
            command = {}
        target = "staff" if command.get("target") == "staff" else "ask"
        view_out, cell_out = (staff_view, staff_cell) if target == "staff" else (reader, reader_cell)
        kind = command.get("do")
        text = lambda key: str(command.get(key) or "")[:MAX_LOOKUP_CHARS * 2]  # noqa: E731
        if kind == "ask":
            question_text = str(command.get("q") or "")
            if not question_text.strip():
                return {}
            turns, live_text, reader_html = _answer(question_text, turns or [])
            return {chat: _cards(turns), state: turns, live: live_text, reader: reader_html, reader_cell: "",
                    tabs: gr.Tabs(selected="ask")}
        if kind == "cite":
            try:
                asked, answer, *_ = (turns or [])[int(command.get("turn"))]
                view = _citation_view(answer, int(command.get("n")))
            except (TypeError, ValueError, IndexError):
                view = pages.note("That answer is no longer in this conversation; ask the question again.")
            return {view_out: view, cell_out: ""}
        if kind == "mark":
            return _mark(command, list(turns or []))
        if kind == "section":
            section_id = text("id")
            section = engine.section(section_id, text("doc") or None) or engine.section(section_id)
            if section is None:
                return {view_out: _missing(section_id), cell_out: ""}
            try:
                anchor = int(command.get("anchor") or 0)
            except (TypeError, ValueError):
                anchor = 0
            out = {view_out: _section_view(section, anchor=anchor), cell_out: ""}
            if target == "staff":
                out[staff_copy] = _section_cite(section)
            return out
        if kind == "chapter":
            view, _ = _lookup_view(text("id"))
            return {view_out: view, cell_out: ""}
        if kind == "coverage":
            return {staff_view: _coverage_view(), staff_cell: "", tabs: gr.Tabs(selected="staff")}
        if kind == "grid":
            grid = engine.grid(text("section"), text("table"))
            if grid is None:
                return {view_out: pages.note(f"Table {text('table')} of § {text('section')} is not parsed."), cell_out: ""}
            row = text("row")
            out = {view_out: pages.grid_view(grid, engine.district_name, document_label, (row,) if row else ()), cell_out: ""}
            if target == "staff":
                out[staff_copy] = views.citation_string(grid.section, grid.table, _grid_sources(grid))
            return out
        if kind == "cell":
            entry = engine.cell_entry(text("section"), text("table"), str(command.get("row") or ""),
                                      str(command.get("column") or ""), str(command.get("category") or ""))
            if entry is None:
                return {cell_out: pages.note("No cell there.")}
            return {cell_out: pages.cell_info(entry, engine.district_name, document_label)}
        if kind == "use":
            view, cite = _use_view(text("table"), str(command.get("row") or ""))
            out = {view_out: view, cell_out: ""}
            if target == "staff":
                out[staff_copy] = cite
            return out
        return {}

    def _mark(command: dict, turns: list) -> dict:
        """A resident's "helpful" or "wrong" (and comment) on one answer of this conversation, kept in the
        question log on that answer's row. The row is found from this session's own turns, so a page can
        mark only the answers it was given."""
        try:
            number = int(command.get("turn"))
        except (TypeError, ValueError):
            number = -1
        if not 0 <= number < len(turns):
            return {live: "That answer is no longer in this conversation; ask the question again."}
        asked, answer, entry, feedback = turns[number]
        mark, comment = command.get("mark"), str(command.get("comment") or "")[:pages.MAX_COMMENT_CHARS * 2]
        refused = "This answer was not recorded, so it cannot be marked." if entry is None else engine.mark(entry, mark, comment)
        if refused:
            feedback = {**feedback, "note": refused, "comment": comment}
        else:
            feedback = {"mark": mark, "comment": " ".join(comment.split()), "note": ""}
        turns[number] = (asked, answer, entry, feedback)
        said = refused or f"Marked {mark}. Thank you."
        return {chat: _cards(turns, marked=number), state: turns, live: views.md_escape(said)}

    def _coverage_view() -> str:
        found = engine.coverage()
        return pages.coverage_view(found, coverage_mod.summary_line(found))

    # -- status and links --------------------------------------------------------------------
    def status_tick():
        done = engine.status.state in ("ready", "failed")
        return engine.status.text(), gr.Timer(active=not done)

    def on_load(request: gr.Request):
        params = dict(request.query_params) if request is not None else {}
        keep = (engine.status.text(), gr.Tabs(), gr.Textbox(), gr.HTML(), gr.Textbox())
        section_id = (params.get("section") or "")[:MAX_LOOKUP_CHARS]
        table = (params.get("table") or "")[:20]
        chapter = (params.get("chapter") or "")[:20]
        document = (params.get("doc") or "")[:10]
        if params.get("coverage"):
            return engine.status.text(), gr.Tabs(selected="staff"), gr.Textbox(), _coverage_view(), ""
        if section_id and table:
            grid = engine.grid(section_id, table)
            if grid is not None:
                view = pages.grid_view(grid, engine.district_name, document_label)
                return (engine.status.text(), gr.Tabs(selected="staff"), f"Table {table}", view,
                        views.citation_string(section_id, table, _grid_sources(grid)))
        wanted = section_id or (f"Table {table}" if table else chapter)
        if not wanted:
            return keep
        if section_id and document and engine.section(section_id, document) is not None:
            section = engine.section(section_id, document)
            view, cite = _section_view(section, from_url=True), _section_cite(section)
        else:
            view, cite = _lookup_view(wanted, from_url=True)
        return engine.status.text(), gr.Tabs(selected="staff"), wanted, view, cite

    no_math: list = []
    grids_html = pages.contents(_toc_labels(engine.toc()), engine.grid_list())
    with gr.Blocks(title="Cotati land-use code assistant") as demo:
        gr.HTML('<div id="app-head"><h1>Cotati land-use code assistant</h1><p>Plain-English answers from the City of '
                "Cotati's zoning ordinances and code chapters, each quoted with its source.</p>"
                + pages.coverage_line(coverage_mod.summary_line(engine.coverage())) + "</div>",
                js_on_load=None, padding=False)
        state = gr.State([])
        nav_box = gr.Textbox(elem_id="nav", label="navigation", show_label=False, container=False)
        with gr.Tabs(overflow_behavior="wrap") as tabs:
            with gr.Tab("Ask a question", id="ask"):
                with gr.Row(elem_id="ask-layout", equal_height=False):
                    with gr.Column(scale=3, min_width=320, elem_id="ask-col"):
                        with gr.Row(equal_height=True, elem_id="ask-row"):
                            question = gr.Textbox(label="Your question", placeholder="e.g. Can I open a bar on East Cotati Avenue?",
                                                  info=f"Up to {MAX_QUESTION_CHARS:,} characters.", elem_id="question",
                                                  scale=5, min_width=200, lines=1, max_lines=4, autofocus=False)
                            ask_button = gr.Button("Ask", variant="primary", elem_id="ask-button", scale=1, min_width=80)
                        gr.Markdown("Example questions (press one to ask it):", elem_id="examples-label", latex_delimiters=no_math)
                        with gr.Row(elem_id="examples"):
                            example_buttons = [gr.Button(text, size="sm", min_width=0) for text in EXAMPLES]
                        chat = gr.HTML(pages.conversation([]), elem_id="chat", js_on_load=None, padding=False)
                        live = gr.Markdown("", elem_id="answer-live", elem_classes=["sr-only"], latex_delimiters=no_math)
                    with gr.Column(scale=2, min_width=320, elem_id="reader-col"):
                        reader = gr.HTML(READER_EMPTY, elem_id="reader", js_on_load=None, padding=False)
                        reader_cell = gr.HTML("", elem_id="reader-cell", js_on_load=None, padding=False)
            with gr.Tab("Browse the code", id="staff", elem_id="staff-panel"):
                gr.HTML('<h2 class="sr-only">Browse the code</h2>', js_on_load=None, padding=False)
                with gr.Row(equal_height=True):
                    jump_box = gr.Textbox(label="Go to a chapter, section, subsection or table",
                                          placeholder="17.44, 17.44.065, 17.36.040(E) or Table 2-4",
                                          max_length=MAX_LOOKUP_CHARS, elem_id="jump", scale=4, min_width=200)
                    jump_button = gr.Button("Go", elem_id="jump-button", scale=1, min_width=80)
                with gr.Row(equal_height=False):
                    with gr.Column(scale=1, min_width=260, elem_id="browse-col"):
                        use_box = gr.Textbox(label="Find a land use in the permit tables", placeholder="gym, bar, granny unit…",
                                             max_length=MAX_LOOKUP_CHARS, elem_id="use-find")
                        use_results = gr.HTML("", elem_id="use-results", js_on_load=None, padding=False)
                        gr.HTML(grids_html, elem_id="toc", js_on_load=None, padding=False)
                    with gr.Column(scale=3, min_width=300, elem_id="staff-col"):
                        staff_view = gr.HTML(STAFF_EMPTY, elem_id="jump-view", js_on_load=None, padding=False)
                        staff_cell = gr.HTML("", elem_id="staff-cell", js_on_load=None, padding=False)
                        staff_copy = gr.Textbox(label="Citation to copy", interactive=False, buttons=["copy"], elem_id="jump-copy")
        gr.Markdown(views.DISCLAIMER, elem_id="disclaimer", latex_delimiters=no_math)
        with gr.Accordion("The documents answers come from", open=False, elem_id="documents"):
            gr.Markdown(views.documents_markdown(engine.documents()), latex_delimiters=no_math)
        status = gr.Markdown(engine.status.text(), elem_id="index-status", latex_delimiters=no_math)
        timer = gr.Timer(1.0)

        answer_outputs = [question, chat, state, live, reader, reader_cell]
        private = {"api_visibility": "private"}
        question.submit(respond, [question, state], answer_outputs, **private)
        ask_button.click(respond, [question, state], answer_outputs, **private)
        for button in example_buttons:
            button.click(lambda turns, _text=button.value: respond(_text, turns), [state], answer_outputs, **private)
        nav_box.change(navigate, [nav_box, state],
                       {chat, state, live, reader, reader_cell, staff_view, staff_cell, staff_copy, tabs}, **private)
        jump_box.submit(jump, [jump_box], [staff_view, staff_copy, staff_cell], **private)
        jump_button.click(jump, [jump_box], [staff_view, staff_copy, staff_cell], **private)
        use_box.submit(find_use, [use_box], [use_results], **private)
        use_box.input(find_use, [use_box], [use_results], show_progress="hidden", trigger_mode="always_last", **private)
        timer.tick(status_tick, None, [status, timer], queue=False, show_progress="hidden", **private)
        demo.load(on_load, None, [status, tabs, jump_box, staff_view, staff_copy], queue=False, **private)
        gr.api(ask_markdown, api_name="ask")
        gr.api(section_lookup, api_name="section")
    return demo


def _short(text: str, limit: int = 100) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _toc_labels(toc: list) -> list:
    return [(label, date, [(chapter, [(sid, _short(text, 90), doc) for sid, text, doc in sections]) for chapter, sections in chapters])
            for label, date, chapters in toc]
