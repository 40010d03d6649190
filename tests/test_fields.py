"""Umbrella entries (`data/umbrella.txt`): judged broad (or, for a product family, junk) on
blind sheets again and again, they become a paper's fields, never its concepts."""

from __future__ import annotations

import pytest

from vaultsync.extract import Extracted
from vaultsync.default_plugins.phrase_concepts import promote_phrases
from vaultsync.default_plugins.vocabulary_format import parse_vocabulary
from vaultsync.link import LinkOptions, link
from vaultsync.records import Abstract, Collection, ConceptMention, Extraction, PaperName
from vaultsync.word_lists import DATA

ICML = Collection("ICML 2026 Papers", "ICML 2026", 2026)
NEW = ("Genomics", "Vision Encoders", "Value Functions", "Question Answering", "Sparsity",
       "Ordinary Differential Equations", "Efficient Inference", "Cryptographic Primitive",
       "Interpretability", "Cardiology", "GPT", "Reasoning Models", "Generalization Theory",
       "First-Order Methods", "Pretraining Data", "Empirical Risk Minimization", "Partial Differential Equations",
       "Post-Training", "Expressive Power", "Learnability", "Power Laws", "Generalization Bounds",
       "Algorithmic Decision-Making", "Asymptotic Theory", "Dataset Construction", "Inductive Bias",
       "Dynamical Systems")


def _paper(n: int, *mentions: ConceptMention):
    abstract = Abstract(f"Abstract number {n} about several things in machine learning research.", "s.txt", n, n, ICML)
    return abstract, Extracted(Extraction(concepts=mentions), PaperName(title=f"Title {n}", gist=f"gist {n}"))


@pytest.mark.parametrize("name", NEW)
def test_a_concept_judged_broad_again_and_again_is_a_field(name):
    specific = ConceptMention("Box Embeddings", "vocabulary", ("box embeddings",), (), 1.0, (), canonical=True)
    broad = ConceptMention(name, "vocabulary", (name.lower(),), (), 1.0, (), canonical=True)
    papers = [_paper(1, specific, broad), _paper(2, specific)]
    abstracts, extracted = zip(*papers)
    model = link(list(abstracts), list(extracted), LinkOptions(promote_phrases=promote_phrases))
    assert model.papers[0].concepts == ("Box Embeddings",)
    assert name in model.papers[0].fields


def test_each_new_umbrella_entry_names_a_vocabulary_entry():
    names = {e.name for e in parse_vocabulary((DATA / "vocabulary.txt").read_text("utf-8"), "vocabulary.txt")}
    assert set(NEW) - {"Cryptographic Primitive"} <= names  # (a phrase several papers share, not an entry)
