"""Context decides a link: negated, contrasted and evaluation-only mentions are not what a paper is
about; ambiguous vocabulary needs its sense; corpus statistics promote only phrases that name a thing."""

from __future__ import annotations

import pytest

from vaultsync.context import in_context
from vaultsync.salience import salient
from vaultsync.default_plugins.vocabulary import Vocabulary
from vaultsync.default_plugins.vocabulary_format import parse_vocabulary
from vaultsync.default_plugins.senses import in_sense
from vaultsync.generic import names_a_thing
from vaultsync.records import ConceptMention, Extraction


def vocab(name: str, surface: str, broader: tuple[str, ...] = ()) -> ConceptMention:
    return ConceptMention(name, "vocabulary", (surface,), (), 1.0, broader, True)


def linked(text: str, *mentions: ConceptMention) -> set[str]:
    return {m.name for m in in_context(text, Extraction(mentions)).concepts}


@pytest.mark.parametrize("text, surface", [
    ("We segment images without external foundation models, using a small network.", "foundation models"),
    ("Our method enables non-interactive segmentation of medical scans.", "interactive segmentation"),
    ("It avoids cascaded image restoration pipelines and runs in one pass.", "image restoration"),
    ("The design is inspired by the masking in linear attention, yet it is exact.", "linear attention"),
    ("We show that hyperfitting is not temperature scaling, but a distinct effect.", "temperature scaling"),
    ("A training-free sampler for flow models.", "training"),
    ("Unlike contrastive learning, our objective needs no negatives.", "contrastive learning"),
    ("Our method outperforms LoRA on GLUE while using fewer parameters.", "LoRA"),
])
def test_a_negated_or_contrasted_mention_is_not_a_link(text, surface):
    assert linked(text, vocab("X", surface)) == set()


@pytest.mark.parametrize("text, surface", [
    ("We propose a new method for interactive segmentation that learns from clicks.", "interactive segmentation"),
    ("Not only does it speed up training, it also improves linear attention.", "linear attention"),
    ("We study foundation models without labels; foundation models transfer well.", "foundation models"),
    ("Our method outperforms LoRA on GLUE while using fewer parameters.", "GLUE"),
])
def test_a_mention_outside_every_scope_stays_linked(text, surface):
    assert linked(text, vocab("X", surface)) == {"X"}


def test_what_a_method_is_evaluated_on_is_not_its_topic_and_benchmarks_become_datasets():
    text = ("We propose a forecasting method for traffic flow. Experiments on COVID-19 and ImageNet "
            "show gains, and we use Stable Diffusion in one experiment on sketches.")
    result = in_context(text, Extraction((
        vocab("COVID-19", "COVID-19"), vocab("ImageNet", "ImageNet", ("Benchmarks",)),
        vocab("Traffic Forecasting", "traffic flow"))))
    assert {m.name for m in result.concepts} == {"Traffic Forecasting"}
    assert result.metadata["datasets"] == ("ImageNet",)


def test_a_task_named_only_where_the_method_is_evaluated_is_not_its_topic():
    text = "Experiments on surface parameterization and shape recognition demonstrate its benefits."
    assert linked(text, vocab("Surface Parameterization", "surface parameterization")) == set()
    text = ("We learn geodesic distances on meshes. It achieves superior performance across downstream tasks, "
            "including shape recognition and sentiment analysis.")
    assert linked(text, vocab("Sentiment Analysis", "sentiment analysis"), vocab("Geodesic Distance", "geodesic distances")
                  ) == {"Geodesic Distance"}


def test_a_task_the_abstract_is_about_stays_when_also_evaluated_on():
    text = ("Surface parameterization maps a mesh to the plane. "
            "Experiments on surface parameterization demonstrate its benefits.")
    assert linked(text, vocab("Surface Parameterization", "surface parameterization")) == {"Surface Parameterization"}


def test_results_are_reported_on_what_is_not_the_topic():
    text = ("We propose a sparse attention kernel that shrinks the KV cache. Our kernel improves accuracy on "
            "image classification, with less KV cache memory.")
    assert linked(text, vocab("Image Classification", "image classification"),
                  vocab("KV Cache", "KV cache"), vocab("Sparse Attention", "sparse attention")
                  ) == {"Sparse Attention", "KV Cache"}  # what the method reduces is what it is about


def test_a_contrast_against_is_a_contrast():
    text = "We contrast it against binary cross entropy and show it is robust to noise."
    assert linked(text, vocab("Binary Cross Entropy", "binary cross entropy")) == set()


