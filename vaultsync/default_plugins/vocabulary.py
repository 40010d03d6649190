"""The curated vocabulary extractor: finds every known research concept an abstract mentions.

The shipped list lives in ``vaultsync/data/vocabulary.txt``, one entry a line::

    # comment (section headers are comments too)
    Canonical Name | alias | another alias > Broader Concept ; Other Broader

Matching runs in one pass per automaton (pyahocorasick), never a regex per concept:

* every name is expanded once, at load, into the spellings that share its meaning — singular
  and plural of the head noun, British and American spelling, `pre-training`/`pretraining` —
  so the text itself is only case-folded and has hyphens turned into spaces (length-preserving,
  so offsets need no map except where runs of spaces were collapsed);
* names written as acronyms (one token with an inner capital and no digit: `LLMs`, `MoE`,
  `NeRF`) match case-sensitively, so `MoE` never fires on "moe"; all other names match
  case-insensitively;
* matches sit on word boundaries, the longest wins where matches overlap, and nothing inside
  ``$...$`` math or a URL counts;
* a one- or two-letter acronym (`OT`, `KD`, `LP`) means different things in different
  subfields, so it counts only where the same text also names its entry another way
  (`optimal transport ... OT`).

The user's vault teaches it: ``Vocabulary.with_taught(context.taught)`` adds the concepts of
the user's own concept notes (``vaultsync.teaching`` decides which); a user's name wins over
the shipped name of the same concept.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import logging
import marshal
import os
import pickle
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, NamedTuple

import ahocorasick

from ..canonical import IRREGULAR_PLURALS, concept_key, singular
from ..errors import VaultsyncError
from ..hookspecs import hookimpl
from ..inline_html import without_html
from ..records import Abstract, ConceptMention, ExtractContext, Extraction, TaughtConcept, mention_from_fields
from .senses import in_sense

log = logging.getLogger(__name__)

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "vocabulary.txt"

# Hyphens and en dashes (`Kullback–Leibler`) join words as a space does; em dashes, slashes and
# underscores are left alone (clause breaks, `a/b`, identifiers) but still end a word.
_FOLD = str.maketrans(  # every mapping is one char to one char
    {c: " " for c in "-\u2010\u2011\u2012\u2013\u2212\uFE63\uFF0D\t\n\r\f\v\u00a0\u2009\u202f"}
    | {"\u2019": "'"}
)
# (char, replacement) pairs of _FOLD. Folding a text by `replace` per pair it holds is some ten
# times faster than `str.translate`, which looks each character up in the table (and past the
# first non-ASCII character raises and clears a KeyError per unmapped one: 100 µs an abstract).
_FOLD_PAIRS = tuple((chr(code), replacement) for code, replacement in _FOLD.items())
_ASCII_FOLD_PAIRS = tuple((char, replacement) for char, replacement in _FOLD_PAIRS if char.isascii())
_SPACE_RUNS = re.compile(r" {2,}")
_MATH_OR_URL = re.compile(r"\$\$.+?\$\$|\$[^$]+\$|https?://\S+|www\.\S+", re.S)
# A head noun inflects before these words: "mixtures of experts", "chains of thought".
_PREPOSITIONS = {"of", "for", "in", "on", "with", "from", "to", "over", "under", "via"}
# `pre-training` is also written `pretraining`; these prefixes close up.
_CLOSING_PREFIXES = re.compile(
    r"\b(pre|post|re|co|non|multi|semi|self|fine|meta|hyper|sub|inter|intra|cross|over|under|"
    r"un|de|bi|tri|uni|anti|auto|micro|macro|mid|mis|out|up|down|few|zero|one)-(?=[a-zA-Z])",
    re.I,
)
_IRREGULAR_PLURALS = IRREGULAR_PLURALS  # `index` -> `indices`, from the concept-key rules
# British <-> American spellings by rule; a rule that misfires only adds a spelling nobody writes.
_SPELLING_RULES = (  # (a substring the rule needs, rule, replacement)
    ("iz", re.compile(r"(?<=\w{3})iz(?=e|ing|ation|ability|able)"), "is"),
    ("is", re.compile(r"(?<=\w{3})is(?=e|ing|ation|ability|able)"), "iz"),
    ("yz", re.compile(r"(?<=\w{2})yz(?=e|ing)"), "ys"),
    ("el", re.compile(r"(?<=[^l]e)l(?=ing$|ed$|er$|ers$)"), "ll"),
    ("ell", re.compile(r"(?<=\w)ell(?=ing$|ed$|er$|ers$)"), "el"),
    ("or", re.compile(r"(?<=\w{2}[^aeiou])or(?=$|s$|al$|ally$|hood$|ing$|ed$)"), "our"),
    ("our", re.compile(r"(?<=\w{3})our(?=$|s$|al$|ally$|hood$|ing$|ed$)"), "or"),
)
_SPELLING_WORDS = {
    "center": "centre", "centre": "center", "defense": "defence", "defence": "defense",
    "gray": "grey", "grey": "gray", "program": "programme", "programme": "program",
    "analog": "analogue", "analogue": "analog", "catalog": "catalogue", "catalogue": "catalog",
    "license": "licence", "licence": "license", "aging": "ageing", "ageing": "aging",
    "tumor": "tumour", "tumour": "tumor", "esophageal": "oesophageal", "fetal": "foetal",
    "anemia": "anaemia", "edema": "oedema", "pediatric": "paediatric", "hemorrhage": "haemorrhage",
}
_MAX_VARIANTS = 64
# Two-letter acronyms that mean one thing across ML, so they count without their long form.
_UNAMBIGUOUS_SHORT = frozenset({"RL"})


@dataclass(frozen=True)
class VocabularyEntry:
    """One concept the vocabulary knows: its canonical name, other names, broader concepts."""

    name: str
    aliases: tuple[str, ...] = ()
    broader: tuple[str, ...] = ()
    origin: str = ""  # where it came from: "vocabulary.txt line 12", "taught by the vault"
    # words that carry this entry's sense (`? uncertainty, confidence`): an ambiguous mention (one
    # word, a short acronym) links only where one of them (or a word of the entry's names) occurs
    cues: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


class VocabularyMatch(NamedTuple):
    """One mention: ``surface`` is exactly ``text[start:end]`` of the matched text.
    (A named tuple: matching builds thousands a second.)"""

    entry: VocabularyEntry
    surface: str
    start: int
    end: int


def parse_vocabulary(text: str, origin: str = "vocabulary.txt") -> list[VocabularyEntry]:
    """Read the vocabulary format. Raise ``VaultsyncError`` naming the line of a malformed entry."""
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        line, _, cues_part = line.partition(" ? ")
        names_part, _, broader_part = line.partition(">")
        names = [name.strip() for name in names_part.split("|")]
        broader = [name.strip() for name in broader_part.split(";")] if broader_part else []
        cues = tuple(c.strip().casefold() for c in cues_part.split(",") if c.strip())
        if not all(names) or not all(broader) or "<" in line or (cues_part and not cues):
            raise VaultsyncError(
                f"{origin} line {number}: expected `Name | alias > Broader ; Broader ? cue, cue`; fix the "
                "empty name or stray separator."
            )
        aliases = tuple(dict.fromkeys(a for a in names[1:] if a.casefold() != names[0].casefold()))
        entries.append(VocabularyEntry(names[0], aliases, tuple(broader), f"{origin} line {number}", cues))
    return entries


@lru_cache(maxsize=65_536)
def is_acronym(surface: str) -> bool:
    """True for names matched case-sensitively: one token, no digit, a capital after the first
    letter (`LLMs`, `MoE`, `NeRF`, `RL`). Such names collide with English words when folded."""
    folded = _fold_name(surface).strip()
    return (
        " " not in folded
        and not any(c.isdigit() for c in folded)
        and any(c.isupper() for c in folded[1:])
    )


@lru_cache(maxsize=65_536)
def entry_key(name: str) -> str:
    """The key under which a name identifies one entry: the acronym as written (`PLM` and `pLM`
    are different concepts), or ``concept_key`` for every other name. `LLMs` keys as `LLM`."""
    if is_acronym(name):
        name = name.strip()
        if name.endswith("s") and sum(c.isupper() for c in name) >= 2:
            return name[:-1]
        return name
    return concept_key(name)


def is_short_acronym(name: str) -> bool:
    """True for an acronym of one or two letters (`OT`, `LMs`): ambiguous across subfields, so
    it is matched only next to another name of its entry (see ``Vocabulary.match``)."""
    if not is_acronym(name):
        return False
    key = entry_key(name)
    return sum(c.isalpha() for c in key) <= 2 and key not in _UNAMBIGUOUS_SHORT


def surface_patterns(surface: str) -> tuple[list[str], bool]:
    """Every spelling ``surface`` is matched by, and whether matching is case-sensitive."""
    if is_acronym(surface):
        word = surface.strip()
        forms = {word, word + "s"}
        if word.endswith("s") and sum(c.isupper() for c in word) >= 2:
            forms.add(word[:-1])  # `LLMs` listed: `LLM` too
        return list(forms), True
    spellings = _closed_spellings(surface) if "-" in surface else (surface,)
    patterns: set[str] = set()
    for spelling in spellings:
        words = _fold_name(spelling).lower().split()
        last = len(words) - 1
        options = [
            _word_forms(word, i == last or words[i + 1] in _PREPOSITIONS) for i, word in enumerate(words)
        ]
        patterns.update(map(" ".join, itertools.islice(itertools.product(*options), _MAX_VARIANTS)))
    return list(patterns), False


def _closed_spellings(surface: str) -> set[str]:
    """`self-supervised pre-training` -> also `self-supervised pretraining`, `selfsupervised pre-training`..."""
    pieces = _CLOSING_PREFIXES.split(surface)  # text, prefix, text, prefix, ..., text
    spellings = {""}
    for index, piece in enumerate(pieces):
        if index % 2 == 0:
            spellings = {s + piece for s in spellings}
        else:
            spellings = {s + piece + joint for s in spellings for joint in ("-", "")}
    return spellings


@lru_cache(maxsize=65_536)
def _word_forms(word: str, inflect: bool) -> tuple[str, ...]:
    forms = {word}
    if word.endswith(("'s", "s'")):
        forms.add(word[:-2] if word.endswith("'s") else word[:-1])  # `Bayes'`, `Jensen's`
    if len(word) >= 5 and word.isalpha():
        forms.add(_SPELLING_WORDS.get(word, word))
        for marker, rule, replacement in _SPELLING_RULES:
            if marker in word:
                forms.update([rule.sub(replacement, form) for form in forms])
    if inflect and len(word) >= 3 and word.isalpha():
        for form in list(forms):
            one = singular(form)
            forms.update({one, _plural(one)})
    return tuple(sorted(forms))


def _plural(word: str) -> str:
    """The plural that ``canonical.singular`` folds back to ``word``, or ``word`` itself."""
    candidates = [_IRREGULAR_PLURALS.get(word, "")]
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        candidates.append(word[:-1] + "ies")
    if word.endswith(("s", "x", "z", "ch", "sh")):
        candidates.append(word + "es")
    candidates.append(word + "s")
    return next((c for c in candidates if c and singular(c) == word), word)


def _fold_name(name: str) -> str:
    """A name with hyphens as spaces, as ``match`` folds text (cheaply for ASCII names)."""
    return name.replace("-", " ").replace("\t", " ") if name.isascii() else _fold(name)


def _fold(text: str) -> str:
    """``text.translate(_FOLD)``: hyphens, dashes and odd spaces as spaces, ’ as ' (see _FOLD_PAIRS)."""
    for char, replacement in _ASCII_FOLD_PAIRS if text.isascii() else _FOLD_PAIRS:  # (6 pairs, not 17)
        if char in text:
            text = text.replace(char, replacement)
    return text


