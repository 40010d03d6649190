"""Asking a related-papers index about papers it does not hold: ``RelatednessIndex``.

``link`` builds one from whole inputs (a ``RelatedIndex`` in one update) and reads every paper's
list from it. A watcher's preview asks it about a new seed file's papers before the round that
adds them (``related_to_new_papers``): their lists are worked out against the index **as it
stands, without changing it** -- each new paper weighed with the document frequencies its batch
would give its terms and concepts, the indexed papers' components as stored (rescaled where the
batch moves a term's band). That is the full run's rule, short of what the batch would move in
other papers (a length crossing a cap, a concept's weight): the round that follows writes the
exact lists a moment later. Asking costs the new papers' postings, nothing else; adding and
removing them again (the first design) re-scored every pair whose band the batch moved, twice.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from typing import Iterable, Mapping, Sequence

from .bands import count_band, size_band
from .related import (CONCEPT_WEIGHT, MAX_RELATED, MIN_EVIDENCE, MIN_PIECE, MIN_TEXT, PHRASE_CONCEPT_WEIGHT,
                      TEXT_WEIGHT, THRESHOLD, RelatedPaper, _shares, idf)
from .related_index import _DOT, SCALE, RelatedIndex, _factor, concept_cap, evidence, term_cap

NewPapers = Mapping[str, tuple[Mapping[str, int], Sequence[str]]]  # id -> (its text_terms, its concepts' names)


class RelatednessIndex:
    """Every paper's related papers, from whole inputs (``link``'s call): a ``RelatedIndex``
    built in one update.

    ``terms``: paper id -> its ``text_terms``; ``concepts``: paper id -> the names of the concepts
    it lists (``Paper.concepts``: never a broad one, see ``link.broad_concepts``); ``phrases``:
    names of concepts only corpus statistics found (no vocabulary, no acronym): they count
    ``PHRASE_CONCEPT_WEIGHT``, as a common phrase of the field ("Mild Conditions") may be among them;
    ``aliases``: concept name -> its other names (a shared term made of their words is that concept).
    """

    def __init__(self, terms: Mapping[str, Mapping[str, int]], concepts: Mapping[str, Sequence[str]],
                 phrases: Iterable[str] = (), aliases: Mapping[str, Sequence[str]] | None = None) -> None:
        self.index = RelatedIndex()
        self.index.update(terms, {paper_id: concepts[paper_id] for paper_id in terms if paper_id in concepts},
                          dict.fromkeys(phrases, True), dict(aliases or {}))

    @classmethod
    def over(cls, index: RelatedIndex) -> "RelatednessIndex":
        """The same questions asked of an index kept up to date elsewhere (a watcher's linker)."""
        wrapper = cls.__new__(cls)
        wrapper.index = index
        return wrapper

    def related(self, paper_id: str) -> tuple[RelatedPaper, ...]:
        """The papers related to ``paper_id`` (one of the index's), most related first."""
        return self.index.related(paper_id)

    def related_all(self) -> dict[str, tuple[RelatedPaper, ...]]:
        return self.index.related_all()

    def related_to_new_papers(self, papers: NewPapers) -> dict[str, tuple[RelatedPaper, ...]]:
        """The related papers of papers the index does not hold (a preview's new papers), each
        among the indexed papers and the other new ones, the index left as it was."""
        return _Asked(self.index, papers).related()


class _Asked:
    """One question: a batch of new papers' components, dot products and lists."""

    def __init__(self, index: RelatedIndex, papers: NewPapers) -> None:
        self.index, self.papers = index, {p: v for p, v in papers.items() if p not in index.number}
        self.band = band = index._band or size_band(len(index) + len(self.papers))
        self.cap, self.ccap = term_cap(band), concept_cap(band)
        self.term_df = Counter(term for counts, _ in self.papers.values() for term in counts)  # in the batch
        self.dfs: dict[str, int] = {}
        self.concept_df = Counter(name for _, names in self.papers.values() for name in dict.fromkeys(names))
        self.mine = {paper_id: self._components(counts) for paper_id, (counts, _) in self.papers.items()}
        self.vectors: dict[str | int, dict[str, int]] = {  # paper id or indexed number -> its concept vector
            paper_id: self._concept_vector(names) for paper_id, (_, names) in self.papers.items()}

    def _df(self, term: str) -> int:
        """Papers having ``term`` once the batch is added (asked once a term: ``dfs``)."""
        df = self.dfs.get(term)
        if df is None:
            tid = self.index._vocab.get(term)
            df = self.dfs[term] = self.term_df[term] + (self.index._df[tid] if tid is not None else 0)
        return df

    def _components(self, counts: Mapping[str, int]) -> dict[str, int]:
        """The new paper's quantised components of its compared terms (as ``RelatedIndex`` would)."""
        band, cap, rare = self.band, self.cap, idf(1, self.band)
        counted = [(term, tf, df) for term, tf in counts.items() if (df := self._df(term)) <= cap]
        length = math.sqrt(math.fsum([(rare * _factor(term, tf)) ** 2 for term, tf, _ in counted]))
        return {term: round(idf(count_band(df), band) * _factor(term, tf) / length * SCALE)
                for term, tf, df in counted if df >= 2}

    def _concept_vector(self, names: Sequence[str]) -> dict[str, int]:
        """``RelatedIndex._concept_vector``'s rule, each concept's listers counted with the batch's."""
        band, listing, phrases = self.band, self.index._listing, self.index._phrases
        rare = idf(1, band)
        counted = [(name, n, PHRASE_CONCEPT_WEIGHT if name in phrases else 1.0) for name in dict.fromkeys(names)
                   if (n := len(listing.get(name, ())) + self.concept_df[name]) <= self.ccap]
        if not counted:
            return {}
        norm = math.sqrt(math.fsum([(rare * factor) ** 2 for _, _, factor in counted]))
        return {name: round(idf(count_band(n), band) * factor / norm * SCALE) for name, n, factor in counted if n >= 2}

    def _theirs(self, term: str, df: int) -> list[tuple[int, int]]:
        """The indexed papers having a compared term, with their components as the batch leaves them."""
        index = self.index
        tid = index._vocab.get(term)
        if tid is None:
            return []
        held = index._df[tid]
        if held >= 2:
            values = index._q.get(tid)
            if values is None:
                return []
            rescale = idf(count_band(df), self.band) / idf(count_band(held), self.band)
            members = index._post[tid]
            return list(zip(members, values)) if rescale == 1 else [
                (other, round(value * rescale)) for other, value in zip(members, values)]
        if held == 1:  # (one paper had it: it had no component yet)
            other = index._only[tid]
            tf = index._tfs[other][bisect_left(index._tids[other], tid)]
            return [(other, round(idf(count_band(df), self.band) * _factor(term, tf) / index._length[other] * SCALE))]
        return []

    def related(self) -> dict[str, tuple[RelatedPaper, ...]]:
        index, mine = self.index, self.mine
        holders: dict[str, list[tuple[int, int]]] = {}
        batch: dict[str, list[tuple[str, int]]] = {}
        for paper_id, components in mine.items():
            for term, value in components.items():
                batch.setdefault(term, []).append((paper_id, value))
        lists = {}
        for paper_id, components in mine.items():
            dots: Counter = Counter()
            theirs: dict[int | str, dict[str, int]] = {}  # other -> its components of the terms shared
            for term, w in components.items():
                if term not in holders:
                    holders[term] = self._theirs(term, self._df(term))
                for other, value in (*holders[term], *batch[term]):
                    if other != paper_id:
                        dots[other] += w * value
                        theirs.setdefault(other, {})[term] = value
            ranked = []
            for other, dot in dots.items():
                entry = self._judge(paper_id, other, dot, theirs[other])
                if entry is not None:
                    other_id = other if isinstance(other, str) else index.ids[other]
                    ranked.append((-entry[0], other_id, entry[1]))
            ranked.sort()
            lists[paper_id] = tuple(RelatedPaper(other_id, -score, shares)
                                    for score, other_id, shares in ranked[:MAX_RELATED])
        return lists

    def _judge(self, paper_id: str, other: int | str, dot: int, theirs: dict[str, int]) -> tuple[float, str] | None:
        """``RelatedIndex._judge``'s rule for a new paper and another (a number: an indexed paper)."""
        text = dot / _DOT
        if text < MIN_TEXT:
            return None
        concepts = self.vectors[paper_id]
        others = self.vectors.get(other)
        if others is None:  # (an indexed paper's, its concepts weighed as the batch leaves them)
            others = self.vectors[other] = self._concept_vector(self.index._concepts.get(other, ()))
        together = sum(concepts[name] * others[name] for name in concepts.keys() & others.keys())
        score = TEXT_WEIGHT * text + CONCEPT_WEIGHT * (together / _DOT)
        if score < THRESHOLD:
            return None
        mine, floor = self.mine[paper_id], MIN_PIECE * _DOT
        shared = [(-product, term) for term, value in theirs.items() if (product := mine[term] * value) >= floor]
        pieces = evidence(concepts, others, shared, self.index._aliases)
        if len(pieces) >= MIN_EVIDENCE:
            return (score, _shares(pieces))
        return None
