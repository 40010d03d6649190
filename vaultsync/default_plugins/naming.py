"""The built-in naming rule: a paper is named after the method, model, benchmark or dataset it
introduces, and titled from its contribution sentence (abstracts have no titles).

Name rules, over the whole abstract (the most reliable pattern wins, then the earliest):

0. the object of an introducing verb (``we propose``, ``this paper introduces``, ``we then
   derive``): ``Long Form (ACRONYM)`` -> ``ACRONYM`` with alias ``Long Form``; ``Coined (Long
   Form)`` -> ``Coined`` with the alias; ``Coined, a ...``; ``**Coined**``; ``\\textbf{Coined}``;
   ``the Coined benchmark``; and ``namely X`` / ``called X`` / ``dubbed X`` / ``termed X`` in a
   sentence about the authors' work;
1. ``a novel framework, X,`` after an introducing verb, or ``our method, X``; a plain
   capitalised word after an introducing verb (``introduces Grouter, a ...``);
2. ``called X`` elsewhere; a name given past the contribution sentence (``the design of X, an
   efficient algorithm``; ``we restructure chains into Title Case Chains (TCC)``, used again),
   never beside a baseline, a citation or prior work; 3. a bold coined token anywhere; 4. the extractors' hints
   (``paper_aliases``, ``acronym-coined`` mentions) when the text names the token.

A coined name has inner or several capitals or mixes letters and digits (``OptMaster``,
``PRISM``, ``X-Dub``, ``Llama3``); a plain capitalised word (``Grouter``) counts only before an
appositive (``Grouter, a ...``). A token before an ordinary noun (``GNN models``) or ending in a
lower-case hyphen part (``LLM-based``) is a modifier, not a name. Other names the paper introduces
that extend the main one (``AVI-Bench-PriSe``) become aliases; names of components (a module, a
loss) do not, so they cannot capture links meant for concept notes. A version number right
after a name belongs to it (``Llama-Guard 4``).

A name cited with its authors (``the X (XY) framework of Smith et al. (2024)``) is prior work.
A plural acronym (``MEs``) is a class of things, a name only where its sentence says the paper
introduces it. Titles: ``name — what it is``; unnamed papers get a descriptive title
(``unnamed.py``: ``contribution.py``, else ``topics.py``); a gist is never a fragment (``gists.py``).
"""

from __future__ import annotations

import re
from typing import Iterator

from ..hookspecs import hookimpl
from ..records import Abstract, Extraction, PaperName
from .gists import name_title, paper_gist
from .name_hints import (_Candidate, _hint_candidates, _instances_of_called, _known_concept, _known_spellings,
                         _long_form_hint, _named_by_repository, _or_coined, _paradigm_of,
                         coined_strength)
from .long_forms import expands, from_initial, long_form
from .titles import _ASCII_LOWER, _VERBS, _WORDS, _sentence, plain_text, sentence_bounds
from .unnamed import unnamed_title

_DASH = "\\-\u2010\u2011"
_TOKEN = rf"[^\W_][\w{_DASH}+.]*[\w+]|[^\W_]"
# Searched in " " + ASCII-lower-cased text: a literal first character keeps the regexes fast.
_INTRO = re.compile(rf" (?:(?:we|paper|work|article|study|here) (?:[a-z]+ ){{0,2}}?|by |and (?:then |also |further )?(?=[a-z]+e |[a-z]+es ))"
                    rf"(?:{_VERBS}|describe) (?:here )?")  # (`and introduce X`: the verb in the present, not `and proposed`)
# (`which we call` and `we call` are two alternatives, not `(?:which )?we call`: an alternative
# that opens with a literal is ruled out at a glance, one that opens with a group is entered at
# every space, which made this scan twice as slow.)
_CALLED = re.compile(
    r" (?:namely|called|dubbed|termed|named|coined|denoted as|referred to as|"
    r"which we (?:call|term|name|dub)(?: it| this [a-z]+)?|we (?:call|term|name|dub)(?: it| this [a-z]+)?),? (?:as )?"
)
# Every match of _CALLED holds one of these; nine in ten abstracts hold none, and nine substring
# searches cost 60 % of the scan, which tries the pattern at every space.
_CALLED_WORDS = ("name", "titled", "called", "we call", "dub", "termed", "we term", "coined", "denoted as", "referred to as")
_ESTABLISHED = re.compile(r" (?:established|existing|standard|popular|well-known|widely used|classical|conventional|"
                          r"prior|previous|traditional)\b")