def _prepared(text: str) -> tuple[str, list[int] | None, str]:
    """(folded, offsets, lowered): ``text`` as the automata see it (``_fold``ed, runs of spaces
    collapsed, with ``_collapse_spaces``' offsets or None), and that lower-cased letter by letter."""
    folded = _fold(text)
    offsets = None
    if "  " in folded:
        folded, offsets = _collapse_spaces(folded)
    lowered = folded.lower()
    if len(lowered) != len(folded):  # a rare character (`İ`) lowers to two; keep it as is
        lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in folded)
    return folded, offsets, lowered


class Vocabulary:
    """A set of concepts and the automata that find them in text.

    Build with ``Vocabulary.load()`` (the shipped list, cached), ``Vocabulary.with_taught(taught)``
    (shipped + the concepts the user's vault teaches, cached) or ``Vocabulary(entries)``.
    Later entries win: an entry sharing a name's key (``entry_key``) with an earlier one
    replaces its canonical name and adds its aliases. ``merge=False`` trusts that no two entries
    share a key and every broader name is canonical (the shipped list, checked by its tests),
    which halves the load time.
    """

    def __init__(self, entries: Iterable[VocabularyEntry], merge: bool = True):
        self.entries = _merge(entries) if merge else tuple(entries)
        self._by_key: dict[str, VocabularyEntry] | None = None
        self._sensitive, self._insensitive = _automata(self.entries)
        # The case-sensitive automaton holds only names with a non-ASCII character (`μP`), so a
        # text with none of those characters needs no scan with it (almost every text).
        sensitive_names = self._sensitive.keys() if self._sensitive is not None else ()
        self._sensitive_chars = frozenset(c for name in sensitive_names for c in name if not c.isascii())
        built = [a for a in (self._sensitive, self._insensitive) if a is not None]
        self._longest = max((a.get_stats()["longest_word"] for a in built), default=0)

    def __len__(self) -> int:
        return len(self.entries)

    def entry(self, name: str) -> VocabularyEntry | None:
        """The entry one of whose names has ``name``'s key (see ``entry_key``), or None."""
        if self._by_key is None:  # built on first use: matching never needs it
            self._by_key = {entry_key(n): e for e in self.entries for n in e.names}
        return self._by_key.get(entry_key(name))

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> "Vocabulary":
        """The vocabulary of one file (default: the shipped list), read once per file state."""
        return _load_file(*_file_state(Path(path) if path else DATA_FILE))

    @classmethod
    def with_taught(
        cls, taught: Iterable[TaughtConcept] = (), extra_file: str | os.PathLike[str] | None = None
    ) -> "Vocabulary":
        """Shipped entries, then ``extra_file``'s, then the ``taught`` concepts, which win: a
        taught concept sharing a name with a shipped one renames it and adds its aliases.

        Cached on the (hashable) taught concepts and the files' states, so a call per abstract
        costs a ``stat`` of each file.
        """
        taught = tuple(taught)
        extra = _file_state(Path(extra_file)) if extra_file else None
        if not taught:
            return _with_extra_file(extra) if extra else cls.load()
        return _taught_vocabulary(_file_state(DATA_FILE), extra, taught)

    def _may_hold_sensitive(self, folded: str) -> bool:
        """Whether ``folded`` has a character without which no case-sensitive name occurs."""
        return (
            self._sensitive is not None
            and not folded.isascii()
            and any(c in folded for c in self._sensitive_chars)
        )

    def match(self, text: str) -> list[VocabularyMatch]:
        """Every entry mentioned in ``text``, in text order, longest match first where they
        overlap; ``surface`` is the text exactly as written."""
        folded, offsets, lowered = _prepared(text)
        size = len(folded)
        found = []  # (-length, start, entry index): sorts longest first, then leftmost
        add = found.append
        if self._insensitive is not None:  # one pass finds both kinds (see `_build_automata`)
            # the automaton sees only whole words (see `_word_bounded`): a hit ending at `end`
            # there is the pattern at lowered[end - length - 1 : end - 1]
            for end, candidates in self._insensitive.iter(_word_bounded(lowered)):
                for length, index, short, exact, pattern in candidates:
                    start = end - length - 1
                    if exact is None:
                        if not lowered.startswith(pattern, start):
                            continue  # the same letters around other punctuation (`a/b` for `a b`)
                    elif not folded.startswith(exact, start):  # compared in place: no slice to build
                        continue  # a case-sensitive name written in another case (`Es` for `ES`)
                    add((-length, start, index, short))
        if self._may_hold_sensitive(folded):
            for last, (length, index, short) in self._sensitive.iter(folded):
                start = last - length + 1
                if (start and folded[start - 1].isalnum()) or (last + 1 < size and folded[last + 1].isalnum()):
                    continue  # inside a longer word
                add((-length, start, index, short))
        if not found:
            return []
        found.sort()
        taken = _blocked_mask(text, offsets, size)  # math and URLs start out taken
        kept = []
        for negative_length, start, index, short in found:
            end = start - negative_length
            if 1 in taken[start:end]:
                continue
            taken[start:end] = b"\1" * (end - start)
            kept.append((start, end, index, short))
        if any(short for *_, short in kept):  # `OT` counts only where `optimal transport` is named too
            named = {index for _, _, index, short in kept if not short}
            kept = [k for k in kept if not k[3] or k[2] in named]
        kept.sort()
        entries = self.entries
        if offsets is None:
            return [VocabularyMatch(entries[i], text[s:e], s, e) for s, e, i, _ in kept]
        spans = [(offsets[s], offsets[e - 1] + 1, i) for s, e, i, _ in kept]
        return [VocabularyMatch(entries[i], text[s:e], s, e) for s, e, i in spans]

    def may_match_across(self, text: str, joins: list[int]) -> bool:
        """Whether ``match(text)`` may find a name running across one of the positions
        ``joins`` (``start < join < end``). False only when no pattern occurs across any of
        them at all, whatever its case or the words around it: ``match`` keeps no more than
        that, so it need not run (``across_acronyms`` asks, and almost always hears no)."""
        folded = _fold(text)
        lowered = folded.lower()
        if "  " in folded or len(lowered) != len(folded):
            return True  # `match` works on shifted offsets here: let it decide
        sensitive = self._sensitive if self._may_hold_sensitive(folded) else None
        bounded = _word_bounded(lowered) if self._insensitive is not None else ""
        for join in joins:
            # a pattern across `join` lies within `_longest` characters of it on either side
            low, high = max(0, join - self._longest), join + self._longest
            if self._insensitive is not None:  # lowered[i] is bounded[i + 1]
                for end, candidates in self._insensitive.iter(bounded, low, high + 2):
                    if end - candidates[0][0] - 1 < join <= end - 2:  # candidates share the length
                        return True
            if sensitive is not None:
                for last, (length, _, _) in sensitive.iter(folded, low, high):
                    if last - length + 1 < join <= last:
                        return True
        return False


