"""Configuration: ``vaultsync.toml`` and ``[tool.vaultsync]``, overridden by the command line.

Where it is read, weakest first (each layer overrides the one before, key by key):

1. ``[tool.vaultsync]`` in ``<project_dir>/pyproject.toml``;
2. ``<vault>/.vaultsync/vaultsync.toml``;
3. command-line options, through :meth:`Config.merged`.

Top-level keys are vaultsync's own options (``TOP_LEVEL_KEYS``); every table is the section of
the plugin with that name (``[vocabulary] enabled = false``, ``[phrases] min_papers = 2``), read
by the plugin through ``ExtractContext.options(name)``. ``enabled = false`` in a section, or the
name in ``disabled_plugins``, blocks that plugin (see ``Config.blocked_plugins``).

Relative ``seeds`` and ``vault`` paths are resolved against the folder the file configures: the
project folder for a pyproject, the vault for ``vaultsync.toml``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from .errors import VaultsyncError
from .records import frozen_mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_DIR = ".vaultsync"
CONFIG_FILE = "vaultsync.toml"
TOP_LEVEL_KEYS = {
    "format": str,  # output format name
    "seeds": str,  # seeds folder
    "vault": str,  # output folder
    "disabled_plugins": list,  # plugin names not to load
}
_PATH_KEYS = ("seeds", "vault")


@dataclass(frozen=True)
class Config:
    """The merged configuration. ``warnings`` are one-line messages for the CLI to print."""

    options: Mapping[str, Any] = field(default_factory=frozen_mapping)
    plugins: Mapping[str, Mapping[str, Any]] = field(default_factory=frozen_mapping)
    sources: tuple[Path, ...] = ()  # files read, weakest first
    warnings: tuple[str, ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """A top-level option (``format``, ``seeds``, ``vault``, ``disabled_plugins``)."""
        return self.options.get(key, default)

    def plugin_options(self, name: str) -> Mapping[str, Any]:
        """The section of plugin ``name`` (read-only; empty when there is none)."""
        return self.plugins.get(name, frozen_mapping())

    @property
    def blocked_plugins(self) -> frozenset[str]:
        """Plugins to block in the plugin manager: ``disabled_plugins`` and ``enabled = false``."""
        disabled = set(self.options.get("disabled_plugins", ()))
        disabled.update(
            name for name, section in self.plugins.items() if section.get("enabled") is False
        )
        return frozenset(disabled)

    def merged(self, overrides: Mapping[str, Any]) -> "Config":
        """This config with command-line ``overrides`` on top; ``None`` values are not given.

        Top-level keys replace options; a mapping value under a plugin name is merged into
        that plugin's section (``{"phrases": {"min_papers": 3}}``).
        """
        options = dict(self.options)
        plugins = {name: dict(section) for name, section in self.plugins.items()}
        for key, value in overrides.items():
            if value is None:
                continue
            if isinstance(value, Mapping) and key not in TOP_LEVEL_KEYS:
                plugins.setdefault(key, {}).update(value)
            else:
                options[key] = value
        return replace(self, options=_freeze(options), plugins=_freeze_sections(plugins))

    def as_dict(self) -> dict[str, Any]:
        """Plain data: the top-level options plus ``"plugins": {name: {key: value}}``."""
        data: dict[str, Any] = {key: value for key, value in self.options.items()}
        data["plugins"] = {name: dict(section) for name, section in self.plugins.items()}
        return data

    def extract_config(self) -> Mapping[str, Mapping[str, Any]]:
        """The per-plugin sections, in the form ``ExtractContext(config=...)`` takes."""
        return self.plugins

    def unknown_sections(self, plugin_names: set[str]) -> list[str]:
        """Warnings for sections naming no loaded or blocked plugin (probably a typo)."""
        known = plugin_names | self.blocked_plugins
        return [
            f"config section [{name}] names no loaded plugin — check the spelling"
            for name in sorted(self.plugins)
            if name not in known
        ]


def load_config(vault: Path | None = None, project_dir: Path | None = None) -> Config:
    """Read ``[tool.vaultsync]`` of ``project_dir/pyproject.toml``, then the vault's file.

    Missing files are fine (an empty ``Config``). Invalid TOML or a wrong type for a known key
    raises ``VaultsyncError`` naming the file (and line); unknown top-level keys become warnings.
    """
    options: dict[str, Any] = {}
    plugins: dict[str, dict[str, Any]] = {}
    sources: list[Path] = []
    warnings: list[str] = []
    layers: list[tuple[Path, Path, bool]] = []  # (file, base folder, is pyproject)
    if project_dir is not None:
        layers.append((Path(project_dir) / "pyproject.toml", Path(project_dir), True))
    if vault is not None:
        layers.append((Path(vault) / CONFIG_DIR / CONFIG_FILE, Path(vault), False))
    for path, base, is_pyproject in layers:
        if not path.is_file():
            continue
        data = _read_toml(path)
        if is_pyproject:
            data = data.get("tool", {}).get("vaultsync")
            if data is None:
                continue
            label = f"{path} [tool.vaultsync]"
        else:
            label = str(path)
        sources.append(path)
        _apply(data, label, base, options, plugins, warnings)
    return Config(_freeze(options), _freeze_sections(plugins), tuple(sources), tuple(warnings))


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise VaultsyncError(f"{path}: not UTF-8; re-save it as UTF-8") from None
    except OSError as error:
        raise VaultsyncError(f"{path}: cannot be read ({error.strerror})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = re.search(r"\s*\(at line (\d+), column \d+\)", message)
        where = f" line {found.group(1)}" if found else ""
        reason = message[: found.start()] if found else message
        raise VaultsyncError(f"{path}{where}: invalid TOML ({reason}); fix that line") from None


def _apply(
    data: Mapping[str, Any],
    label: str,
    base: Path,
    options: dict[str, Any],
    plugins: dict[str, dict[str, Any]],
    warnings: list[str],
) -> None:
    for key, value in data.items():
        if isinstance(value, dict):
            enabled = value.get("enabled", True)
            if not isinstance(enabled, bool):
                raise VaultsyncError(
                    f"{label}: [{key}] enabled must be true or false, not {enabled!r}"
                )
            plugins.setdefault(key, {}).update(value)
            continue
        expected = TOP_LEVEL_KEYS.get(key)
        if expected is None:
            known = ", ".join(sorted(TOP_LEVEL_KEYS))
            warnings.append(f"{label}: unknown option '{key}' ignored (known: {known})")
            continue
        if not isinstance(value, expected) or (
            expected is list and not all(isinstance(item, str) for item in value)
        ):
            kind = "a list of names" if expected is list else "a string"
            raise VaultsyncError(f"{label}: '{key}' must be {kind}, not {value!r}")
        if key in _PATH_KEYS:
            value = str((base / Path(value).expanduser()).resolve())
        options[key] = tuple(value) if isinstance(value, list) else value


def _freeze(options: Mapping[str, Any]) -> Mapping[str, Any]:
    return frozen_mapping(options)


def _freeze_sections(sections: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Mapping[str, Any]]:
    return frozen_mapping({name: frozen_mapping(section) for name, section in sections.items()})
