"""`vaultsync doctor`: is this vault healthy, and what should I do about it?

Prints a table of findings (or ``--json``: a list of ``{"check", "severity", "path", "message",
"fix"}``) and exits 1 when any error or warning needs action, 0 otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import VerboseOption

STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


def doctor_command(
    vault: Annotated[Path, typer.Argument(help="The vault to check.")] = Path("example_vault"),
    json_output: Annotated[bool, typer.Option("--json", help="Print the findings as a JSON list.")] = False,
    seeds: Annotated[Optional[Path], typer.Option(
        "--seeds", help="Also check that every seed file in this folder can be read "
                        "(default: the seeds folder named in the vault's config, if any).")] = None,
    verbose: VerboseOption = False,
) -> None:
    """Check VAULT for broken links and properties, conflicts, hand-edited regions and stale state."""
    from ..cli import fail, setup_logging
    from ..doctor import diagnose, needs_action
    from ..errors import VaultsyncError

    setup_logging(verbose, quiet=False)
    try:
        findings = diagnose(vault, seeds=seeds)
    except VaultsyncError as error:
        raise fail(error)
    if json_output:
        typer.echo(json.dumps([f.as_dict() for f in findings], indent=2, ensure_ascii=False))
    else:
        print_findings(findings, vault)
    if needs_action(findings):
        raise typer.Exit(1)


def print_findings(findings, vault: Path) -> None:
    """A table, most severe first, then one summary line."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    if findings:
        table = Table(show_lines=False, expand=False)
        for column in ("severity", "check", "note", "problem", "what to do"):
            table.add_column(column, overflow="fold")
        for f in findings:
            table.add_row(Text(f.severity, style=STYLE[f.severity]), Text(f.check), Text(f.path),
                          Text(f.message), Text(f.fix))
        console.print(table)
    counts = {s: sum(f.severity == s for f in findings) for s in STYLE}
    if counts["error"] or counts["warning"]:
        console.print(f"{vault}: {counts['error']} error(s), {counts['warning']} warning(s), "
                      f"{counts['info']} note(s)", markup=False, highlight=False)
    else:
        extra = f" ({counts['info']} note(s) for your information)" if counts["info"] else ""
        console.print(f"{vault}: healthy{extra}", markup=False, highlight=False)
