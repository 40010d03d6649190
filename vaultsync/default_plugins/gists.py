"""A named paper's title: ``Name — what it is``, the gist read from the appositive after its name;
a gist is a noun phrase (`a framework that ...`) or what the method does (`optimizing ...`), never
a fragment that needs its sentence (`layer, which ...`, `optimizes ...`, `over the baselines`)."""

from __future__ import annotations

import re

from .contribution import contribution_title
from .verb_forms import _gerund, _gerund_of_base
from .titles import _WORDS, _sentence, _strip_loose_end, clean_phrase, gist_of

_WHERE_THE_CODE_IS = re.compile(r"https?://|\b(?:code|data|models?|weights) (?:is |are )?(?:publicly )?available\b"
                                r"|\bcode at\b")
_NOUN_PHRASE = re.compile(r"(?:a|an|the|one|our) ")
# `X, which (also) (can) optimizes ...`: what the named method does
_DOES = re.compile(r"(?: ?\([^()]*\))?[ ,*_)]*(?:which|that) (?:(?:not only|also|further|then|first|additionally) )?(?:([a-z]+ly) )?"
                   r"(?:(can|could|may|will|would) )?([a-z]{3,})(?![\w-])")
_SUBJECT_DOES = re.compile(r" (?:([a-z]+ly) )?([a-z]{3,}[^su\W]s)(?![\w-])")  # `X leverages ...` opening a later sentence
_RESULTS = _WORDS["result_verbs"]  # `X achieves ...`, `X is simple to ...`: a claim about it, not what it is
_BACK_REFERENCE = re.compile(r" (?:(?:in|on|through|by|via|with|for|from|of|at|to|into|across) )?(?:this|these|those|such|its|their)\b")
_DANGLING = _WORDS["dangling"] | {"a", "an", "the"}
_SOFT = {"novel", "new", "simple", "general", "first", "unified", "effective", "efficient"}  # (`a novel | Long Form`)
_RESTATES = re.compile(r"^(?:i\.e\.,?|namely|short for|that is,) ")
# `an estimator, which tackles these challenges`: the clause that needs the sentence before goes
_REFERS_BACK_CLAUSE = re.compile(r",? (?:which|that|to) [^,]*?\b(?:these|those|both|this|such(?! as)|the aforementioned|above)"
                                 r"(?= (?:challenges?|issues?|problems?|limitations?|gaps?|difficult(?:y|ies)|"
                                 r"shortcomings?|drawbacks?|requirements?|goals?|needs?)\b)"
                                 r"|,? (?:which|that|to) [^,]*?\b(?:these|those|such(?! as)|the aforementioned|above)\b"
                                 r"|,? (?:in which|where|whereby|with which) we |, (?:which|that) (?:[a-z]+ly )?(?:"
                                 + "|".join(sorted(_RESULTS)) + r")\b")
_PURPOSE_AFTER = re.compile(r", (?:in order )?to (?:[a-z]+ly )?[a-z]{3,} ")
# the noun phrase that says what the name is, right before it: `a simple yet strong tracker: X`
_NOUN_PHRASE_BEFORE = re.compile(r"\b((?:a|an) (?:(?!we\b|which\b|that\b)[^;:.()])" r"{3,100}?)"
                                 r"(?: (?:called|named|termed|titled|dubbed))?[,:]? ?$")


def says_where_the_code_is(gist: str) -> bool:
    """`the code at https://...`: where the code is, not what the paper is."""
    return _WHERE_THE_CODE_IS.search(gist) is not None


def gist_after(text: str, name_end: int, before: str, bounds: list[tuple[int, int]]) -> str:
    """What the named paper is: the appositive after its name (which ends at ``name_end``), else
    the phrase ``before`` it (`a novel paradigm, namely X`)."""
    _, end = _sentence(bounds, max(name_end - 1, 0))
    rest = text[name_end:max(end, name_end)].lstrip(" ,:;—–-)*")
    rest = _RESTATES.sub("", rest)  # `X, i.e., the query-aware framework`, `X, short for ...`
    rest = re.sub(r"^(?:as|is|which is|that is) (?=(?:a|an|the) )", "", rest)
    # `the X (ACR) score, which aims to ...`: the name's head noun, then what it does
    rest = re.sub(r"^([a-z]+), (?:which|that) ", r"a \1 that ", rest)
    if before and not re.match(r"(?:a|an|the) ", rest) and not before.casefold().startswith("our "):
        # `a novel framework, called X, that learns` -> `a novel framework that learns`
        joined = re.match(r"(?:that|which|for|to|with) ", rest)
        return gist_of(clean_phrase(f"{before} {rest}" if joined else before, 400))
    return gist_of(clean_phrase(re.sub(r"^(?:which|that) ", "", rest), 400))


