"""The concept clusters kept as papers come and go (``FoldedConcepts``) are those a fresh fold
of the same papers makes (``ConceptIndex.build``), the spelling tables included: what the
vocabulary's spellings teach, and which concept each acronym definition's long form joins
(kept per definition, worked out again whole only when a vocabulary spelling comes or goes)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vaultsync.concept_fold import FoldedConcepts
from vaultsync.concept_index import ConceptIndex
from vaultsync.records import ConceptMention as M

POOL = [
    M("Graph Neural Networks", "vocabulary", ("GNNs",), ("GNN", "GNNs"), canonical=True),
    M("Graph Networks", "vocabulary", ("GNs",), ("GN", "GNs"), canonical=True),
    M("Gaussian Processes", "vocabulary", ("GPs",), ("GP", "GPs"), canonical=True),
    M("Large Language Models", "vocabulary", ("LLMs",), ("LLM", "LLMs"), canonical=True),
    M("Graph Neural Nets", "acronym", ("Graph Neural Nets", "GNNs"), ("GNNs",)),  # joins GNNs ...
    M("Graph Neural Nets", "acronym", ("Graph Neural Nets", "GNs"), ("GNs",)),  # ... or Graph Networks: no alias
    M("Neural Graph Networks", "acronym", ("Neural Graph Networks", "GNN"), ("GNN",)),
    M("Gaussian Process Models", "acronym", ("Gaussian Process Models", "GPs"), ("GPs",)),
    M("Generative Pretraining", "acronym", ("Generative Pretraining", "GP"), ("GP",)),  # no word in common
    M("Language Models Large", "acronym", ("Language Models Large", "LLMs"), ("LLMs",)),
    M("Large Language Model", "acronym", ("Large Language Model", "LLM"), ("LLM",)),  # the concept's own key
    # another spelling of a concept adds words to it: a definition's long form may then join it
    M("Graph Neural Networks", "vocabulary", ("GNNs",), ("GNN", "GNNs", "message passing networks"), canonical=True),
    M("Message Passing Nets", "acronym", ("Message Passing Nets", "GNNs"), ("GNNs",)),
    M("graph neural nets", "phrase", ("graph neural nets",)),
    M("gaussian process models", "phrase", ("gaussian process models",)),
]

papers = st.lists(st.sets(st.integers(0, len(POOL) - 1), min_size=1, max_size=5), min_size=1, max_size=10)


def _tables(index: ConceptIndex):
    return (index._alias_keys, index._acronyms, index._alias_words,
            {key: (sorted(c.papers), c.canonical, sorted(c.aliases)) for key, c in index.clusters.items()})


@settings(max_examples=80, deadline=None)
@given(papers, st.lists(st.sets(st.integers(0, 9), max_size=10), min_size=1, max_size=5))
def test_an_updated_fold_equals_a_fresh_fold_of_the_same_papers(mentions, steps):
    corpus = {f"p{n}": tuple(POOL[i] for i in sorted(picks)) for n, picks in enumerate(mentions)}
    fold, present = FoldedConcepts(), set()
    for step in steps:
        wanted = {pid for n, pid in enumerate(corpus) if n in step}
        fold.update({pid: corpus[pid] for pid in sorted(wanted - present)}, sorted(present - wanted), set(), set())
        present = wanted
        fresh = ConceptIndex().build([(pid, corpus[pid]) for pid in sorted(present)], set())
        assert _tables(fold.index) == _tables(fresh)


def test_an_acronym_definition_coming_moves_only_its_own_key():
    fold = FoldedConcepts()
    fold.update({"a": (POOL[0], POOL[2])}, (), set(), set())
    before = dict(fold.index._alias_keys)
    clusters, _ = fold.update({"b": (POOL[4],)}, (), set(), set())
    assert clusters == {"graph neural network"}  # (the definition joined it)
    assert {k: v for k, v in fold.index._alias_keys.items() if before.get(k) != v} == {
        "graph neural net": "graph neural network"}
    fold.update({"c": (POOL[1], POOL[5])}, (), set(), set())  # another concept for the same long form
    assert "graph neural net" not in fold.index._alias_keys
    fold.update({}, ("c",), set(), set())
    assert fold.index._alias_keys["graph neural net"] == "graph neural network"


def test_a_vocabulary_spelling_that_adds_words_to_a_concept_lets_a_long_form_join_it():
    fold = FoldedConcepts()
    fold.update({"a": (POOL[0], POOL[12])}, (), set(), set())  # "Message Passing Nets (GNNs)": too few words in common
    assert "message passing net" not in fold.index._alias_keys
    fold.update({"b": (POOL[11],)}, (), set(), set())  # ... until another spelling says "message passing networks"
    assert fold.index._alias_keys["message passing net"] == "graph neural network"
    fold.update({}, ("b",), set(), set())
    assert "message passing net" not in fold.index._alias_keys
