"""The built-in naming rule: a paper is named after the method, model, benchmark or dataset it
introduces, and given a title derived from its contribution sentence (abstracts have no titles).

Name rules, tried over the whole abstract (earliest, most reliable pattern wins):

* after an introducing verb (``we propose``, ``this paper introduces``, ``we then derive``):
  ``Long Form (ACRONYM)`` -> ``ACRONYM`` with alias ``Long Form``; ``Coined (Long Form)`` ->
  ``Coined`` with the alias; ``Coined, a ...`` / ``**Coined**`` / ``\\textbf{Coined}`` /
  ``the Coined benchmark``;
* ``namely X``, ``called X``, ``dubbed X``, ``termed X``, ``named X`` and
  ``a novel framework, X,`` in the same sentence;
* weaker: a bold coined token anywhere, then the extractors' ``paper_aliases`` and
  ``acronym-coined`` mentions.

A coined name has inner capitals, several capitals or letters mixed with digits (``OptMaster``,
``PRISM``, ``X-Dub``, ``Llama3``); a plain capitalised word (``Grouter``) counts only when an
appositive follows (``Grouter, a routing method``). A token followed by an ordinary noun
(``GNN models``) or ending in a lower-case hyphen part (``LLM-based``) is a modifier, not a name.
Other names the paper introduces that extend the main one (``AVI-Bench-PriSe``) become aliases;
components with unrelated names (a module, a loss) do not, so they cannot capture links meant
for concept notes.
"""

from __future__ import annotations

import re
from typing import Iterator, NamedTuple

from ..hookspecs import hookimpl
from ..records import Abstract, Extraction, PaperName

TITLE_MAX = 110
GIST_MAX = 120

_DASH = "\\-\u2010\u2011"
_TOKEN = rf"[^\W_][\w{_DASH}+.]*[\w+]|[^\W_]"
_INTRO_VERB = (
    r"(?:propos|introduc|present|develop|design|deriv|devis|buil[dt]|construct|creat|releas|"
    r"curat|contribut|offer|establish|unveil|formulat|put\s+forward)\w*"
)
_INTRO = re.compile(
    rf"\b(?:[Ww]e|[Pp]aper|[Ww]ork|[Aa]rticle|[Ss]tudy|[Hh]ere|[Ii])\s+(?:[a-z]+\s+){{0,2}}?"
    rf"{_INTRO_VERB}\s+(?:here\s+)?"
)
_CALLED = re.compile(
    r"\b(?:namely|called|dubbed|termed|named|coined|denoted\s+as|referred\s+to\s+as|"
    r"(?:we|which\s+we)\s+(?:call|term|name|dub))\s+(?:as\s+)?"
)
_HEAD_NOUNS = (
    r"(?:framework|method|approach|model|benchmark|dataset|data\s?set|algorithm|architecture|"
    r"system|pipeline|technique|strategy|paradigm|network|agent|suite|toolkit|library|metric|"
    r"loss|module|scheme|protocol|mechanism|objective|corpus|environment|platform|procedure|"
    r"solver|estimator|optimizer|policy|tool|recipe|family|series|testbed|simulator|language)s?"
)
_APPOSITIVE_NAME = re.compile(rf"\b(?:[Oo]ur|a|an|the)\s+(?:[\w{_DASH}]+\s+){{0,5}}?{_HEAD_NOUNS},?\s+")
_TOKEN_AT = re.compile(rf"(?:\*\*|\*|__|_)?({_TOKEN})(?:\*\*|\*|__|_)?")
_PAREN_AFTER = re.compile(r"\s*\(([^()]{3,120})\)")
_LONG_THEN_ACRONYM = re.compile(rf"((?:[\w{_DASH}&'’]+\s+){{0,9}}?[\w{_DASH}&'’]+)\s*\(({_TOKEN})\)")
_BOLD = re.compile(r"\*\*([^*]{2,60})\*\*|\\textbf\{([^{}$]{2,60})\}")
_NEXT_WORD = re.compile(r"\s*([^\s]+)")

_ARTICLES = {"a", "an", "the"}
_SOFT_ADJECTIVES = {"novel", "new", "simple", "first", "unified", "general", "principled"}
_CONNECTORS = {
    "a", "an", "the", "that", "which", "to", "for", "as", "with", "by", "in", "on", "via",
    "using", "where", "whose", "wherein", "from", "into", "is", "are", "was", "can", "will",
    "and", "both", "together", "at", "within", "across", "through", "under", "over",
}
# Acronyms too common to be a paper's own name.
_GENERIC_ACRONYMS = {
    "ai", "ml", "llm", "llms", "nlp", "gpu", "gpus", "cpu", "rl", "dl", "api", "sota", "usa",
    "uk", "eu", "ii", "iii", "iv",
}
_NOT_NAMES = {
    "the", "this", "these", "those", "our", "we", "it", "its", "in", "on", "for", "to", "a",
    "an", "here", "however", "moreover", "furthermore", "specifically", "finally", "first",
    "second", "then", "new", "novel", "two", "three", "several", "both", "each", "such",
}


