"""The concepts of a whole corpus: every spelling of one concept gathered under one key.

Extractors report ``ConceptMention``s per paper. ``ConceptIndex`` folds them into clusters by
``concept_key`` (case, hyphens, dashes, plurals, British spelling) and by the aliases the
vocabulary knows, decides which clusters deserve a shared concept note, and names each one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Sequence

from .canonical import concept_key, title_case
from .generic import is_generic, names_a_thing
from .records import ConceptMention

# How much each kind of evidence says "this is a real research concept".
KIND_WEIGHT = {"vocabulary": 3.0, "acronym": 2.0, "phrase": 1.0}

# True of nearly every paper, so a note for them would be a hub that says nothing.
TOO_BROAD = frozenset(concept_key(n) for n in (
    "artificial intelligence", "machine learning", "deep learning", "neural networks",
    "deep neural networks", "models", "data", "algorithms", "methods", "computer science",
))

# True of most papers that mention them, or a whole field: a paper lists them among its
# `fields`, not its concepts; their notes stay as nodes of the hierarchy (data/umbrella.txt).
UMBRELLA = frozenset(concept_key(line.strip()) for line in
                     (Path(__file__).parent / "data" / "umbrella.txt").read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.startswith("#"))


@lru_cache(maxsize=65_536)  # asked of every alias and surface of every acronym mention, which recur
def is_acronym(text: str) -> bool:
    """`LLM`, `LLMs`, `MoE`, `3DSGG`, `SS-Neurons`: mostly capitals, short, no spaces."""
    core = text[:-1] if text.endswith("s") and len(text) > 2 else text
    return (" " not in text and len(core) <= 12
            and sum(c.isupper() or c.isdigit() for c in core) >= max(2, (len(core) + 1) // 2))


@dataclass
class Cluster:
    """Everything the corpus says about one concept."""

    key: str
    names: Counter = field(default_factory=Counter)  # long forms as written
    canonical: str | None = None  # a vocabulary's name, when one matched
    aliases: dict[str, None] = field(default_factory=dict)  # ordered set
    kinds: Counter = field(default_factory=Counter)  # kind -> papers
    papers: dict[str, float] = field(default_factory=dict)  # paper id -> salience
    # paper id -> spellings: an ordered set, or the mention's own 1-tuple while one mention
    # of one spelling is all the paper has (most do: no set to make for each, and the memory)
    surfaces: dict[str, dict[str, None] | tuple[str]] = field(default_factory=dict)
    broader: dict[str, None] = field(default_factory=dict)
    spellings_seen: int = 0  # mentions counted in ``names`` (the name is cached until it grows)
    _name: tuple[int, str] | None = field(default=None, compare=False, repr=False)  # (spellings seen, name)

    @property
    def name(self) -> str:
        if self.canonical:
            return self.canonical
        # the most common well-formed long form, Title Case as the field writes it; cached for
        # as long as the spellings seen stay the same
        cached = self._name
        if cached is None or cached[0] != self.spellings_seen:
            best = max(self.names.items(), key=lambda item: (item[1], _well_formed(item[0]),
                                                             _field_number(item[0]), -len(item[0]), item[0]))[0]
            cached = self._name = (self.spellings_seen, title_case(best))
        return cached[1]

    def add(self, paper_id: str, mention: ConceptMention, kind: str) -> None:
        """One mention of this concept, of ``kind``, in paper ``paper_id``. (Every mention of
        the corpus passes here. The ordered sets -- aliases, broader, surfaces -- hold None
        only, so setting a key is adding it if new.)"""
        if mention.canonical and (not self.canonical or _before(mention.name, self.canonical)):
            self.canonical = mention.name  # the smallest of the vocabulary's names (order-free)
        self.saw(mention.name)
        if mention.aliases:
            for alias in mention.aliases:
                self.aliases[alias] = None
        if mention.broader:
            for upper in mention.broader:
                self.broader[upper] = None
        papers = self.papers
        papers[paper_id] = papers.get(paper_id, 0.0) + KIND_WEIGHT.get(kind, 1.5) * max(mention.score, 0.1)
        kinds = self.kinds
        kinds[kind] = kinds.get(kind, 0) + 1  # (a Counter's += on a new kind is slow)
        self.spelled(paper_id, mention.surfaces)

    def spelled(self, paper_id: str, surfaces: Sequence[str]) -> None:
        """The spellings ``surfaces`` appear in paper ``paper_id`` (kept in order, each once).
        Most papers spell a concept one way: that spelling is kept as the mention's own
        1-tuple, and an ordered set is made only when a second one comes."""
        spellings = self.surfaces.get(paper_id)
        if spellings is None and len(surfaces) == 1:
            self.surfaces[paper_id] = tuple(surfaces)
            return
        if spellings.__class__ is not dict:
            spellings = self.surfaces[paper_id] = dict.fromkeys(spellings or ())
        for surface in surfaces:
            spellings[surface] = None

    def saw(self, spelling: str) -> None:
        """One more mention written ``spelling``."""
        self.names[spelling] = self.names.get(spelling, 0) + 1  # (a Counter's += on a new key is slow)
        self.spellings_seen += 1


@dataclass(frozen=True)
class OwnNames:
    """The names papers give themselves (as concept keys)."""

    keys: frozenset[str]

    @classmethod
    def of(cls, names: Iterable[str]) -> "OwnNames":
        return cls(frozenset(concept_key(n) for n in names if n))


def _overlap(key: str, words: set[str]) -> float:
    """Share of the shorter side's words the two have in common."""
    mine = set(key.split())
    return len(mine & words) / max(1, min(len(mine), len(words)))


