"""Context: what an abstract says is costly, what it compares itself with, what it only
foresees or gives as an aside, and tasks named only as what a method runs on -- each rule on
sentences written for it."""

from __future__ import annotations

from vaultsync.context import in_context
from vaultsync.records import ConceptMention, Extraction


def vocab(name: str, surface: str, broader: tuple[str, ...] = ()) -> ConceptMention:
    return ConceptMention(name, "vocabulary", (surface,), (), 1.0, broader, True)


def linked(text: str, *mentions: ConceptMention) -> set[str]:
    return {m.name for m in in_context(text, Extraction(mentions)).concepts}


def test_a_capitalised_name_is_not_counted_where_the_text_writes_another_word():
    text = ("We train a verifier with Math-Shepherd labels and evaluate it on MATH. "
            "Math-Shepherd labels are noisy.")
    assert linked(text, vocab("MATH", "MATH", ("Benchmarks",))) == set()
    text = "We build MATH, a benchmark of hard problems. MATH has 12k problems."
    assert linked(text, vocab("MATH", "MATH", ("Benchmarks",))) == {"MATH"}


def test_what_is_too_costly_or_scarce_to_use_is_set_aside():
    text = "Since interventional data is costly to collect, we learn causal structure from passive data."
    assert linked(text, vocab("Interventional Causal Discovery", "interventional data")) == set()
    text = "We collect interventional data at scale and show it is cheap."
    assert linked(text, vocab("Interventional Causal Discovery", "interventional data")) == {
        "Interventional Causal Discovery"}


def test_a_prospect_the_work_leads_to_is_not_its_topic():
    text = "We prove a bound for hyperbolic embeddings, paving the way for robust machine learning systems."
    assert linked(text, vocab("ML Systems", "machine learning systems")) == set()
    text = "We show that the method has broad implications for federated learning in hospitals."
    assert linked(text, vocab("Federated Learning", "federated learning")) == set()
    text = "Our results pave the way for a better understanding of the loss landscape of networks."
    assert linked(text, vocab("Loss Landscape", "loss landscape")) == {"Loss Landscape"}


def test_a_second_term_of_comparison_is_compared_too():
    text = ("Models with our memory layer outperform dense models with twice the compute, as well as "
            "mixture-of-experts models at equal size.")
    assert linked(text, vocab("Mixture of Experts", "mixture-of-experts")) == set()


def test_what_a_method_is_as_good_as_is_compared():
    text = "Our sampler reaches the same approximation ratio as local search methods with fewer queries."
    assert linked(text, vocab("Local Search Heuristics", "local search")) == set()


def test_examples_that_a_class_includes_are_examples():
    text = "DAGs are widely used, with examples that include electronic circuits and Bayesian networks."
    assert linked(text, vocab("Bayesian Networks", "Bayesian networks")) == set()
    text = "We learn Bayesian networks from few examples."
    assert linked(text, vocab("Bayesian Networks", "Bayesian networks")) == {"Bayesian Networks"}


def test_a_task_named_only_as_the_kind_of_tasks_a_method_is_tested_on_is_not_its_topic():
    text = ("We propose a transport map solver with convergence guarantees. It beats OT-based models "
            "in image-to-image translation tasks.")
    assert linked(text, vocab("Image-to-Image Translation", "image-to-image translation")) == set()
    text = "We study image-to-image translation. Our translator beats baselines on three tasks."
    assert linked(text, vocab("Image-to-Image Translation", "image-to-image translation")) == {
        "Image-to-Image Translation"}


def test_a_kind_of_task_set_against_another_is_the_topic():
    text = ("We find that small initialisation favours reasoning tasks, whereas large initialisation "
            "favours memorization tasks.")
    assert linked(text, vocab("Memorization", "memorization")) == {"Memorization"}


def test_an_aside_in_parentheses_is_a_remark_in_passing():
    text = ("Our method also improves the distilled model (LCM-SDXL, which is already accelerated with "
            "consistency distillation) on few-step synthesis.")
    assert linked(text, vocab("Consistency Distillation", "consistency distillation")) == set()
    text = "We propose a consistency distillation scheme (CDS) for few-step synthesis."
    assert linked(text, vocab("Consistency Distillation", "consistency distillation")) == {"Consistency Distillation"}


def test_tasks_a_method_is_integrated_into_are_not_where_it_is_tested():
    text = ("We decouple cognitive structure from prediction, so the structures can be integrated "
            "into diverse student modeling tasks.")
    assert linked(text, vocab("Knowledge Tracing", "student modeling")) == {"Knowledge Tracing"}


def test_what_falls_short_in_a_contrast_is_a_baseline():
    text = ("We compare with a strong Transformer and Mamba. Our layers keep reducing perplexity with "
            "more context, while Mamba cannot after 16k tokens.")
    assert linked(text, vocab("Mamba", "Mamba")) == set()
    text = "We scale Mamba to long contexts, while keeping its linear cost."
    assert linked(text, vocab("Mamba", "Mamba")) == {"Mamba"}


def test_what_a_method_spares_its_user_is_set_aside():
    text = "Our method removes the need for a separate reward model, learning directly from preferences."
    assert linked(text, vocab("Reward Modeling", "reward model")) == set()
    text = "With our sampler there is no need for knowledge distillation at test time."
    assert linked(text, vocab("Knowledge Distillation", "knowledge distillation")) == set()
    text = "The scheme obviates reinforcement learning from human feedback altogether."
    assert linked(text, vocab("RLHF", "reinforcement learning from human feedback")) == set()
    text = "We reduce the need for labeled data by training a reward model on preferences."
    assert linked(text, vocab("Reward Modeling", "reward model")) == {"Reward Modeling"}


def test_alternatives_to_a_method_are_set_against_it():
    text = "We present state space layers as alternatives to self-attention for long sequences."
    assert linked(text, vocab("Self-Attention", "self-attention")) == set()
    text = "We present a faster self-attention layer for long sequences."
    assert linked(text, vocab("Self-Attention", "self-attention")) == {"Self-Attention"}


def test_what_is_already_well_understood_is_prior_knowledge():
    text = ("The stability of diffusion samplers is well understood, mainly through tools from "
            "optimal transport. Their privacy is not.")
    assert linked(text, vocab("Optimal Transport", "optimal transport")) == set()
    text = "The stability of samplers is not well understood; we study it with optimal transport."
    assert linked(text, vocab("Optimal Transport", "optimal transport")) == {"Optimal Transport"}
