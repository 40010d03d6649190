"""The link stage's rules: what makes a concept broad, how a paper ranks its concepts, which
broader concepts a concept has, what a note's aliases are; the ids notes carry; the options.

Each rule reads the corpus only through the figures it is given (document frequencies, the
corpus size: banded, ``bands``), so ``link.Linker`` can apply it again to what a change touches.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Any, Callable, Mapping, Sequence

from .bands import count_band, size_band
from .canonical import concept_key
from .concept_index import UMBRELLA, Cluster, ConceptIndex, is_acronym
from .extract import Extracted
from .records import ConceptMention

MAX_CONCEPTS_PER_PAPER = 8
MAX_FIELDS_PER_PAPER = 3
BROAD_NARROWER = 3  # a concept that is the broader concept of this many others is broad


@lru_cache(maxsize=1 << 16)  # asked of every shared concept at every update
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
    # the same rule stated paper by paper (``PhrasePromotion``), when the built-in rule is the only
    # one: a ``Linker`` then promotes again only for the papers a change touches
    paper_promotions: Any = None


def broader_links(shared: dict[str, Cluster], names: dict[str, str]) -> dict[str, list[str]]:
    """`Offline Reinforcement Learning` -> `Reinforcement Learning`: the longest concept key this
    key ends with, plus the broader concepts the vocabulary states (when they have notes)."""
    by_name_key = {concept_key(names[k]): k for k in sorted(shared)}
    links: dict[str, list[str]] = {}
    for key, cluster in shared.items():
        words = key.split()
        uppers: list[str] = []
        for start in range(1, len(words)):
            suffix = " ".join(words[start:])
            if suffix in shared and suffix != key and not is_acronym(names[suffix]):
                uppers.append(suffix)
                break
        for name in sorted(cluster.broader, key=lambda n: (n.casefold(), n)):  # (not in order of papers)
            upper = by_name_key.get(concept_key(name)) or (concept_key(name) if concept_key(name) in shared else None)
            if upper and upper != key and upper not in uppers:
                uppers.append(upper)
        if uppers:
            links[key] = uppers
    return links


class Specificity(dict):
    """Concept key -> how specific the concept is: rare in the corpus, a long name, a
    vocabulary's. The same for every paper, so worked out once per key (on first use)."""

    def __init__(self, shared: Mapping[str, Cluster], doc_freq: Mapping[str, int], total: int) -> None:
        super().__init__()
        self.shared, self.doc_freq, self.total = shared, doc_freq, total

    def __missing__(self, key: str) -> float:
        # banded (issue 22): one new paper rarely moves another paper's weights
        idf = math.log((1 + size_band(self.total)) / (1 + count_band(self.doc_freq[key]))) + 1
        value = self[key] = idf * (1 + 0.15 * len(key.split())) * (1.5 if self.shared[key].canonical else 1.0)
        return value


def broad_concepts(broader: Mapping[str, Sequence[str]], doc_freq: Mapping[str, int], total: int) -> frozenset[str]:
    """The concepts too broad to say what a paper is about: the broader concept of three or more
    concepts of the corpus (`Reinforcement Learning` over `Offline RL`, `RLHF`, ...), an umbrella
    term (`Fine-Tuning`, `Benchmarks`), or a hub mentioned by more than a tenth of the papers (and
    at least 20; the corpus size banded, ``bands.size_band``). They keep their notes, reached through the narrower concepts' `broader` links."""
    narrower: dict[str, int] = defaultdict(int)
    for uppers in broader.values():
        for upper in uppers:
            narrower[upper] += 1
    hub = max(20, size_band(total) // 10)  # (the exact doc_freq against a banded bar)
    return frozenset(key for key in doc_freq if key in UMBRELLA or narrower.get(key, 0) >= BROAD_NARROWER
                     or doc_freq[key] > hub)


def paper_fields(paper_id, candidates, shared, broad: frozenset[str]) -> list[str]:
    """Up to 3 of the broad concepts the paper mentions, the most mentioned first."""
    found = [(-shared[key].papers[paper_id], key) for key in candidates if key in broad and key in shared]
    return [key for _, key in sorted(found)][:MAX_FIELDS_PER_PAPER]


def paper_concept_keys(paper_id, candidates, shared, doc_freq, total, broader, specificity=None,
                        broad: frozenset[str] | None = None) -> list[str]:
    """Up to 6 of the paper's ``candidates`` (cluster keys), most specific first: rare in the
    corpus, salient here, long names; never a broad concept (see ``broad_concepts``), so a paper
    with little specific to say lists little. ``specificity``: a ``Specificity`` of these
    ``shared`` clusters kept across papers (linking a whole corpus)."""
    if specificity is None:
        specificity = Specificity(shared, doc_freq, total)
    if broad is None:
        broad = broad_concepts(broader, doc_freq, total)
    # (``6.0 if 6.0 < salience else salience`` is ``min(salience, 6.0)``, without the call)
    scored = sorted([(-specificity[key] * (6.0 if 6.0 < salience else salience) ** 0.5, key)
                     for key in candidates if key in shared and key not in broad
                     for salience in (shared[key].papers[paper_id],)])
    return [key for _, key in scored][:MAX_CONCEPTS_PER_PAPER]


def paper_aliases(paper_id: str, facts: Extracted, index: ConceptIndex, shared) -> tuple[str, ...]:
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
        for name in (*sorted(cluster.aliases, key=lambda a: (a.casefold(), a)), cluster.name):
            aliases.setdefault(name, None)
    return tuple(a for a in aliases if a != facts.name.title)


def concept_aliases(cluster: Cluster, name: str) -> tuple[str, ...]:
    """Acronyms, spelling variants and singular/plural forms, without repeats of the name."""
    seen = {name.casefold()}
    aliases = []
    # each spelling once (a concept of 200 papers is spelled the same way in most of them; a
    # repeat would change nothing below), in sorted order: of spellings alike but for case, an
    # acronym (`NeSy`) or else the one with the fewest capitals (as prose writes it) is kept,
    # whatever the order of papers
    candidates = {" ".join(alias.split()) for alias in chain(cluster.aliases, cluster.names,
                                                             *cluster.surfaces.values())}
    for alias in sorted(candidates, key=lambda a: (a.casefold(), not is_acronym(a), sum(map(str.isupper, a)), a)):
        if alias and alias.casefold() not in seen and "[[" not in alias and "|" not in alias:
            seen.add(alias.casefold())
            aliases.append(alias)
    return tuple(sorted(aliases, key=lambda a: (not is_acronym(a), a.casefold())))


def found_by_phrases_only(cluster: Cluster) -> bool:
    return not cluster.canonical and all(kind == "phrase" for kind in cluster.kinds)
