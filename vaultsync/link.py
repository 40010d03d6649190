"""Stage 3, link: from per-abstract facts to one connected vault model.

Dedupes abstracts, folds concept mentions into shared concepts (``ConceptIndex``), gives every
note a unique, file-name-safe name (keeping names of notes the user already has), builds the
broader/narrower hierarchy and finds each paper's related papers (``related_index.RelatednessIndex``).
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Callable, Iterable, Mapping, Sequence

from .canonical import concept_key
from .concept_index import UMBRELLA, Cluster, ConceptIndex, OwnNames, is_acronym
from .extract import Extracted
from .names import NameRegistry, safe_note_name
from .records import Abstract, CollectionInfo, Concept, ConceptMention, Paper, VaultModel, frozen_mapping
from .related import text_terms
from .related_index import RelatednessIndex

MAX_CONCEPTS_PER_PAPER = 8
MAX_FIELDS_PER_PAPER = 3
BROAD_NARROWER = 3  # a concept that is the broader concept of this many others is broad


def concept_id(key: str) -> str:
    return "concept-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def collection_id(name: str) -> str:
    return "collection-" + hashlib.sha256(name.casefold().encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class LinkOptions:
    """What the vault already says: names the user's notes have, notes the user deleted."""

    existing_names: Mapping[str, str] = field(default_factory=dict)  # vaultsync_id -> note stem
    deleted_ids: frozenset[str] = frozenset()
    user_concepts: Mapping[str, str] = field(default_factory=dict)  # concept key -> stem of the user's note
    # papers' mentions -> keys of the phrases to promote (``vaultsync_promote_phrases``); None: none
    promote_phrases: Callable[[list[tuple[ConceptMention, ...]]], set[str] | None] | None = None