class _Candidate(NamedTuple):
    rank: int  # lower is more reliable
    start: int
    name: str
    long: str | None
    end: int  # where the text after the name (its appositive) begins
    before: str  # a noun phrase naming what it is (``a novel 3D ... paradigm, namely X``)


def coined_strength(token: str) -> int:
    """2 for a clearly coined name (``OptMaster``, ``PRISM``, ``X-Dub``, ``Llama3``), 1 for a
    plain capitalised word that may be one (``Grouter``), 0 for an ordinary word or modifier."""
    token = token.strip("*_")
    if len(token) < 2 or token.casefold() in _GENERIC_ACRONYMS:
        return 0
    if token.casefold() in _NOT_NAMES:
        return 0
    parts = re.split(f"[{_DASH}]", token)
    last = parts[-1]
    if len(parts) > 1 and last.isalpha() and last.islower():
        return 0  # LLM-based, GNN-guided: an adjective
    letters = [c for c in token if c.isalpha()]
    if not letters:
        return 0
    if re.fullmatch(r"\d+[A-Za-z]", token):
        return 0  # 3D, 4K
    uppers = sum(1 for c in letters if c.isupper())
    has_digit = any(c.isdigit() for c in token)
    if uppers >= 2 or any(c.isupper() for c in token[1:]) or has_digit:
        return 2
    if token[0].isupper() and len(token) >= 4 and all(c.islower() for c in letters[1:]):
        return 1
    return 0


def _follows_as_name(text: str, end: int, strength: int) -> bool:
    """Whether what follows ``text[:end]`` lets the token before it stand as a name."""
    rest = text[end:end + 40]
    if not rest.strip() or rest[0] in ",:;.)—–":
        return True
    if rest.startswith(" (") or rest.startswith(" —") or rest.startswith(" –"):
        return True
    match = _NEXT_WORD.match(rest)
    word = match.group(1).strip(",.;:").casefold() if match else ""
    if strength == 1:
        return word in {"a", "an"}
    return word in _CONNECTORS or word.endswith(("ing", "ed")) or not word.isalpha()


def _looks_like_long_form(words: str) -> bool:
    first = words.split()[0].casefold() if words.split() else ""
    return (
        bool(first)
        and first not in {"to", "that", "which", "how", "using", "of", "for", "and", "or", "with"}
        and len(words.split()) >= 2
        and not re.search(r"\b(?:et al|e\.g|i\.e|see|cf)\b", words)
    )


def _strip_determiners(words: str) -> str:
    parts = words.split()
    while parts and parts[0].casefold() in _ARTICLES | _SOFT_ADJECTIVES:
        parts.pop(0)
    return " ".join(parts)


def _after_intro(text: str, pos: int, rank: int) -> Iterator[_Candidate]:
    """Candidates whose name is the object of an introducing verb ending at ``pos``."""
    window = text[pos:pos + 200]
    long_acronym = _LONG_THEN_ACRONYM.match(window)
    if long_acronym and coined_strength(long_acronym.group(2)) == 2:
        long = _strip_determiners(long_acronym.group(1))
        end = pos + long_acronym.end()
        if long and "," not in long and _follows_as_name(text, end, 2):
            yield _Candidate(rank, pos, long_acronym.group(2), long, end, "")
            return
    article = re.match(r"the\s+", window)
    offset = article.end() if article else 0
    token = _TOKEN_AT.match(window, offset)
    if not token:
        return
    name = token.group(1).rstrip(".")
    if name.endswith(("'s", "’s")):
        name = name[:-2]
    strength = coined_strength(name)
    end = pos + token.end()
    bolded = token.group(0).startswith(("*", "_"))
    if article:  # `the ROAMM dataset`: a name followed by what it is
        head = re.match(rf"\s+{_HEAD_NOUNS}\b", text[end:end + 40])
        if strength < 2 or not head:
            return
        end += head.end()
    if strength == 0 or not (_follows_as_name(text, end, strength) or bolded):
        return
    paren = _PAREN_AFTER.match(text, end)
    long = None
    if paren and _looks_like_long_form(paren.group(1)) and coined_strength(paren.group(1)) == 0:
        long = paren.group(1).strip()
        end = paren.end()
    yield _Candidate(rank if strength == 2 else rank + 1, pos, name, long, end, "")


