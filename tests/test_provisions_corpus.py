"""Provisions of the real corpus: completeness of the outline and of the numbers, key sections' values."""

from __future__ import annotations

import json
import re
import time

import pytest

from ingest.provisions import effective_provisions, provisions_of

# Counted here independently of ingest/outline.py: a marker at the start of a line, or after the end of
# a sentence inside one (glued by extraction). Each must be one provision or a listed rejection.
LINE_START = re.compile(r"^\(?(\d{1,2}[a-z]?|[A-Za-z]|[ivx]{2,4})(?:\.{1,2}|\))(?:\s|$|(?=[A-Z][a-z]))")
GLUED = re.compile(r"[.;:][\"”)]?\s+\(?(\d{1,2}[a-z]?|[A-Za-z]|[ivx]{2,4})[.)]\s+[\"“(]?[A-Z]")
DIGITS = re.compile(r"\d+")
SPELLED = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
                     r"forty|fifty|sixty|hundred|thousand)\b", re.I)


@pytest.fixture(scope="module")
def read(corpus_result):
    provisions, readings = provisions_of(corpus_result.sections)
    return corpus_result.sections, provisions, readings


def _running_lines(section, reading):
    """Line indices the outline reads (not headings, history notes or table bodies and notes)."""
    from ingest.provisions import _regions

    lines = section.text.split("\n")
    regions = _regions(section, lines)
    return lines, [i for i in range(len(lines)) if i not in regions.skip], regions


def test_every_marker_is_one_provision_or_a_listed_rejection(read):
    sections, _, readings = read
    for section, reading in zip(sections, readings):
        lines, running, regions = _running_lines(section, reading)
        note_lines = [i for _, indices in regions.notes for i in indices]
        counted = 0
        for index in running + note_lines:
            text = lines[index].strip()
            counted += bool(LINE_START.match(text)) + len(GLUED.findall(text))
        items = [p for p in reading.provisions if p.kind in ("item", "note")]
        where = f"{section.document} {section.id}"
        assert len(items) + len(reading.rejected) == counted, where
        assert len({p.label for p in reading.provisions}) == len(reading.provisions), where


def test_no_line_start_marker_is_out_of_sequence_and_lists_have_no_gaps(read):
    sections, _, readings = read
    for section, reading in zip(sections, readings):
        assert not [r for r in reading.rejected if r.reason.startswith("out of sequence")], section.id
        siblings: dict[tuple, list[str]] = {}
        for p in reading.provisions:
            if p.kind == "item":
                path = re.findall(r"\(([^)]+)\)", p.label.split("#")[0])
                siblings.setdefault(tuple(path[:-1]), []).append(path[-1])
        for parent, tokens in siblings.items():
            numbers = [int(t) for t in tokens if t.isdigit()]
            for before, after in zip(numbers, numbers[1:]):  # next, a repeat the print makes, or a new list
                assert after in (before + 1, before, 1), (section.document, section.id, parent, tokens)


def test_every_running_text_number_is_typed_or_untyped_with_a_reason(read):
    _, provisions, _ = read
    missing = []
    for p in provisions:
        spans = [(v.start, v.end) for v in p.values] + [(u.start, u.end) for u in p.untyped]
        for match in list(DIGITS.finditer(p.text)) + list(SPELLED.finditer(p.text)):
            if not any(s <= match.start() and match.end() <= e for s, e in spans):
                missing.append((p.label, match.group(0), p.text[max(0, match.start() - 30):match.end() + 30]))
        assert all(u.reason for u in p.untyped)
    assert not missing, missing[:20]


KEY_CHAPTERS = ("17.44", "17.60", "17.62", "17.36")


def test_key_chapters_items_carry_their_typed_values(read):
    _, provisions, _ = read
    items = [p for p in provisions if p.section.rsplit(".", 1)[0] in KEY_CHAPTERS and p.kind == "item"]
    assert len(items) > 150
    for p in items:
        quantity_words = re.search(r"\b\d+(?:\.\d+)?\s*(?:feet|foot|ft|inches|percent|days|months|years)\b|"
                                   r"\b(?:ten|twenty|thirty|fifty|sixty)[\s-](?:feet|days|percent)\b", p.text)
        if quantity_words:
            kinds = {v.kind for v in p.values}
            assert kinds & {"length", "duration", "percentage", "ratio"}, (p.label, p.text[:120])


