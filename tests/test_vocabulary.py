"""The curated vocabulary extractor: what a user relies on when concepts are found in abstracts."""

from __future__ import annotations

import collections

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultsync.default_plugins import vocabulary as vocab
from vaultsync.default_plugins import vocabulary_automata, vocabulary_format
from vaultsync.default_plugins.vocabulary import Vocabulary, vaultsync_extract
from vaultsync.default_plugins.vocabulary_format import (
    DATA_FILE,
    VocabularyEntry,
    entry_key,
    is_acronym,
    is_short_acronym,
    parse_vocabulary,
)
from vaultsync.errors import VaultsyncError
from vaultsync.canonical import concept_key
from vaultsync.records import Abstract, Collection, ExtractContext, TaughtConcept

SHIPPED = parse_vocabulary(DATA_FILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    return Vocabulary.load()


def names(vocabulary: Vocabulary, text: str) -> list[str]:
    return [m.entry.name for m in vocabulary.match(text)]


def abstract(text: str) -> Abstract:
    return Abstract(text=text, seed="s.txt", paragraph=1, line=1, collection=Collection("Test"))


# --- the shipped data file ------------------------------------------------------------------


def test_the_shipped_vocabulary_is_broad():
    assert len(SHIPPED) > 1000


def test_no_two_shipped_entries_share_a_name():
    owners = collections.defaultdict(set)
    for entry in SHIPPED:
        for name in entry.names:
            owners[entry_key(name)].add(entry.name)
    shared = {key: sorted(entries) for key, entries in owners.items() if len(entries) > 1}
    assert shared == {}


def test_no_name_of_one_entry_folds_to_a_name_of_another():
    # the host folds mentions by ``concept_key``, which ignores case: `PLM` and `pLM` would merge
    owners = collections.defaultdict(set)
    for entry in SHIPPED:
        for name in entry.names:
            owners[concept_key(name)].add(entry.name)
    assert {key: sorted(names) for key, names in owners.items() if len(names) > 1} == {}


def test_every_broader_link_names_an_existing_entry():
    known = {entry_key(e.name) for e in SHIPPED}
    dangling = [(e.name, b) for e in SHIPPED for b in e.broader if entry_key(b) not in known]
    assert dangling == []


def test_broader_links_use_the_canonical_name_as_written():
    # the shipped list loads without merging, so a broader link must be the exact canonical name
    canonical = {e.name for e in SHIPPED}
    assert [(e.name, b) for e in SHIPPED for b in e.broader if b not in canonical] == []


def test_no_entry_is_its_own_broader_concept():
    assert [e.name for e in SHIPPED if entry_key(e.name) in {entry_key(b) for b in e.broader}] == []


def test_hub_words_that_say_nothing_are_not_entries():
    keys = {entry_key(n) for e in SHIPPED for n in e.names}
    for generic in ("Machine Learning", "Deep Learning", "Neural Networks", "Performance", "Accuracy",
                    "Model", "Data", "Experiments", "Attention", "Optimization", "Embeddings"):
        assert entry_key(generic) not in keys, generic


def test_no_case_insensitive_one_word_name_is_a_common_english_word():
    """A name like "Fashion" would link every "in a principled fashion" to a concept."""
    wordfreq = pytest.importorskip("wordfreq")
    common = [
        n for e in SHIPPED for n in e.names
        if not is_acronym(n) and " " not in n and "-" not in n
        and wordfreq.zipf_frequency(n.lower(), "en") >= 4.7 and n != "Pass@k"  # wordfreq reads "pass"
    ]
    assert common == []


def test_a_malformed_line_is_reported_with_its_line_number():
    with pytest.raises(VaultsyncError, match="extra.txt line 3"):
        parse_vocabulary("# header\nGood Entry | alias\nBad Entry | | empty alias\n", "extra.txt")


def test_the_format_reads_names_aliases_and_broader_concepts():
    [entry] = parse_vocabulary("Foo Bar | FB | foo-bar thing > Baz ; Qux\n")
    assert entry == VocabularyEntry("Foo Bar", ("FB", "foo-bar thing"), ("Baz", "Qux"), entry.origin)


# --- matching -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "We train a mixture of experts.",
    "We train a Mixture-of-Experts model.",
    "We train mixtures of experts.",
    "We train a MIXTURE OF EXPERTS.",
    "We train a mixture\u2010of\u2010experts.",
    "We train a mixture  of experts.",
])
def test_case_hyphen_space_and_plural_variants_find_the_same_entry(vocabulary, text):
    assert names(vocabulary, text) == ["Mixture of Experts"]


