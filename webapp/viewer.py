"""The app's views over the engine, as HTML (no gradio here): answer cards, the reader's section
and table views, the jump box, the land-use finder, the coverage page and a document's changes.

``Viewer(engine, contact)`` is what the event handlers of ``webapp/ui.py`` render with; every
method returns HTML (or, for the public API, Markdown and plain text)."""

from __future__ import annotations

from . import changes, guide, pages, structure, views
from .engine import Engine

MAX_TURNS = 10  # questions kept per session (server-side state)
READER_EMPTY = ('<div class="reader-empty"><h2 class="reader-title">Sources</h2><p>Open a source under an answer '
                "to read the section here, with the quoted words highlighted.</p></div>")


class Viewer:
    def __init__(self, engine: Engine, contact: str = ""):
        self.engine = engine
        self.contact = contact  # the Planning Department line shown with declines ("" for none)

    # -- names ----------------------------------------------------------------------------------
    def document_label(self, document: str) -> str:
        return self.engine.document_label(document)

    def known(self, section_id: str) -> bool:
        return self.engine.section(section_id) is not None

    def label(self, section_id: str) -> str:
        return short(self.engine.section_label(section_id)[0])

    def nearest(self, answer) -> list:
        out = []
        for section_id in list(getattr(answer, "nearest", ()) or ()):
            label, inside = self.engine.section_label(section_id)
            out.append((section_id, short(label), inside))
        return out

    # -- answers --------------------------------------------------------------------------------
    def ask_markdown(self, question: str) -> str:
        """Answer a question about the Cotati land-use code: Markdown, direct answer first, numbered citations."""
        from assistant.validate import clean_question

        if guide.asks_for_help(question):
            return guide.markdown(self.guide(clean_question(question)), views.md_escape)
        answer = self.engine.ask(clean_question(question))  # not text: "" (the assistant says it is empty)
        return views.answer_markdown(answer, self.document_label, nearest=self.nearest(answer), contact=self.contact)

    def answer(self, question: str, turns: list, as_of: str = ""):
        """(turns, the live region's text, the reader's view) after answering ``question`` as of
        ``as_of`` (a checked ISO date; "" for the law now in force). Turns are (question, Answer, its
        question-log id or None, the resident's mark: {mark, comment, note}). The question is cleaned as
        the CLI cleans it before anything touches it (a lone surrogate in the page broke the answer stream)."""
        from assistant.validate import clean_question

        question = clean_question(question)
        if guide.asks_for_help(question):  # "help", "?": the guide, not the sections nearest to the word
            found = self.guide(question)
            turns = (list(turns or []) + [(question, found, None, {})])[-MAX_TURNS:]
            return turns, views.md_escape(found.first_line), READER_EMPTY
        history = [(q, a) for q, a, *_ in turns if not isinstance(a, guide.Guide)]
        answer, entry = self.engine.ask_logged(question, history=history, as_of=as_of)
        turns = (list(turns or []) + [(question, answer, entry, {})])[-MAX_TURNS:]
        if answer.citations:
            reader = self.citation_view(answer, 0, scroll="inner")
        else:
            reader = self.closest_view(answer, scroll="inner") or READER_EMPTY
        return turns, views.md_escape(answer.first_line), reader

    def guide(self, question: str) -> "guide.Guide":
        """The reply to "help": what is loaded and how to ask (``webapp.guide``)."""
        from ingest import coverage as coverage_mod

        documents = [(self.document_label(d.id), d.date) for d in self.engine.documents()]
        return guide.guide(question, coverage_mod.summary_line(self.engine.coverage()), documents)

    def table_answered(self, answer):
        """(lead, grid HTML) when the assistant answered with a whole table (its ``table`` route: "Table 2-18",
        "show me Table 6-1") and the cited table's grid is parsed; None otherwise. The page renders the answer it
        is given: which table, and which of two that print the same number, the assistant decided."""
        if getattr(answer, "abstained", True) or getattr(answer, "route", "") != "table" or not answer.citations:
            return None
        cited = answer.citations[0]
        number = cited.table.removeprefix("Table ").strip()
        grid = self.engine.grid(cited.section, number) if number else None
        if grid is None:
            return None
        view = self._grid(grid)
        return pages.table_lead(grid), view.replace(' data-scroll-to="center"', "")

    def closest_view(self, answer, scroll: str = "center") -> str:
        """A decline's closest passage where it stands, highlighted: its table row in the grid, or its words in
        the section; "" when the decline has none."""
        passages = list(getattr(answer, "closest", ()) or ())
        if not passages:
            return ""
        top = passages[0]
        command = pages.passage_command(top)
        if command["do"] == "grid":
            view, _ = self.grid_view(command["section"], command["table"], command["row"])
            if view is not None:
                return view.replace('data-scroll-to="center"', f'data-scroll-to="{scroll}"', 1)
        section = self.engine.section(top.section, top.document or None) or self.engine.section(top.section)
        if section is None:
            return ""
        view = self.section_view(section, quote=top.quote, heading_level=2)
        return view.replace('data-scroll-to="center"', f'data-scroll-to="{scroll}"', 1)

    def passage_anchor(self, closest) -> int:
        """The block (#qN) of a closest passage in its section; 0 when not found."""
        section = self.engine.section(closest.section, closest.document or None) or self.engine.section(closest.section)
        if section is None or not closest.quote:
            return 0
        spans = views.highlight_spans(section.text, closest.quote)
        return structure.anchor_of(structure.blocks(section.text, section.id, section.title), spans[0][0]) if spans else 0

    def anchor(self, citation) -> int:
        """The block of the cited section holding the quote: the #qN of the citation's shareable URL."""
        engine = self.engine
        section = engine.section(citation.section, citation.document) or engine.section(citation.section)
        if section is None or not citation.quote:
            return 0
        spans = views.highlight_spans(section.text, citation.quote)
        return structure.anchor_of(structure.blocks(section.text, section.id, section.title), spans[0][0]) if spans else 0

    def cards(self, turns: list, marked: int | None = None) -> str:
        """The conversation; ``marked``: the turn whose answer was just marked (its outcome takes the
        focus, and the latest answer is not scrolled to again)."""
        cards = []
        state_of = getattr(self.engine, "state_of", None)  # webapp.follow.Following: the corpus state of an answer
        states = [state_of(answer) if state_of else "" for _, answer, *_ in turns]
        for number, (asked, answer, entry, feedback) in enumerate(turns):
            later = number > 0 and states[number] and states[number - 1] and states[number] != states[number - 1]
            note = ("The code's documents changed after the answer above: this answer comes from the documents as "
                    "they now are." if later else "")
            shown = asked if len(asked) <= 300 else asked[:300] + "…"
            if isinstance(answer, guide.Guide):
                cards.append(pages.guide_card(number, answer, latest=number == len(turns) - 1, asked=shown,
                                              scroll=marked is None))
                continue
            marks = None if entry is None else {**feedback, "focus": number == marked}
            table = self.table_answered(answer)
            cards.append(pages.answer_card(number, answer, self.document_label, self.known, self.nearest(answer),
                                           self.contact, latest=number == len(turns) - 1, asked=shown, label=self.label,
                                           anchors=[self.anchor(c) for c in answer.citations], feedback=marks,
                                           scroll=marked is None, note=note,
                                           closest_anchors=[self.passage_anchor(c) for c in getattr(answer, "closest", ())],
                                           status=self.engine.document_status, table=table))
        return pages.conversation(cards)

    def citation_view(self, answer, index: int, scroll: str = "center") -> str:
        if not 0 <= index < len(answer.citations):
            return READER_EMPTY
        engine, citation = self.engine, answer.citations[index]
        table = citation.table.replace("Table ", "") if citation.table else ""
        grid = engine.grid(citation.section, table) if table else None
        if grid is not None:
            rows = tuple(dict.fromkeys(c.get("row") for c in answer.lookups if c.get("table") == table and c.get("row")))
            columns = tuple(dict.fromkeys(c.get("column") for c in answer.lookups if c.get("table") == table))
            view = self._grid(grid, rows, columns)
            return _earlier_note(answer) + view.replace('data-scroll-to="center"', f'data-scroll-to="{scroll}"', 1)
        section = engine.section(citation.section, citation.document) or engine.section(citation.section)
        if section is None:
            return self.missing(citation.section)
        view = self.section_view(section, quote=citation.quote, cite_table=citation.table,
                                 ordinance_section=citation.ordinance_section, heading_level=2)
        return view.replace('data-scroll-to="center"', f'data-scroll-to="{scroll}"', 1)

    # -- sections -------------------------------------------------------------------------------
    def missing(self, section_id: str) -> str:
        referrers = [(s.id, pages.section_label(s.id, short(s.title), self.document_label(s.document)), s.document)
                     for s in self.engine.referrers(section_id)]
        return pages.missing_section(section_id, self.engine.referenced_title(section_id), referrers)

    def section_cite(self, section, table: str = "", ordinance_section: str = "") -> str:
        source = (self.document_label(section.document), self.engine.document_kind(section.document), section.date,
                  ordinance_section or section.ordinance_section)
        return views.citation_string(section.id, table, [source])

    def section_view(self, section, quote: str = "", anchor: int = 0, subsection: tuple = (), note: str = "",
                     cite_table: str = "", ordinance_section: str = "", from_url: bool = False, heading_level: int = 3) -> str:
        engine = self.engine
        others = [f"{self.document_label(v.document)} ({v.date})" for v in engine.versions(section.id)
                  if v.document != section.document]
        return pages.section_view(section, self.document_label(section.document),
                                  self.section_cite(section, cite_table, ordinance_section), quote, others, note,
                                  engine.grids_of(section.id), anchor, subsection, from_url, heading_level)

    def section_lookup(self, text: str) -> str:
        """Full text of a section (17.44.065) or of the section printing a table (Table 2-4), with its citation."""
        found = self.engine.lookup(text)
        if not found.sections:
            return found.message
        section = found.sections[0]
        return views.section_text(section, self.document_label(section.document), self.section_cite(section))

    # -- staff: jump box, contents, grids ---------------------------------------------------------
    def lookup_view(self, text: str, from_url: bool = False, anchor: int = 0):
        """(view HTML, citation to copy) for the jump box's text."""
        found = self.engine.lookup(text)
        if found.kind == "chapter":
            sections = [(s.id, s.title, self.document_label(s.document), s.date, s.document) for s in found.sections]
            return pages.chapter_view(found.chapter, sections, self.engine.referred_only(found.chapter)), ""
        if found.kind == "table":
            shown = self._table_view(found)
            if shown is not None:
                return shown
        if not found.sections:
            if found.message.endswith("is not in these documents.") and found.message.startswith("§ "):
                return self.missing(found.message.split()[1]), ""
            return pages.note(found.message), ""
        section = found.sections[0]
        note = ""
        if found.kind == "table":
            names = [f"§ {s.id} {s.title}" for s in found.sections]
            note = pages.esc(f"Table {found.table} is printed in: " + "; ".join(names) + f". Showing § {section.id}.")
        view = self.section_view(section, anchor=anchor, subsection=found.subsection, note=note, from_url=from_url)
        return view, self.section_cite(section)

    def _table_view(self, found):
        """(grid view, citation) of the table the jump box named, noting a second table of that number;
        None when it is not parsed as a grid."""
        choices = [g for g in self.engine.grid_list() if g[1] == found.table]
        if not choices:
            return None
        section_id, table, _ = choices[0] if len(choices) == 1 else next(
            (g for g in choices if g[0] == found.sections[0].id), choices[0])
        grid = self.engine.grid(section_id, table)
        view = self._grid(grid)
        if len(choices) > 1:
            others = "; ".join(pages.link(f"Table {t} in § {s} {title}", pages.grid_url(s, t),
                                          {"do": "grid", "section": s, "table": t})
                               for s, t, title in choices if s != section_id)
            view = (f'<p class="section-note">Two tables are numbered {pages.esc(found.table)}: showing the one in '
                    f"§ {pages.esc(section_id)}. Also: {others}.</p>") + view
        return view, views.citation_string(section_id, table, self.grid_sources(grid))

    def grid_sources(self, grid) -> list:
        seen = {}
        for entry in sorted(grid.cells.values(), key=lambda e: (e.cell.date, e.cell.document)):
            cell = entry.cell
            seen.setdefault(cell.document, (self.document_label(cell.document), self.engine.document_kind(cell.document),
                                            cell.date, cell.ordinance_section))
        return list(seen.values())

    def grid_view(self, section_id: str, table: str, row: str = ""):
        """(grid view, citation) of a parsed table, its ``row`` highlighted; (None, "") when not parsed."""
        grid = self.engine.grid(section_id, table)
        if grid is None:
            return None, ""
        view = self._grid(grid, (row,) if row else ())
        return view, views.citation_string(grid.section, grid.table, self.grid_sources(grid))

    def _grid(self, grid, rows: tuple = (), columns: tuple = ()) -> str:
        return pages.grid_view(grid, self.engine.district_name, self.document_label, rows, columns,
                               proposed=self.proposed_only(grid.documents))

    def proposed_only(self, documents) -> tuple:
        """The documents named as an answer's lead names them ("Telecommunications facilities ordinance (000,
        effective 2023-12-06 at the earliest)") when every one is proposed (the rule of
        ``assistant.service.proposed_lead``); () when any is not, or none is given."""
        from ingest.asof import effective_words, is_proposed

        known = getattr(getattr(self.engine, "corpus", None), "documents", None) or {}
        found = [known.get(d) for d in documents]
        if not found or any(d is None or not is_proposed(d) for d in found):
            return ()
        return tuple(f"{d.short_title or d.title} ({d.id}, {effective_words(d)})" for d in found)

    def jump(self, text: str):
        """The jump box's view; its shareable URL goes to the address bar (``data-set-url``)."""
        if not isinstance(text, str):
            text = ""
        view, cite = self.lookup_view(text)
        url = pages.jump_url(self.engine.lookup(text), text)
        return (f'<span hidden data-set-url="{pages.esc(url)}"></span>' if url else "") + view, cite, ""

    def find_use(self, text: str) -> str:
        if not isinstance(text, str):
            text = ""
        return pages.use_results(text, self.engine.resolve_uses(text))

    def use_view(self, table: str, row: str):
        engine = self.engine
        cells = engine.permit_row(table, row)
        view = pages.permit_row_view(table, row, cells, engine.district_name, self.document_label)
        cite = views.citation_string(cells[0].cell.section, table,
                                     views.row_sources(cells, self.document_label, engine.document_kind)) if cells else ""
        return view, cite

    def coverage_view(self) -> str:
        from ingest import coverage as coverage_mod

        found = self.engine.coverage()
        return pages.coverage_view(found, coverage_mod.summary_line(found))

    def changes_view(self, document: str) -> str:
        """The page of what one loaded document changed, by table and section (``?changes=002``)."""
        engine = self.engine
        found = engine.document_changes(document)
        now = lambda c: engine.cell_entry(c.section, c.table, c.row, c.column, c.category)  # noqa: E731
        return changes.changes_page(found, document, self.document_label, now)

    def contents(self) -> str:
        return pages.contents(toc_labels(self.engine.toc()), self.engine.grid_list())


def _earlier_note(answer) -> str:
    """Over a grid cited by an answer about an earlier day: the grid is today's table (a cell's history
    has the earlier values)."""
    as_of = getattr(answer, "as_of", None) or {}
    if not as_of.get("ignored"):
        return ""
    return pages.note(f"This grid shows the table as it stands now; the answer is as of {as_of.get('date')}. "
                      "Open a cell for its earlier values.")


def as_of_day(text: object, today: str = "") -> tuple[str, str]:
    """(day, problem) of the "as of" box: day "" for the law now in force (empty, today or later),
    else the ISO day to answer as of; problem: one line saying what is wrong with the text, or ""."""
    import datetime

    from ingest.asof import check_date

    value = text.strip() if isinstance(text, str) else ""
    if not value:
        return "", ""
    try:
        day = check_date(value, 'The "as of" date')
    except ValueError as error:
        return "", f"{error}."
    return ("" if day >= (today or datetime.date.today().isoformat()) else day), ""


def short(text: str, limit: int = 100) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def toc_labels(toc: list) -> list:
    return [(label, date, [(chapter, [(sid, short(text, 90), doc) for sid, text, doc in sections])
                           for chapter, sections in chapters])
            for label, date, chapters in toc]
