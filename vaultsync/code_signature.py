"""The code a run depends on, by its files' stat signatures: vaultsync's own files and every
loaded plugin's. Caches keyed on it are not used once any of those files changes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pluggy

_PACKAGE = Path(__file__).resolve().parent


def _stat_line(path: Path) -> str:
    try:
        stat = path.stat()
    except OSError:
        return f"{path}:-"
    return f"{path}:{stat.st_size}:{stat.st_mtime_ns}"


def package_signature() -> list[str]:
    """The files of vaultsync's own code and data, by stat signature."""
    return sorted(_stat_line(Path(root) / name) for root, _, files in os.walk(_PACKAGE)
                  if "__pycache__" not in root for name in files)


def code_signature(plugins) -> str:
    """The files of vaultsync's code and data and of every plugin, by stat signature.

    ``plugins``: a ``LazyPlugins`` (read from its plan: nothing imported) or a plugin manager
    (its plan, if ``LazyPlugins`` built it, and any plugin registered besides). The two give the
    same signature for the same plugins, so a watcher's caches serve an export and back."""
    lines = package_signature()
    planned = getattr(plugins, "planned", ())
    for plugin in planned:
        lines.append(f"{plugin.name}={_stat_line(Path(plugin.file)) if plugin.file else plugin.source.origin}")
    if isinstance(plugins, pluggy.PluginManager):
        known = {plugin.name for plugin in planned}
        for name, plugin in sorted(plugins.list_name_plugin(), key=lambda item: str(item[0])):
            if name in known:
                continue
            module = plugin if hasattr(plugin, "__file__") else sys.modules.get(type(plugin).__module__)
            source = getattr(module, "__file__", None)
            lines.append(f"{name}={_stat_line(Path(source)) if source else '?'}")
    return "\n".join(lines)
