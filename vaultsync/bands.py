"""Corpus statistics that move in steps, so that one new paper rarely moves another's weights.

Every weight the link stage derives from the corpus (how many papers there are, how many
mention a term or a concept) goes through these bands: a figure changes only when it crosses
a band's edge. A paper's effect on the rest of the vault is then local -- the papers it relates
to, the concepts it mentions -- except at the edges, where every paper that has the term is
worked out again. Both are functions of the figure alone, never of history, so the vault stays
a function of the set of abstracts (issue 22).
"""

from __future__ import annotations

import math

EXACT_SIZES = 16  # a corpus smaller than this is counted exactly (relinking it whole is cheap)


def size_band(papers: int) -> int:
    """The corpus size weights use: exact under ``EXACT_SIZES``, else rounded down to a power
    of the square root of two (16, 22, 32, 45, 64, 90, ...: at 20,000 papers the figure moves
    at 23,170)."""
    if papers < EXACT_SIZES:
        return max(papers, 0)
    return int(2 ** (math.floor(2 * math.log2(papers) + 1e-9) / 2))


def count_band(count: int) -> int:
    """A document frequency as weights use it: rounded down to a power of two (1, 2, 4, 8, ...;
    0 stays 0), so a term's weight moves at most once each time its papers double."""
    return 1 << (count.bit_length() - 1) if count > 0 else 0