def _candidates(text: str, bounds: list[tuple[int, int]]) -> Iterator[_Candidate]:
    for match in _INTRO.finditer(text):
        yield from _after_intro(text, match.end(), 0)
    for match in _CALLED.finditer(text):
        start = _sentence_start(bounds, match.start())
        sentence = text[start:match.start()]
        personal = re.search(rf"\b(?:[Ww]e|[Oo]ur|[Tt]his\s+(?:paper|work)|{_INTRO_VERB})\b", sentence)
        before = _noun_phrase_before(sentence)
        for candidate in _after_intro(text, match.end(), 0 if personal else 2):
            yield candidate._replace(before=before)
    for match in _APPOSITIVE_NAME.finditer(text):
        start = _sentence_start(bounds, match.start())
        if match.group(0)[:3].casefold() == "our" or _INTRO.search(text, start, match.start()):
            for candidate in _after_intro(text, match.end(), 1):
                yield candidate._replace(before=text[match.start():match.end()].strip(" ,"))
    for match in _BOLD.finditer(text):
        name = (match.group(1) or match.group(2)).strip()
        if coined_strength(name) == 2 and " " not in name:
            yield _Candidate(3, match.start(), name, None, match.end(), "")


def _sentence_start(bounds: list[tuple[int, int]], pos: int) -> int:
    for start, end in bounds:
        if start <= pos < end:
            return start
    return 0


def _noun_phrase_before(sentence: str) -> str:
    """``we introduce a novel paradigm, namely`` -> ``a novel paradigm``."""
    match = re.search(r"\b((?:a|an|the)\s+[^,;:]{3,80}?)\s*,?\s*$", sentence)
    return match.group(1) if match else ""


def _hint_candidates(text: str, extraction: Extraction) -> Iterator[_Candidate]:
    hints = list(extraction.paper_aliases)
    hints += [
        surface
        for mention in extraction.concepts
        if mention.kind.startswith("acronym-coined")
        for surface in (mention.surfaces or mention.aliases)
    ]
    for hint in hints:
        if coined_strength(hint) != 2:
            continue
        found = re.search(rf"(?<![\w-]){re.escape(hint)}(?![\w-])", text)
        if found:
            yield _Candidate(4, found.start(), hint, None, found.end(), "")


def _long_form_hint(name: str, extraction: Extraction) -> str | None:
    for mention in extraction.concepts:
        if mention.kind.startswith("acronym") and name in mention.surfaces + mention.aliases:
            if mention.name != name and " " in mention.name:
                return mention.name
    return None


def _gist(text: str, candidate: _Candidate, bounds: list[tuple[int, int]]) -> str:
    """What the named paper is: the appositive after its name, else the phrase before it."""
    sentence_end = next((end for start, end in bounds if start <= candidate.end <= end), len(text))
    rest = text[candidate.end:sentence_end].lstrip(" ,:;—–-")
    rest = re.sub(r"^(?:as|is|which\s+is|that\s+is)\s+(?=(?:a|an|the)\b)", "", rest)
    rest = re.sub(r"^(?:which|that)\s+", "", rest)
    if not re.match(r"(?:a|an|the)\b", rest) and candidate.before:
        rest = candidate.before
    return clean_phrase(rest, GIST_MAX)


def _title(name: str, long: str | None, gist: str) -> str:
    head = f"{name} — {long}" if long else name
    if long and gist and not re.match(r"(?:a|an|the)\b", gist):
        return trim_phrase(head, TITLE_MAX)
    tail = gist if not long else f", {gist}" if gist else ""
    room = TITLE_MAX - len(head) - (0 if long else 3)
    if tail and room >= 20:
        tail = trim_phrase(tail, room) if len(tail) > room else tail
        return head + tail if long else f"{head} — {tail}"
    return trim_phrase(head, TITLE_MAX)


def _aliases(name: str, long: str | None, others: list[str], extraction: Extraction) -> tuple[str, ...]:
    found: list[str] = []
    keys = {name.casefold()}
    for alias in [long, *others, *extraction.paper_aliases]:
        if alias and alias.casefold() not in keys and len(alias) <= 120:
            keys.add(alias.casefold())
            found.append(alias)
    return tuple(found[:6])


def paper_name(text: str, extraction: Extraction | None = None) -> PaperName:
    """Name and title one abstract from its text alone (``extraction`` adds hints).

    Never raises; the title is 1–110 characters with no trailing punctuation; the gist is at
    most 120 characters; ``name`` is ``None`` when the abstract introduces no coined name.
    """
    extraction = extraction or Extraction()
    plain = plain_text(text)
    bounds = sentence_bounds(plain)
    candidates = list(_candidates(plain, bounds)) + list(_hint_candidates(plain, extraction))
    if not candidates:
        title, gist = contribution_title(plain, bounds)
        return PaperName(title=title, name=None, aliases=_aliases("", None, [], extraction), gist=gist)
    best = min(candidates, key=lambda c: (c.rank, c.start))
    long = best.long or _long_form_hint(best.name, extraction)
    variants = [c.name for c in candidates if c.rank <= 1 and best.name.casefold() in c.name.casefold()]
    gist = _gist(plain, best, bounds)
    return PaperName(
        title=_title(best.name, long, gist),
        name=best.name,
        aliases=_aliases(best.name, long, variants, extraction),
        gist=gist,
    )


@hookimpl(trylast=True)
def vaultsync_paper_name(abstract: Abstract, extraction: Extraction) -> PaperName:
    return paper_name(abstract.text, extraction)