_PERSONAL = re.compile(rf" (?:we|our|this paper|this work) |{_VERBS}")
_HEAD_NOUNS = (
    r"(?:framework|method|approach|model|benchmark|dataset|data set|algorithm|architecture|"
    r"system|pipeline|technique|strategy|paradigm|network|agent|suite|toolkit|library|metric|"
    r"loss|module|scheme|protocol|mechanism|objective|corpus|environment|platform|procedure|"
    r"solver|estimator|optimizer|policy|tool|recipe|family|testbed|simulator|language)s?"
)
_APPOSITIVE = re.compile(rf"(?:a|an|the|our) (?:[\w{_DASH}]+ ){{0,5}}?{_HEAD_NOUNS}"
                         # `a novel approach for adversarial face generation, UVHat, which ...`
                         rf"(?: (?:for|of|to|on|in) (?:[\w{_DASH}]+ ){{0,4}}?[\w{_DASH}]+, (?=[A-Z0-9a-z])"
                         rf"|[,:]? (?=\S)| (?=\())")
_TOKEN_AT = re.compile(rf"(?:\*\*|\*|__|_)?({_TOKEN})(?:\*\*|\*|__|_)?")
_MODIFIES = re.compile(rf" [a-z][\w{_DASH}]* {_HEAD_NOUNS}\b")
_HEAD_AFTER = re.compile(rf" {_HEAD_NOUNS}\b", re.IGNORECASE)
_PAREN_AFTER = re.compile(r" ?\(([^()]{3,120})\)")
_LONG_THEN_ACRONYM = re.compile(rf"((?:[\w{_DASH}&'’]+ ){{0,9}}?[\w{_DASH}&'’]+) ?\((?:\*\*)?({_TOKEN})(?:\*\*)?\)")
# an acronym too short to tell a paper by (`VL`), one that abbreviates a version (`AF2`) or writes
# `to` as 2 (`T2L`): the paper is known by its long form
_SPELLED_OUT = re.compile(r"^[A-Z]{2}$|^[A-Z]+[0-9]+$|^[A-Z]+2[A-Z]+$")  # (`T2L`: `Text-to-LoRA`)
_ACRONYM_INSIDE = re.compile(r" \(([A-Z][A-Z0-9]{1,8})\)((?: [A-Z][a-z][\w-]*){1,2})(?=, (?:a|an|the) )")
_TITLE_CASE_NAME = re.compile(r"[A-Z][\w-]*(?: [A-Z][\w-]*){1,2}(?=[,.;:)]| \(|$)")
_KIND_AFTER = re.compile(r" [A-Z][A-Z0-9]*[A-Z]s?(?=[\s,.;:)]|$)")
_HIGHLIGHTED = re.compile(r"\b([A-Z])([A-Z]+[a-z]{2,})\b")  # letters capitalised to spell the acronym
_TO_EVALUATE = re.compile(r"to (?:evaluate|test|benchmark|assess|validate) [^,]{2,40}, ")
_VERB_AFTER = re.compile(r" (?:[a-z]+ly )?[a-z]{3,}[^s\W]s (?:the |a |an |[a-z]+ )")  # `our algorithm, Long Form (LF) harnesses X`
_VERSION = re.compile(r" v?\d+(?:\.\d+)*[a-z]?(?=[,:;.)( ]|$)")
_BOLD = re.compile(r"\*\*([^*]{2,60})\*\*")
_MORE_NAME_WORDS = re.compile(r"(?: (?:[A-Z][\w\-\u2010\u2011]*|\d+(?:\.\d+)?)){1,2}(?=[,:( ])")
_IS_A = re.compile(r" is (?:a|an) (?:[\w-]+ ){0,4}?(?:framework|method|approach|model|benchmark|dataset|algorithm|system|technique)")
_PROPOSED = re.compile(r" (?:the proposed|our proposed|our new|our) ")
_CONNECTORS = _WORDS["name_connectors"]  # words after which a token stands as a name (`X for ...`)
_BOLD_AT = re.compile(r"(\*\*?|__?)([^*_]{2,60}?)\1(?!\w)")


