"""Noun-phrase chunks of an abstract, without a tagger (``candidate_phrases``).

Text is cut into chunks at punctuation, function words, common verbs, adverbs and numbers
(the word lists: ``vaultsync/data/phrase_words.txt``); suffix rules then trim what a noun phrase
cannot start or end with (a verb participle after a noun, a trailing adjective,
"novel"/"proposed"). Chunks of 1-4 words are candidates. The plugin that ranks and reports them
is ``phrase_concepts``.
"""

from __future__ import annotations

import re
from itertools import accumulate
from operator import add
from typing import NamedTuple

from ..canonical import concept_key, singular
from ..generic import is_generic
from ..word_lists import PHRASE_WORDS, prose_stop_words, read_word_lists

__all__ = ["Phrase", "STOPWORDS", "candidate_phrases"]

MAX_WORDS = 4

# ---------------------------------------------------------------------------------------------
# Word lists (vaultsync/data/phrase_words.txt): what cuts a chunk, and what a noun phrase cannot
# start or end with.

_LISTS = read_word_lists(PHRASE_WORDS)
LY_NOUNS = _LISTS["ly_nouns"]  # -ly words that are nouns, not adverbs
ED_NOUNS = _LISTS["ed_nouns"]  # -ed words that are not participles
# Endings of nouns and adjectives; a bare lower-case word without one, right after "to", is
# taken for an infinitive ("to recover latent components").
NOUN_SUFFIXES = (
    "tion", "sion", "ment", "ness", "ity", "ism", "ist", "ure", "ance", "ence", "ing", "or",
    "ar", "al", "ic", "ics", "ogy", "phy", "sis", "ry", "cy", "ty", "th", "ship", "hood", "ee",
    "um", "ix", "ex", "on", "ia", "ine", "ide", "ite", "ard", "nt", "oid", "ant", "ent",
)
# Adjective endings: a chunk never ends on one ("the method is robust").
ADJECTIVE_SUFFIXES = ("ive", "ous", "ful", "less", "able", "ible", "ical", "ary", "ent", "ant")
NOUN_SUFFIX_EXCEPTIONS = _LISTS["noun_suffix_exceptions"]
PLAIN_ADJECTIVES = _LISTS["plain_adjectives"]
LEADING_FILLERS = _LISTS["leading_fillers"]


STOPWORDS = prose_stop_words()  # function words and the verbs of scientific prose, all their forms

# Math, URLs, LaTeX commands and HTML tags are masked (they cut chunks and never become phrases).
_MASK = re.compile(
    r"\$\$.*?\$\$|\$[^$]{1,400}\$|\\\(.*?\\\)|\\\[.*?\\\]"  # TeX math
    r"|(?:https?://|ftp://|www\.)\S+"  # URLs
    r"|\\[A-Za-z]+\*?|</?[A-Za-z][^<>]{0,40}>",  # LaTeX commands, HTML tags
    re.DOTALL,
)
# A word (letters/digits, with inner hyphens, dots, slashes or pluses: GPT-4, v1.5, TCP/IP, C++).
# Phrases are cut out of runs of words separated by whitespace only: anything else (punctuation,
# emphasis, masked text, or no space at all, as in `a_b`) cuts phrases.
# (Written as runs of word characters joined by single joiners: the same words as the per-character
# form `[^\W_](?:[^\W_]|<joiner>(?=[^\W_]))*\+*`, which the regex engine matches about twice as slowly.)
_WORD = re.compile(r"[^\W_]+(?:[-.+/\u2010\u2011][^\W_]+)*\+*")
_TOKEN = re.compile(r"\S+")  # what `str.split()` splits a text into (both use `str.isspace`)
_NUMBERISH = re.compile(r"^[\d.,/+\-]+(?:st|nd|rd|th|s|k|m|b|x)?$")
_DOMAIN = re.compile(r"\.(?:com|org|net|io|edu|ai|gov|html?|pdf)(?:/|$)")