@pytest.mark.parametrize("text, name", [
    ("Bayesian optimisation of hyperparameters", "Bayesian Optimization"),
    ("a behaviour cloning baseline", "Behavior Cloning"),
    ("tumour segmentation in MRI scans", "Tumor Segmentation"),
    ("self-supervised pretraining", "Self-Supervised Learning"),
    ("graph neural network", "Graph Neural Networks"),
])
def test_british_spellings_closed_prefixes_and_singulars_match(vocabulary, text, name):
    assert name in names(vocabulary, text)


def test_acronyms_match_case_sensitively(vocabulary):
    assert names(vocabulary, "A sparse MoE layer.") == ["Mixture of Experts"]
    assert names(vocabulary, "The moe layer and a Moe.") == []
    assert names(vocabulary, "LLMs and an LLM and LLM's outputs.") == ["Large Language Models"] * 3
    assert "CLIP" not in names(vocabulary, "clip the text encoder")


def test_a_two_letter_acronym_counts_only_where_its_entry_is_named_another_way(vocabulary):
    assert is_short_acronym("OT") and is_short_acronym("LMs") and not is_short_acronym("LLM")
    assert names(vocabulary, "We bound the OT cost.") == []
    assert names(vocabulary, "Optimal transport (OT) aligns them; OT is cheap.") == ["Optimal Transport"] * 3
    assert names(vocabulary, "An LP solver and a KD loss.") == []
    assert names(vocabulary, "Linear programming: each LP is small.") == ["Linear Programming"] * 2


def test_rl_is_unambiguous_enough_to_count_alone(vocabulary):
    assert names(vocabulary, "We fine-tune with RL.") == ["Reinforcement Learning"]


def test_english_words_in_capitals_are_not_taken_for_acronyms(vocabulary):
    assert names(vocabulary, "The IT department said it is AND or OR.") == []


def test_acronyms_do_not_match_inside_longer_words(vocabulary):
    assert names(vocabulary, "GANs and GANGLIA and OrGAN") == ["Generative Adversarial Networks"]


def test_the_longest_match_wins(vocabulary):
    found = vocabulary.match("Multimodal large language models are evaluated.")
    assert [(m.entry.name, m.surface) for m in found] == [
        ("Multimodal Large Language Models", "Multimodal large language models")
    ]


def test_broader_concepts_come_with_the_entry(vocabulary):
    [match] = vocabulary.match("multimodal large language models")
    assert "Large Language Models" in match.entry.broader


def test_matches_sit_on_word_boundaries(vocabulary):
    assert names(vocabulary, "transformersx and pretransformer") == []


def test_nothing_matches_inside_math(vocabulary):
    assert names(vocabulary, r"We bound $\mathrm{transformer}(x)$ and $$ diffusion models $$.") == []
    assert names(vocabulary, r"With $x$ we train diffusion models.") == ["Diffusion Models"]


def test_nothing_matches_inside_urls(vocabulary):
    text = "Code: https://github.com/org/diffusion-models and www.example.org/transformers here."
    assert names(vocabulary, text) == []


def test_surfaces_are_exact_slices_of_the_input(vocabulary):
    text = "Using  Large\u2013Language   Models (LLMs) with Graph-Neural-Networks."
    found = vocabulary.match(text)
    assert [m.surface for m in found] == ["Large\u2013Language   Models", "LLMs", "Graph-Neural-Networks"]
    assert all(text[m.start:m.end] == m.surface for m in found)


