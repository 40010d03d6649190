"""The plugin manager: default plugins, then installed, loose and per-vault plugins.

Load order (pluggy calls the most recently registered implementation first, so each later
source wins over the earlier ones unless a hook is marked ``tryfirst``/``trylast``):

1. default plugins (``vaultsync.default_plugins.<name>``, registered under ``<name>``);
2. installed packages with an entry point in the ``vaultsync`` group (under the entry point name);
3. loose ``*.py`` files of each ``--plugins-dir`` (under the file stem);
4. loose ``*.py`` files of ``<vault>/.vaultsync/plugins/`` (under the file stem).

``VAULTSYNC_LOAD_PLUGINS`` (comma-separated names) restricts sources 2-4 to the plugins named
(an entry point name, a distribution name or a file stem); set to an empty string it loads no
external plugin at all. Default plugins always load: block one through the config instead.

A plugin that fails to load never stops the others: the failure becomes one line in
``pm.load_problems`` for the CLI to print, with the traceback logged at DEBUG (``--verbose``).
Hooks are called through :func:`call_safely`, which does the same for a plugin raising in a hook.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import pluggy

from . import hookspecs
from .errors import VaultsyncError
from .plugin_plan import BUILT_IN, LOAD_PLUGINS_ENV, PluginSource, plan  # noqa: F401  (LOAD_PLUGINS_ENV: public here)

if TYPE_CHECKING:
    from .config import Config

logger = logging.getLogger(__name__)


class VaultsyncPluginManager(pluggy.PluginManager):
    """A pluggy ``PluginManager`` that remembers where each plugin came from and what failed."""

    def __init__(self) -> None:
        super().__init__("vaultsync")
        self.add_hookspecs(hookspecs)
        self.sources: dict[str, PluginSource] = {}
        self.load_problems: list[str] = []  # one user-facing line per plugin that failed to load
        self.planned: tuple = ()  # the ``PlannedPlugin``s it was built from (see ``LazyPlugins``)

    def add_plugin(self, plugin: object, name: str, source: PluginSource) -> None:
        """Register ``plugin``; a blocked name is skipped, a clash becomes a problem line."""
        if self.is_blocked(name):
            logger.debug("plugin %r (%s) is disabled by the config", name, source.origin)
            return
        try:
            self.register(plugin, name=name)
        except ValueError:  # the name, or the same module, is already registered
            other = name if self.has_plugin(name) else self.get_name(plugin)
            self.load_problems.append(
                f"plugin '{name}' ({source.origin}) was not loaded: a plugin named '{other}'"
                " is already loaded — rename or remove one of them"
            )
            return
        except pluggy.PluginValidationError as error:  # arguments the hook does not have
            self.load_failed(name, source.origin, error)
            return
        self.sources[name] = source
        for caller in self.get_hookcallers(plugin) or ():
            if caller.spec is None and caller.name.startswith("vaultsync_"):
                self.load_problems.append(
                    f"plugin '{name}' ({source.origin}) implements {caller.name}, which is not"
                    " a vaultsync hook — check the spelling against docs/plugins.md"
                )

    def load_failed(self, name: str, origin: str, error: BaseException) -> None:
        """Record one line for a plugin that could not be imported or registered."""
        logger.debug("plugin %r (%s) failed to load", name, origin, exc_info=error)
        self.load_problems.append(
            f"plugin '{name}' ({origin}) failed to load: {describe(error)} — fix or remove it"
        )


def get_plugin_manager(
    plugins_dirs: Iterable[Path | str] = (),
    vault: Path | str | None = None,
    config: "Config | None" = None,
    blocked: Iterable[str] = (),
) -> VaultsyncPluginManager:
    """Build the plugin manager for one run.

    ``plugins_dirs`` are the ``--plugins-dir`` folders; ``vault`` adds the vault's own
    ``.vaultsync/plugins/``; plugins the ``config`` disables (``Config.blocked_plugins``) and
    those named in ``blocked`` are not registered (nor are their files imported).
    Never raises for a broken plugin: read ``pm.load_problems`` and print each line.
    """
    return LazyPlugins(plugins_dirs, vault, config, blocked).manager()


class LazyPlugins:
    """The plugins of one run, planned at once and imported only when first needed: a run that
    finds nothing to do (the same seeds, vault, options and code files as the last run) never
    pays for importing them. ``planned`` is what ``code_signature`` reads."""

    def __init__(self, plugins_dirs: Iterable[Path | str] = (), vault: Path | str | None = None,
                 config: "Config | None" = None, blocked: Iterable[str] = ()):
        self.blocked = frozenset({*blocked, *(config.blocked_plugins if config is not None else ())})
        self.problems: list[str] = []  # lines known before importing anything (a missing folder)
        self.planned = plan(tuple(plugins_dirs), vault, self.blocked, self.problems)
        self._manager: VaultsyncPluginManager | None = None

    @property
    def loaded(self) -> bool:
        return self._manager is not None

    def manager(self) -> VaultsyncPluginManager:
        """The plugin manager, every planned plugin imported and registered (once)."""
        if self._manager is None:
            pm = VaultsyncPluginManager()
            pm.planned = self.planned
            for name in self.blocked:
                pm.set_blocked(name)
            for plugin in self.planned:
                try:
                    loaded = plugin.load()
                except Exception as error:  # a broken plugin must not stop the others
                    if plugin.source.origin == BUILT_IN:
                        raise  # a built-in that fails to import is a bug in vaultsync, not a user's problem
                    pm.load_failed(plugin.name, plugin.source.origin, error)
                    continue
                pm.add_plugin(loaded, plugin.name, plugin.source)
            pm.load_problems[:0] = self.problems
            self._manager = pm
        return self._manager


def describe(error: BaseException) -> str:
    """``NameError: name 'x' is not defined`` — an exception on one line."""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that raised inside a hook. ``str()`` is the one line to show the user."""

    plugin: str
    hook: str
    context_text: str
    error: str  # ``describe(exception)``; a string so it survives a process pool
    user_error: bool = False  # a ``VaultsyncError``: its sentence is the message

    def __str__(self) -> str:
        where = f" on {self.context_text}" if self.context_text else ""
        if self.user_error:
            return f"{self.error} (plugin '{self.plugin}', {self.hook}{where})"
        return (
            f"plugin '{self.plugin}' failed in {self.hook}{where}: {self.error}"
            " — fix or remove it"
        )