def _what_it_does(text: str, name: str, name_end: int, bounds: list[tuple[int, int]]) -> str:
    """`X, which optimizes both A and B` -> `optimizing both A and B`, else the same of a sentence
    that opens with the name (`X leverages a tree ...`); ``""`` when no clause says what it
    does (`X, which is ...`, `X achieves ...`)."""
    _, end = _sentence(bounds, max(name_end - 1, 0))
    does = _DOES.match(text, name_end, max(end, name_end))
    if does:
        verb, modal = does.group(3), does.group(2)
    else:
        at = next((start for start, _ in bounds if text.startswith(name, start) and start >= name_end - len(name)), -1)
        end = next((e for s, e in bounds if s == at), -1)
        does = _SUBJECT_DOES.match(text, at + len(name), end) if at >= 0 else None
        if not does:
            return ""
        verb, modal = does.group(2), None
    base = verb if modal or not verb.endswith("s") else verb[:-2] if verb.endswith(("ies", "sses", "shes")) else verb[:-1]
    if verb in _RESULTS or base in _RESULTS or verb.endswith(("ed", "ly")):
        return ""
    gerund = _gerund_of_base(base) if modal or not verb.endswith("s") else _gerund(verb)
    rest = re.sub(r"^([^,;]*? and )([a-z]{3,}[^su\W]s)\b", lambda m: m.group(1) + (
        _gerund(m.group(2)) if m.group(2) not in _RESULTS else m.group(2)), text[does.end():end], count=1)  # `and employs`
    done = re.split(r", (?=(?:[a-z]+ly )?[a-z]+ing\b|to [a-z]+ )|: |; | (?:which|that|while|thereby) ",
                    clean_phrase(f"{gerund} {rest}", 400))[0]  # (one clause; a list stays whole)
    back = _BACK_REFERENCE.search(done)  # `maintaining plasticity | through this process`: needs the sentence before
    done = _strip_loose_end(done[:back.start()]) if back else done
    return gist_of(done) if len(done.split()) >= 3 else ""


def _noun_phrase_before(text: str, name: str, bounds: list[tuple[int, int]]) -> str:
    """`a simple yet strong tracker: X` -> `a simple yet strong tracker`, at one of the name's first
    places, or ``""`` (never `a result` of `As a result, our X`)."""
    at = text.find(name)
    for _ in range(3):
        if at < 0:
            return ""
        start, _ = _sentence(bounds, at)
        found = _NOUN_PHRASE_BEFORE.search(text[start:at].rstrip("*_ "))
        words = found.group(1).split() if found else []
        said = [w for w in words[1:] if w.casefold() not in _SOFT]  # (`a framework` says nothing)
        if len(said) >= 2 and words[-1].casefold() not in _DANGLING | _SOFT and "," not in found.group(1)[-6:]:
            return gist_of(clean_phrase(found.group(1), 400))
        at = text.find(name, at + len(name))
    return ""


def paper_gist(text: str, low: str, bounds: list[tuple[int, int]], name: str, span: tuple[int, int], before: str,
               long: str | None) -> str:
    """What the named paper is (see the module's docstring), or ``""`` when the abstract says it
    in no phrase that stands alone; ``span`` is where the name's candidate starts and ends, and
    a name with a ``long`` form needs nothing else (`X — Long Form, a ...`)."""
    return _standing_alone(_paper_gist(text, low, bounds, name, span, before, long))


_POINTS_BACK = re.compile(r"\b(?:this|these|it|its)\b(?! (?:paper|work|study|article)\b)"
                          r"|\bthose\b(?! (?:in|of|that|which|who|with|from|for|used|based)\b)")  # (`those in X` points ahead)
_CLAUSE_START = re.compile(r",? (?=(?:that|which|to|by|while|thereby|so that|in order to|whereby)\b)|, ")


def _standing_alone(gist: str) -> str:
    """The gist without the clause that points back at a sentence the title does not hold (`a
    method that overcomes this by ...` -> `a method`; `to improve its ...`); ``""`` when the
    phrase itself does (`a clean instantiation of this template`)."""
    back = _POINTS_BACK.search(gist)
    if not back:
        return gist
    cuts = [m.start() for m in _CLAUSE_START.finditer(gist, 0, back.start())]
    kept = _strip_loose_end(gist[:cuts[-1]]) if cuts else ""
    return kept if len(kept.split()) >= 3 and not _POINTS_BACK.search(kept) else ""