def test_matches_come_in_text_order(vocabulary):
    found = vocabulary.match("Diffusion models beat GANs; transformers help diffusion models.")
    assert [m.start for m in found] == sorted(m.start for m in found)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("aeLMsoE -–—$/:.()'İ\u00a0ß") + [
    "LLM", "mixture", "of", "experts", "https://", "diffusion", "models", "  "]), max_size=40).map("".join))
def test_match_never_raises_and_surfaces_are_slices(text):
    for m in Vocabulary.load().match(text):
        assert text[m.start:m.end] == m.surface
        assert m.surface.strip() == m.surface and m.surface


# --- the user's vault teaches it ---------------------------------------------------------------


def test_a_taught_concept_adds_a_concept_and_its_aliases():
    vocabulary = Vocabulary.with_taught((TaughtConcept("Quokka Networks", ("QkN", "quokka nets")),))
    assert names(vocabulary, "We use QkN, i.e. Quokka-Networks, and quokka nets.") == ["Quokka Networks"] * 3
    assert names(vocabulary, "diffusion models") == ["Diffusion Models"]  # the shipped list stays


def test_a_taught_concept_can_name_broader_concepts():
    vocabulary = Vocabulary.with_taught((TaughtConcept("Quokka Networks", broader=("Diffusion Models",)),))
    [match] = vocabulary.match("quokka networks")
    assert match.entry.broader == ("Diffusion Models",)


def test_the_users_name_wins_over_the_shipped_name_of_the_same_concept():
    vocabulary = Vocabulary.with_taught((TaughtConcept("LLM", ("big LMs",)),))
    assert names(vocabulary, "large language models and big LMs") == ["LLM", "LLM"]
    assert "Large Language Models" in vocabulary.entry("LLM").aliases  # the shipped names merge in
    assert vocabulary.entry("Multimodal Large Language Models").broader[0] == "LLM"


def test_a_taught_alias_merges_with_the_shipped_entry_it_names():
    vocabulary = Vocabulary.with_taught((TaughtConcept("Wombat Transport", ("optimal transport",)),))
    assert names(vocabulary, "optimal transport and wombat transport") == ["Wombat Transport"] * 2
    assert vocabulary.entry("OT").name == "Wombat Transport"


def test_blank_taught_names_and_aliases_are_ignored():
    vocabulary = Vocabulary.with_taught((TaughtConcept("  "), TaughtConcept("Wombat Learning", ("", " "))))
    assert names(vocabulary, "wombat learning") == ["Wombat Learning"]


def test_the_taught_vocabulary_is_cached_on_what_was_taught():
    taught = (TaughtConcept("Alpha Concept"),)
    first = Vocabulary.with_taught(taught)
    assert Vocabulary.with_taught((TaughtConcept("Alpha Concept"),)) is first
    later = Vocabulary.with_taught((*taught, TaughtConcept("Beta Concept")))
    assert later is not first and names(later, "beta concept") == ["Beta Concept"]


def test_nothing_taught_uses_the_shipped_list():
    assert Vocabulary.with_taught(()) is Vocabulary.load()


# --- the hook -------------------------------------------------------------------------------------


def test_the_hook_returns_one_canonical_mention_per_concept(tmp_path):
    text = "Large language models (LLMs) beat smaller LLMs; diffusion models too."
    extraction = vaultsync_extract(abstract(text), ExtractContext(vault=str(tmp_path)))
    llm, diffusion = extraction.concepts
    assert (llm.name, llm.kind, llm.canonical, llm.score) == ("Large Language Models", "vocabulary", True, 3.0)
    assert llm.surfaces == ("Large language models", "LLMs")
    assert "LLM" in llm.aliases and llm.broader == ("Language Models",)
    assert diffusion.name == "Diffusion Models"


