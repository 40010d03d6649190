"""`vaultsync watch`: catch up once, then keep the vault in sync with the seeds folder, live."""

from __future__ import annotations

import logging
import signal
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import VaultsyncError
from .common import (PluginsDirOption, QuietOption, SeedsArgument, VaultArgument, VerboseOption, fail,
                     print_problems, setup_logging, summary_line)
from .export import _formats_help


def watch_command(
    seeds: SeedsArgument = None,
    vault: VaultArgument = Path("example_vault"),
    format: Annotated[Optional[str], typer.Option("--format", "-f", help=_formats_help())] = None,
    poll: Annotated[bool, typer.Option(
        "--poll", help="Poll the folder instead of using OS events (network drives, WSL, containers).")] = False,
    once: Annotated[bool, typer.Option(
        "--once", help="Catch up once and exit (for cron or CI); exit status as for export.")] = False,
    interval: Annotated[float, typer.Option(
        "--interval", min=0.5, help="Seconds between rescans that catch changes the OS did not report.")] = 30.0,
    plugins_dir: PluginsDirOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Catch up with SEEDS, then turn every new, changed or deleted seed file into vault changes."""
    from ..pipeline import ExportOptions, Exporter
    from ..watch import Stopped, Watcher, WatchOptions
    from .common import load_session_setup

    setup_logging(verbose, quiet)
    logging.getLogger("watchdog").setLevel(logging.INFO)  # its DEBUG is one line per raw event
    say = (lambda line: None) if quiet else typer.echo
    warn = lambda line: typer.echo(line, err=True)  # noqa: E731
    try:
        pm, config, problems = load_session_setup(seeds, vault, plugins_dir, verbose)
        seeds = seeds or Path(config.get("seeds") or "seeds")
        options = ExportOptions(format=format or config.get("format") or "obsidian",
                                config=config.get("plugins", {}))
        print_problems(problems, verbose)
        with Exporter(seeds, vault, pm, options) as exporter:
            watcher = Watcher(exporter, WatchOptions(poll=poll, interval=interval, say=say, warn=warn))
            _stop_on_signals(watcher)
            try:
                if not once:
                    watcher.start()
                report = watcher.catch_up()
                if report is None:  # the catch-up could not run; the line above says why
                    raise typer.Exit(1)
                if once:
                    say(summary_line(report, vault))
                    if report.errors or report.warnings or problems:
                        raise typer.Exit(1)
                    return
                watcher.prepare()  # ready for the first new file before saying so
                say("caught up: " + summary_line(report, vault))
                watcher.serve()
            except Stopped:
                pass
            finally:
                watcher.close()
            say("stopped")
    except VaultsyncError as error:
        raise fail(error)


def _stop_on_signals(watcher) -> None:
    """Ctrl-C / SIGTERM: stop after the run in hand (a second one stops at once)."""

    def handle(signum, frame):  # prints nothing: a write here could interrupt another write
        if watcher.stop.is_set():
            raise KeyboardInterrupt
        watcher.stop.set()

    signal.signal(signal.SIGINT, handle)
    signal.signal(signal.SIGTERM, handle)
