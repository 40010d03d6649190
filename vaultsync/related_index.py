"""The related-papers index, kept exactly up to date as papers come and go (issue 22).

The score (``vaultsync.related`` states it) depends on the corpus only through banded figures:
the corpus size in ``size_band`` steps and each term's or concept's document frequency in
``count_band`` steps (and whether it is at most the cap, a band edge too). A paper's lengths are
local (every counted term weighed as if rare), so a term's band moving changes only the pairs
that share the term. ``RelatedIndex.update`` applies a batch of changes and works out again only
what they touch:

* the rows (every pair) of new papers and of papers whose concept list changed;
* the rows of every paper having a term that crossed the cap (the papers' lengths change);
* the pairs among the papers having a term whose band moved (no other pair has its weight), each
  scored again whole (``_regroup``: every term and concept the two share, the same integers);
* the rows of every paper listing a concept that crossed the cap or whose phrase flag changed
  (both move the listers' concept lengths);
* the pairs among the papers listing a concept whose band or aliases changed (its weight, the
  evidence's words), or their rows when more than ``PAIRS_AT_MOST`` papers list it;
* everything, when the corpus size's band moves (rare: at 20,000 papers it moves at 23,170).

Every passing pair of a paper is kept (not only its ``MAX_RELATED`` best), so a paper whose list
loses an entry finds its next one without being worked out again.

**Exact arithmetic.** Each vector component is quantised to an integer, ``round(w / L * 2**24)``,
and a pair's dot products are sums of integer products (exact, in any order); lengths are
``math.fsum`` (correctly rounded, so independent of order). A pair's score is therefore the same
bits whichever paper computed it and in whatever order the papers arrived, and the index after
any sequence of updates equals a fresh one built from the final inputs (a hypothesis test says so).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from typing import Mapping, Sequence

from .bands import count_band, size_band
from .related import (CONCEPT_WEIGHT, MAX_CONCEPT_SHARE, MAX_REASONS, MAX_RELATED, MAX_SHARE_CAP, MAX_TERM_SHARE,
                      MIN_EVIDENCE, MIN_PIECE, MIN_SHARE_CAP, MIN_TEXT, PHRASE_CONCEPT_WEIGHT, TEXT_WEIGHT,
                      THRESHOLD, UNIGRAM_WEIGHT, _K1, RelatedPaper, _name_words, _shares, idf)

SCALE = 1 << 24  # a vector component w / L as an integer: round(w / L * SCALE)
_DOT = float(SCALE * SCALE)  # a dot product of two such vectors, back to a cosine-like figure
_EMPTY = array("i")
PAIRS_AT_MOST = 48  # a concept whose weight or names moved: its listers' pairs scored again, up to so many listers


def term_cap(band: int) -> int:
    """The most papers a counted term may have, for a corpus of size band ``band``."""
    return int(min(max(MIN_SHARE_CAP, MAX_TERM_SHARE * band), MAX_SHARE_CAP))


def concept_cap(band: int) -> float:
    return max(MIN_SHARE_CAP, MAX_CONCEPT_SHARE * band)


def _factor(term: str, tf: int) -> float:
    """A term's weight apart from its idf: saturated frequency, a single word counting less."""
    sat = tf * (_K1 + 1) / (tf + _K1) if tf > 1 else 1.0
    return sat if " " in term else sat * UNIGRAM_WEIGHT


