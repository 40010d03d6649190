"""The plugin manager: default plugins, then installed and loose plugins."""

from __future__ import annotations

import importlib

import pluggy

from . import hookspecs
from .default_plugins import DEFAULT_PLUGINS


def get_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager("vaultsync")
    pm.add_hookspecs(hookspecs)
    for name in DEFAULT_PLUGINS:
        try:
            module = importlib.import_module(f"vaultsync.default_plugins.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"vaultsync.default_plugins.{name}":
                raise
            continue  # not written yet in this checkout
        pm.register(module, name=name)
    pm.load_setuptools_entrypoints("vaultsync")
    return pm
