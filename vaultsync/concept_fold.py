"""The corpus's concept clusters kept as papers come and go (issue 22): ``ConceptIndex.build``,
updated for what changed instead of folded again whole.

A paper's mentions fold by rules that read the corpus in three ways only (``ConceptIndex``): the
aliases the vocabulary and the corpus's acronym definitions teach (the *spelling tables*), which
keys other evidence made clusters (a phrase counts when it names one), and which phrases are
promoted. So an update

1. counts the vocabulary spellings and acronym definitions the papers added and removed bring,
   and works the spelling tables out again whole when a distinct vocabulary spelling came or
   went (rare), else only the entries of the acronym definitions that came or went (nearly every
   new paper defines one: working the tables out whole cost a round 0.14 s at 20,000 papers);
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
        # the spelling tables in two layers: what the vocabulary's spellings teach (worked out
        # again whole when one comes or goes: rare), and which concept each acronym definition's
        # long form would join through them (counted per distinct definition: one coming or
        # going moves its own key only)
        self._moved: dict[tuple, tuple[ConceptMention, int]] = {}  # spelling -> (a mention, net count change)
        self._vocabulary = ConceptIndex()  # the tables the vocabulary's spellings alone teach
        self._vocabulary_keys: set[str] = set()
        self._candidates: dict[str, Counter] = {}  # acronym definition's key -> the concepts its definitions join

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
        self._moved = {}
        for pid in removed:
            self._count(pid, self.mentions.pop(pid), -1)
        for pid, mentions in added.items():
            self.mentions[pid] = mentions
            self._count(pid, mentions, 1)
        moved = {spelling: entry for spelling, entry in self._moved.items() if entry[1]}
        if any(vocabulary for vocabulary, _, _ in moved):
            looked_up = self._spelling_tables()
        else:
            looked_up = self._acronym_tables(moved.values()) if moved else set()
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

    def _count(self, pid: str, mentions: Sequence[ConceptMention], step: int) -> None:
        """Count (or uncount) a paper's spellings and the keys its fold looks up; a distinct
        vocabulary spelling or acronym definition that came or went is noted in ``_moved``."""
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
                elif count == 1 and step > 0:
                    self.examples[spelling] = mention
                else:
                    continue
                _, net = self._moved.get(spelling, (mention, 0))
                self._moved[spelling] = (mention, net + step)

    def _spelling_tables(self) -> set[str]:
        """The alias tables worked out again from the distinct spellings (``ConceptIndex.build``'s
        first step); returns the keys whose entries changed."""
        vocabulary = ConceptIndex()
        examples = [m for _, m in sorted(self.examples.items(), key=lambda item: item[0])]
        vocabulary._learn_all_aliases(m for m in examples if m.kind == "vocabulary")
        self._vocabulary = vocabulary
        self._vocabulary_keys = {concept_key(m.name) for m in examples if m.kind == "vocabulary"}
        self._candidates = {}
        for mention in examples:
            self._candidate(mention, 1)
        alias_keys = dict(vocabulary._alias_keys)
        alias_keys.update((key, target) for key in self._candidates if (target := self._target(key)))
        index = self.index
        changed = set()
        for new, old in ((alias_keys, index._alias_keys), (vocabulary._acronyms, index._acronyms),
                         (vocabulary._alias_words, index._alias_words)):
            changed.update(key for key in new.keys() | old.keys() if new.get(key) != old.get(key))
        index._alias_keys, index._acronyms, index._alias_words = alias_keys, vocabulary._acronyms, vocabulary._alias_words
        return changed

    def _acronym_tables(self, moved: Iterable[tuple[ConceptMention, int]]) -> set[str]:
        """The alias tables after acronym definitions came or went (the vocabulary's spellings
        unchanged); returns the keys whose entries changed (only those definitions' own)."""
        keys = {key for mention, net in moved if (key := self._candidate(mention, net)) is not None}
        aliases, changed = self.index._alias_keys, set()
        for key in keys:
            target = self._target(key)
            if aliases.get(key) != target:
                changed.add(key)
                if target:
                    aliases[key] = target
                else:
                    del aliases[key]
        return changed

    def _candidate(self, mention: ConceptMention, step: int) -> str | None:
        """Count an acronym definition's candidate in or out (``ConceptIndex._learn_acronym_aliases``'
        rule); returns its key when it has one."""
        if not mention.kind.startswith("acronym"):
            return None
        key = concept_key(mention.name)
        if key in self._vocabulary._alias_keys or key in self._vocabulary_keys:
            return None
        candidate = self._vocabulary._acronym_target(mention, key)
        if not candidate or candidate == key:
            return None
        counted = self._candidates.setdefault(key, Counter())
        counted[candidate] += step
        if counted[candidate] <= 0:
            del counted[candidate]
            if not counted:
                del self._candidates[key]
        return key

    def _target(self, key: str) -> str | None:
        """The concept an acronym's long form joins: the one every definition spelled so agrees on."""
        counted = self._candidates.get(key)
        return next(iter(counted)) if counted and len(counted) == 1 else None

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
