"""Stage 4, render: turn the vault model into files for one output format (a plugin)."""

from __future__ import annotations

import logging
from types import ModuleType
from typing import Any, Iterator, Mapping

import pluggy

from .errors import VaultsyncError
from .plugins import call_safely
from .records import DeferredNote, OutputFile, OutputFormat, RenderChanges, RenderContext, VaultModel, frozen_mapping

log = logging.getLogger(__name__)

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


def renders_changes_only(pm: pluggy.PluginManager, format_name: str) -> bool:
    """The format ``format_name`` renders only the notes of ``RenderContext.changes`` when given
    them: it declares ``supports_render_changes`` and no plugin but its own module renders notes
    (what another plugin's note reads is not known)."""
    fmt = available_formats(pm).get(format_name)
    return (fmt is not None and getattr(type(fmt), "supports_render_changes", False) is True
            and only_own_notes(pm, fmt))


def render_lazily(model: VaultModel, format_name: str, pm: pluggy.PluginManager,
                  options: Mapping[str, Any] | None = None, defer: bool = False,
                  changes: RenderChanges | None = None) -> Iterator[OutputFile | DeferredNote]:
    """``render``, one note at a time as they are asked for: a sync that writes each note and
    lets it go never holds the text of every note at once. An unknown format fails at once.

    ``defer``: the format may yield ``DeferredNote``s (rendered only if the sync needs them):
    only a format that declares ``supports_deferred_render``, when no plugin but the format's
    own renders notes (a deferred note is rendered by the format itself, not through the hook).
    ``changes``: the notes that may differ from the last successful run's; given to the format
    only when ``renders_changes_only`` (else it renders every note, as without them).
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
    # (a format that wraps another, without declaring it, gets rendered notes)
    deferring = getattr(type(fmt), "supports_deferred_render", False) and only_own_notes(pm, fmt)
    if changes is not None and not (getattr(type(fmt), "supports_render_changes", False) is True
                                    and only_own_notes(pm, fmt)):
        changes = None
    context = RenderContext(options=frozen_mapping(options), render_note=render_note,
                            may_defer=defer and deferring, changes=changes)
    return iter(fmt.render(model, context))


def only_own_notes(pm: pluggy.PluginManager, fmt: OutputFormat) -> bool:
    """No plugin but the module that defines ``fmt`` implements ``vaultsync_render_note``."""
    return all(_module_of(impl.plugin) == type(fmt).__module__
               for impl in pm.hook.vaultsync_render_note.get_hookimpls())


def _module_of(plugin: Any) -> str | None:
    """The name of a plugin's module (a plugin is a module, or an object of a class)."""
    return getattr(plugin, "__name__", None) if isinstance(plugin, ModuleType) else type(plugin).__module__