def _follows_as_name(text: str, end: int, strength: int) -> bool:
    """Whether what follows ``text[:end]`` lets the token before it stand as a name."""
    rest = text[end:end + 30]
    if not rest.strip() or rest[0] in ",:;.)—–" or rest.startswith((" (", " —", " –")):
        return True
    word = rest.split(maxsplit=1)[0].strip(",.;:").casefold() if rest.strip() else ""
    if strength == 1:
        return word in {"a", "an"}
    return word in _CONNECTORS or word.endswith(("ing", "ed")) or not word.isalpha()


def _after_intro(text: str, pos: int, rank: int) -> Iterator[_Candidate]:
    """The candidate, if any, whose name starts the object of an introducing verb at ``pos``."""
    window = text[pos:pos + 200]
    # (the pattern tries up to ten words, letter by letter, before it finds no parenthesis)
    pair = _LONG_THEN_ACRONYM.match(window) if "(" in window else None
    if pair and coined_strength(pair.group(2)) == 2:
        long = from_initial(long_form(pair.group(1)), pair.group(2))
        long = _HIGHLIGHTED.sub(lambda m: m.group(1) + m.group(2).lower(), long)  # `<b>S</b>tatic-D<b>YN</b>amic`
        end = pos + pair.end()
        head = _HEAD_AFTER.match(text, end)
        if head:
            end = head.end()
        # the long form must start the object: `the definition of the core kernel for multiple
        # kernel clustering (MKC)` introduces a definition, not MKC
        starts = long[:1].casefold() == pair.group(2)[:1].casefold() or long[:1].isupper() or not re.search(
            r" (?:of|for|in|on|with|to|by|from) ", long)
        if starts and expands(long, pair.group(2)) and (_follows_as_name(text, end, 2) or rank == 1 and _VERB_AFTER.match(text, end)):
            yield _Candidate(rank, pos, pair.group(2), long, end)
            return
    offset = 4 if window.startswith("the ") else 1 if window.startswith("(") else 0
    bold = _BOLD_AT.match(window, offset)
    words = bold.group(2).split() if bold else []
    if bold and 1 < len(words) <= 4 and all(w[:1].isupper() or coined_strength(w) for w in words):
        name, strength, end = bold.group(2).strip(), 2, pos + bold.end()  # **Deep Sight Bench**
        emphasised = True
        acronym = re.match(r" \(([A-Z][A-Z0-9-]{1,9})\)", text[end:end + 14])
        if acronym and "$" in name and "".join(c for c in name if c.isupper()) == acronym.group(1).replace("-", ""):
            yield _Candidate(rank, pos, acronym.group(1), None, end + acronym.end())  # `*Descent $\dot{H}^1$-Ascent* (DHA)`: math is no name
            return
    else:
        token = _TOKEN_AT.match(window, offset)
        if not token:
            return
        name = token.group(1).rstrip(".")
        name = name[:-2] if name.endswith(("'s", "’s")) else name
        strength = coined_strength(name)
        end = pos + token.end()
        version = _VERSION.match(text, end)
        if version and not token.group(0).endswith(("*", "_")):
            name, end = name + version.group(0), version.end()  # Llama-Guard 4
        bold = None
        emphasised = token.group(0).startswith(("*", "_"))
    if not bold and strength == 2:  # `Dual-Channel GNNs`: a coined name for a kind of model the field names
        kind = _KIND_AFTER.match(text, end)
        if kind and _follows_as_name(text, kind.end(), 2):
            name, end = name + kind.group(0), kind.end()
    if not bold and strength:
        more = _MORE_NAME_WORDS.match(text, end)
        if more and _follows_as_name(text, more.end(), 2) and text[more.end():more.end() + 4].startswith(
                (", a ", ", an", ", th", " (", ": ")):
            name, end, strength = name + more.group(0), more.end(), 2  # `Ringmaster ASGD, a ...`
    if offset == 1:  # `a simple framework (SimFrame)`
        if not text.startswith(")", end):
            return
        end += 1
    elif offset:  # `the ROAMM dataset`: a name, then what it is; or `the Transformer, a ...`
        head = _HEAD_AFTER.match(text, end)
        if head and strength == 2:
            end = head.end()
        elif not re.match(r", an? ", text[end:end + 5]):
            return
    if not strength or not (_follows_as_name(text, end, strength) or bold):
        return
    paren, inside, long = _PAREN_AFTER.match(text, end), _ACRONYM_INSIDE.match(text, end), None
    short = re.fullmatch(r"([A-Z][A-Z0-9]{1,7})((?: [A-Z][a-z][\w-]*){1,2})", paren.group(1)) if paren else None
    if short and name.endswith(short.group(2)) and expands(name[:-len(short.group(2))], short.group(1)):
        name, long, end = paren.group(1), name, paren.end()  # `Conflict-Aware Task Merging (CAT Merging)`: the short form
    elif paren and len(paren.group(1).split()) >= 2 and expands(paren.group(1), name, strict=False):
        long, end = paren.group(1).strip(), paren.end()
    elif inside and not bold and expands(name, inside.group(1)):  # `Encode-Prefill-Decode (EPD) Disaggregation, a ...`
        name, long, end = inside.group(1) + inside.group(2), name + inside.group(2), inside.end()
    yield _Candidate((rank if strength == 2 else rank + 1) - emphasised, pos, name, long, end)


