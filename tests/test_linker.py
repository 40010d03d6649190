"""The link stage kept between runs (``Linker``): whatever sequence of sets of abstracts it was
given before, it returns the model a fresh link of the last set gives (issue 22), and a change
touches only what it must."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultsync.extract import extract_all
from vaultsync.link import LinkOptions, link
from vaultsync.link import Linker
from vaultsync.plugins import get_plugin_manager, promotion_options
from vaultsync.read import read_seeds
from vaultsync.records import ExtractContext

SEEDS = Path(__file__).resolve().parents[1] / "seeds"


@lru_cache(maxsize=1)
def corpus():
    """The bundled abstracts and what the default plugins extract from each (once per session)."""
    pm = get_plugin_manager()
    abstracts = [a for seed in read_seeds(SEEDS, pm).seeds for a in seed.abstracts]
    extracted = extract_all(abstracts, pm, ExtractContext(vault="/nowhere", config={}, taught=()))
    return abstracts, extracted, LinkOptions(**promotion_options(pm))


def _subset(picks: list[int]):
    abstracts, extracted, _ = corpus()
    chosen = sorted({pick % len(abstracts) for pick in picks})
    return [abstracts[i] for i in chosen], [extracted[i] for i in chosen]


def _shown(model):
    """Everything the notes show, by id (the model's order included)."""
    return ([p.id for p in model.papers], {p.id: p for p in model.papers},
            [c.id for c in model.concepts], {c.id: c for c in model.concepts}, model.collections)


def _same(got, want) -> None:
    got_order, got_papers, got_concept_order, got_concepts, got_collections = _shown(got)
    want_order, want_papers, want_concept_order, want_concepts, want_collections = _shown(want)
    assert got_order == want_order
    assert [i for i in want_papers if got_papers[i] != want_papers[i]] == []
    assert sorted(got_concepts) == sorted(want_concepts)
    assert [i for i in want_concepts if got_concepts[i] != want_concepts[i]] == []
    assert got_concept_order == want_concept_order
    assert got_collections == want_collections


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(st.sets(st.integers(0, 37), max_size=6), min_size=2, max_size=4))
def test_a_linker_after_any_sequence_of_sets_gives_what_a_fresh_link_of_the_last_gives(steps):
    options = corpus()[2]
    linker = Linker()
    for left_out in steps:  # (32 to 38 papers: one size band, so the linker updates, never starts over)
        abstracts, extracted = _subset([i for i in range(38) if i not in left_out])
        model = linker.link(abstracts, extracted, options)
    _same(model, link(abstracts, extracted, options))


def test_adding_papers_and_taking_them_away_again_gives_the_first_model_back():
    abstracts, extracted, options = corpus()
    linker = Linker()
    first = linker.link(abstracts[:200], extracted[:200], options)
    linker.link(abstracts, extracted, options)
    _same(linker.link(abstracts[:200], extracted[:200], options), first)


def test_a_new_paper_leaves_the_notes_it_does_not_touch_as_they_were():
    abstracts, extracted, options = corpus()
    linker = Linker()
    before = {p.id: p for p in linker.link(abstracts[:-1], extracted[:-1], options).papers}
    after = linker.link(abstracts, extracted, options)
    kept = [p for p in after.papers if before.get(p.id) is p]
    assert len(kept) >= len(before) * 0.8  # the same records, not made again
    new = after.papers[-1]
    # what changed is what the new paper touches: papers it relates to or shares a concept with
    changed = {p.id for p in after.papers[:-1] if before[p.id] is not p}
    touching = set(new.related) | {p.id for p in after.papers if set(p.concepts) & set(new.concepts)}
    assert changed - touching == set() or len(changed - touching) <= 3
