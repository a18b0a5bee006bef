"""The ranker: every candidate of a question scored by one learned model, the best one answered when
its score clears the operating point (issue 35).

Routes and the question bank propose candidates (``chooser.candidates``); nothing there decides.
Here each candidate is described by one set of features (``features``): its route, the route's own
signals, whether its answer type is the type asked, how the question bank's nearest questions agree
with it, where retrieval ranks its section and how many other candidates agree with it. A logistic
model fitted on dev (folds by paraphrase group) and on the bank's written questions
(``eval/ranker_fit.py``) turns them into the probability that the candidate is right; the operating
point is chosen on the holdout (aggregate) so that its wrong answers stay at or under the target
(dev's cross-validated figures at that point are recorded beside it). "How sure" bands are stated only where the holdout holds them.
The fitted model and every tuned number live in ``data/ranker.json`` (``Ranker``); its settings
hash goes into each answer's interpretation.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import answer_type
from .bank import DECLINE
from .confidence import FEATURES as ROUTE_SIGNALS
from .routes import registry as route_registry
from .types import Candidate

RANKER = Path(__file__).parent / "data" / "ranker.json"
# Answers that give a whole section: never the answer to a question asking for one value. A small
# standards table read row by row ("How tall can a fence be?": each location's height) states the
# measure asked wherever it applies, so it is barred only from a question asking for a permit or a body.
WHOLE = frozenset({"section", "standards_table", "table"})
VALUE_TYPES = answer_type.QUANTITY_TYPES | {"permit_code", "body"}
NOT_A_MEASURE = frozenset({"permit_code", "body"})
DISTRICT_HEADING = re.compile(r"^(?:\d+\.\s*)?([A-Z]{2,4})\s*\(|\(([A-Z]{2,4})\)")
# The route names the ranker knows as ``route=<name>`` (declared once: assistant/routes/registry.py).
ROUTES = route_registry.ranked_names()


@dataclass(frozen=True)
class Settings:
    """Every tuned number of the chooser (its hash is recorded with the fitted model and each answer)."""

    bank_k: int = 10  # nearest bank entries that vote
    bank_units: int = 3  # units of the vote composed as candidates
    hits_k: int = 10  # retrieval depth read for agreement
    threshold: float = 0.5  # the operating point (refit by eval/ranker_fit.py on the holdout's risk)
    risk_target: float = 0.02  # held-out wrong answers allowed at the operating point
    l2: float = 10.0  # the logistic model's ridge penalty (dev cross-validation: 10 over 1 and 3)
    # Written bank questions used as training data besides dev (each scored with itself out of the bank):
    # the holdout's accuracy at 2% wrong rose with them (0, 4,000, all 12,809: 0.38, 0.40, 0.46 at its own point).
    bank_train: int = 20000
    # What leaves the bank while a training bank question is scored: "self" or "writer" (its writer's
    # questions about its unit); alike on 19,000 questions (holdout 0.44 and 0.43 at the 2% point).
    bank_train_left_out: str = "self"
    # A written bank question's weight as training data: with 19,000 of them, 0.5 over 1 (dev cross-validated
    # 0.53 against 0.51 right at a 2% point of dev's folds and the holdout pooled; the holdout alike, 0.45 against 0.44).
    bank_train_weight: float = 0.5
    # -- the verifier (assistant/verifier.py; trained by eval/verifier_train.py) --
    verifier_top: int = 4  # candidates, best by the signals-only ranker, the verifier reads per question
    verifier_layers: int = 3  # the shipped MiniLM's first layers copied into the cross-encoder
    verifier_max_length: int = 64  # word pieces of question + candidate statement
    # The word-piece embeddings stay as shipped (two thirds of a three-layer copy's weights: training them
    # tripled a CPU step's optimizer work, and questions share the shipped model's vocabulary).
    verifier_freeze_embeddings: bool = True
    verifier_batches: tuple = ("b1", "b2", "b3")  # bank batches it is trained on (b4 is left to fit the ranker on)
    verifier_negatives: int = 2  # wrong candidates per training question, the signals-only ranker's best first
    verifier_positives: int = 2  # right candidates per training question at most
    verifier_epochs: int = 1
    verifier_batch: int = 16
    verifier_lr: float = 5e-5
    verifier_warmup: float = 0.05  # share of the steps the learning rate rises over
    verifier_seed: int = 13
    # -- the question encoder (assistant/encoder.py; trained by eval/encoder_train.py) --
    encoder_batches: tuple = ("b1", "b2", "b3")  # bank batches it is trained on (b4: the ranker's bank examples)
    encoder_epochs: int = 1
    encoder_batch: int = 32  # question pairs a step, one per unit (the rest of the batch: its negatives)
    encoder_lr: float = 3e-5
    encoder_warmup: float = 0.1
    encoder_scale: float = 20.0  # cosine similarities times this in the in-batch softmax
    encoder_max_length: int = 48  # word pieces of a question (98% of bank questions are shorter)
    encoder_seed: int = 17
    # Whether the ranker's first stage also learns from the bank questions the encoder was trained on (their
    # bank signals are surer than a new question's would be). With them, at the 2% point: dev cross-validated
    # 0.576, the holdout 125 right; without them (b4's 6,288 questions and dev) 0.591 and 129.
    ranker_bank_seen_by_encoder: bool = False
    # Whether the verifier's second stage decides. With the bank matched by the index's model it pays (dev
    # cross-validated at 2% wrong 0.543 against the first stage's 0.534; the holdout 142 right against 134);
    # with the question encoder it did not (0.572 against 0.591; 121 against 129).
    verifier_decides: bool = True
    # -- the routes' and the decline's tuned numbers (issue 44: one record; each moved here unchanged) --
    # Search depths: the hits the passage, provision and section routes read; the decline's nearest sections.
    route_hits_k: int = 8
    nearest_hits_k: int = 5
    nearest_sections: int = 3
    # The permit route (routes/permit.py). A row found by meaning alone must be at least this close to the
    # question (cosine); below it the question is about something the tables do not list.
    permit_meaning_floor: float = 0.45
    permit_finder_floor: float = 0.3  # browsing rows ("tattoo" -> Personal services) may show nearer misses than an answer may
    permit_meaning_switch: float = 0.08  # a word-matched row this much less close in meaning than the nearest gives way to it
    permit_meaning_tie: float = 0.005  # two rows this close in meaning are not told apart by it (they share their nearest name)
    permit_meaning_near: float = 0.05  # rows this close to the nearest are one family ("Adult day care - 7 to 14 clients", ...)
    permit_word_tie: float = 0.25  # word-match scores this close to the best are a tie that meaning breaks
    permit_long_phrase: int = 6  # content words: a longer question is compared by the words around its use as well
    permit_span_context: int = 2  # words kept on each side of the words that named the row
    # The standards route: row scores count shared words in steps of 1 (2 for a label word); less is a tie.
    standards_tie: float = 0.5
    standards_rare_idf: float = 2.0  # log(1 + N/df): a word in at most about one section in seven
    # The provision route and its choice (provision_choice.py): the provisions of the first sections the search
    # finds are read; a provision carrying less of the question's word weight is not offered (with the route,
    # dev accuracy 0.601 at 1.9% wrong against 0.580 at 1.7% without); the head said counts half as much as every
    # question word carried; a list is shown up to its first items, the rest named by its section; the values that lead
    # ("a minimum width of ten feet and maximum width of twenty feet": both).
    provision_sections: int = 4
    provision_min_coverage: float = 0.25
    provision_head_weight: float = 0.5
    provision_max_items: int = 12
    provision_max_values: int = 3
    # What a document changed (provision_changes.py): of the question's word weight, carried by the change and its
    # heading path (a change sharing one word of a several-word topic is about something else); changes quoted at most.
    change_min_coverage: float = 0.75
    change_shown: int = 3
    # A document's whole change list (document_changes.py): changed rows shown, sections named, before "and N more".
    changes_cell_cap: int = 12
    changes_section_cap: int = 8
    # The decline's closest passage (closest.py): passages offered (the closest, then two more sections); a passage
    # less near is not offered (under the shipped model an unrelated question comes to 0.31 at best, a question the
    # code touches without answering 0.5-0.65); hits whose sections' provisions are read; bank entries asked; the
    # quote's length; what a question may say besides its use and districts (the permit route's
    # question_unexplained; read off dev's declines: "can I open a tattoo parlor" 0, "does a cell tower ... need a
    # stealth design if people in nearby homes can see it?" 13.6) and still ask only whether the use is allowed;
    # a list item's bare heading ("Setbacks;") under this many words says nothing of its own.
    closest_limit: int = 3
    closest_shown_floor: float = 0.4
    closest_searched: int = 8
    closest_votes: int = 8
    closest_quote_chars: int = 420
    closest_beside_the_use: float = 5.0
    closest_short_passage: int = 3
    # A closest passage this near answers the question itself, so the decline does not claim the answer is "not
    # loaded" (decline.py; the issue-36 questions: those that answer at 0.77 and 0.94, those that do not 0.56-0.64).
    decline_answers_floor: float = 0.7
    absent_nearest: int = 3  # real districts offered for one that does not exist
    # Reading the question (understand.py, english.py): a misspelt word's closest known word, at least this alike;
    # the Zipf frequency at or over which a word is an English word, never a typo (dev's corrections: every
    # corrected word under 3.0 was a typo, "buisness" 2.41; every one over it a real word, "planner" 3.53).
    typo_cutoff: float = 0.85
    english_zipf: float = 3.0
    # Quoted lengths: a definition is quoted whole up to this (what it includes and excludes comes last); the
    # definition a row's meaning is compared with (meaning.py).
    definition_max_chars: int = 1000
    meaning_definition_chars: int = 300

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]

    def encoder_digest(self) -> str:
        """The hash of what shapes the trained question encoder (its manifest records it)."""
        shaping = {k: v for k, v in asdict(self).items() if k.startswith("encoder_")}
        return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:16]

    def verifier_digest(self) -> str:
        """The hash of what shapes the trained verifier (its manifest records it; the operating point does not)."""
        shaping = {k: v for k, v in asdict(self).items()
                   if k.startswith("verifier_") and k not in ("verifier_top", "verifier_decides")}
        return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:16]


# The record in force for the numbers the routes, the decline and the reading of a question use (the
# ranker's file records the settings it was fitted with: a refit writes these).
TUNED = Settings()


@dataclass(frozen=True)
class Ranker:
    settings: Settings = field(default_factory=Settings)
    names: tuple[str, ...] = ()
    means: tuple[float, ...] = ()
    scales: tuple[float, ...] = ()
    weights: tuple[float, ...] = ()
    bias: float = 0.0
    fitted_on: dict = field(default_factory=dict)
    # "How sure" in words: each band's lowest probability, kept only where the holdout's answers in it
    # were right as often as the band promises (eval/ranker_fit.py held_bands).
    bands: dict = field(default_factory=dict)
    head: Head | None = None  # the second stage over the verifier's score; None: the signals alone decide

    @property
    def fitted(self) -> bool:
        return bool(self.names)

    def how_sure(self, probability: float) -> str:
        """The highest band whose floor the probability reaches; "" when it reaches none (nothing is stated)."""
        reached = [(floor, band) for band, floor in self.bands.items() if probability >= floor]
        return max(reached)[1] if reached else ""

    def probability(self, feats: dict) -> float:
        z = self.bias
        for name, mean, scale, weight in zip(self.names, self.means, self.scales, self.weights):
            z += weight * (feats.get(name, 0.0) - mean) / scale
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_json(self) -> dict:
        return {"comment": "Fitted on dev and the written bank questions by `python -m eval.ranker_fit` (folds by "
                           "paraphrase group); the threshold chosen on the holdout's aggregate risk."
                           " p = logistic(bias + sum(w * (x - mean) / scale)).",
                "settings": asdict(self.settings), "settings_hash": self.settings.digest(),
                "bias": self.bias, "bands": self.bands, "features": {n: {"weight": w, "mean": m, "scale": s}
                                                for n, w, m, s in zip(self.names, self.weights, self.means, self.scales)},
                "fitted_on": self.fitted_on, **({"verifier_head": self.head.to_json()} if self.head else {})}


# What the verifier's score adds to a candidate's signals-only probability (``verifier_features``):
# the one function through which the verifier enters the decider.
VERIFIER_FEATURES = ("signals_logit", "verifier_logit", "verifier_first", "verifier_behind_best", "signals_first",
                     "verifier_times_signals")


def verifier_features(signals_p: float, verifier_p: float, others_verifier: Sequence[float],
                      signals_first: bool) -> dict[str, float]:
    """The features of one verified candidate: its signals-only probability and the verifier's, each as
    a logit, whether the verifier puts it first among the question's verified candidates, how far it is
    behind the verifier's best other one, and whether the signals-only ranker put it first."""
    from .verifier import logit

    best_other = max(others_verifier, default=0.0)
    return {"signals_logit": logit(signals_p), "verifier_logit": logit(verifier_p),
            "verifier_first": float(verifier_p >= best_other), "verifier_behind_best": max(0.0, best_other - verifier_p),
            "signals_first": float(signals_first), "verifier_times_signals": verifier_p * signals_p}


