"""The session's index keeps its views (names, types, paths) in step with it, in its order."""

from __future__ import annotations

import random

from vaultsync.note_index import NoteIndex
from vaultsync.vault_scan import note_stem


def _fresh(index: dict) -> tuple[list, list, set]:
    return ([(vid, note_stem(path.rpartition("/")[2])) for vid, (path, _) in index.items()],
            [(vid, kind) for vid, (_, kind) in index.items()], {path for path, _ in index.values()})


def test_the_views_follow_every_change_in_the_index_order():
    rng = random.Random(7)
    index = NoteIndex({f"id{i}": (f"Papers/n{i}.md", "paper") for i in range(30)})
    for step in range(3000):
        vid = f"id{rng.randrange(45)}"
        action = rng.random()
        if action < 0.4:  # a note written, moved or renamed (in place if indexed: the order stays)
            index[vid] = (f"{rng.choice(['Papers', 'Concepts'])}/n{rng.randrange(40)}.md", rng.choice(["paper", "concept"]))
        elif action < 0.6 and vid in index:
            del index[vid]
        elif action < 0.8:
            other = f"id{rng.randrange(45)}"
            if vid in index and other not in index:  # an edited abstract's note takes its new id
                index[other] = index.pop(vid)
        if step % rng.choice([1, 7, 50]) == 0:
            names, kinds, paths = index.views()
            assert (list(names.items()), list(kinds.items()), set(paths)) == _fresh(index)
            assert sum(paths.values()) == len(index)


def test_a_change_not_tracked_one_by_one_makes_the_views_again():
    index = NoteIndex({"a": ("Papers/a.md", "paper")})
    index.views()
    index.update({"b": ("Concepts/b.md", "concept")})
    index.setdefault("c", ("Papers/c.md", "paper"))
    names, kinds, paths = index.views()
    assert (list(names.items()), list(kinds.items()), set(paths)) == _fresh(index)
