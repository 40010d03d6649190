"""`vaultsync init`: write a commented ``<vault>/.vaultsync/vaultsync.toml`` with every option.

Each option is written with its default value (options without a default are written
commented out), so the file, read as it is, changes nothing; the user edits what they want.
An existing file is kept unless ``--force``.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

# (section or None for top level, key, default or None when there is none, help).
# Keep in step with config.TOP_LEVEL_KEYS and the options each default plugin reads.
OPTIONS: tuple[tuple[str | None, str, Any, str], ...] = (
    (None, "format", "obsidian", "Output format: obsidian, logseq or jsonl "
                                 "(`vaultsync export --help` lists the installed ones)."),
    (None, "seeds", None, "Seeds folder, relative to this vault (e.g. \"../seeds\")."),
    (None, "vault", None, "Output folder, relative to this vault (normally the vault itself)."),
    (None, "disabled_plugins", [], "Plugins not to load, by name (`vaultsync plugins` lists them)."),
    ("acronyms", "enabled", True, "Find acronyms the abstract defines: \"Mixture-of-Experts (MoE)\"."),
    ("vocabulary", "enabled", True, "Find concepts of the built-in vocabulary and of your concept notes."),
    ("vocabulary", "extra_file", None, "Another vocabulary file, relative to this vault."),
    ("phrases", "enabled", True, "Find key phrases that several abstracts share."),
    ("digest", "enabled", True, "Record each sync's new papers in \"New papers.md\"."),
    ("digest", "daily", False, "Also append them to today's daily note (folder and date format from "
                               "Obsidian's Daily notes settings; the note is created only when those "
                               "settings exist)."),
)

HEADER = """\
# vaultsync configuration for this vault (written by `vaultsync init`).
# Every option is shown with its default; delete or edit what you like.
# Command-line options override this file; [tool.vaultsync] in a pyproject.toml is read first.
# Each [section] configures the plugin of that name; `enabled = false` turns a plugin off.
"""


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def config_text() -> str:
    """The commented ``vaultsync.toml`` with every option at its default."""
    lines = [HEADER]
    section: str | None = None
    for name, key, default, help_text in OPTIONS:
        if name != section:
            section = name
            lines.append(f"\n[{name}]")
        lines.append(f"# {help_text}")
        lines.append(f"{key} = {_toml_value(default)}" if default is not None else f'# {key} = ""')
    lines.append("\n# Plugins you install read their own section, e.g. [code_links] or [datasets].")
    return "\n".join(lines) + "\n"


def defaults() -> dict[str, Any]:
    """The options ``config_text`` sets, as tomllib reads them (``{key: v, section: {key: v}}``)."""
    data: dict[str, Any] = {}
    for name, key, default, _ in OPTIONS:
        if default is not None:
            (data.setdefault(name, {}) if name else data)[key] = default
    return data


def init_command(
    vault: Annotated[Path, typer.Argument(help="The vault to configure (created if missing).")] = Path("example_vault"),
    force: Annotated[bool, typer.Option("--force", help="Replace an existing vaultsync.toml.")] = False,
) -> None:
    """Write VAULT/.vaultsync/vaultsync.toml with every option and its default."""
    from .common import fail
    from ..config import CONFIG_DIR, CONFIG_FILE
    from ..errors import VaultsyncError
    from ..write import write_note_atomically

    target = vault / CONFIG_DIR / CONFIG_FILE
    if target.exists() and not force:
        raise fail(VaultsyncError(f"{target} already exists; edit it, or pass --force to replace it"))
    try:
        write_note_atomically(target.resolve(), config_text())
    except VaultsyncError as error:
        raise fail(error)
    except OSError as error:
        raise fail(VaultsyncError(f"{target}: could not be written ({error.strerror or error})"))
    where = shlex.quote(str(vault))
    typer.echo(f"Wrote {target}. Next, with your seeds folder for SEEDS:")
    typer.echo(f"  vaultsync export SEEDS {where}    # write the vault once")
    typer.echo(f"  vaultsync watch SEEDS {where}     # then keep it up to date as seeds change")
