"""The permit route: the permit-table row a question names (by its words, or nearest in meaning),
answered from the effective cell of each district asked about (read in ``assistant/permit_cells.py``,
which the comparison route reads too). Gives ``permit_code``."""

from __future__ import annotations

from .. import permit_cells
from ..resources import Resources
from ..types import Candidate, Query

GIVES = "permit_code"


def candidates(query: Query, res: Resources) -> list[Candidate]:
    found = permit_cells.answer(query, res)
    return [Candidate(GIVES, found)] if found is not None else []
