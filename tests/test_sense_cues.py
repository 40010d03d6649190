"""Sense cues of the shipped vocabulary's ambiguous entries, on sentences
written for them (a generic spelling links only where the text carries the entry's sense)."""

from __future__ import annotations

import pytest

from vaultsync.default_plugins.senses import in_sense
from vaultsync.default_plugins.vocabulary import Vocabulary
from vaultsync.default_plugins.vocabulary_format import parse_vocabulary
from vaultsync.word_lists import DATA

NAMES = ("Algorithmic Fairness", "Learnability", "Oracle Complexity", "Plug-and-Play Priors",
         "Non-Asymptotic Analysis", "Linguistic Probing", "Prompt Engineering",
         "Affordance Learning", "Disentangled Representation Learning", "Fine-Grained Visual Recognition",
         "Graph Classification", "Graph Matching", "Empirical Risk Minimization", "LLM Agents",
         "Training Instability", "Visual Tokenization for MLLMs", "Reward Shaping",
         "Knowledge Conflicts", "Bayesian Networks", "Dynamic Graph Learning", "Latent Variable Models",
         "Conditional Independence", "Sentence Embeddings", "Patch Embedding", "Flow Matching")


@pytest.fixture
def sensed(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path))
    entries = [e for e in parse_vocabulary((DATA / "vocabulary.txt").read_text("utf-8"), "vocabulary.txt")
               if e.name in NAMES]
    vocabulary = Vocabulary(entries, merge=False)
    return lambda text: {m.entry.name for m in in_sense(vocabulary.match(text), text)}


@pytest.mark.parametrize("text", [
    "Random consistency biases Euclidean distances, affecting both fairness and discrimination of metrics.",
    "We prove the method is statistically learnable with a bound via the Orlicz norm.",
    "We establish the convergence rate and iteration complexity of the damped Hessian method.",
    "We propose a plug-and-play method that regularises learned representations.",
    "Conformal prediction gives prediction sets with finite-sample guarantees under exchangeability.",
    "We find two biases of agent evaluators through carefully designed probing tasks.",
    "Standard prompting and decoding do not yield goal-directed agents.",
    "We compare the affordances of generative AI and social media to inform their regulation.",
    "Two learners allow task-wise commonality and personality disentanglement across city traffic.",
    "The detector combines fine-grained classification of anomalies in surveillance clips with explanations.",
    # a looser name is not the narrower concept: property prediction, similarity, the risk itself,
    # any AI agent, a stability goal, the tokens an MLLM reads
    "We fine-tune the model for graph property prediction and extend graph similarity theory.",
    "We bound the empirical risk discrepancy between student and teacher.",
    "Reasoning over sounds is crucial for humans and AI agents alike.",
    "A resampling strategy enhances training stability.",
    "We compress visual tokens within each clip.",
    "Reward design in reinforcement learning is challenging.",
    # a name in another field's sense: conflicts between task vectors, networks of infinite width,
    # graphs that change in a causal model, latent variables of a causal graph, an objective's
    # property, embeddings of any text
    "Summing task vectors in model merging suffers from knowledge conflicts between tasks.",
    "We study the infinite-width limit of feature-learning Bayesian networks and their kernels.",
    "Our causal discovery method models dynamic graphs as a superposition of static ones.",
    "An ancestral graph describes causal relations among observed variables in the presence of latent variables.",
    "We introduce a conditionally independent point-wise training objective for the flow model.",
    "We train a sparse autoencoder on text embeddings of headlines.",
    "A language model reads aggregated patch embeddings of continuous speech frames.",
    # a GFlowNet's flow-matching objective, not flow matching of a generative model's velocity field
    "Training GFlowNets on continuous spaces makes the flow matching objective intractable.",
])
def test_a_generic_spelling_without_the_entrys_sense_is_not_the_entry(sensed, text):
    assert sensed(text) == set()


