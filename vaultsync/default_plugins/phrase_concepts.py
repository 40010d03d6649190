"""The plugin registered as ``phrases``: noun phrases found in each abstract (``phrases``), and
the ones that recur across papers promoted to shared concepts by the link stage."""

from __future__ import annotations

from typing import Sequence

from ..hookspecs import hookimpl
from ..records import ConceptMention, ExtractContext
from .phrases import promote_phrases, vaultsync_extract  # noqa: F401 (the extractor, registered with this plugin)


@hookimpl(trylast=True)
def vaultsync_promote_phrases(mentions: Sequence[tuple[ConceptMention, ...]]) -> set[str]:
    return promote_phrases(mentions)  # (it reads the phrase mentions only: no copies to make)


@hookimpl
def vaultsync_lessons_may_change(before: ExtractContext, after: ExtractContext) -> None:
    return None  # phrases are found without the vocabulary: no lesson changes them
