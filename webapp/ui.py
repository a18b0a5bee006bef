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


import datetime
import json
from dataclasses import dataclass
from typing import Any

from . import pages, views
from .engine import MAX_LOOKUP_CHARS, MAX_QUESTION_CHARS, Engine
from .changes import changes_url
from .viewer import READER_EMPTY, Viewer, as_of_day

EXAMPLES = (
    "Can I open a bar on East Cotati Avenue?",
    "Can I build an ADU in the NL zone?",
    "Can I keep chickens?",
    "How much parking does a gym need?",
    "How tall can a building be in the TOC district?",
)
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
.turn .closest { margin: 8px 0; padding: 6px 10px; border-left: 4px solid #ca8a04; background: #fffbeb; border-radius: 4px; }
.turn .closest p { margin: 2px 0; } .turn .closest-head { font-weight: 600; font-size: 0.95em; }
.turn .closest-where { font-size: 0.92em; color: #374151; }
.turn blockquote.closest-quote { margin: 4px 0; padding: 0; overflow-wrap: anywhere; }
.turn blockquote.closest-quote mark { background: #fef08a; color: #111827; }
.turn .contact { margin: 6px 0 2px; font-size: 0.95em; }
.turn .guide-head { margin: 8px 0 2px; font-weight: 600; font-size: 0.95em; }
.turn ul.guide-kinds { list-style: none; margin: 4px 0; padding: 0; } .turn ul.guide-kinds li { margin: 6px 0; }
.turn .guide-kind { display: block; color: #1f2937; } .turn .guide-how, .turn .guide-not { margin: 6px 0; color: #374151; }
.turn ul.guide-documents { font-size: 0.92em; color: #374151; }
.turn details.more summary { cursor: pointer; font-size: 0.92em; color: #374151; }
.coverage-view h3 { margin: 10px 0 2px; font-size: 1.05em; } .coverage-view ul { margin: 2px 0 2px 1.1em; font-size: 0.92em; }
#disclaimer { border-left: 4px solid #b45309; background: #fffbeb; color: #1f2937; padding: 8px 12px; border-radius: 4px; }
#disclaimer p { margin: 0; }
#index-status p { margin: 0; font-size: 0.9em; color: #374151; }
#examples { gap: 6px; flex-wrap: wrap; }
#examples button { flex: 1 1 auto; min-width: 0 !important; white-space: normal; }
#examples-label p { margin: 0; font-size: 0.92em; color: #374151; }
#new-question { position: fixed; right: 12px; bottom: 12px; z-index: 50; border: 0; border-radius: 20px; padding: 10px 16px;
  background: #1d4ed8; color: #fff; font: inherit; font-weight: 600; box-shadow: 0 2px 8px rgba(0,0,0,.3); cursor: pointer; }
#new-question[hidden] { display: none; }
.turn { border: 1px solid #d1d5db; border-radius: 8px; padding: 10px 14px; margin: 0 0 12px; background: #fff; color: #111827;
  scroll-margin-top: 8px; }
.section-head { scroll-margin-top: 8px; }
.turn.latest { border-color: #1d4ed8; box-shadow: 0 0 0 1px #1d4ed8; }
.turn .asked { margin: 0 0 4px; color: #374151; font-size: 0.92em; overflow-wrap: anywhere; }
.turn .headline { font-size: 1.2em; line-height: 1.35; margin: 2px 0 6px; color: #111827; scroll-margin-top: 12px; }
.turn.abstained .headline { color: #7c2d12; }
.turn .headline.table-lead { font-size: 1.05em; font-weight: 600; }
.turn .answer-grid .grid-view h3 { font-size: 1em; }
#as-of-note p { margin: 2px 0; color: #7c2d12; font-weight: 600; }
.turn .read-as, .turn .confidence, .turn .valid-for { margin: 2px 0; font-size: 0.9em; color: #374151; font-style: italic; }
.turn ul, .turn ol { margin: 6px 0 6px 1.3em; padding: 0; }
.turn li { margin: 2px 0; }
.turn .sources-head, .turn .nearest-head, .turn .followups p { margin: 8px 0 2px; font-weight: 600; font-size: 0.95em; }
.turn a, .section-view a, .grid-view a, .toc a, .chapter-view a, .cell-info a, .permit-view a { color: #1d4ed8; text-decoration: underline; }
a.not-in-corpus { color: #7c2d12 !important; text-decoration-style: dashed !important; }
.turn .sources .proposed { color: #7c2d12; }
.grid-view .proposed-only { color: #7c2d12; }
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
.section-text .printed-table { border: 1px solid #d1d5db; border-radius: 4px; padding: 4px 10px; margin: 8px 0; background: #f9fafb; }
.section-text .printed-table .table-title { font-weight: 600; margin: 2px 0; }
.section-text .printed-table .table-how { color: #374151; font-size: 0.92em; }
.section-text .printed-table summary { cursor: pointer; color: #374151; font-size: 0.92em; }
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
.mark-reviewed { color: #166534; font-weight: 700; margin-left: 2px; }
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
  .turn { padding: 8px 10px; } .turn .headline { font-size: 1.08em; }
  .section-text .lvl-3, .section-text .lvl-4 { margin-left: 1.4em; } }
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
  window.__cotatiMoves = 0;
  ['pointerdown', 'keydown', 'wheel', 'touchstart'].forEach((kind) =>
    document.addEventListener(kind, () => { window.__cotatiMoves += 1; }, {capture: true, passive: true}));
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
    const opens = ['cite', 'section', 'grid', 'chapter', 'use'].includes(cmd.do);
    if (opens) {  // the views now shown are old: the one the server sends back is brought into view
      document.querySelectorAll('.section-view, .grid-view').forEach((v) => v.setAttribute('data-opened', '1'));
    }
    window.__cotatiPending = cmd.do === 'cell' ? 'cell' : (opens ? 'view' : null);
    send(cmd);
  });
  const inView = (el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight - 24; };
  // The whole first line on the screen: a headline cut at the bottom edge is not "in view".
  const lineInView = (el) => {
    const r = el.getBoundingClientRect();
    const line = Math.min(r.height, parseFloat(getComputedStyle(el).lineHeight) || 24);
    return r.top >= 0 && r.top + line <= window.innerHeight - 4;
  };
  // An opened view's heading in the upper part of the screen, where the eye is after a click.
  const nearTop = (el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight * 0.4; };
  const innerScroll = (el, box) => {
    // Only the box the cited row or quote scrolls in moves: the row goes a third of the way down the part
    // of the box on screen (on a 1366x768 laptop the box runs below the fold). Rects, not offsetTop: a
    // table row's offsetTop counts from its table, the box's from the reader.
    const b = box.getBoundingClientRect();
    const shown = Math.max(40, Math.min(b.bottom, window.innerHeight) - b.top);
    box.scrollTop += el.getBoundingClientRect().top - b.top - shown / 3;
    // A grid opens at the district asked: the cited cell right of the sticky row heading.
    const cell = el.matches('tr') ? el.querySelector('button.cell.cited') : null;
    if (cell) {
      const head = el.querySelector('th.rowhead');
      const left = b.left + (head ? head.getBoundingClientRect().width : 0);
      const c = cell.getBoundingClientRect();
      if (c.left < left || c.right > b.right) box.scrollLeft += c.left - left - 8;
    }
  };
  const settle = () => {
    document.querySelectorAll('[data-scroll-to]:not([data-scrolled])').forEach((el) => {
      el.setAttribute('data-scrolled', '1');
      const how = el.getAttribute('data-scroll-to');
      const box = el.closest('.section-text, .grid-scroll');
      if (box) {
        // A view opened by a click ("center"): its first line comes into view (on a phone the reader sits
        // below the answers), then the box scrolls to the quote. Shown with a new answer ("inner"): the page
        // stays on the answer.
        const view = el.closest('.section-view, .grid-view');
        const head = view && view.querySelector('.section-head');
        if (how !== 'inner' && head && !nearTop(head)) head.scrollIntoView({block: 'start'});
        innerScroll(el, box);
        return;
      }
      if (how === 'inner') return;
      if (how === 'start' && el.closest('.turn')) {
        // A new answer: its question and first line at the top. Checked again for a moment: the question box,
        // emptied while it has the focus, scrolls its caret into view after the answer is drawn.
        // Any click, key or touch of the reader's own ends the checks (theirs is the last word), and so does
        // any other scroll the checks did not make, but the caret's (the box, focused, brought on the screen):
        // a reader who has already scrolled on to the answer's Helpful button is not pulled back to its top.
        const token = ++window.__cotatiMoves;
        let left = window.scrollY;
        const caret = () => {
          const box = document.querySelector('#question textarea');
          if (!box || document.activeElement !== box) return false;
          const r = box.getBoundingClientRect();
          return r.bottom > 0 && r.top < window.innerHeight;
        };
        const bring = () => {
          if (token !== window.__cotatiMoves || !el.isConnected) return;
          if (Math.abs(window.scrollY - left) > 1 && !caret()) { window.__cotatiMoves += 1; return; }
          if (!lineInView(el)) el.closest('.turn').scrollIntoView({block: 'start'});
          left = window.scrollY;
        };
        bring();
        [120, 350, 700].forEach((ms) => setTimeout(bring, ms));
        return;
      }
      if (how === 'start' && lineInView(el)) return;
      const tall = el.getBoundingClientRect().height > window.innerHeight * 0.6;
      el.scrollIntoView({block: how === 'start' || tall ? 'start' : 'center'});
    });
    // A view opened by a click that marks nothing (a section without a quote): its first line in view.
    if (window.__cotatiPending === 'view') {
      const view = document.querySelector('#reader .section-view:not([data-opened]), #reader .grid-view:not([data-opened]), '
        + '#jump-view .section-view:not([data-opened]), #jump-view .grid-view:not([data-opened])');
      if (view) {
        window.__cotatiPending = null;
        document.querySelectorAll('#reader .section-view, #reader .grid-view, #jump-view .section-view, #jump-view .grid-view')
          .forEach((v) => v.setAttribute('data-opened', '1'));
        const head = view.querySelector('.section-head');
        if (head && !nearTop(head)) head.scrollIntoView({block: 'start'});
      }
    }
    // A view the Browse tab shows from a shared link (?section=, ?table=) or the jump box: its heading's first line
    // in view. On a phone the view sits under the finder and the contents, a screen or two down; on a laptop it is
    // beside them, already in view, and nothing moves. Checked again while the tab is still being drawn.
    const staffHead = document.querySelector('#jump-view .section-head:not([data-brought])');
    if (staffHead) {
      if (staffHead.getBoundingClientRect().height === 0) {
        window.__cotatiStaffTries = (window.__cotatiStaffTries || 0) + 1;
        if (window.__cotatiStaffTries < 50) setTimeout(() => requestAnimationFrame(settle), 100);
      } else {
        window.__cotatiStaffTries = 0;
        staffHead.setAttribute('data-brought', '1');
        const view = staffHead.parentElement;
        const own = view.querySelector('[data-scroll-to]') || view.matches('[data-scroll-to]')
          || (view.matches('[data-from-url]') && location.hash);
        if (!own && !lineInView(staffHead)) staffHead.scrollIntoView({block: 'start'});
      }
    }
    // "New question": while the question box is off the screen, one button brings it back.
    const ask = document.querySelector('#question textarea');
    let again = document.getElementById('new-question');
    if (ask && !again) {
      again = document.createElement('button');
      again.id = 'new-question'; again.type = 'button'; again.textContent = 'New question'; again.hidden = true;
      again.addEventListener('click', () => {
        const box = document.querySelector('#question textarea');
        if (!box) return;
        box.scrollIntoView({block: 'center'}); box.focus({preventScroll: true});
      });
      document.body.appendChild(again);
      let queued = false;
      // Never over a control: the button takes the first corner where nothing under it can be pressed or typed
      // in (bottom right, bottom left, top right, top left), and stays hidden while every corner covers one.
      const CONTROL = 'a[href], button, input, textarea, select, summary, label, [role="button"], [data-nav]';
      const covers = () => {  // points 8px apart over the button (and a 4px margin): a short link fits nowhere between
        const r = again.getBoundingClientRect();
        for (let x = r.left - 4; x <= r.right + 4; x += 8) {
          for (let y = r.top - 4; y <= r.bottom + 4; y += 8) {
            const hit = document.elementsFromPoint(Math.min(x, r.right + 4), Math.min(y, r.bottom + 4));
            if (hit.some((el) => el !== again && !again.contains(el) && el.closest(CONTROL))) return true;
          }
        }
        return false;
      };
      const CORNERS = [['auto', '12px', '12px', 'auto'], ['auto', 'auto', '12px', '12px'],
                       ['12px', '12px', 'auto', 'auto'], ['12px', 'auto', 'auto', '12px']];  // top right bottom left
      const place = () => {
        queued = false;
        const now = document.querySelector('#question textarea');  // gradio may draw the box anew
        const r = now ? now.getBoundingClientRect() : null;
        // Wanted while the box is off the screen, on its own tab (not in the Browse tab, where the box is not drawn)
        const wanted = !!r && r.width > 0 && !(r.bottom > 0 && r.top < window.innerHeight);
        again.hidden = !wanted;
        if (!wanted) return;
        for (const [top, right, bottom, left] of CORNERS) {
          Object.assign(again.style, {top, right, bottom, left});
          if (!covers()) { again.removeAttribute('data-covering'); return; }
        }
        again.hidden = true;  // every corner would cover a control: out of the way until the next scroll
        again.setAttribute('data-covering', '1');
      };
      const later = () => { if (!queued) { queued = true; requestAnimationFrame(place); } };
      window.addEventListener('scroll', later, {capture: true, passive: true});
      window.addEventListener('resize', later, {passive: true});
      window.__cotatiPlace = later;
    }
    if (window.__cotatiPlace) window.__cotatiPlace();
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


NAV_KINDS = frozenset({"ask", "cite", "mark", "section", "chapter", "coverage", "changes", "grid", "cell", "use"})


@dataclass
class Parts:
    """The components the events read and write, set by the layout functions below."""

    state: Any = None
    nav_box: Any = None
    tabs: Any = None
    question: Any = None
    ask_button: Any = None
    example_buttons: Any = None
    as_of: Any = None
    as_of_note: Any = None
    chat: Any = None
    live: Any = None
    reader: Any = None
    reader_cell: Any = None
    jump_box: Any = None
    jump_button: Any = None
    use_box: Any = None
    use_results: Any = None
    staff_view: Any = None
    staff_cell: Any = None
    staff_copy: Any = None
    status: Any = None
    timer: Any = None


def build_demo(engine: Engine, contact: str = ""):
    """The app. ``contact``: the Planning Department contact line shown with refusals (none when empty)."""
    import gradio as gr

    import settings

    viewer = Viewer(engine, contact)
    parts = Parts()
    with gr.Blocks(title="Cotati land-use code assistant") as demo:
        _header(gr, engine)
        # A tab's conversation (at most MAX_TURNS turns), dropped after the idle time (webapp.sessions)
        parts.state = gr.State([], time_to_live=settings.value("session_idle_seconds"))
        parts.nav_box = gr.Textbox(elem_id="nav", label="navigation", show_label=False, container=False)
        with gr.Tabs(overflow_behavior="wrap") as parts.tabs:
            with gr.Tab("Ask a question", id="ask"):
                _ask_tab(gr, parts)
            with gr.Tab("Browse the code", id="staff", elem_id="staff-panel"):
                _browse_tab(gr, parts, viewer.contents())
        _footer(gr, parts, engine)
        _wire(gr, demo, parts, Events(viewer, parts))
    return demo


NO_MATH: list = []  # Markdown here is the code's words: "$" is a dollar, not LaTeX


def _header(gr, engine: Engine) -> None:
    from ingest import coverage as coverage_mod

    line = pages.coverage_line(coverage_mod.summary_line(engine.coverage()))
    gr.HTML('<div id="app-head"><h1>Cotati land-use code assistant</h1><p>Plain-English answers from the City of '
            "Cotati's zoning ordinances and code chapters, each quoted with its source.</p>" + line + "</div>",
            js_on_load=None, padding=False)


def _ask_tab(gr, parts: Parts) -> None:
    """The question box and examples, the conversation, and the reader of sources beside it."""
    with gr.Row(elem_id="ask-layout", equal_height=False):
        with gr.Column(scale=3, min_width=320, elem_id="ask-col"):
            with gr.Row(equal_height=True, elem_id="ask-row"):
                parts.question = gr.Textbox(label="Your question", placeholder="e.g. Can I open a bar on East Cotati Avenue?",
                                            info=f"Up to {MAX_QUESTION_CHARS:,} characters.", elem_id="question",
                                            scale=5, min_width=200, lines=1, max_lines=4, autofocus=False)
                parts.ask_button = gr.Button("Ask", variant="primary", elem_id="ask-button", scale=1, min_width=80)
                # Answers are valid for a day: today's law by default, an earlier day's on request.
                parts.as_of = gr.Textbox(label="Law as of", placeholder="YYYY-MM-DD", info="Today by default.",
                                         elem_id="as-of", scale=2, min_width=130, lines=1, max_lines=1, max_length=20)
            # Hidden until a date is wrong: an empty block would still push the examples down.
            parts.as_of_note = gr.HTML("", elem_id="as-of-note", js_on_load=None, padding=False, visible=False)
            gr.Markdown("Example questions (press one to ask it):", elem_id="examples-label", latex_delimiters=NO_MATH)
            with gr.Row(elem_id="examples"):
                parts.example_buttons = [gr.Button(text, size="sm", min_width=0) for text in EXAMPLES]
            parts.chat = gr.HTML(pages.conversation([]), elem_id="chat", js_on_load=None, padding=False)
            parts.live = gr.Markdown("", elem_id="answer-live", elem_classes=["sr-only"], latex_delimiters=NO_MATH)
        with gr.Column(scale=2, min_width=320, elem_id="reader-col"):
            parts.reader = gr.HTML(READER_EMPTY, elem_id="reader", js_on_load=None, padding=False)
            parts.reader_cell = gr.HTML("", elem_id="reader-cell", js_on_load=None, padding=False)


def _browse_tab(gr, parts: Parts, contents_html: str) -> None:
    """The jump box, the land-use finder and the contents, and the staff view they open."""
    gr.HTML('<h2 class="sr-only">Browse the code</h2>', js_on_load=None, padding=False)
    with gr.Row(equal_height=True):
        parts.jump_box = gr.Textbox(label="Go to a chapter, section, subsection or table",
                                    placeholder="17.44, 17.44.065, 17.36.040(E) or Table 2-4",
                                    max_length=MAX_LOOKUP_CHARS, elem_id="jump", scale=4, min_width=200)
        parts.jump_button = gr.Button("Go", elem_id="jump-button", scale=1, min_width=80)
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=260, elem_id="browse-col"):
            parts.use_box = gr.Textbox(label="Find a land use in the permit tables", placeholder="gym, bar, granny unit…",
                                       max_length=MAX_LOOKUP_CHARS, elem_id="use-find")
            parts.use_results = gr.HTML("", elem_id="use-results", js_on_load=None, padding=False)
            gr.HTML(contents_html, elem_id="toc", js_on_load=None, padding=False)
        with gr.Column(scale=3, min_width=300, elem_id="staff-col"):
            parts.staff_view = gr.HTML(STAFF_EMPTY, elem_id="jump-view", js_on_load=None, padding=False)
            parts.staff_cell = gr.HTML("", elem_id="staff-cell", js_on_load=None, padding=False)
            parts.staff_copy = gr.Textbox(label="Citation to copy", interactive=False, buttons=["copy"], elem_id="jump-copy")


def _footer(gr, parts: Parts, engine: Engine) -> None:
    """The disclaimer, the documents answers come from, and the search index's status."""
    gr.Markdown(views.DISCLAIMER, elem_id="disclaimer", latex_delimiters=NO_MATH)
    with gr.Accordion("The documents answers come from", open=False, elem_id="documents"):
        gr.Markdown(views.documents_markdown(engine.documents()), latex_delimiters=NO_MATH)
    parts.status = gr.Markdown(engine.status.text(), elem_id="index-status", latex_delimiters=NO_MATH)
    parts.timer = gr.Timer(1.0)


def safe_event(fn, what: str):
    """An event as the page calls it (issue 45): each text input through the question box's normalisation
    (``assistant.validate.clean_question``: a lone surrogate, a control or format character never reaches
    the finder, the navigation or the jump box raw), and a failure one log line and a message that prints
    no traceback (gradio prints one for any other exception)."""
    import functools

    from assistant.validate import clean_question

    @functools.wraps(fn)
    def call(*args):
        import gradio as gr

        from .shutdown import IN_FLIGHT

        args = tuple(clean_question(a) if isinstance(a, str) else a for a in args)
        try:
            with IN_FLIGHT.one():  # a SIGTERM lets it finish (webapp/shutdown.py)
                return fn(*args)
        except gr.Error:
            raise
        except Exception as error:  # noqa: BLE001 - one line for the operator, a plain message for the page
            import logging

            logging.getLogger("webapp").warning("event %s failed: %s: %s", what, type(error).__name__,
                                                str(error)[:200])
            raise gr.Error("That could not be shown; please try again.", print_exception=False) from None

    return call


def _wire(gr, demo, parts: Parts, events: "Events") -> None:
    """Every event, private to the page, and the two public API endpoints."""
    p, private = parts, {"api_visibility": "private"}
    events = _SafeEvents(events)
    answer_outputs = [p.question, p.chat, p.state, p.live, p.reader, p.reader_cell, p.as_of_note]
    p.question.submit(events.respond, [p.question, p.state, p.as_of], answer_outputs, **private)
    p.ask_button.click(events.respond, [p.question, p.state, p.as_of], answer_outputs, **private)
    for button in p.example_buttons:
        button.click(lambda turns, day, _text=button.value: events.respond(_text, turns, day), [p.state, p.as_of],
                     answer_outputs, **private)
    p.nav_box.change(events.navigate, [p.nav_box, p.state, p.as_of], set(events.nav_outputs()), **private)
    jump_outputs = [p.staff_view, p.staff_copy, p.staff_cell]
    p.jump_box.submit(events.viewer.jump, [p.jump_box], jump_outputs, **private)
    p.jump_button.click(events.viewer.jump, [p.jump_box], jump_outputs, **private)
    p.use_box.submit(events.viewer.find_use, [p.use_box], [p.use_results], **private)
    p.use_box.input(events.viewer.find_use, [p.use_box], [p.use_results], show_progress="hidden",
                    trigger_mode="always_last", **private)
    p.timer.tick(events.status_tick, None, [p.status, p.timer], queue=False, show_progress="hidden", **private)

    def on_load(request: gr.Request):  # the annotation is how gradio knows to pass the request
        return events.on_load(request)

    demo.load(on_load, None, [p.status, p.tabs, p.jump_box, p.staff_view, p.staff_copy, p.as_of], queue=False, **private)
    gr.api(events.viewer.ask_markdown, api_name="ask")
    gr.api(events.viewer.section_lookup, api_name="section")


class _SafeEvents:
    """``events`` with each event the page wires through ``safe_event`` (its viewer's too)."""

    def __init__(self, events: "Events"):
        self._events = events
        self.respond = safe_event(events.respond, "answer")
        self.navigate = safe_event(events.navigate, "navigate")
        self.nav_outputs = events.nav_outputs
        self.status_tick = events.status_tick
        self.on_load = events.on_load
        viewer = events.viewer
        self.viewer = type("SafeViewer", (), {
            "jump": staticmethod(safe_event(viewer.jump, "jump")),
            "find_use": staticmethod(safe_event(viewer.find_use, "find use")),
            "ask_markdown": staticmethod(safe_event(viewer.ask_markdown, "ask")),
            "section_lookup": staticmethod(safe_event(viewer.section_lookup, "section")),
        })()


class Events:
    """What the page's events do: answer, follow data-nav links, keep marks, show status, open URLs."""

    def __init__(self, viewer: Viewer, parts: Parts):
        self.viewer, self.parts, self.engine = viewer, parts, viewer.engine

    # -- answers --------------------------------------------------------------------------------
    def respond(self, question: str, turns: list, as_of: str = ""):
        """(question box, chat, state, live region, reader, reader's cell, the "as of" note) after a question;
        a bad "as of" date keeps the question in its box and says in one line what is wrong."""
        import gradio as gr

        if not isinstance(question, str) or not question.strip():
            return (gr.skip(),) * 7  # an empty submit does nothing
        day, problem = as_of_day(as_of)
        if problem:
            return gr.skip(), gr.skip(), gr.skip(), views.md_escape(problem), gr.skip(), gr.skip(), _problem(problem)
        turns, live, reader = self.viewer.answer(question, turns or [], day)
        return "", self.viewer.cards(turns), turns, live, reader, "", _problem("")

    # -- the one entry point of data-nav links ------------------------------------------------
    def nav_outputs(self) -> list:
        p = self.parts
        return [p.chat, p.state, p.live, p.reader, p.reader_cell, p.staff_view, p.staff_cell, p.staff_copy, p.tabs,
                p.as_of_note]

    def navigate(self, raw: str, turns: list, as_of: str = "") -> dict:
        """The view a data-nav command asks for, shown where its link was (the reader or the staff view);
        a follow-up question is answered as of the "as of" box's day."""
        command = _command(raw)
        kind = command.get("do")
        if kind not in NAV_KINDS:
            return {}
        target = "staff" if command.get("target") == "staff" else "ask"
        if kind == "ask":
            command = {**command, "as_of": as_of}
        return getattr(self, f"_nav_{kind}")(command, target, list(turns or []))

    def _outs(self, target: str) -> tuple:
        p = self.parts
        return (p.staff_view, p.staff_cell) if target == "staff" else (p.reader, p.reader_cell)

    def _shown(self, target: str, view: str, cite: str | None = None) -> dict:
        """A view in the target's place (its cell info cleared); the staff view also gets its citation."""
        view_out, cell_out = self._outs(target)
        out = {view_out: view, cell_out: ""}
        if target == "staff" and cite is not None:
            out[self.parts.staff_copy] = cite
        return out

    def _nav_ask(self, command: dict, target: str, turns: list) -> dict:
        import gradio as gr

        question = str(command.get("q") or "")
        if not question.strip():
            return {}
        p = self.parts
        day, problem = as_of_day(command.get("as_of"))
        if problem:
            return {p.live: views.md_escape(problem), p.as_of_note: _problem(problem), p.tabs: gr.Tabs(selected="ask")}
        turns, live_text, reader_html = self.viewer.answer(question, turns, day)
        return {p.chat: self.viewer.cards(turns), p.state: turns, p.live: live_text, p.reader: reader_html,
                p.reader_cell: "", p.as_of_note: _problem(""), p.tabs: gr.Tabs(selected="ask")}

    def _nav_cite(self, command: dict, target: str, turns: list) -> dict:
        try:
            asked, answer, *_ = turns[int(command.get("turn"))]
            view = self.viewer.citation_view(answer, int(command.get("n")))
        except (TypeError, ValueError, IndexError):
            view = pages.note("That answer is no longer in this conversation; ask the question again.")
        return self._shown(target, view)

    def _nav_section(self, command: dict, target: str, turns: list) -> dict:
        section_id = _text(command, "id")
        section = self.engine.section(section_id, _text(command, "doc") or None) or self.engine.section(section_id)
        if section is None:
            return self._shown(target, self.viewer.missing(section_id))
        try:
            anchor = int(command.get("anchor") or 0)
        except (TypeError, ValueError):
            anchor = 0
        quote = str(command.get("quote") or "")[:2000]  # a decline's closest passage: opened highlighted where it stands
        view = self.viewer.section_view(section, quote=quote, anchor=anchor)
        return self._shown(target, view, self.viewer.section_cite(section))

    def _nav_chapter(self, command: dict, target: str, turns: list) -> dict:
        return self._shown(target, self.viewer.lookup_view(_text(command, "id"))[0])

    def _nav_coverage(self, command: dict, target: str, turns: list) -> dict:
        import gradio as gr

        p = self.parts
        return {p.staff_view: self.viewer.coverage_view(), p.staff_cell: "", p.tabs: gr.Tabs(selected="staff")}

    def _nav_changes(self, command: dict, target: str, turns: list) -> dict:
        import gradio as gr

        p, document = self.parts, _text(command, "doc")[:20]
        view = f'<span hidden data-set-url="{pages.esc(changes_url(document))}"></span>' + self.viewer.changes_view(document)
        return {p.staff_view: view, p.staff_cell: "", p.staff_copy: "", p.tabs: gr.Tabs(selected="staff")}

    def _nav_grid(self, command: dict, target: str, turns: list) -> dict:
        section, table = _text(command, "section"), _text(command, "table")
        view, cite = self.viewer.grid_view(section, table, _text(command, "row"))
        if view is None:
            return self._shown(target, pages.note(f"Table {table} of § {section} is not parsed."))
        return self._shown(target, view, cite)

    def _nav_cell(self, command: dict, target: str, turns: list) -> dict:
        entry = self.engine.cell_entry(_text(command, "section"), _text(command, "table"), str(command.get("row") or ""),
                                       str(command.get("column") or ""), str(command.get("category") or ""))
        info = pages.note("No cell there.") if entry is None else pages.cell_info(entry, self.engine.district_name,
                                                                                   self.viewer.document_label)
        return {self._outs(target)[1]: info}

    def _nav_use(self, command: dict, target: str, turns: list) -> dict:
        view, cite = self.viewer.use_view(_text(command, "table"), str(command.get("row") or ""))
        return self._shown(target, view, cite)

    def _nav_mark(self, command: dict, target: str, turns: list) -> dict:
        """A resident's "helpful" or "wrong" (and comment) on one answer of this conversation, kept in the
        question log on that answer's row. The row is found from this session's own turns, so a page can
        mark only the answers it was given."""
        p = self.parts
        try:
            number = int(command.get("turn"))
        except (TypeError, ValueError):
            number = -1
        if not 0 <= number < len(turns):
            return {p.live: "That answer is no longer in this conversation; ask the question again."}
        asked, answer, entry, feedback = turns[number]
        mark, comment = command.get("mark"), str(command.get("comment") or "")[:pages.MAX_COMMENT_CHARS * 2]
        refused = ("This answer was not recorded, so it cannot be marked." if entry is None
                   else self.engine.mark(entry, mark, comment))
        if refused:
            feedback = {**feedback, "note": refused, "comment": comment}
        else:
            feedback = {"mark": mark, "comment": " ".join(comment.split()), "note": ""}
        turns[number] = (asked, answer, entry, feedback)
        said = refused or f"Marked {mark}. Thank you."
        return {p.chat: self.viewer.cards(turns, marked=number), p.state: turns, p.live: views.md_escape(said)}

    # -- status and links --------------------------------------------------------------------
    def status_tick(self):
        import gradio as gr

        done = self.engine.status.state in ("ready", "failed")
        return self.engine.status.text(), gr.Timer(active=not done)

    def on_load(self, request=None):
        """The view a shared URL names (``?section=``, ``?table=``, ``?chapter=``, ``?coverage=1``,
        ``?changes=002``), in the Browse tab; the page as it is when the URL names none."""
        import gradio as gr

        params = dict(request.query_params) if request is not None else {}
        # The "as of" box: the URL's day (?as_of=2024-06-01, checked when a question is asked), else
        # today, set on each page load so a server running for days offers the right day.
        day = (params.get("as_of") or "")[:20] or datetime.date.today().isoformat()
        found = self.url_view(params)
        if found is None:
            return self.engine.status.text(), gr.Tabs(), gr.Textbox(), gr.HTML(), gr.Textbox(), day
        jump_text, view, cite = found
        return self.engine.status.text(), gr.Tabs(selected="staff"), jump_text, view, cite, day

    def url_view(self, params: dict):
        """(the jump box's text, view, citation) for a shared URL's parameters; None when they name no view."""
        engine, viewer = self.engine, self.viewer
        section_id = (params.get("section") or "")[:MAX_LOOKUP_CHARS]
        table, chapter = (params.get("table") or "")[:20], (params.get("chapter") or "")[:20]
        document = (params.get("doc") or "")[:10]
        if params.get("coverage"):
            return _keep_box(), viewer.coverage_view(), ""
        if params.get("changes"):
            return _keep_box(), viewer.changes_view((params.get("changes") or "")[:20]), ""
        if section_id and table:
            view, cite = viewer.grid_view(section_id, table)
            if view is not None:
                return f"Table {table}", view, cite
        wanted = section_id or (f"Table {table}" if table else chapter)
        if not wanted:
            return None
        section = engine.section(section_id, document) if section_id and document else None
        if section is not None:
            return wanted, viewer.section_view(section, from_url=True), viewer.section_cite(section)
        view, cite = viewer.lookup_view(wanted, from_url=True)
        return wanted, view, cite


def _keep_box():
    """A component update that leaves the jump box as it is."""
    import gradio as gr

    return gr.Textbox()


def _problem(line: str):
    """The "as of" note: the line saying what is wrong with the date, shown; hidden when there is none."""
    import gradio as gr

    return gr.HTML(f'<p role="alert">{pages.esc(line)}</p>' if line else "", visible=bool(line))


def _command(raw: object) -> dict:
    """The data-nav command a link sent (JSON); {} when it is not one."""
    try:
        command = json.loads(raw) if isinstance(raw, str) and raw else {}
    except ValueError:
        return {}
    return command if isinstance(command, dict) else {}


def _text(command: dict, key: str) -> str:
    return str(command.get(key) or "")[:MAX_LOOKUP_CHARS * 2]
