"""The question bank alone as a candidate source (issue 34): for each question, the unit its nearest
bank entries vote for, answered for the question's own slots, judged as ``python -m eval`` judges.

``python -m eval.bank_eval [--set dev|holdout|test] [--no-dev-bank] [--k 10] [--json]``

Dev questions that carry their source join the bank (``dev_entries``); every question is scored
with its own paraphrase group (or itself) left out of the bank. Sealed sets (holdout, test) print
aggregate figures only: no item, id or miss.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .gold import SETS, GoldItem, load_gold
from .match import normalize

PERMIT_TABLES = {"2-2", "2-3", "2-4", "2-2 cannabis"}
RISK = 0.02  # the wrong-answer rate the similarity cut keeps


def unit_of_item(item: GoldItem, source: dict | None, units: dict, provisions: Sequence, definitions: Sequence) -> str:
    """The unit a dev item's gold names (its table cell's row, or the provision, definition or section
    its source line is in); "" when none does."""
    expected = item.expected_sections[0] if item.expected_sections else ""
    if item.table and item.row:
        table = item.table.replace("Table ", "").lower()  # "Table 2-2 Cannabis" -> "2-2 cannabis"
        found = row_unit(table, expected, item.row, units)
        if found:
            return found
    if item.category == "section_lookup" and f"section:{expected}" in units:
        return f"section:{expected}"
    if item.category == "district" and item.column and f"district:{item.column}" in units:
        return f"district:{item.column}"
    if not source:
        return ""
    line, text = source.get("line"), " ".join(str(source.get("text", "")).split())
    if item.category == "definition":
        found = next((d for d in definitions if text and (text[:60] in " ".join(d.text.split()))
                      and (not expected or d.section.id == expected)), None)
        if found is not None and f"definition:{found.section.id}:{found.term}" in units:
            return f"definition:{found.section.id}:{found.term}"
    document = item.expected_document
    near = [p for p in provisions if (not expected or p.section == expected) and (not document or p.document == document)
            and isinstance(line, int) and p.lines[0] <= line <= p.lines[1]]
    if near:
        return f"provision:{near[0].label}"
    return f"section:{expected}" if f"section:{expected}" in units else ""


def _row_key(label: str) -> str:
    """A row label as gold and the tables both print it: ``match.normalize`` (dashes, quotes, case,
    spacing), and the spacing around a dash ("Brewery-Brew pub" is "Brewery - Brew pub")."""
    return " ".join(re.sub(r"\s*-+\s*", " - ", normalize(label)).split())


def row_unit(table: str, section: str, row: str, units: dict) -> str:
    """The table row's unit: the same label with dashes and case folded, else the row whose label ends
    gold's (gold prints a row under its group, "Schools - Kindergarten and nursery schools", where the
    table's row is "Kindergarten and nursery schools"), else the one row that begins with it; "" when none."""
    prefixes = (f"permit_row:{table}:", f"standards:{table}@{section}:")
    rows = {uid: _row_key(uid.split(":", 2)[2]) for uid in units if uid.startswith(prefixes)}
    wanted = _row_key(row)
    exact = sorted(uid for uid, key in rows.items() if key == wanted)
    if exact:
        return exact[0]
    ends = sorted((uid for uid, key in rows.items() if wanted.endswith(" - " + key)), key=lambda u: (-len(rows[u]), u))
    if ends:
        return ends[0]
    # Gold's label cut short of the table's ("Personal or Caregiver Cultivation (inside ...)"): when one row begins so.
    starts = [uid for uid, key in rows.items() if key.startswith(wanted)]
    return starts[0] if len(starts) == 1 else ""


def dev_groups(items: Sequence[GoldItem] | None = None) -> dict[str, frozenset[str]]:
    """Each dev question (``bank.question_key``) -> the questions of its paraphrase group (itself
    when it has none): what is left out of the bank when that question is scored."""
    from assistant.bank import question_key

    items = load_gold(SETS["dev"]) if items is None else items
    groups: dict[str, set[str]] = {}
    for item in items:
        groups.setdefault(item.group or item.id, set()).add(question_key(item.question))
    return {question_key(i.question): frozenset(groups[i.group or i.id]) for i in items}


