"""`vaultsync export`: bring a vault up to date with the seeds folder, once."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import VaultsyncError
from ..records import SyncReport
from .common import (PluginsDirOption, QuietOption, SeedsArgument, VaultArgument, VerboseOption, fail,
                     plan_session, print_problems, setup_logging, summary_line, with_digest_option)


def _formats_help() -> str:
    text = "Output format."
    if "--help" in sys.argv:  # listing formats loads plugins: only worth it for --help
        try:
            from ..plugins import get_plugin_manager
            from ..render import available_formats

            formats = available_formats(get_plugin_manager())
            text += " Installed: " + "; ".join(f"{n} ({f.description.rstrip('.')})" for n, f in formats.items()) + "."
        except Exception:  # help must never fail
            pass
    return text


def export_command(
    seeds: SeedsArgument = None,
    vault: VaultArgument = Path("example_vault"),
    format: Annotated[Optional[str], typer.Option("--format", "-f", help=_formats_help())] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Write nothing; list each note that would be created, updated or marked removed.")] = False,
    json_output: Annotated[bool, typer.Option(
        "--json", help="Print what was (or, with --dry-run, would be) done as one JSON object.")] = False,
    recreate_deleted: Annotated[bool, typer.Option(
        "--recreate-deleted", help="Write again the notes you deleted from the vault.")] = False,
    digest: Annotated[Optional[str], typer.Option(
        "--digest", help="Also append what's new to today's Obsidian daily note ('daily'), or not ('none').")] = None,
    plugins_dir: PluginsDirOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Read every seed file in SEEDS and write (or update) the vault in VAULT."""
    from ..pipeline import ExportOptions, export

    setup_logging(verbose, quiet)
    plugins = None
    try:
        plugins, config = plan_session(vault, plugins_dir)  # (imported only if the run has work)
        seeds = seeds or Path(config.get("seeds") or "seeds")
        fmt = format or config.get("format") or "obsidian"
        plugin_config = with_digest_option(config.get("plugins", {}), digest)
        with _progress(quiet) as progress:
            options = ExportOptions(format=fmt, dry_run=dry_run, recreate_deleted=recreate_deleted,
                                    config=plugin_config, progress=progress)
            report = export(seeds, vault, plugins, options)  # (the plugins' load problems are its warnings)
    except VaultsyncError as error:
        if plugins is not None and plugins.loaded:
            print_problems(plugins.manager().load_problems, verbose)
        raise fail(error)
    # (a run that imported the plugins reported their problems; one that found nothing to do did not)
    problems = [] if plugins.loaded else list(plugins.problems)
    print_problems(problems + list(report.warnings) + list(report.errors), verbose)
    if json_output:
        typer.echo(json.dumps(report_json(report, vault, dry_run, problems), indent=2, ensure_ascii=False))
    elif not quiet:
        if dry_run:
            for line in change_lines(report):
                typer.echo(line)
        typer.echo(("(dry run) " if dry_run else "") + summary_line(report, vault))
    if report.errors or report.warnings or problems:
        raise typer.Exit(1)


def change_lines(report: SyncReport) -> list[str]:
    """One line per note a run writes: `create  Papers/X.md`, `update  …`, `mark removed  …`.
    (vaultsync never renames a note: one you renamed or moved is updated where it is.)"""
    verbs = (("create", report.created), ("update", report.updated), ("mark removed", report.removed))
    return [f"{verb:<12}  {path}" for verb, paths in verbs for path in paths]


def report_json(report: SyncReport, vault: Path, dry_run: bool, problems: list[str]) -> dict:
    """What ``--json`` prints: the summary's figures and every path, for scripts."""
    return {"vault": str(vault), "dry_run": dry_run, "papers": report.papers, "concepts": report.concepts,
            "created": list(report.created), "updated": list(report.updated), "removed": list(report.removed),
            "unchanged": report.unchanged, "conflicts": list(report.conflicts),
            "problems": problems + list(report.warnings) + list(report.errors)}


class _progress:
    """A progress bar naming the stage, on a terminal only (never in pipes, CI or --quiet).

    It appears only once a run has lasted a moment, so quick exports print just their summary."""

    def __init__(self, quiet: bool):
        self.enabled = not quiet and sys.stderr.isatty()
        self.bar = None

    def __enter__(self):
        if not self.enabled:
            return None
        import time

        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

        self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            console=Console(stderr=True), transient=True)
        task = self.bar.add_task("reading seeds", total=None)
        started = time.monotonic()

        def update(stage: str, done: int | None, total: int | None) -> None:
            if not self.bar.live.is_started and time.monotonic() - started > 0.5:
                self.bar.start()
            label = {"read": "reading seeds", "extract": "extracting concepts", "link": "linking concepts",
                     "render": "rendering notes", "write": "writing notes",
                     "finish": "noting what's new"}.get(stage, stage)
            nonlocal task
            if label != self.bar.tasks[-1].description:  # a new stage: a fresh bar, or a spinner
                self.bar.remove_task(task)
                task = self.bar.add_task(label, total=total, completed=done or 0)
            else:
                self.bar.update(task, completed=done or 0, total=total)

        return update

    def __exit__(self, *exc):
        if self.bar is not None and self.bar.live.is_started:
            self.bar.stop()
        return False
