"""Related papers: which other papers a paper's note lists, and what each shares with it.

A pair of papers scores on two signals, each a dot product of two vectors that depend on the
paper itself and on corpus statistics taken in bands (``vaultsync.bands``: the corpus size
``Nb = size_band(N)``, a document frequency ``count_band(df)``), so that one new paper moves
another pair's score only where it moves a band, and only for the pairs sharing that term:

* **text** -- "more like this" over the abstracts: each abstract's words and adjacent word pairs
  (none across a stop word or punctuation; stop words and scientific boilerplate removed,
  plurals folded). A term counts when at most ``MAX_TERM_SHARE`` of ``Nb`` papers have it
  (at least ``MIN_SHARE_CAP``, at most ``MAX_SHARE_CAP``); its weight is BM25's: saturated term
  frequency x ``idf(count_band(df), Nb)``, a single word counting ``UNIGRAM_WEIGHT``. Every
  counted term that another paper has is compared. A paper's length is local: every counted term
  weighed as if one paper had it (``idf(1, Nb)``), so a term's band moving never changes a length;
* **concepts** -- the concepts the paper lists (never broad ones: ``link.broad_concepts``),
  weighted by ``idf(count_band(cdf), Nb)``, none listed by more than ``MAX_CONCEPT_SHARE`` of the
  papers; a concept only corpus statistics found counts half; the length local, as the text's.

A paper is related when its text score reaches ``MIN_TEXT`` (the abstracts must agree: a shared
concept alone is often a shared word), ``TEXT_WEIGHT * text + CONCEPT_WEIGHT * concepts``
reaches ``THRESHOLD``, and the two share at least ``MIN_EVIDENCE`` distinct things (concepts, or
terms that are not words of a shared concept or of a stronger shared term). The bar is absolute,
not "the best five of whatever exists": a paper lists at most ``MAX_RELATED``, fewer or none when
nothing is close enough. Most related first, ties by id. Each comes with what the two share: the
strongest shared concepts, else the strongest shared terms.

The scores are exact integers underneath (``related_index``), the same whatever order the papers
came in; ``related_index.RelatedIndex`` keeps them up to date as papers come and go, working out
again only what a change touches (``related_ask.RelatednessIndex`` builds one from whole
inputs, as ``link`` does).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

MAX_RELATED = 5
UNIGRAM_WEIGHT = 0.5  # a shared word pair ("flow matching") says more than a shared word ("flow")
MAX_TERM_SHARE = 0.05  # a term in more of the papers says nothing about a pair (nor does its cost) ...
MIN_SHARE_CAP = 10  # ... unless in a small corpus, where a share of the papers is a handful ...
MAX_SHARE_CAP = 40  # ... and never more papers than these: a field's word, and each costs its square
MAX_CONCEPT_SHARE = 0.05
PHRASE_CONCEPT_WEIGHT = 0.5
TEXT_WEIGHT, CONCEPT_WEIGHT = 1.0, 0.25
BAR_SCALE = 0.93  # the bars below, as set for cosines (session 10), scaled by one factor: the banded scores
# with local lengths run lower; 0.93 gives the 450 ICML 2025 dev abstracts as many related links as
# the cosines did (146), chosen by that count alone
THRESHOLD = 0.10 * BAR_SCALE
MIN_TEXT = 0.06 * BAR_SCALE  # the abstracts must agree too: a shared concept alone is often a shared word (judged blind: pairs under 0.06 were 27-38 % unrelated, over it 15-19 %)
MAX_REASONS = 3
MIN_EVIDENCE = 2  # distinct things shared: one concept and the words of its name are one
MIN_PIECE = 0.004  # a shared term adding less to the text score is no piece of evidence
_K1 = 1.2  # BM25's term-frequency saturation

_MARKUP = re.compile(r"<[^>]*>|\$[^$]*\$|https?://\S+")  # HTML tags, TeX math, links
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|[^\w\s-]")  # words; each other mark but hyphens


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """English function words, the verbs of scientific prose and the words that only grade a
    result or name a kind of thing (``vaultsync.generic``'s lists, and a few of abstracts' own)."""
    from .word_lists import prose_stop_words
    from .generic import FUNCTION_WORDS, GENERIC_MODIFIERS, GENERIC_NOUNS

    boilerplate = """
    paper papers propose proposed proposes proposing introduce introduced present presented
    novel new state art sota code available github com www http https project page url
    experiment experimental experimentally empirically empirical theoretically theoretical
    outperform outperforming outperformed significantly substantially widely well broadly
    demonstrating achieving showing using based leveraging enabling allowing providing
    effectively efficiently existing prior previous recent recently work works approach
    approaches method methods framework frameworks result results performance task tasks
    problem problems setting settings various across furthermore however moreover first
    """
    return frozenset(prose_stop_words() | FUNCTION_WORDS | GENERIC_MODIFIERS | GENERIC_NOUNS
                     | set(boilerplate.split()))


_SAME_PLURAL = frozenset("series species".split())


def _fold(word: str) -> str:
    """Plural to singular, as the "S stemmer" (Harman 1991) does: `networks` -> `network`."""
    if word in _SAME_PLURAL:
        return word
    if len(word) > 4 and word.endswith("ies") and word[-4] not in "ae":
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "ics")):
        return word[:-1]
    return word


_WORDS: dict[str, str | None] = {}  # token -> the word it counts as, None for a stop word or a number
_MAX_WORDS = 1 << 20


def _word(token: str) -> str | None:
    if not token[0].isalnum() or token in stop_words() or len(token) < 2 or token.isdigit():
        return None
    return _fold(token)


def text_terms(text: str) -> dict[str, int]:
    """The abstract's words and adjacent word pairs (no pair across a stop word, a punctuation
    mark or removed markup), with counts."""
    if "<" in text or "$" in text or "://" in text:
        text = _MARKUP.sub(" . ", text)
    tokens = _TOKEN.findall(text.casefold())
    # (a dict of the tokens seen: 20,000 abstracts hold 4 million tokens, of some 60,000 kinds;
    # the counting in C: ``Counter`` over lists)
    known = _WORDS
    words = [known.get(token, "") for token in tokens]
    if "" in words:
        for place, token in enumerate(tokens):
            if words[place] == "":
                words[place] = _word(token)
                if len(known) < _MAX_WORDS:  # (bounded: a watcher runs for weeks)
                    known[token] = words[place]
    counts = Counter(filter(None, words))
    counts.update([a + " " + b for a, b in zip(words, words[1:]) if a and b])
    return counts


@lru_cache(maxsize=1 << 14)  # a few hundred frequencies, asked for every term of every paper
def idf(doc_freq: int, total: int) -> float:
    """BM25's inverse document frequency (never negative)."""
    return math.log(1 + (total - doc_freq + 0.5) / (doc_freq + 0.5))


@dataclass(frozen=True)
class RelatedPaper:
    """One entry of a paper's related list: the other paper, its score, what the two share."""

    id: str
    score: float
    shares: str


@lru_cache(maxsize=1 << 14)  # a concept is shared by many pairs
def _name_words(*names: str) -> frozenset[str]:
    """The words of a concept's names (its name and aliases: `Sparse Autoencoders`, `SAE`)."""
    return frozenset(_fold(word) for name in names for word in _TOKEN.findall(name.casefold()) if word[0].isalnum())


def _shares(evidence: list[tuple[bool, str]]) -> str:
    """The reason a related paper is listed: its strongest shared concepts, else shared terms."""
    concepts = [name for is_concept, name in evidence if is_concept]
    shown = concepts or [f"“{term}”" for _, term in evidence]
    return ", ".join(shown[:MAX_REASONS])
