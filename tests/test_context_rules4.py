"""Context rules of issue 17's fourth round, each on sentences written for it."""

from __future__ import annotations

from vaultsync.context import in_context
from vaultsync.records import ConceptMention, Extraction


def vocab(name: str, surface: str, broader: tuple[str, ...] = ()) -> ConceptMention:
    return ConceptMention(name, "vocabulary", (surface,), (), 1.0, broader, True)


def linked(text: str, *mentions: ConceptMention) -> set[str]:
    return {m.name for m in in_context(text, Extraction(mentions)).concepts}


def test_a_capitalised_name_is_not_counted_where_the_text_writes_another_word():
    text = ("We train a verifier with Math-Shepherd labels and evaluate it on MATH. "
            "Math-Shepherd labels are noisy.")
    assert linked(text, vocab("MATH", "MATH", ("Benchmarks",))) == set()
    text = "We build MATH, a benchmark of hard problems. MATH has 12k problems."
    assert linked(text, vocab("MATH", "MATH", ("Benchmarks",))) == {"MATH"}