# Per-word flags, computed once per distinct word.
_BOUNDARY, _PARTICIPLE, _ADJECTIVE, _FILLER, _PLURAL, _LOWER, _BARE, _TO = 1, 2, 4, 8, 16, 32, 64, 128
_TRAILING = _PARTICIPLE | _ADJECTIVE
_DROPPED_ALONE = _FILLER | _TRAILING  # a one-word piece with one of these is no phrase
_CUTS = _PARTICIPLE | _PLURAL  # a run with neither is one piece

# A text is read token by token (``str.split()``); each distinct token is described once, as the
# words in it: ``(start, stop, flags)`` within the token. Punctuation and masked text in a token
# become a ``_CUT``, a boundary that is no word, so the words around it are in different runs.
_CUT = (0, 0, _BOUNDARY)
_FLAGS: dict[str, tuple[tuple[int, int, int], ...]] = {}  # token -> its description
_Span = tuple[int, int]  # (start, stop) of a phrase in the text


class Phrase(NamedTuple):
    """A candidate phrase: ``text`` is ``source[start:end]`` exactly; ``key`` is its concept key."""

    text: str
    start: int
    end: int
    key: str


_new_phrase = tuple.__new__  # `_new_phrase(Phrase, (...))` is `Phrase(...)` without the Python-level __new__


def _classify(word: str) -> int:
    lower = word.lower()
    if (
        lower in STOPWORDS
        or _NUMBERISH.match(lower)
        or (lower.endswith("ly") and len(lower) > 4 and lower not in LY_NOUNS)
        or ("." in lower and _DOMAIN.search(lower))
    ):
        return _BOUNDARY | (_TO if lower == "to" else 0)
    flags = 0
    if len(lower) > 4 and lower.endswith("ed") and lower not in ED_NOUNS:
        flags |= _PARTICIPLE
    if lower in PLAIN_ADJECTIVES or (
        lower.endswith(ADJECTIVE_SUFFIXES) and lower not in NOUN_SUFFIX_EXCEPTIONS
    ):
        flags |= _ADJECTIVE
    if lower in LEADING_FILLERS:
        flags |= _FILLER
    if word.islower() and word.isalpha():
        flags |= _LOWER
        if lower.endswith("s") and len(lower) > 3 and singular(lower) != lower:
            flags |= _PLURAL
        elif not lower.endswith(NOUN_SUFFIXES) and not flags & _TRAILING:
            flags |= _BARE  # a base-form verb after "to" ("to recover"), or a noun
    return flags


def _describe(token: str) -> tuple[tuple[int, int, int], ...]:
    """The words of a whitespace-free ``token`` as ``(start, stop, flags)``, with a ``_CUT``
    wherever something else than a word comes first, between words, or last (cached)."""
    if token.isalnum():  # the usual case, told without the regex (`[^\W_]` is `str.isalnum`)
        words = [(0, len(token))]
    else:
        words = [(m.start(), m.end()) for m in _WORD.finditer(token)]
    if words == [(0, len(token))]:  # the token is one word
        description = ((0, len(token), _classify(token)),)
    else:
        items = []
        position = 0
        for start, stop in words:
            if start > position or items:  # two words never join without whitespace between
                items.append(_CUT)
            items.append((start, stop, _word_flags(token[start:stop])))
            position = stop
        if position < len(token) or not items:
            items.append(_CUT)
        description = tuple(items)
    if len(_FLAGS) > 200_000:
        _FLAGS.clear()  # bound the memory an endless stream of new tokens can take
    _FLAGS[token] = description
    return description


def _word_flags(word: str) -> int:
    """The flags of one word (a word is a token of its own, so its description is cached too)."""
    description = _FLAGS.get(word) or _describe(word)
    return description[0][2]


def _mask(text: str) -> str:
    if "$" in text or "\\" in text or "<" in text or "://" in text or "www." in text:
        return _MASK.sub(lambda m: "\x00" * (m.end() - m.start()), text)
    return text


