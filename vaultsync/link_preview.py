"""A watcher's preview of a new seed file: its papers linked at once against the corpus as the
last round linked it (``link_additions``), so their notes appear before the round that links
them for good.

Each new paper keeps the existing concepts it mentions (ranked with the corpus's weights), is
named next to the notes the vault has, and is related to the indexed papers and to the other new
ones by asking the linker's relatedness index, which is left as it is (``related_ask``). What only
the corpus can tell -- phrases this paper makes shared, new concepts, other papers' related lists
-- waits for the round, which keeps the names given here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from .canonical import concept_key
from .concept_index import Cluster, ConceptIndex
from .extract import Extracted
from .link_rules import paper_aliases, paper_concept_keys
from .names import NameRegistry, safe_note_name
from .records import Abstract, CollectionInfo, Concept, Paper, VaultModel, frozen_mapping
from .related import text_terms
from .related_ask import RelatednessIndex


@dataclass
class _LinkedCorpus:
    """What ``link_additions`` needs to know of a linked model; worked out once per model."""

    by_spelling: dict[str, str]  # concept key of a concept's name or alias -> key of its name
    concepts: dict[str, Concept]
    papers_of: dict[str, tuple[str, ...]]
    doc_freq: dict[str, int]
    broader: dict[str, list[str]]
    total: int
    relatedness: RelatednessIndex
    names: set[str]  # every note name in the model
    registry: NameRegistry  # ... all reserved
    order: dict[str, int]  # paper id -> its place in the model's papers

    @classmethod
    def of(cls, model: VaultModel) -> "_LinkedCorpus":
        cached = model.caches.get("linked_corpus")
        if cached is not None:
            return cached
        by_spelling: dict[str, str] = {}
        concepts: dict[str, Concept] = {}
        for concept in model.concepts:
            key = concept_key(concept.name)
            concepts.setdefault(key, concept)
            for spelling in (concept.name, *concept.aliases):
                by_spelling.setdefault(concept_key(spelling), key)
        papers_of = {key: c.papers for key, c in concepts.items()}
        total = max(len(model.papers), 1)
        names = {*(p.name for p in model.papers), *(c.name for c in model.concepts),
                 *(c.name for c in model.collections)}
        registry = NameRegistry()
        for name in sorted(names):
            registry.reserve(name)
        corpus = cls(by_spelling, concepts, papers_of, {key: len(ids) for key, ids in papers_of.items()},
                     {key: [concept_key(b) for b in c.broader if concept_key(b) in concepts]
                      for key, c in concepts.items()},
                     total, model.caches.get("relatedness") or _relatedness_of(model), names, registry,
                     {p.id: place for place, p in enumerate(model.papers)})
        model.caches["linked_corpus"] = corpus
        return corpus


def _relatedness_of(model: VaultModel) -> RelatednessIndex:
    """The relatedness index of a model ``link`` did not make in this process (its papers'
    concepts are never broad ones; which ones only phrases found is not known: all count whole)."""
    return RelatednessIndex({p.id: text_terms(p.abstract.text) for p in model.papers},
                            {p.id: p.concepts for p in model.papers},
                            aliases={c.name: c.aliases for c in model.concepts})


def prepare_additions(model: VaultModel) -> None:
    """Work out now what ``link_additions`` will need of ``model`` (a watcher, between rounds)."""
    _LinkedCorpus.of(model)
    model.paper_ids()


def link_additions(model: VaultModel, abstracts: Sequence[Abstract], extracted: Sequence[Extracted],
                   taken_names: Iterable[str] = ()) -> VaultModel:
    """New papers linked quickly against a corpus already linked (``model``): a preview.

    For `vaultsync watch`, so a new seed file's notes appear at once: each new paper is linked
    to the concepts that already have notes, ranked and related against the corpus as it was,
    and named next to ``taken_names`` (the notes the vault has). What only the whole corpus can
    tell -- phrases this paper makes shared, new concepts, other papers' related lists -- waits
    for the next full ``link``, which keeps the names given here. Returns a model of the new
    papers, their related papers and their collections (for rendering the new papers' notes).
    """
    corpus = _LinkedCorpus.of(model)
    by_spelling, concepts, doc_freq, broader, total, relatedness = (
        corpus.by_spelling, corpus.concepts, corpus.doc_freq, corpus.broader, corpus.total, corpus.relatedness)

    index = ConceptIndex().build((a.id, f.extraction.concepts) for a, f in zip(abstracts, extracted))
    registry = corpus.registry.copy()
    for stem in set(taken_names).difference(corpus.names):  # (the vault's notes: 30,000 at 20,000 papers)
        registry.reserve(stem)
    collections = {c.collection.name: c for c in model.collections}
    new_collections: dict[str, list[str]] = defaultdict(list)
    papers = []
    asked: dict[str, tuple] = {}  # new paper id -> (its text terms, its concepts' names)
    for abstract, facts in zip(abstracts, extracted):
        shared: dict[str, Cluster] = {}  # the existing concept's key -> this paper's cluster of it
        for cluster_key in index.paper_keys.get(abstract.id, ()):
            cluster = index.clusters[cluster_key]
            known = next((by_spelling[k] for k in map(concept_key, (cluster_key, *cluster.aliases))
                          if k in by_spelling), None)
            if known is not None:
                shared.setdefault(known, cluster)
        keys = paper_concept_keys(abstract.id, shared, shared, doc_freq, total, broader)
        stem = registry.claim(safe_note_name(facts.name.name or facts.name.title), hints=(facts.name.title,))
        links = tuple((surface, concepts[key].name) for key in keys if key in shared
                      for surface in shared[key].surfaces.get(abstract.id, ()))
        names = tuple(concepts[key].name for key in keys)
        asked[abstract.id] = (text_terms(abstract.text), names)
        papers.append(Paper(
            abstract=abstract, name=stem, title=facts.name.title, gist=facts.name.gist,
            aliases=paper_aliases(abstract.id, facts, index, {}),
            concepts=names, links=links,
            urls=tuple(facts.extraction.metadata.get("urls", ())),
            metadata=frozen_mapping({k: v for k, v in facts.extraction.metadata.items() if k != "urls"}),
        ))
        new_collections[abstract.collection.name].append(abstract.id)
    related_of = relatedness.related_to_new_papers(asked)  # (asked, the index left as it is)
    papers = [replace(p, related=tuple(r.id for r in related_of[p.id]),
                      related_shares=tuple(r.shares for r in related_of[p.id])) for p in papers]
    infos = []
    for name, ids in sorted(new_collections.items()):
        known = collections.get(name)
        if known is not None:
            infos.append(replace(known, papers=tuple(ids)))  # only what the preview renders
        else:
            collection = next(a.collection for a in abstracts if a.collection.name == name)
            infos.append(CollectionInfo(registry.claim(safe_note_name(name)), collection, tuple(ids)))
    related = sorted({corpus.order[r] for p in papers for r in p.related if r in corpus.order})  # (model order)
    return VaultModel(papers=tuple(papers), concepts=(), collections=tuple(infos),
                      referenced=tuple(model.papers[place] for place in related))
