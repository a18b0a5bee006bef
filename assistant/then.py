"""Answers about an earlier point in time ("in 2024, was a bar allowed in CE?"): the question,
without its time words, answered by an assistant that reads only the documents dated on or
before that day (``load_assistant(as_of=...)``, the machinery of ``--as-of``), with today's answer
beside it when the cells it used have changed since, and the documents in force named.

``assistant/timepoint.py`` finds the point in time; this module composes the answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from .timepoint import TimePoint
from .types import Answer

Ask = Callable[[str, Sequence], Answer]


def in_force_on(documents: Sequence, day: str) -> list:
    return sorted((d for d in documents if d.date and d.date <= day), key=lambda d: (d.date, d.id))


def answer_then(point: TimePoint, history: Sequence, documents: Sequence, ask_then: Ask, ask_now: Ask,
                question: str, created: Callable[[str], object] | None = None) -> Answer:
    """The answer as of ``point.date``; ``ask_then`` answers with the documents then in force,
    ``ask_now`` with all of them. ``created(symbol)``: the loaded document that first names a
    district (None when none does): a decline about a district that did not yet exist says so."""
    from ingest.asof import in_force_json, in_force_line

    as_of = in_force_json(documents, point.date)
    if not in_force_on(documents, point.date):
        first = min((d for d in documents if d.date), key=lambda d: d.date)
        text = (f"No sure answer: the loaded documents begin on {first.date} ({_label(first)}), after {point.date}, "
                "so they do not say what the law was then.\nPlease ask the City of Cotati Planning Department.")
        return Answer(question=question, answer=text, abstained=True, route="abstain", as_of=as_of)
    then = ask_then(point.rest, history)
    if then.abstained:
        missing = not_yet(then.interpretation, point.date, created) if created is not None else ""
        if missing:
            then = replace(then, answer="\n".join([missing, *then.answer.split("\n")[1:]]))
        return replace(then, question=question, as_of=as_of)
    lines = [f"As of {point.date}: {then.first_line}", *then.answer.split("\n")[1:]]
    now = ask_now(point.rest, history)
    since = changed_since(then, now, documents, point.date)
    if since:
        lines.insert(1, since)
    lines.append(in_force_line(documents, point.date))
    interpretation = {**then.interpretation, "as_of": point.date, "time_words": point.said}
    return replace(then, question=question, answer="\n".join(lines), as_of=as_of, interpretation=interpretation)


def not_yet(interpretation: dict, day: str, created: Callable[[str], object]) -> str:
    """"No sure answer: the TOC (Transit Oriented Community) district did not exist on 2026-02-11; Ord. 939
    (...) created it, in force from 2026-02-12." for the first district the question names that no document then in
    force names; "" when every one existed."""
    for district in interpretation.get("districts") or ():
        symbol = district.get("symbol") if isinstance(district, dict) else str(district)
        document = created(symbol) if symbol else None
        if document is not None and document.date > day:
            name = f" ({district['name']})" if isinstance(district, dict) and district.get("name") else ""
            return (f"No sure answer: the {symbol}{name} district did not exist on {day}; {_label(document)} created "
                    f"it, in force from {document.date}, so the law then in force says nothing about it.")
    return ""


def changed_since(then: Answer, now: Answer, documents: Sequence, day: str) -> str:
    """"Since then: ..." when today's answer uses other values for the same cells, naming the later
    documents its cells come from; "" when nothing it used has changed."""
    if now.abstained or not then.lookups:
        return ""
    before = {_key(cell): cell.get("value") for cell in then.lookups}
    later = [cell for cell in now.lookups if _key(cell) in before and before[_key(cell)] != cell.get("value")]
    if not later:
        return ""
    names = {d.id: d for d in documents}
    changers = sorted({cell.get("document") for cell in later if cell.get("document") in names
                       and names[cell["document"]].date > day}, key=lambda i: names[i].date)
    by = ", ".join(f"{_label(names[i])}, {names[i].date}" for i in changers)
    return f"Since then ({by or 'a later document'}): {now.first_line}"


def change_lines(lookups: Sequence[dict], documents: Sequence, document_id: str) -> list[str]:
    """What each cell's history says: what ``document_id`` changed it from and to (or that it left
    the cell as it was), or, without a document, since when the cell holds its value."""
    from .permits import SHORT_WORDS

    names = {d.id: d for d in documents}
    words = lambda value: SHORT_WORDS.get(value, value)  # noqa: E731
    lines = []
    for cell in lookups:
        timeline = sorted([*cell.get("history", ()), cell], key=lambda entry: entry.get("date") or "")
        where = f"{cell.get('row')} in {cell.get('column')}"
        if document_id:
            document = names.get(document_id)
            before = [e for e in timeline if document and (e.get("date") or "") < document.date]
            at = [e for e in timeline if document and (e.get("date") or "") <= document.date]
            if not document or not at:
                continue
            old = words(before[-1]["value"]) if before else "not in the tables"
            new = words(at[-1]["value"])
            lines.append(f"{where}: {_label(document)} ({document.date}) changed it from {old} to {new}." if old != new
                         else f"{where}: {_label(document)} ({document.date}) left it {new}.")
        else:
            line = since_line(cell, timeline, names, words)
            if line:
                lines.append(line)
    return lines


def since_line(cell: dict, timeline: list[dict], names: dict, words) -> str:
    """Since when ``cell`` holds what it holds now. An allowed value (anything but "-"): since the
    document that last gave it an allowed value after a "not allowed" ("when did X become
    allowed"), or since the first document that prints it ("since the oldest loaded document" when
    that is the oldest); a "-": since the document that last changed it."""
    where = f"{cell.get('row')} in {cell.get('column')}"
    now = cell.get("value")

    def named(entry: dict) -> str:
        document = names.get(entry.get("document"))
        return f"{_label(document) if document else entry.get('document')} ({entry.get('date')})"

    if now != "-":
        closed = [i for i in range(1, len(timeline)) if timeline[i - 1].get("value") == "-"]
        if closed:
            start, previous = timeline[closed[-1]], timeline[closed[-1] - 1]
            return f"{where}: {words(now)}; allowed since {named(start)}; before it, {words(previous['value'])}."
        oldest = min((d.date for d in names.values() if d.date), default="")
        first = timeline[0]
        said = "the oldest loaded document, " if first.get("date") == oldest else ""
        changes = [(a, b) for a, b in zip(timeline, timeline[1:]) if a.get("value") != b.get("value")]
        also = (f" (as {words(changes[-1][1]['value'])} since {named(changes[-1][1])}; before it, "
                f"{words(changes[-1][0]['value'])})") if changes else ""
        return f"{where}: {words(now)}; allowed since {said}{named(first)}{also}."
    changes = [(a, b) for a, b in zip(timeline, timeline[1:]) if a.get("value") != b.get("value")]
    if not changes:  # "when did X become allowed?": it never was, in any loaded document
        return f"{where}: not allowed in any loaded document, from {named(timeline[0])} on."
    previous, since = changes[-1]
    return f"{where}: {words(since['value'])} since {named(since)}; before it, {words(previous['value'])}."


def _key(cell: dict) -> tuple:
    return cell.get("table"), cell.get("row"), cell.get("column")


def _label(document) -> str:
    return document.short_title or document.title
