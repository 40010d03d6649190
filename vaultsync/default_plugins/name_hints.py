"""Helpers of the naming rule (``naming.py``): the name candidate, how coined a token looks, and
names the abstract's code repository or the extractors' hints give."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator, NamedTuple

from ..records import Extraction
from .long_forms import expands
from .titles import _WORDS

_DASHES = re.compile("[\\-\u2010\u2011]")
_REPOSITORY = re.compile(r"(?:github\.com|gitlab\.com|huggingface\.co)/[\w.-]+/([\w.-]+)", re.IGNORECASE)
_NUMBER_AND_LETTER = re.compile(r"\d+[A-Za-z]")
_NOT_NAMES = _WORDS["not_names"]  # too common to be a paper's own name, or not names at all


class _Candidate(NamedTuple):
    rank: int  # lower is more reliable
    start: int
    name: str
    long: str | None
    end: int  # where the text after the name (its appositive) begins
    before: str = ""  # what it is, when said before it (`a novel paradigm, namely X`)


@lru_cache(maxsize=4096)
def coined_strength(token: str) -> int:
    """2 for a clearly coined name (``OptMaster``, ``PRISM``, ``X-Dub``, ``Llama3``), 1 for a
    plain capitalised word that may be one (``Grouter``), 0 for an ordinary word or modifier."""
    token = token.strip("*_")
    if len(token) < 2 or token.casefold() in _NOT_NAMES or _NUMBER_AND_LETTER.fullmatch(token):
        return 0  # 3D, 4K
    if token[0].isdigit() and not any(c.isupper() for c in token):
        return 0  # 1.11x, 2x–3x: a figure
    last = _DASHES.split(token)[-1]
    if last != token and last.isalpha() and last.islower():
        return 0  # LLM-based, GNN-guided: an adjective
    letters = [c for c in token if c.isalpha()]
    if not letters:
        return 0
    if sum(c.isupper() for c in letters) >= 2 or any(c.isupper() for c in token[1:]):
        return 2
    if any(c.isdigit() for c in token):
        return 2
    if token[0].isupper() and len(token) >= 4:
        return 1
    return 0


def _repository_names(text: str) -> list[str]:
    """Names of the code repositories the abstract links (`github.com/user/VisionTS`): authors
    name their repository after their method."""
    if "/" not in text:
        return []
    return [m.group(1).rstrip(".").removesuffix(".git") for m in _REPOSITORY.finditer(text)]


def _named_by_repository(text: str, candidates: list[_Candidate]) -> list[_Candidate]:
    """The candidates, the one the code repository is named after first (rank 0); or, when the
    text names nothing else, the repository's name itself where the text uses it."""
    names = {_fold(name): name for name in _repository_names(text) if coined_strength(name) == 2 and "_" not in name}
    if not names:
        return candidates
    matched = [c._replace(rank=-2) for c in candidates if _fold(c.name) in names]
    if matched:
        return matched + candidates
    name = next(iter(names.values()))
    if candidates and not (re.fullmatch(r"[A-Z][a-z]+[A-Z][a-z]+[A-Za-z0-9]*", name) and len(names) == 1):
        return candidates
    if candidates:  # `EmoGrowth` in `github.com/user/EmoGrowth`: a coined word name the abstract never says
        return [_Candidate(-1, len(text), name, None, len(text)), *candidates]
    start = max(_find_token(text, name), 0)
    return [_Candidate(3, start, name, None, start + len(name))]


@lru_cache(maxsize=65_536)  # the vocabulary's spellings recur in abstract after abstract (_known_spellings)
def _fold(name: str) -> str:
    return _DASHES.sub("", name).casefold()


def _hint_candidates(text: str, extraction: Extraction) -> Iterator[_Candidate]:
    hints = list(extraction.paper_aliases) + [
        surface
        for mention in extraction.concepts
        if mention.kind.startswith("acronym-coined")
        for surface in (*mention.surfaces, *mention.aliases)
    ]
    for hint in hints:
        if coined_strength(hint) == 2:
            start = _find_token(text, hint)
            if start >= 0:  # (a long form after the acronym it spells: `DUAL`, not `Difficulty and ... Lightweight`)
                yield _Candidate(5 if " " in hint else 4, start, hint, None, start + len(hint))