def test_a_plugins_own_kind_is_left_alone():
    mention = ConceptMention("ImageNet", "dataset", ("ImageNet",))
    assert linked("We evaluate without ImageNet.", mention) == {"ImageNet"}


ENTRIES = parse_vocabulary("""
Model Calibration | calibration | confidence calibration > Uncertainty Quantification ? uncertainty, confidence, probabilit
Gated Recurrent Units | GRU | GRUs > Recurrent Neural Networks ? recurrent, rnn, lstm
Electroencephalography | EEG > Neuroscience
""")


def sensed(text: str) -> set[str]:
    vocabulary = Vocabulary(ENTRIES)
    return {m.entry.name for m in in_sense(vocabulary.match(text), text)}


def test_an_ambiguous_word_links_only_where_the_text_carries_its_sense():
    assert sensed("A calibration environment for geometric estimators of camera pose.") == set()
    assert sensed("Calibration of classifier confidence under shift.") == {"Model Calibration"}
    assert sensed("We improve confidence calibration of detectors.") == {"Model Calibration"}


def test_the_sense_must_show_near_the_mention_not_anywhere_in_the_abstract():
    far = ("We study classifier confidence and its uncertainty under distribution shift. "
           + "The method is then deployed on many devices across a large and varied fleet of machines. " * 3
           + "Each device keeps a calibration set of images for conformal scores.")
    assert sensed(far) == set()


def test_an_acronym_with_cues_needs_its_sense():
    assert sensed("Our text-memory agent opens GRU gates keyed by tool calls.") == set()
    assert sensed("A GRU encoder for recurrent sequence modelling.") == {"Gated Recurrent Units"}


def test_an_unambiguous_acronym_needs_no_cue():
    assert sensed("EEG recordings during reading.") == {"Electroencephalography"}


@pytest.mark.parametrize("phrase", [
    "Broad Class", "Last Token", "Percentage Points", "Sample Size", "Dataset Size", "Global Context",
    "Visual Inputs", "Task Difficulty", "High-Resource", "State-of-the-Art", "Attack Success Rate",
    "Valuable Insights", "Data Distribution", "Drawing Inspiration", "Zhao Et", "Biological Plausibility",
    "Sample Embeddings", "Input Features",
])
def test_generic_phrasing_is_never_a_concept_by_statistics_alone(phrase):
    assert not names_a_thing(phrase)


@pytest.mark.parametrize("phrase", ["Wasserstein Barycenter", "Covariance Matrix", "Euclidean Space",
                                    "Sample Covariance Matrix"])
def test_a_phrase_of_the_fields_own_words_is(phrase):
    assert names_a_thing(phrase)


@pytest.mark.parametrize("text, surface", [
    ("Existing methods such as LoRA tune all layers; we tune none.", "LoRA"),
    ("In the absence of positional encoding, spiking self-attention fails.", "self-attention"),
    ("Our model matches larger models such as GPT-4, Gemini Pro, and Phi-3.", "GPT-4"),
])
def test_prior_work_and_examples_named_in_passing_are_not_links(text, surface):
    assert linked(text, vocab("X", surface)) == set()


def test_a_name_inside_a_longer_name_is_not_that_concept():
    entries = parse_vocabulary("Flamingo > Vision-Language Models\nGenerative Adversarial Networks | GAN\n"
                               "Large Language Models | LLM | LLMs")
    vocabulary = Vocabulary(entries)

    def found(text):
        return {m.entry.name for m in in_sense(vocabulary.match(text), text)}

    assert found("We introduce Audio Flamingo 2, an audio-language model.") == set()
    assert found("Graphon Attachment Network Models (GAN-M) grow graphs.") == set()
    assert found("Flamingo and GANs are compared; LLM-based agents help.") == {
        "Flamingo", "Generative Adversarial Networks", "Large Language Models"}


def test_a_named_model_or_dataset_named_once_is_in_passing():
    assert linked("We also fine-tune LLaMA-2 with our objective.", vocab("LLaMA", "LLaMA-2")) == set()
    assert linked("We adapt LLaMA-2 to proofs; LLaMA-2 then writes Lean.", vocab("LLaMA", "LLaMA-2")) == {"LLaMA"}
    assert linked("We study pre-training of routers.", vocab("Pre-Training", "pre-training")) == {"Pre-Training"}