# Not a letter or digit (``str.isalnum``): `\W` is exactly that, plus the underscore.
_NOT_ALNUM = re.compile(r"[\W_]")
_NOT_ALNUM_ASCII = bytes(c if chr(c).isalnum() else 32 for c in range(128)) + b" " * 128


def _word_bounded(lowered: str) -> str:
    """``lowered`` with every character that is not a letter or digit as a space, between two
    spaces: a pattern written the same way is found there only as whole words (the characters
    around it are not letters or digits), at one place to the right. Same length plus two."""
    if lowered.isascii():
        return f" {lowered.encode('ascii').translate(_NOT_ALNUM_ASCII).decode('ascii')} "
    return f" {_NOT_ALNUM.sub(' ', lowered)} "


def _blocked_mask(text: str, offsets: list[int] | None, size: int) -> bytearray:
    """One byte per char of the folded text: 1 inside ``$...$`` math or a URL, else 0."""
    mask = bytearray(size)
    if "$" not in text and "http" not in text and "www." not in text:
        return mask
    spans = [m.span() for m in _MATH_OR_URL.finditer(text)]
    if offsets is None:
        for first, stop in spans:
            mask[first:stop] = b"\1" * (stop - first)
        return mask
    original = bytearray(len(text))
    for first, stop in spans:
        original[first:stop] = b"\1" * (stop - first)
    for position, index in enumerate(offsets):
        mask[position] = original[index]
    return mask


