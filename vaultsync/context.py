"""Context decides a link: a concept the abstract negates, contrasts itself with or only
evaluates on is not what the paper is about.

NegEx-style (Chapman et al., 2001): a *cue* opens a *scope* that runs forward to the end of its
clause, or a few words at most; a mention whose every occurrence lies in some scope is not
linked. Three kinds of cue:

* negation and contrast: ``without``, ``unlike``, ``instead of``, ``rather than``, ``avoids``,
  ``beyond``, ``not``, ``as opposed to``, ``inspired by``, ``compared with``, ``outperforms``;
  and the words they attach to: ``X-free`` (training-free), ``non-X`` (non-interactive);
* evaluation: ``evaluated on``, ``experiments on``, ``datasets including``, ``benchmarks such as``:
  what the method is tested on, not its topic. A benchmark or dataset there (the vocabulary says
  it is one) goes to the ``datasets`` property instead.

Only the built-in kinds of mention (vocabulary, acronym, phrase) are judged; a plugin's own
kinds (a dataset extractor's ``dataset``) are its own business.
"""

from __future__ import annotations

import re
from typing import Iterable

from .records import ConceptMention, Extraction, frozen_mapping

JUDGED_KINDS = frozenset({"vocabulary", "acronym", "acronym-coined", "phrase"})
SCOPE_WORDS = 8  # a cue reaches at most this many words (NegEx uses five to six)
EVALUATION_SCOPE_WORDS = 14

_NEGATION = re.compile(
    r"\b(?:without|unlike|instead of|rather than|avoid(?:s|ing|ed)?|beyond|as opposed to|inspired by|"
    r"in contrast to|contrary to|compared (?:to|with|against)|relative to|free of|"
    r"eliminat(?:e|es|ing) the need (?:for|of)|no need for|alternative to|replac(?:e|es|ing) |"
    r"(?:does|do|did|is|are|was|were|can|cannot|could) not|"
    r"(?:doesn't|don't|isn't|aren't|can't)|neither|nor|not (?!only\b|just\b|merely\b|simply\b|necessarily\b))",
    re.IGNORECASE,
)
# a comparison reaches only what is compared: `outperforms LoRA on GLUE` contrasts LoRA, not GLUE
_COMPARISON = re.compile(r"\b(?:outperform(?:s|ing|ed)?|surpass(?:es|ing|ed)?|improv(?:es|ing) (?:up)?on|beat(?:s|ing)?) ",
                         re.IGNORECASE)
_COMPARISON_END = re.compile(r" (?:on|in|across|for|by|with|at|over|under|while|and achiev)\b|[.,;:()]")
_EVALUATION = re.compile(
    r"\b(?:(?:evaluat\w*|experiment\w*|test(?:ed|ing|s)?|validat\w*|benchmark(?:ed|ing)|results?|"
    r"demonstrat\w* (?:its|their|the) (?:effectiveness|performance|superiority)|"
    r"(?:state-of-the-art|sota|strong|superior|competitive) (?:performance|results)) "
    r"(?:\w+ ){0,3}?(?:on|across|over|using)|"
    r"(?:datasets?|benchmarks?|environments) (?:such as|including|like|e\.g\.,?)|"
    r"(?:e\.g\.,?|such as|including) (?=[^.;]{0,80}\b(?:datasets?|benchmarks?)\b))\b",
    re.IGNORECASE,
)
# where a cue's reach ends: a clause boundary
_CLAUSE_END = re.compile(r"[.;:!?()\[\]]|, (?:but|while|whereas|and|which|we|it|our|this|thereby)\b| but | while | whereas ")
_FREE = re.compile(r"([\w][\w-]*)-free\b", re.IGNORECASE)
_NON = re.compile(r"\bnon-?(?=\w)", re.IGNORECASE)


def _scopes(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(negated spans, evaluation spans) of ``text``: start and end offsets."""
    negated, evaluation = [], []
    for pattern, spans, reach in ((_NEGATION, negated, SCOPE_WORDS), (_EVALUATION, evaluation, EVALUATION_SCOPE_WORDS)):
        for cue in pattern.finditer(text):
            start = cue.end()
            end = _clause_end(text, start, reach)
            if end > start:
                spans.append((start, end))
    for cue in _COMPARISON.finditer(text):
        stop = _COMPARISON_END.search(text, cue.end())
        negated.append((cue.end(), stop.start() if stop else len(text)))
    for match in _FREE.finditer(text):  # training-free: training is what the method does without
        negated.append(match.span(1))
    for match in _NON.finditer(text):  # non-interactive segmentation
        word_end = re.compile(r"[\w-]+").match(text, match.end())
        negated.append((match.start(), word_end.end() if word_end else match.end()))
    return negated, evaluation


def _clause_end(text: str, start: int, words: int) -> int:
    boundary = _CLAUSE_END.search(text, start)
    end = boundary.start() if boundary else len(text)
    count, at = 0, start
    while count < words:
        space = text.find(" ", at + 1)
        if space < 0 or space >= end:
            return end
        count += 1
        at = space
    return min(end, at)


def _occurrences(text: str, surface: str) -> Iterable[int]:
    """Where ``surface`` occurs in ``text`` as a whole word (case as written, then any case)."""
    found = False
    for haystack, needle in ((text, surface), (text.casefold(), surface.casefold())):
        at = haystack.find(needle)
        while at >= 0:
            end = at + len(needle)
            before = haystack[at - 1] if at else " "
            after = haystack[end] if end < len(haystack) else " "
            if not before.isalnum() and not after.isalnum():
                found = True
                yield at
            at = haystack.find(needle, at + 1)
        if found:
            return


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def _proper(surface: str) -> bool:
    """A name as written (`Stable Diffusion`, `COVID-19`, `ImageNet`), not a common noun phrase."""
    return surface[:1].isupper() or any(c.isdigit() for c in surface)


def in_context(text: str, extraction: Extraction) -> Extraction:
    """``extraction`` without the mentions that every occurrence puts in a negated, contrasted
    or evaluation context; benchmarks among the latter become the ``datasets`` property."""
    judged = [m for m in extraction.concepts if m.kind in JUDGED_KINDS and m.surfaces]
    if not judged:
        return extraction
    negated, evaluation = _scopes(text)
    if not negated and not evaluation:
        return extraction
    kept: list[ConceptMention] = []
    datasets: list[str] = []
    for mention in extraction.concepts:
        if mention.kind not in JUDGED_KINDS or not mention.surfaces:
            kept.append(mention)
            continue
        places = [(at, surface) for surface in mention.surfaces for at in _occurrences(text, surface)]
        benchmark = "Benchmarks" in mention.broader
        # evaluation drops what a method is tested on or with (a benchmark, a named model or
        # product: `Stable Diffusion`, `COVID-19`), not the task it is for (`surface parameterization`)
        if not places or not all(_inside(at, negated) or _inside(at, evaluation) and (benchmark or _proper(surface))
                                 for at, surface in places):
            kept.append(mention)
            continue
        if benchmark and not any(_inside(at, negated) for at, _ in places):
            datasets.append(mention.name)
    if len(kept) == len(extraction.concepts):
        return extraction
    metadata = dict(extraction.metadata)
    if datasets and "datasets" not in metadata:
        metadata["datasets"] = tuple(datasets)
    return Extraction(tuple(kept), extraction.paper_aliases, frozen_mapping(metadata))
