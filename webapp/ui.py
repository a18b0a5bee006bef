"""The Blocks layout and its events: a chat for residents, section and permit-table views for staff.

``build_demo(engine)`` imports gradio and wires events; nothing runs until the app is launched.
Public API endpoints (``gradio_client``): ``/ask`` (question -> answer Markdown with citations)
and ``/section`` (section or table number -> the section's plain text with its citation).
"""


import html

from . import views
from .engine import MAX_QUESTION_CHARS, Engine

EXAMPLES = (
    "Can I open a bar on East Cotati Avenue?",
    "Can I build an ADU in the NL zone?",
    "Can I keep chickens?",
    "How tall can a fence be?",
    "What is the TOC district?",
)
MAX_TURNS = 20  # chat messages kept per session (server-side state)

CSS = """
.sr-only { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
#disclaimer { border-left: 4px solid #b45309; background: #fffbeb; color: #1f2937; padding: 8px 12px; border-radius: 4px; }
#disclaimer p { margin: 0; }
#index-status p { margin: 0; font-size: 0.9em; color: #374151; }
.section-text { white-space: pre-wrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.88em;
  line-height: 1.45; max-height: 60vh; overflow: auto; border: 1px solid #d1d5db; border-radius: 4px; padding: 10px;
  background: #fff; color: #111827; }
.section-text mark { background: #fde047; color: #111827; padding: 0 1px; }
.section-meta, .section-note, .section-cite { margin: 4px 0; font-size: 0.92em; }
.section-view h3 { margin: 6px 0; }
#examples button { white-space: normal; }
#permit-view table { display: block; overflow-x: auto; }
#permit-view th { white-space: nowrap; }
:focus-visible { outline: 3px solid #1d4ed8 !important; outline-offset: 2px; }
"""

# Make the answer region a polite live region, so screen readers read each new answer.
JS = """
() => {
  const mark = () => {
    const live = document.getElementById('answer-live');
    if (live) { live.setAttribute('role', 'status'); live.setAttribute('aria-live', 'polite'); live.setAttribute('aria-atomic', 'true'); return true; }
    return false;
  };
  if (!mark()) { const t = setInterval(() => { if (mark()) clearInterval(t); }, 200); }
}
"""


