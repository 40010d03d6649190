"""The link stage is a function of the set of abstracts, not of their order (issue 22): the
papers of the bundled seeds, extracted once, linked in any order give the same concepts, fields,
links, aliases and related papers per paper, and the same concepts (names, aliases, hierarchy,
papers). What is history by design is left out: which paper came first decides nothing here
(each abstract is distinct), and note names are compared only through the concepts'."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from vaultsync.default_plugins.phrase_concepts import promote_phrases
from vaultsync.extract import Extracted, extract_all
from vaultsync.link import LinkOptions, link
from vaultsync.plugins import get_plugin_manager, promoted_phrases
from vaultsync.read import read_seeds
from vaultsync.records import Abstract, Collection, ConceptMention, ExtractContext, Extraction, PaperName

ICML = Collection("ICML 2026 Papers", "ICML 2026", 2026)
SEEDS = Path(__file__).resolve().parents[1] / "seeds"
PM = get_plugin_manager()
ABSTRACTS = [a for seed in read_seeds(SEEDS, PM).seeds for a in seed.abstracts]
EXTRACTED = extract_all(ABSTRACTS, PM, ExtractContext(), workers=1)


def _linked(order: list[int]):
    model = link([ABSTRACTS[i] for i in order], [EXTRACTED[i] for i in order],
                 LinkOptions(promote_phrases=partial(promoted_phrases, PM)))
    papers = {p.id: (p.concepts, p.fields, p.links, p.aliases, p.related, p.related_shares) for p in model.papers}
    concepts = {c.id: (c.name, c.aliases, c.broader, c.narrower, frozenset(c.papers)) for c in model.concepts}
    return papers, concepts


IN_ORDER = _linked(list(range(len(ABSTRACTS))))


@settings(max_examples=4, deadline=None)
@given(order=st.permutations(range(len(ABSTRACTS))))
def test_the_link_of_any_order_of_the_papers_is_the_same(order):
    papers, concepts = _linked(order)
    expected_papers, expected_concepts = IN_ORDER
    assert sorted(papers) == sorted(expected_papers)
    assert {k: v for k, v in papers.items() if v != expected_papers[k]} == {}
    assert sorted(concepts) == sorted(expected_concepts)
    assert {k: v for k, v in concepts.items() if v != expected_concepts[k]} == {}


def _mention(name, kind, surfaces=None, aliases=(), canonical=False, broader=()):
    return ConceptMention(name, kind, surfaces or (name,), aliases, 1.0, broader, canonical=canonical)


def _paper(n: int, *mentions: ConceptMention):
    abstract = Abstract(f"Abstract number {n} on a few things in machine learning.", "s.txt", n, n, ICML)
    return abstract, Extracted(Extraction(concepts=mentions), PaperName(title=f"Title {n}", gist=f"gist {n}"))


# What the fold once took from whichever paper came first: a cluster an earlier paper made kept
# an acronym's long form out of the vocabulary concept its acronym names; the vocabulary name of
# a concept two entries spell alike; which of two spellings alike but for case was an alias.
SMALL = [
    _paper(1, _mention("Vision Language Models", "vocabulary", ("vision-language models",), ("VLMs",), True)),
    _paper(2, _mention("Visual Language Models", "acronym", ("visual language models", "VLMs"), ("VLMs",))),
    _paper(3, _mention("Visual Language Models", "method")),
    _paper(4, _mention("Visual Language Models", "method")),
    _paper(5, _mention("Rectified Flow", "vocabulary", ("Rectified flows",), canonical=True, broader=("Generative Models",))),
    _paper(6, _mention("Rectified-Flow", "vocabulary", ("rectified flows",), canonical=True, broader=("Generative models",))),
    _paper(7, _mention("Rectified Flow", "vocabulary", ("rectified flow",), canonical=True)),
]


@settings(max_examples=12, deadline=None)
@given(order=st.permutations(range(len(SMALL))))
def test_the_fold_takes_nothing_from_the_order_of_papers(order):
    def linked(order):
        abstracts, extracted = zip(*[SMALL[i] for i in order])
        model = link(list(abstracts), list(extracted), LinkOptions(promote_phrases=promote_phrases))
        return ({p.id: (p.concepts, p.fields, p.links, p.aliases) for p in model.papers},
                {c.id: (c.name, c.aliases, c.broader, c.narrower, frozenset(c.papers)) for c in model.concepts})

    assert linked(order) == linked(range(len(SMALL)))