def _find_token(text: str, token: str) -> int:
    """Where ``token`` first occurs in ``text`` with no word character or hyphen on either side
    (as ``(?<![\\w-])token(?![\\w-])`` would find it, without compiling a pattern per token), or -1."""
    at = text.find(token)
    while at >= 0:
        end = at + len(token)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_-"):
            return at
        at = text.find(token, at + 1)
    return -1


def _long_form_hint(name: str, extraction: Extraction) -> str | None:
    for mention in extraction.concepts:
        if mention.kind.startswith("acronym") and name in (*mention.surfaces, *mention.aliases):
            if mention.name != name and " " in mention.name:
                return mention.name
    return None


def _known_spellings(extraction: Extraction) -> frozenset[str]:
    """Every spelling of the vocabulary concepts the abstract names, folded (see ``_known_concept``)."""
    return frozenset(_fold(spelling.rstrip("s")) for mention in extraction.concepts if mention.kind == "vocabulary"
                     for spelling in (mention.name, *mention.surfaces, *mention.aliases))


def _known_concept(name: str, known: frozenset[str]) -> bool:
    """Is ``name`` a concept the vocabulary knows (`MCTS`, `GNN`): prior work, not the paper's own?"""
    return _fold(name.rstrip("s")) in known


def _instances_of_called(text: str, called: _Candidate) -> Iterator[_Candidate]:
    """The paper's own names that extend a name it calls its contribution but the vocabulary knows
    (`our layers are called Test-Time Training (TTT) layers` ... `two instantiations: TTT-Linear and
    TTT-MLP`): the paper is told by its instantiations, the shared name being the concept's note.
    One candidate, one or two names written at least twice each, joined by `and`."""
    short = re.match(r" ?\(([A-Z][A-Za-z0-9]{1,8})\)", text[called.end:])
    stem = short.group(1) if short else called.name
    found = [m for m in re.finditer(rf"(?<![\w-]){re.escape(stem)}-[A-Za-z0-9]+(?![\w-])", text)]
    names = [n for n in dict.fromkeys(m.group(0) for m in found) if sum(m.group(0) == n for m in found) >= 2]
    if 1 <= len(names) <= 2:
        first = next(m for m in found if m.group(0) == names[0])
        yield _Candidate(called.rank, first.start(), " and ".join(names), None, first.end())


# `an approach that selects golden example pairs, or AuPairs, of ...`: a coined name (mixed case) the
# authors give the thing they describe, in a sentence of theirs
_OR_COINED = re.compile(r", or ([A-Z][a-z]+[A-Z][A-Za-z0-9]*?)(s?)(?=[,)])")


def _or_coined(text: str, low: str) -> Iterator[_Candidate]:
    """The coined name after `, or` in the authors' own sentence, singular where the text also writes
    it so (`AuPairs` ... `Each such AuPair`)."""
    for match in _OR_COINED.finditer(text) if ", or " in text else ():
        start = text.rfind(". ", 0, match.start()) + 1
        if not re.search(r"\b(?:we|our)\b", low[start:match.start() + 1]):
            continue
        name = match.group(1)
        plural = name + match.group(2)
        name = name if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) else plural
        if coined_strength(name) == 2:
            yield _Candidate(2, match.start(1), name, None, match.end())


# `this paper introduces a practical paradigm of Socialized Coevolution (SC)`: the paradigm the authors
# introduce is theirs (a method that then achieves it serves it)
_PARADIGM_OF = re.compile(r"\b(?:[Ww]e|[Tt]his (?:paper|work)) (?:introduces?|proposes?|presents?) (?:a|an|the) "
                          r"(?:[a-z-]+ ){0,2}?(?:paradigm|notion|concept) of ((?:[A-Z][\w-]* ){0,4}[A-Z][\w-]*) "
                          r"\(([A-Z][A-Za-z0-9]{1,8})\)")


_PARADIGM_WORDS = (" paradigm of ", " notion of ", " concept of ")  # one is in every match: the scan runs only then


def _paradigm_of(text: str) -> Iterator[_Candidate]:
    for match in _PARADIGM_OF.finditer(text) if "(" in text and any(map(text.__contains__, _PARADIGM_WORDS)) else ():
        if expands(match.group(1), match.group(2)):
            yield _Candidate(0, match.start(2), match.group(2), match.group(1), match.end())