def _token_starts(text: str, tokens: list[str]) -> list[int]:
    """Where each of ``tokens`` (``text.split()``) starts in ``text``."""
    ends = list(accumulate(map(len, tokens), initial=0))  # summed in C: no Python step per token
    if ends[-1] + len(tokens) - 1 == len(text):  # one whitespace character between tokens, none around them
        return list(map(add, ends, range(len(tokens))))
    return [m.start() for m in _TOKEN.finditer(text)]


def _add(piece: list[tuple[int, int, int]], spans: list[_Span]) -> None:
    """Trim a piece to a noun phrase (no leading filler, no trailing participle/adjective) and keep it."""
    begin, end = 0, len(piece)
    while begin < end and piece[begin][2] & _FILLER:
        begin += 1
    while end > begin and piece[end - 1][2] & _TRAILING:
        end -= 1
    if end - begin > MAX_WORDS:  # keep the head noun and its nearest modifiers
        begin = end - MAX_WORDS
        while begin < end - 1 and piece[begin][2] & _FILLER:
            begin += 1
    if end > begin:
        spans.append((piece[begin][0], piece[end - 1][1]))


def _add_run(run: list[tuple[int, int, int]], spans: list[_Span]) -> None:
    """Cut a run of content words where a participle follows a noun ("model trained on": a verb)."""
    if len(run) == 1:  # the usual case, inlined: `_add` of one word
        start, stop, flags = run[0]
        if not flags & _DROPPED_ALONE:
            spans.append((start, stop))
        return
    cuts = 0
    for item in run:
        cuts |= item[2]
    if not cuts & _CUTS:
        _add(run, spans)
        return
    piece: list[tuple[int, int, int]] = []
    last = len(run) - 1
    for index, item in enumerate(run):
        if piece and item[2] & _PARTICIPLE and not piece[-1][2] & _TRAILING:
            _add(piece, spans)
            piece = []
            continue  # the verb itself belongs to no phrase
        piece.append(item)
        # A plural noun inside a lower-case run ends its phrase: "experts classification",
        # "nodes compete", "compounds occurring": what follows is a verb or a new phrase.
        if index < last and item[2] & _PLURAL and run[index + 1][2] & _LOWER:
            _add(piece, spans)
            piece = []
    if piece:
        _add(piece, spans)


def _phrase_spans(text: str) -> list[_Span]:
    """``(start, stop)`` of every candidate phrase in ``text``, in text order (see ``candidate_phrases``)."""
    return [(begin + start, begin + stop) for begin, phrases in _stretches(text) for start, stop, _, _ in phrases]


# A run of content words never crosses a token made of boundaries only (`the`, `of`, `(e.g.,`),
# so a text falls apart into stretches: maximal sequences of tokens that each hold a content word.
# A stretch's phrases depend on nothing but its own characters and on whether a `to` came right
# before it (`to recover`: a verb), and stretches recur across abstracts (`graph neural
# networks`, `large language models (LLMs)`), so each distinct stretch is chunked once.
# The stretches are found in a copy of the text where each token is replaced by its code, as
# many times as it has characters (`the model` -> `sss www`), so one regex pass over the copy
# finds them at their offsets in the text: no Python step per word.
_SKIP, _SKIP_TO, _HOLDS = "s", "t", "w"  # a token of boundaries only (the last one `to`), or with a content word
# (A literal first lets the regex engine skip ahead fast; character classes match in one step.)
_STRETCH = re.compile(rf"{_HOLDS}(?:[{_HOLDS}\s]*{_HOLDS})?")
# (start, stop, surface, mention key (see _mention_key)) of each phrase, relative to the stretch
_StretchPhrases = tuple[tuple[int, int, str, str], ...]