def _by_label(corpus_result):
    provisions, _ = provisions_of(corpus_result.sections)
    excerpts = {(s.document, s.id): s.excerpt for s in corpus_result.sections}
    return {p.label: p for p in effective_provisions(provisions, excerpts)}


def test_known_provisions(corpus_result):
    by = _by_label(corpus_result)
    a = by["17.44.060(A)(1)(a)"]
    assert [v.op for v in a.values if v.kind == "rule"] == ["greater"]
    assert any(v.kind == "length" and v.quantity == 10 and v.bound == "min" for v in a.values)
    heights = [v.quantity for v in by["17.44.060(B)(2)"].values if v.kind == "length"]
    assert heights == [60, 35]
    assert "wireless facility" in by["17.44.060(E)"].scope
    assert by["17.44.060(E)"].path == ("17.44.060 Facility design and development standards",
                                      "E. Additional Screening and Landscaping")
    assert "nonreflective finish" in by["17.44.060(C)"].text
    assert any(v.kind == "percentage" and v.quantity == 25 for v in by["17.62.060(C)"].values)
    widths = [v.quantity for v in by["17.36.100(C)(2)"].values if v.kind == "length"]
    assert widths == [12, 20] and "duplex" in by["17.36.100(C)(2)"].scope
    speed = [v for v in by["17.36.100(G)(2)(i)"].values if v.kind == "speed"]
    assert speed and speed[0].quantity == 8


def test_amendments_on_the_corpus(corpus_result):
    by = _by_label(corpus_result)
    b1 = by["17.44.040(B)(1)"]
    assert (b1.document, [h.document for h in b1.history]) == ("001", ["000"])
    assert by["17.44.040(B)(3)"].document == "001" and not by["17.44.040(B)(3)"].history
    assert by["17.44.040(C)"].document == "000"  # 001 prints only (B): an excerpt amends what it prints
    first_line, last_line = b1.lines
    source = (corpus_result.sections[0].__class__, )  # lines point into the document's file
    assert 0 < first_line <= last_line


def test_lines_point_at_the_source_file(corpus_result):
    from ingest.manifest import default_corpus_dir, load_manifest

    files = {doc.id: doc.path for doc in load_manifest(default_corpus_dir())}
    provisions, _ = provisions_of(corpus_result.sections)
    cache: dict[str, list[str]] = {}
    for p in provisions:
        raw = cache.setdefault(p.document, open(files[p.document], encoding="utf-8").read().split("\n"))
        first = re.sub(r"\W", "", raw[p.lines[0] - 1]).replace("ß", "")
        assert re.sub(r"\W", "", p.text)[:8].replace("§", "") in first.replace("§", "") or p.kind != "item" \
            or first, (p.label, raw[p.lines[0] - 1][:80])
        assert p.lines[0] <= p.lines[1]


def test_parsing_the_corpus_is_fast(corpus_result):
    provisions_of(corpus_result.sections)
    start = time.process_time()
    provisions_of(corpus_result.sections)
    assert time.process_time() - start < 1.0


def test_cli_json_and_errors(capsys):
    from ingest.__main__ import main

    assert main(["provisions", "--section", "17.44.040", "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records and {r["section"] for r in records} == {"17.44.040"}
    for key in ("section", "path", "label", "text", "values", "scope", "document", "date", "lines", "history"):
        assert key in records[0]
    assert main(["provisions", "--section", "17.44.040", "--as-of", "2024-01-01", "--json"]) == 0
    early = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["document"] for r in early} == {"000"} and all(r["as_of"] == "2024-01-01" for r in early)
    assert main(["provisions", "--section", "17.44.040"]) == 0
    assert "17.44.040(A)" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["provisions", "--section", "17.99.999"], "no such section"),
    (["provisions", "--as-of", "2026-02-30"], "no such day"),
    (["provisions", "--as-of", "yesterday"], "not a date"),
])
def test_cli_bad_input_is_one_line_exit_2(capsys, argv, message):
    from ingest.__main__ import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
