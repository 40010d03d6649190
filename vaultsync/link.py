"""Stage 3, link: from per-abstract facts to one connected vault model, kept between runs.

Dedupes abstracts, folds concept mentions into shared concepts (``concept_fold``), gives every
note a unique, file-name-safe name (keeping names of notes the user already has), builds the
broader/narrower hierarchy and finds each paper's related papers (``related_index``); the rules
are in ``link_rules``. ``link()`` links a corpus once. A ``Linker`` that linked before works out
only what the difference touches:

* the papers added and removed fold their concept mentions in or out (``FoldedConcepts``), and
  the phrases they mention are promoted again for the papers that share them;
* the concepts those clusters, promotions and the papers' own names touch are decided again
  (shared or not); new shared concepts are named; names given are kept;
* the corpus-wide tables that are cheap (the hierarchy, which concepts are broad, each concept's
  weight) are worked out again whole and compared: a paper ranks its concepts again only when
  it changed, or one of its clusters changed its weight or whether it is shared;
* the related papers are updated by the relatedness index for the papers whose text or concept
  list changed;
* a paper's or concept's record is made again only when something it shows may have changed.

Every corpus statistic is banded (``bands``): one new paper moves a weight only at a band's
edge, and when the corpus size crosses one, everything is linked again (rare: at 20,000 papers
the next edge is 23,170). The model is a function of the set of abstracts: the order they came
in, and how many runs brought them, change nothing (``tests/test_linker.py``), except the note
names claimed, which are history by design (a name once given is kept).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import chain
from typing import Sequence

from .bands import size_band
from .canonical import concept_key
from .concept_fold import FoldedConcepts
from .concept_index import Cluster, OwnNames
from .extract import Extracted
from .link_rules import (LinkOptions, Specificity, broad_concepts, broader_links, collection_id, concept_aliases, concept_id, found_by_phrases_only, paper_aliases,
                         paper_concept_keys, paper_fields)
from .names import NameRegistry, safe_note_name
from .records import Abstract, CollectionInfo, Concept, Paper, VaultModel, frozen_mapping
from .related import text_terms
from .related_ask import RelatednessIndex
from .related_index import RelatedIndex


def link(abstracts: Sequence[Abstract], extracted: Sequence[Extracted], options: LinkOptions = LinkOptions()
         ) -> VaultModel:
    """The vault model of ``abstracts`` (in order) and what was extracted from each, linked once."""
    return Linker(keep=False).link(abstracts, extracted, options)


class Linker:
    """See the module docstring. One per vault; not thread-safe.

    ``keep=False`` (a one-shot export): nothing is kept for a next update, so the corpus is
    folded and its phrases promoted whole, without the per-paper tables an update reads (less
    memory and time; the same model). Each ``link`` then starts over."""

    def __init__(self, keep: bool = True) -> None:
        self.keep = keep
        self._reset()

    def _reset(self) -> None:
        self.band = -1
        self.papers: dict[str, tuple[Abstract, Extracted]] = {}
        self.order: list[str] = []
        self.promoter: object = None
        self.promoted: set[str] = set()
        # phrase promotion paper by paper: each paper's phrases, how many papers have each, what
        # each paper promotes, how many papers promote each
        self.phrases: dict[str, dict] = {}
        self.phrase_df: Counter = Counter()
        self.phrase_papers: dict[str, set[str]] = defaultdict(set)
        self.tops: dict[str, frozenset[str]] = {}
        self.promoters: Counter = Counter()
        self.fold = FoldedConcepts()
        self.own: Counter = Counter()  # concept keys of the papers' own names -> papers naming so
        self.decided: dict[str, bool] = {}  # cluster key -> is_shared_concept
        self.shared: dict[str, Cluster] = {}
        self.existing: dict[str, str] = {}  # the options' names the registry holds (``existing_names``)
        self.registry = NameRegistry()
        self.given: dict[str, str] = {}  # vaultsync id -> the note name this linker gave it
        self.concept_names: dict[str, str] = {}  # shared key -> note name
        self.weights: dict[str, tuple[float, bool]] = {}  # shared key -> (specificity, broad)
        self.paper_concepts: dict[str, list[str]] = {}
        self.paper_fields: dict[str, list[str]] = {}
        self.mentioned_by: dict[str, set[str]] = defaultdict(set)
        self.related = RelatedIndex()
        self.records: dict[str, Paper] = {}
        self.concept_records: dict[str, Concept] = {}  # shared key -> its note's record
        self.hierarchy: dict[str, tuple] = {}  # shared key -> (broader keys, narrower keys) its record shows
        self.listed: set[str] = set()  # keys whose papers changed in this update
        self.renamed: set[str] = set()  # keys whose name changed in this update
        self.reordered = False  # the papers' order changed in this update: every list again

    # -- the one entry point ---------------------------------------------------------------------

    def link(self, abstracts: Sequence[Abstract], extracted: Sequence[Extracted],
             options: LinkOptions = LinkOptions()) -> VaultModel:
        """The model of ``abstracts`` (in order; the first of two equal texts counts) and what was
        extracted from each."""
        seen: dict[str, int] = {}
        for index, abstract in enumerate(abstracts):
            if abstract.id not in seen and abstract.id not in options.deleted_ids:
                seen[abstract.id] = index
        chosen = {abstracts[i].id: (abstracts[i], extracted[i]) for i in seen.values()}
        promoter = options.paper_promotions or options.promote_phrases
        if size_band(len(chosen)) != self.band or promoter is not self.promoter or not self.keep:
            self._reset()
            self.band, self.promoter = size_band(len(chosen)), promoter
        gone = {pid: entry for pid, entry in self.papers.items()
                if pid not in chosen or (chosen[pid][1] is not entry[1] and chosen[pid][1] != entry[1])}
        added = {pid for pid in chosen if pid not in self.papers or pid in gone}
        moved = {pid for pid, (abstract, _) in chosen.items() if pid not in added and self.papers[pid][0] != abstract}
        reordered = [pid for pid in self.order if pid in chosen and pid not in added] != \
            [pid for pid in chosen if pid in self.papers and pid not in added]
        self.papers = chosen
        self.order = list(chosen)
        self.listed, self.reordered = set(), reordered
        model = self._update(added, gone, moved | (set(chosen) if reordered else set()), options)
        if not self.keep:
            self._reset()  # (what an update would read: let it go with the stage)
        return model

    # -- the steps -------------------------------------------------------------------------------

    def _update(self, added: set[str], gone: dict, moved: set[str], options: LinkOptions) -> VaultModel:
        total = max(len(self.papers), 1)
        promoted_changed = self._promote(added, gone, options)
        if self.keep:
            touched, refolded = self.fold.update({pid: self.papers[pid][1].extraction.concepts
                                                  for pid in self.order if pid in added},
                                                 set(gone), self.promoted, promoted_changed)
        else:
            touched, refolded = self.fold.build([(pid, self.papers[pid][1].extraction.concepts)
                                                 for pid in self.order], self.promoted), set(added)
        own_changed = self._own_names(added, gone)
        renamed_ids = self._reserve(options)
        status = self._decide(touched | promoted_changed | own_changed, options)
        names_before = self.concept_names
        renamed = self.renamed = self._name_concepts(options)
        self.named = set(self.concept_names.values())
        broader = broader_links(self.shared, self.concept_names)
        doc_freq = {key: len(c.papers) for key, c in self.shared.items()}
        specificity = Specificity(self.shared, doc_freq, total)
        broad = broad_concepts(broader, doc_freq, total)
        weights = {key: (specificity[key], key in broad) for key in self.shared}
        reweighed = {key for key in weights.keys() | self.weights.keys() if weights.get(key) != self.weights.get(key)}
        self.weights = weights
        rerank = added | refolded
        for key in reweighed | status:
            cluster = self.fold.clusters.get(key)
            if cluster is not None:
                rerank.update(cluster.papers)
        rerank &= self.papers.keys()
        lists_changed = self._rank(rerank, gone, doc_freq, total, broader, specificity, broad)
        related_changed = self._relate(added, gone, lists_changed, renamed, touched | status, names_before)
        # a paper shows its name, aliases (a coined acronym's cluster), lists and related papers
        dirty = added | moved | lists_changed | related_changed | refolded | renamed_ids
        for key in status | renamed | touched:  # (a coined acronym of no shared concept is an alias of its paper)
            cluster = self.fold.clusters.get(key)
            if cluster is not None and (key in status or key in renamed
                                        or (key not in self.shared and cluster.kinds.get("acronym-coined"))):
                dirty.update(cluster.papers)
        return self._model(dirty & self.papers.keys(), gone, broader, touched | status | renamed, options)

    def _reserve(self, options: LinkOptions) -> set[str]:
        """The registry told of the names the options hold that it does not know yet; returns
        the ids whose name the vault changed (a note the user renamed)."""
        names = options.existing_names
        before, self.existing = self.existing, names
        if names is before:
            return set()
        changed = {pid for pid, _ in names.items() ^ before.items()}  # (in C: 20,000 names every round)
        for stem in sorted([*(names[pid] for pid in changed if pid in names), *options.user_concepts.values()]):
            self.registry.reserve(stem)
        return {pid for pid in changed if (names.get(pid) or self.given.get(pid)) != (before.get(pid) or self.given.get(pid))}

    def _promote(self, added: set[str], gone: dict, options: LinkOptions) -> set[str]:
        """The phrases promoted to concepts, again; returns the keys whose promotion changed."""
        before = self.promoted
        rule = options.paper_promotions
        if rule is None or not self.keep:  # a plugin's rule over the whole corpus (or nothing kept): asked again
            promote = options.promote_phrases
            mentions = [self.papers[pid][1].extraction.concepts for pid in self.order]
            self.promoted = set(promote(mentions) or ()) if promote is not None else set()
            return before ^ self.promoted
        n, df = len(self.papers), self.phrase_df
        counts_before: dict[str, int] = {}
        for pid in gone:
            for key in self.phrases.pop(pid, {}):
                counts_before.setdefault(key, df[key])
                df[key] -= 1
                self.phrase_papers[key].discard(pid)
            for key in self.tops.pop(pid, ()):
                self.promoters[key] -= 1
        for pid in self.order:
            if pid in added:
                keyed = self.phrases[pid] = rule.keyed(self.papers[pid][1].extraction.concepts)
                for key in keyed:
                    counts_before.setdefault(key, df[key])
                    df[key] += 1
                    self.phrase_papers[key].add(pid)
        again = set(added)
        for key, was in counts_before.items():
            now = df[key]
            if rule.weight(was, n) != rule.weight(now, n):
                again.update(self.phrase_papers[key])
            if not now:
                del df[key]
                del self.phrase_papers[key]
        for pid in again & self.papers.keys():
            top = rule.paper_top(self.phrases[pid], df, n)
            self.promoters.subtract(self.tops.get(pid, ()))
            self.promoters.update(top)
            self.tops[pid] = top
        self.promoters = +self.promoters
        self.promoted = set(self.promoters)
        return before ^ self.promoted

    def _own_names(self, added: set[str], gone: dict) -> set[str]:
        """The concept keys of the names papers give themselves whose count left or reached 0."""
        changed = set()
        for entries, step in ((gone.values(), -1), ((self.papers[pid] for pid in added), 1)):
            for _, facts in entries:
                for name in (facts.name.name, *facts.name.aliases):
                    if name:
                        key = concept_key(name)
                        count = self.own[key] = self.own[key] + step
                        if count == (1 if step > 0 else 0):
                            changed.add(key)
        self.own = +self.own
        return changed

    def _decide(self, keys: set[str], options: LinkOptions) -> set[str]:
        """Which clusters get shared concept notes, asked again of ``keys``; returns the keys whose
        answer changed (or whose cluster is another one)."""
        own = OwnNames(frozenset(self.own))
        clusters = self.fold.clusters
        for key in keys:
            cluster = clusters.get(key)
            if cluster is None:
                self.decided.pop(key, None)
            else:
                self.decided[key] = self.fold.index.is_shared_concept(cluster, self.promoted, own)
        deleted, user = options.deleted_ids, options.user_concepts
        shared = {key: clusters[key] for key, yes in self.decided.items()
                  if yes and (key in user or concept_id(key) not in deleted)}
        self.fold.begin_broader()
        for cluster in list(shared.values()):
            for name in cluster.broader:
                upper = self.fold.broader_cluster(name)
                if upper.key not in shared and concept_id(upper.key) not in deleted \
                        and self.fold.index.is_shared_concept(upper, self.promoted, own):
                    shared[upper.key] = upper
        for key, cluster in shared.items():  # a broader concept only the vocabulary names: the same as before?
            old = self.shared.get(key)
            if not cluster.papers and old is not None and not old.papers and old.canonical == cluster.canonical \
                    and old.names == cluster.names:
                shared[key] = old
        status = shared.keys() ^ self.shared.keys()
        status.update(key for key, cluster in shared.items() if self.shared.get(key) is not cluster)
        self.shared = shared
        return status

    def _name_concepts(self, options: LinkOptions) -> set[str]:
        """Note names for the shared concepts: the user's, the vault's, else the one given, else
        a new one (the commonest concepts claim first); returns the keys whose name changed."""
        names, renamed = {}, set()
        for key in sorted(self.shared, key=lambda k: (-len(self.shared[k].papers), k)):
            cid = concept_id(key)
            name = options.user_concepts.get(key) or options.existing_names.get(cid) or self.given.get(cid)
            if name is None:
                name = self.given[cid] = self.registry.claim(safe_note_name(self.shared[key].name))
            names[key] = name
            if self.concept_names.get(key) != name:
                renamed.add(key)
        renamed.update(self.concept_names.keys() - names.keys())
        self.concept_names = names
        return renamed

    def _rank(self, rerank, gone, doc_freq, total, broader, specificity, broad) -> set[str]:
        """Each of ``rerank``'s concepts and fields, again; returns the papers whose lists changed."""
        changed = set()
        for pid in gone:
            for key in (*self.paper_concepts.pop(pid, ()), *self.paper_fields.pop(pid, ())):
                self.mentioned_by[key].discard(pid)
                self.listed.add(key)
        paper_keys = self.fold.index.paper_keys
        for pid in rerank:
            candidates = paper_keys.get(pid, ())
            keys = paper_concept_keys(pid, candidates, self.shared, doc_freq, total, broader, specificity, broad)
            fields = paper_fields(pid, candidates, self.shared, broad)
            old_keys, old_fields = self.paper_concepts.get(pid), self.paper_fields.get(pid)
            if keys != old_keys or fields != old_fields:
                changed.add(pid)
                for key in (*(old_keys or ()), *(old_fields or ())):
                    self.mentioned_by[key].discard(pid)
                    self.listed.add(key)
                for key in (*keys, *fields):
                    self.mentioned_by[key].add(pid)
                    self.listed.add(key)
            self.paper_concepts[pid], self.paper_fields[pid] = keys, fields
        return changed

    def _relate(self, added, gone, lists_changed, renamed, clusters_changed, names_before) -> set[str]:
        """The relatedness index told what changed; returns the papers whose related list changed."""
        names = self.concept_names
        texts = _Terms({pid: None for pid in gone if pid not in self.papers})
        texts.update({pid: self.papers[pid][0].text for pid in self.order if pid in added})
        listing = set(lists_changed) | set(added)
        for key in renamed:
            cluster = self.fold.clusters.get(key)
            if cluster is not None:
                listing.update(pid for pid in cluster.papers if pid in self.paper_concepts)
        concepts = {pid: [names[key] for key in self.paper_concepts[pid]] for pid in listing if pid in self.papers}
        phrases: dict[str, bool] = {}
        aliases: dict[str, tuple[str, ...] | None] = {}
        for key in renamed:  # a name no concept has any more
            old = names_before.get(key)
            if old is not None and old not in self.named:
                phrases[old], aliases[old] = False, None
        for key in clusters_changed | renamed:
            if key in names:
                cluster = self.shared[key]
                phrases[names[key]], aliases[names[key]] = found_by_phrases_only(cluster), tuple(cluster.aliases)
        return self.related.update(texts, concepts, phrases, aliases)

    def _model(self, dirty: set[str], gone: dict, broader, concepts_touched: set[str],
               options: LinkOptions) -> VaultModel:
        for pid in gone:
            if pid not in self.papers:
                self.records.pop(pid, None)
        # names: the vault's first, else the one given; new ones are claimed by concepts (see
        # ``_name_concepts``), collections, then papers in order
        collections = self._collections(options)
        papers = []
        for pid in self.order:
            record = self.records.get(pid)
            if record is None or pid in dirty:
                made = self._paper(pid, options)
                if made != record:  # (an unchanged note keeps its record: the write stage skips it)
                    record = self.records[pid] = made
            papers.append(record)
        model = VaultModel(papers=tuple(papers), concepts=self._concepts(broader, concepts_touched, options),
                           collections=collections)
        if self.keep:  # what a watcher's preview relates new papers to: the index kept up to date
            model.caches["relatedness"] = RelatednessIndex.over(self.related)
        return model

    def _paper(self, pid: str, options: LinkOptions) -> Paper:
        abstract, facts = self.papers[pid]
        names, keys, shared = self.concept_names, self.paper_concepts[pid], self.shared
        stem = options.existing_names.get(pid) or self.given.get(pid)
        if stem is None:
            stem = self.given[pid] = self.registry.claim(safe_note_name(facts.name.name or facts.name.title),
                                                         hints=(facts.name.title,))
        related = self.related.related(pid)
        return Paper(
            abstract=abstract, name=stem, title=facts.name.title, gist=facts.name.gist,
            aliases=paper_aliases(pid, facts, self.fold.index, shared),
            concepts=tuple([names[key] for key in keys]),
            links=tuple([(surface, names[key]) for key in keys for surface in shared[key].surfaces.get(pid, ())]),
            urls=tuple(facts.extraction.metadata.get("urls", ())),
            related=tuple(r.id for r in related), related_shares=tuple(r.shares for r in related),
            metadata=frozen_mapping({k: v for k, v in facts.extraction.metadata.items() if k != "urls"}),
            fields=tuple(names[key] for key in self.paper_fields[pid]),
        )

    def _concepts(self, broader, touched: set[str], options: LinkOptions) -> tuple[Concept, ...]:
        """The concept notes: one for each concept papers list, and up the hierarchy from there;
        a record is made again only when its cluster, name, papers, hierarchy or user note changed."""
        narrower: dict[str, list[str]] = defaultdict(list)
        for key, uppers in broader.items():
            for upper in uppers:
                narrower[upper].append(key)
        emitted: set[str] = set()
        todo = [key for key in self.shared if self.mentioned_by.get(key)]
        while todo:
            key = todo.pop()
            if key not in emitted:
                emitted.add(key)
                todo.extend(broader.get(key, ()))
        names, place, records = self.concept_names, None, self.concept_records
        dirty = emitted if self.reordered else touched | self.listed
        for key in list(records):
            if key not in emitted:
                del records[key]
        for key in emitted:
            hierarchy = (tuple(broader.get(key, ())), tuple(k for k in narrower.get(key, ()) if k in emitted))
            record = records.get(key)
            if record is not None and key not in dirty and self.hierarchy.get(key) == hierarchy \
                    and record.user_note == (key in options.user_concepts) \
                    and not (self.renamed and self.renamed.intersection(chain(*hierarchy))):
                continue
            self.hierarchy[key] = hierarchy
            if place is None:
                place = {pid: n for n, pid in enumerate(self.order)}
            name = names[key]
            records[key] = Concept(
                name=name, id=concept_id(key), aliases=concept_aliases(self.shared[key], name),
                broader=tuple(names[k] for k in hierarchy[0]),
                narrower=tuple(sorted((names[k] for k in hierarchy[1]), key=str.casefold)),
                papers=tuple(sorted(self.mentioned_by.get(key, ()), key=place.__getitem__)),
                user_note=key in options.user_concepts)
        concepts = sorted(records.values(), key=lambda c: (c.name.casefold(), c.name))
        return tuple(concepts)

    def _collections(self, options: LinkOptions) -> tuple[CollectionInfo, ...]:
        members: dict[str, list[str]] = defaultdict(list)
        first = {}
        for pid in self.order:
            collection = self.papers[pid][0].collection
            members[collection.name].append(pid)
            first.setdefault(collection.name, collection)
        infos = []
        for name in sorted(members):
            cid = collection_id(name)
            stem = options.existing_names.get(cid) or self.given.get(cid)
            if stem is None:
                stem = self.given[cid] = self.registry.claim(safe_note_name(name))
            infos.append(CollectionInfo(stem, first[name], tuple(members[name])))
        return tuple(infos)


class _Terms(dict):
    """Paper id -> its abstract's ``text_terms`` (None: the paper is gone), each worked out when
    the relatedness index asks for it and let go after: a whole corpus's at once would be 3
    million counts at 20,000 papers (the peak of a one-shot export's memory)."""

    def __getitem__(self, paper_id: str):
        text = super().__getitem__(paper_id)
        return None if text is None else text_terms(text)

    def items(self):
        return ((paper_id, self[paper_id]) for paper_id in self)

    def values(self):
        return (self[paper_id] for paper_id in self)