def test_the_hook_learns_from_the_taught_concepts_not_the_vault_folder(tmp_path):
    (tmp_path / "Concepts").mkdir()
    (tmp_path / "Concepts" / "Numbat Nets.md").write_text("---\ntitle: Numbat Nets\n---\n", encoding="utf-8")
    text = "Numbat nets and wombat nets."
    context = ExtractContext(vault=str(tmp_path), taught=(TaughtConcept("Wombat Nets"),))
    assert [m.name for m in vaultsync_extract(abstract(text), context).concepts] == ["Wombat Nets"]


def test_the_hook_can_be_disabled():
    context = ExtractContext(config={"vocabulary": {"enabled": False}})
    assert vaultsync_extract(abstract("diffusion models"), context) is None


def test_the_hook_returns_none_when_nothing_is_found():
    assert vaultsync_extract(abstract("The weather was nice."), ExtractContext()) is None


def test_an_extra_vocabulary_file_adds_entries(tmp_path):
    (tmp_path / "mine.txt").write_text("Platypus Learning | PlaL > Diffusion Models\n", encoding="utf-8")
    context = ExtractContext(vault=str(tmp_path), config={"vocabulary": {"extra_file": "mine.txt"}})
    [mention] = vaultsync_extract(abstract("We study PlaL."), context).concepts
    assert (mention.name, mention.broader) == ("Platypus Learning", ("Diffusion Models",))


def test_a_missing_extra_file_is_a_user_error(tmp_path):
    context = ExtractContext(config={"vocabulary": {"extra_file": str(tmp_path / "nope.txt")}})
    with pytest.raises(VaultsyncError, match="nope.txt"):
        vaultsync_extract(abstract("text"), context)


def test_the_plugin_is_registered_by_default():
    from vaultsync.plugins import get_plugin_manager

    assert get_plugin_manager().get_plugin("vocabulary") is vocab


# --- coverage of a conference call for papers -------------------------------------------------


@pytest.mark.parametrize("text, name", [
    ("graphs with low homophily", "Homophily"),
    ("improving calibration of classifiers", "Model Calibration"),
    ("solving the Poisson equation and Darcy flow", "Poisson Equation"),
    ("viscous Burgers equation", "Burgers' Equation"),
    ("a heuristic for bin packing", "Bin Packing"),
    ("video inpainting with temporal consistency", "Video Inpainting"),
    ("talking head synthesis from audio", "Talking Head Generation"),
    ("backdoor adjustment identifies the effect", "Backdoor Adjustment"),
    ("quadruped locomotion policies", "Robot Locomotion"),
    ("human trust in AI advice", "Trust in AI"),
    ("large multimodal models (LMMs)", "Multimodal Large Language Models"),
    ("an adversarial suffix jailbreaks the model", "Adversarial Suffix Attacks"),
])
def test_call_for_papers_index_terms_are_known(vocabulary, text, name):
    assert name in names(vocabulary, text)


@pytest.mark.parametrize("text", [
    "We observe an expected improvement of 3 points.",
    "A mean shift in the covariates.",
    "The temporal shift module mixes frames.",
])
def test_everyday_phrases_near_index_terms_stay_unmatched(vocabulary, text):
    assert names(vocabulary, text) == []


def test_a_name_split_by_an_inline_acronym_is_still_found():
    from vaultsync.default_plugins.vocabulary import across_acronyms

    text = "As the key-value (KV) cache grows, we study graph neural networks (GNNs) on graphs."
    found = [(m.entry.name, m.surface, text[m.start:m.end]) for m in across_acronyms(Vocabulary.load(), text)]
    assert found == [("KV Cache", "key-value (KV) cache", "key-value (KV) cache")]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab -'\t\n\u00e9\u2019\u2013\u2011\u00a0\u202f")) | st.characters(), max_size=40))
def test_folding_is_the_translation_table(text):
    assert vocabulary_format.fold_text(text) == text.translate(vocabulary_format._FOLD)


