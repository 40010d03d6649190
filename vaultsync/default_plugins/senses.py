"""Senses: a vocabulary entry found by an ambiguous spelling links only where the text carries
its sense.

A spelling is ambiguous when it is one word: a short acronym (`GP` is Gaussian processes in one
paper and a graph positional encoding in another) or a word the entry lists with sense cues
(`calibration` of a model's confidence, not of a camera). Such a mention counts only where the
abstract holds one of the entry's cue words (``? cue, cue`` in the vocabulary file) near it
(``SENSE_WINDOW`` characters either side: a conformal *calibration set* in an abstract that
talks of confidence elsewhere is still no model calibration), or, for
an acronym, a telling word of the entry's own names or of its broader concepts; or where the
abstract defines the acronym itself (the acronym extractor then says what it means). A name of
several words (`confidence calibration`) carries its own sense, unless the entry lists cues:
then only its canonical name does (`multi-turn interactions` with tools is not a dialogue).
"""

from __future__ import annotations

import re
from typing import Iterable, Protocol, Sequence

SENSE_WINDOW = 200  # characters either side of a mention where its sense must show (about a sentence)
SHORT_ACRONYM_LETTERS = 2  # (three-letter acronyms: EEG, ODE, LLM mean one thing; an ambiguous one lists cues)
# words too common in ML abstracts to tell one sense from another
_UNTELLING = frozenset("""
model models modeling learning network networks method methods data large based system systems process
processes theory analysis algorithm algorithms approach approaches framework task tasks neural deep
machine training function functions problem problems representation representations scale multi
""".split())
_WORD = re.compile(r"[a-z][a-z0-9-]+")


class _Entry(Protocol):
    name: str
    aliases: tuple[str, ...]
    broader: tuple[str, ...]
    cues: tuple[str, ...]


class _Match(Protocol):
    entry: _Entry
    surface: str


def _is_short_acronym(surface: str) -> bool:
    core = surface.strip()
    core = core[:-1] if core.endswith("s") and sum(c.isupper() for c in core) >= 2 else core
    return " " not in core and len(core) <= SHORT_ACRONYM_LETTERS + 1 and sum(
        c.isupper() for c in core) >= 2 and sum(c.isalpha() for c in core) <= SHORT_ACRONYM_LETTERS


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 4 else word


def _cues(entry: _Entry) -> set[str]:
    """The entry's cues, a word stemmed as the text's words are (`pairs` meets `pair`, and
    `autonomous` is not read as a plural), a phrase as written."""
    return {cue if " " in cue else _stem(cue) for cue in entry.cues}


def _telling_words(entry: _Entry) -> set[str]:
    words = _cues(entry)
    for name in (entry.name, *entry.aliases, *entry.broader):
        if sum(c.isupper() for c in name) >= 2 and " " not in name:
            continue  # another acronym tells nothing
        words.update(_stem(w) for w in _WORD.findall(name.casefold()) if len(w) >= 4 and w not in _UNTELLING)
    return words


def _defines(text: str, acronym: str) -> bool:
    core = acronym.rstrip("s") if acronym.endswith("s") and sum(c.isupper() for c in acronym) >= 2 else acronym
    return re.search(rf"\((?:{re.escape(core)}s?)\)|\b{re.escape(core)}s? \(", text) is not None


_MODIFIER_SUFFIXES = frozenset("""
based driven guided aware style like powered enhanced specific level scale wise free inspired augmented
assisted informed conditioned generated related oriented centric friendly tuned trained only
""".split())


def _inside_a_longer_name(match: _Match, text: str) -> bool:
    """Is the match part of a longer name with another meaning: a hyphenated coinage (`GAN` in
    `GAN-M`), or a capitalised name one word longer (`Flamingo` in `Audio Flamingo 2`)?"""
    start, end = getattr(match, "start", None), getattr(match, "end", None)
    if start is None or end is None:
        return False
    if end + 1 < len(text) and text[end] == "-" and text[end + 1].isalnum():
        suffix = re.match(r"[\w]+", text[end + 1:end + 30])
        if suffix and suffix.group().casefold() not in _MODIFIER_SUFFIXES:
            return True
    if start > 2 and text[start - 1] == "-" and text[start - 3:start - 1].isalpha() and match.surface[:1].islower() \
            and not text.endswith("-to", 0, start - 1):  # (`image-to-video diffusion models` are video diffusion models)
        return True  # a compound's second part: `semi-structured pruning`, `rectified-flow-based models`
    if start > 1 and text[start - 1] == "-" and match.surface[:1].isupper():
        prefix = text[:start - 1].rsplit(" ", 1)[-1]
        # `Audio-Flamingo` is another model; `Q-CLIP`, `MSN-PINN` and `multi-GAN` are kinds of it
        return len(prefix) >= 3 and prefix.isalpha() and prefix[0].isupper() and prefix[1:].islower()
    if " " not in match.surface and match.surface[:1].isupper() and start > 2 and text[start - 1] == " ":
        before = text[:start - 1].rsplit(" ", 1)[-1]
        previous_char = text[start - 2 - len(before)] if start - 2 - len(before) >= 0 else "."
        return (before[:1].isupper() and before.isalpha() and previous_char not in ".!?"
                and not before.isupper() and not _is_short_acronym(before))
    return False


