"""Permit comparisons and negations (issue 23 item 3): "in which of CD or NL is a gym easier to get
approved?", "is a bar allowed in CE but not CI?", "where is a junior ADU not allowed?", "which Table 2-4 districts allow X?". The permit
cells' reading the permit route proposes (``assistant/permit_cells.py``) finds the row and each named
district's cell (the comparison's own words taken out first: they name no use); this route states
the comparison on the first line, each value cited as the permit route cites it. Gives
``permit_code`` (the answer is the cells), with the permit route's signals, so the permit route's
calibrated confidence judges it.

Permit levels compare in the code's order of review (17.22.020's legend: P permitted with a zoning
clearance, MUP minor use permit, UP use permit, "-" use not allowed). A cell that carries a condition
(a note on the cell itself) or whose permit is set elsewhere (S, the specific use regulations) is
not ranked: the answer says so and gives each value."""

from __future__ import annotations

import re
from dataclasses import replace

from .. import compose, permit_cells
from ..interpretation import interpretation_of
from ..resources import Resources
from ..types import Candidate, Query

GIVES = "permit_code"  # the answer is the cells, as the permit route's
LEVELS = {"P": 0, "MUP": 1, "UP": 2, "-": 3}  # 17.22.020's legend, from the least to the most demanding
# A question that compares districts (general English): a comparative, "versus", or "which one".
# Not "which of" alone: "which of the commercial districts allow a hotel?" asks for a list.
COMPARES = re.compile(r"\b(?:easier|easiest|harder|simpler|simplest|stricter|strictest|tougher|looser|lower|lesser|least|"
                      r"more restrictive|less restrictive|compar\w*|versus|vs\.?|which one)\b", re.I)
BUT_NOT = re.compile(r"\bbut not\b", re.I)
# A question that asks where a use is not allowed.
WHERE_NOT = re.compile(r"\b(?:where|which|what)\b.*(?:\bnot (?:allowed|permitted)\b|\bprohibit\w*|\bcan'?t\b|\bcannot\b|"
                       r"\b(?:don'?t|doesn'?t|do not|does not) allow\b|\bsay no\b|\bbanned\b|\bforbidden\b)", re.I)
# Words of a comparison that name no use: taken out before the row is looked for (general English).
COMPARISON_WORDS = re.compile(r"\b(?:easier|easiest|harder|simpler|simplest|stricter|strictest|tougher|looser|lower|lesser|"
                              r"least|restrictive|compar\w*|versus|vs|which|one|approved|approval|level|even|re|"
                              r"has|have|but|not|where)\b", re.I)


# "the Table 2-4 districts": the district columns of the permit table named.
TABLE_DISTRICTS = re.compile(r"\btable\s+(\d-\d{1,2})\s+(?:zoning\s+)?(?:districts|zones)\b", re.I)


def candidates(query: Query, res: Resources) -> list[Candidate]:
    query = _with_table_districts(query, res)
    compares = len(query.districts) >= 2 and bool(COMPARES.search(query.text) or BUT_NOT.search(query.text))
    where_not = not compares and bool(WHERE_NOT.search(query.text))
    if not (compares or where_not or (query.districts and TABLE_DISTRICTS.search(query.text))):
        return []
    stripped = re.sub(r"\s{2,}", " ", COMPARISON_WORDS.sub(" ", query.normalized)).strip()
    answer = permit_cells.answer(replace(query, normalized=stripped), res)
    if answer is None:
        return []
    first, *rest = answer.answer.split("\n")
    if compares:
        cells = _named_cells(answer.lookups, query.districts)
        unlisted = [d for d in query.districts if d not in {c.get("column") for c in cells}]
        if unlisted and cells:  # the first line spoke of the one district answered: name it
            first = f"{unlisted_line(unlisted, cells)} {cells[0].get('row')}: " + "; ".join(
                compose.grouped_codes((c.get("value"), c.get("column")) for c in cells)) + "."
        else:
            lead = but_not_line(cells) if BUT_NOT.search(query.text) else comparison_line(cells)
            first = f"{lead} {first}" if lead else first
    elif where_not:
        first = not_allowed_first(first)
    answer = replace(answer, question=query.text, answer="\n".join([first, *rest]))
    # read with the districts this route gave it ("the Table 2-4 districts"), which the chooser's query lacks
    return [Candidate(GIVES, replace(answer, interpretation=interpretation_of(query, answer, res.vocabulary)))]


def _with_table_districts(query: Query, res: Resources) -> Query:
    """"Which Table 2-4 districts allow a transit station?": the districts of that permit table's
    columns, when the question names no district itself."""
    match = TABLE_DISTRICTS.search(query.text)
    columns = res.tables.columns.get(match.group(1)) if match and not query.districts else None
    if not columns:
        return query
    return replace(query, districts=tuple(columns), district_words=(match.group(0),), tables=())


def _named_cells(lookups, districts) -> list[dict]:
    """The first cell of each named district, in the order the question names them."""
    cells = []
    for district in districts:
        cell = next((c for c in lookups if c.get("column") == district), None)
        if cell is not None:
            cells.append(cell)
    return cells


def unlisted_line(unlisted: list[str], cells: list[dict]) -> str:
    """A named district whose table has no such row: nothing to compare it with, said before the rest."""
    row = cells[0].get("row", "this use") if cells else "this use"
    return (f"Not compared: the permit table of {', '.join(unlisted)} has no {row} row, so the tables do not say "
            f"how it is treated there;")


def conditioned(cell: dict) -> bool:
    """A cell the code conditions (a note on the cell itself) or leaves to other rules (S, unread)."""
    return cell.get("value") not in LEVELS or any(note.get("scope", "cell") == "cell" for note in cell.get("footnotes", ()))


def comparison_line(cells: list[dict]) -> str:
    """"Easier in CG:", "The same in CG and CE:", or why the cells are not ranked; "" for fewer than two."""
    if len(cells) < 2:
        return ""
    unranked = [c for c in cells if conditioned(c)]
    if unranked:
        notes = sorted({n.get("number") for c in unranked for n in c.get("footnotes", ()) if n.get("scope", "cell") == "cell"})
        why = f"note {', '.join(notes)}" if notes else "its permit is set by other rules"
        return f"Not ranked here, as a cell carries conditions ({', '.join(c['column'] for c in unranked)}: {why}); each value:"
    levels = {c["column"]: LEVELS[c["value"]] for c in cells}
    best = min(levels.values())
    easiest = [column for column, level in levels.items() if level == best]
    if len(easiest) == len(cells):
        return f"The same in {' and '.join(easiest)}:"
    return f"Easier in {' and '.join(easiest)}:"


def but_not_line(cells: list[dict]) -> str:
    """"Yes:" when the first district allows the use and the second does not, else "No:"."""
    if len(cells) < 2:
        return ""
    allowed = [c.get("value") not in ("-", None) for c in cells[:2]]
    return "Yes:" if allowed == [True, False] else "No:"


def not_allowed_first(line: str) -> str:
    """"Row: permitted (P) in A; not allowed in B, C." -> "Row: not allowed in B, C; permitted (P) in A."
    (a line of another shape is left as it is)."""
    head, colon, body = line.partition(": ")
    if not colon or ". " in body:
        return line
    groups = body.rstrip(".").split("; ")
    denied = [g for g in groups if g.startswith("not allowed in ")]
    if not denied or len(groups) < 2:
        return line
    return f"{head}: " + "; ".join(denied + [g for g in groups if g not in denied]) + "."

