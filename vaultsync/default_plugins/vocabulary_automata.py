"""The vocabulary's Aho-Corasick automata: built from its entries' spellings, and kept built in
the state folder between processes."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import marshal
import os
import pickle
import sys

import ahocorasick

from .vocabulary_format import VocabularyEntry, is_short_acronym, surface_patterns, word_bounded

log = logging.getLogger(__name__)


def build_automata(entries: tuple[VocabularyEntry, ...]):
    """(case-sensitive automaton, case-insensitive automaton), either None when empty.

    So that matching scans the text once, the insensitive automaton also holds the ASCII
    case-sensitive patterns, lower-cased: a hit maps to candidates ``(length, index, short,
    exact, pattern)``, where ``exact`` is the case-sensitive pattern the text must equal there
    (None for an insensitive one) and ``pattern`` the lower-cased one. Its keys are the patterns
    as ``word_bounded`` writes them, so it reports only whole-word hits: most raw hits of a
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
        bounded.setdefault(word_bounded(pattern), []).extend((*value, pattern) for value in values)
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


def cached_automata(entries: tuple[VocabularyEntry, ...]):
    """``build_automata(entries)``, from the state folder's file when it was built for the
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
    built = build_automata(entries)
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
