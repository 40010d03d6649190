"""The title of a paper that names nothing: from the sentence stating its contribution
(``contribution.py``), its acronyms spelled out as the abstract defines them, else from its
topics (``topics.py``)."""

from __future__ import annotations

import re

from ..records import Extraction
from .called_terms import called_term
from .contribution import _names_a_concept, contribution_title
from .long_forms import expands, from_initial, long_form
from .titles import NAME_CHARS, NAME_WORDS, _capitalise
from .topics import topic_title


_CALL_WORDS = (" call", "called", "termed", "dub", "we name", "named", "coined")
_ACRONYM = re.compile(r"\b[A-Z][A-Za-z0-9-]*[A-Z][A-Za-z0-9]*\b")


def unnamed_title(text: str, low: str, bounds: list[tuple[int, int]], extraction: Extraction) -> tuple[str, str]:
    """(title, gist) of a paper that names nothing: from its contribution sentence, its acronyms
    spelled out as the abstract defines them where that fits (`Generalization of BwK` ->
    `Generalization of bandits with knapsacks`), else from its topics (``topics.py``)."""
    title, gist = contribution_title(text, low, bounds)
    claim = _position_claim(text) if " position paper" in low else ""
    if claim:
        return claim, gist
    term = called_term(text, bounds) if any(map(low.__contains__, _CALL_WORDS)) else ""
    if term and not _names_a_concept(term):  # (a concept's name is the concept's note)
        return _position_on(term, low), gist or title
    if not title:
        return _position_on(topic_title(text, bounds, extraction), low), gist
    for acronym in dict.fromkeys(_ACRONYM.findall(title)) if "(" in text else ():
        defined = re.search(rf"((?:[\w-]+ ){{1,6}})\({re.escape(acronym)}\)", text)
        long = from_initial(long_form(defined.group(1).strip()), acronym) if defined else ""
        if long[1:2].islower() and long[1:].islower():  # (`Out-of-distribution`: capitalised where a sentence starts)
            long = long[0].lower() + long[1:]
        spelled = re.sub(rf"\b{re.escape(acronym)}\b", long, title) if long[:1].casefold() == acronym[:1].casefold() \
            and expands(long, acronym) else title
        words = re.findall(r"\w+", spelled.casefold())[:4]  # (never the abstract's opening words: `W2SG` where it opens)
        if len(spelled) <= NAME_CHARS and len(spelled.split()) <= NAME_WORDS \
                and not (len(words) >= 3 and words == re.findall(r"\w+", text[:200].casefold())[:len(words)]):
            title = _capitalise(spelled)
    return _position_on(title, low), gist


def _position_on(title: str, low: str) -> str:
    """`Certified robustness` of a position paper -> `Position on certified robustness`: what kind of
    paper it is, where its claim makes no title (ICML's `Position: ...` titles state a claim)."""
    if " position paper" not in low or title.startswith("Position") or title == "Untitled abstract":
        return title
    first = title.split(" ", 1)[0]
    on = f"Position on {first.lower() if first[1:].islower() or len(first) == 1 else first}{title[len(first):]}"
    if len(on) > NAME_CHARS or len(on.split()) > NAME_WORDS:  # `Position on regret minimization | in tabular MDPs`
        on = re.split(r" (?:in|for|with|under|of|on|via|from|across) ", on[len("Position on "):], maxsplit=1)[0]
        on = f"Position on {on}" if len(on.split()) >= 2 else title
    return on if len(on) <= NAME_CHARS and len(on.split()) <= NAME_WORDS else title


# `In this position paper, we argue that X.` | `we argue for a new perspective: X.`: the claim is the title
_ARGUE = re.compile(r"\b[Ii]n this position paper,? we (?:argue|contend|posit|claim)(?: that| for [^.:;]{3,80}?:) ([^.;:]{10,})\.(?: |$)")
_NOT_A_CLAIM_START = frozenset("it this these that there while although though if when since because we our".split())


def _position_claim(text: str) -> str:
    """`Position: <claim>`, ICML's title for a position paper, where the claim the authors argue is a
    clean clause of at most 16 words (no comma, aside or quote, not opening with a pronoun
    or a subordinate clause), else ``""``: a claim cut short is a fragment."""
    argued = _ARGUE.search(text)
    claim = argued.group(1).strip() if argued else ""
    words = claim.split()
    if not 4 <= len(words) <= 16 or len(claim) > 105 or re.search(r"[,()\[\]'\"‘’“”$]", claim) \
            or words[0].casefold() in _NOT_A_CLAIM_START:
        return ""
    return f"Position: {_capitalise(claim)}"
