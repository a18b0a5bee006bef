"""Helpers for the index tests (imported by tests/test_index*.py; not a pytest conftest).

A small synthetic corpus of ``ingest.types.Section`` records and the deterministic hashing
encoder ("hash:64") keep the unit tests hermetic and millisecond-fast: no model, no real corpus.
"""

from __future__ import annotations

from pathlib import Path

from ingest.types import Section

from index.types import CorpusInput, TableRowText

FAKE_MODEL = "hash:64"

_LONG = " ".join(
    f"Sentence {i} of the wireless rules says antennas and towers need a setback of {i + 10} feet from homes."
    for i in range(60)
)


def section(id: str, title: str, text: str, document: str = "002", date: str = "2025-12-09", **kw) -> Section:
    chapter = ".".join(id.split(".")[:2]) if id[:1].isdigit() else ""
    return Section(
        id=id, title=title, chapter=chapter, document=document, date=date, text=text,
        start=0, end=len(text), pages=kw.pop("pages", (1,)), **kw,
    )


def sections() -> tuple[Section, ...]:
    return (
        section("17.44.050", "Permit requirements", "A use permit is required for a telecommunications tower in the NM district.", document="000", date="2023-11-06"),
        section("17.44.065", "Wireless facility setbacks", _LONG, document="000", date="2023-11-06", pages=(3, 4, 5)),
        section("17.36.050", "Number of parking spaces required", "Table 3-7\nParking Requirements by Land Use\nRestaurant 1 space for each 100 sq. ft. of floor area\nOffice 1 space for each 250 sq. ft."),
        section("17.22.020", "Allowable land uses", "Table 2-4\nAllowed Land Uses and Permit Requirements\nBar, tavern UP UP MUP\nBrewery - Brew pub MUP MUP"),
        section("17.30.030", "Fences and walls", "Fences in a front yard shall not exceed 3 feet in height. Fences elsewhere may be 6 feet high."),
        section("17.42.170", "Accessory dwelling units", "An accessory dwelling unit (ADU) is a second unit on a lot with a single-family house."),
        section("17.20.030", "Zoning district purposes", "TOC (Transit Oriented Community) Zoning District. The TOC district allows higher density mixed use near transit."),
        section("17.44.065", "Wireless facility setbacks", "Towers shall be set back 100 feet from homes.", document="001", date="2026-08-11"),
        section("002:SECTION-11", "Amendment of parking table", "Section 17.36.050 Table 3-7 is amended to include parking for the TOC overlay.", kind="ordinance", ordinance_section="SECTION 11"),
    )


def table_rows() -> tuple[TableRowText, ...]:
    return (
        TableRowText(section="17.22.020", document="002", text="Bar, tavern: HC UP, LP UP, NG MUP", table="2-4"),
        TableRowText(section="17.22.020", document="002", text="Brewery - Brew pub: HC MUP, LP MUP", table="2-4"),
    )


def corpus() -> CorpusInput:
    return CorpusInput(sections=sections(), table_rows=table_rows())


def open_fake(path: Path, **kw):
    from index import open_index

    return open_index(path, model=FAKE_MODEL, corpus=kw.pop("corpus", corpus()), **kw)
