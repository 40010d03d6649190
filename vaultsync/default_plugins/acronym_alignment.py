"""How an acronym's letters align with the words of its long form (`MoE` with *Mixture of Experts*,
`I2V` with *image-to-video*): a dynamic programme over the acronym's units and the words' parts,
scoring initials above inner letters; digits may stand for words (`2` for *to*)."""

from __future__ import annotations

import re
from functools import lru_cache

from ..canonical import singular

_DASH = "\\-\u2010\u2011\u2012\u2013\u2014\u2015"
_TO_HYPHEN = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015/"})
_ACR_PART_SPLIT = re.compile(rf"[{_DASH}/&.+]")

_INVALID = -1000  # the score of an impossible alignment
_FUNCTION_WORDS = frozenset(
    "of the a an and & for from with to in on by via at into over under through or as".split()
)
_DIGIT_WORDS = {"2": ("to", "two"), "4": ("for", "four")}


def _split_plural(short: str) -> tuple[str, bool]:
    if len(short) > 2 and short[-1] == "s" and (short[-2].isupper() or short[-2].isdigit()):
        return short[:-1], True
    return short, False


@lru_cache(maxsize=4096)
def _units(short: str) -> tuple[tuple[str, bool, bool], ...] | None:
    """The acronym as units ``(value, is_word, is_strong)``: one per letter or digit, or one per
    word-like hyphenated part (`Omni`, `Neurons`). Strong units are capitals, digits and words."""
    core, _ = _split_plural(short)
    parts = [part for part in _ACR_PART_SPLIT.split(core) if part]
    units = []
    for part in parts:
        if len(parts) > 1 and len(part) >= 3 and part[1:].islower() and part.isalpha():
            units.append((part.lower(), True, True))
        else:
            units.extend((c.lower(), False, c.isupper() or c.isdigit()) for c in part)
    return tuple(units) or None


def _align(units: tuple[tuple[str, bool, bool], ...], words: list[str],
           fixed_start: bool) -> int | None:
    """The index of the word where the long form starts (it always ends with the last of
    ``words``), or None when no start explains the acronym well enough."""
    if not words:
        return None
    parts: list[str] = []
    word_of: list[int] = []
    first_part: list[int] = []
    function: list[bool] = []
    for index, word in enumerate(words):
        low = word.lower()
        first_part.append(len(parts))
        for part in (low,) if low.isalnum() else low.translate(_TO_HYPHEN).split("-"):
            parts.append(part)
            word_of.append(index)
        function.append(low in _FUNCTION_WORDS)
    last_word, n_units, n_parts = len(words) - 1, len(units), len(parts)
    perfect = _initials_alignment(units, parts, first_part, fixed_start)
    if perfect is not None:
        return perfect
    memo: dict[tuple[int, int, int, bool, int], int] = {}

    def best(u: int, i: int, k: int, matched: bool, skipped: int) -> int:
        # u: next unit; i: current part; k: next letter of part i (0: none used yet);
        # matched: the current word has contributed; skipped: content words left out so far.
        if u == n_units:
            return 0 if word_of[i] == last_word else _INVALID
        key = (u, i, k, matched, skipped)
        if key in memo:
            return memo[key]
        result = _INVALID
        value, is_word, is_strong = units[u]
        part = parts[i]
        if k == 0:
            if _opens(part, value, is_word):
                result = best(u + 1, i, _used(part, value, is_word), True, skipped) + is_strong
        elif not is_word:
            j = part.find(value, k)
            if j >= 0:
                result = best(u + 1, i, j + 1, True, skipped)
        if i + 1 < n_parts:
            if word_of[i + 1] == word_of[i]:
                result = max(result, best(u, i + 1, 0, matched, skipped))
            elif matched or function[word_of[i]]:
                result = max(result, best(u, i + 1, 0, False, skipped))
            elif skipped == 0:  # one content word may be left out, at a cost
                result = max(result, best(u, i + 1, 0, False, 1) - 1)
        memo[key] = result
        return result

    strong = sum(unit[2] for unit in units)
    value, is_word, is_strong = units[0]
    chosen, chosen_score = None, _INVALID
    for s in [0] if fixed_start else range(last_word, -1, -1):
        i = first_part[s]
        if not _opens(parts[i], value, is_word):
            continue  # the long form starts with the acronym's first letter (or word)
        score = best(1, i, _used(parts[i], value, is_word), True, 0) + is_strong
        if score > chosen_score:  # strictly: on a tie the shorter form (found first) stays
            chosen, chosen_score = s, score
    if chosen is None or chosen_score < max(1, (strong + 1) // 2):
        return None
    lone_word = chosen == last_word and len(parts) - first_part[chosen] == 1
    if lone_word and len(words[chosen]) < len(units) + 3:
        return None  # `BERT (BERT)`: a lone short word is no expansion
    return chosen


def _initials_alignment(units: tuple[tuple[str, bool, bool], ...], parts: list[str],
                        first_part: list[int], fixed_start: bool) -> int | None:
    """The start word when the last words' parts spell the acronym by their initials, one part
    per letter (`large language models (LLMs)`): the best score, so no need to search."""
    offset = len(parts) - len(units)
    if offset < 0 or (fixed_start and offset != 0) or offset not in first_part:
        return None
    for (value, is_word, _), part in zip(units, parts[offset:]):
        if is_word or part[0] != value:
            return None
    start = first_part.index(offset)
    if start == len(first_part) - 1 and len(units) == 1:
        return None
    return start


def _opens(part: str, value: str, is_word: bool) -> bool:
    """Whether ``part`` can give unit ``value`` by its initial (or, for a word unit, whole)."""
    if is_word:
        return part == value or singular(part) == singular(value)
    return (part[0] == value or part in _DIGIT_WORDS.get(value, ())
            or (value == "x" and part.startswith("ex")))


def _used(part: str, value: str, is_word: bool) -> int:
    """How many letters of ``part`` an opening match of ``value`` uses."""
    if is_word or part in _DIGIT_WORDS.get(value, ()):
        return len(part)  # a word unit, or `2` for "to": the whole part
    return 1 if part[0] == value else 2  # `x` for "ex" uses two letters