@dataclass(frozen=True)
class HookOutcome:
    """What :func:`call_safely` returns: the hook's result and the plugins that failed.

    ``result`` is what pluggy would return: a list of non-None results, or for a
    ``firstresult`` hook the first non-None result (or ``None``).
    """

    result: Any
    failures: tuple[PluginFailure, ...] = ()


def call_safely(
    pm: pluggy.PluginManager, hook_name: str, *, context_text: str = "", **kwargs: Any
) -> HookOutcome:
    """Call hook ``hook_name`` with ``kwargs``, one implementation at a time, in pluggy's order.

    An implementation that raises is skipped and recorded as a ``PluginFailure`` (traceback
    at DEBUG); the others still run, and a ``firstresult`` hook moves on to the next plugin.
    A ``VaultsyncError`` is a user-facing problem: it is recorded with its own sentence, and a
    ``firstresult`` hook stops there (the plugin claimed the input but found it unusable).
    ``context_text`` says what was being processed ("seeds/a.txt line 12"), for the message.
    Hooks with hook wrappers are called as a whole; a failure names the innermost plugin.
    """
    caller = getattr(pm.hook, hook_name)
    impls = caller.get_hookimpls()
    firstresult = bool(caller.spec and caller.spec.opts.get("firstresult"))
    if any(impl.wrapper or impl.hookwrapper for impl in impls):
        return _call_whole(caller, impls, hook_name, context_text, kwargs)
    results: list[Any] = []
    failures: list[PluginFailure] = []
    for impl in reversed(impls):  # pluggy's call order
        args = [kwargs[name] for name in impl.argnames]
        try:
            value = impl.function(*args)
        except Exception as error:
            failures.append(_failure(impl.plugin_name, hook_name, context_text, error))
            if firstresult and isinstance(error, VaultsyncError):
                break
            continue
        if value is not None:
            results.append(value)
            if firstresult:
                break
    result = (results[0] if results else None) if firstresult else results
    return HookOutcome(result, tuple(failures))


