"""Word lists kept as data (``vaultsync/data/*_words.txt``): ``[name]`` starts a list, then words,
any number a line; ``#`` starts a comment."""

from __future__ import annotations

from pathlib import Path


def read_word_lists(path: Path) -> dict[str, frozenset[str]]:
    """The word lists in ``path``, by name."""
    lists: dict[str, set[str]] = {}
    words: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            words = lists.setdefault(line.strip("[]"), set())
        else:
            words.update(line.split())
    return {name: frozenset(found) for name, found in lists.items()}
