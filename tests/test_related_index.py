"""The related index kept up to date is exact: after any sequence of changes it equals an index
built afresh from the final inputs, and each update names exactly the papers whose lists
changed (issue 22)."""

from __future__ import annotations

from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultsync import related_index
from vaultsync.bands import EXACT_SIZES
from vaultsync.related import text_terms
from vaultsync.related_index import RelatedIndex

SEEDS = Path(__file__).resolve().parents[1] / "seeds"


def _abstracts() -> list[str]:
    found = []
    for path in sorted(SEEDS.glob("*.txt")):
        body = path.read_text(encoding="utf-8").split("\n", 1)[1]  # the first line is a header
        found += [" ".join(p.split()) for p in body.split("\n\n") if p.strip()]
    return found


TERMS = [text_terms(text) for text in _abstracts()]
CONCEPTS = ["Flow Matching", "Offline RL", "Diffusion Models", "Graph Neural Networks", "Transformers",
            "Mild Conditions", "Sparse Autoencoders", "Protein Folding"]
ALIASES = [("FM",), ("RL", "Offline Reinforcement Learning"), ("neural network",), ("policy",), ()]


class Model:
    """The inputs as plain data; a fresh index is built from them alone."""

    def __init__(self) -> None:
        self.texts: dict[str, dict[str, int]] = {}
        self.concepts: dict[str, tuple[str, ...]] = {}
        self.phrases: dict[str, bool] = {}
        self.aliases: dict[str, tuple[str, ...]] = {}

    def apply(self, texts, concepts, phrases, aliases) -> "Model":
        """The inputs after one ``RelatedIndex.update`` batch."""
        for pid, counts in texts.items():
            if counts is None:
                self.texts.pop(pid, None)
                self.concepts.pop(pid, None)
            else:
                self.texts[pid] = counts
        self.concepts.update({pid: tuple(dict.fromkeys(names)) for pid, names in concepts.items()
                              if pid in self.texts})
        self.phrases.update(phrases)
        self.aliases.update({name: tuple(names or ()) for name, names in aliases.items()})
        return self

    def fresh(self) -> RelatedIndex:
        index = RelatedIndex()
        index.update(self.texts, {pid: names for pid, names in self.concepts.items() if names},
                     {name: True for name, flag in self.phrases.items() if flag},
                     {name: names for name, names in self.aliases.items() if names})
        return index


def _terms(draw) -> dict[str, int]:
    first = draw(st.integers(0, len(TERMS) - 1))
    counts = Counter(TERMS[first])
    if draw(st.booleans()):  # two abstracts in one: more kinds of text than the seeds hold
        counts.update(TERMS[draw(st.integers(0, len(TERMS) - 1))])
    return dict(counts)


@st.composite
def histories(draw, start: int = 0):
    """A first batch of ``start`` or more papers, then batches of additions, removals, concept
    lists, phrase flags and aliases changed."""
    batches = []
    made = 0
    live: list[str] = []
    for step in range(draw(st.integers(1, 6))):
        texts, concepts, phrases, aliases = {}, {}, {}, {}
        adding = draw(st.integers(start if step == 0 else 0, start + 4 if step == 0 else 6))
        for _ in range(adding):
            paper_id = f"p{made:03d}"
            made += 1
            texts[paper_id] = _terms(draw)
            if draw(st.booleans()):
                concepts[paper_id] = draw(st.lists(st.sampled_from(CONCEPTS), max_size=4))
        for paper_id in draw(st.lists(st.sampled_from(live), max_size=3, unique=True)) if live else ():
            change = draw(st.sampled_from(["remove", "concepts", "text"]))
            if change == "remove":
                texts[paper_id] = None
            elif change == "concepts":
                concepts[paper_id] = draw(st.lists(st.sampled_from(CONCEPTS), max_size=4))
            else:
                texts[paper_id] = _terms(draw)
        for name in draw(st.lists(st.sampled_from(CONCEPTS), max_size=2, unique=True)):
            phrases[name] = draw(st.booleans())
        for name in draw(st.lists(st.sampled_from(CONCEPTS), max_size=2, unique=True)):
            aliases[name] = draw(st.sampled_from([None, *ALIASES]))
        live = [pid for pid in [*live, *texts] if texts.get(pid, 1) is not None]
        live = list(dict.fromkeys(live))
        batches.append((texts, concepts, phrases, aliases))
    return batches