def dev_entries(items: Sequence[GoldItem], raw: Sequence[dict], units: dict, res) -> list:
    """Dev questions as bank entries (scoring dev leaves a question's group out: ``dev_groups``); a
    question gold declines is an entry of ``bank.DECLINE``."""
    from assistant.bank import DECLINE, Entry

    provisions, definitions = res.provisions(), res.definitions
    found = []
    for item, obj in zip(items, raw):
        if item.abstain:
            found.append(Entry(item.question, DECLINE, {}, "dev", "dev"))
            continue
        uid = unit_of_item(item, obj.get("source"), units, provisions, definitions)
        if uid:
            slots = {"district": [item.column]} if item.column else {}
            found.append(Entry(item.question, uid, slots, "dev", "dev"))
    return found


@dataclass(frozen=True)
class Judged:
    abstain: bool  # gold: the question is to be declined
    answered: bool
    right: bool
    similarity: float
    margin: float


def judge_set(items: Sequence[GoldItem], bank, vectors, res, k: int, compose_top: int = 1,
              own_out: bool = True) -> list[Judged]:
    """``own_out``: a dev question's own paraphrase group (or itself) is left out of the bank."""
    from assistant import bank as bank_mod
    from assistant.unit_answers import compose_unit
    from assistant.units import catalogue

    from .records import parse_answer
    from .score import judge_answer

    from assistant.bank import question_key

    units = {u.id: u for u in catalogue(res)}
    groups = dev_groups() if own_out else {}
    judged = []
    for item, vector in zip(items, vectors):
        votes = bank.votes(vector, k, groups.get(question_key(item.question), ()))
        query = res.read(item.question)
        answer = None
        for vote in votes[:compose_top]:
            unit = units.get(vote.unit)
            answer = compose_unit(unit, query, res) if unit is not None else None
            if answer is not None:
                break
        sim = votes[0].similarity if votes else 0.0
        if answer is None:
            judged.append(Judged(item.abstain, False, False, sim, bank_mod.margin(votes)))
            continue
        view = parse_answer({**answer.to_dict(), "question": item.question}, item.id)
        outcome = judge_answer(item, view)
        judged.append(Judged(item.abstain, True, outcome.outcome == "right", sim, bank_mod.margin(votes)))
    return judged


def summary(judged: Sequence[Judged]) -> dict:
    answerable = [j for j in judged if not j.abstain]
    right = sum(j.right for j in answerable)
    wrong_all = sum(j.answered and not j.right for j in judged)
    out = {"questions": len(judged), "answerable": len(answerable),
           "right_of_answerable": round(right / max(len(answerable), 1), 4),
           "wrong_of_all": round(wrong_all / max(len(judged), 1), 4)}
    # The similarity cut: answers at or above it are given; the lowest cut whose wrong stays within RISK.
    given = sorted((j for j in judged if j.answered), key=lambda j: -j.similarity)
    best = None
    wrong = right_n = 0
    for j in given:
        wrong += not j.right
        right_n += j.right
        if wrong / len(judged) <= RISK:
            best = (j.similarity, right_n, wrong)
    if best:
        out |= {"cut": round(best[0], 4), "right_at_cut_of_all": round(best[1] / len(judged), 4),
                "right_at_cut_of_answerable": round(best[1] / max(len(answerable), 1), 4),
                "wrong_at_cut_of_all": round(best[2] / len(judged), 4)}
    return out


DEV_BANK = Path(__file__).resolve().parent.parent / "assistant" / "data" / "bank" / "dev.jsonl"


def write_dev_bank(path: Path = DEV_BANK) -> int:
    """Dev's answerable questions with a source, each under the unit its gold names, as a bank file
    (style "dev"; scoring dev leaves a question's paraphrase group out, ``dev_groups``)."""
    from assistant.service import load_assistant
    from assistant.units import catalogue

    res = load_assistant(calibrated=False).resources
    units = {u.id: u for u in catalogue(res)}
    raw = [json.loads(line) for line in SETS["dev"].read_text(encoding="utf-8").splitlines() if line.strip()]
    entries = dev_entries(load_gold(SETS["dev"]), raw, units, res)
    from ingest.corpus_writes import write_atomic

    write_atomic(path, "".join(json.dumps(e.to_dict(), ensure_ascii=False) + "\n" for e in entries))
    print(f"wrote {len(entries)} dev entries to {path}")
    return 0


