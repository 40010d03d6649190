"""Related papers: listed only when the two papers share specific evidence, with the reason shown."""

from __future__ import annotations

from vaultsync.default_plugins.obsidian import render_paper
from vaultsync.extract import Extracted
from vaultsync.default_plugins.phrase_concepts import promote_phrases
from vaultsync.link import LinkOptions, link
from vaultsync.link_preview import link_additions
from vaultsync.records import Abstract, Collection, ConceptMention, Extraction, PaperName
from vaultsync.related import text_terms

ICML = Collection("ICML 2026 Papers", "ICML 2026", 2026)

OFFLINE_FLOW = ("Offline reinforcement learning learns a policy from a fixed dataset of logged transitions. "
                "We model the policy with flow matching, a generative model trained to transport noise "
                "to actions, and regularize the flow matching policy toward the behavior policy. On D4RL "
                "locomotion tasks the flow policy improves over diffusion policies at a fraction of the cost.")
OFFLINE_FLOW_2 = ("Flow matching policies are expressive but slow to train in offline reinforcement learning. "
                  "We distill a one-step flow matching policy from logged transitions and constrain it to the "
                  "behavior policy, obtaining strong results on D4RL locomotion and antmaze tasks.")
OFFLINE_FLOW_3 = ("We study offline reinforcement learning with expressive policies: a flow matching policy "
                  "trained on logged transitions, kept close to the behavior policy by a one-step distillation "
                  "loss, sets a new state of the art on D4RL locomotion.")
PROTEINS = ("Predicting protein structure from amino acid sequences remains costly. We fold proteins with "
            "a geometric transformer over residue frames and report accuracy on CASP targets.")
GRAPHS = ("Graph clustering partitions the nodes of a network into communities. We propose a spectral "
          "method with provable recovery guarantees under the stochastic block model.")
AUDIO = ("Neural audio codecs compress speech into discrete tokens. We design a residual vector quantizer "
         "for low-bitrate speech coding and evaluate perceptual quality with listening tests.")
TRAFFIC = ("Forecasting traffic speed on road sensors needs spatial and temporal structure. A graph "
           "recurrent network over the road graph predicts speeds an hour ahead on METR-LA.")


def vocab(name):
    return ConceptMention(name, "vocabulary", (name,), (), 1.0, (), canonical=True)


OFFLINE_RL, FLOW = vocab("Offline Reinforcement Learning"), vocab("Flow Matching")


def paper(n: int, text: str, *mentions: ConceptMention):
    abstract = Abstract(text, "s.txt", n, n, ICML)
    facts = Extracted(Extraction(concepts=mentions), PaperName(title=f"Title {n}", gist=f"gist {n}"))
    return abstract, facts


def corpus():
    return [paper(1, OFFLINE_FLOW, OFFLINE_RL, FLOW), paper(2, PROTEINS, vocab("Protein Folding")),
            paper(3, OFFLINE_FLOW_2, OFFLINE_RL, FLOW), paper(4, GRAPHS, vocab("Graph Clustering")),
            paper(5, TRAFFIC, vocab("Traffic Forecasting"))]


def build(papers):
    abstracts, extracted = zip(*papers)
    return link(list(abstracts), list(extracted), LinkOptions(promote_phrases=promote_phrases))


def related(model):
    return {p.id: (p.related, p.related_shares) for p in model.papers}


def test_papers_on_the_same_method_relate_and_say_what_they_share():
    model = build(corpus())
    first, third = model.papers[0], model.papers[2]
    assert first.related == (third.id,) and third.related == (first.id,)
    assert first.related_shares == ("Flow Matching, Offline Reinforcement Learning",)


def test_a_paper_sharing_nothing_specific_lists_no_related_papers():
    model = build(corpus())
    assert [p.related for p in model.papers if p.id not in (model.papers[0].id, model.papers[2].id)] == [(), (), ()]


def test_a_shared_concept_alone_does_not_relate_two_papers_whose_abstracts_differ():
    model = build([paper(1, PROTEINS, vocab("Transformers")), paper(2, AUDIO, vocab("Transformers")),
                   paper(3, GRAPHS, vocab("Transformers")), paper(4, TRAFFIC)])
    assert all(p.related == () for p in model.papers)


def test_adding_an_unrelated_paper_leaves_the_other_lists_unchanged():
    before = build(corpus())
    after = build([*corpus(), paper(6, AUDIO, vocab("Speech Coding"))])
    assert {pid: lists for pid, lists in related(after).items() if pid in related(before)} == related(before)


def test_related_lists_do_not_depend_on_the_order_of_the_papers():
    assert related(build(corpus())) == related(build(list(reversed(corpus()))))


def test_the_note_shows_why_each_related_paper_is_listed():
    model = build(corpus())
    note = render_paper(model.papers[0], model)
    other = model.papers[2].name
    assert f"- [[{other}]] — shares Flow Matching, Offline Reinforcement Learning" in note.body
    assert note.frontmatter["related"] == [f"[[{other}]]"]


def test_without_a_shared_concept_the_reason_names_shared_terms():
    model = build([paper(1, OFFLINE_FLOW), paper(2, OFFLINE_FLOW_2), paper(3, PROTEINS), paper(4, GRAPHS)])
    shares = model.papers[0].related_shares
    assert len(shares) == 1 and "“behavior policy”" in shares[0]


def test_a_previewed_paper_is_related_as_the_full_run_relates_it():
    new = paper(6, OFFLINE_FLOW_3, OFFLINE_RL, FLOW)
    model = build(corpus())
    preview = link_additions(model, [new[0]], [new[1]])
    full = build([*corpus(), new])
    assert preview.papers[0].related == full.papers[-1].related
    assert set(preview.papers[0].related) == {model.papers[0].id, model.papers[2].id}
    assert preview.papers[0].related_shares == full.papers[-1].related_shares
    assert {p.id for p in preview.referenced} == set(preview.papers[0].related)


def test_text_terms_are_content_words_and_word_pairs():
    terms = text_terms("We propose novel Graph Neural Networks for <em>molecules</em> ($x^2$).")
    assert set(terms) == {"graph", "neural", "network", "graph neural", "neural network", "molecule"}
