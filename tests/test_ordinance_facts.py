"""The fact an ordinance's sentence states, lifted out as the answer's lead, and the history notes
that cite an ordinance by number and day (assistant/ordinance_facts.py): small synthetic texts."""

from __future__ import annotations

from assistant import ordinance_facts as facts
from assistant.passages import SENTENCE
from ingest.types import DocumentInfo


def test_a_date_is_the_one_nearest_the_event_asked():
    sentence = ("WHEREAS, on March 1, 2020, the Council adopted a plan, and on June 2, 2021, the Commission held a "
                "public hearing on the ordinance")
    assert facts.fact_of("date", "when was the hearing?", sentence, ["hearing"]) == "June 2, 2021"
    assert facts.fact_of("date", "when?", sentence) == "March 1, 2020"


def test_a_time_span_after_an_event_is_given_in_figures_unless_a_date_is_asked():
    sentence = "This ordinance shall take effect thirty (30) days after its adoption pursuant to State law."
    assert facts.fact_of("date", "when does it take effect?", sentence) == "30 days after its adoption"
    assert facts.fact_of("date", "on what calendar date did it take effect?", sentence) == ""
    assert facts.relative_span("The permit lapses in one year.") == ""  # a span from no event


def test_a_number_and_an_applicant_are_the_words_after_their_names():
    assert facts.fact_of("number", "what file number?", "AMENDING THE CODE; FILE NO. PA25-05 WHEREAS, the") == "PA25-05"
    assert facts.fact_of("number", "which number?", "the Ordinance No. 12 of the city") == "12"
    assert facts.fact_of("number", "which number?", "ORDINANCE NO. and title") == ""
    said = "WHEREAS, on May 1, 2020, the project applicant, Acme Towers filed an application"
    assert facts.fact_of("applicant", "who applied?", said) == "Acme Towers"


def test_the_abbreviation_of_number_ends_no_sentence():
    text = "AN ORDINANCE AMENDING THE CODE; FILE NO. AB12-3 WHEREAS, the Council met. The second sentence is long."
    found = [sentence for _, sentence in facts.sentences(text, SENTENCE)]
    assert found == ["AN ORDINANCE AMENDING THE CODE;", "FILE NO. AB12-3 WHEREAS, the Council met.",
                     "The second sentence is long."]


def test_history_notes_give_each_ordinance_cited_with_a_full_date():
    text = ("A. Purpose. (Ord. 766 § 2 Exh. A (part), 2004; Ord. 935, 6/24/2025; Ord. 939, 1/13/2026) "
            "and Ord. 950, 2/2/2027 outside any note; (Ord. 951, 13/40/2027)")
    notes = facts.history_notes([text])
    assert [(n.number, n.day) for n in notes] == [("935", "2025-06-24"), ("939", "2026-01-13")]
    assert notes[1].text == "Ord. 939, 1/13/2026"
    assert facts.written("2026-01-13") == "January 13, 2026"


def test_an_ordinance_number_comes_from_its_title():
    numbered = DocumentInfo("002", "b.txt", "Ordinance 939 creating a district", "ordinance", "2025-12-09",
                            short_title="Ord. 939 (a district)")
    unnumbered = DocumentInfo("000", "a.txt", "Ordinance allowing towers", "ordinance", "2023-11-06",
                              short_title="Towers ordinance")
    assert facts.number_of(numbered) == "939" and facts.number_of(unnumbered) == ""


def test_a_span_answers_when_but_not_a_calendar_date_asked_beside_it():
    sentence = "This ordinance shall take effect thirty (30) days after its adoption pursuant to State law."
    assert facts.fact_of("date", "when does it take effect, and on what calendar date?", sentence) == (
        "30 days after its adoption; no calendar date is stated")


def test_an_officer_is_the_name_signed_above_the_office_asked():
    block = "Kevin Example, City Clerk"
    assert facts.fact_of("officer", "who is the city clerk named on it?", block) == "Kevin Example"
    assert facts.fact_of("officer", "who was the mayor who signed it?", block) == ""
    assert facts.fact_of("officer", "who signed it?", block) == ""  # no office asked
