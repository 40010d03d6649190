"""`vaultsync plugins`: list the loaded plugins and the hooks each implements.

``plugins_command`` is a typer command (registered by ``vaultsync/cli.py`` as ``plugins``).
It lists every plugin, built-ins included (marked ``built-in`` in the text output). ``--json``
prints ``[{"name", "hooks", "version"}, ...]`` on stdout; plugins that failed to load are
printed as one line each on stderr, and the exit status is then 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import PluginsDirOption, fail


def plugins_command(
    json_output: Annotated[bool, typer.Option("--json", help="Print a JSON list of plugins.")] = False,
    plugins_dir: PluginsDirOption = None,
    vault: Annotated[Optional[Path], typer.Option(
        "--vault", help="Also load this vault's own plugins (VAULT/.vaultsync/plugins/).")] = None,
) -> None:
    """List the loaded plugins and the hooks each implements."""
    from ..config import load_config
    from ..errors import VaultsyncError
    from ..plugins import get_plugin_manager, list_plugins, plugin_origin

    try:
        config = load_config(vault=vault, project_dir=Path.cwd())
    except VaultsyncError as error:
        raise fail(error)
    pm = get_plugin_manager(plugins_dirs=tuple(plugins_dir or ()), vault=vault, config=config)
    plugins = list_plugins(pm)
    if json_output:
        typer.echo(json.dumps(plugins, indent=2))
    else:
        typer.echo(format_plugins(plugins, {p["name"]: plugin_origin(pm, p["name"]) for p in plugins}))
    for problem in [*config.warnings, *pm.load_problems]:
        typer.echo(f"vaultsync: {problem}", err=True)
    if pm.load_problems:
        raise typer.Exit(1)


def format_plugins(plugins: list[dict], origins: dict[str, str]) -> str:
    """One block per plugin: ``name version (origin)`` then its hooks, indented."""
    lines = []
    for plugin in plugins:
        version = f" {plugin['version']}" if plugin["version"] else ""
        lines.append(f"{plugin['name']}{version} ({origins.get(plugin['name'], 'registered')})")
        lines.extend(f"  {hook}" for hook in plugin["hooks"])
    return "\n".join(lines) if lines else "no plugins loaded"
