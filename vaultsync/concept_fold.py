"""The corpus's concept clusters kept as papers come and go (issue 22): ``ConceptIndex.build``,
updated for what changed instead of folded again whole.

A paper's mentions fold by rules that read the corpus in three ways only (``ConceptIndex``): the
aliases the vocabulary and the corpus's acronym definitions teach (the *spelling tables*), which
keys other evidence made clusters (a phrase counts when it names one), and which phrases are
promoted. So an update

1. counts the vocabulary spellings and acronym definitions the papers added and removed bring;
   when a distinct vocabulary spelling came or went, works out what the vocabulary's spellings
   teach again (a few thousand spellings: 35 ms at 20,000 papers, where 3-7 new ones come with
   each seed file) and compares it with the last; counts again the candidate concept of each
   acronym definition that came, went, or reads a key whose entry changed (nearly every new
   paper defines one: all of them counted again cost a round 25 ms more);
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
        self._counted: dict[tuple, tuple[str, str | None, set[str]]] = {}  # definition -> (key, candidate, keys read)
        self._readers: dict[str, set[tuple]] = {}  # key -> the acronym definitions whose answer reads it

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
        looked_up = self._spelling_tables(moved) if moved else set()
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

    def _spelling_tables(self, moved: Mapping[tuple, tuple[ConceptMention, int]]) -> set[str]:
        """The alias tables after the distinct spellings ``moved`` came or went; returns the keys
        whose entries changed. The vocabulary's layer is worked out again whole when one of its
        spellings moved (a few thousand spellings) and compared with the last; an acronym
        definition's candidate is counted again only when it came, went, or reads a key whose
        vocabulary entry changed (``ConceptIndex.build``'s first step, kept up to date)."""
        changed: set[str] = set()
        again: set[tuple] = set()  # acronym definitions to count again
        if any(vocabulary for vocabulary, _, _ in moved):
            changed = self._vocabulary_tables()
            again = {spelling for key in changed for spelling in self._readers.get(key, ())}
        keys: set[str] = set()  # acronym keys whose candidates changed
        for spelling in again - moved.keys():
            keys |= self._uncount(spelling)
            keys |= self._count_definition(spelling, self.examples[spelling])
        for spelling, (mention, net) in moved.items():
            if not spelling[0]:
                keys |= self._uncount(spelling) if net < 0 else self._count_definition(spelling, mention)
        index, vocabulary = self.index, self._vocabulary
        aliases = index._alias_keys
        for key in changed:  # (the vocabulary's entries; an acronym's key is never one of its alias keys)
            if key in vocabulary._alias_keys:
                aliases[key] = vocabulary._alias_keys[key]
            elif key not in self._candidates:
                aliases.pop(key, None)
        for key in keys:
            target = self._target(key)
            if aliases.get(key) != target and key not in vocabulary._alias_keys:
                changed.add(key)
                if target:
                    aliases[key] = target
                else:
                    del aliases[key]
        index._acronyms, index._alias_words = vocabulary._acronyms, vocabulary._alias_words
        return changed

    def _vocabulary_tables(self) -> set[str]:
        """What the vocabulary's spellings teach, worked out again; returns the keys whose
        entries (alias target, acronym spellings, words, being a vocabulary concept's key) changed."""
        vocabulary = ConceptIndex()
        examples = [m for spelling, m in sorted(self.examples.items(), key=lambda item: item[0]) if spelling[0]]
        vocabulary._learn_all_aliases(examples)
        keys = {concept_key(m.name) for m in examples}
        old = self._vocabulary
        changed = keys ^ self._vocabulary_keys
        for new_table, old_table in ((vocabulary._alias_keys, old._alias_keys), (vocabulary._acronyms, old._acronyms),
                                     (vocabulary._alias_words, old._alias_words)):
            changed.update(key for key in new_table.keys() | old_table.keys()
                           if new_table.get(key, ()) != old_table.get(key, ()))
        self._vocabulary, self._vocabulary_keys = vocabulary, keys
        return changed

    def _count_definition(self, spelling: tuple, mention: ConceptMention) -> set[str]:
        """Count an acronym definition's candidate in (``ConceptIndex._learn_acronym_aliases``'
        rule), noting the keys its answer reads; returns its key when it has a candidate."""
        vocabulary = self._vocabulary
        key = concept_key(mention.name)
        reads = {key, *(concept_key(alias) for alias in mention.aliases)}
        reads.update(target for alias in reads - {key} if (target := vocabulary._alias_keys.get(alias)))
        candidate = None
        if key not in vocabulary._alias_keys and key not in self._vocabulary_keys:
            candidate = vocabulary._acronym_target(mention, key)
            if candidate == key:
                candidate = None
        self._counted[spelling] = (key, candidate, reads)
        for read in reads:
            self._readers.setdefault(read, set()).add(spelling)
        if candidate:
            self._candidates.setdefault(key, Counter())[candidate] += 1
            return {key}
        return set()

    def _uncount(self, spelling: tuple) -> set[str]:
        """Count an acronym definition's candidate out; returns its key when it had one."""
        entry = self._counted.pop(spelling, None)
        if entry is None:
            return set()
        key, candidate, reads = entry
        for read in reads:
            readers = self._readers[read]
            readers.discard(spelling)
            if not readers:
                del self._readers[read]
        if not candidate:
            return set()
        counted = self._candidates[key]
        counted[candidate] -= 1
        if not counted[candidate]:
            del counted[candidate]
            if not counted:
                del self._candidates[key]
        return {key}

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
