"""A section record with only what the table and note readers use, for hermetic tests."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FakeSection:
    id: str
    document: str
    date: str
    text: str
    excerpt: bool = False
    ordinance_section: str = ""
    source_lines: tuple = ()
