"""What a question was read as: the use rows, districts, topics and answer type behind an answer,
with the question's own words for each, and the one "Read as" line a resident can check."""

from __future__ import annotations

from .compose import display_row
from .permits import STOP, words_of
from .types import Answer, Query


def interpretation_of(query: Query, answer: Answer, vocabulary) -> dict:
    """What the question was read as, with the words of the question behind each part."""
    asked = set(words_of(query.text))
    uses = []
    for cell in answer.lookups:
        row = display_row(cell.get("row", ""), cell.get("category", ""))
        if any((u["table"], u["row"]) == (cell.get("table"), row) for u in uses):
            continue  # one row's cells in several districts: the row once
        said = [w for w in words_of(f"{cell.get('category', '')} {cell.get('row', '')}") if w in asked and w not in STOP]
        uses.append({"table": cell.get("table"), "row": row, "words": query.land_use_words or " ".join(dict.fromkeys(said))})
    districts = []
    for symbol, words in zip(query.districts, _district_words(query)):
        district = vocabulary.district(symbol)
        districts.append({"symbol": symbol, "name": district.name if district else symbol, "words": words})
    return {
        "uses": uses,
        "districts": districts,
        "topics": list(query.topics),
        "answer_type": query.detected,
        "sections": list(query.sections),
        "tables": list(query.tables),
    }


def _district_words(query: Query) -> list[str]:
    """The words that named each district (a group word such as "downtown" names several)."""
    words = list(query.district_words)
    if len(words) == len(query.districts):
        return words
    return [words[0] if len(words) == 1 else " / ".join(words)] * len(query.districts)


def read_as_line(interpretation: dict) -> str:
    """One line a resident can check: "Read as: Bar, tavern (Table 2-3) in CE"; for a provision,
    its heading path ("17.44.060 Facility design ... > E. Additional Screening and Landscaping")."""
    if interpretation.get("heading_path"):
        return "Read as: " + " > ".join(interpretation["heading_path"])
    parts = []
    uses = interpretation.get("uses") or []
    if uses:
        tables = list(dict.fromkeys(u["table"] for u in uses))
        shared = _shared_start([u["row"] for u in uses])
        if len(uses) > 3 and len(tables) == 1 and shared:
            # Sizes of one use ("Mixed Light Cultivation - Small", "- Large", ...) shown together.
            sizes = ", ".join(u["row"][len(shared):].strip(" -,") for u in uses)
            parts.append(f"{shared.strip(' -,')} ({sizes}) (Table {tables[0]})")
        elif len(uses) > 3 and len(tables) == 1:
            parts.append(f"every row of Table {tables[0]}")
        else:
            parts.append(" / ".join(f"{u['row']} (Table {u['table']})" for u in uses[:3]))
    districts = interpretation.get("districts") or []
    if districts:
        parts.append("in " + ", ".join(d["symbol"] for d in districts))
    if not uses:
        topics = interpretation.get("topics") or []
        if interpretation.get("sections"):
            parts.insert(0, "§ " + ", ".join(interpretation["sections"]))
        elif topics:
            parts.insert(0, "a question about " + ", ".join(t.replace("_", " ") for t in topics[:3]))
    return "Read as: " + " ".join(parts) if parts else ""


def _shared_start(rows: list[str]) -> str:
    """The words every row label starts with ("Mixed Light Cultivation - "), "" when none."""
    import os

    start = os.path.commonprefix(rows)
    start = start[: start.rfind(" ") + 1] if " " in start and not all(r == start for r in rows) else start
    return start if len(start.strip(" -,")) >= 4 else ""