def build_demo(engine: Engine):
    import gradio as gr

    def document_label(document: str) -> str:
        return engine.document_label(document)

    # -- answers -----------------------------------------------------------------------------
    def ask_markdown(question: str) -> str:
        """Answer a question about the Cotati land-use code: Markdown, direct answer first, numbered citations."""
        if not isinstance(question, str):
            question = ""
        return views.answer_markdown(engine.ask(question), document_label)

    def respond(question: str, history: list):
        if not isinstance(question, str):
            question = ""
        answer = engine.ask(question)
        markdown = views.answer_markdown(answer, document_label)
        shown = question if len(question) <= MAX_QUESTION_CHARS else question[:200] + "…"
        history = (list(history or []) + [{"role": "user", "content": shown},
                                          {"role": "assistant", "content": markdown}])[-MAX_TURNS:]
        choices = views.citation_choices(answer, document_label)
        first = choices[0][1] if choices else None
        cite_html, cite_copy = _citation_view(answer, first)
        return ("", history, history, markdown, answer.question,
                gr.Radio(choices=choices, value=first, label="Open a cited section" if choices else "No citations for this answer"),
                cite_html, cite_copy)

    def _citation_view(answer, index):
        if index is None or not 0 <= index < len(answer.citations):
            return "", ""
        citation = answer.citations[index]
        section = engine.section(citation.section, citation.document) or engine.section(citation.section)
        if section is None:
            return f"<p>§ {citation.section} is not in these documents.</p>", ""
        cite = views.citation_string(section.id, citation.table, [(
            document_label(section.document), engine.document_kind(section.document), section.date,
            citation.ordinance_section or section.ordinance_section)])
        others = [f"{document_label(v.document)} ({v.date})" for v in engine.versions(section.id) if v.document != section.document]
        return views.section_html(section, document_label(section.document), cite, citation.quote, others), cite

    def open_citation(question: str, index):
        if not question or index is None:
            return "", ""
        return _citation_view(engine.ask(question), int(index))

    # -- sections ----------------------------------------------------------------------------
    def _section_cite(section) -> str:
        return views.citation_string(section.id, "", [(document_label(section.document), engine.document_kind(section.document),
                                                       section.date, section.ordinance_section)])

    def jump(text: str):
        found = engine.lookup(text)
        if not found.sections:
            return f'<p class="section-note">{html.escape(found.message)}</p>', ""
        section = found.sections[0]
        others = [f"{document_label(v.document)} ({v.date})" for v in engine.versions(section.id) if v.document != section.document]
        note = ""
        if found.kind == "table":
            names = [f"§ {s.id} {s.title}" for s in found.sections]
            note = f"Table {found.table} is printed in: " + "; ".join(names) + f". Showing § {section.id}."
            if found.table in engine.tables.rows:
                note += " Pick a land use below to see this permit table row by row."
        cite = _section_cite(section)
        return views.section_html(section, document_label(section.document), cite, "", others, note, found.table), cite

    def section_lookup(text: str) -> str:
        """Full text of a section (17.44.065) or of the section printing a table (Table 2-4), with its citation."""
        found = engine.lookup(text)
        if not found.sections:
            return found.message
        section = found.sections[0]
        return views.section_text(section, document_label(section.document), _section_cite(section))

    # -- permit tables -----------------------------------------------------------------------
    uses = engine.land_uses()
    use_choices = [(f"{row} — Table {table}", f"{table}\t{row}") for table, row in uses]

    def show_use(value: str):
        if not value or "\t" not in value:
            return "Pick a land use to see every district's requirement.", ""
        table, row = value.split("\t", 1)
        cells = engine.permit_row(table, row)
        if not cells:
            return f"No cells are recorded for {views.md_escape(row)} in Table {views.md_escape(table)}.", ""
        markdown = views.permit_markdown(table, row, cells, engine.district_name, document_label)
        cite = views.citation_string(cells[0].cell.section, table,
                                     views.row_sources(cells, document_label, engine.document_kind))
        return markdown, cite

    # -- status and links --------------------------------------------------------------------
    def status_tick():
        done = engine.status.state in ("ready", "failed")
        return engine.status.text(), gr.Timer(active=not done)

    def on_load(request: gr.Request):
        params = dict(request.query_params) if request is not None else {}
        wanted = params.get("section") or params.get("table") or ""
        if wanted and "table" in params and "section" not in params:
            wanted = f"Table {wanted}"
        if wanted:
            view, cite = jump(wanted[:100])
            return engine.status.text(), gr.Tabs(selected="staff"), wanted[:100], view, cite
        return engine.status.text(), gr.Tabs(), gr.Textbox(), gr.HTML(), gr.Textbox()

    no_math: list = []
    with gr.Blocks(title="Cotati land-use code assistant") as demo:
        gr.Markdown("# Cotati land-use code assistant\nPlain-English answers about the City of Cotati Municipal Code, "
                    "Title 17 (Land Use), quoted from the code and its amending ordinances.", latex_delimiters=no_math)
        gr.Markdown(views.DISCLAIMER, elem_id="disclaimer", latex_delimiters=no_math)
        with gr.Accordion("The documents answers come from", open=False, elem_id="documents"):
            gr.Markdown(views.documents_markdown(engine.documents()), latex_delimiters=no_math)
        status = gr.Markdown(engine.status.text(), elem_id="index-status", latex_delimiters=no_math)
        timer = gr.Timer(1.0)
        history = gr.State([])
        asked = gr.State("")
        with gr.Tabs(overflow_behavior="wrap") as tabs:
            with gr.Tab("Ask a question", id="ask"):
                chatbot = gr.Chatbot(label="Questions and answers", elem_id="chat", height=460, latex_delimiters=no_math,
                                     buttons=["copy"], feedback_options=None, sanitize_html=True,
                                     placeholder="Ask about permits, districts, setbacks, fences, parking…")
                with gr.Row(equal_height=True):
                    question = gr.Textbox(label="Your question", placeholder="e.g. Can I open a bar on East Cotati Avenue?",
                                          max_length=MAX_QUESTION_CHARS, elem_id="question", scale=5, min_width=220,
                                          lines=1, max_lines=4, autofocus=False)
                    ask_button = gr.Button("Ask", variant="primary", elem_id="ask-button", scale=1, min_width=90)
                gr.Markdown("**Example questions** (press one to ask it):")
                with gr.Row(elem_id="examples"):
                    example_buttons = [gr.Button(text, size="sm", min_width=180) for text in EXAMPLES]
                live = gr.Markdown("", elem_id="answer-live", elem_classes=["sr-only"], latex_delimiters=no_math)
                with gr.Accordion("Cited sections: full text with the quoted passage highlighted", open=False,
                                  elem_id="cited-sections"):
                    cite_pick = gr.Radio(choices=[], label="Open a cited section", type="value", elem_id="cite-pick")
                    cite_copy = gr.Textbox(label="Citation to copy", interactive=False, buttons=["copy"], elem_id="cite-copy")
                    cite_view = gr.HTML(elem_id="cite-view")
            with gr.Tab("Staff: sections and permit tables", id="staff"):
                with gr.Row(equal_height=True):
                    jump_box = gr.Textbox(label="Go to a section or table", placeholder="17.44.065 or Table 2-4",
                                          max_length=100, elem_id="jump", scale=4, min_width=200)
                    jump_button = gr.Button("Go", elem_id="jump-button", scale=1, min_width=80)
                jump_copy = gr.Textbox(label="Citation to copy", interactive=False, buttons=["copy"], elem_id="jump-copy")
                jump_view = gr.HTML(elem_id="jump-view")
                gr.Markdown("## Permit tables", latex_delimiters=no_math)
                use_pick = gr.Dropdown(choices=use_choices, value=None, label="Land use (type to filter)",
                                       elem_id="use-pick", filterable=True)
                permit_copy = gr.Textbox(label="Citation to copy", interactive=False, buttons=["copy"], elem_id="permit-copy")
                permit_view = gr.Markdown("Pick a land use to see every district's requirement.", elem_id="permit-view",
                                          latex_delimiters=no_math)

        answer_outputs = [question, chatbot, history, live, asked, cite_pick, cite_view, cite_copy]
        private = {"api_visibility": "private"}
        question.submit(respond, [question, history], answer_outputs, **private)
        ask_button.click(respond, [question, history], answer_outputs, **private)
        for button in example_buttons:
            button.click(lambda h, _text=button.value: respond(_text, h), [history], answer_outputs, **private)
        cite_pick.change(open_citation, [asked, cite_pick], [cite_view, cite_copy], **private)
        jump_box.submit(jump, [jump_box], [jump_view, jump_copy], **private)
        jump_button.click(jump, [jump_box], [jump_view, jump_copy], **private)
        use_pick.change(show_use, [use_pick], [permit_view, permit_copy], **private)
        timer.tick(status_tick, None, [status, timer], queue=False, show_progress="hidden", **private)
        demo.load(on_load, None, [status, tabs, jump_box, jump_view, jump_copy], queue=False, **private)
        gr.api(ask_markdown, api_name="ask")
        gr.api(section_lookup, api_name="section")
    return demo