def evidence(concepts: Mapping[str, int], theirs: Mapping[str, int], shared: list[tuple[int, str]],
             aliases: Mapping[str, Sequence[str]], both: set[str] | None = None) -> list[tuple[bool, str]]:
    """What two papers share, as distinct pieces, strongest first: the concepts both list (by the
    product of their components, ties by name), then the shared terms (``shared``: (-product,
    term), each at least ``MIN_PIECE``) whose words are not all of a piece counted already
    (``related``'s rule: such a term is that piece). Integers and names only: the same from either side.
    ``both``: the concepts the two share, when the caller has them."""
    pieces = [(True, name) for _, name in sorted((-concepts[name] * theirs[name], name)
                                                  for name in (concepts.keys() & theirs.keys() if both is None else both))]
    enough = MIN_EVIDENCE if pieces else MAX_REASONS
    if len(pieces) >= enough:
        return pieces
    words = [_name_words(name, *aliases.get(name, ())) for _, name in pieces]
    for _, term in sorted(shared):
        split = term.split(" ")
        if not any(all(word in seen for word in split) for seen in words):
            pieces.append((False, term))
            words.append(set(split))
            if len(pieces) >= enough:
                break
    return pieces


class RelatedIndex:
    """Every paper's terms and concepts, the postings over them and each paper's passing pairs.

    Papers are numbered in order of arrival (a number is never reused); a term by its place in
    the vocabulary. Postings (term -> the papers having it, sorted, with their quantised
    components) are kept for the terms at least two papers have; a term of one paper remembers
    only that paper. A concept list for a paper not in the index is ignored; a paper removed
    loses its concepts; a paper whose text changes keeps its concept list unless given another.
    """

    def __init__(self) -> None:
        self.number: dict[str, int] = {}  # paper id -> number
        self.ids: list[str | None] = []  # number -> paper id (None: removed)
        self._tids: list[array] = []  # number -> its term numbers, sorted
        self._tfs: list[array] = []  # ... and their counts in its abstract
        self._length: list[float] = []  # number -> its text length L_p
        self._vocab: dict[str, int] = {}
        self._terms: list[str] = []  # term number -> term
        self._df = array("i")  # term number -> papers having it
        self._only = array("i")  # term number -> the paper having it, when only one does
        self._post: dict[int, array] = {}  # term number -> papers having it (two or more), sorted
        self._q: dict[int, array] = {}  # term number -> the papers' quantised components (counted terms)
        self._concepts: dict[int, tuple[str, ...]] = {}
        self._listing: dict[str, set[int]] = {}  # concept name -> papers listing it
        self._phrases: set[str] = set()
        self._aliases: dict[str, tuple[str, ...]] = {}
        self._band = 0
        self._pass: list[dict[int, tuple[float, str]]] = []  # number -> other -> (score, shares)
        self._lists: dict[int, tuple[RelatedPaper, ...]] = {}
        self._cvectors: dict[int, dict[str, int]] = {}  # (a cache, cleared by every update)
        self._touched: set[int] = set()  # papers a pair entered, in this update
        self.last: dict[str, int] = {}  # the last update's work: papers worked out whole, pairs scored again

    # -- reading ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.number)

    def related(self, paper_id: str) -> tuple[RelatedPaper, ...]:
        return self._lists[self.number[paper_id]]

    def related_all(self) -> dict[str, tuple[RelatedPaper, ...]]:
        return {paper_id: self._lists[number] for paper_id, number in self.number.items()}

    # -- updating --------------------------------------------------------------------------------

    def update(self, texts: Mapping[str, Mapping[str, int] | None] = {},
               concepts: Mapping[str, Sequence[str]] = {},
               phrases: Mapping[str, bool] = {},
               aliases: Mapping[str, Sequence[str] | None] = {}) -> set[str]:
        """Apply a batch of changes; return the ids of papers whose ``related()`` changed (new
        papers included, removed ones not) -- in anything, a score alone included (the linker
        compares the records it makes, which show ids and shares). ``texts``: paper id -> its ``text_terms`` (None:
        removed); ``concepts``: paper id -> the concept names it lists; ``phrases``: concept
        name -> found by phrases only; ``aliases``: concept name -> its aliases (None: gone)."""
        before: dict[str, tuple[RelatedPaper, ...] | None] = {}  # id -> its list before (None: new)
        terms_moved: dict[int, int] = {}  # term number -> its frequency before
        concepts_moved: dict[str, int] = {}  # concept name -> its frequency before
        dirty: set[int] = set()  # papers whose every pair is worked out again
        listed: set[int] = set()  # papers whose concept list changed
        self._cvectors = {}
        # from empty (the band 0), the band moves with the first paper: every weight is worked out again
        tracked = terms_moved if self.number or self._band != 0 else None
        for paper_id, counts in texts.items():
            number = self.number.get(paper_id)
            if number is not None:
                before.setdefault(paper_id, self._lists[number])
                kept = self._concepts.get(number, ())
                self._remove(number, terms_moved, concepts_moved, before)
            else:
                before.setdefault(paper_id, None)
                kept = ()
            if counts is not None:
                number = self._add(paper_id, counts, tracked)
                dirty.add(number)
                self._set_concepts(number, kept, concepts_moved)
        for paper_id, names in concepts.items():
            number = self.number.get(paper_id)
            if number is not None and self._set_concepts(number, tuple(dict.fromkeys(names)), concepts_moved):
                listed.add(number)
        concepts_changed = set()  # concepts whose listers' concept lengths moved: their full rows
        concepts_shared: set[str] = set()  # concepts whose weight or names moved: the pairs listing them
        for name, flag in phrases.items():
            if flag != (name in self._phrases):
                (self._phrases.add if flag else self._phrases.discard)(name)
                concepts_changed.add(name)  # (the factor enters the listers' lengths)
        for name, names in aliases.items():
            names = tuple(names) if names else ()
            if names != self._aliases.get(name, ()):
                if names:
                    self._aliases[name] = names
                else:
                    del self._aliases[name]
                concepts_shared.add(name)  # (only the evidence of pairs sharing it)

        band = size_band(len(self.number))
        causes = {"texts": len(dirty), "lists": len(listed - dirty)}
        lengths: set[int] = set(dirty)  # papers whose text length is worked out again (a list changing moves none)
        dirty.update(listed)
        groups: list[Sequence[int]] = []  # papers every pair among which is scored again
        wide: list[set[int]] = []  # ... so many that their rows find the pairs among them
        if band != self._band:  # everything: every weight and length moves
            self._band = band
            lengths = dirty = set(self.number.values())
            stale = set(self._post)
            self._q = {}
        else:
            cap, ccap = term_cap(band), concept_cap(band)
            stale = set(terms_moved)
            for term, old in terms_moved.items():
                new = self._df[term]
                if (old <= cap) != (new <= cap):  # in or out of the papers' lengths
                    members = self._members(term)
                    lengths.update(members)
                    dirty.update(members)
                elif new <= cap and count_band(old) != count_band(new) and new >= 2:
                    groups.append(self._members(term))  # (its weight: only the pairs sharing it)
            for name, old in concepts_moved.items():
                new = len(self._listing.get(name, ()))
                if (old <= ccap) != (new <= ccap):  # in or out of the listers' concept lengths
                    concepts_changed.add(name)
                elif new <= ccap and count_band(old) != count_band(new) and new >= 2:
                    concepts_shared.add(name)
            for name in concepts_changed:
                dirty.update(self._listing.get(name, ()))
            for name in concepts_shared:
                listers = self._listing.get(name, ())
                if len(listers) > PAIRS_AT_MOST:  # (so many pairs: their rows find those the texts agree on)
                    wide.append(listers)
                elif len(listers) >= 2:
                    groups.append(sorted(listers))
            for number in lengths:
                stale.update(self._tids[number])
            causes["cap"] = len(lengths) - causes["texts"]
            causes["concepts"] = len(dirty) - len(lengths | listed)
        for number in lengths:
            self._length[number] = self._text_length(number)
        self._requantise(stale)
        # every pair of a dirty paper goes, then comes back if it still passes
        lists = self._lists
        for number in dirty:
            before.setdefault(self.ids[number], lists[number])
            for other in self._pass[number]:
                if other not in dirty:
                    before.setdefault(self.ids[other], lists[other])
                    del self._pass[other][number]
            self._pass[number] = {}
        self._touched: set[int] = set()
        self._rows(sorted(dirty), full=len(dirty) == len(self.number))
        for number in self._touched:  # papers a dirty paper's pair entered (their lists are the old ones yet)
            before.setdefault(self.ids[number], lists[number])
        rescored = self._regroup(groups, wide, dirty, before)
        self.last = {"dirty": len(dirty), **causes, "pairs": rescored, "groups": len(groups), "wide": len(wide)}

        changed = set()
        for paper_id, old in before.items():
            number = self.number.get(paper_id)
            if number is None:
                continue
            self._lists[number] = new = self._best(number)
            if new != old:
                changed.add(paper_id)
        return changed

    def _members(self, term: int) -> array:
        df = self._df[term]
        if df >= 2:
            return self._post[term]
        return array("i", [self._only[term]]) if df == 1 else _EMPTY

    def _add(self, paper_id: str, counts: Mapping[str, int], moved: dict[int, int] | None) -> int:
        """(``moved`` None: no term's frequency before is needed, every weight being worked out again.)"""
        number = len(self.ids)
        self.number[paper_id] = number
        self.ids.append(paper_id)
        vocab, terms, df, only, post = self._vocab, self._terms, self._df, self._only, self._post
        pairs = []
        for term, tf in counts.items():
            tid = vocab.get(term)
            if tid is None:
                tid = vocab[term] = len(terms)
                terms.append(term)
                df.append(0)
                only.append(-1)
            pairs.append((tid, tf))
        pairs.sort()
        for tid, _ in pairs:
            n = df[tid]
            if moved is not None:
                moved.setdefault(tid, n)
            df[tid] = n + 1
            if n == 0:
                only[tid] = number
            elif n == 1:
                post[tid] = array("i", sorted((only[tid], number)))
            else:
                post[tid].append(number)  # (numbers only grow: the postings stay sorted)
        self._tids.append(array("i", [tid for tid, _ in pairs]))
        self._tfs.append(array("i", [tf for _, tf in pairs]))
        self._length.append(0.0)
        self._pass.append({})
        self._lists[number] = ()
        return number

    def _remove(self, number: int, moved: dict[int, int], concepts_moved: dict[str, int],
                before: dict) -> None:
        df, only, post, q = self._df, self._only, self._post, self._q
        for tid in self._tids[number]:
            n = df[tid]
            moved.setdefault(tid, n)
            df[tid] = n - 1
            if n == 2:
                members = post.pop(tid)
                only[tid] = members[0] if members[0] != number else members[1]
                q.pop(tid, None)
            elif n > 2:
                members = post[tid]
                del members[bisect_left(members, number)]
            else:
                only[tid] = -1
        self._set_concepts(number, (), concepts_moved)
        for other in self._pass[number]:
            before.setdefault(self.ids[other], self._lists[other])
            del self._pass[other][number]
        del self.number[self.ids[number]]
        self.ids[number] = None
        self._tids[number] = self._tfs[number] = _EMPTY
        self._pass[number] = {}
        del self._lists[number]

    def _set_concepts(self, number: int, names: tuple[str, ...], moved: dict[str, int]) -> bool:
        old = self._concepts.get(number, ())
        if old == names:
            return False
        listing = self._listing
        for name in set(old).symmetric_difference(names):
            papers = listing.setdefault(name, set())
            moved.setdefault(name, len(papers))
            if name in names:
                papers.add(number)
            else:
                papers.discard(number)
                if not papers:
                    del listing[name]
        if names:
            self._concepts[number] = names
        else:
            self._concepts.pop(number, None)
        return True

    # -- weights ---------------------------------------------------------------------------------

    def _text_length(self, number: int) -> float:
        """L_p: every counted term (at most the cap) weighed as if only this paper had it."""
        cap, rare = term_cap(self._band), idf(1, self._band)
        df, terms = self._df, self._terms
        return math.sqrt(math.fsum([(rare * _factor(terms[tid], tf)) ** 2
                                    for tid, tf in zip(self._tids[number], self._tfs[number]) if df[tid] <= cap]))

    def _requantise(self, stale: set[int]) -> None:
        """The quantised components of these terms' postings, worked out again."""
        cap, band = term_cap(self._band), self._band
        df, post, q, terms = self._df, self._post, self._q, self._terms
        tids, tfs, length = self._tids, self._tfs, self._length
        for tid in stale:
            n = df[tid]
            if n < 2 or n > cap:
                q.pop(tid, None)
                continue
            weight, term = idf(count_band(n), band), terms[tid]
            values = array("q")
            for number in post[tid]:
                mine = tids[number]
                tf = tfs[number][bisect_left(mine, tid)]
                values.append(round(weight * _factor(term, tf) / length[number] * SCALE))
            q[tid] = values

    def _concept_vector(self, number: int) -> dict[str, int]:
        vector = self._cvectors.get(number)
        if vector is None:
            band = self._band
            ccap, rare = concept_cap(band), idf(1, band)
            listing, phrases = self._listing, self._phrases
            counted = [(name, len(listing[name]), PHRASE_CONCEPT_WEIGHT if name in phrases else 1.0)
                       for name in self._concepts.get(number, ()) if len(listing[name]) <= ccap]
            norm = math.sqrt(math.fsum([(rare * factor) ** 2 for _, _, factor in counted]))
            vector = self._cvectors[number] = {
                name: round(idf(count_band(n), band) * factor / norm * SCALE)
                for name, n, factor in counted if n >= 2}
        return vector

    # -- pairs -----------------------------------------------------------------------------------

    def _rows(self, numbers: list[int], full: bool) -> None:
        """Every pair of these papers (each pair once), kept when it passes. ``full``: these are
        all the papers (each pair is then met from its lower number only)."""
        dirty = set(numbers)
        bar = MIN_TEXT * _DOT
        for number in numbers:
            dots, mine = self._dots(number, after=full)
            keys = None
            for other, dot in dots.items():
                if dot >= bar and (full or other not in dirty or other > number):
                    if keys is None:
                        keys = set(mine)  # (once a row: the evidence intersects it with the other's terms)
                    self._pair(number, other, dot, mine, keys)

    def _regroup(self, groups: list[Sequence[int]], wide: list[set[int]], dirty: set[int], before: dict) -> int:
        """Every pair among each group's papers (none of them dirty: their rows have it), scored
        again exactly (over all the terms and concepts the two share) and kept or dropped; the
        papers whose passing pairs changed are noted in ``before``. A wide group's papers (a
        concept many list) take their rows' dot products, each pair among them from its lower
        number (a pair the texts disagree on cannot pass). Returns the pairs scored."""
        pairs: set[tuple[int, int]] = set()
        for group in groups:
            members = [number for number in group if number not in dirty]
            for place, number in enumerate(members):
                for other in members[place + 1:]:
                    pairs.add((number, other))
        bar = MIN_TEXT * _DOT
        q, post, tids = self._q, self._post, self._tids
        sets: dict[int, set[int]] = {}
        for number, other in pairs:
            mine_set = sets.get(number)
            if mine_set is None:
                mine_set = sets[number] = set(tids[number])
            dot, mine = 0, {}
            for tid in mine_set.intersection(tids[other]):
                values = q.get(tid)
                if values is None:
                    continue
                members = post[tid]
                w = mine[tid] = values[bisect_left(members, number)]
                dot += w * values[bisect_left(members, other)]
            self._settle(number, other, self._judge(number, other, dot, mine) if dot >= bar else None, before)
        scored = len(pairs)
        for listers in wide:
            for number in sorted(listers - dirty):
                dots, mine = self._dots(number)
                for other, dot in dots.items():
                    if other > number and other in listers and other not in dirty and (number, other) not in pairs:
                        pairs.add((number, other))
                        self._settle(number, other, self._judge(number, other, dot, mine) if dot >= bar else None,
                                     before)
                        scored += 1
                for other in self._pass[number].keys() - dots.keys():  # (no longer sharing a compared term)
                    if other > number and other in listers and other not in dirty:
                        self._settle(number, other, None, before)
        return scored

    def _dots(self, number: int, after: bool = False) -> tuple[dict[int, int], dict[int, int]]:
        """The paper's text dot product with every paper it shares a compared term with (``after``:
        only the papers numbered after it, each pair of a whole build met once), and its components."""
        post, q = self._post, self._q
        dots: dict[int, int] = {}
        mine: dict[int, int] = {}  # term -> this paper's component
        for tid in self._tids[number]:
            values = q.get(tid)  # (a term compared: at least two papers, at most the cap)
            if values is None:
                continue
            members = post[tid]
            place = bisect_left(members, number)
            w = mine[tid] = values[place]
            if after:
                members, values = members[place + 1:], values[place + 1:]
            for other, theirs in zip(members, values):
                if other in dots:
                    dots[other] += w * theirs
                else:
                    dots[other] = w * theirs
        dots.pop(number, None)
        return dots, mine

    def _settle(self, number: int, other: int, entry: tuple[float, str] | None, before: dict) -> None:
        """The pair's entry as scored again: kept, replaced or dropped (both papers noted when it moved)."""
        passing = self._pass
        if passing[number].get(other) != entry:
            before.setdefault(self.ids[number], self._lists[number])
            before.setdefault(self.ids[other], self._lists[other])
            if entry is None:
                del passing[number][other], passing[other][number]
            else:
                passing[number][other] = passing[other][number] = entry

    def _pair(self, number: int, other: int, dot: int, mine: dict[int, int], keys: set[int]) -> None:
        entry = self._judge(number, other, dot, mine, keys)
        if entry is not None:
            self._pass[number][other] = self._pass[other][number] = entry
            self._touched.add(other)

    def _judge(self, number: int, other: int, dot: int, mine: dict[int, int],
               keys: set[int] | None = None) -> tuple[float, str] | None:
        """The pair's entry when it passes (``mine``: this paper's components of, at least, the
        compared terms the two share), else None."""
        text = dot / _DOT
        if text < MIN_TEXT:
            return None
        concepts, theirs = self._concept_vector(number), self._concept_vector(other)
        together = 0
        if concepts and theirs:
            for name in concepts.keys() & theirs.keys():
                together += concepts[name] * theirs[name]
        score = TEXT_WEIGHT * text + CONCEPT_WEIGHT * (together / _DOT)
        if score < THRESHOLD:
            return None
        evidence = self._evidence(number, other, mine, concepts, theirs, keys)
        if len(evidence) >= MIN_EVIDENCE:
            return (score, _shares(evidence))
        return None

    def _evidence(self, number: int, other: int, mine: dict[int, int], concepts: dict[str, int],
                  theirs: dict[str, int], keys: set[int] | None = None) -> list[tuple[bool, str]]:
        """What the two share, as distinct pieces, strongest first (``evidence``), the same from
        either side."""
        post, q, terms = self._post, self._q, self._terms
        floor = MIN_PIECE * _DOT
        shared = []
        both = concepts.keys() & theirs.keys()
        if len(both) < MIN_EVIDENCE:  # (else the concepts are enough)
            shared_terms = mine.keys() & self._tids[other] if keys is None else keys.intersection(self._tids[other])
            for tid in shared_terms:  # (the intersection in C)
                product = mine[tid] * q[tid][bisect_left(post[tid], other)]
                if product >= floor:
                    shared.append((-product, terms[tid]))
        return evidence(concepts, theirs, shared, self._aliases, both)

    def _best(self, number: int) -> tuple[RelatedPaper, ...]:
        ids = self.ids
        ranked = sorted((-score, ids[other], shares) for other, (score, shares) in self._pass[number].items())
        return tuple([RelatedPaper(paper_id, -score, shares) for score, paper_id, shares in ranked[:MAX_RELATED]])
