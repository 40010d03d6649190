"""Whether a long form spells out a name (`Sparse Token Routing (STR)`), in the spirit of
Schwartz & Hearst's rule for abbreviation definitions: which words the long form spans, and
whether the name's letters occur in it."""

from __future__ import annotations

import re

_DASH = "\\-\u2010\u2011"


_ARTICLES_AND_SOFT = {"a", "an", "the", "novel", "new", "simple", "first", "unified", "general"}
_NOT_LONG_FORMS = {
    "to", "using", "that", "how", "with", "for", "on", "in", "of", "by", "via", "applying",
    "leveraging", "adding", "combining", "extending", "training", "results", "experiments",
}


def long_form(words: str) -> str:
    """``words`` without leading articles and soft adjectives (`a novel`, `the`)."""
    called = re.search(r"\b(?:called|termed|named|dubbed|coined) ", words)  # `a diffusion model called Long Form`
    parts = words[called.end():].split() if called else words.split()
    while parts and parts[0].casefold() in _ARTICLES_AND_SOFT:
        parts.pop(0)
    return " ".join(parts)


def from_initial(long: str, name: str) -> str:
    """The long form from its first word that starts as the name does, over leading words that
    are not a phrase of their own (`trains a graph neural network (GNN)` -> `graph neural
    network`; not over `of`: `the definition of the core kernel (CK)` stays whole)."""
    words = long.split()
    letters = {c for c in name.casefold() if c.isalpha()}
    for at, word in enumerate(words):
        if word[:1].casefold() == name[:1].casefold():
            dropped = [part.casefold() for part in re.split(f"[\\s{_DASH}]+", " ".join(words[:at])) if part]
            spelled = any(part[:1] in letters for part in dropped)  # (`physics-informed Kolmogorov Networks (KN-PI)`)
            return " ".join(words[at:]) if at and not spelled and not _PREPOSITIONS.intersection(dropped) else long
    return long


_PREPOSITIONS = frozenset({"of", "for", "in", "on", "with", "to", "by", "from", "via", "under", "over"})


def expands(long: str, name: str, strict: bool = True) -> bool:
    """Whether ``long`` can spell out ``name``: each capital of the name is a word initial or a
    capital of the long form (`Quantile-free Prediction Interval GNN` spells out `QpiGNN`);
    not ``strict``: the name's first letter starts a word and nothing reads as a citation."""
    words = long.split()
    if not words or words[0].casefold() in _NOT_LONG_FORMS:
        return False
    initials = [part[:1].casefold() for part in re.split(f"[\\s{_DASH}]+", long) if part]
    if not strict:
        return name[:1].casefold() in initials and not re.search(r"\d{4}|et al|e\.g|i\.e", long)
    letters = set(initials) | {c.casefold() for c in long if c.isupper()}
    return all(c.casefold() in letters for c in name if c.isupper()) or _spelled_in_order(long, name) \
        or _backronym(long, name)


def _backronym(long: str, name: str) -> bool:
    """A name whose long form marks its letters with capitals inside words, all but a last letter
    of flourish: `Contrastive LeArning for ResolvIng Ambiguous Feedback (CLARIFY)`."""
    marked = any(any(c.isupper() for c in word[1:]) for word in long.split() if word.isalpha())
    return marked and len(name) >= 5 and name.isupper() and _spelled_in_order(long, name[:-1])


def _spelled_in_order(long: str, name: str) -> bool:
    """Schwartz & Hearst's test: the name's letters and digits occur in the long form in order,
    its first at the start of the long form's first word (`DiTAR` in `Diffusion Transformer
    Autoregressive Modeling`)."""
    chars = [c.casefold() for c in name if c.isalnum()]
    text = long.casefold()
    if not chars or not text.startswith(chars[0]):
        return False
    at = 1
    for char in chars[1:]:
        at = text.find(char, at)
        if at < 0:
            return False
        at += 1
    return True
