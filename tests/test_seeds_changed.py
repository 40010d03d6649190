"""``sync_run._seeds_changed``: the seeds whose papers' records a sync writes again are those whose
stored places differ from the papers' and the kept ones' -- as comparing them as sets says."""

from __future__ import annotations

import random
from collections import defaultdict

from vaultsync.state import PaperRecord
from vaultsync.sync_run import _seeds_changed


def as_sets(table, seeds, papers, matched, index):
    """What ``save_state`` compared before ``_seeds_changed``: every seed's places as sets."""
    forgotten = set(seeds) | {p.seed for p in papers}
    current = {p.id for p in papers} | set(matched)
    places = [(i, seed, paragraph) for seed, rows in table.items() if seed in forgotten
              for i, paragraph in rows.items()]
    kept = {(i, seed) for i, seed, _ in places if i not in current and i in index}
    have, wanted = defaultdict(set), defaultdict(set)
    for place in places:
        have[place[1]].add(place)
        if place[:2] in kept:
            wanted[place[1]].add(place)
    for p in papers:
        wanted[p.seed].add((p.id, p.seed, p.paragraph))
    return {seed for seed in forgotten if have.get(seed, set()) != wanted.get(seed, set())}


def test_the_seeds_changed_are_those_whose_places_differ_as_sets():
    rng = random.Random(7)
    for _ in range(3000):
        ids, seed_names = [f"p{n}" for n in range(rng.randint(0, 8))], [f"s{n}.txt" for n in range(4)]
        table = {}
        for seed in rng.sample(seed_names, rng.randint(0, 4)):
            table[seed] = {i: rng.randint(1, 3) for i in rng.sample(ids, rng.randint(0, len(ids)))}
        # the papers: mostly as stored, some moved, new, repeated, or gone
        papers = [PaperRecord(i, seed, paragraph if rng.random() < 0.8 else rng.randint(1, 3), "")
                  for seed, rows in table.items() for i, paragraph in rows.items() if rng.random() < 0.8]
        papers += [PaperRecord(rng.choice(ids), rng.choice(seed_names), rng.randint(1, 3), "")
                   for _ in range(rng.randint(0, 2)) if ids]
        papers += rng.sample(papers, min(len(papers), rng.randint(0, 1)))
        seeds = set(rng.sample(seed_names, rng.randint(0, 4)))
        matched = set(rng.sample(ids, rng.randint(0, min(2, len(ids)))))
        index = dict.fromkeys(rng.sample(ids, rng.randint(0, len(ids))))
        want = as_sets(table, seeds, papers, matched, index)
        current = set(matched)
        assert _seeds_changed(table, seeds, papers, current, index) == want
        assert current == matched | {p.id for p in papers}
