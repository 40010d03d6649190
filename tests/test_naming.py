"""The built-in naming rule: papers are named after what they introduce, and titled from it."""

import pluggy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultsync import hookspecs
from vaultsync.default_plugins import naming
from vaultsync.default_plugins.naming import coined_strength, paper_name
from vaultsync.default_plugins.titles import trim_phrase
from vaultsync.records import Abstract, Collection, ConceptMention, Extraction, PaperName

BACKGROUND = (
    "Large language models (LLMs) are increasingly used as agents, yet their evaluation "
    "remains fragmented and costly. "
)


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("We introduce **ChartQuest**, a cognitively inspired benchmark that probes chart reasoning.", "ChartQuest"),
        ("To address this, we propose TaskWeaver, a unified framework that plans and executes tools.", "TaskWeaver"),
        ("We introduce a new retrieval paradigm, namely LENS, which ranks passages by utility.", "LENS"),
        ("We present \\textbf{FooNet}, a graph network for molecules.", "FooNet"),
        ("In this work we develop Q-Former2, an adapter for video models.", "Q-Former2"),
        ("This paper introduces Spanner a routing method for sparse experts.", "Spanner"),
        ("We then derive GP-UCB-X, an algorithm with sublinear regret.", "GP-UCB-X"),
        ("We propose a scalable estimator, dubbed FlowCount, that counts objects.", "FlowCount"),
        ("We propose a method called SparseMix that mixes sparse features.", "SparseMix"),
        ("To this end, we propose MetaLoRA: an adapter that generates low-rank weights.", "MetaLoRA"),
        ("We release the TRACE dataset, a collection of agent trajectories.", "TRACE"),
        ("We introduce *OpenJudge*, a lightweight framework for evaluating judges.", "OpenJudge"),
        ("We propose a simple framework (SimFrame) that scales to large graphs.", "SimFrame"),
        ("Our method, DeepSieve, filters noisy labels before training.", "DeepSieve"),
    ],
)
def test_names_the_paper_after_what_it_introduces(sentence, name):
    assert paper_name(BACKGROUND + sentence).name == name


@pytest.mark.parametrize(
    ("sentence", "name", "long"),
    [
        (
            "We propose Sparse Token Routing (STR), a plug-and-play module for transformers.",
            "STR", "Sparse Token Routing",
        ),
        (
            "We introduce Low-Rank Spatial Attention (LRSA) as a clean instantiation of this template.",
            "LRSA", "Low-Rank Spatial Attention",
        ),
        (
            "We introduce physics-informed Kolmogorov Networks (KN-PI), a basis network for PDEs.",
            "KN-PI", "physics-informed Kolmogorov Networks",
        ),
        (
            "We introduce MEDLENS (Medical Evidence Lens for Scientific Evaluation), a benchmark.",
            "MEDLENS", "Medical Evidence Lens for Scientific Evaluation",
        ),
    ],
)
def test_an_acronym_is_the_name_and_its_expansion_an_alias(sentence, name, long):
    result = paper_name(BACKGROUND + sentence)
    assert result.name == name
    assert result.aliases[0] == long
    assert result.title.startswith(f"{name} — {long}")


@pytest.mark.parametrize(
    "sentence",
    [
        "We propose a novel method for robust training under label noise.",
        "We propose GNN models that generalise across graph sizes.",
        "We introduce LLM-based agents that negotiate prices.",
        "We develop Bayesian methods for sequential experimental design.",
        "We present results on ImageNet (IN), showing consistent gains.",
        "We analyze the implicit bias of gradient descent on separable data.",
        "We propose using reinforcement learning (RL) to tune the schedule.",
    ],
)
def test_ordinary_words_and_modifiers_are_not_names(sentence):
    assert paper_name(BACKGROUND + sentence).name is None


def test_a_background_acronym_is_not_the_papers_name():
    text = (
        "Mixture-of-Experts (MoE) models scale well. Graph Neural Networks (GNNs) are widely used. "
        "We study how routing collapses during training and show it can be prevented."
    )
    assert paper_name(text).name is None


def test_the_first_main_name_wins_and_its_extensions_are_aliases():
    text = (
        BACKGROUND + "We introduce **ChartQuest**, a benchmark for chart reasoning. We further propose "
        "**ChartQuest-Hard**, an extension with adversarial charts. We also introduce Cross-view "
        "Alignment (CVA), a module that aligns views."
    )
    result = paper_name(text)
    assert result.name == "ChartQuest"
    assert "ChartQuest-Hard" in result.aliases
    assert "CVA" not in result.aliases and "Cross-view Alignment" not in result.aliases


def test_the_title_is_the_name_and_what_it_is():
    text = BACKGROUND + (
        "We introduce **ChartQuest**, a cognitively inspired benchmark that evaluates chart "
        "reasoning in MLLMs."
    )
    result = paper_name(text)
    assert result.title == (
        "ChartQuest — a cognitively inspired benchmark that evaluates chart reasoning in MLLMs"
    )
    assert result.gist == "a cognitively inspired benchmark that evaluates chart reasoning in MLLMs"