def _replay(batches, low_bars: bool) -> None:
    with ExitStack() as stack:
        if low_bars:  # many more passing pairs: every path of the bookkeeping is taken
            for name, value in (("MIN_TEXT", 0.01), ("THRESHOLD", 0.02), ("MIN_EVIDENCE", 1)):
                stack.enter_context(mock.patch.object(related_index, name, value))
        index, model = RelatedIndex(), Model()
        for texts, concepts, phrases, aliases in batches:
            before = index.related_all()
            changed = index.update(texts, concepts, phrases, aliases)
            model.apply(texts, concepts, phrases, aliases)
            after = index.related_all()
            assert after == model.fresh().related_all()
            assert changed == {pid for pid, lists in after.items() if before.get(pid) != lists or pid not in before}


@settings(max_examples=60)
@given(histories(), st.booleans())
def test_updates_leave_the_index_a_fresh_build_would_make(batches, low_bars):
    _replay(batches, low_bars)


@settings(max_examples=8)
@given(histories(start=EXACT_SIZES - 3), st.booleans())
def test_updates_across_a_size_band_rebuild_and_stay_exact(batches, low_bars):
    _replay(batches, low_bars)


def test_a_pair_scores_the_same_bits_in_any_order_and_from_either_side():
    papers = {f"p{n:02d}": terms for n, terms in enumerate(TERMS)}
    with mock.patch.object(related_index, "MIN_TEXT", 0.01), mock.patch.object(related_index, "THRESHOLD", 0.02):
        forward, backward = RelatedIndex(), RelatedIndex()
        for paper_id, terms in papers.items():
            forward.update({paper_id: terms})
        backward.update(dict(reversed(papers.items())))
    lists = forward.related_all()
    assert lists == backward.related_all()
    scores = {(pid, r.id): r.score for pid, related in lists.items() for r in related}
    assert scores and all(scores[other, pid] == score for (pid, other), score in scores.items()
                          if (other, pid) in scores)


def test_the_size_band_is_crossed_in_the_example_above():
    index = RelatedIndex()
    index.update({f"p{n:03d}": TERMS[n % len(TERMS)] for n in range(EXACT_SIZES - 1)})
    band = index._band
    index.update({"extra": TERMS[0]})
    assert index._band != band


def test_a_paper_an_unmoved_band_relates_to_lists_it_and_is_named():
    """Most additions to a larger corpus move no band of the terms they share: the papers they
    enter are not worked out again, only given the new pair (found missing once at 20,000)."""
    combined = [dict(Counter(TERMS[i]) + Counter(TERMS[(i * 7 + 3) % len(TERMS)])) for i in range(len(TERMS))]
    pool = [*TERMS, *combined, *TERMS]  # (repeats: many frequencies of 2 and 3)
    with mock.patch.object(related_index, "MIN_TEXT", 0.01), mock.patch.object(related_index, "THRESHOLD", 0.02):
        index, texts = RelatedIndex(), {}
        for number, terms in enumerate(pool):
            paper_id = f"p{number:03d}"
            texts[paper_id] = terms
            before = index.related_all()
            changed = index.update({paper_id: terms})
            after = index.related_all()
            fresh = RelatedIndex()
            fresh.update(texts)
            assert after == fresh.related_all()
            assert changed == {pid for pid, lists in after.items() if before.get(pid) != lists or pid not in before}