def clean_bank(folder: Path | None = None, encode=None) -> dict[str, int]:
    """Make the bank files pass their tests, mechanically: a question repeated in a later file is
    dropped (the first kept); a district slot that names no district symbol is dropped; an entry the
    leak check flags against the sealed sets (the same content words, or ``encode``'s cosine at the
    leak distance) is dropped. Only counts are returned: nothing of a sealed question is shown."""
    from assistant import bank as bank_mod
    from assistant.vocab import load_vocabulary
    from ingest.corpus_writes import write_atomic

    from .leaks import near_duplicates

    folder = folder or bank_mod.BANK_DIR
    symbols = {d.symbol for d in load_vocabulary().districts}
    sealed = [i.question for name in ("test", "holdout") for i in load_gold(SETS[name])]
    files = {path: bank_mod.read_file(path) for path in sorted(folder.glob("*.jsonl"))}
    pool = [(f"{path.name}#{n}", e.question) for path, entries in files.items() for n, e in enumerate(entries)]
    leaked = set(near_duplicates(pool, sealed, encode))
    seen: set[str] = set()
    tally = {"repeated": 0, "leaked": 0, "slots_fixed": 0, "kept": 0}
    for path, entries in files.items():
        kept = []
        for n, entry in enumerate(entries):
            key = " ".join(entry.question.lower().split())
            if key in seen:
                tally["repeated"] += 1
                continue
            if f"{path.name}#{n}" in leaked:
                tally["leaked"] += 1
                continue
            seen.add(key)
            districts = entry.slots.get("district")
            if districts is not None:
                named = [d for d in districts if isinstance(d, str) and d.split("-")[0] in symbols]
                if named != districts:
                    tally["slots_fixed"] += 1
                    slots = {k: v for k, v in entry.slots.items() if k != "district"} | ({"district": named} if named else {})
                    entry = bank_mod.Entry(entry.question, entry.unit, slots, entry.style, entry.batch)
            kept.append(entry)
        tally["kept"] += len(kept)
        write_atomic(path, "".join(json.dumps(e.to_dict(), ensure_ascii=False) + "\n" for e in kept))
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.bank_eval", description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), default="dev")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--top", type=int, default=1, help="compose the first unit of the first N votes that composes")
    parser.add_argument("--no-dev-bank", action="store_true", help="the written bank only")
    parser.add_argument("--no-written-bank", action="store_true", help="dev questions only")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write-dev-bank", action="store_true",
                        help=f"write dev's sourced questions as the bank file {DEV_BANK.name} and stop")
    parser.add_argument("--clean", action="store_true",
                        help="drop repeated and leak-flagged bank entries and unknown district slots (counts only)")
    args = parser.parse_args(argv)
    if args.write_dev_bank:
        return write_dev_bank()
    if args.clean:
        from index.dense import get_encoder

        encoder = get_encoder()
        print(json.dumps(clean_bank(encode=lambda texts: encoder.encode(list(texts), batch_size=64))))
        return 0

    from assistant import bank as bank_mod
    from assistant.service import load_assistant
    from assistant.units import catalogue

    assistant = load_assistant()
    res = assistant.resources
    units = {u.id: u for u in catalogue(res)}
    entries = [e for e in bank_mod.load() if (e.unit in units or e.unit == bank_mod.DECLINE)
               and not (args.no_dev_bank and e.style == "dev") and not (args.no_written_bank and e.style != "dev")]
    items = load_gold(SETS[args.set])
    if (trained := res.question_encoder) is not None:  # the bank is matched by the encoder trained here
        bank = bank_mod.Bank(entries, trained.bank_vectors([e.question for e in entries]))
        asked = trained.encode([i.question for i in items])
    else:
        vectors = res._vectors([e.question for e in entries], "bank_eval.npz")
        bank = bank_mod.Bank(entries, [vectors.vectors[vectors.row[e.question]] for e in entries])
        asked = res.comparable_encoder().encode([i.question for i in items], batch_size=64)
    judged = judge_set(items, bank, asked, res, args.k, args.top, own_out=args.set == "dev")
    out = {"set": args.set, "bank_entries": len(entries), **summary(judged)}
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