def test_mentions_are_ordinary_concept_mentions():
    import pickle
    from vaultsync.records import ConceptMention

    vocabulary = Vocabulary.load()
    found = vocab.mentions(vocabulary.match("Large language models (LLMs) and LLMs with a KV cache."))
    assert found
    for mention in found:
        built = ConceptMention(mention.name, "vocabulary", mention.surfaces, mention.aliases, mention.score,
                               mention.broader, canonical=True)
        assert mention == built and repr(mention) == repr(built)
        assert pickle.dumps(mention) == pickle.dumps(built)


# -- the automata kept in the state folder -------------------------------------------------------

AUTOMATA_TEXT = ("We fine-tune Large Language Models (LLMs) with Reinforcement Learning from Human Feedback "
                 "and low-rank adaptation on graph neural networks; MoE layers and μP help.")


def _built_here(monkeypatch) -> list[int]:
    """How many times the automata are built (not loaded) from now on."""
    builds: list[int] = []
    original = vocabulary_automata.build_automata
    monkeypatch.setattr(vocabulary_automata, "build_automata", lambda entries: builds.append(1) or original(entries))
    return builds


def test_the_automata_are_built_once_and_then_loaded_from_the_state_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path))
    builds = _built_here(monkeypatch)
    entries = parse_vocabulary(DATA_FILE.read_text("utf-8"), "vocabulary.txt")
    first = Vocabulary(entries, merge=False)
    second = Vocabulary(entries, merge=False)
    assert builds == [1] and (tmp_path / vocabulary_automata.AUTOMATA_FILE).is_file()
    assert second.match(AUTOMATA_TEXT) == first.match(AUTOMATA_TEXT) != []
    other = Vocabulary([*entries, VocabularyEntry("Quantum Widget Theory")])  # other entries: built
    assert builds == [1, 1] and [m.entry.name for m in other.match("a quantum widget theory")] == ["Quantum Widget Theory"]


def test_a_damaged_automata_file_is_built_again(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path))
    entries = parse_vocabulary(DATA_FILE.read_text("utf-8"), "vocabulary.txt")
    want = Vocabulary(entries, merge=False).match(AUTOMATA_TEXT)
    path = tmp_path / vocabulary_automata.AUTOMATA_FILE
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    builds = _built_here(monkeypatch)
    assert Vocabulary(entries, merge=False).match(AUTOMATA_TEXT) == want and builds == [1]


def test_a_state_folder_that_cannot_be_written_only_costs_the_build(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(blocked / "state"))
    builds = _built_here(monkeypatch)
    entries = parse_vocabulary(DATA_FILE.read_text("utf-8"), "vocabulary.txt")
    assert Vocabulary(entries, merge=False).match(AUTOMATA_TEXT) and Vocabulary(entries, merge=False)
    assert builds == [1, 1]


def _shipped_senses(text: str) -> set[str]:
    from vaultsync.default_plugins.senses import in_sense
    return {m.entry.name for m in in_sense(Vocabulary.load().match(text), text)}


@pytest.mark.parametrize("text, name", [
    ("Sparse coding keeps few nonzero weights, so sparsity is controlled directly.", "Sparsity"),
    ("A twin network with shared weights scores the similarity of image pairs.", "Siamese Networks"),
    ("Features in superposition make neurons polysemantic in toy models.", "Superposition"),
    ("Total variation smooths the image while keeping piecewise constant edges in restoration.",
     "Total Variation Regularization"),
    ("We train a verifier to score each solution of a math problem at test time.", "Verifiers"),
    ("A hypothesis space of finite VC dimension is PAC learnable.", "Hypothesis Classes"),
    ("On separable data, gradient descent on logistic loss converges to margin maximization.",
     "Maximum Margin Classifiers"),
    ("Pruning removes half of the weights of each layer with little loss.", "Pruning"),
    ("Synthetic data from language models can replace scarce human annotations.", "Synthetic Data"),
    ("Sequential Monte Carlo tracks the latent state of a state-space model from noisy observations.",
     "Particle Filters"),
    ("A teacher assigns pseudo-labels to unlabeled images for the student.", "Pseudo-Labeling"),
    ("The agent answers questions by querying a knowledge base of entity triples.", "Knowledge Bases"),
])
def test_a_shipped_ambiguous_name_links_where_its_sense_shows(text, name):
    assert name in _shipped_senses(text)


