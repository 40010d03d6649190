"""Hook specifications: what a vaultsync plugin can implement.

Every built-in behaviour is a default plugin (``vaultsync/default_plugins/``) implementing these
hooks, registered like a user's plugin, so a user plugin can add to or replace any of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pluggy

from .records import (
    Abstract,
    CollectionInfo,
    Concept,
    ConceptMention,
    ExtractContext,
    Extraction,
    OutputFile,
    OutputFormat,
    Paper,
    PaperName,
    Seed,
    SyncReport,
    VaultModel,
)

hookspec = pluggy.HookspecMarker("vaultsync")
hookimpl = pluggy.HookimplMarker("vaultsync")


@hookspec(firstresult=True)
def vaultsync_read_seed(path: Path, relative: str) -> Seed | None:
    """Read one file of the seeds folder into abstracts.

    Called once per file found in the seeds folder (hidden and temporary files are skipped
    before). ``relative`` is the path relative to the seeds folder, with ``/`` separators.
    Return a ``Seed``, or ``None`` when this plugin does not read this kind of file.
    Raise ``VaultsyncError`` with one sentence when the file is yours but unusable.
    Stops at first non-None result.
    """


@hookspec
def vaultsync_extract(abstract: Abstract, context: ExtractContext) -> Extraction | None:
    """Find concepts, paper aliases and metadata in one abstract.

    Called once per abstract, for every extractor; the host merges all results and
    canonicalises concepts across the corpus. Return an ``Extraction``, or ``None`` when this
    extractor found nothing. Must not depend on other abstracts (it may run in a worker process).
    """


@hookspec
def vaultsync_lessons_may_change(before: ExtractContext, after: ExtractContext) -> Callable[[str], bool] | None:
    """Say which abstracts your ``vaultsync_extract`` may read differently under other lessons.

    Called once by a run whose only change since the cached extractions is what the vault
    teaches (``context.taught``: concept notes the user wrote or edited), with the context the
    cache was made under and this run's. Return a test of an abstract's text (True: what you
    extract from it may differ), or ``None`` when the lessons never change what you extract.
    An abstract no extractor's test flags keeps its cached extraction. When any extractor does
    not implement this hook, nothing is kept: every abstract is extracted again.
    """


@hookspec(firstresult=True)
def vaultsync_promote_phrases(mentions: Sequence[tuple[ConceptMention, ...]]) -> set[str] | None:
    """Choose the phrases that become shared concepts.

    Called once by the link stage with every paper's merged concept mentions (of every kind;
    phrases have ``kind == "phrase"``). Return the concept keys (``canonical.concept_key`` of a
    mention's name) of the phrase mentions that deserve a concept note shared across papers,
    or ``None`` to let the next plugin (ultimately the built-in ``phrases``) decide. With no
    answer, no phrase is promoted. Stops at first non-None result.
    """


@hookspec(firstresult=True)
def vaultsync_paper_name(abstract: Abstract, extraction: Extraction) -> PaperName | None:
    """Choose a paper's name (the method it introduces) and title.

    Called once per abstract, after extraction. Return a ``PaperName``, or ``None`` to let the
    next plugin (ultimately the built-in rule) decide. Stops at first non-None result.
    """


@hookspec
def vaultsync_register_formats(register: Callable[[OutputFormat], None]) -> None:
    """Register output formats by calling ``register(format)`` once for each.

    Called once when the plugin manager starts. A format has ``name``, ``description`` and
    ``render(model, context)`` yielding ``OutputFile``s. A format whose class sets
    ``supports_deferred_render = True`` may also yield ``DeferredNote``s when
    ``context.may_defer`` is set. Return value is ignored.
    """


@hookspec(firstresult=True)
def vaultsync_render_note(
    subject: Paper | Concept | CollectionInfo, format: str, model: VaultModel
) -> OutputFile | None:
    """Render one note (a paper, a concept or a collection) for the output format ``format``.

    Called by formats for every note they write. Return an ``OutputFile``, or ``None`` to
    leave this note to the next plugin (ultimately the format's own renderer).
    Stops at first non-None result.
    """


@hookspec
def vaultsync_sync_finished(report: SyncReport, vault: Path, config: Mapping[str, Any]) -> None:
    """React to a finished sync (export, or one round of the watcher).

    Called once after every file is written, with what changed, the vault's path and the
    run's configuration (one section per plugin, command-line options applied). Not called on
    a dry run. Return value is ignored.
    """
