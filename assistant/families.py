"""A home-based use answered whole: every home row of its family ("a day care out of my house": the
small and the large family day care homes), each with its districts, when the question does not say
which of them it means. Pure functions over permit tables (``assistant.permits.PermitTables``); the
home rows and families are ``assistant/home.py``'s.

Without it, "Can I run a day care out of my house?" was answered from the large family day care home
alone, and residents of NM and NU read "not allowed" where a small one is permitted."""

from __future__ import annotations

import re
from dataclasses import replace

from . import compose, home
from .interpretation import read_as_line
from .permits import RowMatch
from .types import Answer

PERMIT_ROUTES = frozenset({"permit"})


def family(table: str, row: str, rows: list[str]) -> list[str]:
    """The home rows of ``row``'s use in its table, in printed order; [] when ``row`` is not a home row
    or is the only one of its use."""
    if not home.is_home_row(row):
        return []
    if " - " in row:  # "Child day care - Small family day care home": the rows printed under the same use
        use = row.split(" - ", 1)[0].strip().lower()
        members = [r for r in rows if home.is_home_row(r) and " - " in r and r.split(" - ", 1)[0].strip().lower() == use]
    else:
        members = [r for r in rows if home.is_home_row(r) and home.same_use(r, row)]
    return members if len(members) > 1 else []


def names_one(question: str, members: list[str]) -> bool:
    """The question says a word that tells the members apart ("small", "large", "6 or fewer")."""
    words = [set(re.findall(r"[a-z0-9]+", m.lower())) for m in members]
    telling = set().union(*words) - set.intersection(*words)
    said = set(re.findall(r"[a-z0-9]+", question.lower()))
    return bool(telling & said)


def whole_family(question: str, answer: Answer, tables, query, corpus) -> Answer:
    """A permit answer from one home row, given for every home row of its family instead (each with the
    districts the answer covered), unless the question names one of them; other answers as they are."""
    if answer.abstained or answer.route not in PERMIT_ROUTES or not answer.lookups:
        return answer
    rows = list(dict.fromkeys((cell.get("table"), cell.get("row")) for cell in answer.lookups))
    if len(rows) != 1:
        return answer
    table, row = rows[0]
    members = family(table, row, tables.rows.get(table, []))
    if not members or names_one(question, members):
        return answer
    districts = list(dict.fromkeys(cell.get("column") for cell in answer.lookups))
    every = districts == list(tables.columns.get(table, []))
    given = [compose.permit_answer(query, tables, RowMatch(table, member, 1.0), [] if every else districts, corpus)
             for member in members]
    given = [g for g in given if g is not None]
    if len(given) != len(members):
        return answer
    lead = " ".join(_lead(g) for g in given)
    lines = [lead]
    for g in given:
        lines.extend(line for line in g.answer.split("\n")[1:] if not line.startswith("Source:") and line not in lines)
    citations = tuple({(c.section, c.document, c.table): c for g in given for c in g.citations}.values())
    lines.append(compose.source_line(list(citations), corpus))
    uses = [{"table": table, "row": member, "words": "", "family": row} for member in members]
    interpretation = {**answer.interpretation, "uses": uses}
    if any(line.startswith("Read as:") for line in answer.answer.split("\n")):
        lines.insert(1, read_as_line(interpretation))
    return replace(answer, answer="\n".join(lines), citations=citations, interpretation=interpretation,
                   lookups=tuple(cell for g in given for cell in g.lookups))


def _lead(answer: Answer) -> str:
    """One row's lead: "Child day care - Small family day care home: permitted (P) in RR, RVL, NL, NM, NU; ..."."""
    cells = answer.lookups
    first = cells[0]
    label = compose.display_row(first.get("row", ""), first.get("category", ""))
    return f"{label}: " + "; ".join(compose.grouped_codes((c.get("value"), c.get("column")) for c in cells)) + "."