def call_each(
    pm: pluggy.PluginManager, hook_name: str, calls: list[dict[str, Any]], context_texts: list[str]
) -> list[HookOutcome]:
    """``[call_safely(pm, hook_name, context_text=t, **kw) for kw, t in zip(calls, context_texts)]``,
    one implementation at a time over every call.

    The same outcomes (each call's results in pluggy's order, each failure on its own), but each
    plugin runs over the whole batch before the next: its data (a vocabulary automaton, caches)
    stays in the CPU's caches instead of being evicted by the other plugins' at every call
    (extraction, 1.3x). Not for ``firstresult`` hooks or hook wrappers: those are called one by one.
    """
    caller = getattr(pm.hook, hook_name)
    impls = caller.get_hookimpls()
    if (caller.spec and caller.spec.opts.get("firstresult")) or any(i.wrapper or i.hookwrapper for i in impls):
        return [call_safely(pm, hook_name, context_text=t, **kw) for kw, t in zip(calls, context_texts)]
    results: list[list[Any]] = [[] for _ in calls]
    failures: list[list[PluginFailure]] = [[] for _ in calls]
    for impl in reversed(impls):  # pluggy's call order
        function, names = impl.function, impl.argnames
        for index, kwargs in enumerate(calls):
            try:
                value = function(*[kwargs[name] for name in names])
            except Exception as error:
                failures[index].append(_failure(impl.plugin_name, hook_name, context_texts[index], error))
                continue
            if value is not None:
                results[index].append(value)
    return [HookOutcome(result, tuple(failed)) for result, failed in zip(results, failures)]


def _call_whole(caller, impls, hook_name, context_text, kwargs) -> HookOutcome:
    try:
        return HookOutcome(caller(**kwargs))
    except Exception as error:
        codes = {impl.function.__code__: impl.plugin_name for impl in impls}
        plugin = "?"
        traceback = error.__traceback__
        while traceback is not None:
            plugin = codes.get(traceback.tb_frame.f_code, plugin)
            traceback = traceback.tb_next
        firstresult = bool(caller.spec and caller.spec.opts.get("firstresult"))
        failure = _failure(plugin, hook_name, context_text, error)
        return HookOutcome(None if firstresult else [], (failure,))


def _failure(plugin: str, hook: str, context_text: str, error: Exception) -> PluginFailure:
    logger.debug("plugin %r raised in %s (%s)", plugin, hook, context_text, exc_info=error)
    if isinstance(error, VaultsyncError):
        return PluginFailure(plugin, hook, context_text, str(error), user_error=True)
    return PluginFailure(plugin, hook, context_text, describe(error))


def list_plugins(pm: pluggy.PluginManager) -> list[dict[str, Any]]:
    """Every registered plugin, built-ins included, sorted by name.

    Each item is ``{"name": str, "hooks": [hook names, sorted], "version": str | None}``;
    ``version`` comes from the distribution of an entry-point plugin, ``None`` for built-in and
    loose-file plugins. Use :func:`plugin_origin` to say where a plugin came from.
    """
    sources = getattr(pm, "sources", {})
    items = []
    for name, plugin in pm.list_name_plugin():
        if name is None or plugin is None:
            continue
        hooks = sorted(caller.name for caller in pm.get_hookcallers(plugin) or ())
        source = sources.get(name)
        items.append({"name": name, "hooks": hooks, "version": source.version if source else None})
    return sorted(items, key=lambda item: item["name"])


def plugin_origin(pm: pluggy.PluginManager, name: str) -> str:
    """``"built-in"``, ``"entry point of <distribution>"``, a file path, or ``"registered"``."""
    source = getattr(pm, "sources", {}).get(name)
    return source.origin if source else "registered"


def promoted_phrases(pm: pluggy.PluginManager, mentions: list[tuple]) -> set[str] | None:
    """The plugins' answer to ``vaultsync_promote_phrases`` (a failing plugin is named and passed over)."""
    outcome = call_safely(pm, "vaultsync_promote_phrases", context_text="the corpus", mentions=mentions)
    for failure in outcome.failures:
        logger.warning("%s", failure)
    return outcome.result


def promotion_options(pm: pluggy.PluginManager) -> dict[str, Any]:
    """How the link stage promotes phrases with these plugins (``LinkOptions`` fields): the
    plugins' answer to ``vaultsync_promote_phrases`` over the whole corpus, or -- when the only
    answer is the built-in one, which states its rule paper by paper (``per_paper``) -- that
    rule, so that a linker promotes again only for the papers a change touches. The same
    objects for the same plugins (a linker starts over when the rule changes)."""
    cached = getattr(pm, "_vaultsync_promotion", None)
    if cached is None:
        from functools import partial

        impls = pm.hook.vaultsync_promote_phrases.get_hookimpls()
        per_paper = getattr(impls[0].function, "per_paper", None) if len(impls) == 1 else None
        cached = {"promote_phrases": partial(promoted_phrases, pm), "paper_promotions": per_paper}
        pm._vaultsync_promotion = cached
    return cached