def _paper_gist(text: str, low: str, bounds: list[tuple[int, int]], name: str, span: tuple[int, int], before: str,
                long: str | None) -> str:
    name_end = span[1]
    gist = _REFERS_BACK_CLAUSE.split(gist_after(text, name_end, before, bounds), maxsplit=1)[0]
    gist = re.sub(r"^[A-Z][\w-]*(?: [\w-]+){0,6}, (?=(?:a|an|the) )", "", gist)  # `X: Long Form, a ...`
    said = _PURPOSE_AFTER.split(gist, maxsplit=1)[0]  # `X, a mechanism based on Y, to enable Z`: why we propose it
    gist = said if _NOUN_PHRASE.match(said) and len(said.split()) >= 5 else gist
    if says_where_the_code_is(gist):
        gist = ""
    restated = _RESTATES.match(text[name_end:name_end + 20].lstrip(" ,*_"))  # `X, short for Linearizing ...`
    if long and not re.match(r"(?:a|an|the|to|for) ", gist):  # `X — Long Form` says it, unless a sentence naming it does
        gist = _noun_phrase_before(text, long, bounds) or _what_it_does(text, name, name_end, bounds) \
            or _contribution_gist(text, name, bounds, whole=False)
        return "" if long.casefold() in gist.casefold() else gist
    if long or (_NOUN_PHRASE.match(gist) or restated) and len(gist) >= 20:
        return gist
    purpose = re.match(r"(for|to) ([a-z]{3,}) ", gist)
    if purpose:  # `the X benchmark for evaluating ...` -> `a benchmark for evaluating ...`
        head = re.search(r"\b([a-z]{4,}) $", text[max(name_end - 30, 0):name_end] + " ")
        if head:
            return f"a {head.group(1)} {gist}"
        if purpose.group(1) == "to":  # `X to align A with B` -> `aligning A with B`
            return _gerund_of_base(purpose.group(2)) + gist[purpose.end() - 1:]
    for found in (lambda: _what_it_does(text, name, name_end, bounds), lambda: _noun_phrase_before(text, name, bounds),
                  lambda: _contribution_gist(text, name, bounds)):
        gist = _head_for_name(found(), name)  # `the X layer, which`
        if gist and not says_where_the_code_is(gist) and name not in gist:  # (never `a new algorithm called X`)
            return gist
    return ""


def _contribution_gist(text: str, name: str, bounds: list[tuple[int, int]], whole: bool = True) -> str:
    """The gist of a sentence that names the paper (or of the one before it), when it states the
    contribution as a noun phrase (`We introduce a method built on X. Our framework Y is ...` ->
    `a method built on X`); with ``whole``, else that of the abstract's contribution sentence."""
    named = [i for i, (start, end) in enumerate(bounds) if name in text[start:end]][:3]
    everywhere = whole and all(says_where_the_code_is(text[slice(*bounds[i])]) for i in named)  # (named only by its code)
    opens = [i for i in named if name in " ".join(text[bounds[i][0]:bounds[i][1]].split()[:4])]  # `Our framework X is ...`
    for index in dict.fromkeys(j for i in named for j in ((i, i - 1) if whole and i and i in opens else (i,))):
        start, end = bounds[index]
        sentence = text[start:end]
        title, gist = contribution_title(sentence, " " + sentence.lower(), [(0, len(sentence))])
        if title and _NOUN_PHRASE.match(gist):
            return gist
    title, gist = contribution_title(text, " " + text.lower(), bounds) if everywhere else ("", "")
    return gist if title and _NOUN_PHRASE.match(gist) else ""


_HEAD_WHICH = re.compile(r"([a-z]+),? (?:which|that) ")


def _head_for_name(gist: str, name: str) -> str:
    """`the X layer, which ...` -> `a layer that ...` (a literal prefix and one compiled pattern:
    a pattern built around each name cost a compilation a paper)."""
    prefix = f"the {name} "
    head = _HEAD_WHICH.match(gist, len(prefix)) if gist.startswith(prefix) else None
    return f"a {head.group(1)} that {gist[head.end():]}" if head else gist


def _is_word(text: str, at: int) -> bool:
    return 0 <= at < len(text) and (text[at].isalnum() or text[at] == "_")  # (the characters ``\w`` matches)


def _has_phrase(text: str, phrase: str) -> bool:
    """``re.search(rf"\b{re.escape(phrase)}\b", text)``, without compiling a pattern a phrase."""
    at = text.find(phrase)
    while at >= 0:
        end = at + len(phrase)
        if _is_word(text, at - 1) != _is_word(text, at) and _is_word(text, end - 1) != _is_word(text, end):
            return True
        at = text.find(phrase, at + 1)
    return False


def name_title(name: str, long: str | None, gist: str) -> str:
    """``Name — gist``, or ``Name — Long Form, a ...`` when the name is an acronym."""
    head = f"{name} — {long}" if long else name
    tail = re.sub(r"^(a|an) (?:novel|new) (?=[^aeiouAEIOU\W])", r"\1 ", gist)  # `a novel X` -> `a X`
    if long and not re.match(r"(?:a|an|the|to|for) |[a-z]+ing ", tail):
        tail = ""
    named = re.split(r" (?:for|of|in|on|with|via|to) ", long or "", maxsplit=1)[0]
    if len(named.split()) >= 3 and _has_phrase(tail.casefold(), named.casefold()):
        tail = ""  # `X — Temporal Shift module for SNNs, incorporating a Temporal Shift module ...` says it twice
    joiner = (" " if tail.startswith(("to ", "for ")) else ", ") if long else " — "  # `X — Long Form, leveraging ...`
    return head + joiner + tail if tail else head