def link(abstracts: Sequence[Abstract], extracted: Sequence[Extracted], options: LinkOptions = LinkOptions()
         ) -> VaultModel:
    """Build the vault model from abstracts (in order) and what was extracted from each."""
    # 1. one paper per abstract text, first occurrence wins; the user's deletions are respected
    seen: dict[str, int] = {}
    for index, abstract in enumerate(abstracts):
        if abstract.id not in seen and abstract.id not in options.deleted_ids:
            seen[abstract.id] = index
    chosen = list(seen.values())
    papers_in = [(abstracts[i], extracted[i]) for i in chosen]

    # 2. concepts across the corpus
    promote = options.promote_phrases
    promoted = set(promote([f.extraction.concepts for _, f in papers_in]) or ()) if promote is not None else set()
    index = ConceptIndex().build(((abstract.id, facts.extraction.concepts) for abstract, facts in papers_in),
                                 promoted)
    own_names = OwnNames.of(n for _, f in papers_in for n in (f.name.name, *f.name.aliases))
    # a concept note the user deleted stays deleted, unless they wrote one of their own for it
    # (is_shared_concept first: it turns most clusters down at once, before a hash is made)
    shared = {key: c for key, c in index.clusters.items()
              if index.is_shared_concept(c, promoted, own_names)
              and (concept_id(key) not in options.deleted_ids or key in options.user_concepts)}
    # the broader concepts a vocabulary names get notes too, so the graph has a hierarchy
    for cluster in list(shared.values()):
        for name in cluster.broader:
            upper = index.add_broader(name)
            if upper.key not in shared and concept_id(upper.key) not in options.deleted_ids \
                    and index.is_shared_concept(upper, promoted, own_names):
                shared[upper.key] = upper

    # 3. names: the user's existing names first, then concepts, collections, papers
    registry = NameRegistry()
    for stem in sorted([*options.existing_names.values(), *options.user_concepts.values()]):
        registry.reserve(stem)
    concept_names = _name_concepts(shared, registry, options.existing_names, options.user_concepts)
    broader = _broader_links(shared, concept_names)

    collections: dict[str, list[str]] = defaultdict(list)
    collection_of = {}
    for abstract, _ in papers_in:
        collections[abstract.collection.name].append(abstract.id)
        collection_of.setdefault(abstract.collection.name, abstract.collection)
    collection_names = {}
    for name in sorted(collections):
        cid = collection_id(name)
        collection_names[name] = options.existing_names.get(cid) or registry.claim(safe_note_name(name))

    # 4. papers: their concepts (most specific first), inline links, aliases
    doc_freq = {key: len(c.papers) for key, c in shared.items()}
    total = max(len(papers_in), 1)
    specificity = _Specificity(shared, doc_freq, total)
    broad = broad_concepts(broader, doc_freq, total)
    paper_concepts = {abstract.id: _paper_concept_keys(abstract.id, index.paper_keys.get(abstract.id, ()), shared,
                                                       doc_freq, total, broader, specificity, broad)
                      for abstract, _ in papers_in}
    paper_fields = {abstract.id: _paper_fields(abstract.id, index.paper_keys.get(abstract.id, ()), shared, broad)
                    for abstract, _ in papers_in}
    relatedness = RelatednessIndex({abstract.id: text_terms(abstract.text) for abstract, _ in papers_in},
                                   {pid: [concept_names[key] for key in keys] for pid, keys in paper_concepts.items()},
                                   {concept_names[key] for key in concept_names if _found_by_phrases_only(shared[key])},
                                   {concept_names[key]: tuple(shared[key].aliases) for key in concept_names})
    related_of = relatedness.related_all()
    papers = []
    for abstract, facts in papers_in:
        keys = paper_concepts[abstract.id]
        stem = options.existing_names.get(abstract.id) or registry.claim(
            safe_note_name(facts.name.name or facts.name.title), hints=(facts.name.title,))
        links = tuple([(surface, concept_names[key]) for key in keys  # (a list first: faster than a generator)
                       for surface in shared[key].surfaces.get(abstract.id, ())])
        related = related_of[abstract.id]
        papers.append(Paper(
            abstract=abstract, name=stem, title=facts.name.title, gist=facts.name.gist,
            aliases=_paper_aliases(abstract.id, facts, index, shared),
            concepts=tuple([concept_names[key] for key in keys]), links=links,
            urls=tuple(facts.extraction.metadata.get("urls", ())),
            related=tuple(r.id for r in related), related_shares=tuple(r.shares for r in related),
            metadata=frozen_mapping({k: v for k, v in facts.extraction.metadata.items() if k != "urls"}),
            fields=tuple(concept_names[key] for key in paper_fields[abstract.id]),
        ))

    # 5. concept notes list their papers and their place in the hierarchy
    narrower: dict[str, list[str]] = defaultdict(list)
    for key, uppers in broader.items():
        for upper in uppers:
            narrower[upper].append(key)
    mentioned_by: dict[str, list[str]] = defaultdict(list)
    for paper in papers:
        for key in (*paper_concepts[paper.id], *paper_fields[paper.id]):
            mentioned_by[key].append(paper.id)
    # a note for each concept papers mention, and up the hierarchy from there; no other
    emitted: set[str] = set()
    todo = [key for key in shared if mentioned_by.get(key)]
    while todo:
        key = todo.pop()
        if key not in emitted:
            emitted.add(key)
            todo.extend(broader.get(key, ()))
    concepts = []
    for key, cluster in shared.items():
        if key not in emitted:
            continue
        concepts.append(Concept(
            name=concept_names[key],
            id=concept_id(key),
            aliases=_concept_aliases(cluster, concept_names[key]),
            broader=tuple(concept_names[k] for k in broader.get(key, ())),
            narrower=tuple(sorted((concept_names[k] for k in narrower.get(key, ()) if k in emitted),
                                  key=str.casefold)),
            papers=tuple(mentioned_by.get(key, ())),
            user_note=key in options.user_concepts,
        ))
    concepts.sort(key=lambda c: c.name.casefold())
    model = VaultModel(
        papers=tuple(papers),
        concepts=tuple(concepts),
        collections=tuple(CollectionInfo(collection_names[n], collection_of[n], tuple(ids))
                          for n, ids in sorted(collections.items())),
    )
    model.caches["relatedness"] = relatedness  # what a preview relates new papers to
    return model


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
    for abstract, facts in zip(abstracts, extracted):
        shared: dict[str, Cluster] = {}  # the existing concept's key -> this paper's cluster of it
        for cluster_key in index.paper_keys.get(abstract.id, ()):
            cluster = index.clusters[cluster_key]
            known = next((by_spelling[k] for k in map(concept_key, (cluster_key, *cluster.aliases))
                          if k in by_spelling), None)
            if known is not None:
                shared.setdefault(known, cluster)
        keys = _paper_concept_keys(abstract.id, shared, shared, doc_freq, total, broader)
        stem = registry.claim(safe_note_name(facts.name.name or facts.name.title), hints=(facts.name.title,))
        links = tuple((surface, concepts[key].name) for key in keys if key in shared
                      for surface in shared[key].surfaces.get(abstract.id, ()))
        names = tuple(concepts[key].name for key in keys)
        related = relatedness.related_to_new(abstract.id, text_terms(abstract.text), names)
        papers.append(Paper(
            abstract=abstract, name=stem, title=facts.name.title, gist=facts.name.gist,
            aliases=_paper_aliases(abstract.id, facts, index, {}),
            concepts=names, links=links,
            urls=tuple(facts.extraction.metadata.get("urls", ())),
            metadata=frozen_mapping({k: v for k, v in facts.extraction.metadata.items() if k != "urls"}),
            related=tuple(r.id for r in related), related_shares=tuple(r.shares for r in related),
        ))
        new_collections[abstract.collection.name].append(abstract.id)
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


