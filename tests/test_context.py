"""Context decides a link: negated, contrasted and evaluation-only mentions are not what a paper is
about; ambiguous vocabulary needs its sense; corpus statistics promote only phrases that name a thing."""

from __future__ import annotations

import pytest

from vaultsync.context import in_context
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


def test_a_task_the_method_is_evaluated_on_stays_a_concept():
    text = "Experiments on surface parameterization and shape recognition demonstrate its benefits."
    assert linked(text, vocab("Surface Parameterization", "surface parameterization")) == {"Surface Parameterization"}


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


def test_an_acronym_with_cues_needs_its_sense():
    assert sensed("Our text-memory agent opens GRU gates keyed by tool calls.") == set()
    assert sensed("A GRU encoder for recurrent sequence modelling.") == {"Gated Recurrent Units"}


def test_an_unambiguous_acronym_needs_no_cue():
    assert sensed("EEG recordings during reading.") == {"Electroencephalography"}


@pytest.mark.parametrize("phrase", [
    "Broad Class", "Last Token", "Percentage Points", "Sample Size", "Dataset Size", "Global Context",
    "Visual Inputs", "Task Difficulty", "High-Resource", "State-of-the-Art", "Attack Success Rate",
    "Valuable Insights", "Data Distribution", "Drawing Inspiration", "Zhao Et", "Biological Plausibility",
])
def test_generic_phrasing_is_never_a_concept_by_statistics_alone(phrase):
    assert not names_a_thing(phrase)


@pytest.mark.parametrize("phrase", ["Wasserstein Barycenter", "Covariance Matrix", "Euclidean Space"])
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