def _collapse_spaces(folded: str) -> tuple[str, list[int]]:
    """``folded`` with runs of spaces cut to one, and each kept char's index in ``folded``."""
    pieces, offsets, position = [], [], 0
    for run in _SPACE_RUNS.finditer(folded):
        pieces.append(folded[position : run.start() + 1])
        offsets.extend(range(position, run.start() + 1))
        position = run.end()
    pieces.append(folded[position:])
    offsets.extend(range(position, len(folded)))
    return "".join(pieces), offsets


def _merge(entries: Iterable[VocabularyEntry]) -> tuple[VocabularyEntry, ...]:
    merged: list[VocabularyEntry] = []
    owner: dict[str, int] = {}
    for entry in entries:
        keys = [entry_key(name) for name in entry.names]
        hit = next((owner[k] for k in keys if k in owner), None)
        if hit is not None:
            old = merged[hit]
            names = _unique((*entry.names, *old.names))
            entry = VocabularyEntry(names[0], names[1:], entry.broader or old.broader, entry.origin,
                                    entry.cues or old.cues)
            merged[hit] = entry
        else:
            hit = len(merged)
            merged.append(entry)
        owner.update((entry_key(name), hit) for name in entry.names)
    canonical = {key: merged[index].name for key, index in owner.items()}
    resolved = []
    for entry in merged:  # broader names point at canonical names once every entry is known
        broader = _unique(canonical.get(entry_key(b), b) for b in entry.broader)
        resolved.append(
            VocabularyEntry(entry.name, entry.aliases, tuple(b for b in broader if b != entry.name), entry.origin,
                            entry.cues)
        )
    return tuple(resolved)


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(entry_key(name), name)
    return tuple(seen.values())


