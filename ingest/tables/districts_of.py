"""Which zoning districts a cell speaks about, whichever way its table is turned.

Permit tables put districts in columns; the density table of 17.24.020 and Table 2-1 put them in
rows ("RR-1.5" is RR); Tables 2-17 and 2-18 hold one district's standards (the layout's
``district``); a heading may name an overlay ("Transit Oriented Communities (TOC) Overlay").
"""

from __future__ import annotations

import re
from functools import lru_cache

from .vocab import layouts, vocabulary


@lru_cache(maxsize=1)
def _table_districts() -> dict[tuple[str, str], str]:
    return {(spec["section"], spec["table"]): spec["district"] for spec in layouts().values() if spec.get("district")}


@lru_cache(maxsize=1)
def _row_symbol() -> re.Pattern:
    return re.compile(rf"^({vocabulary().symbol_pattern})(?:-\d+(?:\.\d+)?)?$")


def districts_of(cell) -> tuple[str, ...]:
    symbols = vocabulary().districts
    found: list[str] = []
    if cell.column in symbols:
        found.append(cell.column)
    row = _row_symbol().match(cell.row.strip())
    if row:
        found.append(row.group(1))
    table = _table_districts().get((cell.section, cell.table))
    if table:
        found.append(table)
    for symbol in re.findall(r"\(([A-Z][A-Z-]*)\)", cell.category):
        if symbol in symbols:
            found.append(symbol)
    return tuple(dict.fromkeys(found))


def matches_district(cell, district: str) -> bool:
    """True when the cell speaks about ``district`` ("RR" also matches the row "RR-1.5")."""
    return district.upper() in districts_of(cell)
