"""Which plugins a run registers, in which order, from which files -- found without importing
any of them (see ``vaultsync.plugins`` for the load order and ``LazyPlugins`` for why)."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

from .default_plugins import DEFAULT_PLUGINS, MODULES

ENTRY_POINT_GROUP = "vaultsync"
LOAD_PLUGINS_ENV = "VAULTSYNC_LOAD_PLUGINS"
VAULT_PLUGINS_DIR = Path(".vaultsync") / "plugins"
BUILT_IN = "built-in"


@dataclass(frozen=True)
class PluginSource:
    """Where a registered plugin came from: ``BUILT_IN``, ``entry point <dist>`` or a file path."""

    origin: str
    version: str | None = None


@dataclass(frozen=True)
class PlannedPlugin:
    """A plugin a run will register: its name, where it comes from, the file its code is in
    (found without importing it: ``None`` for a built-in, which the package's files cover) and
    how to import it."""

    name: str
    source: PluginSource
    file: str | None
    load: Callable[[], object]


def plan(plugins_dirs: tuple, vault, blocked: frozenset[str], problems: list[str]) -> tuple[PlannedPlugin, ...]:
    """Every plugin a run registers, in load order (see the module's docstring), none imported."""
    planned = [PlannedPlugin(name, PluginSource(BUILT_IN), None,
                             partial(importlib.import_module, f"vaultsync.default_plugins.{MODULES.get(name, name)}"))
               for name in DEFAULT_PLUGINS if name not in blocked]
    wanted = _wanted_plugins()
    found: set[str] = set()  # normalised names that matched VAULTSYNC_LOAD_PLUGINS
    planned += _entry_points(wanted, found, blocked)
    for folder in plugins_dirs:
        planned += _plugins_dir(Path(folder), wanted, found, blocked, problems, required=True)
    if vault is not None:
        planned += _plugins_dir(Path(vault) / VAULT_PLUGINS_DIR, wanted, found, blocked, problems, required=False)
    for missing in sorted((wanted or set()) - found):
        problems.append(f"{LOAD_PLUGINS_ENV} names plugin '{missing}', which was not found"
                        " — install it or correct the name")
    return tuple(planned)


def _normalise(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def _wanted_plugins() -> set[str] | None:
    """The external plugins ``VAULTSYNC_LOAD_PLUGINS`` allows; ``None`` when it is unset."""
    value = os.environ.get(LOAD_PLUGINS_ENV)
    if value is None:
        return None
    return {_normalise(name) for name in value.split(",") if name.strip()}


def _entry_points(wanted: set[str] | None, found: set[str], blocked: frozenset[str]) -> list[PlannedPlugin]:
    planned, seen = [], set()
    # (only the group's entry points have their distribution's metadata read)
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry_point.name in seen:
            continue  # a name found twice on sys.path: the first wins
        seen.add(entry_point.name)
        dist = entry_point.dist
        dist_name = (dist.metadata["Name"] if dist is not None else None) or "?"
        if wanted is not None:
            names = {_normalise(entry_point.name), _normalise(dist_name)} & wanted
            if not names:
                continue
            found.update(names)
        if entry_point.name in blocked:
            continue
        planned.append(PlannedPlugin(entry_point.name,
                                     PluginSource(f"entry point of {dist_name}", dist.version if dist else None),
                                     _module_file(entry_point.module), entry_point.load))
    return planned


def _module_file(module: str) -> str | None:
    """The file of ``module``, found without running it (its parent packages are imported)."""
    try:
        spec = importlib.util.find_spec(module)
    except Exception:  # a broken parent package: loading it will say so
        return None
    return spec.origin if spec is not None else None


def _plugins_dir(folder: Path, wanted: set[str] | None, found: set[str], blocked: frozenset[str],
                 problems: list[str], required: bool) -> list[PlannedPlugin]:
    """Each ``*.py`` file of ``folder`` (skipping names starting ``_`` or ``.``)."""
    if not folder.is_dir():
        if required:
            problems.append(f"plugins folder {folder} does not exist — check --plugins-dir")
        return []
    planned = []
    for path in sorted(folder.glob("*.py")):
        name = path.stem
        if name.startswith(("_", ".")):
            continue
        if wanted is not None:
            if _normalise(name) not in wanted:
                continue
            found.add(_normalise(name))
        if name not in blocked:
            planned.append(PlannedPlugin(name, PluginSource(str(path)), str(path), partial(_import_file, path)))
    return planned


def _import_file(path: Path) -> object:
    # A prefixed module name so `json.py` in a plugins folder cannot shadow the stdlib; it is
    # kept in sys.modules so dataclasses and pickling (process pools) can find the module.
    module_name = f"vaultsync_plugin_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module
