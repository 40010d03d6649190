"""`vaultsync doctor`: is this vault healthy, and what should I do about it?

Prints the findings, one block each (or ``--json``: a list of ``{"check", "severity", "path", "message",
"fix"}``) and exits 1 when any error or warning needs action, 0 otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import VerboseOption, counted, fail, setup_logging

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
    """One block per finding, most severe first -- its severity, check and note on the first
    line, then the problem and what to do, wrapped under them (readable at 80 columns) -- then
    one summary line."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    if findings:
        table = Table.grid(padding=(0, 2))
        table.add_column(no_wrap=True)
        table.add_column(overflow="fold")
        for i, f in enumerate(findings):
            if i:
                table.add_row()  # a blank line between findings
            table.add_row(Text(f.severity, style=STYLE[f.severity]),
                          Text.assemble((f.check, "bold"), "  ", f.path, "\n", f.message, "\n",
                                        ("→ " + f.fix, "italic")))
        console.print(table)
    counts = {s: sum(f.severity == s for f in findings) for s in STYLE}
    if counts["error"] or counts["warning"]:
        console.print(f"{vault}: {counted(counts['error'], 'error')}, {counted(counts['warning'], 'warning')}, "
                      f"{counted(counts['info'], 'note')}", markup=False, highlight=False, soft_wrap=True)
    else:
        extra = f" ({counted(counts['info'], 'note')} for your information)" if counts["info"] else ""
        console.print(f"{vault}: healthy{extra}", markup=False, highlight=False, soft_wrap=True)
