"""The whole job as one sentence: read → extract → link → render → write.

``export`` is what `vaultsync export` runs once and what the watcher runs on every change.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

import pluggy

from .extract import extract_all
from .link import LinkOptions, link
from .plugins import call_safely
from .read import read_seeds
from .records import ExtractContext, SyncReport, frozen_mapping
from .render import render
from .sync import VaultSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExportOptions:
    """How to export; the CLI fills it from options and the config file."""

    format: str = "obsidian"
    dry_run: bool = False
    recreate_deleted: bool = False
    config: Mapping[str, Mapping[str, Any]] = field(default_factory=frozen_mapping)
    progress: Callable[[str], None] | None = None  # told the name of each stage as it starts


def export(seeds_dir: Path, vault_dir: Path, pm: pluggy.PluginManager,
           options: ExportOptions = ExportOptions()) -> SyncReport:
    """Read every seed in ``seeds_dir`` and bring ``vault_dir`` up to date with it."""
    step = options.progress or (lambda stage: log.debug("stage: %s", stage))
    step("read")
    read = read_seeds(seeds_dir, pm)
    abstracts = [abstract for seed in read.seeds for abstract in seed.abstracts]
    with VaultSession(vault_dir, recreate_deleted=options.recreate_deleted) as session:
        step("extract")
        context = ExtractContext(vault=str(vault_dir.resolve()), config=options.config)
        extracted = extract_all(abstracts, pm, context)
        step("link")
        existing = dict(session.existing_names())
        for new_id, old_id in session.match_edited(
                [(a.id, a.seed, a.paragraph, a.text) for a in abstracts]).items():
            if old_id in existing:
                existing[new_id] = existing[old_id]
        model = link(abstracts, extracted, LinkOptions(existing, frozenset(session.deleted_ids())))
        step("render")
        files = render(model, options.format, pm, {"config": options.config})
        step("write")
        report = session.apply(files, seeds=[seed.path for seed in read.seeds], dry_run=options.dry_run)
    problems = tuple(read.problems) + tuple(p for item in extracted for p in item.problems)
    # a problem with the input is an error (exit status 1) even though the run went on
    report = replace(report, papers=len(model.papers), concepts=len(model.concepts),
                     warnings=report.warnings + problems,
                     errors=report.errors + tuple(read.failed),
                     seeds=tuple(seed.path for seed in read.seeds))
    if not options.dry_run:
        outcome = call_safely(pm, "vaultsync_sync_finished", report=report, vault=vault_dir)
        report = replace(report, warnings=report.warnings + tuple(str(f) for f in outcome.failures))
    return report
