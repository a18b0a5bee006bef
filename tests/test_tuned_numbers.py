"""No module constant in assistant/ shapes an answer (issue 44): every tuned number is a field of the one
settings record, ``choose.Settings`` (its hash is recorded with the fitted ranker and in each ranked answer).

An ast walk lists every number written in a module-level assignment of assistant/; each must be a field of
the record or one of the few listed below, which are facts, formats or limits, not tuned (or, for now,
numbers in files this change may not edit, each with why).
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from assistant import choose

ASSISTANT = Path(choose.__file__).parent

NOT_TUNED = {
    "__main__.py": {"BATCH_MAX_LINES", "BATCH_MAX_LINE_CHARS"},  # input limits of the batch CLI
    "derived.py": {"VERSION"},  # the stored records' format
    "permits.py": {"NUMBER_WORDS", "SPAN_PATTERNS"},  # English number words, and spans' bounds as printed
    "questionlog.py": {"SCHEMA_VERSION", "MAX_COMMENT_CHARS", "PRUNE_EVERY", "WARN_EVERY", "SIMILAR",
                       "MAX_RETENTION_DAYS", None},  # the log's schema and housekeeping: no answer reads them
    "resources.py": {"READ_KEPT"},  # how many questions' readings are cached: the same answers either way
    "routes/compare.py": {"LEVELS"},  # 17.22.020's legend, from the least to the most demanding
    "permit_cells.py": {"NO_MEANING"},  # the meaning signals of a row found without the model: zero
    "routes/ranking.py": {"TO_COMMON"},  # square feet in an acre
    "units.py": {"TEXT_CHARS"},  # the units listing's text for bank writers, not an answer
    "validate.py": {"MAX_CHARS"},  # the input limit the JSON contract and the app state (2,000 characters)
}
# Tuned numbers still outside the record, each in a file this change could not edit (named in the
# closing note; move them with their own change).
PENDING = {
    "passages.py": {"MAX_QUOTE", "MEANING_WEIGHT"},  # hashed into the prebuilt index's derived records
    "verifier.py": {"CELLS_READ", "QUOTE_CHARS"},  # the verifier's statement: retrained with it
    "confidence.py": {"PRIORS", "SURE_FLOORS", "MIN_BAND_ANSWERS"},  # the second model, deleted with calibration.json
}


def module_numbers() -> dict[str, set]:
    """{module path under assistant/: names of its module-level assignments that write a number}."""
    found: dict[str, set] = {}
    for path in sorted(ASSISTANT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for statement in tree.body:
            if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is None:
                continue
            numbers = [n for n in ast.walk(statement.value) if isinstance(n, ast.Constant)
                       and isinstance(n.value, (int, float)) and not isinstance(n.value, bool)]
            if not numbers:
                continue
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)] or [None]
            found.setdefault(path.relative_to(ASSISTANT).as_posix(), set()).update(names)
    return found


def test_no_module_constant_in_assistant_shapes_an_answer():
    allowed = {module: NOT_TUNED.get(module, set()) | PENDING.get(module, set())
               for module in set(NOT_TUNED) | set(PENDING)}
    stray = {module: sorted(names - allowed.get(module, set()), key=str) for module, names in module_numbers().items()
             if names - allowed.get(module, set())}
    assert not stray, f"module-level numbers outside choose.Settings (move each into it): {stray}"


def test_the_listed_exceptions_still_exist():
    """An exception that went away is dropped from the lists, so they say what is left."""
    found = module_numbers()
    for listed in (NOT_TUNED, PENDING):
        for module, names in listed.items():
            assert names <= found.get(module, set()), (module, names - found.get(module, set()))


def test_the_moved_numbers_are_in_the_record_with_their_values():
    """Moved unchanged (dev answers identical): the routes, the decline and the reading of a question."""
    tuned = choose.TUNED
    assert tuned == choose.Settings()
    fields = {f.name for f in dataclasses.fields(choose.Settings)}
    moved = {"route_hits_k": 8, "nearest_hits_k": 5, "nearest_sections": 3, "permit_meaning_floor": 0.45,
             "permit_finder_floor": 0.3, "permit_meaning_switch": 0.08, "permit_meaning_tie": 0.005,
             "permit_meaning_near": 0.05, "permit_word_tie": 0.25, "permit_long_phrase": 6, "permit_span_context": 2,
             "standards_tie": 0.5, "standards_rare_idf": 2.0, "provision_sections": 4, "provision_min_coverage": 0.25,
             "provision_head_weight": 0.5, "provision_max_items": 12, "provision_max_values": 3,
             "change_min_coverage": 0.75, "change_shown": 3, "changes_cell_cap": 12, "changes_section_cap": 8,
             "closest_limit": 3, "closest_shown_floor": 0.4, "closest_searched": 8, "closest_votes": 8,
             "closest_quote_chars": 420, "closest_beside_the_use": 5.0, "closest_short_passage": 3,
             "decline_answers_floor": 0.7, "absent_nearest": 3, "typo_cutoff": 0.85, "english_zipf": 3.0,
             "definition_max_chars": 1000, "meaning_definition_chars": 300}
    assert set(moved) <= fields
    assert {name: getattr(tuned, name) for name in moved} == moved
    # none of them shapes the trained verifier: its hash, recorded in its manifest, is unchanged
    assert not any(name.startswith("verifier_") for name in moved)