def _build_automata(entries: tuple[VocabularyEntry, ...]):
    """(case-sensitive automaton, case-insensitive automaton), either None when empty.

    So that matching scans the text once, the insensitive automaton also holds the ASCII
    case-sensitive patterns, lower-cased: a hit maps to candidates ``(length, index, short,
    exact, pattern)``, where ``exact`` is the case-sensitive pattern the text must equal there
    (None for an insensitive one) and ``pattern`` the lower-cased one. Its keys are the patterns
    as ``_word_bounded`` writes them, so it reports only whole-word hits: most raw hits of a
    plain automaton are short patterns inside longer words (`es`, `de`, `ct`), each costing a
    step in Python. Only non-ASCII case-sensitive patterns (lower-casing may change their
    length or depend on context) stay in the case-sensitive automaton of ``(length, index, short)``.
    A pattern added twice keeps its last value, as an automaton's ``add_word`` does.
    """
    patterns_of: tuple[dict[str, tuple[int, int, bool]], dict[str, tuple[int, int, bool]]] = ({}, {})
    for index, entry in enumerate(entries):
        for name in entry.names:
            patterns, is_sensitive = surface_patterns(name)
            target = patterns_of[is_sensitive]
            short = is_short_acronym(name)
            for pattern in patterns:
                # a one- or two-letter lower-case name (a vault alias `ai`) would fire everywhere
                if pattern.strip() and (is_sensitive or len(pattern) > 2 or not pattern.isalpha()):
                    target[pattern] = (len(pattern), index, short)
    sensitive, insensitive = ahocorasick.Automaton(), ahocorasick.Automaton()
    candidates: dict[str, list[tuple[int, int, bool, str | None]]] = {}
    for pattern, value in patterns_of[False].items():
        candidates[pattern] = [(*value, None)]
    for pattern, value in patterns_of[True].items():
        if pattern.isascii():
            candidates.setdefault(pattern.lower(), []).append((*value, pattern))
        else:
            sensitive.add_word(pattern, value)
    # Word-bounded keys: patterns that differ only in punctuation share a key, so each
    # candidate carries its own pattern to be checked against the text.
    bounded: dict[str, list[tuple[int, int, bool, str | None, str]]] = {}
    for pattern, values in candidates.items():
        bounded.setdefault(_word_bounded(pattern), []).extend((*value, pattern) for value in values)
    for key, values in bounded.items():
        insensitive.add_word(key, tuple(values))
    built = []
    for automaton in (sensitive, insensitive):
        if len(automaton):
            automaton.make_automaton()
            built.append(automaton)
        else:
            built.append(None)
    return built