# The field names families of models in the plural: Graph Neural Networks, Diffusion Models.
_PLURAL_HEADS = frozenset("network model transformer autoencoder operator machine process field "
                          "embedding equation agent".split())


def _field_number(text: str) -> int:
    """1 when ``text`` is in the number the field writes it in (plural for model families)."""
    words = concept_key(text).split()
    plural = text.rstrip().endswith("s")
    return int(plural == bool(words and words[-1] in _PLURAL_HEADS))


def _by_kind(mentions: Sequence[ConceptMention]) -> tuple[list, list, list]:
    """Vocabulary mentions, acronym definitions and the rest, each in the order given."""
    vocabulary = [m for m in mentions if m.kind == "vocabulary"]
    acronyms = [m for m in mentions if m.kind.startswith("acronym")]
    if not vocabulary and not acronyms:
        return vocabulary, acronyms, list(mentions)
    return vocabulary, acronyms, [m for m in mentions if m.kind != "vocabulary" and not m.kind.startswith("acronym")]


def _before(a: str, b: str) -> bool:
    """``a`` sorts before ``b``: case-folded, then as written (the order-free tie-breaker)."""
    return (a.casefold(), a) < (b.casefold(), b)


def _well_formed(text: str) -> int:
    return int(not text.isupper()) + int("-" not in text) + int(not text.islower())