_HEAD_COMMA = re.compile(rf"( {_HEAD_NOUNS}), (?=the [*_])")
_NAME_THEN_WHAT = re.compile(rf"(?<![\w{_DASH}])(\(?)([A-Za-z][\w{_DASH}+]*[\w+])\)?, (?:a|an) (?:[\w{_DASH}]+ ){{0,5}}?{_HEAD_NOUNS}\b")
_TITLE_LONG_THEN_ACRONYM = re.compile(r" (?:into|as|our|novel|new|a|an) ((?:[A-Z][\w-]* ){1,5}[A-Z][\w-]*) \(([A-Z][\w-]*)\)")
_NOT_OURS = re.compile(r"\b(?:such as|e\.g\.|like|including|than|over|baselines?|compared|versus|vs\.|et al|(?:19|20)\d\d|"
                       r"match(?:es)?|outperform[a-z]*|compar[a-z]*|performance of|against|existing|prior|previous)\b")


def _names_then_what(text: str) -> Iterator[re.Match]:
    """``_NAME_THEN_WHAT.finditer(text)``, tried only where a match can start: at the run of name characters
    (or its parenthesis) before a `, a` (tried at every word, it took seven times as long)."""
    pos, comma = 0, text.find(", a")
    while comma >= 0:
        run = end = comma - 1 if comma and text[comma - 1] == ")" else comma
        while run and (text[run - 1].isalnum() or text[run - 1] in "_-\u2010\u2011+"):  # (what ``[\w-+]`` matches)
            run -= 1
        for start in (run - 1, *(at for at in range(run, end) if at == run or text[at - 1] == "+")):  # (or a `+` before)
            if start >= pos and (match := _NAME_THEN_WHAT.match(text, start)):
                yield match
                pos = match.end()
                break
        comma = text.find(", a", comma + 1)


