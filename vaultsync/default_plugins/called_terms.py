"""The term an unnamed paper gives its own contribution: ``a process we call *thermalization*``,
``our layers are called Test-Time Training (TTT) layers``, ``a new type of labels, termed two-phase
labels``. A researcher knows the paper by that term better than by a descriptive title."""

from __future__ import annotations

import re

from .titles import _capitalise, _sentence

# where the authors give a term: `we call (it|this) X`, `(is|are) called X`, `, termed X`, `a metric we call X`
_CALLS = re.compile(r"\b(?:we (?:call|term|dub|name)(?: (?:it|this|them|these))?|(?:is|are) (?:called|termed|dubbed|named)"
                    r"|(?<=, )(?:called|termed|dubbed|coined))(?: as)? (?=\S)")
_EMPHASISED = re.compile(r"(\*{1,2}|_{1,2})([^*_]{3,60}?)\1")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*[A-Za-z]|\([A-Z][A-Za-z0-9-]{1,9}\)")
# what ends a term: a clause, a preposition or a conjunction after it
_ENDS = frozenset("which that where who to for of in on with by and or as when while is are was were we our its "
                  "their from via using under".split())
_OURS = re.compile(r"\b(?:we|our|this paper|this work)\b", re.IGNORECASE)
_NOT_OURS = re.compile(r"\b(?:also|commonly|often|usually|sometimes|previously|widely|in the literature|et al|known as)\b",
                       re.IGNORECASE)


def called_term(text: str, bounds: list[tuple[int, int]]) -> str:
    """The term the authors call their contribution (at most five words, its acronym dropped:
    `Test-Time Training layers`), capitalised as a title, or ``""``. A term said to be someone
    else's (`also referred to as`, `in the literature`) or written in math (`$f$-softargmax`)
    is none."""
    for match in _CALLS.finditer(text):
        start, end = _sentence(bounds, match.start())
        if not _OURS.search(text, start, match.end()) or _NOT_OURS.search(text, max(start, match.start() - 40), end):
            continue
        term = _term_at(text, match.end(), end)
        if term:
            return term
    return ""


def _term_at(text: str, at: int, end: int) -> str:
    emphasised = _EMPHASISED.match(text, at)
    if emphasised:
        words = emphasised.group(2).split()
        if not all(_WORD.fullmatch(word) for word in words):
            return ""
    else:
        words = []
        for word in text[at:end].split():
            bare = word.rstrip(",.;:")
            if not _WORD.fullmatch(bare) or bare.casefold() in _ENDS:
                break
            words.append(bare)
            if bare != word:
                break
    words = [word for word in words if not word.startswith("(")]  # `Test-Time Training (TTT) layers`
    if not 1 <= len(words) <= 5 or words[0].casefold() in ("a", "an", "the", "it", "this", "these", "them") \
            or re.match(r"[A-Za-z]-", words[0]):  # (`f-softargmax`: math a title cannot show)
        return ""
    if len(words) == 1 and (len(words[0]) < 8 or not words[0].islower()):
        return ""  # (a single word is a term only when long and plain: `thermalization`)
    return _capitalise(" ".join(words))