# Building the automata takes a quarter of a second in every process that extracts (each pool
# worker, each `vaultsync export`); loading them built takes a tenth of that. So the automata
# of the last vocabulary built are kept in one file of the state folder, under a key of all
# that made them: the entries' names in order, vaultsync's code files and pyahocorasick's (by
# stat) and Python's version. One file is enough: a vault's vocabulary rarely changes.
AUTOMATA_FILE = "vocabulary.automata"
_DIGEST = 32


def _automata(entries: tuple[VocabularyEntry, ...]):
    """``_build_automata(entries)``, from the state folder's file when it was built for the
    same key; else built and the file written (best effort: a folder that cannot be written
    only costs the build next time)."""
    from ..code_signature import package_signature  # lazy: start-up time
    from ..state import state_dir

    key = hashlib.blake2b(marshal.dumps((
        sys.version, package_signature(), os.stat(ahocorasick.__file__).st_mtime_ns,
        [entry.names for entry in entries])), digest_size=_DIGEST).digest()
    path = state_dir() / AUTOMATA_FILE
    try:
        data = path.read_bytes()
    except OSError:
        data = b""
    # key, then a checksum of the pickle, then the pickle
    body = data[2 * _DIGEST:]
    if data[:_DIGEST] == key and data[_DIGEST:2 * _DIGEST] == hashlib.blake2b(body, digest_size=_DIGEST).digest():
        return pickle.loads(body)
    built = _build_automata(entries)
    body = pickle.dumps(built, pickle.HIGHEST_PROTOCOL)
    temp = path.with_name(f".{AUTOMATA_FILE}.{os.getpid()}.tmp")  # (pool workers may write at once)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_bytes(key + hashlib.blake2b(body, digest_size=_DIGEST).digest() + body)
        os.replace(temp, path)
    except OSError as error:
        log.debug("could not keep the vocabulary's automata in %s: %s", path, error)
        with contextlib.suppress(OSError):
            temp.unlink()
    return built