@pytest.mark.parametrize("text, name", [
    ("We study fairness across demographic groups and enforce parity.", "Algorithmic Fairness"),
    ("The learner seeks fair decisions under a causal notion of fairness.", "Algorithmic Fairness"),
    ("We characterise the learnability of hypothesis classes in the PAC model.", "Learnability"),
    ("A lower bound on the iteration complexity of first-order methods with a gradient oracle.",
     "Oracle Complexity"),
    ("A plug-and-play method that uses a learned denoiser for inverse problems.", "Plug-and-Play Priors"),
    ("Finite-sample guarantees hold with high probability via concentration.", "Non-Asymptotic Analysis"),
    ("Probing tasks on hidden states reveal syntactic knowledge in the layers.", "Linguistic Probing"),
    ("We introduce a training-free prompting strategy against mode collapse.", "Prompt Engineering"),
    ("Handcrafted prompting templates are brittle.", "Prompt Engineering"),
    ("We predict the affordances of objects a robot can grasp.", "Affordance Learning"),
    ("A VAE whose latent disentanglement separates the factors of variation.", "Disentangled Representation Learning"),
    ("Fine-grained classification of bird species in images.", "Fine-Grained Visual Recognition"),
    ("Retrieved passages contradict parametric memory: we resolve knowledge conflicts in LLMs.",
     "Knowledge Conflicts"),
    ("We learn the structure of Bayesian networks from observational data.", "Bayesian Networks"),
    ("A graph neural network predicts links on dynamic graphs from edge streams.", "Dynamic Graph Learning"),
    ("We maximise the evidence lower bound over latent variables with an amortised posterior.",
     "Latent Variable Models"),
    ("We introduce a latent variable model for feature acquisition.", "Latent Variable Models"),
    ("The variables are conditionally independent given their parents in the causal graph.",
     "Conditional Independence"),
    ("The encoder splits each image into patch embeddings.", "Patch Embedding"),
    ("We train the image generator with flow matching along straight probability paths.", "Flow Matching"),
])
def test_the_entry_links_where_its_sense_shows(sensed, text, name):
    assert sensed(text) == {name}


def test_the_second_part_of_a_hyphenated_compound_is_not_the_concept(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path))
    entries = parse_vocabulary("Structured Pruning\nNormalizing Flows | flow-based models\n", "v.txt")
    vocabulary = Vocabulary(entries, merge=False)
    def found(text):
        return {m.entry.name for m in in_sense(vocabulary.match(text), text)}
    assert found("It matches semi-structured pruning and rectified-flow-based models.") == set()
    assert found("We study structured pruning of flow-based models.") == {"Structured Pruning", "Normalizing Flows"}
    assert found("Image-to-flow-based models are pruned.") == {"Normalizing Flows"}  # (`X-to-Y`: a kind of Y)


@pytest.mark.parametrize("text, name", [
    ("A module generates pseudo-labels for the samples of the current phase.", "Pseudo-Labeling"),
    ("We propose a deep graph clustering method for attribute-missing graphs.", "Graph Clustering"),
    ("We study community detection in social networks by maximising modularity.", "Community Detection"),
    ("We cast recommendation as matrix completion with set-dependent rows.", "Matrix Completion"),
    ("We recover the missing entries by low-rank matrix completion.", "Low-Rank Matrix Completion"),
])
def test_a_looser_name_is_its_own_concept_not_a_narrower_ones(tmp_path, monkeypatch, text, name):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path))
    wanted = {"Pseudo-Labeling", "Self-Training", "Graph Clustering", "Community Detection", "Matrix Completion",
              "Low-Rank Matrix Completion"}
    entries = [e for e in parse_vocabulary((DATA / "vocabulary.txt").read_text("utf-8"), "vocabulary.txt")
               if e.name in wanted]
    vocabulary = Vocabulary(entries, merge=False)
    assert {m.entry.name for m in in_sense(vocabulary.match(text), text)} == {name}
