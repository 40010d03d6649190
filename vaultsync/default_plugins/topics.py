"""Titles for abstracts that state no contribution (no `we propose ...`, no `we study ...`): the
topic the opening sentence states, the strongest keyphrase, the strongest concepts."""

from __future__ import annotations

import re

from ..generic import is_generic, names_a_thing
from ..records import ConceptMention, Extraction
from .titles import _LEADING, _NOT_A_TITLE_START, NAME_WORDS, _capitalise, _technical, clean_phrase


def _fold(name: str) -> str:
    return re.sub("[\\-\u2010\u2011]", "", name).casefold()


def opening_topic(text: str, bounds: list[tuple[int, int]]) -> str:
    """The topic the opening sentence states, as a title (see ``_topic_of``), or ``""``."""
    start, end = bounds[0] if bounds else (0, len(text))
    return _topic_of(clean_phrase(text[start:end], 400))


_TOPIC_VERB = re.compile(
    r" (?:is|are|was|were|has|have|had|can|could|may|might|will|would|must|should|remains?|plays?|poses?|"
    r"provides?|offers?|enables?|requires?|faces?|suffers?|relies|rely|aims?|seeks?|involves?|allows?|"
    r"has become|have become|addresses|address|constitutes?|refers?|shows?|achieves?|demonstrates?)\b")
_NOT_A_TOPIC_START = _NOT_A_TITLE_START | {"while", "although", "though", "despite", "recent", "recently",
                                           "existing", "current", "many", "most", "several", "since"}


def _topic_of(sentence: str) -> str:
    """The subject of an opening sentence that states a topic (`Strategic classification
    addresses ...` -> `Strategic classification`), or ``""``."""
    verb = _TOPIC_VERB.search(sentence)
    if not verb:
        return ""
    subject = _LEADING.sub("", sentence[:verb.start()]).strip(" ,")
    words = subject.split()
    if not 2 <= len(words) <= 6 or words[0].casefold() in _NOT_A_TOPIC_START or "," in subject \
            or not _technical(words):
        return ""
    return _capitalise(subject)


_WE_SAY = re.compile(r"^(?:we|this paper|this work) (?:[a-z]+ ){0,2}?(?:show|find|prove|argue|observe|demonstrate)s? "
                     r"(?:that )?", re.IGNORECASE)


def _keyphrase_title(extraction: Extraction) -> str:
    """A title for an abstract that states no contribution: its strongest keyphrase of two words
    or more that holds a word of the field (`Pre-memorization train accuracy`)."""
    for mention in sorted((m for m in extraction.concepts if m.kind == "phrase"), key=lambda m: -m.score):
        surface = mention.surfaces[0] if mention.surfaces else mention.name
        words = surface.split()
        if 2 <= len(words) <= NAME_WORDS and len(surface) <= 60 and not re.search(r"\w[.,;:]\w", surface) \
                and not is_generic(surface) and names_a_thing(surface):
            return _capitalise(surface)
    return ""


def _terms_title(extraction: Extraction) -> str:
    """A title for an abstract that states no contribution: its two strongest concepts the
    vocabulary or an acronym definition vouches for, each once (not an acronym and its
    expansion, not a concept and one inside it)."""
    chosen: list[ConceptMention] = []
    for mention in sorted(extraction.concepts, key=lambda m: -m.score):
        if mention.kind not in ("vocabulary", "acronym"):
            continue
        words = {w for s in (mention.name, *mention.surfaces, *mention.aliases) for w in _fold(s).split()}
        if any(words & {w for s in (c.name, *c.surfaces, *c.aliases) for w in _fold(s).split()} for c in chosen):
            continue
        chosen.append(mention)
        if len(chosen) == 2:
            break
    return _capitalise(" and ".join(m.name for m in chosen)) if len(chosen) == 2 else ""


def topic_title(text: str, bounds: list[tuple[int, int]], gist: str, extraction: Extraction) -> str:
    """The title of an abstract that states no contribution (see the module's docstring); never empty."""
    from .titles import trim_phrase

    return (_terms_title(extraction) or _keyphrase_title(extraction) or opening_topic(text, bounds)
            or trim_phrase(_WE_SAY.sub("", gist), 60) or "Untitled abstract")