def test_an_unnamed_paper_gets_a_specific_title_from_its_contribution():
    text = (
        "Mendelian randomization (MR) estimates causal effects from genetic data. However, "
        "pleiotropy violates its assumptions. Leveraging this setting, we propose a representation "
        "learning framework that exploits multi-environment data to recover latent exogenous "
        "components of genetic instruments suitable for causal inference. We provide theory."
    )
    result = paper_name(text)
    assert result.name is None
    assert result.title.startswith("Representation learning framework")
    assert len(result.title) <= 60 and len(result.title.split()) <= 8, "a short title, not the sentence"
    assert result.title.split()[-1] in text.replace(".", " ").split(), "not cut mid-word"
    assert not result.title.startswith("Mendelian"), "never the abstract's first words"
    assert result.gist.startswith("a representation learning framework that exploits")


def test_an_unnamed_analysis_paper_is_titled_by_what_it_analyses():
    text = (
        "We analyze the hardmax limit of self-attention dynamics for token embeddings in the "
        "zero-temperature regime $(\\beta \\to +\\infty)$ and relate it to finite-$\\beta$ behavior. "
        "We prove convergence."
    )
    result = paper_name(text)
    assert result.title == "Hardmax limit of self-attention dynamics"  # at most 8 words, 60 characters
    assert result.gist.startswith("analyzes the hardmax limit")


def test_titles_carry_no_markup():
    text = (
        "We propose **ScoreMix**, a **self-contained data augmentation** method with "
        "$\\textbf{4.28}$ gains and \\emph{no} extra data."
    )
    result = paper_name(text)
    assert result.name == "ScoreMix"
    assert not set("*$\\{}") & set(result.title + result.gist)


def test_extraction_hints_name_a_paper_the_text_rules_miss():
    text = "Retrieval helps. Results with HyperRAG are strong across many benchmarks."
    hints = Extraction(paper_aliases=("HyperRAG",))
    assert paper_name(text).name is None
    assert paper_name(text, hints).name == "HyperRAG"


def test_an_acronym_mention_supplies_the_long_form():
    text = BACKGROUND + "We propose STR, a plug-and-play module for transformers."
    mention = ConceptMention(name="Sparse Token Routing", kind="acronym-coined", surfaces=("STR",))
    result = paper_name(text, Extraction(concepts=(mention,)))
    assert result.name == "STR"
    assert result.aliases == ("Sparse Token Routing",)


@pytest.mark.parametrize(
    ("token", "strength"),
    [("OptMaster", 2), ("PRISM", 2), ("X-Dub", 2), ("Llama3", 2), ("xLSTM", 2), ("Grouter", 1),
     ("framework", 0), ("LLM-based", 0), ("3D", 0), ("LLMs", 0), ("The", 0)],
)
def test_coined_names_are_told_from_ordinary_words(token, strength):
    assert coined_strength(token) == strength


def test_phrases_are_trimmed_at_a_phrase_boundary():
    text = (
        "a cognitively inspired benchmark that evaluates models across three stages, "
        "perception, understanding, and reasoning"
    )
    assert trim_phrase(text, 90) == "a cognitively inspired benchmark that evaluates models across three stages"


def test_the_hook_is_a_trylast_default_that_user_plugins_override():
    class UserPlugin:
        @hookspecs.hookimpl
        def vaultsync_paper_name(self, abstract, extraction):
            return PaperName(title="Mine") if "Mine" in abstract.text else None

    def name_with(pm, text):
        abstract = Abstract(text=text, seed="s.txt", paragraph=1, line=2, collection=Collection("ICML 2026"))
        return pm.hook.vaultsync_paper_name(abstract=abstract, extraction=Extraction())

    pm = pluggy.PluginManager("vaultsync")
    pm.add_hookspecs(hookspecs)
    user = UserPlugin()
    pm.register(user)  # registered first, so only `trylast` puts the default behind it
    pm.register(naming)
    try:
        assert name_with(pm, "We propose Mine, a framework.").title == "Mine"
        assert name_with(pm, "We propose TaskWeaver, a framework.").name == "TaskWeaver"
    finally:
        pm.unregister(user)
        pm.unregister(naming)


words = st.sampled_from(
    ["We", "we", "propose", "introduce", "namely", "called", "a", "the", "(", ")", "**", "*", "$",
     "\\textbf{", "}", ",", ".", ":", "—", "FooNet", "PRISM", "X-Dub", "Grouter", "model", "framework",
     "Long", "Form", "(LF)", "é", "e.g.", "our", "method", "that", "which", "to", "\\", "`", "_"]
)
texts = st.one_of(st.text(max_size=400), st.lists(words, max_size=80).map(" ".join))


@given(texts)
@settings(max_examples=500)
def test_never_raises_and_keeps_its_contract(text):
    result = paper_name(text)
    assert isinstance(result, PaperName)
    assert result.title and len(result.title) <= 200
    assert len(result.gist) <= 120
    assert result.title[-1] not in ",;:.—- "
    assert result.name is None or result.name in naming.plain_text(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab. \t\n\r\x0b\x0c\x1c\x85\u00a0\u1680\u2009\u2028\u3000")), max_size=12))
def test_single_spaced_means_collapsing_changes_nothing(text):
    from vaultsync.default_plugins.titles import _single_spaced

    if _single_spaced(text):
        assert " ".join(text.split()) == text
    collapsed = " ".join(text.split())
    assert _single_spaced(collapsed) == collapsed.isprintable()  # only the unprintable go the long way