@pytest.mark.parametrize("text, name", [
    ("Click logs for item recommendation suffer from data sparsity and cold starts.", "Sparsity"),
    ("A twin network of the factual and hypothetical world answers counterfactual queries.", "Siamese Networks"),
    ("The field is a weighted superposition of plane waves.", "Superposition"),
    ("The total variation gap between two probability paths bounds the error of the flow.",
     "Total Variation Regularization"),
    ("The policy trains large, complex network architectures end to end.", "Network Science"),
    ("One-shot post-training pruning of language models keeps the reasoning of the LLM.", "Post-Training"),
    ("Our label augmentation module fills in missing labels with pseudo-labels.", "Data Augmentation"),
    ("We search for the optimal ML pipeline for treatment effect estimation.", "MLOps"),
    ("Robots and AI agents must perceive sounds to act in their surroundings.", "LLM Agents"),
    ("Autoformulation must search a vast hypothesis space of optimization models.", "Hypothesis Classes"),
    ("A fuzzy regularizer encourages margin maximization between confusable modulation types.",
     "Maximum Margin Classifiers"),
    ("Dataset pruning discards redundant examples before the model is trained.", "Pruning"),
    ("Symbolic pruning of the search tree removes equivalent branches of the model.", "Pruning"),
    ("We show on synthetic data and on ImageNet that the sampler converges.", "Synthetic Data"),
    ("We tune the Markov kernels of sequential Monte Carlo samplers for a static target.", "Particle Filters"),
    ("Federated multi-view clustering fuses global pseudo-labels across clients.", "Self-Training"),
    ("Our model keeps a knowledge base of view prototypes and three core modules.", "Knowledge Bases"),
    ("Task-trees align node-, edge- and graph-level tasks.", "Graph Classification"),
])
def test_a_shipped_ambiguous_name_in_another_sense_does_not_link(text, name):
    assert name not in _shipped_senses(text)


def test_other_senses_parse_and_a_mention_inside_one_is_not_the_concept():
    from vaultsync.default_plugins.senses import in_sense
    entries = parse_vocabulary("Gradient Flow | gradient flows ! gradient flow to, gradient flow through\n"
                               "Model Calibration | calibration ? confidence ! calibration set\n")
    assert entries[0].others == ("gradient flow to", "gradient flow through") and entries[1].cues == ("confidence",)
    local = Vocabulary(entries)
    def found(text):
        return {m.entry.name for m in in_sense(local.match(text), text)}
    assert found("Freezing the encoder blocks gradient flow to the backbone.") == set()
    assert found("We study the gradient flow of two-layer networks.") == {"Gradient Flow"}
    assert found("Scores on the calibration set give confidence intervals.") == set()
    assert found("We improve calibration of confidence scores.") == {"Model Calibration"}
    with pytest.raises(VaultsyncError):
        parse_vocabulary("Gradient Flow ! ,\n")


def test_a_cue_that_ends_in_s_meets_the_text_word_it_names():
    from vaultsync.default_plugins.senses import in_sense
    local = Vocabulary(parse_vocabulary("Motion Prediction | motion forecasting ? autonomous, pairs\n"))
    def found(text):
        return {m.entry.name for m in in_sense(local.match(text), text)}
    assert found("Motion forecasting of agents for autonomous vehicles.") == {"Motion Prediction"}
    assert found("Motion forecasting from image pairs.") == {"Motion Prediction"}
    assert found("Motion forecasting of dancers on stage.") == set()
