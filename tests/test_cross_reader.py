"""The cross-encoder experiment's pure parts (eval/cross_reader.py): which questions, candidates and
corpus pairs it trains and scores on; no model, no corpus."""

from __future__ import annotations

from dataclasses import dataclass

from eval import cross_reader
from eval.reader_fit import Case


def _item(group: str, answers: list[bool]) -> cross_reader.Item:
    case = Case(f"{group}-{len(answers)}", group, [[0.0]] * len(answers), answers, [0.0] * len(answers))
    return cross_reader.Item("question", case, [f"text {i}" for i in range(len(answers))])


def test_the_sample_keeps_paraphrase_groups_whole_and_is_seeded():
    items = [_item(f"g{g}", [True, False]) for g in range(10) for _ in range(3)]
    chosen = cross_reader.sample(items, 7, seed=0)
    groups = {i.case.group for i in chosen}
    assert len(chosen) == 9 and all(sum(i.case.group == g for i in chosen) == 3 for g in groups)
    assert chosen == cross_reader.sample(items, 7, seed=0) and len(cross_reader.sample(items, 100, 0)) == 30


def test_the_short_list_is_the_first_candidates_by_score_earlier_first_on_ties():
    assert cross_reader.short_list([0.1, 0.5, 0.5, 0.9, 0.0], 3) == [3, 1, 2]


def test_training_pairs_take_the_answers_and_the_first_wrong_candidates_of_the_short_list():
    item = _item("g", [False, True, False, False, False, True])
    reader_p = [0.3, 0.05, 0.25, 0.2, 0.15, 0.05]
    short = cross_reader.short_list(reader_p, 5)  # [0, 2, 3, 4, 1]
    assert cross_reader.training_pairs(item, short, reader_p) == [(1, True), (0, False), (2, False), (3, False)]
    # no answer in the short list: the reader's first two answering candidates are the positives
    assert cross_reader.training_pairs(item, short[:3], reader_p)[:2] == [(1, True), (5, True)]


@dataclass(frozen=True)
class _Provision:
    section: str
    path: tuple[str, ...]
    head: str
    text: str


def test_corpus_pairs_ask_a_provisions_heading_for_it_and_for_a_neighbour():
    provisions = [_Provision("17.1", ("Signs", "A. Height"), "Height", "Signs shall not exceed six feet in height."),
                  _Provision("17.1", ("Signs", "B. Area"), "Area", "Sign area shall not exceed twenty square feet."),
                  _Provision("17.2", ("Fences",), "", "Fences shall not exceed three feet in front yards.")]
    pairs = cross_reader.corpus_pairs(provisions, 5, seed=0)
    assert len(pairs) == 4  # the lone provision of 17.2 has no neighbour to tell it from
    for (query, text, answers), (_, other, wrong) in zip(pairs[::2], pairs[1::2]):
        assert answers and not wrong and text != other
        assert query.startswith("Signs > ") and (("Height" in query) == text.startswith("Signs shall"))


def test_the_cases_file_is_json_read_back_as_written_and_never_a_pickle(tmp_path, monkeypatch):
    """Issue 45: ``--cases`` was a pickle (``pickle.load`` runs what the file says); now JSON records."""
    from pathlib import Path

    import pytest

    from ingest.provisions import Provision

    provision = Provision("17.44.040", "B.3", ("Application", "B", "3"), "An RF report is required.", "item", "",
                          (), (), "", "001", "2026-09-10", (10, 11))
    case = Case("q1", "g1", [[0.5, 1.0], [0.25, 0.0]], [True, False], [0.9, 0.1])
    item = cross_reader.Item("what must I submit?", case, ["An RF report is required.", "Other."])
    monkeypatch.setattr(cross_reader, "items_of", lambda res, progress=None: [item])

    class _Res:
        def provisions(self):
            return [provision]

    monkeypatch.setattr("assistant.load_assistant", lambda **kw: type("A", (), {"resources": _Res()})())
    path = tmp_path / "cases.json"
    cross_reader._load_items(path)
    items, provisions = cross_reader._load_items(path)  # read back from the file
    assert items == [item] and provisions == [provision] and items[0].case.vectors[0] + [2.0] == [0.5, 1.0, 2.0]
    assert path.read_bytes().startswith(b"{")
    path.write_bytes(b"\x80\x04\x95garbage")
    with pytest.raises(SystemExit, match="not a --cases file"):
        cross_reader._load_items(path)
    source = Path(cross_reader.__file__).read_text(encoding="utf-8")
    assert "import pickle" not in source and "pickle.load" not in source
