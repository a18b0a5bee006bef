"""The reliability probe catalogue of issues 26, 37 and 45: each probe is a set of hermetic tests that
reproduces one failure; run them and print held/failed per probe (``python benchmarks/probes.py [-k
WORD]``). Probes that already held before issue 26 (document damage, bad PDFs, index damage, hostile
questions, ports) are the tests named in the last list."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PROBES: tuple[tuple[str, list[str]], ...] = (
    ("1 manifest edit serves older law", ["tests/test_corpus_lock.py::test_a_manifest_or_folder_difference_is_named",
                                          "tests/test_corpus_lock.py::test_removing_001_from_the_manifest_stops_every_entry_point"]),
    ("2 nonsense retention deletes the log", ["tests/test_log_reliability.py::test_a_nonsense_retention_is_refused_not_a_deleted_log",
                                              "tests/test_log_reliability.py::test_the_read_only_log_command_never_prunes"]),
    ("3 damaged sentences.npz/provisions.npz", ["tests/test_cache_damage.py"]),
    ("4 lone surrogate in a web question", ["tests/test_log_reliability.py::test_text_that_cannot_be_stored_is_normalised_once",
                                            "tests/test_log_reliability.py::test_a_lone_surrogate_through_the_web_engine_is_answered_and_logged"]),
    ("5 control/bidi codes in assistant log", ["tests/test_log_reliability.py::test_control_and_bidi_codes_are_escaped_when_staff_list_the_log"]),
    ("6 corrupt or unreadable log", ["tests/test_log_reliability.py::test_a_corrupt_log_is_one_line_for_the_reader",
                                     "tests/test_log_reliability.py::test_the_app_moves_a_corrupt_log_aside_and_starts_fresh"]),
    ("7 settings that end in a traceback", ["tests/test_settings_checked.py::test_every_entry_point_stops_on_a_bad_setting_with_one_line",
                                            "tests/test_settings_checked.py::test_port_flag_wins_over_a_bad_gradio_port"]),
    ("8 ingest add: PDF named .txt", ["tests/test_corpus_lock.py::test_ingest_add_names_a_pdf_by_its_content"]),
    ("9 ingest add: size before reading", ["tests/test_corpus_lock.py::test_ingest_add_refuses_a_large_file_by_its_size_before_reading",
                                           "tests/test_corpus_lock.py::test_ingest_add_adds_nothing_that_does_not_ingest"]),
    ("10 log size cap, 0600", ["tests/test_log_reliability.py::test_the_log_is_created_owner_only",
                               "tests/test_log_reliability.py::test_the_log_keeps_at_most_its_cap_and_says_so",
                               "tests/test_log_reliability.py::test_the_byte_cap_drops_the_oldest"]),
    ("11 nonsense settings accepted", ["tests/test_settings_checked.py::test_each_bad_value_is_one_settings_error"]),
    ("12 link to /dev/zero or a FIFO", ["tests/test_corpus_lock.py::test_a_document_that_is_not_a_regular_file_is_refused_not_read"]),
    ("13 server paths in the page", ["tests/test_no_server_paths.py"]),
    ("14 audit of nothing reported clean", ["tests/test_audit.py"]),
)
# Issue 37 (reliability round three), numbered as the issue numbers its failures.
ISSUE_37: tuple[tuple[str, list[str]], ...] = (
    ("37.1 a manifest field the lock does not check", ["tests/test_manifest_law.py"]),
    ("37.2 a running app serves the old law after ingest add", ["tests/test_follow.py"]),
    ("37.3 derived.pickle trusted on its own checksum, and a pickle",
     ["tests/test_derived.py::test_a_forged_cell_is_not_served_and_the_records_are_derived_again",
      "tests/test_derived.py::test_a_vouched_file_with_unknown_or_ill_fitting_records_is_derived_again",
      "tests/test_derived.py::test_an_old_pickle_is_never_read_and_is_removed",
      "tests/test_cache_damage.py::test_index_build_never_carries_a_pickle_forward"]),
    ("37.4 a full disk for the question log stops the app", ["tests/test_log_start.py",
                                                             "tests/test_web_surface.py::test_the_app_serves_without_a_log_it_cannot_open_saying_so_once"]),
    ("37.5 two ingest add at once lose one", ["tests/test_corpus_writers.py::test_two_adds_at_once_both_land",
                                              "tests/test_corpus_writers.py::test_a_second_writer_that_cannot_wait_is_told_in_one_line"]),
    ("37.6 lone surrogate in the web page", ["tests/test_web_input.py::test_a_lone_surrogate_in_the_page_gives_an_answer_the_stream_can_send"]),
    ("37.7 no request-body limit", ["tests/test_web_surface.py::test_a_body_over_the_cap_is_413_by_its_length",
                                    "tests/test_web_surface.py::test_a_chunked_body_is_read_only_up_to_the_cap",
                                    "tests/test_web_surface.py::test_a_large_post_to_the_api_is_413"]),
    ("37.8 sessions and state not bounded", ["tests/test_sessions.py"]),
    ("37.9 an upload route is open", ["tests/test_web_surface.py::test_routes_the_app_does_not_offer_are_closed",
                                      "tests/test_web_surface.py::test_process_recording_takes_no_file"]),
    ("37.10 kill -9 during ingest add", ["tests/test_corpus_writers.py::test_a_killed_add_is_named_in_one_line_and_adding_again_works",
                                         "tests/test_corpus_writers.py::test_checksum_undoes_a_killed_add"]),
    ("37.11 zero-width, soft hyphen, full-width letters", ["tests/test_web_input.py::test_odd_characters_clean_to_the_plain_question",
                                                           "tests/test_web_input.py::test_the_web_engine_answers_odd_characters_as_the_plain_question",
                                                           "tests/test_web_surface.py::test_a_request_gradio_fails_on_is_one_log_line"]),
)
# Issue 45 (the law in force, one copy of each text, a cache nobody can forge), numbered as the issue
# numbers its failures.
LAW = "tests/test_law_in_force.py::"
ISSUE_45: tuple[tuple[str, list[str]], ...] = (
    ("45.1 a document dated in the future is today's law",
     [LAW + "test_a_date_more_than_a_year_ahead_is_refused_unless_added_as_pending",
      LAW + "test_a_pending_document_is_not_todays_law_but_is_the_law_from_its_day",
      LAW + "test_ingest_tables_leaves_a_pending_document_out_of_todays_cells"]),
    ("45.2 dates are hearing dates, not the days law takes effect",
     [LAW + "test_each_document_takes_effect_on_the_day_its_text_gives_with_the_basis",
      LAW + "test_the_day_a_new_document_takes_effect_is_read_from_its_text",
      LAW + "test_add_says_which_date_it_took_as_effective_and_effective_sets_it",
      LAW + "test_as_of_a_day_before_the_corrections_take_effect_is_the_law_without_them",
      "tests/test_tables_asof.py::test_documents_take_effect_on_their_effective_date"]),
    ("45.2b an answer resting on a proposal does not say so in its lead",
     [LAW + "test_an_answer_resting_only_on_the_proposed_ordinance_says_so_in_its_lead"]),
    ("45.3 the same text added again silently changes the law",
     [LAW + "test_a_restated_copy_of_a_loaded_document_is_refused_naming_it",
      LAW + "test_the_same_text_as_a_pdf_is_refused_too",
      LAW + "test_a_document_that_amends_some_sections_is_not_a_restatement"]),
    ("45.4 the derived cache forged with the manifest beside it; a pickle",
     ["tests/test_derived.py::test_a_cell_forged_with_the_manifest_beside_it_is_not_served",
      "tests/test_derived.py::test_the_key_is_outside_the_index_folder_and_owner_only",
      "tests/test_derived.py::test_a_key_others_can_read_vouches_for_nothing_and_no_key_derives_every_time",
      "tests/test_derived.py::test_no_pickle_anywhere_in_the_project",
      "tests/test_cross_reader.py::test_the_cases_file_is_json_read_back_as_written_and_never_a_pickle"]),
    ("45.5 a section just added is declined by its number", [LAW + "test_a_section_just_added_is_answered_by_its_number"]),
    ("45.6 tracebacks on request", ["tests/test_request_guard.py"]),
    ("45.7 the question log's caps checked once an hour",
     ["tests/test_log_reliability.py::test_the_caps_hold_as_rows_are_written_wal_included",
      "tests/test_log_reliability.py::test_the_log_keeps_at_most_its_cap_and_says_so",
      "tests/test_log_reliability.py::test_a_failing_write_warns_once_then_at_most_once_a_minute"]),
    ("45.8 SIGTERM drops answers", ["tests/test_shutdown.py"]),
    ("45.9 one line everywhere (read-only corpus, COTATI_RANKER, ingest diff, python -m eval)",
     ["tests/test_readonly_corpus.py", "tests/test_settings_checked.py", "tests/test_manifest_law.py::"
      "test_a_changed_kind_stops_every_entry_point"]),
    ("45.10 odd characters and lower-case district symbols", ["tests/test_web_input.py"]),
    ("45.11 load.py counts declines as answered", ["tests/test_load_tool.py"]),
)
HELD_BEFORE: tuple[tuple[str, list[str]], ...] = (
    ("document damage (missing, not UTF-8, changed)", ["tests/test_corpus_integrity.py", "-m", "not slow"]),
    ("bad PDFs (encrypted, bombs, not a PDF)", ["tests/test_readers.py", "tests/test_pdf_encryption.py"]),
    ("index damage, busy ports, bad folders", ["tests/test_one_line_errors.py"]),
    ("hostile and odd questions", ["tests/test_bounds.py"]),
)


def run(name: str, targets: list[str]) -> bool:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *targets], cwd=REPO,
                          capture_output=True, text=True)
    print(f"{'held  ' if done.returncode == 0 else 'FAILED'}  {name}  ({time.perf_counter() - started:.0f} s)",
          flush=True)
    return done.returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", default="", help="only probes whose name holds this word")
    parser.add_argument("--new-only", action="store_true",
                        help="only issues 26's, 37's and 45's, not those that held before")
    args = parser.parse_args()
    probes = PROBES + ISSUE_37 + ISSUE_45 + (() if args.new_only else HELD_BEFORE)
    results = [run(name, targets) for name, targets in probes if args.k.lower() in name.lower()]
    print(f"{sum(results)} of {len(results)} probes held")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