def _file_state(path: Path) -> tuple[str, int, int]:
    try:
        stat = path.stat()
    except OSError as error:
        raise VaultsyncError(f"{path}: cannot read the vocabulary file ({error.strerror}); fix the path.") from None
    return str(path), stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=16)
def _read_file(path: str, mtime: int, size: int) -> tuple[VocabularyEntry, ...]:
    text = Path(path).read_text(encoding="utf-8")
    return tuple(parse_vocabulary(text, Path(path).name))


@lru_cache(maxsize=16)
def _load_file(path: str, mtime: int, size: int) -> Vocabulary:
    return Vocabulary(_read_file(path, mtime, size), merge=Path(path) != DATA_FILE)


@lru_cache(maxsize=4)
def _with_extra_file(extra: tuple[str, int, int]) -> Vocabulary:
    return Vocabulary([*_read_file(*_file_state(DATA_FILE)), *_read_file(*extra)])


@lru_cache(maxsize=8)
def _taught_vocabulary(
    shipped: tuple[str, int, int], extra: tuple[str, int, int] | None, taught: tuple[TaughtConcept, ...]
) -> Vocabulary:
    entries = [*_read_file(*shipped), *(_read_file(*extra) if extra else ())]
    entries.extend(_taught_entry(concept) for concept in taught if concept.name.strip())
    return Vocabulary(entries)


def _taught_entry(concept: TaughtConcept) -> VocabularyEntry:
    name = concept.name.strip()
    aliases = (a.strip() for a in concept.aliases if a.strip())
    aliases = tuple(dict.fromkeys(a for a in aliases if a.casefold() != name.casefold()))
    broader = tuple(b.strip() for b in concept.broader if b.strip())
    return VocabularyEntry(name, aliases, broader, "taught by the vault")


def mentions(matches: Iterable[VocabularyMatch]) -> tuple[ConceptMention, ...]:
    """One ``ConceptMention`` per entry, in order of first mention; score = number of mentions."""
    grouped: dict[str, tuple[VocabularyEntry, dict[str, None], list[int]]] = {}
    for match in matches:
        entry, surfaces, count = grouped.setdefault(match.entry.name, (match.entry, {}, [0]))
        surfaces[match.surface] = None
        count[0] += 1
    return tuple(
        _mention(entry, tuple(surfaces), float(count[0])) for entry, surfaces, count in grouped.values()
    )


def _mention(entry: VocabularyEntry, surfaces: tuple[str, ...], score: float) -> ConceptMention:
    """``ConceptMention(entry.name, "vocabulary", surfaces, entry.aliases, score, entry.broader,
    canonical=True)``, built without the frozen dataclass's ``__init__`` (``mention_from_fields``)."""
    return mention_from_fields(entry.name, "vocabulary", surfaces, entry.aliases, score, entry.broader, True)