@dataclass(frozen=True)
class Head:
    """The ranker's second stage: a logistic model over ``verifier_features`` of the best
    ``verifier_top`` candidates, with its own operating point and "How sure" bands (fitted by
    ``eval/verifier_fit.py`` as the first stage is: dev's folds, the holdout's aggregate risk)."""

    names: tuple[str, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    bands: dict = field(default_factory=dict)
    verifier: str = ""  # the verifier manifest's training data hash it was fitted with

    def probability(self, feats: dict) -> float:
        z = self.bias
        for name, mean, scale, weight in zip(self.names, self.means, self.scales, self.weights):
            z += weight * (feats.get(name, 0.0) - mean) / scale
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def how_sure(self, probability: float) -> str:
        reached = [(floor, band) for band, floor in self.bands.items() if probability >= floor]
        return max(reached)[1] if reached else ""

    def to_json(self) -> dict:
        return {"threshold": self.threshold, "bias": self.bias, "bands": self.bands, "verifier": self.verifier,
                "features": {n: {"weight": w, "mean": m, "scale": s}
                             for n, w, m, s in zip(self.names, self.weights, self.means, self.scales)}}

    @classmethod
    def from_json(cls, data: dict) -> "Head":
        names = tuple(data["features"])
        return cls(names, tuple(float(data["features"][n]["mean"]) for n in names),
                   tuple(float(data["features"][n]["scale"]) or 1.0 for n in names),
                   tuple(float(data["features"][n]["weight"]) for n in names), float(data["bias"]),
                   float(data["threshold"]), {str(b): float(f) for b, f in data.get("bands", {}).items()},
                   str(data.get("verifier", "")))


def verified(best: Sequence[tuple[float, Candidate]], question: str, verifier, ranker: "Ranker"
             ) -> list[tuple[float, Candidate, float]]:
    """The best ``verifier_top`` candidates (by the signals-only probability, ``order_key`` order)
    re-scored by the second stage: (probability, candidate, verifier's probability), best first.
    The rest cannot be chosen: the verifier has not read them."""
    from .verifier import statement

    top = list(best[:ranker.settings.verifier_top])
    if not top:
        return []
    read = verifier.score(question, [statement(c.answer) for _, c in top])
    found = []
    for i, ((p, candidate), v) in enumerate(zip(top, read)):
        feats = verifier_features(p, v, [w for j, w in enumerate(read) if j != i], i == 0)
        found.append((ranker.head.probability(feats), candidate, v))
    found.sort(key=lambda t: order_key((t[0], t[1])))
    return found


class RankerError(ValueError):
    """data/ranker.json cannot be read; the message names the file."""


def load(path: Path = RANKER) -> Ranker | None:
    """The fitted ranker, or None when none is shipped (the hand order then decides: chooser.py)."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        # JSON has no tuples: the list-valued settings come back as the tuples they were
        settings = Settings(**{k: tuple(v) if isinstance(v, list) else v for k, v in data["settings"].items()})
        names = tuple(data["features"])
        return Ranker(settings, names, tuple(float(data["features"][n]["mean"]) for n in names),
                      tuple(float(data["features"][n]["scale"]) or 1.0 for n in names),
                      tuple(float(data["features"][n]["weight"]) for n in names), float(data["bias"]),
                      data.get("fitted_on", {}), {str(b): float(f) for b, f in data.get("bands", {}).items()},
                      Head.from_json(data["verifier_head"]) if "verifier_head" in data else None)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise RankerError(f"{path}: not a ranker file ({error})") from error


# -- what a candidate is about: its units and sections ------------------------------------------------
def units_of(candidate: Candidate) -> frozenset[str]:
    answer = candidate.answer
    found = set()
    for cell in answer.lookups:
        table, row, section = str(cell.get("table", "")), str(cell.get("row", "")), str(cell.get("section", ""))
        found |= {f"permit_row:{table}:{row}", f"standards:{table}@{section}:{row}"}
    unit = answer.interpretation.get("unit") if isinstance(answer.interpretation, dict) else None
    if unit:
        found.add(unit)
    label = answer.interpretation.get("provision") if isinstance(answer.interpretation, dict) else None
    if label:
        found.add(f"provision:{label}")
    found |= {f"section:{c.section}" for c in answer.citations}
    if answer.route == "district":  # its printed paragraph opens with the district's symbol
        heading = DISTRICT_HEADING.search(answer.first_line)
        if heading:
            found.add(f"district:{heading.group(1) or heading.group(2)}")
    return frozenset(found)


def sections_of(candidate: Candidate) -> frozenset[str]:
    return frozenset(c.section for c in candidate.answer.citations)


def section_of_unit(unit_id: str) -> str:
    kind, _, rest = unit_id.partition(":")
    if kind == "provision":
        return rest.split("(")[0].split("[")[0]
    if kind == "standards":
        return rest.split("@", 1)[1].split(":", 1)[0] if "@" in rest else ""
    if kind == "permit_row":
        return "17.22.020"
    if kind == "definition":
        return rest.rsplit(":", 1)[0]
    if kind == "section":
        return rest
    return ""


# -- features -------------------------------------------------------------------------------------
def features(candidate: Candidate, asked: str, votes: Sequence, hit_sections: Sequence[str],
             others: Sequence[Candidate], query=None, unloaded: bool = False) -> dict[str, float]:
    """``unloaded``: the question names a section the loaded documents do not print (every candidate
    then answers from elsewhere)."""
    answer = candidate.answer
    route = answer.route if answer.route in ROUTES else "other"
    from_bank = "bank_similarity" in answer.signals
    if from_bank and "route_too" not in answer.signals:
        route = f"bank_{route}"  # a unit the bank alone proposed: not the route's own kind of evidence
    feats: dict[str, float] = {f"route={route}": 1.0, "from_bank": float(from_bank),
                               "type_fits": float(answer_type.answers(asked, candidate.answer_type)),
                               f"asked={asked}": 1.0}
    for signal in ROUTE_SIGNALS.get(answer.route, ()):
        if signal in answer.signals:
            feats[f"{answer.route}.{signal}"] = float(answer.signals[signal])
    for signal in ("bank_similarity", "bank_margin", "bank_support", "bank_entries", "bank_place"):
        if signal in answer.signals:
            feats[signal] = float(answer.signals[signal])
    units, sections = units_of(candidate), sections_of(candidate)
    top = votes[0].similarity if votes else 0.0
    agree = max((v.similarity for v in votes if v.unit in units), default=0.0)
    agree_section = max((v.similarity for v in votes if section_of_unit(v.unit) in sections), default=0.0)
    declines = max((v.similarity for v in votes if v.unit == DECLINE), default=0.0)
    feats |= {"bank_top": top, "bank_agree": agree, "bank_agree_section": agree_section,
              "bank_first_agrees": float(bool(votes) and votes[0].unit in units),
              "bank_gap": top - agree, "bank_declines": declines,
              "bank_first_declines": float(bool(votes) and votes[0].unit == DECLINE)}
    rank = next((i for i, s in enumerate(hit_sections) if s in sections), None)
    feats["hit_recip"] = 1.0 / (1.0 + rank) if rank is not None else 0.0
    feats["agreeing"] = float(sum(1 for o in others if o is not candidate and sections_of(o) & sections))
    # Other proposers (a route, the bank's unit) that arrived at the very same statement.
    lead = answer.first_line
    feats["same_statement"] = float(sum(1 for o in others if o is not candidate and o.answer.first_line == lead))
    feats["candidates"] = float(len(others))
    feats["whole"] = float(answer.route in WHOLE)
    if query is not None:
        feats |= named_features(candidate, query, sections)
    if unloaded:
        feats |= {"names_unloaded_section": 1.0, f"names_unloaded_section|{answer.route}": 1.0}
    return feats


REFERENCE_WORDS = frozenset("what does do say says show me pull up see sec section sections table tables chapter "
                            "the of in is a code cotati about cover covers read text".split())


def names_unloaded(query, corpus) -> bool:
    """The question names a section number that no loaded document prints (nor any section under it)."""
    printed = corpus.latest
    return any(s not in printed and not any(k.startswith(s + ".") or k.startswith(s + "(") for k in printed)
               for s in query.sections)


def bare_reference(query) -> bool:
    """The question is a section or table reference and little else ("17.30.030", "show me Table 2-17"):
    the bank's questions, which are about subjects, say nothing of it."""
    if not (query.sections or query.tables):
        return False
    words = re.findall(r"[a-z]+", re.sub(r"\d[\d.\-()a-z]*", " ", query.normalized))
    return len([w for w in words if w not in REFERENCE_WORDS]) <= 1


def named_features(candidate: Candidate, query, sections: frozenset[str]) -> dict[str, float]:
    """Whether the question names a section number and the candidate answers from exactly that
    section, and whether the question is a bare reference (each also with the candidate's route).
    (The same for a named table's cells or the districts covered lowered dev's cross-validated
    accuracy at the operating point: not used.)"""
    feats: dict[str, float] = {}
    route = candidate.answer.route
    if query.sections:
        named = any(s == n or s.startswith(n + ".") or s.startswith(n + "(") for s in sections for n in query.sections)
        feats |= {"names_section": 1.0, "cites_named_section": float(named), f"cites_named_section|{route}": float(named)}
    if bare_reference(query):
        feats |= {"bare_reference": 1.0, f"bare_reference|{route}": 1.0}
    return feats


def admissible(candidate: Candidate, asked: str, ranks: str = "") -> bool:
    """A whole section never answers a question that asks for one value, nor a whole table one that
    asks for a permit or a deciding body; a question asking which of several items ranks first
    (``Query.ranks``) is answered only by a candidate stating two or more of them (one row, such as the
    laundromat's parking, says nothing of which needs more)."""
    if ranks and not states_several(candidate):
        return False
    route = candidate.answer.route
    if route == "section":
        return asked not in VALUE_TYPES
    if route == "standards_table":
        return asked not in NOT_A_MEASURE
    return True


def states_several(candidate: Candidate) -> bool:
    """Its table cells state two or more items: rows, or districts."""
    cells = [c for c in candidate.answer.lookups if isinstance(c, dict)]
    rows = {(c.get("table"), c.get("row")) for c in cells}
    districts = {d for c in cells for d in (c.get("districts") or ())}
    return len(rows) >= 2 or len(districts) >= 2


def order_key(scored: tuple[float, Candidate]) -> tuple:
    """Best first; ties broken by route name, then answer text: never by the order routes are listed."""
    probability, candidate = scored
    return (-round(probability, 12), candidate.answer.route, candidate.answer.answer)