def test_a_list_of_examples_is_one_scope_to_its_last_item():
    text = ("Reasoning is hard. We evaluate on benchmarks such as GSM8K, MATH, and HumanEval, and we find "
            "that chain-of-thought helps.")
    found = linked(text, vocab("GSM8K", "GSM8K", ("Benchmarks",)), vocab("HumanEval", "HumanEval", ("Benchmarks",)),
                   vocab("Chain-of-Thought", "chain-of-thought"))
    assert found == {"Chain-of-Thought"}


def test_an_acronym_in_parentheses_stays_in_the_scope_of_its_long_form():
    text = ("Existing approaches such as knowledge tracing (KT) simplify the structure. "
            "We propose cognitive structure generation.")
    mention = ConceptMention("Knowledge Tracing", "vocabulary", ("knowledge tracing", "KT"), (), 1.0, (), True)
    assert linked(text, mention) == set()


def test_a_sentence_about_prior_work_is_a_contrast_to_its_end():
    text = ("Speculative decoding accelerates inference. Previous methods either adopt a fixed configuration "
            "regardless of the prefix tokens, or train draft models in an offline manner. We propose a "
            "training-free speculative decoding method.")
    found = linked(text, vocab("Draft Models", "draft models"), vocab("Speculative Decoding", "speculative decoding"))
    assert found == {"Speculative Decoding"}
    # ... but prior work named mid-sentence reaches only its clause
    text = "We extend existing methods to graphs, and study draft models in depth."
    assert linked(text, vocab("Draft Models", "draft models")) == {"Draft Models"}


def test_examples_after_like_and_inspiration_are_not_the_topic():
    text = ("Flow matching models generate data on domains like images or 3D point clouds. Drawing inspiration "
            "from implicit neural representations, we introduce a point-wise objective.")
    found = linked(text, vocab("Point Clouds", "point clouds"), vocab("Flow Matching", "flow matching"),
                   vocab("Implicit Neural Representations", "implicit neural representations"))
    assert found == {"Flow Matching"}
    assert linked("We would like graph neural networks to scale.", vocab("GNN", "graph neural networks")) == {"GNN"}


def topics(text: str, *mentions: ConceptMention, own: tuple[str, ...] = ()) -> set[str]:
    return {m.name for m in salient(text, Extraction(mentions), own).concepts}


def test_a_concept_named_once_in_passing_is_not_a_topic():
    text = ("Diffusion models generate images. Prior art relies on large datasets. Classifier-free guidance "
            "is common, and Markov chains appear in samplers. We propose a guidance schedule for diffusion models "
            "that uses classifier-free guidance.")
    found = topics(text, vocab("Diffusion Models", "diffusion models"), vocab("Markov Chains", "Markov chains"),
                   vocab("Classifier-Free Guidance", "classifier-free guidance"))
    # named twice, or in the opening sentence, or where the authors speak: the paper's topics
    assert found == {"Diffusion Models", "Classifier-Free Guidance"}
    assert topics("Markov chains mix slowly. We bound the mixing time.", vocab("Markov Chains", "Markov chains")) \
        == {"Markov Chains"}


def test_a_sentence_about_the_papers_own_method_tells_its_topics():
    text = "Confidence matters. RCA calibrates epistemic uncertainty on the simplex. Results are strong."
    mention = vocab("Epistemic Uncertainty", "epistemic uncertainty")
    assert topics(text, mention) == set()
    assert topics(text, mention, own=("RCA",)) == {"Epistemic Uncertainty"}


def test_a_sentence_reporting_results_in_figures_names_no_topic():
    text = ("We propose a KV cache compressor. On GSM8K, it keeps 95% of the accuracy with a fifth of the "
            "memory, and reduces perplexity by 2.5 points.")
    found = linked(text, vocab("GSM8K", "GSM8K", ("Benchmarks",)), vocab("Perplexity", "perplexity"),
                   vocab("KV Cache", "KV cache"))
    assert found == {"KV Cache"}


def test_comparing_with_and_motivated_by_set_a_concept_aside():
    text = ("Motivated by research on blind image denoising, we study noise-free diffusion. "
            "We train models at scale, comparing with Mamba, a recurrent network.")
    found = linked(text, vocab("Image Denoising", "image denoising"), vocab("Mamba", "Mamba"))
    assert found == set()


def test_a_named_model_is_a_topic_only_when_the_abstract_opens_with_it():
    llama = ConceptMention("LLaMA", "vocabulary", ("Llama-3",), (), 1.0, (), True)
    ran_on = "Latent actions steer language models. We apply CoLA to the Llama-3 model and to Llama-3 variants."
    assert topics(ran_on, llama) == set()
    about = "Llama-3 is an open family of language models. We study how Llama-3 memorises its data."
    assert topics(about, llama) == {"LLaMA"}


