"""The acronym extractor: which definitions it finds, their exact spans, and what the hook reports."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultsync.default_plugins import acronyms
from vaultsync.default_plugins.acronyms import find_acronym_definitions
from vaultsync.records import Abstract, Collection, ExtractContext, frozen_mapping


def definitions(text: str) -> dict[str, str]:
    """short -> long, checking on the way that every span points at what it claims."""
    found = find_acronym_definitions(text)
    for d in found:
        assert text[d.start:d.end] == d.long
        assert text[d.short_start:d.short_start + len(d.short)] == d.short
    return {d.short: d.long for d in found}


def only(text: str):
    found = find_acronym_definitions(text)
    assert len(found) == 1, found
    return found[0]


def extract(text: str, config=None):
    abstract = Abstract(text=text, seed="x.txt", paragraph=1, line=1, collection=Collection("X"))
    context = ExtractContext(config=frozen_mapping(config or {}))
    return acronyms.vaultsync_extract(abstract=abstract, context=context)


@pytest.mark.parametrize("text, short, long", [
    ("Traditional Mixture-of-Experts (MoE) training is costly.", "MoE", "Mixture-of-Experts"),
    ("Recently, Large Language Models (LLMs) have improved.", "LLMs", "Large Language Models"),
    ("We study 3D scene graph generation (3DSGG) in rooms.", "3DSGG", "3D scene graph generation"),
    ("Recent Omni-Multimodal Large Language Models (Omni-MLLMs) hear and see.", "Omni-MLLMs",
     "Omni-Multimodal Large Language Models"),
    ("We use Retrieval-Augmented Generation (RAG) here.", "RAG", "Retrieval-Augmented Generation"),
    ("We fine-tune with Low-Rank Adaptation (LoRA) adapters.", "LoRA", "Low-Rank Adaptation"),
    ("Models trained by Reinforcement Learning from Human Feedback (RLHF) comply.", "RLHF",
     "Reinforcement Learning from Human Feedback"),
    ("We find shared safety neurons (SS-Neurons) across languages.", "SS-Neurons", "shared safety neurons"),
    ("We build Scientific Observation & Reasoning for Biomedical Evaluation (SORBE) for this.", "SORBE",
     "Scientific Observation & Reasoning for Biomedical Evaluation"),
    ("It is related to instrumental variable (IV) methods.", "IV", "instrumental variable"),
    ("The Kullback\u2013Leibler (KL) term", "KL", "Kullback\u2013Leibler"),
    ("Self\u2011Supervised Learning (SSL) helps.", "SSL", "Self\u2011Supervised Learning"),
    ("Image-to-video (I2V) diffusion models animate stills.", "I2V", "Image-to-video"),
    ("This is Explainable Artificial Intelligence (XAI) work.", "XAI", "Explainable Artificial Intelligence"),
    ("We solve the Dynamic Flexible Job Shop Scheduling Problem (DFJSP) fast.", "DFJSP",
     "Dynamic Flexible Job Shop Scheduling Problem"),
    ("written as quadratic unconstrained binary optimization(QUBO) problems", "QUBO",
     "quadratic unconstrained binary optimization"),
])
def test_long_form_then_acronym(text, short, long):
    assert definitions(text) == {short: long}


def test_long_form_is_not_cut_short_at_a_letter_inside_a_word():
    # "Confidence" holds a second C; the whole name still wins over `Confidence Alignment`.
    assert definitions("Then, we introduce Cross-view Confidence Alignment (CCA) to propagate.") == {
        "CCA": "Cross-view Confidence Alignment"}


def test_hyphen_part_gives_a_letter_only_when_the_acronym_uses_it():
    assert definitions("the Cross-View Alignment (CVA) loss") == {"CVA": "Cross-View Alignment"}


def test_words_before_the_long_form_stay_out():
    assert definitions("We propose leveraging Large Language Models (LLMs).") == {
        "LLMs": "Large Language Models"}


def test_acronym_then_long_form():
    assert definitions("We propose SCG (Spiking Confidence Gate), which fires.") == {
        "SCG": "Spiking Confidence Gate"}
    assert definitions("RLHF (reinforcement learning from human feedback) is common.") == {
        "RLHF": "reinforcement learning from human feedback"}


def test_the_same_acronym_keeps_each_papers_long_form():
    video = only("Accurate Video Quality Assessment (VQA) has long been studied.")
    visual = only("Benchmarks for visual question answering (VQA) abound.")
    assert (video.short, video.name) == ("VQA", "Video Quality Assessment")
    assert (visual.short, visual.name) == ("VQA", "visual question answering")


@pytest.mark.parametrize("text", [
    "Strong models (e.g., GPT-4, LLaMA) still fail.",
    "Strong models (e.g. GPT-4) still fail.",
    "Attention is all you need (Vaswani et al., 2017).",
    "Accuracy rises by 4.2 points (95% CI) on ImageNet (2012).",
    "Our method (ours) beats the baseline (see Section 3).",
    "Large language models (i.e., LLMs) are big.",
    "LLMs (i.e., large language models) are big.",
    "LLMs (see Brown et al.) are big.",
    "Results on three benchmarks (ICML 2024) improve.",
    "We evaluate GPT-4 (OpenAI) on the task.",
    "BERT (BERT) is repeated here.",
    "Training (Phase II) follows warm-up (Phase I).",
    "No parentheses at all.",
])
def test_parentheses_that_are_not_definitions(text):
    assert definitions(text) == {}


def test_definitions_inside_math_are_ignored():
    assert definitions("We minimise $\\mathcal{L}(AB) + Large Language Models (LLMs)$ here.") == {}
    assert definitions("with \\(f(XY)\\) and key-value (KV) pairs") == {"KV": "key-value"}


def test_nested_parentheses():
    assert definitions("Large Language Models (LLMs (Brown et al., 2020)) are few-shot learners.") == {
        "LLMs": "Large Language Models"}
    assert definitions("routing (as in Mixture-of-Experts (MoE)) helps") == {"MoE": "Mixture-of-Experts"}
    assert definitions("Large Language Models (LLMs; Brown et al.) work.") == {"LLMs": "Large Language Models"}


def test_emphasis_is_kept_in_the_span_and_removed_from_the_name():
    latex = only("We propose \\textbf{Cross-view Confidence Alignment} (CCA) here.")
    assert (latex.long, latex.name) == ("Cross-view Confidence Alignment", "Cross-view Confidence Alignment")
    letters = only("We propose **C**ross-**M**odal **A**dapter (CMA) here.")
    assert letters.long == "**C**ross-**M**odal **A**dapter"
    assert letters.name == "Cross-Modal Adapter"


def test_plural_acronym_has_a_singular_form():
    d = only("Recently, Large Language Models (LLMs) have improved.")
    assert (d.short, d.singular_short) == ("LLMs", "LLM")
    assert only("Omni-Multimodal Large Language Models (Omni-MLLMs) listen.").singular_short == "Omni-MLLM"
    assert only("We find shared safety neurons (SS-Neurons).").singular_short == "SS-Neurons"


@pytest.mark.parametrize("text, extended_long, extended_short", [
    ("However, the key-value (KV) cache grows.", "key-value cache", "KV cache"),
    ("We bound the Kullback-Leibler (KL) divergence.", "Kullback-Leibler divergence", "KL divergence"),
    ("We study text-to-image (T2I) generation.", "text-to-image generation", "T2I generation"),
    ("They use out-of-distribution (OOD) detection.", "out-of-distribution detection", "OOD detection"),
])
def test_head_noun_completes_a_modifier_long_form(text, extended_long, extended_short):
    d = only(text)
    assert (d.extended_long, d.extended_short) == (extended_long, extended_short)


@pytest.mark.parametrize("text", [
    "Sparse Mixture-of-Experts (MoE) models scale.",  # X-of-Y is a noun already
    "We stack graph neural network (GNN) layers.",  # the long form ends in a head noun
    "We run the key-value (KV) framework.",  # framework names the paper's own thing
    "It is related to instrumental variable (IV) methods.",
])
def test_head_noun_extension_stays_off_for_nouns_and_paper_words(text):
    assert only(text).extended_long is None


@pytest.mark.parametrize("text, coined", [
    ("Then, we introduce Cross-view Confidence Alignment (CCA) to propagate.", True),
    ("To resolve this, we propose a simple yet effective Spiking Confidence Gate (SCG).", True),
    ("We present Reading Observed At Mindless Moments (ROAMM), a multimodal dataset.", True),
    ("A new metric, termed Schedule Stress Index (SSI), stratifies jobs.", True),
    ("Anchors are built using a Reliable Anchor for Certainty (RAC) module.", True),
    ("We propose **Verbalized Sampling** (VS) for diversity.", True),
    ("Our approach builds on Large Language Models (LLMs) for planning.", False),
    ("We propose a framework using Large Language Models (LLMs) for planning.", False),
    ("Recently, large language models (LLMs) have improved.", False),
])
def test_coined_hint(text, coined):
    assert only(text).coined is coined


def test_hook_reports_long_form_surfaces_and_aliases():
    extraction = extract("Recently, Large Language Models (LLMs) have improved. Each LLM reads text.")
    (concept,) = extraction.concepts
    assert concept.name == "Large Language Models"
    assert concept.kind == "acronym"
    assert concept.aliases == ("LLM", "LLMs")
    assert concept.surfaces[:2] == ("Large Language Models", "LLMs")
    assert "LLM" in concept.surfaces


def test_hook_reports_the_extended_concept_and_the_coined_kind():
    extraction = extract("However, the key-value (KV) cache grows. We propose Spiking Confidence Gate (SCG).")
    by_name = {c.name: c for c in extraction.concepts}
    assert by_name["key-value cache"].aliases == ("KV cache",)
    assert by_name["key-value cache"].kind == "acronym"
    assert by_name["Spiking Confidence Gate"].kind == "acronym-coined"
    assert by_name["Spiking Confidence Gate"].aliases == ("SCG",)


def test_hook_can_be_disabled_and_returns_none_when_nothing_is_defined():
    text = "Recently, Large Language Models (LLMs) have improved."
    assert extract(text, {"acronyms": {"enabled": False}}) is None
    assert extract("Nothing to define here (really).") is None


def test_hook_is_registered_as_a_default_plugin():
    from vaultsync.plugins import get_plugin_manager

    pm = get_plugin_manager()
    abstract = Abstract(text="We use Low-Rank Adaptation (LoRA).", seed="x.txt", paragraph=1, line=1,
                        collection=Collection("X"))
    results = pm.hook.vaultsync_extract(abstract=abstract, context=ExtractContext())
    names = [c.name for r in results if r for c in r.concepts if c.kind.startswith("acronym")]
    assert names == ["Low-Rank Adaptation"]


WORDS = st.sampled_from([
    "Large", "language", "models", "Mixture-of-Experts", "key-value", "the", "of", "(", ")", "LLMs",
    "MoE", "(KV)", "(LLMs)", "(e.g.,", "$", "**", "\\textbf{", "}", "Cross-view", "3D", "to", ",", ".",
    "\u2013", "neurons", "(SS-Neurons)", "SCG", "(Spiking", "Gate)", "x", "ex", "(XA)", "_",
])


def _letters(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalpha())


def _is_subsequence(needle: str, haystack: str) -> bool:
    it = iter(haystack)
    return all(c in it for c in needle)


def _check_contract(text: str) -> None:
    for d in find_acronym_definitions(text):
        assert text[d.start:d.end] == d.long and d.long
        assert text[d.short_start:d.short_start + len(d.short)] == d.short
        # every letter of the (singular) acronym is explained by the long form, in order
        assert _is_subsequence(_letters(d.singular_short), _letters(d.long))


@settings(max_examples=400)
@given(st.text())
def test_arbitrary_text_never_raises_and_spans_hold(text):
    _check_contract(text)


@settings(max_examples=400)
@given(st.lists(WORDS, max_size=30).map(" ".join))
def test_definition_like_text_keeps_the_contract(text):
    _check_contract(text)


def test_every_example_acronym_letter_is_in_its_long_form():
    text = ("Traditional Mixture-of-Experts (MoE) training. Low-Rank Adaptation (LoRA) and "
            "3D scene graph generation (3DSGG). Image-to-video (I2V) synthesis.")
    found = find_acronym_definitions(text)
    assert len(found) == 4
    for d in found:
        assert _is_subsequence(re.sub(r"[^a-z]", "", d.singular_short.lower()), _letters(d.long))


def test_paper_words_far_from_the_name_are_no_coining_cue():
    assert not only("Our method outperforms Large Language Models (LLMs) on all tasks.").coined
    assert only("We study multi-head (MH) attention.").extended_long == "multi-head attention"
    assert definitions("ICL (in-context learning) helps.") == {"ICL": "in-context learning"}


def test_definitions_and_mentions_are_ordinary_records():
    import pickle
    from dataclasses import fields

    from vaultsync.records import ConceptMention

    text = ("We propose Zonal Orbit Networks (ZON), and key-value (KV) cache reuse; "
            "Large Language Models (LLMs) help.")
    definitions = find_acronym_definitions(text)
    assert len(definitions) == 3
    for d in definitions:
        built = acronyms.AcronymDefinition(**{f.name: getattr(d, f.name) for f in fields(d)})
        assert d == built and repr(d) == repr(built) and pickle.dumps(d) == pickle.dumps(built)
    found = acronyms.vaultsync_extract(Abstract(text, "a.txt", 1, 1, Collection("c")), ExtractContext())
    for m in found.concepts:
        built = ConceptMention(m.name, m.kind, m.surfaces, m.aliases, m.score)
        assert m == built and repr(m) == repr(built) and pickle.dumps(m) == pickle.dumps(built)