def _in_another_sense(match: _Match, text: str) -> bool:
    """Is the match part of a phrase in which its name means something else (the entry's
    ``others``: `calibration` in a conformal `calibration set`), or in an abstract holding a phrase
    of ``others`` with no word of the entry's names, which marks another field's sense of the name
    (`Knowledge Conflicts ! task vector`: conflicts between task vectors in model merging)?"""
    others = getattr(match.entry, "others", ())  # (written with spaces: `long-term` reads `long term`)
    start, end = getattr(match, "start", None), getattr(match, "end", None)
    if not others or start is None or end is None:
        return False
    own = {w for name in match.entry.names for w in _SPLIT.split(name.casefold()) if w}
    for phrase in others:
        if not own & set(phrase.split()):  # no word of a name: the abstract is in another field
            if re.search(rf"\b{re.escape(phrase)}", text.casefold().replace("-", " ")):
                return True
            continue
        near = text[max(0, start - len(phrase)):end + len(phrase)].casefold().replace("-", " ")
        offset = max(0, start - len(phrase))
        at = near.find(phrase)
        while at >= 0:
            if offset + at <= start and end <= offset + at + len(phrase):
                return True
            at = near.find(phrase, at + 1)
    return False


def _without_redefined_acronyms(matches: list[_Match], text: str) -> list[_Match]:
    """``matches`` without an acronym the abstract defines as something else: `distributional
    reinforcement learning (DRL)` is not the entry whose acronym DRL is (Deep Reinforcement
    Learning). Where the acronym follows in parentheses, the words before it that start with its
    first letter (`distributional`) must be words of the entry's names; if none is, the abstract
    means something else by it."""
    foreign = set()
    for match in matches:
        surface = match.surface
        if (match.entry.name, surface) in foreign or not _is_acronym(surface) or f"({surface})" not in text:
            continue
        letters = sum(c.isupper() for c in surface)
        own = {w[:4] for name in match.entry.names for w in _SPLIT.split(name.casefold()) if w}
        for at in _finditer(text, f"({surface})"):
            words = [w for w in _SPLIT.split(text[max(0, at - 120):at].casefold()) if w][-(letters + 2):]
            firsts = [w for w in words if w[0] == surface[0].casefold()]
            if firsts and not any(w[:4] in own for w in firsts):
                foreign.add((match.entry.name, surface))
                break
    return [m for m in matches if (m.entry.name, m.surface) not in foreign] if foreign else matches


_SPLIT = re.compile(r"[^a-z0-9]+")


def _is_acronym(surface: str) -> bool:
    core = surface[:-1] if surface.endswith("s") else surface
    return " " not in core and len(core) >= 2 and sum(c.isupper() for c in core) >= 2


def _finditer(text: str, needle: str) -> Iterable[int]:
    at = text.find(needle)
    while at >= 0:
        yield at
        at = text.find(needle, at + 1)


def in_sense(matches: Sequence[_Match], text: str) -> list[_Match]:
    """``matches`` without those whose entry was found only by an ambiguous spelling in a text
    that does not carry the entry's sense, and without matches inside a longer name."""
    matches = [m for m in matches if not _inside_a_longer_name(m, text) and not _in_another_sense(m, text)]
    matches = _without_redefined_acronyms(matches, text)
    by_entry: dict[str, list[_Match]] = {}
    for match in matches:
        by_entry.setdefault(match.entry.name, []).append(match)
    doubtful: set[str] = set()
    for name, found in by_entry.items():
        entry = found[0].entry
        surfaces = {m.surface for m in found}
        if entry.cues:  # a canonical name of several words is unambiguous; other spellings need a cue
            if any(s.casefold() == entry.name.casefold() and " " in s.strip() for s in surfaces):
                continue
        elif any(" " in s.strip() for s in surfaces):
            continue  # a name of several words carries its own sense
        acronyms = [s for s in surfaces if _is_short_acronym(s)]
        if not entry.cues and (len(acronyms) < len(surfaces) or any(_defines(text, a) for a in acronyms)):
            continue
        # the sense shows near the mention: in a window of its sentence's size around each place
        near = " ".join(text[max(0, m.start - SENSE_WINDOW):m.end + SENSE_WINDOW] for m in found
                        if getattr(m, "start", None) is not None) or text
        words = {_stem(w) for w in _WORD.findall(near.casefold())}
        telling = _telling_words(entry) if acronyms or not entry.cues else _cues(entry)
        if entry.cues:
            telling |= _cues(entry)
        if not _carries(words, telling, surfaces) and not any(" " in cue and cue in near.casefold() for cue in telling):
            doubtful.add(name)
    return [m for m in matches if m.entry.name not in doubtful] if doubtful else list(matches)


def _carries(words: Iterable[str], telling: set[str], surfaces: set[str]) -> bool:
    """Does the text hold a telling word (as a word or a word's prefix: `uncertain` in
    `uncertainty`) other than the ambiguous spelling itself?"""
    own = {_stem(s.casefold()) for s in surfaces}
    for word in words:
        if word in own:
            continue
        if word in telling or any(len(cue) >= 5 and word.startswith(cue) for cue in telling):
            return True
    return False
