"""Word lists kept as data (``vaultsync/data/*_words.txt``): ``[name]`` starts a list, then words,
any number a line; ``#`` starts a comment."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Iterable

DATA = Path(__file__).resolve().parent / "data"
PHRASE_WORDS = DATA / "phrase_words.txt"


@lru_cache(maxsize=8)  # (each file is read once: several modules read the same lists)
def read_word_lists(path: Path) -> dict[str, frozenset[str]]:
    """The word lists in ``path``, by name (do not change the dict: it is shared)."""
    lists: dict[str, set[str]] = {}
    words: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            words = lists.setdefault(line.strip("[]"), set())
        else:
            words.update(line.split())
    return {name: frozenset(found) for name, found in lists.items()}


@lru_cache(maxsize=1)
def prose_stop_words() -> frozenset[str]:
    """English function words and the verbs of scientific prose in all their forms (`show`,
    `shows`, `showed`, `showing`): where a noun phrase is cut, and what text matching skips."""
    lists = read_word_lists(PHRASE_WORDS)
    return frozenset(lists["function_words"] | _verb_forms(lists["verbs"]) | lists["verb_forms"])


def _verb_forms(bases: Iterable[str]) -> set[str]:
    forms: set[str] = set()
    for base in bases:
        stem = base[:-1] if base.endswith("e") and not base.endswith("ee") else base
        forms.update({base, base + "s", stem + "ed", stem + "ing"})
        if base.endswith("y") and base[-2] not in "aeiou":
            forms.update({base[:-1] + "ies", base[:-1] + "ied"})
    return forms
