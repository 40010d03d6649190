"""The link stage: shared concepts a researcher would trust, one note per concept, a hierarchy."""

from __future__ import annotations

from vaultsync.extract import Extracted
from vaultsync.default_plugins.phrase_concepts import promote_phrases
from vaultsync.link import LinkOptions, concept_id, link
from vaultsync.records import Abstract, Collection, ConceptMention, Extraction, PaperName

ICML = Collection("ICML 2026 Papers", "ICML 2026", 2026)


def paper(n: int, *mentions: ConceptMention, name: str | None = None):
    abstract = Abstract(f"Abstract number {n} about several things in machine learning research.", "s.txt", n, n, ICML)
    facts = Extracted(Extraction(concepts=mentions), PaperName(title=f"Title {n}", name=name, gist=f"gist {n}"))
    return abstract, facts


def vocab(name, *surfaces, aliases=(), broader=()):
    return ConceptMention(name, "vocabulary", surfaces or (name,), aliases, 1.0, broader, canonical=True)


def acronym(long, short, coined=False):
    return ConceptMention(long, "acronym-coined" if coined else "acronym", (long, short), (short,))


def phrase(text):
    return ConceptMention(text, "phrase", (text,), (), 1.0)


def build(*papers, **options):
    abstracts, extracted = zip(*papers)
    return link(list(abstracts), list(extracted), LinkOptions(**{"promote_phrases": promote_phrases, **options}))


def names(model):
    return {c.name for c in model.concepts}


def test_every_spelling_of_a_concept_is_one_note():
    model = build(paper(1, vocab("Large Language Models", "LLMs", aliases=("LLM", "LLMs"))),
                  paper(2, acronym("large language models", "LLMs")),
                  paper(3, phrase("large language model")))
    assert [c.name for c in model.concepts] == ["Large Language Models"]
    assert len(model.concepts[0].papers) == 3


def test_one_acronym_with_two_long_forms_is_two_concepts():
    model = build(paper(1, acronym("visual question answering", "VQA")),
                  paper(2, acronym("video quality assessment", "VQA")),
                  paper(3, acronym("visual question answering", "VQA")),
                  paper(4, acronym("video quality assessment", "VQA")))
    assert names(model) == {"Visual Question Answering", "Video Quality Assessment"}


def test_an_abstract_that_defines_an_acronym_overrides_the_vocabulary_reading_of_it():
    model = build(paper(1, vocab("Visual Question Answering", "VQA", aliases=("VQA",)),
                        acronym("video quality assessment", "VQA"), phrase("VQA")),
                  paper(2, acronym("video quality assessment", "VQA")))
    assert model.papers[0].concepts == ("Video Quality Assessment",)


def test_a_coined_acronym_is_the_papers_alias_unless_others_use_it():
    model = build(paper(1, acronym("Spiking Confidence Gate", "SCG", coined=True), name="SpikeNet"),
                  paper(2, acronym("Mixture of Experts", "MoE")), paper(3, acronym("Mixture of Experts", "MoE")))
    assert names(model) == {"Mixture of Experts"}
    assert {"SCG", "Spiking Confidence Gate"} <= set(model.papers[0].aliases)
    shared = build(paper(1, acronym("Spiking Confidence Gate", "SCG", coined=True)),
                   paper(2, acronym("Spiking Confidence Gate", "SCG")))
    assert names(shared) == {"Spiking Confidence Gate"}


def test_a_term_one_paper_spells_out_is_its_alias_not_a_concept_note():
    # coined or established, a term no other paper (and no vocabulary) knows connects no papers
    model = build(paper(1, acronym("Sequential Event-Space Calibrator", "SESC")),
                  paper(2, acronym("Mendelian Randomization", "MR")),
                  paper(3, acronym("Mendelian Randomization", "MR")))
    assert names(model) == {"Mendelian Randomization"}
    alone = build(paper(1, acronym("Premise Augmented Reasoning Chains", "PARC")), paper(2, phrase("graphs")))
    assert names(alone) == set()