def test_examples_after_e_g_are_in_scope_past_its_own_full_stop():
    text = "Common objectives (e.g., hinge loss and focal loss) ignore the margin. We propose a margin loss."
    assert linked(text, vocab("Focal Loss", "focal loss"), vocab("Hinge Loss", "hinge loss")) == set()
    text = "We shape rewards, e.g. with potential functions. Potential functions need tuning."
    assert linked(text, vocab("Potential Functions", "potential functions")) == {"Potential Functions"}


def test_a_percentage_written_in_latex_is_a_figure_of_a_results_sentence():
    text = ("We propose a spiking forecaster. It attains a $2.4\\%$ lower mean absolute error than baselines "
            "while using $3.1\\times$ less energy.")
    assert linked(text, vocab("Mean Absolute Error", "mean absolute error")) == set()


def test_where_a_field_has_applications_or_promise_is_an_example_not_the_topic():
    text = ("Online matching has broad applications in ride hailing and ad auctions. Kernel methods have shown "
            "promise in protein folding. We give a primal-dual algorithm for online matching.")
    found = linked(text, vocab("Ad Auctions", "ad auctions"), vocab("Protein Folding", "protein folding"),
                   vocab("Online Matching", "online matching"))
    assert found == {"Online Matching"}


def test_an_application_of_the_authors_own_or_progress_as_a_subject_stays():
    text = "We propose a fusion layer for sensors, with applications in handling missing modalities."
    assert linked(text, vocab("Missing Modalities", "missing modalities")) == {"Missing Modalities"}
    text = "Progress in job shop scheduling is slow. Success. In job shop scheduling, we route jobs."
    assert linked(text, vocab("Job Shop Scheduling", "job shop scheduling")) == {"Job Shop Scheduling"}


def test_a_list_of_regimes_or_domains_a_method_is_tested_in_is_evaluation():
    text = ("We propose a probe. We test it in three regimes: label noise, class imbalance, and covariate shift. "
            "A judge is scored in two domains (code generation and theorem proving, both hard).")
    found = linked(text, vocab("Label Noise", "label noise"), vocab("Covariate Shift", "covariate shift"),
                   vocab("Code Generation", "code generation"))
    assert found == set()
    # ... not an acronym in parentheses, nor a clause after a colon
    text = "We solve many tasks (MTL). Our aim in these settings: we learn covariate shift robustly."
    assert linked(text, vocab("Multi-Task Learning", "MTL"), vocab("Covariate Shift", "covariate shift")
                  ) == {"Multi-Task Learning", "Covariate Shift"}


def test_what_a_method_is_simulated_or_tested_in_is_evaluation():
    text = ("We bound the error of score matching. Simulations on Gaussian mixture models confirm the rate. "
            "We evaluate the planner in a model predictive control setting.")
    found = linked(text, vocab("Gaussian Mixture Models", "Gaussian mixture models"),
                   vocab("Model Predictive Control", "model predictive control"), vocab("Score Matching", "score matching"))
    assert found == {"Score Matching"}
    # ... but a result `in` a setting is not a test in it
    text = "We propose a planner. Its performance in model predictive control is what we study."
    assert linked(text, vocab("Model Predictive Control", "model predictive control")) == {"Model Predictive Control"}


def test_what_a_method_falls_short_of_or_lags_behind_is_a_contrast():
    text = ("Adapters are cheap, but their accuracy falls short of full fine-tuning. Pruned models lag behind "
            "knowledge distillation. We propose mixtures of adapters.")
    found = linked(text, vocab("Full Fine-Tuning", "full fine-tuning"), vocab("Adapters", "adapters"),
                   vocab("Knowledge Distillation", "knowledge distillation"))
    assert found == {"Adapters"}


def test_an_acronym_the_abstract_defines_as_something_else_is_not_the_entry():
    entries = parse_vocabulary("Deep Reinforcement Learning | deep RL | DRL\n"
                               "Message Passing Neural Networks | MPNNs\n")
    vocabulary = Vocabulary(entries)
    def found(text):
        return {m.entry.name for m in in_sense(vocabulary.match(text), text)}
    assert found("We build on distributional reinforcement learning (DRL) to curb overestimation; DRL helps.") == set()
    assert found("We scale deep reinforcement learning (DRL) agents; DRL is costly.") == {
        "Deep Reinforcement Learning"}
    assert found("The power of message-passing graph neural networks (MPNNs) is known.") == {
        "Message Passing Neural Networks"}


