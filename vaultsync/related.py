"""Related papers: which other papers a paper's note lists, and what each shares with it.

A pair of papers scores on two signals, each a cosine between two vectors that depend only on
the paper itself and on corpus statistics that move slowly (document frequencies):

* **text** -- "more like this" over the abstracts: each abstract's words and adjacent word pairs
  (none across a stop word or punctuation; stop words and scientific boilerplate removed,
  plurals folded), weighted as BM25 weighs a term (saturated term frequency x idf; a single
  word counts ``UNIGRAM_WEIGHT`` of a pair). Every term counts in the paper's length; its
  ``TOP_TERMS`` heaviest terms that other papers have, and that at most ``MAX_TERM_SHARE`` of
  the papers (at most ``MAX_SHARE_CAP``) have, are compared;
* **concepts** -- the concepts the paper lists (never broad ones: ``link.broad_concepts``),
  weighted by idf, no hubs; a concept only corpus statistics found counts half.

A paper is related when its text cosine reaches ``MIN_TEXT`` (the abstracts must agree: a shared
concept alone is often a shared word), ``TEXT_WEIGHT * text + CONCEPT_WEIGHT * concepts``
reaches ``THRESHOLD``, and the two share at least ``MIN_EVIDENCE`` distinct things (concepts, or
terms that are not words of a shared concept or of a stronger shared term). The bar is absolute,
not "the best five of whatever exists": a paper lists at most ``MAX_RELATED``, fewer or none when
nothing is close enough, and adding a paper changes only the lists of the papers it is close to
(and, through the frequencies, barely any other score). Most related first, ties by id. Each
comes with what the two share: the strongest shared concepts, else the strongest shared terms.

Only the papers sharing one of a paper's compared terms are scored (an inverted index over the
rarer terms), so 20,000 papers cost seconds.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

MAX_RELATED = 5
TOP_TERMS = 25  # a paper's heaviest terms, as Lucene's "more like this" keeps 25: the scoring's cost
UNIGRAM_WEIGHT = 0.5  # a shared word pair ("flow matching") says more than a shared word ("flow")
MAX_TERM_SHARE = 0.05  # a term in more of the papers says nothing about a pair (nor does its cost) ...
MIN_SHARE_CAP = 10  # ... unless in a small corpus, where a share of the papers is a handful ...
MAX_SHARE_CAP = 40  # ... and never more papers than these: a field's word, and each costs its square
MAX_CONCEPT_SHARE = 0.05
PHRASE_CONCEPT_WEIGHT = 0.5
TEXT_WEIGHT, CONCEPT_WEIGHT = 1.0, 0.25
THRESHOLD = 0.10
MIN_TEXT = 0.06  # the abstracts must agree too: a shared concept alone is often a shared word (judged blind: pairs under 0.06 were 27-38 % unrelated, over it 15-19 %)
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


def _unit(weights: dict[str, float], kept) -> dict[str, float]:
    """``weights`` divided by their length, only the keys ``kept`` says to keep."""
    norm = math.sqrt(sum([w * w for w in weights.values()]))
    return {key: w / norm for key, w in weights.items() if kept(key)} if norm else {}


@dataclass(frozen=True)
class RelatedPaper:
    """One entry of a paper's related list: the other paper, its score, what the two share."""

    id: str
    score: float
    shares: str


