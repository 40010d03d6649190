"""A named paper's title: ``Name — what it is``, the gist read from the appositive after its name."""

from __future__ import annotations

import re

from .titles import _sentence, clean_phrase, gist_of

_WHERE_THE_CODE_IS = re.compile(r"https?://|\b(?:code|data|models?|weights) (?:is |are )?(?:publicly )?available\b"
                                r"|\bcode at\b")


def says_where_the_code_is(gist: str) -> bool:
    """`the code at https://...`: where the code is, not what the paper is."""
    return _WHERE_THE_CODE_IS.search(gist) is not None


def gist_after(text: str, name_end: int, before: str, bounds: list[tuple[int, int]]) -> str:
    """What the named paper is: the appositive after its name (which ends at ``name_end``), else
    the phrase ``before`` it (`a novel paradigm, namely X`)."""
    _, end = _sentence(bounds, max(name_end - 1, 0))
    rest = text[name_end:max(end, name_end)].lstrip(" ,:;—–-)*")
    rest = re.sub(r"^(?:as|is|which is|that is) (?=(?:a|an|the) )", "", rest)
    # `the X (ACR) score, which aims to ...`: the name's head noun, then what it does
    rest = re.sub(r"^([a-z]+), (?:which|that) ", r"a \1 that ", rest)
    if before and not re.match(r"(?:a|an|the) ", rest) and not before.casefold().startswith("our "):
        # `a novel framework, called X, that learns` -> `a novel framework that learns`
        joined = re.match(r"(?:that|which|for|to|with) ", rest)
        return gist_of(clean_phrase(f"{before} {rest}" if joined else before, 400))
    return gist_of(clean_phrase(re.sub(r"^(?:which|that) ", "", rest), 400))


def name_title(name: str, long: str | None, gist: str) -> str:
    """``Name — gist``, or ``Name — Long Form, a ...`` when the name is an acronym."""
    head = f"{name} — {long}" if long else name
    tail = re.sub(r"^(a|an) (?:novel|new) (?=[^aeiouAEIOU\W])", r"\1 ", gist)  # `a novel X` -> `a X`
    if long and not re.match(r"(?:a|an|the|to|for) ", tail):
        tail = ""
    joiner = (" " if tail.startswith(("to ", "for ")) else ", ") if long else " — "
    return head + joiner + tail if tail else head
