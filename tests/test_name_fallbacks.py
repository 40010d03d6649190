"""Titles of abstracts that name nothing and state no contribution a title can be read from."""

from vaultsync.default_plugins.naming import paper_name
from vaultsync.default_plugins.topics import _field_title
from vaultsync.records import ConceptMention, Extraction


def test_a_position_papers_clean_claim_after_a_colon_is_its_title():
    text = ("Benchmarks shape what the community builds. In this position paper, we argue for a sober perspective: "
            "Leaderboards for code generation should report their variance across seeds. We survey recent practice.")
    assert paper_name(text).title == ("Position: Leaderboards for code generation should report their variance "
                                      "across seeds")


def test_a_position_papers_claim_that_opens_with_a_pronoun_or_holds_an_aside_is_no_title():
    for claim in ("it is the data, not the model, that matters for robotics",
                  "while scaling helps (on average), evaluation lags behind"):
        text = f"Robots learn slowly. In this position paper, we argue that {claim}. We give three examples."
        assert not paper_name(text).title.startswith("Position:")


def test_a_field_with_its_complement_titles_an_abstract_nothing_else_titles():
    text = ("Some students try harder when tested. We ask whether this lowers the sample complexity of teaching, "
            "or raises it.")
    mention = ConceptMention(name="Sample Complexity", kind="vocabulary", score=1.0, surfaces=("sample complexity",))
    assert _field_title(text, Extraction(concepts=(mention,))) == "Sample complexity of teaching"


def test_a_field_whose_complement_points_back_is_no_title():
    text = "Agents improve. We bound the sample complexity of this setting."
    mention = ConceptMention(name="Sample Complexity", kind="vocabulary", score=1.0, surfaces=("sample complexity",))
    assert _field_title(text, Extraction(concepts=(mention,))) == ""


def test_what_cited_work_found_is_never_the_title():
    from vaultsync.default_plugins.topics import topic_title

    text = ("Graph transformers are popular. Okafor et al. (2023) showed that attention heads store positional "
            "encodings for message passing. Why this happens is unclear.")
    mentions = (ConceptMention(name="positional encodings", kind="phrase", score=3.0, surfaces=("positional encodings",)),
                ConceptMention(name="message passing", kind="phrase", score=3.0, surfaces=("message passing",)))
    assert "positional encodings" not in topic_title(text, [], Extraction(concepts=mentions)).casefold()


def test_a_sentence_of_the_papers_own_that_cites_still_titles_it():
    from vaultsync.default_plugins.topics import _CITING

    text = "Finally, we prove a lower bound on message passing, improving on Okafor et al. (2023)."
    assert _CITING.sub("", text) == text


def test_a_paper_calling_its_contribution_by_a_concepts_name_is_named_by_its_instantiations():
    text = ("Attention is slow on long inputs. We present a framework for building memory layers that learn while "
            "reading. Our layers are called Test-Time Training (TTT) layers. We test two instantiations: TTT-Linear "
            "and TTT-MLP. Both TTT-Linear and TTT-MLP keep improving with context.")
    mention = ConceptMention(name="Test-Time Training", kind="vocabulary", surfaces=("Test-Time Training",),
                             aliases=("TTT",), canonical=True)
    named = paper_name(text, Extraction(concepts=(mention,)))
    assert named.name == "TTT-Linear and TTT-MLP"
    assert named.title.startswith("TTT-Linear and TTT-MLP — ")


def test_a_concepts_name_with_no_instantiations_written_twice_leaves_the_paper_unnamed():
    text = ("Attention is slow on long inputs. Our layers are called Test-Time Training (TTT) layers. We compare with "
            "TTT-Old once.")
    mention = ConceptMention(name="Test-Time Training", kind="vocabulary", surfaces=("Test-Time Training",),
                             aliases=("TTT",), canonical=True)
    assert paper_name(text, Extraction(concepts=(mention,))).name is None


def test_a_coined_name_the_authors_give_after_or_names_the_paper():
    text = ("Agents forget what worked. Our method keeps a small library of solved subgoals, or SkillCards, for "
            "each task. Each SkillCard is shown to the planner at test time.")
    assert paper_name(text).name == "SkillCard"


def test_a_name_after_or_in_someone_elses_sentence_is_not_the_papers():
    text = ("Prior planners keep solved subgoals, or SkillCards, for each task. We study why planners forget "
            "solved subgoals under distribution shift.")
    assert paper_name(text).name is None


def test_a_paradigm_the_authors_introduce_outranks_the_method_that_achieves_it():
    text = ("Robots rarely share what they learn. This paper introduces a new paradigm of Collective Skill Pooling "
            "(CSP). We then propose GRASPNET, which achieves CSP through message exchange between robots.")
    assert paper_name(text).name in ("CSP", "Collective Skill Pooling")


def test_a_repository_named_by_a_coined_word_names_the_paper_before_its_methods_acronym():
    text = ("Emotions change over time. We propose a Temporal Affect Graph Learning (TAGL) framework for decoding "
            "them. Code is at https://github.com/someone/MoodShift.")
    assert paper_name(text).name == "MoodShift"


def test_a_repository_named_in_capitals_does_not_outrank_the_papers_acronym():
    text = ("Emotions change over time. We propose a Temporal Affect Graph Learning (TAGL) framework for decoding "
            "them. Code is at https://github.com/someone/AFFECTLAB.")
    assert paper_name(text).name == "TAGL"


def test_a_method_that_does_x_through_y_is_titled_by_y():
    text = ("Forecasts drift. In this work, we propose a method that produces calibrated forecasts through the "
            "adaptive reweighting of past residuals. It is cheap.")
    assert paper_name(text).title == "Adaptive reweighting of past residuals"


def test_what_a_framework_is_based_on_is_an_aside_not_its_title():
    text = ("Pruned models leak data. In this work, we propose a framework, based on the spectrum of the Fisher "
            "matrix, to audit membership leakage in pruned networks. We test it widely.")
    assert paper_name(text).title == "Auditing membership leakage in pruned networks"


def test_a_tool_used_to_do_something_keeps_the_verb_not_its_adverb_nor_the_word_concept():
    from vaultsync.default_plugins.contribution import _tool_for

    assert _tool_for("the concept of mixture density networks to jointly predict the demand of shops") \
        == "Mixture density networks for predicting demand of shops"


def test_a_method_head_joined_with_for_is_cut_at_a_preposition_rather_than_left_a_fragment():
    from vaultsync.default_plugins.contribution_patterns import _head_for_doing

    assert _head_for_doing("Iterative scheme refining noisy label sets until convergence of agreement") \
        == "Iterative scheme for refining noisy label sets"


def test_a_two_word_head_keeps_its_complements_head_noun_rather_than_lose_it():
    from vaultsync.default_plugins.short_phrases import short_phrase

    assert short_phrase("spectral interpretation for fully convolutional image super resolution networks") \
        == "spectral interpretation for image super resolution networks"


def test_a_complement_is_never_shortened_past_a_verb():
    from vaultsync.default_plugins.short_phrases import short_phrase

    title = short_phrase("doubly-robust estimator for evaluating the worst-case long-run average reward of policies")
    assert title == "doubly-robust estimator"


def test_a_claim_whose_subject_is_generic_is_titled_by_what_it_is_shown_to_achieve():
    text = ("We show that shallow transformers can achieve logarithmic sample complexity for parsing regular "
            "languages of bounded depth. Experiments agree.")
    assert paper_name(text).title == "Logarithmic sample complexity"
