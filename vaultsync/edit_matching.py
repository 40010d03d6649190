"""Which new abstract is an edited version of which old one (typo fixed, sentence added).

An abstract's id is a hash of its text, so editing it gives a new id; matching it to the old id
lets the sync engine update the existing note instead of creating a second one.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from rapidfuzz import fuzz

from .state import PaperRecord

MIN_SIMILARITY = 60.0  # rapidfuzz ratio (0-100) on normalised text, same seed, nearby paragraph
MIN_SIMILARITY_ANYWHERE = 85.0  # when neither seed nor position agrees
NEARBY = 3  # paragraphs


def match_papers(new: Sequence[PaperRecord], old: Sequence[PaperRecord],
                 current_seeds: Iterable[str]) -> dict[str, str]:
    """Pair new abstracts with vanished old ones, one to one; return {new id: old id}.

    Texts must be normalised (``records.normalise_text``). A pair counts when the texts are
    similar (ratio >= ``MIN_SIMILARITY``) and either both are in the same seed at paragraphs at
    most ``NEARBY`` apart, or the old seed was not read this run (renamed) and the paragraphs
    are near; any other pair needs ratio >= ``MIN_SIMILARITY_ANYWHERE``. The most similar pairs
    are taken first; ties go to the closer paragraph.
    """
    current_seeds = set(current_seeds)
    pairs: list[tuple[float, int, str, str]] = []
    for n in new:
        for o in old:
            near = abs(n.paragraph - o.paragraph) <= NEARBY
            placed = near and (n.seed == o.seed or o.seed not in current_seeds)
            cutoff = MIN_SIMILARITY if placed else MIN_SIMILARITY_ANYWHERE
            score = fuzz.ratio(n.text, o.text, score_cutoff=cutoff)
            if score:
                pairs.append((score, -abs(n.paragraph - o.paragraph), n.id, o.id))
    pairs.sort(reverse=True)
    out: dict[str, str] = {}
    taken: set[str] = set()
    for _, _, new_id, old_id in pairs:
        if new_id not in out and old_id not in taken:
            out[new_id] = old_id
            taken.add(old_id)
    return out
