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


def code_signature(pm: pluggy.PluginManager) -> str:
    """The files of vaultsync's code and data and of every loaded plugin, by stat signature."""
    lines = package_signature()
    for name, plugin in sorted(pm.list_name_plugin(), key=lambda item: str(item[0])):
        module = plugin if hasattr(plugin, "__file__") else sys.modules.get(type(plugin).__module__)
        source = getattr(module, "__file__", None)
        lines.append(f"{name}={_stat_line(Path(source)) if source else '?'}")
    return "\n".join(lines)