def test_a_metric_value_or_a_change_from_one_value_to_another_is_a_figure_of_a_results_sentence():
    text = ("We propose a noise-free sampler. It achieves a Frechet inception distance of 2.23 on small images. "
            "It also reduces the error on the fold test set from 5.52 to 2.36.")
    found = linked(text, vocab("Frechet Inception Distance", "Frechet inception distance"),
                   vocab("Fold Test Set", "fold test set"))
    assert found == set()
    # ... not a size (`a corpus of 1.5 billion tokens`)
    text = "We propose a tokenizer. It improves a corpus of 1.5 billion tokens for protein folding."
    assert linked(text, vocab("Protein Folding", "protein folding")) == {"Protein Folding"}


def test_what_a_method_is_better_than_or_competitive_with_is_a_contrast_up_to_where_it_is_measured():
    text = ("We propose a judge model. Judges are competitive with outcome reward models in reranking, "
            "and worse than process reward models in beam search.")
    found = linked(text, vocab("Outcome Reward Models", "outcome reward models"), vocab("Reranking", "reranking"),
                   vocab("Process Reward Models", "process reward models"), vocab("Beam Search", "beam search"))
    assert found == {"Reranking", "Beam Search"}


def test_a_percentage_after_a_closing_dollar_and_results_that_preserve_or_degrade_are_figures():
    text = ("We compress agents. Quantization preserves tool use (a $3$% drop) but degrades planning. "
            "Search boosts puzzle solving from $<7$% to $90$%.")
    assert linked(text, vocab("Tool Use", "tool use"), vocab("Puzzle Solving", "puzzle solving")) == set()


def test_an_evaluation_that_opens_a_list_after_a_colon_reaches_to_the_full_stop():
    text = ("We propose domain weights. In experiments, we show gains over three scenarios: (i) lower "
            "perplexity on web text; (ii) better few-shot reasoning; (iii) stable data mixing laws.")
    found = linked(text, vocab("Perplexity", "perplexity"), vocab("Data Mixing Laws", "data mixing laws"),
                   vocab("Few-Shot Learning", "few-shot"))
    assert found == set()


def test_a_metric_named_once_is_what_a_result_is_measured_in():
    text = "We propose a patch attack. We show it raises the attack success rate of hat-borne lasers."
    metric = vocab("Attack Success Rate", "attack success rate", ("Evaluation Metrics", "Adversarial Attacks"))
    assert topics(text, metric) == set()
    text = "We study the attack success rate. The attack success rate grows with compute."
    assert topics(text, metric) == {"Attack Success Rate"}


def test_what_a_method_bypasses_or_is_compared_to_is_a_contrast():
    text = "Our learner bypasses explicit reward engineering. We compare it to behaviour cloning on robots."
    found = linked(text, vocab("Reward Shaping", "reward engineering"), vocab("Behavior Cloning", "behaviour cloning"))
    assert found == set()
    # ... but circumventing a curse is what the paper is about
    text = "In practice the rank is small, circumventing the curse of dimensionality."
    assert linked(text, vocab("Curse of Dimensionality", "curse of dimensionality")) == {"Curse of Dimensionality"}


def test_a_counted_set_of_tasks_listed_after_a_comma_is_evaluation():
    text = "We slim fine-tuning. It stays competitive on three downstream tasks, visual question answering, NLVR and retrieval."
    assert linked(text, vocab("Visual Question Answering", "visual question answering")) == set()
    text = "We study tasks, visual question answering above all, and we propose a solver."
    assert linked(text, vocab("Visual Question Answering", "visual question answering")) == {"Visual Question Answering"}


def test_a_list_named_before_a_set_noun_where_the_method_is_tested_is_evaluation():
    text = ("We propose a robust process. Experiments demonstrate it in finance and weather forecasting "
            "applications. We train agents on long audio captioning and question answering tasks.")
    found = linked(text, vocab("Weather Forecasting", "weather forecasting"), vocab("Audio Captioning", "audio captioning"))
    assert found == {"Audio Captioning"}


def test_what_the_abstract_says_falls_short_alone_is_a_contrast():
    text = ("With chain-of-thought prompting alone, language models struggle to plan. Retrieval alone is "
            "insufficient too. We propose a search procedure over plans.")
    found = linked(text, vocab("Chain-of-Thought", "chain-of-thought prompting"), vocab("Retrieval", "retrieval"))
    assert found == set()
    text = "Retrieval alone helps: we propose a retrieval index."
    assert linked(text, vocab("Retrieval", "retrieval")) == {"Retrieval"}