def _named_later(text: str, low: str, bounds: list[tuple[int, int]]) -> Iterator[_Candidate]:
    """Names the paper gives past its contribution sentence: `... informs the design of X, an
    efficient algorithm ...`; `we restructure chains into Title Case Chains (TCC)` where the
    authors act and use the name again. Never in a sentence about prior work or baselines."""
    for match in _names_then_what(text):
        start, end = _sentence(bounds, match.start())
        if coined_strength(match.group(2)) == 2 and not _PLURAL_ACRONYM.fullmatch(match.group(2)) and not _NOT_OURS.search(low, start, match.end() + 1) \
                and not _ESTABLISHED.search(low, start, match.end() + 1) \
                and (not match.group(1) or re.search(r"\b(?:our|we|introduc|propos)", low[start:match.start() + 1])):
            yield from _after_intro(text, match.start(), 2)
    for match in _TITLE_LONG_THEN_ACRONYM.finditer(text) if "(" in text else ():  # (a space first: the scan skips ahead)
        at = match.start() + 1  # (the word after the space)
        start, _ = _sentence(bounds, at)
        acronym, uses = match.group(2), text.count(match.group(2))
        if start and coined_strength(acronym) == 2 and uses >= 3 and expands(match.group(1), acronym) \
                and re.search(r"\b(?:we|our)\b", low[start:at + 1]) \
                and not _NOT_OURS.search(low, start, at + 1) \
                and not _ESTABLISHED.search(low, max(start, at - 20), at + 1):
            yield _Candidate(2, match.start(1), acronym, match.group(1), match.end())


def _candidates(text: str, low: str, bounds: list[tuple[int, int]]) -> Iterator[_Candidate]:
    """Every name candidate in ``text``; ``low`` is `" " + text` lower-cased (ASCII only)."""
    for match in _INTRO.finditer(low):
        start, end = _sentence(bounds, match.start())
        # (`To evaluate X, we release Y`: Y serves the paper's main contribution X)
        rank = 2 if _TO_EVALUATE.match(low, start + 1) else 1 if low.startswith(" and ", match.start()) else 0
        yield from _after_intro(text, match.end() - 1, rank)
        # every appositive of the sentence: `two methods: (1) a ratio attack inspired by methods from
        # X, and (2) a novel approach, PRISM, which ...`
        for after in _HEAD_COMMA.finditer(text, match.end() - 1, end):  # `... $O(m)$ primal-dual algorithm, the *X* (XY) ...`
            if not _APPOSITIVE.search(low, match.end(), after.start() + 1):
                yield from _after_intro(text, after.end(), 1)
        for appositive in _APPOSITIVE.finditer(low, match.end(), end + 1):
            before = text[appositive.start() - 1:appositive.end() - 1].strip(" ,:")
            if before.rsplit(" ", 1)[-1][:1].isupper():
                continue  # (`the Algebraic Combinatorics Dataset | Repository (ACD Repo)`: inside a name)
            found = [candidate._replace(before=before) for candidate in _after_intro(text, appositive.end() - 1, 1)]
            yield from found
            if found:
                break
    for match in _CALLED.finditer(low) if any(map(low.__contains__, _CALLED_WORDS)) else ():
        start, _ = _sentence(bounds, match.start())
        personal = _PERSONAL.search(low, start, match.start() + 1)
        # (the nearest phrase the authors' clause does not split: `the task as X which we solve with | a Y called Z`)
        phrase = re.search(r".*\b((?:a|an) (?:(?!\bwe\b)[^,;:]){3,120}?),?$", text[start:match.start() - 1]) or re.search(
            r"\b(the (?:(?!\bwe\b)[^,;:]){3,120}?),?$", text[start:match.start() - 1])
        if _ESTABLISHED.search(low, max(start, match.start() - 60), match.start()):
            continue  # `established notions of explanations, namely Prime Implicant`: prior work
        found = False
        for candidate in _after_intro(text, match.end() - 1, 0 if personal else 2):
            found = True
            yield candidate._replace(before=phrase.group(1) if phrase else "")
        words = _TITLE_CASE_NAME.match(text, match.end() - 1) if not found and personal else None
        if words and any(coined_strength(w) == 2 for w in words.group(0).split()):  # `we call Functional SAM, ...`
            yield _Candidate(1, match.start(), words.group(0), None, words.end(), phrase.group(1) if phrase else "")
    position = low.find(" our ")
    while position >= 0:
        appositive = _APPOSITIVE.match(low, position + 1)
        if appositive:
            before = text[position:appositive.end() - 1].strip(" ,:")
            for candidate in _after_intro(text, appositive.end() - 1, 1):
                yield candidate._replace(before=before)
        position = low.find(" our ", position + 1)
    for start, _ in bounds if " is a" in low else ():  # `LongRoPE2 is a novel approach that ...` (both need _IS_A)
        token = _TOKEN_AT.match(text, start)
        if token and _IS_A.match(low, token.end() + 1) and coined_strength(token.group(1)) == 2:
            yield _Candidate(1, start, token.group(1), None, token.end())
        pair = _LONG_THEN_ACRONYM.match(text, start) if start and "(" in text[start:start + 120] else None
        if pair and pair.group(1)[:1].isupper() and _IS_A.match(low, pair.end() + 1) and coined_strength(pair.group(2)) == 2 \
                and expands(pair.group(1), pair.group(2)):  # `Long Form (LF) is a method that ...`
            yield _Candidate(1, start, pair.group(2), pair.group(1), pair.end())
    yield from _named_later(text, low, bounds)
    for match in _PROPOSED.finditer(low):
        token = _TOKEN_AT.match(text, match.end() - 1)
        if token and coined_strength(token.group(1).rstrip(".")) == 2 and not _MODIFIES.match(text, token.end()):
            yield _Candidate(2, match.start(), token.group(1).rstrip("."), None, token.end())  # (not `the proposed MAG listing method`)
    yield from _or_coined(text, low)
    yield from _paradigm_of(text)
    if "**" in text:
        for match in _BOLD.finditer(text):
            name = match.group(1).strip()
            if " " not in name and coined_strength(name) == 2:
                yield _Candidate(3, match.start(), name, None, match.end())