class RelatednessIndex:
    """Every paper's two vectors and the inverted index over them; asks which papers relate.

    ``terms``: paper id -> its ``text_terms``; ``concepts``: paper id -> the names of the concepts
    it lists (``Paper.concepts``: never a broad one, see ``link.broad_concepts``); ``phrases``:
    names of concepts only corpus statistics found (no vocabulary, no acronym): they count
    ``PHRASE_CONCEPT_WEIGHT``, as a common phrase of the field ("Mild Conditions") may be among them;
    ``aliases``: concept name -> its other names (a shared term made of their words is that concept).
    """

    def __init__(self, terms: Mapping[str, Mapping[str, int]], concepts: Mapping[str, Sequence[str]],
                 phrases: Iterable[str] = (), aliases: Mapping[str, Sequence[str]] | None = None) -> None:
        self.total = total = max(len(terms), 1)
        term_df: Counter = Counter()
        for counts in terms.values():
            term_df.update(counts.keys())  # (counted in C)
        concept_df: dict[str, int] = {}
        for keys in concepts.values():
            for key in keys:
                concept_df[key] = concept_df.get(key, 0) + 1
        self.term_df, self.concept_df = term_df, concept_df
        self.phrases = frozenset(phrases)
        self.aliases = aliases or {}
        # papers by number (their order in ``terms``): ints hash and compare faster than ids
        self.ids: list[str] = list(terms)
        self.number = {paper_id: place for place, paper_id in enumerate(self.ids)}
        cap = int(min(max(MIN_SHARE_CAP, MAX_TERM_SHARE * total), MAX_SHARE_CAP))
        self._weights = [idf(n, total) for n in range(cap + 1)]  # a term in n papers -> its idf, up to the cap
        self.text: list[dict[str, float]] = []
        self.concepts: list[dict[str, float]] = []
        self.postings: dict[str, list[tuple[int, float]]] = {}  # term -> (paper number, weight)
        for paper_id, counts in terms.items():
            self._add(counts, concepts.get(paper_id, ()))
        # a term of one paper relates none (kept, the table would hold every word pair of the corpus)
        self.term_df = {term: n for term, n in term_df.items() if n > 1}

    # -- vectors ---------------------------------------------------------------------------------

    def text_vector(self, counts: Mapping[str, int], new: bool = False) -> dict[str, float]:
        """The unit vector of a paper's ``text_terms``, cut to its ``TOP_TERMS`` heaviest terms that
        another paper has (every term counts in its length); ``new``: of a paper not counted in
        the frequencies."""
        df, extra, weights = self.term_df, int(new), self._weights
        squares = 0.0
        shared = []  # (-weight, term) of the terms another paper has
        for term, tf in counts.items():
            n = df.get(term, 1 - extra) + extra
            if n < len(weights):  # (at most the cap)
                weight = weights[n] * (tf * (_K1 + 1) / (tf + _K1) if tf > 1 else 1.0)
                if " " not in term:
                    weight *= UNIGRAM_WEIGHT
                squares += weight * weight
                if n > 1:
                    shared.append((-weight, term))
        norm = math.sqrt(squares)
        return {term: -w / norm for w, term in heapq.nsmallest(TOP_TERMS, shared)}

    def concept_vector(self, names: Iterable[str], new: bool = False) -> dict[str, float]:
        """The unit vector of a paper's concepts, idf-weighted, no hubs (those no other paper
        lists count in its length)."""
        cap = max(MIN_SHARE_CAP, MAX_CONCEPT_SHARE * self.total)
        df, total, extra = self.concept_df, self.total, int(new)
        phrases = self.phrases
        weights = {name: idf(df.get(name, 0) + extra, total) * (PHRASE_CONCEPT_WEIGHT if name in phrases else 1.0)
                   for name in names if df.get(name, 0) + extra <= cap}
        return _unit(weights, lambda name: df.get(name, 0) + extra > 1)

    def _add(self, counts: Mapping[str, int], keys: Sequence[str]) -> None:
        text, concepts = self.text_vector(counts), self.concept_vector(keys)
        number = len(self.text)
        self.text.append(text)
        self.concepts.append(concepts)
        postings = self.postings
        for term, weight in text.items():
            if term in postings:
                postings[term].append((number, weight))
            else:
                postings[term] = [(number, weight)]

    # -- scoring ---------------------------------------------------------------------------------

    def scores(self, text: Mapping[str, float]) -> dict[int, float]:
        """Every paper (by number) whose text agrees enough with this vector (``MIN_TEXT``) ->
        the text's cosine."""
        scores: dict[int, float] = {}
        postings = self.postings
        for term, w in text.items():
            for other, theirs in postings.get(term, ()):  # (the plain loop: the fastest form)
                if other in scores:
                    scores[other] += w * theirs
                else:
                    scores[other] = w * theirs
        return {other: score for other, score in scores.items() if score >= MIN_TEXT}

    def related(self, paper_id: str) -> tuple[RelatedPaper, ...]:
        """The papers related to ``paper_id`` (one of the index's), most related first."""
        number = self.number[paper_id]
        text = self.text[number]
        scores = self.scores(text)
        scores.pop(number, None)
        return self._best(text, self.concepts[number], scores)

    def related_all(self) -> dict[str, tuple[RelatedPaper, ...]]:
        """``related`` of every indexed paper; each pair's text compared once (half the work)."""
        agreeing: list[dict[int, float]] = [{} for _ in self.ids]
        postings = self.postings
        seen: dict[str, int] = {}  # term -> how many papers so far have it: this paper's place in its postings
        for number, text in enumerate(self.text):
            scores: dict[int, float] = {}
            for term, w in text.items():
                place = seen.get(term, 0)
                seen[term] = place + 1
                # only the papers after this one (postings are in paper order): each pair once
                for other, theirs in postings[term][place + 1:]:
                    if other in scores:
                        scores[other] += w * theirs
                    else:
                        scores[other] = w * theirs
            mine = agreeing[number]
            for other, score in scores.items():
                if score >= MIN_TEXT:
                    mine[other] = agreeing[other][number] = score
        text, concepts = self.text, self.concepts
        shared: dict[tuple[int, int], list] = {}  # what a pair shares is the same from either side
        return {paper_id: self._best(text[number], concepts[number], agreeing[number], number, shared)
                for number, paper_id in enumerate(self.ids)}

    def related_to_new(self, paper_id: str, counts: Mapping[str, int], keys: Sequence[str]
                       ) -> tuple[RelatedPaper, ...]:
        """The indexed papers related to a paper not in the index (a preview's new paper)."""
        text = self.text_vector(counts, new=True)
        scores = self.scores(text)
        if paper_id in self.number:
            scores.pop(self.number[paper_id], None)
        return self._best(text, self.concept_vector(keys, new=True), scores)

    def _best(self, text, concepts, agreeing: Mapping[int, float], number: int = -1,
              known: dict[tuple[int, int], list] | None = None) -> tuple[RelatedPaper, ...]:
        """The related papers among ``agreeing`` (paper number -> text cosine, at least
        ``MIN_TEXT``): their shared concepts added, at the bar, with the evidence; most related
        first, ties by id. ``known``: the evidence of pairs (by number) worked out already, for
        the paper numbered ``number``."""
        ids, vectors = self.ids, self.concepts
        passing = []
        for other, cosine in agreeing.items():
            score = TEXT_WEIGHT * cosine
            theirs = vectors[other]
            if concepts and theirs:
                shared = concepts.keys() & theirs.keys()  # (mostly none: asked in C)
                if shared:
                    score += CONCEPT_WEIGHT * sum([concepts[key] * theirs[key] for key in shared])
            if score >= THRESHOLD:
                passing.append((-score, ids[other], other))
        passing.sort()
        best = []
        for score, paper_id, other in passing:
            if known is None:
                evidence = self.evidence(text, concepts, other)
            else:
                pair = (number, other) if number < other else (other, number)
                evidence = known.get(pair)
                if evidence is None:
                    evidence = known[pair] = self.evidence(text, concepts, other)
            if len(evidence) >= MIN_EVIDENCE:
                best.append(RelatedPaper(paper_id, -score, _shares(evidence)))
                if len(best) == MAX_RELATED:
                    break
        return tuple(best)

    def evidence(self, text, concepts, other: int) -> list[tuple[bool, str]]:
        """What the two papers share, as distinct pieces of evidence, strongest first: (is a
        concept, its name or the term); as many as ``MIN_EVIDENCE`` and the reason need. A term
        whose words all belong to a piece already counted is that piece ("flow matching" or "fm"
        under `Flow Matching` (alias `FM`), "flow" under "flow matching"). ``other``: a paper's
        number."""
        theirs = self.concepts[other]
        pieces = [(True, name) for _, name in sorted((-w * theirs[name], name) for name, w in concepts.items()
                                                      if name in theirs)]
        aliases = self.aliases
        words = [_name_words(name, *aliases.get(name, ())) for _, name in pieces]
        # (the terms are needed only until the count and the reason are made)
        enough = MIN_EVIDENCE if pieces else MAX_REASONS
        if len(pieces) >= enough:
            return pieces
        theirs = self.text[other]
        for product, term in sorted([(-w * theirs[term], term) for term, w in text.items() if term in theirs]):
            if -product < MIN_PIECE:
                break
            mine = term.split(" ")
            if not any(all(word in seen for word in mine) for seen in words):
                pieces.append((False, term))
                words.append(set(mine))
                if len(pieces) >= enough:
                    break
        return pieces


@lru_cache(maxsize=1 << 14)  # a concept is shared by many pairs
def _name_words(*names: str) -> frozenset[str]:
    """The words of a concept's names (its name and aliases: `Sparse Autoencoders`, `SAE`)."""
    return frozenset(_fold(word) for name in names for word in _TOKEN.findall(name.casefold()) if word[0].isalnum())


def _shares(evidence: list[tuple[bool, str]]) -> str:
    """The reason a related paper is listed: its strongest shared concepts, else shared terms."""
    concepts = [name for is_concept, name in evidence if is_concept]
    shown = concepts or [f"“{term}”" for _, term in evidence]
    return ", ".join(shown[:MAX_REASONS])