def test_removals_and_concept_changes_in_a_larger_corpus_stay_exact():
    """As above, with concept lists, removals, phrase flags and aliases: a seeded sequence of
    changes to a corpus large enough that most of them move no band."""
    import random

    rng = random.Random(22)
    names = [*CONCEPTS, *(f"Topic {k}" for k in range(32))]  # (few papers each: under the concept cap)
    combined = [dict(Counter(TERMS[i]) + Counter(TERMS[(i * 7 + 3) % len(TERMS)])) for i in range(len(TERMS))]
    pool = [*TERMS, *combined, *TERMS]
    batches = [({f"p{n:03d}": terms for n, terms in enumerate(pool)},
                {f"p{n:03d}": rng.sample(names, rng.randint(0, 3)) for n in range(len(pool))}, {}, {})]
    live, made = [f"p{n:03d}" for n in range(len(pool))], len(pool)
    for _ in range(60):
        texts, concepts, phrases, aliases = {}, {}, {}, {}
        kind = rng.choice(["add", "remove", "concepts", "concepts", "phrase", "alias"])
        if kind == "add":
            texts[f"p{made:03d}"] = rng.choice(pool)
            made += 1
        elif kind == "remove":
            texts[live.pop(rng.randrange(len(live)))] = None
        elif kind == "concepts":
            concepts[rng.choice(live)] = rng.sample(names, rng.randint(0, 3))
        elif kind == "phrase":
            phrases[rng.choice(names)] = rng.random() < 0.5
        else:
            aliases[rng.choice(names)] = rng.choice([None, *ALIASES])
        live += [pid for pid, terms in texts.items() if terms is not None]
        batches.append((texts, concepts, phrases, aliases))
    _replay(batches, low_bars=True)
    with mock.patch.object(related_index, "PAIRS_AT_MOST", 1):  # a concept's pairs by its listers' rows
        _replay(batches, low_bars=True)


def _band_move_corpus():
    """17 papers (size band 16, which one more keeps): p00, p01 and p02 share the rare term
    "zeta" and list "Topic Z", p00 and p01 agree on more; 14 fillers share nothing."""
    texts = {f"f{n:02d}": {f"filler{n} word": 2, f"filler{n}": 1, "common": 1} for n in range(14)}
    agree = {"flow matching": 2, "flow": 2, "matching": 1, "optimal transport": 1, "transport": 1}
    texts["p00"] = {**agree, "zeta": 2, "alpha beta": 1}
    texts["p01"] = {**agree, "zeta": 1, "gamma delta": 1}
    texts["p02"] = {"zeta": 1, "epsilon": 3, "epsilon kappa": 1}
    concepts = {pid: ["Topic Z"] for pid in ("p00", "p01", "p02")}
    return texts, concepts


@pytest.mark.parametrize("pairs_at_most", [related_index.PAIRS_AT_MOST, 0])
def test_a_band_move_of_a_shared_term_rescores_the_old_pair_it_shares(pairs_at_most):
    """A fourth paper with "zeta" (and listing "Topic Z") moves both bands (3 -> 4 papers): the
    pair p00-p01, neither new, scores again through its shared term and concept alone, without
    the two papers' rows being worked out again, and equals a fresh build (a concept's pairs
    found by pairs, or by its listers' rows when ``PAIRS_AT_MOST`` is 0)."""
    with mock.patch.object(related_index, "PAIRS_AT_MOST", pairs_at_most):
        _band_move_of_a_shared_term()


def _band_move_of_a_shared_term():
    texts, concepts = _band_move_corpus()
    index = RelatedIndex()
    index.update(texts, concepts)
    first = {r.id: r.score for r in index.related("p00")}
    assert "p01" in first
    for new, listed in ((("p03", {"zeta": 1, "omega": 2}), []), (("p04", {"zeta": 1, "sigma tau": 1}), ["Topic Z"])):
        pid, counts = new
        before = index.related_all()
        texts[pid] = counts
        if listed:
            concepts[pid] = listed
        changed = index.update({pid: counts}, {pid: listed} if listed else {})
        fresh = RelatedIndex()
        fresh.update(texts, concepts)
        assert index.related_all() == fresh.related_all()
        assert index.last["dirty"] == 1 and index.last["pairs"] >= 1  # the new paper's row; the old pairs
        assert changed == {p for p, lists in index.related_all().items() if before.get(p) != lists or p not in before}
    assert {r.id: r.score for r in index.related("p00")}["p01"] != first["p01"]  # the pair did move