_PLURAL_ACRONYM = re.compile(r"[A-Z][A-Z0-9-]*[A-Z0-9]s")


def _class_of_things(candidate: _Candidate, low: str, bounds: list[tuple[int, int]]) -> bool:
    """Is the candidate a plural acronym (`MEs`, `LDMs`) its sentence does not say the paper
    introduces? A plural names a class of things the field has, not the paper's contribution."""
    if not _PLURAL_ACRONYM.fullmatch(candidate.name):
        return False
    start, _ = _sentence(bounds, candidate.start)
    return not _INTRO.search(low, start, candidate.start + 2)  # (``low`` is the text after a space)


_CITED_AFTER = re.compile(r"(?: ?\([^()]{1,20}\))?\)?(?: [a-z-]+){0,2},? (?:of|by|from|in|proposed by|introduced by) (?:[A-Z][\w'-]+ )"
                          r"(?:(?:and|&) [A-Z][\w'-]+ |et al\.? )?\(?(?:19|20)\d\d")


def _cited(text: str, candidate: _Candidate) -> bool:
    """Is the name cited as someone else's (`the X (XY) framework of Smith et al. (2024)`)? The
    paper adapts or builds on it: prior work, not its own name."""
    at = text.find(candidate.name, candidate.start)
    return at >= 0 and bool(_CITED_AFTER.match(text, at + len(candidate.name)))


def _aliases(name: str, long: str | None, others: list[str], extraction: Extraction) -> tuple[str, ...]:
    found: list[str] = []
    keys = {name.casefold()}
    for alias in (long, *others, *extraction.paper_aliases):
        if alias and alias.casefold() not in keys and len(alias) <= 120:
            keys.add(alias.casefold())
            found.append(alias)
    return tuple(found[:6])


def _extends(name: str, base: str) -> bool:
    """Is ``name`` the ``base`` name with a suffix (`GRADEO-Instruct` of `GRADEO`)?"""
    return len(base) < len(name) and name.startswith(base) and name[len(base)] in "-\u2010\u2011 "