@hookimpl
def vaultsync_extract(abstract: Abstract, context: ExtractContext) -> Extraction | None:
    """Concepts of the curated vocabulary (and those the vault teaches) that the abstract names.

    Options (section ``vocabulary``): ``enabled = false`` turns it off; ``extra_file`` names
    another file in the vocabulary format (relative paths are relative to the vault).
    """
    vocabulary = _vocabulary_of(context)
    if vocabulary is None:
        return None
    text = without_html(abstract.text)
    found = vocabulary.match(text) + across_acronyms(vocabulary, text)
    if found:
        found = in_sense(found, text)
    return Extraction(concepts=mentions(found)) if found else None


def _vocabulary_of(context: ExtractContext) -> Vocabulary | None:
    """The vocabulary ``vaultsync_extract`` matches with (None: turned off)."""
    options = context.options("vocabulary")
    if options.get("enabled", True) is False:
        return None
    extra = options.get("extra_file")
    if extra:
        extra = Path(extra).expanduser()
        if not extra.is_absolute() and context.vault:
            extra = Path(context.vault) / extra
    return Vocabulary.with_taught(context.taught, extra)


@hookimpl
def vaultsync_lessons_may_change(before: ExtractContext, after: ExtractContext) -> Callable[[str], bool]:
    return lessons_may_change(before, after)


def lessons_may_change(before: ExtractContext, after: ExtractContext) -> Callable[[str], bool]:
    """A test of abstracts' texts: False only when ``vaultsync_extract`` finds exactly the same
    in the text under ``after`` as under ``before`` (contexts that differ in what the vault
    taught), so what was extracted before still holds.

    The vocabularies differ in a few entries (a lesson adds one, renames one, gives it aliases
    or broader concepts, and broader names follow renames). An entry the same in both has the
    same patterns in both automata, and entries keep their order, so matching a text differs
    only where a pattern of a changed entry occurs in it: in the text as folded for matching,
    on word boundaries for the case-insensitive patterns and anywhere for the others, or in
    the text without its inline `(ACR)`s (``across_acronyms``)."""
    old, new = _vocabulary_of(before), _vocabulary_of(after)
    if old is None or new is None:
        return (lambda text: True) if old is not new else (lambda text: False)
    changed = tuple(set(old.entries) ^ set(new.entries))
    if not changed:
        return lambda text: False
    sensitive, insensitive = _build_automata(changed)

    def occurs(text: str) -> bool:
        folded, _, lowered = _prepared(text)
        if insensitive is not None and next(insensitive.iter(_word_bounded(lowered)), None) is not None:
            return True
        return sensitive is not None and next(sensitive.iter(folded), None) is not None

    return lambda text: occurs(text) or (" (" in text and occurs(_INLINE_ACRONYM.sub("", text)))


_INLINE_ACRONYM = re.compile(r" \([A-Za-z0-9][\w-]{0,11}\)(?= [^\W\d])")


def across_acronyms(vocabulary: Vocabulary, text: str) -> list[VocabularyMatch]:
    """Names an inline acronym splits: `key-value (KV) cache` is the entry `KV Cache`.

    The text is matched again without its `(ACR)` parentheticals; only matches that spanned one
    count, with the surface as written, parenthetical included."""
    if " (" not in text:
        return []
    cuts = [m.span() for m in _INLINE_ACRONYM.finditer(text)]
    if not cuts:
        return []
    kept, joins, previous = [], [], 0  # joins: where the cut text closes over a parenthetical
    for start, end in cuts:
        kept.append(text[previous:start])
        joins.append((joins[-1] if joins else 0) + start - previous)
        previous = end
    kept.append(text[previous:])
    cut_text = "".join(kept)
    if not vocabulary.may_match_across(cut_text, joins):
        return []  # the usual case, found cheaply
    origin, previous = [], 0  # origin[i]: where character i of the cut text comes from
    for start, end in cuts:
        origin.extend(range(previous, start))
        previous = end
    origin.extend(range(previous, len(text)))
    found = []
    for match in vocabulary.match(cut_text):
        start, end = origin[match.start], origin[match.end - 1] + 1
        if end - start != match.end - match.start:  # it spans a parenthetical
            found.append(VocabularyMatch(match.entry, text[start:end], start, end))
    return found
