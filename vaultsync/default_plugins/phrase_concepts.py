"""The plugin registered as ``phrases``: the noun phrases ``phrases.candidate_phrases`` finds in
each abstract, ranked by TF-IDF and reported as mentions, and the ones that recur across papers
promoted to shared concepts by the link stage."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from collections import Counter
from itertools import chain
from typing import Mapping, Sequence

from ..bands import count_band, size_band
from ..canonical import concept_key
from ..generic import is_generic
from ..hookspecs import hookimpl
from ..inline_html import without_html
from ..records import Abstract, ConceptMention, ExtractContext, Extraction, mention_from_fields
from .phrases import Phrase, _stretches, candidate_phrases


@hookimpl(trylast=True)
def vaultsync_promote_phrases(mentions: Sequence[tuple[ConceptMention, ...]]) -> set[str]:
    return promote_phrases(mentions)  # (it reads the phrase mentions only: no copies to make)


@hookimpl
def vaultsync_lessons_may_change(before: ExtractContext, after: ExtractContext) -> None:
    return None  # phrases are found without the vocabulary: no lesson changes them


# ---------------------------------------------------------------------------------------------
# Ranking


def _salience(phrases: Sequence[Phrase], length: int) -> dict[str, float]:
    """Per key: occurrences weighted by how early the phrase first appears and how long it is."""
    scores: dict[str, float] = {}
    first: dict[str, int] = {}
    for phrase in phrases:
        scores[phrase.key] = scores.get(phrase.key, 0.0) + 1.0
        first.setdefault(phrase.key, phrase.start)
    for key, tf in scores.items():
        words = key.count(" ") + 1
        position = 1.0 + 1.0 / (1.0 + 5.0 * first[key] / max(length, 1))
        scores[key] = tf * position * (1.0 + 0.5 * min(words - 1, 2))
    return scores


def _keep(phrase: Phrase) -> bool:
    return not is_generic(phrase.text)


def _document_scores(phrases: Sequence[Phrase], length: int, df: Counter, n_docs: int) -> dict[str, float]:
    """TF-IDF of each non-generic key: weighted term frequency x smooth idf over the corpus."""
    kept = [p for p in phrases if _keep(p)]
    salience = _salience(kept, length)
    return {
        key: value * (math.log((1 + n_docs) / (1 + df[key])) + 1.0) for key, value in salience.items()
    }


def rank_keyphrases(docs: list[str], k: int = 10) -> list[list[str]]:
    """The top ``k`` keyphrases of each document, as written, by TF-IDF over ``docs``.

    Document frequencies come from ``docs`` themselves (smooth idf); a phrase's term frequency
    is weighted by how early it first appears and by its length; phrases sharing a concept key
    are one phrase. Deterministic: ties break by first position in the document.
    """
    per_doc = [candidate_phrases(doc) for doc in docs]
    df: Counter = Counter()
    for phrases in per_doc:
        df.update({p.key for p in phrases})
    ranked: list[list[str]] = []
    for doc, phrases in zip(docs, per_doc, strict=True):
        scores = _document_scores(phrases, len(doc), df, len(docs))
        surface: dict[str, Phrase] = {}
        for phrase in phrases:
            surface.setdefault(phrase.key, phrase)
        order = sorted(scores, key=lambda key: (-scores[key], surface[key].start))
        ranked.append([surface[key].text for key in order[:k]])
    return ranked


# ---------------------------------------------------------------------------------------------
# The hook and promotion across papers


# Per surface: its concept key, or "" when it is no mention (no key, or generic phrasing).
def phrase_mentions(text: str, leave_out: frozenset[str] = frozenset()) -> list[ConceptMention]:
    """One ``ConceptMention(kind="phrase")`` per non-generic candidate key in ``text``, but the
    keys in ``leave_out`` (a mention's key is its name's ``concept_key``)."""
    # One pass: per key, its first phrase's position and spelling; only keys written again (a
    # few per abstract) get their spellings counted (in text order). The score is
    # ``_salience``'s, computed the same way (keep the two in step).
    first: dict[str, tuple[int, str]] = {}
    repeated: dict[str, dict[str, int]] = {}
    for begin, phrases in _stretches(text):
        for start, _, surface, key in phrases:
            if not key:
                continue
            if key not in first:
                first[key] = (begin + start, surface)
                continue
            counts = repeated.get(key)
            if counts is None:
                counts = repeated[key] = {first[key][1]: 1}
            counts[surface] = counts.get(surface, 0) + 1
    length = max(len(text), 1)
    mentions = []
    for key, (position, name) in first.items():
        if key in leave_out:
            continue
        counts = repeated.get(key) if repeated else None
        if counts is None:  # the usual case: written once
            tf, surfaces = 1, (name,)
        else:
            # The name is the spelling written most often (the first one on a tie, as
            # ``Counter.most_common`` picks it); surfaces keep text order.
            name, tf, surfaces = max(counts, key=counts.get), sum(counts.values()), tuple(counts)
        spaces = key.count(" ")
        # (`tf *`, `spaces if ... else 2`: the same floats as ``float(tf) *`` and ``min``, without the calls)
        score = tf * (1.0 + 1.0 / (1.0 + 5.0 * position / length)) * (1.0 + 0.5 * (spaces if spaces < 2 else 2))
        # built without the frozen dataclass's ``__init__``, which was a tenth of this hook's
        # time: an abstract reports some 25 phrases (tests/test_phrases.py compares the two)
        mentions.append(mention_from_fields(name, "phrase", surfaces, (), _round4(score), (), False))
    return mentions


def _round4(score: float) -> float:
    """``round(score, 4)``, exactly, at a fraction of the cost (the builtin goes through decimal
    strings; an abstract reports some 25 phrases). Away from a tie, the nearest integer to
    ``score * 10000`` is that of the exact product (the product is off by far less than
    0.01), and dividing it by 10000 rounds correctly, as the builtin's conversion back does."""
    scaled = score * 10000.0
    if 0.0 <= scaled < 1e12:
        off = math.remainder(scaled, 1.0)  # scaled minus its nearest integer, exactly (no int to build)
        if -0.49 < off < 0.49:
            return (scaled - off) / 10000.0
    return round(score, 4)


