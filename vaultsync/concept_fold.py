"""The corpus's concept clusters kept as papers come and go (issue 22): ``ConceptIndex.build``,
updated for what changed instead of folded again whole.

A paper's mentions fold by rules that read the corpus in three ways only (``ConceptIndex``): the
aliases the vocabulary and the corpus's acronym definitions teach (the *spelling tables*), which
keys other evidence made clusters (a phrase counts when it names one), and which phrases are
promoted. So an update

1. counts the vocabulary spellings and acronym definitions the papers added and removed bring,
   and works the spelling tables out again when a distinct one came or went (a few milliseconds);
2. folds again the papers that are new, or that mention a key whose entry in those tables
   changed, or a phrase whose "counts" answer changed;
3. adds what a paper now contributes to its clusters, and builds again from its papers' folded
   mentions each cluster that lost something.

The clusters are those ``ConceptIndex.build`` makes of the same papers (``tests/test_linker.py``);
the fold is order-free, so the order papers came in changes nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable, Mapping, Sequence

from .canonical import concept_key
from .concept_index import Cluster, ConceptIndex
from .records import ConceptMention

Folded = list[tuple[str, ConceptMention, str]]  # (cluster key, mention as it counts, kind)


class FoldedConcepts:
    """See the module docstring."""

    def __init__(self) -> None:
        self.index = ConceptIndex()
        self.mentions: dict[str, Sequence[ConceptMention]] = {}
        self.firsts: dict[str, Folded] = {}  # paper -> its folded mentions but phrases
        self.phrases: dict[str, Folded] = {}  # paper -> its folded phrase mentions
        self.spellings: Counter = Counter()  # vocabulary spelling (name, aliases) or acronym definition -> mentions
        self.examples: dict[tuple, ConceptMention] = {}  # ... and one mention of each
        self.reads: dict[str, set[str]] = defaultdict(set)  # key a paper's fold looks up -> papers
        self.raw_phrases: dict[str, set[str]] = defaultdict(set)  # a phrase mention's key -> papers
        self.first_keys: Counter = Counter()  # cluster key -> folded mentions but phrases
        self._broader: dict[str, Cluster] = {}

    @property
    def clusters(self) -> dict[str, Cluster]:
        return self.index.clusters

    # -- updating --------------------------------------------------------------------------------

    def build(self, papers: list[tuple[str, Sequence[ConceptMention]]], promoted: set[str]) -> set[str]:
        """Fold a whole corpus at once, keeping nothing an update would read (a one-shot export:
        ``ConceptIndex.build``); returns every cluster key."""
        self.index = ConceptIndex().build(papers, promoted)
        return set(self.index.clusters)


    def update(self, added: Mapping[str, Sequence[ConceptMention]], removed: Iterable[str], promoted: set[str],
               promoted_changed: set[str]) -> tuple[set[str], set[str]]:
        """Papers in and out; returns (the cluster keys whose cluster changed, the papers whose
        folded mentions changed: the new ones among them)."""
        removed = [pid for pid in removed if pid in self.mentions]
        tables_moved = False
        for pid in removed:
            tables_moved |= self._count(pid, self.mentions.pop(pid), -1)
        for pid, mentions in added.items():
            self.mentions[pid] = mentions
            tables_moved |= self._count(pid, mentions, 1)
        looked_up = self._spelling_tables() if tables_moved else set()
        losing: dict[str, set[str]] = defaultdict(set)  # cluster key -> papers whose contribution went or changed
        gaining: dict[str, set[str]] = defaultdict(set)  # cluster key -> papers that contribute anew
        first_keys_before = set(self.first_keys)
        for pid in removed:
            firsts = self.firsts.pop(pid, ())
            self.first_keys.subtract(key for key, _, _ in firsts)
            for key, _, _ in (*firsts, *self.phrases.pop(pid, ())):
                losing[key].add(pid)
            self.index.paper_keys.pop(pid, None)
            self.index._defined.pop(pid, None)
        # 2. fold again: the mentions but phrases first (they decide which phrases count)
        changed: set[str] = set()
        again = (set(added) | {pid for key in looked_up for pid in self.reads.get(key, ())}) & self.mentions.keys()
        for pid in again:
            folded = self.index.fold_firsts(pid, [m for m in self.mentions[pid] if m.kind != "phrase"])
            old = self.firsts.get(pid, [])
            if old != folded or pid not in self.firsts:
                self.first_keys.subtract(key for key, _, _ in old)
                self.first_keys.update(key for key, _, _ in folded)
                self._diff(pid, old, folded, losing, gaining)
                self.firsts[pid] = folded
                changed.add(pid)
        self.first_keys = +self.first_keys
        counting = (first_keys_before ^ set(self.first_keys)) | promoted_changed | looked_up
        phrase_again = (again | {pid for key in counting for pid in self.raw_phrases.get(key, ())}) & self.mentions.keys()
        first_keys, aliases = self.first_keys, self.index._alias_keys
        counts = (lambda key: key in promoted or key in first_keys or aliases.get(key) is not None)
        for pid in phrase_again:
            folded = self.index.fold_phrases(pid, self.mentions[pid], promoted, counts)
            old = self.phrases.get(pid, [])
            if old != folded:
                self._diff(pid, old, folded, losing, gaining)
                self.phrases[pid] = folded
                changed.add(pid)
        # 3. the clusters: built again where something went, added to where only something came
        clusters = self.index.clusters
        for key in losing.keys() | gaining.keys():
            if key in losing:
                old = clusters.pop(key, None)
                contributors, cluster = (set(old.papers) if old else set()) | gaining.get(key, set()), Cluster(key)
            else:
                contributors, cluster = gaining[key], clusters.get(key) or Cluster(key)
            for pid in sorted(contributors):
                for k, mention, kind in (*self.firsts.get(pid, ()), *self.phrases.get(pid, ())):
                    if k == key:
                        cluster.add(pid, mention, kind)
            if cluster.papers:
                clusters[key] = cluster
            else:
                clusters.pop(key, None)
        for pid in changed:
            self.index.paper_keys[pid] = dict.fromkeys(key for key, _, _ in (*self.firsts.get(pid, ()),
                                                                             *self.phrases.get(pid, ())))
        return set(losing.keys() | gaining.keys()), changed

    def _count(self, pid: str, mentions: Sequence[ConceptMention], step: int) -> bool:
        """Count (or uncount) a paper's spellings and the keys its fold looks up; True when a
        distinct vocabulary spelling or acronym definition came or went."""
        moved = False
        for mention in mentions:
            key = concept_key(mention.name)
            postings = self.raw_phrases if mention.kind == "phrase" else self.reads
            if step > 0:
                postings[key].add(pid)
            else:
                postings[key].discard(pid)
                if not postings[key]:
                    del postings[key]
            if mention.kind == "vocabulary" or mention.kind.startswith("acronym"):
                spelling = (mention.kind == "vocabulary", mention.name, tuple(mention.aliases))
                count = self.spellings[spelling] = self.spellings[spelling] + step
                if count == 0:
                    del self.spellings[spelling]
                    del self.examples[spelling]
                    moved = True
                elif count == 1 and step > 0:
                    self.examples[spelling] = mention
                    moved = True
        return moved

    def _spelling_tables(self) -> set[str]:
        """The alias tables worked out again from the distinct spellings; returns the keys whose
        entries changed."""
        fresh = ConceptIndex()
        examples = [m for _, m in sorted(self.examples.items(), key=lambda item: item[0])]
        fresh._learn_all_aliases(m for m in examples if m.kind == "vocabulary")
        fresh._learn_acronym_aliases(examples)
        index = self.index
        changed = set()
        for new, old in ((fresh._alias_keys, index._alias_keys), (fresh._acronyms, index._acronyms),
                         (fresh._alias_words, index._alias_words)):
            changed.update(key for key in new.keys() | old.keys() if new.get(key) != old.get(key))
        index._alias_keys, index._acronyms, index._alias_words = fresh._alias_keys, fresh._acronyms, fresh._alias_words
        return changed

    @staticmethod
    def _diff(pid: str, old: Folded, new: Folded, losing, gaining) -> None:
        """Which clusters lose or gain by a paper's folded mentions going from ``old`` to ``new``."""
        before: dict[str, list] = defaultdict(list)
        after: dict[str, list] = defaultdict(list)
        for key, mention, kind in old:
            before[key].append((mention, kind))
        for key, mention, kind in new:
            after[key].append((mention, kind))
        for key in before.keys() | after.keys():
            if before.get(key) != after.get(key):
                (losing if key in before else gaining)[key].add(pid)

    # -- broader concepts the vocabulary names ---------------------------------------------------

    def begin_broader(self) -> None:
        """Forget the broader concepts made so far (the shared concepts naming them are decided again)."""
        self._broader = {}

    def broader_cluster(self, name: str) -> Cluster:
        """``ConceptIndex.add_broader`` without changing the fold: the cluster of a broader
        concept a vocabulary names (the corpus's, else one made for it and kept until the
        shared concepts are decided again: ``begin_broader``)."""
        key = concept_key(name)
        key = self.index._alias_keys.get(key) or key
        cluster = self.index.clusters.get(key)
        if cluster is not None:
            return cluster
        cluster = self._broader.get(key)
        if cluster is None:
            cluster = self._broader[key] = Cluster(key, canonical=name)
            cluster.saw(name)
        elif name not in cluster.names:
            if (name.casefold(), name) < (cluster.canonical.casefold(), cluster.canonical):
                cluster.canonical = name
            cluster.saw(name)
        return cluster
