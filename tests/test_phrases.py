"""The phrase extractor and the generic-phrase filter, as the link stage and a reader rely on them."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultsync.canonical import concept_key
from vaultsync.default_plugins.phrase_concepts import phrase_mentions, promote_phrases, rank_keyphrases, vaultsync_extract
from vaultsync.default_plugins.phrases import MAX_WORDS, candidate_phrases
from vaultsync.generic import is_generic
from vaultsync.records import Abstract, Collection, ConceptMention, ExtractContext

ABSTRACT = (
    "Graph neural networks (GNNs) struggle with long-range dependencies. We propose a novel "
    "rewiring scheme for **graph neural networks** that keeps the KV cache small, with loss "
    "$\\mathcal{L} = \\sum_i x_i^2$ and code at https://github.com/example/rewire. Extensive "
    "experiments show state-of-the-art performance on real-world graphs."
)


def texts(phrases):
    return [p.text for p in phrases]


@pytest.mark.parametrize(
    "phrase",
    [
        "extensive experiments",
        "Extensive Experiments",
        "state-of-the-art performance",
        "state-of-the-art accuracy",
        "real-world",
        "this paper",
        "significant improvements",
        "competitive performance",
        "theoretical insights",
        "downstream tasks",
        "future work",
        "key challenge",
        "promising results",
        "superior results",
        "real world",
    ],
)
def test_generic_scientific_phrasing_is_generic(phrase):
    assert is_generic(phrase)


@pytest.mark.parametrize("phrase", ["42", "3.5%", "10x", "1,000", "2024", ""])
def test_bare_numbers_are_generic(phrase):
    assert is_generic(phrase)


@pytest.mark.parametrize(
    "word", ["performance", "accuracy", "results", "framework", "method", "approach", "model", "time", "data"]
)
def test_single_common_words_are_generic(word):
    assert is_generic(word)


@pytest.mark.parametrize(
    "phrase",
    [
        "graph neural networks",
        "mendelian randomization",
        "kv cache",
        "KV cache",
        "large language models",
        "population stratification",
        "state-of-the-art quantization",
        "GPT-4",
    ],
)
def test_technical_terms_are_not_generic(phrase):
    assert not is_generic(phrase)


def test_candidates_are_noun_phrases_without_fillers():
    found = texts(candidate_phrases("We propose a novel rewiring scheme for the proposed graph model."))
    assert "rewiring scheme" in found
    assert "graph model" in found
    assert not any(p.lower().startswith(("novel", "proposed", "we ", "a ")) for p in found)


def test_candidates_never_include_math_urls_or_markup():
    text = ABSTRACT + " See www.example.org/page and <b>bold term</b> or \\textbf{x}."
    for phrase in candidate_phrases(text):
        assert not any(mark in phrase.text for mark in ("$", "http", "www", "github", "\\", "*", "<", ">"))
        assert "mathcal" not in phrase.key and "sum" not in phrase.key.split()
    assert "graph neural networks" in texts(candidate_phrases(ABSTRACT))
    assert "bold term" in texts(candidate_phrases(text))


def test_candidate_spans_are_exact_slices():
    for phrase in candidate_phrases(ABSTRACT):
        assert ABSTRACT[phrase.start:phrase.end] == phrase.text
        assert phrase.key == concept_key(phrase.text)


def test_hook_reports_non_generic_phrases_with_exact_surfaces():
    abstract = Abstract(ABSTRACT, "seed.txt", 1, 1, Collection("Test"))
    extraction = vaultsync_extract(abstract=abstract, context=ExtractContext())
    assert extraction is not None
    by_key = {concept_key(m.name): m for m in extraction.concepts}
    assert all(m.kind == "phrase" for m in extraction.concepts)
    for mention in extraction.concepts:
        assert all(surface in ABSTRACT for surface in mention.surfaces)
        assert not is_generic(mention.name)
    gnn = by_key["graph neural network"]
    assert set(gnn.surfaces) == {"Graph neural networks", "graph neural networks"}
    assert gnn.score > by_key["kv cache"].score  # seen twice, and earlier
    assert "extensive experiment" not in by_key and "performance" not in by_key


def test_phrase_mentions_are_ordinary_concept_mentions():
    # `phrase_mentions` builds them without the dataclass's __init__, for speed
    mentions = phrase_mentions(ABSTRACT)
    assert mentions
    for mention in mentions:
        built = ConceptMention(mention.name, "phrase", mention.surfaces, (), mention.score)
        assert mention == built and hash(mention) == hash(built) and repr(mention) == repr(built)
        assert pickle.dumps(mention) == pickle.dumps(built)  # same fields, in the same order


def test_hook_can_be_switched_off():
    abstract = Abstract(ABSTRACT, "seed.txt", 1, 1, Collection("Test"))
    context = ExtractContext(config={"phrases": {"enabled": False}})
    assert vaultsync_extract(abstract=abstract, context=context) is None


DOCS = [
    "Mendelian randomization uses genetic variants as instruments. Mendelian randomization "
    "studies estimate causal effects despite unobserved confounding.",
    "A KV cache holds keys and values; we compress the KV cache with low-rank projections "
    "for long-context inference.",
    "Graph neural networks learn node embeddings. We study oversmoothing in graph neural networks.",
]


def test_rank_keyphrases_is_deterministic_and_per_document():
    first = rank_keyphrases(DOCS, k=5)
    assert first == rank_keyphrases(list(DOCS), k=5)
    assert rank_keyphrases(DOCS[::-1], k=5) == first[::-1]
    assert len(first) == len(DOCS) and all(len(doc) <= 5 for doc in first)
    assert first[0][0] == "Mendelian randomization"
    assert first[1][0] == "KV cache"


def test_rank_keyphrases_deduplicates_by_key():
    ranked = rank_keyphrases(["Neural networks. A neural network. Neural Networks again."], k=10)[0]
    keys = [concept_key(p) for p in ranked]
    assert keys.count("neural network") == 1
    assert len(keys) == len(set(keys))


def mention(name, score=1.0):
    return ConceptMention(name=name, kind="phrase", surfaces=(name,), score=score)


def test_promote_phrases_needs_two_papers():
    papers = [
        [mention("graph neural network"), mention("speculative decoding")],
        [mention("Graph Neural Networks"), mention("mendelian randomization")],
    ]
    assert promote_phrases(papers) == {"graph neural network"}
    assert promote_phrases(papers, min_df=1) == {"graph neural network"}  # one paper is never enough
    assert promote_phrases(papers[:1]) == set()


def test_promote_phrases_never_promotes_a_single_word():
    papers = [[mention("quantization"), mention("kv cache"), mention("long-range")]] * 4
    assert promote_phrases(papers) == {"kv cache"}


def test_promote_phrases_skips_generic_and_other_kinds():
    papers = [
        [mention("extensive experiments"), ConceptMention(name="graph", kind="acronym")],
        [mention("extensive experiments"), ConceptMention(name="graph", kind="acronym")],
    ]
    assert promote_phrases(papers) == set()


def test_phrase_mentions_of_empty_text():
    assert phrase_mentions("") == []
    assert candidate_phrases("") == []


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("abcXYZ019 -_.,;:$*\\/<>()'\n\t\u00e9\u2013\u2019")) | st.characters(),
        max_size=200,
    )
)
def test_candidate_phrases_never_raise_and_spans_are_consistent(text):
    previous_end = 0
    for phrase in candidate_phrases(text):
        assert 0 <= phrase.start < phrase.end <= len(text)
        assert text[phrase.start:phrase.end] == phrase.text
        assert phrase.start >= previous_end
        previous_end = phrase.end
        assert phrase.key and phrase.key == concept_key(phrase.text)
        assert phrase.text == phrase.text.strip()
        assert len(phrase.text.split()) <= MAX_WORDS


@settings(max_examples=500, deadline=None)
@given(st.floats(min_value=0.0, max_value=1e9, allow_nan=False) | st.integers(0, 10**8).map(lambda n: n / 20000))
def test_scores_round_as_the_builtin_does(score):
    from vaultsync.default_plugins.phrase_concepts import _round4

    assert repr(_round4(score)) == repr(round(score, 4))  # ties (n / 20000) take the builtin's path


def test_stretches_after_to_and_across_odd_whitespace_give_the_same_phrases():
    # A stretch is chunked once and remembered: the same words after `to` (a verb) or spaced
    # otherwise must still give their own phrases.
    assert [p.text for p in candidate_phrases("we aim to recover latent components")] == ["latent components"]
    assert [p.text for p in candidate_phrases("the recover latent components")] == ["recover latent components"]
    spaced = candidate_phrases("graph  neural\nnetworks and\tgraph neural networks")
    assert [(p.text, p.start) for p in spaced] == [("graph  neural\nnetworks", 0), ("graph neural networks", 27)]


def test_a_phrase_the_vocabulary_checks_the_sense_of_is_left_to_the_vocabulary():
    # `calibration` (of a conformal set) and `gradient flow` (of backpropagation) are vocabulary
    # names with a sense check: found as phrases, they would bring back what the check turned down
    text = ("We fit the conformal scores on a held-out calibration split. A frozen encoder stops the gradient "
            "flow to the backbone, and the adapter head learns calibration quickly with graph neural networks.")
    extraction = vaultsync_extract(abstract=Abstract(text, "seed.txt", 1, 1, Collection("Test")),
                                   context=ExtractContext())
    keys = {concept_key(m.name) for m in extraction.concepts}
    assert "calibration" not in keys and "gradient flow" not in keys
    # ... and so is a short acronym, which means one thing here and another there (CP decompositions)
    text = "Our solver handles CP, Tucker, and tensor-train decompositions for graph neural networks."
    extraction = vaultsync_extract(abstract=Abstract(text, "seed.txt", 1, 1, Collection("Test")),
                                   context=ExtractContext())
    assert "cp" not in {concept_key(m.name) for m in extraction.concepts}
    # ... unless the vocabulary is off: then nothing checks the sense, and the phrase stays
    extraction = vaultsync_extract(abstract=Abstract(text, "seed.txt", 1, 1, Collection("Test")),
                                   context=ExtractContext(config={"vocabulary": {"enabled": False}}))
    assert "cp" in {concept_key(m.name) for m in extraction.concepts}
    assert "graph neural network" in keys