def paper_name(text: str, extraction: Extraction | None = None) -> PaperName:
    """Name and title one abstract from its text (``extraction`` adds hints when present).

    Never raises. ``name`` is the coined name as written, or ``None`` when the abstract coins
    none; ``title`` is ``name — what it is`` or, unnamed, a phrase from the contribution
    sentence (at most 110 characters, no trailing punctuation, no markup); ``gist`` is at most
    120 characters; ``aliases`` hold the name's expansion and extended names.
    """
    extraction = extraction or Extraction()
    plain = plain_text(text)
    low = plain.lower()
    low = " " + (low if len(low) == len(plain) else plain.translate(_ASCII_LOWER))
    bounds = sentence_bounds(plain)
    # The extractors' hints rank last (4) and are never an extended name (rank 0-1): they count
    # only when the text itself names nothing, so they are looked for only then.
    candidates = [*_candidates(plain, low, bounds)] or [*_hint_candidates(plain, extraction)]
    candidates = _named_by_repository(plain, candidates)
    # a name the vocabulary knows is prior work, unless the abstract spells it out otherwise
    # (`Audio Flamingo 2 (AF2)` is not AlphaFold2)
    if candidates:
        known, found = _known_spellings(extraction), candidates
        candidates = [c for c in candidates if (not _known_concept(c.name, known)
                      or (c.long and not _known_concept(c.long, known))) and not _class_of_things(c, low, bounds)
                      and not _cited(plain, c)]
        called = [c for c in found if c.rank == 0 and _known_concept(c.name, known)][:1]
        candidates = candidates or [i for c in called for i in _instances_of_called(plain, c)]
    if not candidates:
        title, gist = unnamed_title(plain, low, bounds, extraction)
        return PaperName(title=title, name=None, aliases=_aliases("", None, [], extraction), gist=gist)
    best = min(candidates, key=lambda c: (c.rank, c.start))
    base = next((c for c in candidates if c.rank <= 1 and _extends(best.name, c.name)), None)
    best = base or best  # `GRADEO`, not its variant `GRADEO-Instruct`
    long = best.long or _long_form_hint(best.name, extraction)
    spelled_by = _spelled_prefix(best.name, long) if long and len(long.split()) > 4 else long
    spelled = bool(spelled_by and (_SPELLED_OUT.search(best.name) or best.long and _means_else(best.name, spelled_by))
                   and len(spelled_by.split()) <= 4 and long[:1].isupper())
    long = spelled_by if spelled else long  # `Deliberate Practice for Synthetic Data Generation (DP)` -> `Deliberate Practice`
    if spelled:  # `Verification Learning (VL)`, `Audio Flamingo 2 (AF2)`: the name, and the acronym an alias
        best, long = best._replace(name=long), best.name
    extended = [c.name for c in candidates if c.rank <= 1 and best.name.casefold() in c.name.casefold()]
    gist = paper_gist(plain, low, bounds, best.name, (best.start, best.end), best.before, None if spelled else long)
    if not gist and " and " in best.name and best not in found:  # instantiations: what the paper says it builds
        gist = unnamed_title(plain, low, bounds, extraction)[1]
    return PaperName(
        title=name_title(best.name, None if spelled else long, gist),
        name=best.name,
        aliases=_aliases(best.name, long, extended, extraction),
        gist=gist,
    )


def _spelled_prefix(acronym: str, long: str) -> str:
    """The words of ``long`` whose initials spell ``acronym`` (`Deliberate Practice` of `Deliberate
    Practice for Synthetic Data Generation (DP)`), or ``""``."""
    words = long.split()[:len(acronym)]
    return " ".join(words) if acronym.isupper() and "".join(w[:1] for w in words) == acronym else ""


def _means_else(acronym: str, long: str) -> bool:
    """Does the field already know ``acronym`` as something else (`FOL`: first-order logic, not
    Federated Oriented Learning)? The paper is then told by its long form."""
    from .vocabulary import Vocabulary  # (loaded once, cached; only an acronym with a long form asks)

    entry = Vocabulary.load().entry(acronym) if acronym.isupper() else None
    return entry is not None and not any(name.casefold() == long.casefold() for name in entry.names)


@hookimpl(trylast=True)
def vaultsync_paper_name(abstract: Abstract, extraction: Extraction) -> PaperName:
    """The built-in rule: see :func:`paper_name`."""
    return paper_name(abstract.text, extraction)
