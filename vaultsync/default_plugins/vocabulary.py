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

The file format, the spellings and the folding live in ``vocabulary_format``, the automata
(built, and kept in the state folder) in ``vocabulary_automata``; this module matches.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

from ..errors import VaultsyncError
from ..hookspecs import hookimpl
from ..inline_html import without_html
from ..records import Abstract, ConceptMention, ExtractContext, Extraction, TaughtConcept, mention_from_fields
from .senses import in_sense
from .vocabulary_automata import build_automata, cached_automata
from .vocabulary_format import (DATA_FILE, VocabularyEntry, VocabularyMatch, blocked_mask, entry_key, fold_text,
                                merged_entries, parse_vocabulary, prepared_text, word_bounded)


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
        self.entries = merged_entries(entries) if merge else tuple(entries)
        self._by_key: dict[str, VocabularyEntry] | None = None
        self._sensitive, self._insensitive = cached_automata(self.entries)
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
        folded, offsets, lowered = prepared_text(text)
        size = len(folded)
        found = []  # (-length, start, entry index): sorts longest first, then leftmost
        add = found.append
        if self._insensitive is not None:  # one pass finds both kinds (see `build_automata`)
            # the automaton sees only whole words (see `word_bounded`): a hit ending at `end`
            # there is the pattern at lowered[end - length - 1 : end - 1]
            for end, candidates in self._insensitive.iter(word_bounded(lowered)):
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
        taken = blocked_mask(text, offsets, size)  # math and URLs start out taken
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
        folded = fold_text(text)
        lowered = folded.lower()
        if "  " in folded or len(lowered) != len(folded):
            return True  # `match` works on shifted offsets here: let it decide
        sensitive = self._sensitive if self._may_hold_sensitive(folded) else None
        bounded = word_bounded(lowered) if self._insensitive is not None else ""
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
    sensitive, insensitive = build_automata(changed)

    def occurs(text: str) -> bool:
        folded, _, lowered = prepared_text(text)
        if insensitive is not None and next(insensitive.iter(word_bounded(lowered)), None) is not None:
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