@hookimpl
def vaultsync_extract(abstract: Abstract, context: ExtractContext) -> Extraction | None:
    """Report the abstract's non-generic noun phrases; the link stage promotes recurring ones."""
    if not context.options("phrases").get("enabled", True):
        return None
    # (with the vocabulary off, no sense check to leave an ambiguous name to)
    ambiguous = _ambiguous_keys() if context.options("vocabulary").get("enabled", True) is not False else frozenset()
    mentions = phrase_mentions(without_html(abstract.text), ambiguous)
    return Extraction(concepts=tuple(mentions)) if mentions else None


@lru_cache(maxsize=1)
def _ambiguous_keys() -> frozenset[str]:
    """Keys of the names the shipped vocabulary gives a sense check (sense cues, other senses):
    whether `calibration` is Model Calibration is the vocabulary's to say (it checks the sense),
    so the same word found as a phrase does not bring back the concept it turned down."""
    from .vocabulary import Vocabulary  # (the vocabulary's file, read once; its automata unneeded)
    from .senses import _is_short_acronym
    return frozenset(concept_key(name) for entry in Vocabulary.load().entries for name in entry.names
                     if entry.cues or entry.others or _is_short_acronym(name))


def promote_phrases(
    doc_phrases: list[list[ConceptMention]],
    min_df: int = 2,
    top_k: int = 15,
    max_df_ratio: float = 0.5,
) -> set[str]:
    """Concept keys of phrases worth a shared concept note.

    A phrase is promoted when it has two words or more (a single word — "node", "prompts",
    "suppresses" — is too weak a signal without a tagger; the vocabulary names single-word
    concepts), is among the ``top_k`` of some paper by salience x idf, occurs in at least
    ``min_df`` papers (never fewer than two: a concept of one paper links nothing), is not
    generic, and (in corpora of ten papers or more) occurs in at most ``max_df_ratio`` of them.
    The corpus size and the counts idf and ``max_df`` read are banded (``bands``, issue 22).
    The rule is ``PhrasePromotion``'s, paper by paper.
    """
    rule = PhrasePromotion(max(2, min_df), top_k, max_df_ratio)
    # per paper, concept key -> its (last) phrase mention with that key (half a million
    # mentions at 20,000 papers)
    keyed = [rule.keyed(mentions) for mentions in doc_phrases]
    df: Counter = Counter(chain.from_iterable(keyed))
    promoted: set[str] = set()
    for doc in keyed:
        promoted.update(rule.paper_top(doc, df, len(doc_phrases)))
    return promoted


@dataclass(frozen=True)
class PhrasePromotion:
    """``promote_phrases`` stated paper by paper: a paper promotes its ``paper_top`` phrases, and
    what it promotes depends only on its own phrases and, for each, ``weight`` of how many papers
    have it. A linker keeping these per paper promotes again only for the papers whose phrases'
    weights moved (issue 22)."""

    min_df: int = 2
    top_k: int = 15
    max_df_ratio: float = 0.5

    @staticmethod
    def keyed(mentions: Sequence[ConceptMention]) -> dict[str, ConceptMention]:
        """A paper's phrase mentions by concept key (the last of each key; none without a key)."""
        keyed = {concept_key(m.name): m for m in mentions if m.kind == "phrase"}
        keyed.pop("", None)  # no key: never a concept
        return keyed

    def weight(self, count: int, papers: int) -> float | None:
        """A phrase's idf when ``count`` of ``papers`` have it, None when it cannot be promoted
        (in too few papers, or in too many: ``min_df`` on the exact count, the rest banded)."""
        band = size_band(papers)
        if count < self.min_df or (papers >= 10 and count > self.max_df_ratio * band):
            return None
        return math.log((1 + band) / (1 + count_band(count))) + 1.0

    def paper_top(self, doc: Mapping[str, ConceptMention], df: Mapping[str, int], papers: int) -> frozenset[str]:
        """The phrases of one paper (``keyed``) it promotes: its ``top_k`` by salience x idf."""
        scored = []
        for key, mention in doc.items():
            idf = self.weight(df.get(key, 0), papers)
            if idf is not None and _name_ok(mention.name):
                scored.append((-mention.score * idf, key))
        if len(scored) > self.top_k:  # (else every one is promoted: no order to find)
            scored.sort()
            del scored[self.top_k:]
        return frozenset([key for _, key in scored])


@lru_cache(maxsize=1 << 16)  # names recur
def _name_ok(name: str) -> bool:
    """Two words or more, and not generic."""
    return " " in name.strip() and not is_generic(name)


vaultsync_promote_phrases.per_paper = PhrasePromotion()  # (``plugins.promotion_options``)