def _name_concepts(shared: dict[str, Cluster], registry: NameRegistry, existing: Mapping[str, str],
                   user_concepts: Mapping[str, str]) -> dict[str, str]:
    names = {}
    for key in sorted(shared, key=lambda k: (-len(shared[k].papers), k)):
        names[key] = (user_concepts.get(key) or existing.get(concept_id(key))
                      or registry.claim(safe_note_name(shared[key].name)))
    return names


def _broader_links(shared: dict[str, Cluster], names: dict[str, str]) -> dict[str, list[str]]:
    """`Offline Reinforcement Learning` -> `Reinforcement Learning`: the longest concept key this
    key ends with, plus the broader concepts the vocabulary states (when they have notes)."""
    by_name_key = {concept_key(names[k]): k for k in shared}
    links: dict[str, list[str]] = {}
    for key, cluster in shared.items():
        words = key.split()
        uppers: list[str] = []
        for start in range(1, len(words)):
            suffix = " ".join(words[start:])
            if suffix in shared and suffix != key and not is_acronym(names[suffix]):
                uppers.append(suffix)
                break
        for name in cluster.broader:
            upper = by_name_key.get(concept_key(name)) or (concept_key(name) if concept_key(name) in shared else None)
            if upper and upper != key and upper not in uppers:
                uppers.append(upper)
        if uppers:
            links[key] = uppers
    return links


class _Specificity(dict):
    """Concept key -> how specific the concept is: rare in the corpus, a long name, a
    vocabulary's. The same for every paper, so worked out once per key (on first use)."""

    def __init__(self, shared: Mapping[str, Cluster], doc_freq: Mapping[str, int], total: int) -> None:
        super().__init__()
        self.shared, self.doc_freq, self.total = shared, doc_freq, total

    def __missing__(self, key: str) -> float:
        idf = math.log((1 + self.total) / (1 + self.doc_freq[key])) + 1
        value = self[key] = idf * (1 + 0.15 * len(key.split())) * (1.5 if self.shared[key].canonical else 1.0)
        return value


