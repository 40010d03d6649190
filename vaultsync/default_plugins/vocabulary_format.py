"""The vocabulary's entries, as ``vaultsync/data/vocabulary.txt`` writes them (see ``vocabulary``),
the spellings each name is matched by, and a text folded as the automata read it."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, NamedTuple

from ..canonical import IRREGULAR_PLURALS, concept_key, singular
from ..errors import VaultsyncError


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
    # phrases in which a name of the entry means something else (`! calibration set`): a mention
    # inside one is not this concept
    others: tuple[str, ...] = ()

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
        line, _, others_part = line.partition(" ! ")
        line, _, cues_part = line.partition(" ? ")
        others = tuple(o.strip().casefold() for o in others_part.split(",") if o.strip())
        names_part, _, broader_part = line.partition(">")
        names = [name.strip() for name in names_part.split("|")]
        broader = [name.strip() for name in broader_part.split(";")] if broader_part else []
        cues = tuple(c.strip().casefold() for c in cues_part.split(",") if c.strip())
        if not all(names) or not all(broader) or "<" in line or (cues_part and not cues) \
                or (others_part and not others):
            raise VaultsyncError(
                f"{origin} line {number}: expected `Name | alias > Broader ; Broader ? cue, cue ! other sense`; fix the "
                "empty name or stray separator."
            )
        aliases = tuple(dict.fromkeys(a for a in names[1:] if a.casefold() != names[0].casefold()))
        entries.append(VocabularyEntry(names[0], aliases, tuple(broader), f"{origin} line {number}", cues, others))
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
            one = form if form.endswith("ics") and form not in _IC_NOUNS else singular(form)
            forms.update({one, _plural(one)})
    return tuple(sorted(forms))


# A field named in `-ics` is no plural: `pragmatic`, `robotic`, `genomic` are adjectives (`a
# pragmatic perspective` is not Pragmatics); these `-ics` are plurals of a noun in `-ic`.
_IC_NOUNS = frozenset({"metrics", "heuristics", "statistics", "geodesics", "topics", "characteristics",
                       "critics", "clinics"})


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
    return name.replace("-", " ").replace("\t", " ") if name.isascii() else fold_text(name)


def fold_text(text: str) -> str:
    """``text.translate(_FOLD)``: hyphens, dashes and odd spaces as spaces, ’ as ' (see _FOLD_PAIRS)."""
    for char, replacement in _ASCII_FOLD_PAIRS if text.isascii() else _FOLD_PAIRS:  # (6 pairs, not 17)
        if char in text:
            text = text.replace(char, replacement)
    return text


def prepared_text(text: str) -> tuple[str, list[int] | None, str]:
    """(folded, offsets, lowered): ``text`` as the automata see it (``fold_text``ed, runs of spaces
    collapsed, with ``_collapse_spaces``' offsets or None), and that lower-cased letter by letter."""
    folded = fold_text(text)
    offsets = None
    if "  " in folded:
        folded, offsets = _collapse_spaces(folded)
    lowered = folded.lower()
    if len(lowered) != len(folded):  # a rare character (`İ`) lowers to two; keep it as is
        lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in folded)
    return folded, offsets, lowered


# Not a letter or digit (``str.isalnum``): `\W` is exactly that, plus the underscore.
_NOT_ALNUM = re.compile(r"[\W_]")
_NOT_ALNUM_ASCII = bytes(c if chr(c).isalnum() else 32 for c in range(128)) + b" " * 128


def word_bounded(lowered: str) -> str:
    """``lowered`` with every character that is not a letter or digit as a space, between two
    spaces: a pattern written the same way is found there only as whole words (the characters
    around it are not letters or digits), at one place to the right. Same length plus two."""
    if lowered.isascii():
        return f" {lowered.encode('ascii').translate(_NOT_ALNUM_ASCII).decode('ascii')} "
    return f" {_NOT_ALNUM.sub(' ', lowered)} "


def blocked_mask(text: str, offsets: list[int] | None, size: int) -> bytearray:
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


def merged_entries(entries: Iterable[VocabularyEntry]) -> tuple[VocabularyEntry, ...]:
    merged: list[VocabularyEntry] = []
    owner: dict[str, int] = {}
    for entry in entries:
        keys = [entry_key(name) for name in entry.names]
        hit = next((owner[k] for k in keys if k in owner), None)
        if hit is not None:
            old = merged[hit]
            names = _unique((*entry.names, *old.names))
            entry = VocabularyEntry(names[0], names[1:], entry.broader or old.broader, entry.origin,
                                    entry.cues or old.cues, entry.others or old.others)
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
                            entry.cues, entry.others)
        )
    return tuple(resolved)


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(entry_key(name), name)
    return tuple(seen.values())