class _TokenCodes(dict):
    """token -> its code repeated to its length, worked out from its description on first sight."""

    def __missing__(self, token: str) -> str:
        description = _FLAGS.get(token) or _describe(token)
        if not all(flags & _BOUNDARY for _, _, flags in description):
            code = _HOLDS
        else:
            code = _SKIP_TO if description[-1][2] & _TO else _SKIP
        if len(self) > 200_000:
            self.clear()  # bound the memory an endless stream of new tokens can take
        codes = self[token] = code * len(token)
        return codes


_CODES = _TokenCodes()
# stretch -> its phrases; one table for stretches right after `to`, one for all others
_STRETCHES: tuple[dict[str, _StretchPhrases], dict[str, _StretchPhrases]] = ({}, {})


def _stretches(text: str) -> list[tuple[int, _StretchPhrases]]:
    """``(start, phrases)`` of each stretch of ``text`` that has phrases, in text order."""
    masked = _mask(text)
    codes = " ".join(map(_CODES.__getitem__, masked.split()))
    single_spaced = len(codes) == len(masked)
    if not single_spaced:  # other whitespace than single spaces between tokens: keep it
        codes = _TOKEN.sub(lambda token: _CODES[token.group()], masked)
    found = []
    for match in _STRETCH.finditer(codes):
        begin, end = match.span()
        stretch = masked[begin:end]
        if single_spaced:  # the token before ends two characters back
            after_to = begin > 0 and codes[begin - 2] == _SKIP_TO
        else:
            after_to = codes[:begin].rstrip()[-1:] == _SKIP_TO
        phrases = _STRETCHES[after_to].get(stretch)
        if phrases is None:
            phrases = _stretch_phrases(stretch, after_to)
        if phrases:
            found.append((begin, phrases))
    return found


def _stretch_phrases(stretch: str, follows_to: bool) -> _StretchPhrases:
    """The phrases of one stretch, chunked word by word, kept for the next time it occurs."""
    tokens = stretch.split()
    after_to = follows_to
    describe = _FLAGS.get
    spans: list[_Span] = []
    run: list[tuple[int, int, int]] = []  # the content words of the current run
    for token, at in zip(tokens, _token_starts(stretch, tokens)):
        for start, stop, flags in describe(token) or _describe(token):
            if flags & _BOUNDARY or (after_to and flags & _BARE):  # `to recover`: a verb
                if run:
                    _add_run(run, spans)
                    run = []
                after_to = flags & _TO
            else:
                run.append((at + start, at + stop, flags))
                after_to = False
    if run:
        _add_run(run, spans)
    phrases = tuple((start, stop, surface, _mention_key_of(surface)) for start, stop in spans
                    for surface in (stretch[start:stop],))
    table = _STRETCHES[follows_to]
    if len(table) > 100_000:
        table.clear()  # bound the memory an endless stream of new stretches can take
    table[stretch] = phrases
    return phrases


def candidate_phrases(text: str) -> list["Phrase"]:
    """Noun-phrase-like chunks of 1-4 words, in text order, each an exact slice of ``text``.

    Chunks are runs of words separated by whitespace only, cut at function words, common verbs,
    adverbs, numbers and any punctuation; longer runs keep their last four words. Math
    (``$...$``), URLs, LaTeX commands, HTML tags and Markdown emphasis never enter a phrase.
    """
    phrases: list[Phrase] = []
    for start, stop in _phrase_spans(text):
        surface = text[start:stop]
        key = concept_key(surface)
        if key:
            phrases.append(_new_phrase(Phrase, (surface, start, stop, key)))
    return phrases


_MENTION_KEYS: dict[str, str] = {}


def _mention_key_of(surface: str) -> str:
    """The concept key under which ``surface`` is a mention, or "" (cached)."""
    known = _MENTION_KEYS.get(surface)
    return _mention_key(surface) if known is None else known


def _mention_key(surface: str) -> str:
    key = concept_key(surface)
    if key and is_generic(surface):
        key = ""
    if len(_MENTION_KEYS) > 200_000:
        _MENTION_KEYS.clear()  # bound the memory an endless stream of new phrases can take
    _MENTION_KEYS[surface] = key
    return key
