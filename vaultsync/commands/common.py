"""Options and output shared by the commands."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from ..errors import VaultsyncError
from ..records import SyncReport

SeedsArgument = Annotated[Optional[Path], typer.Argument(
    help="Folder of seed files (one abstract per paragraph). [default: the config's `seeds`, else seeds]",
    show_default=False)]
VaultArgument = Annotated[Path, typer.Argument(help="The Obsidian vault to write into (created if missing).")]
PluginsDirOption = Annotated[Optional[List[Path]], typer.Option(
    "--plugins-dir", help="Also load every *.py plugin in this folder (repeatable).")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors.")]
VerboseOption = Annotated[bool, typer.Option("--verbose", "-v", help="Print debug logs and full tracebacks.")]

MAX_PROBLEMS_SHOWN = 20


def setup_logging(verbose: bool, quiet: bool) -> None:
    """One stderr handler; --verbose switches every vaultsync logger to DEBUG."""
    level = logging.DEBUG if verbose else logging.ERROR if quiet else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr, force=True)


def fail(error: VaultsyncError) -> typer.Exit:
    """Print a user error on one line (no traceback) and give the exit to raise."""
    typer.echo(f"vaultsync: {error}", err=True)
    return typer.Exit(1)


def load_session_setup(seeds: Path, vault: Path, plugins_dir: list[Path] | None, verbose: bool):
    """The plugin manager and config for a run, and one line per plugin that failed to load."""
    plugins, config = plan_session(vault, plugins_dir)
    pm = plugins.manager()
    return pm, config, list(pm.load_problems)


def plan_session(vault: Path, plugins_dir: list[Path] | None):
    """The plugins of a run, planned but not imported (``LazyPlugins``), and the config."""
    from ..config import load_config
    from ..plugins import LazyPlugins

    config = load_config(vault=vault, project_dir=Path.cwd())
    return LazyPlugins(tuple(plugins_dir or ()), vault, config), config.as_dict()


def print_problems(problems: list[str], verbose: bool) -> None:
    """One line per problem on stderr; a long list is cut unless --verbose."""
    shown = problems if verbose else problems[:MAX_PROBLEMS_SHOWN]
    for problem in shown:
        typer.echo(f"vaultsync: {problem}", err=True)
    if len(problems) > len(shown):
        typer.echo(f"vaultsync: … and {len(problems) - len(shown)} more (run with --verbose to see all)", err=True)


def counted(number: int, noun: str) -> str:
    """`1 conflict`, `2 conflicts`, `0 conflicts`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def summary_line(report: SyncReport, vault: Path) -> str:
    parts = [counted(report.papers, "paper"), counted(report.concepts, "concept"),
             f"{len(report.created)} created", f"{len(report.updated)} updated", f"{report.unchanged} unchanged"]
    if report.removed:
        parts.append(f"{len(report.removed)} marked removed")
    parts.append(counted(len(report.conflicts), "conflict"))
    parts.append(counted(len(report.warnings) + len(report.errors), "problem"))
    line = f"{vault}: " + " · ".join(parts)
    if report.conflicts:
        line += "\n" + "\n".join(f"  conflict: {c}" for c in report.conflicts)
    return line


def with_digest_option(plugin_config: dict, digest: str | None) -> dict:
    """Apply `--digest daily|none` over the config's `[digest] daily`."""
    from ..errors import VaultsyncError

    if digest is None:
        return plugin_config
    if digest not in ("daily", "none"):
        raise VaultsyncError(f"--digest takes 'daily' or 'none', not {digest!r}")
    sections = dict(plugin_config)
    sections["digest"] = {**sections.get("digest", {}), "daily": digest == "daily"}
    return sections
