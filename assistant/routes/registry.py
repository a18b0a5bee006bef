"""The route registry (issue 44): every route declared once, where the chooser's proposer lists, the
ranker's route names (``choose.ROUTES``) and the signals each route reports (``confidence.FEATURES``)
were written three times.

- ``PROPOSERS``: each function that proposes candidates, by its place in this package
  (``"section.by_table"``), in the hand order (``chooser.routed``, used while the ranker is off; a test
  shuffles it), its group, the ``answer.route`` names its candidates carry and the answer types they
  give (declared for the routes added with the registry).
- ``NAMES``: each ``answer.route`` name: the signals it reports (``confidence.FEATURES``; the ranker's
  ``<route>.<signal>`` features), and whether it is a ranker feature ``route=<name>`` (a name answered
  outside the ranker, ``provision_change``, is not).

Data only: nothing here imports a route (the chooser resolves the functions), so ``confidence`` and
``choose`` read it without an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

FIRST = "first"  # asked with the question as read
DECIDING = "deciding"  # asked with "who ..." read as who decides (standards.deciding_reading)
RANKED = "ranked"  # proposes to the ranker only: the hand order never reaches it


@dataclass(frozen=True)
class Proposer:
    path: str  # "module.function" in assistant/routes
    group: str
    names: tuple[str, ...]  # the answer.route names of its candidates
    types: tuple[str, ...] = ()  # the answer types it gives (answer_type.GIVEN); () not declared yet


@dataclass(frozen=True)
class RouteName:
    name: str
    signals: tuple[str, ...] = ()
    ranked: bool = True  # ``route=<name>`` is a feature of the ranker


PROPOSERS: tuple[Proposer, ...] = (
    Proposer("provision.in_named_section", FIRST, ("provision",)),  # "under 17.64.080, how long is a permit valid?"
    Proposer("section.candidates", FIRST, ("section", "definition")),  # "17.44.065": the section named
    Proposer("parcel.candidates", FIRST, ("parcel",)),  # "APN 144-720-061"
    Proposer("parcel.street_address", FIRST, ("parcel",)),  # "what zone is 201 W Sierra Ave in?": declined, with the reason
    Proposer("ordinance.candidates", FIRST, ("ordinance", "ordinance_note")),  # "when was Ord. 939 introduced?"
    Proposer("section.by_title", FIRST, ("section_title",)),  # "which section covers variances?"
    Proposer("definition.quoted", FIRST, ("definition",)),  # "is that 'demolition'?"
    Proposer("compare.candidates", FIRST, ("compare",)),  # "is a gym easier in CG or CE?": the permit cells compared
    Proposer("permit.candidates", FIRST, ("permit",)),  # "can I open a bar in CE?"
    Proposer("definition.candidates", FIRST, ("definition",)),  # "are e-scooters micromobility?"
    # The standards route and those after it read a "who ..." question with a verb of deciding as asking who decides.
    Proposer("standards.candidates", DECIDING, ("standards", "standards_table")),  # "how tall can a fence be?"
    Proposer("section.by_table", DECIDING, ("section",)),  # "Table 2-4": the section printing it
    Proposer("district.candidates", DECIDING, ("district",)),  # "what is the NM district?"
    Proposer("provision.candidates", DECIDING, ("provision",)),  # "how wide must the driveway be?": running text
    Proposer("passage.about_named", DECIDING, ("passage",)),  # a topic, district or use was named
    Proposer("definition.of_quantity", DECIDING, ("definition",)),  # "how big can a microdistillery get?"
    Proposer("passage.candidates", DECIDING, ("passage",)),  # the passages the search finds
    # Added with the registry: ranked only, so no answer changes until the ranker is refitted with them.
    Proposer("table.candidates", RANKED, ("table",), ("table",)),  # "Table 2-2", "show me Table 3-2"
    Proposer("citation.candidates", RANKED, ("citation",), ("section", "ordinance_fact")),  # "Cite the section on ..."
    Proposer("ranking.candidates", RANKED, ("ranking",), ("length", "area", "count", "percent", "number", "text")),
)

# Why each route's signals are what they are: confidence.py's notes.
NAMES: tuple[RouteName, ...] = (
    RouteName("permit", ("row_covered", "cell_readable", "districts_covered", "meaning_margin", "meaning_similarity",
                         "question_unexplained", "deferred_unexplained")),
    RouteName("standards", ("row_share", "row_margin", "row_tied", "district_named", "cell_readable", "question_unexplained")),
    RouteName("standards_table"),
    RouteName("passage", ("quote_coverage", "answer_type_found", "duration_found", "both_retrievers", "hit_rank", "dense_score",
                          "sentence_similarity", "reader_agrees", "list_attached")),
    RouteName("definition", ("term_words", "term_quoted", "question_share")),
    RouteName("district", ("other_words",)),
    RouteName("provision", ("provision_coverage", "provision_similarity", "provision_margin", "section_rank", "list_answer",
                            "both_retrievers", "reader_probability", "reader_top")),
    RouteName("section", ("section_found",)),
    RouteName("section_title", ("title_share", "title_margin", "hit_rank")),
    RouteName("ordinance", ("quote_coverage", "event_named")),
    RouteName("ordinance_note"),
    RouteName("provision_change", ("change_coverage", "changes_matched", "part_named"), ranked=False),  # service.py, calibrated
    RouteName("compare"),
    RouteName("parcel"),
    RouteName("absent"),
    RouteName("compound"),
    RouteName("bank"),
    # A table asked by number: how many tables print that number, how much of the question's other words
    # its title says, whether the question names its section.
    RouteName("table", ("tables_numbered", "title_share", "other_words", "section_named", "cells_found")),
    # A citation asked for: the section found for the subject (how much of the subject its text says, its
    # margin over the next, its search rank) or the document that last changed a table or section (how the
    # table was named, how many were, the share of its cells that document changed).
    RouteName("citation", ("subject_share", "subject_margin", "hit_recip", "table_by_number", "table_by_topic", "subjects",
                           "changed_share", "section_by_number", "prints")),
    # A ranking over a standards table: how many items were compared, the first's relative margin over the
    # second, how many tie first, whether across districts and what share of districts state it.
    RouteName("ranking", ("compared", "margin", "tied", "by_district", "stated_share")),
)


def ranked_names() -> tuple[str, ...]:
    """The route names the ranker knows as ``route=<name>`` (others count as ``route=other``)."""
    return tuple(n.name for n in NAMES if n.ranked)


def signals() -> dict[str, tuple[str, ...]]:
    """Each route name's signals, for the routes that report any."""
    return {n.name: n.signals for n in NAMES if n.signals}


def proposers(group: str) -> tuple[Proposer, ...]:
    return tuple(p for p in PROPOSERS if p.group == group)
