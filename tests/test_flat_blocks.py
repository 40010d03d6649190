"""``frontmatter_io._flat_blocks``: frontmatter that ``read_flat`` reads is cut into the same key
blocks as PyYAML's composer cuts it (``_key_blocks``), so a merge keeps the same text."""

from __future__ import annotations

import random

from vaultsync.frontmatter_flat import dump_flat, read_flat
from vaultsync.frontmatter_io import _flat_blocks, _key_blocks, merge_frontmatter

ODD = ["\r", "\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\t", "#", ": ", '"', "\\", "'", "-", " ", "é", "[[x]]"]


def _scalar(rng: random.Random):
    kind = rng.randrange(6)
    if kind == 0:
        return rng.choice([True, False, None, 0, 7, -3, 2.0])
    word = "".join(rng.choice("abc xyz") for _ in range(rng.randint(0, 6)))
    for _ in range(rng.randint(0, 2)):
        spot = rng.randint(0, len(word))
        word = word[:spot] + rng.choice(ODD) + word[spot:]
    return word


def _texts(rng: random.Random):
    """Flat frontmatter as vaultsync writes it, and some of it broken line by line."""
    data = {}
    for n in range(rng.randint(1, 6)):
        key = rng.choice(["title", "type", "tags", "aliases", "vaultsync_id", "status", "a b", f"k{n}"])
        data[key] = [_scalar(rng) for _ in range(rng.randint(0, 3))] if rng.random() < 0.4 else _scalar(rng)
    text = dump_flat(data)
    if text is None:
        return []
    lines = text.split("\n")
    spot = rng.randrange(len(lines))
    broken = "\n".join(lines[:spot] + [lines[spot] + rng.choice(ODD) + "x"] + lines[spot + 1:])
    return [text, text.rstrip("\n"), broken, text.replace("\n", "\r\n"), "# a comment\n" + text]


def test_flat_frontmatter_is_cut_as_pyyaml_cuts_it():
    rng, compared = random.Random(11), 0
    for _ in range(4000):
        for text in _texts(rng):
            if read_flat(text) is not None:
                assert _flat_blocks(text) == _key_blocks(text), text
                compared += 1
    assert compared > 2000


def test_a_merge_keeps_the_users_keys_and_values_text():
    text = 'title: Old\ntags:\n  - a\n  - "b: c"\nmine: "yes"\nvaultsync_id: x1\n'
    assert read_flat(text) is not None
    merged = merge_frontmatter(text, {"title": "New", "vaultsync_id": "x1", "tags": ["a"]}, ["tags"])
    assert merged == 'title: New\ntags:\n  - a\nmine: "yes"\nvaultsync_id: x1\n'