def broad_concepts(broader: Mapping[str, Sequence[str]], doc_freq: Mapping[str, int], total: int) -> frozenset[str]:
    """The concepts too broad to say what a paper is about: the broader concept of three or more
    concepts of the corpus (`Reinforcement Learning` over `Offline RL`, `RLHF`, ...), an umbrella
    term (`Fine-Tuning`, `Benchmarks`), or a hub mentioned by more than a tenth of the papers (and
    at least 20). They keep their notes, reached through the narrower concepts' `broader` links."""
    narrower: dict[str, int] = defaultdict(int)
    for uppers in broader.values():
        for upper in uppers:
            narrower[upper] += 1
    hub = max(20, total // 10)
    return frozenset(key for key in doc_freq if key in UMBRELLA or narrower.get(key, 0) >= BROAD_NARROWER
                     or doc_freq[key] > hub)


def _paper_fields(paper_id, candidates, shared, broad: frozenset[str]) -> list[str]:
    """Up to 3 of the broad concepts the paper mentions, the most mentioned first."""
    found = [(-shared[key].papers[paper_id], key) for key in candidates if key in broad and key in shared]
    return [key for _, key in sorted(found)][:MAX_FIELDS_PER_PAPER]


def _paper_concept_keys(paper_id, candidates, shared, doc_freq, total, broader, specificity=None,
                        broad: frozenset[str] | None = None) -> list[str]:
    """Up to 6 of the paper's ``candidates`` (cluster keys), most specific first: rare in the
    corpus, salient here, long names; never a broad concept (see ``broad_concepts``), so a paper
    with little specific to say lists little. ``specificity``: a ``_Specificity`` of these
    ``shared`` clusters kept across papers (linking a whole corpus)."""
    if specificity is None:
        specificity = _Specificity(shared, doc_freq, total)
    if broad is None:
        broad = broad_concepts(broader, doc_freq, total)
    # (``6.0 if 6.0 < salience else salience`` is ``min(salience, 6.0)``, without the call)
    scored = sorted([(-specificity[key] * (6.0 if 6.0 < salience else salience) ** 0.5, key)
                     for key in candidates if key in shared and key not in broad
                     for salience in (shared[key].papers[paper_id],)])
    return [key for _, key in scored][:MAX_CONCEPTS_PER_PAPER]


def _paper_aliases(paper_id: str, facts: Extracted, index: ConceptIndex, shared) -> tuple[str, ...]:
    """The paper's own names: its method name and expansion, and acronyms it coined."""
    aliases: dict[str, None] = {}
    for alias in (facts.name.name, *facts.name.aliases, *facts.extraction.paper_aliases):
        if alias:
            aliases.setdefault(alias, None)
    for key in index.paper_keys.get(paper_id, ()):
        if key in shared:  # (most of them: asked first)
            continue
        cluster = index.clusters[key]
        if not cluster.kinds.get("acronym-coined"):
            continue
        for name in (*cluster.aliases, cluster.name):
            aliases.setdefault(name, None)
    return tuple(a for a in aliases if a != facts.name.title)


def _concept_aliases(cluster: Cluster, name: str) -> tuple[str, ...]:
    """Acronyms, spelling variants and singular/plural forms, without repeats of the name."""
    seen = {name.casefold()}
    aliases = []
    # each spelling once, in order of first appearance (a concept of 200 papers is spelled the
    # same way in most of them; a repeat would change nothing below)
    candidates = dict.fromkeys(chain(cluster.aliases, cluster.names, *cluster.surfaces.values()))
    for alias in candidates:
        alias = " ".join(alias.split())
        if alias and alias.casefold() not in seen and "[[" not in alias and "|" not in alias:
            seen.add(alias.casefold())
            aliases.append(alias)
    return tuple(sorted(aliases, key=lambda a: (not is_acronym(a), a.casefold())))


def _found_by_phrases_only(cluster: Cluster) -> bool:
    return not cluster.canonical and all(kind == "phrase" for kind in cluster.kinds)
