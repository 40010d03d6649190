"""Salience: a concept links only where the abstract says it is about it -- named twice, or once
in its opening sentence or a sentence of the authors' own. Run after ``context.in_context`` and
after naming (a sentence naming the paper's own method is the authors' too)."""

from __future__ import annotations

import bisect
import re
from functools import lru_cache
from typing import Iterable

from .context import JUDGED_KINDS, _lowered, _occurrences, scoped_spans, NEGATED
from .context_spans import _SENTENCE_START
from .records import Extraction

# Where an abstract says what it is about: its opening sentence (the problem) and the sentences
# in which the authors speak (`we propose`, `our analysis`, `this paper`, `X is used to`); not what
# they only would or could do (`By mapping every range, we would learn how climate change acts`: a motive).
_AUTHORS = re.compile(r"\b(?:we(?! would| could| might)|our|us|this (?:paper|work|study|article|approach|method|framework|model|algorithm)"
                      r"|the proposed|(?:is|are) (?:used|employed|introduced|proposed|applied|adopted|designed|leveraged))\b")


def salient(text: str, extraction: Extraction, own: Iterable[str] = ()) -> Extraction:
    """``extraction`` with only the mentions that say what the paper is about: named twice or
    more, or once in the opening sentence or a sentence of the authors' own (`we propose`, `our
    analysis`, or one naming the paper's ``own`` names: `RCA captures ...`). A concept named once in
    passing -- in the background, a results sentence, a list of baselines -- is not a topic of the
    paper. A mention the abstract negates or sets against its method (``context``: `unlike X`,
    `comparable to X`) does not count: named there and once in passing is named in passing."""
    if not any(m.kind in JUDGED_KINDS and m.surfaces for m in extraction.concepts):
        return extraction
    low = _lowered(text)
    aside = scoped_spans(text)  # (what ``in_context`` read: cached)
    sentences: list[tuple[int, int]] = []  # (start, end) of each sentence: made when first needed
    telling: dict[int, bool] = {}  # sentence -> does it say what the paper is about
    names: tuple[str, ...] | None = None  # the paper's own names (`RCA`): gathered when first needed
    kept = []
    for mention in extraction.concepts:
        if mention.kind not in JUDGED_KINDS or not mention.surfaces:
            kept.append(mention)
            continue
        if any(map(_versioned, mention.surfaces)) and not _opens_with(text, low, mention.surfaces):
            continue  # a model named with its version is what the paper ran on (`we apply X to Llama-3`)
        once = _only_place(low, mention.surfaces, aside)
        if once is None:  # named twice or more
            kept.append(mention)
            continue
        if _METRICS in mention.broader:
            continue  # a metric named once is what a result is measured in (`improves the attack success rate`)
        if not sentences:
            starts = [0] + [m.end() for m in _SENTENCE_START.finditer(text)]
            sentences = list(zip(starts, starts[1:] + [len(low)]))
        index = bisect.bisect_right(sentences, (once, len(low))) - 1
        says = telling.get(index)
        if says is None:
            start, end = sentences[index]
            if names is None:
                names = _own_names(extraction, own)
            says = telling[index] = index == 0 or _AUTHORS.search(low, start, end) is not None \
                or _names_own(low[start:end], names)
        if says:
            kept.append(mention)
    if len(kept) == len(extraction.concepts):
        return extraction
    return Extraction(tuple(kept), extraction.paper_aliases, extraction.metadata)


_METRICS = "Evaluation Metrics"  # (the vocabulary's broader concept of every metric)

# a model named with its version or size (`GPT-4`, `Llama-3`, `Mistral-7B`, `Qwen2.5`), not `T2V`
_VERSIONED = re.compile(r"[A-Za-z][A-Za-z-]*[- ]?v?\d+(?:\.\d+)*(?:-?\d*[BbMmKk])?$")


@lru_cache(maxsize=65_536)  # the same spellings recur in abstract after abstract
def _versioned(surface: str) -> bool:
    return _VERSIONED.match(surface) is not None


def _opens_with(text: str, low: str, surfaces: Iterable[str]) -> bool:
    """Does the opening sentence name one of ``surfaces`` (the paper is about it)?"""
    first = _SENTENCE_START.search(text)
    end = first.start() if first else len(low)
    return any(_occurrences(low[:end], surface) for surface in surfaces)


def _only_place(low: str, surfaces: Iterable[str], aside: bytes = b"") -> int | None:
    """Where the only whole-word occurrence of any of ``surfaces`` outside the ``aside`` scopes
    is, or None if there are more (or none)."""
    place = None
    for surface in surfaces:
        for at in _occurrences(low, surface):
            if aside and aside[at] == NEGATED:
                continue  # (`unlike human evaluation`: named, but set aside)
            if place is not None and at != place:
                return None
            place = at
    return place


def _own_names(extraction: Extraction, own: Iterable[str]) -> tuple[str, ...]:
    """The paper's own names: ``own``, its aliases, the acronyms it coins (the same for every sentence)."""
    return tuple(name for name in (*own, *extraction.paper_aliases, *(
        surface for m in extraction.concepts if m.kind == "acronym-coined" for surface in m.surfaces)) if name)


def _names_own(sentence: str, names: tuple[str, ...]) -> bool:
    """Does ``sentence`` (in lower case) name one of the paper's own ``names`` (`RCA captures ...`)?"""
    return any(_occurrences(sentence, name) for name in names)