class ConceptIndex:
    """Clusters of concept mentions over a corpus; see the module docstring."""

    def __init__(self) -> None:
        self.clusters: dict[str, Cluster] = {}
        self._alias_keys: dict[str, str | None] = {}  # alias key -> cluster key (None: ambiguous)
        self._acronyms: dict[str, set[str]] = {}  # alias key -> the acronyms spelled so (`GPs` for "gps")
        self._alias_words: dict[str, set[str]] = {}  # cluster key -> words of its name and aliases
        self.paper_keys: dict[str, dict[str, None]] = {}  # paper id -> its cluster keys, in order
        self._defined: dict[str, dict[str, str]] = {}  # paper id -> acronym key -> its long form

    def build(self, papers: Iterable[tuple[str, Sequence[ConceptMention]]],
              promoted_phrases: set[str] | None = None) -> "ConceptIndex":
        """Fold a whole corpus in: first what the vocabulary says about spellings and which
        acronyms' long forms join its concepts (so the order of papers never matters), then
        every paper's mentions.

        With ``promoted_phrases``, a phrase mention counts only when corpus statistics promoted
        it or it names a concept other evidence found: the other phrases (most of them) could
        never become a concept, and skipping them keeps linking fast at scale."""
        papers = list(papers)
        if promoted_phrases is None:
            self._learn_all_aliases(m for _, mentions in papers for m in mentions if m.kind == "vocabulary")
            self._learn_acronym_aliases([m for _, mentions in papers for m in mentions])
            for paper_id, mentions in papers:
                self.add_paper(paper_id, mentions)
            return self
        # the mentions other than phrases first: a fifth of them, so the vocabulary's are
        # looked for among these
        firsts = [(paper_id, [m for m in mentions if m.kind != "phrase"]) for paper_id, mentions in papers]
        self._learn_all_aliases(m for _, mentions in firsts for m in mentions if m.kind == "vocabulary")
        self._learn_acronym_aliases([m for _, mentions in firsts for m in mentions])
        for paper_id, mentions in firsts:
            self.apply(paper_id, self.fold_firsts(paper_id, mentions))
        del firsts
        for paper_id, mentions in papers:
            folded = self.fold_phrases(paper_id, mentions, promoted_phrases)
            if folded:  # (the first pass gave every paper its entries)
                self.apply(paper_id, folded)
        return self

    def _alias_target(self, key: str, name: str) -> str | None:
        """The cluster whose alias has ``key``, for a mention named ``name``. Case folds an acronym
        into another one (`GPS`, the graph transformer, and `GPs`, Gaussian processes, share
        "gps"): an acronym joins an acronym alias only as it is spelled, or with a plural "s"."""
        target = self._alias_keys.get(key)
        spellings = self._acronyms.get(key)
        if target is None or not spellings or not is_acronym(name) or name in spellings:
            return target
        return target if any(name + "s" == other or name == other + "s" for other in spellings) else None

    def _acronym_target(self, mention: ConceptMention, key: str) -> str | None:
        """The concept an acronym definition joins through one of its aliases, if any:
        `Omni-Multimodal Large Language Models (Omni-MLLMs)` joins the concept whose alias is
        `Omni-MLLMs` -- when the long forms agree, since VQA is two concepts."""
        for alias in mention.aliases:
            candidate = self._alias_keys.get(concept_key(alias))
            if candidate and _overlap(key, self._alias_words.get(candidate, set())) >= 0.5:
                return candidate
        return None

    def _learn_acronym_aliases(self, mentions: Sequence[ConceptMention]) -> None:
        """Before any paper is folded (so the order of papers never matters): the long form of
        an acronym definition becomes an alias of the concept its acronym names in the
        vocabulary (``_acronym_target``, through the vocabulary's aliases alone) -- when every
        definition spelled so agrees on one concept, and the long form is no alias the
        vocabulary knows and no vocabulary concept's own key (two candidates: no alias)."""
        vocabulary_keys = {concept_key(m.name) for m in mentions if m.kind == "vocabulary"}
        found: dict[str, str | None] = {}
        for mention in mentions:
            if not mention.kind.startswith("acronym"):
                continue
            key = concept_key(mention.name)
            if key in self._alias_keys or key in vocabulary_keys:
                continue
            candidate = self._acronym_target(mention, key)
            if candidate and candidate != key:
                known = found.setdefault(key, candidate)
                if known != candidate:
                    found[key] = None
        self._alias_keys.update({key: target for key, target in found.items() if target})

    def _learn_all_aliases(self, mentions: Iterable[ConceptMention]) -> None:
        """``_learn_aliases`` of each vocabulary mention, once per spelling (name and aliases): a
        vocabulary concept recurs in many papers, and learning the same spelling again changes
        nothing (an alias key ends up with the one key every spelling gives it, else None)."""
        learned: set[tuple] = set()
        for mention in mentions:
            spelling = (mention.name, tuple(mention.aliases))
            if spelling not in learned:
                learned.add(spelling)
                self._learn_aliases(mention)

    def _learn_aliases(self, mention: ConceptMention) -> None:
        key = concept_key(mention.name)
        words = self._alias_words.setdefault(key, set(key.split()))
        for alias in (mention.name, *mention.aliases):
            alias_key = concept_key(alias)
            if alias_key == key or not alias_key:
                continue
            known = self._alias_keys.get(alias_key, key)
            self._alias_keys[alias_key] = key if known == key else None
            if is_acronym(alias):
                self._acronyms.setdefault(alias_key, set()).add(alias)
            if not is_acronym(alias):
                words.update(alias_key.split())

    def add_paper(self, paper_id: str, mentions: Sequence[ConceptMention]) -> None:
        """Fold one paper's mentions in: vocabulary first, then acronym definitions, then the rest."""
        self.apply(paper_id, self.fold_firsts(paper_id, mentions))

    def fold_firsts(self, paper_id: str, mentions: Sequence[ConceptMention]) -> list[tuple[str, ConceptMention, str]]:
        """Where one paper's mentions fold, in order (vocabulary first, then acronym definitions,
        then the rest): (cluster key, the mention as it counts, its kind). Remembers the acronyms
        the paper defines (``fold_phrases`` reads them); changes no cluster (``apply`` does)."""
        vocabulary, acronyms, rest = _by_kind(mentions)
        defined = self._defined[paper_id] = {concept_key(alias): m.name for m in acronyms for alias in m.aliases
                                             if is_acronym(alias)}
        folded = []
        for mention in (vocabulary + acronyms + rest if vocabulary or acronyms else rest):
            kind = mention.kind
            key = concept_key(mention.name)
            if kind == "vocabulary":
                if defined and self._other_sense(mention, defined):
                    continue
            else:
                if key in defined:
                    # a bare acronym this abstract defines means what the abstract says it means
                    mention = mention._replace(name=defined[key], aliases=(mention.name,))
                    key = concept_key(mention.name)
                key = self._alias_target(key, mention.name) or key
            folded.append((key, mention, kind))
        return folded

    def phrase_counts(self, key: str, promoted_phrases: set[str]) -> bool:
        """A phrase mention keyed ``key`` counts when corpus statistics promoted it or it names a
        concept other evidence found (the clusters folded so far: ``fold_firsts``'s)."""
        return key in promoted_phrases or key in self.clusters or self._alias_keys.get(key) is not None

    def fold_phrases(self, paper_id: str, mentions: Sequence[ConceptMention], promoted_phrases: set[str],
                     counts: Callable[[str], bool] | None = None) -> list[tuple[str, ConceptMention, str]]:
        """``fold_firsts`` of the paper's phrase mentions that count (``phrase_counts``, or
        ``counts``): a third of a million mentions at 20,000 papers, so only the steps a phrase
        needs (no vocabulary or acronym definition to order first; ``fold_firsts`` ran)."""
        defined = self._defined.get(paper_id)
        clusters, alias_target, acronyms = self.clusters, self._alias_keys.get, self._acronyms
        folded = []
        for mention in mentions:
            if mention.kind != "phrase":
                continue
            key = concept_key(mention.name)
            # (``phrase_counts``, inlined: asked of every phrase mention, 25 an abstract)
            if not (counts(key) if counts is not None else
                    key in promoted_phrases or key in clusters or alias_target(key) is not None):
                continue
            if defined and key in defined:
                # a bare acronym this abstract defines means what the abstract says it means
                mention = mention._replace(name=defined[key], aliases=(mention.name,))
                key = concept_key(mention.name)
            key = (alias_target(key) if key not in acronyms else self._alias_target(key, mention.name)) or key
            folded.append((key, mention, "phrase"))
        return folded

    def apply(self, paper_id: str, folded: Iterable[tuple[str, ConceptMention, str]]) -> None:
        """Add a paper's folded mentions to their clusters (made when new). (The paper's keys are
        an ordered set: they hold None only.)"""
        keys = self.paper_keys.setdefault(paper_id, {})
        clusters = self.clusters
        for key, mention, kind in folded:
            cluster = clusters.get(key)
            if cluster is None:
                cluster = clusters[key] = Cluster(key)
            keys[key] = None
            cluster.add(paper_id, mention, kind)

    def is_shared_concept(self, cluster: Cluster, promoted_phrases: set[str], own_names: "OwnNames") -> bool:
        """Does this cluster deserve a shared concept note?

        Vocabulary concepts always do (unless too broad to say anything); an acronym definition
        does when other papers use it too, or when it does not look like the paper's own coinage
        (a coined hint, a component head like "module", an acronym inside the paper's name); a
        phrase does only when corpus statistics promoted it (it recurs across papers).
        """
        if cluster.key in TOO_BROAD:
            return False
        if cluster.canonical:
            return True
        if cluster.key not in promoted_phrases and all(kind == "phrase" for kind in cluster.kinds):
            return False  # most clusters: a phrase statistics did not promote (decided before naming it)
        name = cluster.name
        # asked last (wordfreq look-ups): only of a cluster that passes every other test
        return self._deserves_note(cluster, name, promoted_phrases, own_names) and not is_generic(name)

    def _deserves_note(self, cluster: Cluster, name: str, promoted_phrases: set[str], own_names: "OwnNames") -> bool:
        """``is_shared_concept`` of a cluster with evidence beyond phrases, all but the genericness test."""
        if cluster.key in own_names.keys or len(cluster.key) < 2:
            return False
        if is_acronym(name):
            return False  # an acronym without its long form is not a concept name
        kinds = cluster.kinds
        shared_by_many = len(cluster.papers) >= 2
        # a term one paper coins (an acronym definition the vocabulary does not know) stays on
        # that paper, as an alias of its note, until another paper uses it too
        if kinds.get("acronym-coined"):
            return shared_by_many
        if kinds.get("acronym"):  # a term the abstract spells out, the vocabulary does not know:
            return shared_by_many  # established or coined, one paper's term connects no papers
        if any(kind not in ("phrase", "acronym-coined") for kind in kinds):
            return True  # a plugin's own kind (dataset, ...) is trusted
        # corpus statistics alone: only a phrase that names a thing (termhood)
        return cluster.key in promoted_phrases and names_a_thing(name)

    def _other_sense(self, mention: ConceptMention, defined: dict[str, str]) -> bool:
        """The vocabulary read an acronym (`VQA`, `MCPs`) that this abstract defines as something
        else (`video quality assessment`, `Modal-Contextualized Prompts`): the abstract wins."""
        if not mention.surfaces or not all(map(is_acronym, mention.surfaces)):
            return False
        words = self._alias_words.get(concept_key(mention.name), set(concept_key(mention.name).split()))
        for surface in mention.surfaces:
            long_form = defined.get(concept_key(surface))
            if long_form is None or _overlap(concept_key(long_form), words) >= 0.5:
                return False
        return True

    def add_broader(self, name: str) -> Cluster:
        """The cluster of a broader concept a vocabulary named (created, without papers, if new)."""
        key = concept_key(name)
        key = self._alias_keys.get(key) or key
        cluster = self.clusters.get(key)
        if cluster is None:
            cluster = self.clusters[key] = Cluster(key, canonical=name)
            cluster.saw(name)
        elif not cluster.papers and name not in cluster.names:  # a concept only broader names made:
            if _before(name, cluster.canonical):  # named by the smallest of them, each spelling once
                cluster.canonical = name
            cluster.saw(name)
        return cluster
