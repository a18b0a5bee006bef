"""What a document changed in the running text (assistant/provision_changes.py): small synthetic
provisions with their history."""

from __future__ import annotations

from ingest.provisions import HistoryEntry, Provision

from assistant import provision_changes as pc
from assistant.permits import words_of


def _provision(label: str, text: str, document: str, history=(), section: str = "17.44.040",
               path=("17.44.040 Permit requirements", "B. Application Requirements"), order: int = 0) -> Provision:
    return Provision(section, label, path, text, "item", "", (), (), (), document, "2026-08-11", (0, 0),
                     tuple(history), order=order)


OLD = HistoryEntry("A report on interference.", "000", "2023-11-06")
PROVISIONS = [
    _provision("17.44.040(B)(1)", "A certification of compliance.", "001", [HistoryEntry("A certification of compliance.", "000", "2023-11-06")]),
    _provision("17.44.040(B)(2)", "A report on radio interference.", "001", [OLD], order=1),
    _provision("17.44.040(B)(3)", "The applicant shall submit the exposure report for towers.", "001", order=2),
    _provision("17.99.010(A)", "A brand new section about kiosks.", "001", section="17.99.010", path=("17.99.010 Kiosks",)),
    _provision("17.44.040(C)", "Master permits.", "000"),
]


def test_added_and_rewritten_provisions_of_a_section_stated_before_are_its_changes():
    changes = pc.changed_by(PROVISIONS, "001", stated_before={"17.44.040"})
    assert [(c.provision.label, c.kind) for c in changes] == [("17.44.040(B)(2)", "amended"), ("17.44.040(B)(3)", "added")]
    assert changes[0].old_text == "A report on interference." and changes[0].old_document == "000"
    # a section first stated by the document is new, not changed; a restatement word for word changed nothing
    assert pc.changed_by(PROVISIONS, "001", stated_before=set()) == []


def test_the_question_words_choose_among_the_changes():
    changes = pc.changed_by(PROVISIONS, "001", stated_before={"17.44.040"})
    idf = {"tower": 3.0, "application": 2.0, "kiosk": 3.0, "parking": 3.0}
    found = pc.matching(words_of("cell tower applications"), changes, idf)
    assert [c.provision.label for _, c in found] == ["17.44.040(B)(3)"]
    assert pc.matching(words_of("parking lots"), changes, idf) == []
    assert pc.matching([], changes, idf) == []


def test_a_part_named_by_number_selects_its_changes():
    changes = pc.changed_by(PROVISIONS, "001", stated_before={"17.44.040"})
    named = pc.in_named_part("which item was added to 17.44.040(B)?", changes)
    assert [c.provision.label for _, c in named] == ["17.44.040(B)(2)", "17.44.040(B)(3)"]
    assert pc.in_named_part("which item was added to 17.44.040(C)?", changes) == []


def test_a_change_in_words_says_what_was_added_or_replaced():
    added, amended = (pc.ProvisionChange(PROVISIONS[2], "added"),
                      pc.ProvisionChange(PROVISIONS[1], "amended", OLD.text, "000", OLD.date))
    assert pc.change_line(added, "Ord. X (2026-08-11)", "") == (
        'Ord. X (2026-08-11) added 17.44.040(B)(3): "The applicant shall submit the exposure report for towers."')
    assert pc.change_line(amended, "Ord. X (2026-08-11)", "Ord. W, 2023-11-06") == (
        'Ord. X (2026-08-11) changed 17.44.040(B)(2) from "A report on interference." (Ord. W, 2023-11-06) to '
        '"A report on radio interference."')
