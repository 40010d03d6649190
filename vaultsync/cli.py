"""The `vaultsync` command line: thin typer commands over the core (one module per command)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from . import __version__

app = typer.Typer(
    name="vaultsync",
    help="Turn folders of research abstracts into a living, linked Obsidian vault.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help texts are plain: "[[links]]" must not be read as markup
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"vaultsync {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[Optional[bool], typer.Option(
        "--version", callback=_show_version, is_eager=True, help="Print the version and exit.")] = None,
) -> None:
    """Turn folders of research abstracts into a living, linked Obsidian vault."""


def _register_commands() -> None:
    from .commands import export

    app.command("export")(export.export_command)
    for name in ("watch", "plugins", "doctor", "init"):
        try:
            module = __import__(f"vaultsync.commands.{name}", fromlist=["command"])
        except ModuleNotFoundError as error:
            if error.name != f"vaultsync.commands.{name}":
                raise
            continue
        app.command(name)(getattr(module, f"{name}_command"))


_register_commands()


def main() -> None:
    app()