def test_phrases_become_concepts_only_when_papers_share_them_and_junk_never():
    model = build(paper(1, phrase("wasserstein barycenters"), phrase("extensive experiments"), phrase("graph"),
                        phrase("sample size"), phrase("global context")),
                  paper(2, phrase("wasserstein barycenter"), phrase("extensive experiments"), phrase("graph"),
                        phrase("sample size"), phrase("global context")),
                  paper(3, phrase("protein folding")))
    assert names(model) == {"Wasserstein Barycenter"}  # a measure or everyday words are no concept


def test_a_name_ending_in_another_concept_is_narrower_and_vocabulary_broader_links_get_notes():
    model = build(paper(1, vocab("Offline Reinforcement Learning", broader=("Reinforcement Learning",))),
                  paper(2, vocab("Reinforcement Learning")), paper(3, vocab("Graph Transformers",
                                                                        broader=("Graph Neural Networks",))))
    by_name = {c.name: c for c in model.concepts}
    assert by_name["Offline Reinforcement Learning"].broader == ("Reinforcement Learning",)
    assert by_name["Reinforcement Learning"].narrower == ("Offline Reinforcement Learning",)
    assert by_name["Graph Neural Networks"].narrower == ("Graph Transformers",)  # a note though no paper named it


def test_names_are_unique_across_papers_and_concepts_and_keep_what_the_user_renamed():
    one, two = paper(1, vocab("PRISM")), paper(2, vocab("Graphs"), name="PRISM")
    three = paper(3, vocab("Graphs"), name="PRISM")
    model = build(one, two, three)
    stems = [p.name for p in model.papers] + [c.name for c in model.concepts]
    assert len({s.casefold() for s in stems}) == len(stems)
    renamed = build(one, two, three, existing_names={two[0].id: "My PRISM notes"})
    assert renamed.papers[1].name == "My PRISM notes"


def test_a_concept_or_paper_the_user_deleted_stays_deleted():
    from vaultsync.canonical import concept_key

    one, two = paper(1, vocab("Graphs")), paper(2, vocab("Graphs"), vocab("Trees"))
    model = build(one, two, deleted_ids=frozenset({concept_id(concept_key("Trees")), one[0].id}))
    assert names(model) == {"Graphs"} and [p.id for p in model.papers] == [two[0].id]


def test_the_same_abstract_in_two_seeds_is_one_paper():
    abstract, facts = paper(1, vocab("Graphs"))
    again = Abstract(abstract.text, "other.txt", 4, 9, Collection("NeurIPS 2025", "NeurIPS 2025", 2025))
    model = build((abstract, facts), (again, facts))
    assert len(model.papers) == 1 and model.papers[0].abstract.seed == "s.txt"


def test_phrases_are_promoted_by_the_hook_a_plugin_can_answer():
    from vaultsync.hookspecs import hookimpl
    from vaultsync.plugins import promoted_phrases
    from vaultsync.plugins import get_plugin_manager

    papers = [paper(1, phrase("wasserstein barycenters")), paper(2, phrase("wasserstein barycenter")),
              paper(3, phrase("protein folding"))]
    pm = get_plugin_manager()
    built_in = build(*papers, promote_phrases=lambda mentions: promoted_phrases(pm, mentions))
    assert names(built_in) == {"Wasserstein Barycenter"}

    class NoPhrases:
        @hookimpl
        def vaultsync_promote_phrases(self, mentions):
            return set()  # (not None: the answer, the built-in rule is not asked)

    pm.register(NoPhrases(), name="no-phrases")
    try:
        mine = build(*papers, promote_phrases=lambda mentions: promoted_phrases(pm, mentions))
    finally:
        pm.unregister(name="no-phrases")
    assert names(mine) == set()
    assert names(build(*papers, promote_phrases=None)) == set()  # no answer: no phrase promoted


def test_an_acronym_joins_a_concept_only_as_its_alias_is_spelled():
    gps = vocab("Gaussian Processes", "GPs", aliases=("GP", "GPs"))
    model = build(paper(1, gps), paper(2, gps),
                  paper(3, phrase("GPS")), paper(4, phrase("GPS")),  # the graph transformer, not GPs
                  paper(5, phrase("GP")), paper(6, phrase("GPs")))
    concept = next(c for c in model.concepts if c.name == "Gaussian Processes")
    assert sorted(model.papers[i].id for i in (0, 1, 4, 5)) == sorted(concept.papers)
    assert model.papers[2].concepts == model.papers[3].concepts == ()
