"""Stage 4, render: turn the vault model into files for one output format (a plugin)."""

from __future__ import annotations

import logging
import os
from typing import Any, Iterator, Mapping

import pluggy

from .errors import VaultsyncError
from .extract import SLOW_PATH_ENV
from .plugins import call_safely
from .records import DeferredNote, OutputFile, OutputFormat, RenderContext, VaultModel, frozen_mapping

log = logging.getLogger(__name__)

_BUILTIN = "vaultsync.default_plugins."  # the modules of vaultsync's own plugins


def available_formats(pm: pluggy.PluginManager) -> dict[str, OutputFormat]:
    """Every output format the loaded plugins register, by name (a later plugin wins a name)."""
    formats: dict[str, OutputFormat] = {}
    outcome = call_safely(pm, "vaultsync_register_formats", register=lambda fmt: formats.__setitem__(fmt.name, fmt))
    for failure in outcome.failures:
        log.warning("%s", failure)
    return dict(sorted(formats.items()))


def render(model: VaultModel, format_name: str, pm: pluggy.PluginManager,
           options: Mapping[str, Any] | None = None) -> list[OutputFile]:
    """Render every note of ``model`` in the format ``format_name``."""
    return list(render_lazily(model, format_name, pm, options))


def render_lazily(model: VaultModel, format_name: str, pm: pluggy.PluginManager,
                  options: Mapping[str, Any] | None = None, defer: bool = False
                  ) -> Iterator[OutputFile | DeferredNote]:
    """``render``, one note at a time as they are asked for: a sync that writes each note and
    lets it go never holds the text of every note at once. An unknown format fails at once.

    ``defer``: the format may yield ``DeferredNote``s (rendered only if the sync needs them):
    only a format of vaultsync's own, when no other plugin renders notes (and never with
    ``VAULTSYNC_SLOW_PATH=1``).
    """
    formats = available_formats(pm)
    if format_name not in formats:
        known = ", ".join(formats) or "none"
        raise VaultsyncError(f"unknown output format {format_name!r}; installed formats: {known}")

    def render_note(subject, fmt: str, model: VaultModel) -> OutputFile | None:
        outcome = call_safely(pm, "vaultsync_render_note", context_text=getattr(subject, "name", ""),
                              subject=subject, format=fmt, model=model)
        for failure in outcome.failures:
            log.warning("%s", failure)  # the format's own renderer takes over
        return outcome.result

    fmt = formats[format_name]
    # a format of a plugin (which may wrap a built-in one) gets notes, as it always did
    builtin = type(fmt).__module__.startswith(_BUILTIN) and only_builtin_notes(pm)
    context = RenderContext(options=frozen_mapping(options), render_note=render_note,
                            may_defer=defer and builtin and os.environ.get(SLOW_PATH_ENV) != "1")
    return iter(fmt.render(model, context))


def only_builtin_notes(pm: pluggy.PluginManager) -> bool:
    """No plugin but vaultsync's own implements ``vaultsync_render_note``."""
    return all(getattr(impl.plugin, "__name__", "").startswith(_BUILTIN)
               for impl in pm.hook.vaultsync_render_note.get_hookimpls())

