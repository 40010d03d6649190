"""Asking the related index about new papers (a watcher's preview) leaves it as it was, and
gives the new papers the lists adding them would, wherever their batch moves no band."""

from __future__ import annotations

from contextlib import ExitStack
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from test_related_index import ALIASES, CONCEPTS, TERMS, Model, _terms, histories
from vaultsync import related_ask, related_index
from vaultsync.bands import size_band
from vaultsync.related_ask import RelatednessIndex
from vaultsync.related_index import RelatedIndex, term_cap


def _built(batches) -> Model:
    model = Model()
    for batch in batches:
        model.apply(*batch)
    return model


def _moves_no_band(index: RelatedIndex, new: dict) -> bool:
    """Whether adding ``new`` (id -> (terms, concepts)) keeps the size band and the cap side of
    every term its papers have (then no indexed paper's text length moves; where a term's band
    moves, the answer rescales the indexed papers' components)."""
    band = index._band
    if size_band(len(index) + len(new)) != band:
        return False
    added_terms: dict[str, int] = {}
    for counts, names in new.values():
        for term in counts:
            added_terms[term] = added_terms.get(term, 0) + 1
    for term, more in added_terms.items():
        tid = index._vocab.get(term)
        old = index._df[tid] if tid is not None else 0
        if old and (old <= term_cap(band)) != (old + more <= term_cap(band)):
            return False
    return True


def _ask_then_add(model: Model, new: dict) -> tuple[dict, dict, bool]:
    index = model.fresh()
    before = index.related_all()
    asked = RelatednessIndex.over(index).related_to_new_papers(new)
    assert index.related_all() == before  # asking changed nothing ...
    assert index.related_all() == model.fresh().related_all()  # ... not even what an update would find stale
    exact = _moves_no_band(index, new)
    index.update({pid: terms for pid, (terms, _) in new.items()},
                 {pid: names for pid, (_, names) in new.items()})
    return asked, {pid: index.related(pid) for pid in new}, exact


def _same(asked: dict, added: dict) -> bool:
    """The same lists: ids and what each shares; scores to rounding (the indexed papers'
    components are rescaled from their stored integers, not worked out again)."""
    return asked.keys() == added.keys() and all(
        [(r.id, r.shares) for r in asked[pid]] == [(r.id, r.shares) for r in added[pid]]
        and all(abs(a.score - b.score) < 1e-6 for a, b in zip(asked[pid], added[pid])) for pid in asked)


@st.composite
def corpora(draw) -> Model:
    """32 to 38 papers (one size band, with room for a batch of four), some listing concepts."""
    model = Model()
    for n in range(draw(st.integers(32, 38))):
        model.texts[f"p{n:02d}"] = _terms(draw)
        if draw(st.booleans()):
            model.concepts[f"p{n:02d}"] = tuple(dict.fromkeys(draw(st.lists(st.sampled_from(CONCEPTS), max_size=4))))
    for name in draw(st.lists(st.sampled_from(CONCEPTS), max_size=2, unique=True)):
        model.phrases[name] = True
    for name, names in zip(CONCEPTS, ALIASES):
        if draw(st.booleans()):
            model.aliases[name] = names
    return model


@settings(max_examples=60, deadline=None)
@given(corpora(), st.data(), st.booleans())
def test_asking_changes_nothing_and_answers_as_adding_would(model, data, low_bars):
    with ExitStack() as stack:
        if low_bars:  # many more passing pairs: every rule of the judgement is taken
            for module in (related_index, related_ask):
                for name, value in (("MIN_TEXT", 0.01), ("THRESHOLD", 0.02), ("MIN_EVIDENCE", 1)):
                    stack.enter_context(mock.patch.object(module, name, value))
        new = {f"new{n}": (_terms(data.draw), tuple(data.draw(st.lists(st.sampled_from(CONCEPTS), max_size=3))))
               for n in range(data.draw(st.integers(1, 4)))}
        asked, added, exact = _ask_then_add(model, new)
        if exact:
            assert _same(asked, added)


@settings(max_examples=10, deadline=None)
@given(histories(), st.data())
def test_asking_an_index_updated_many_times_changes_nothing(batches, data):
    new = {f"new{n}": (_terms(data.draw), ()) for n in range(data.draw(st.integers(1, 3)))}
    _ask_then_add(_built(batches), new)


def test_the_bundled_abstracts_asked_about_get_the_lists_adding_them_gives():
    model = Model()
    model.texts = {f"p{n:02d}": terms for n, terms in enumerate(TERMS[:-4])}
    new = {f"new{n}": (TERMS[n] | TERMS[-1 - n], ()) for n in range(4)}  # (two abstracts in one: related)
    asked, added, exact = _ask_then_add(model, new)
    assert any(asked.values()) and exact  # (some relate, no length moves: the comparison says something)
    assert _same(asked, added)
