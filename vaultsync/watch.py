"""`vaultsync watch`: keep a vault in sync with its seeds folder, live.

Every file-system event is only a hint that a seed file may have changed. Hints go into a
``ChangeQueue`` (``seed_events``), which holds each path until it has *settled*:

- with inotify (Linux), a path settles a short quiet period after the writer closed it
  (``IN_CLOSE_WRITE``) or after it was renamed into place / deleted; a path that was written
  but never closed (a hard link, lost events) settles after a long quiet period and a stat check;
- with any other observer (and ``--poll``), a path settles after a quiet period and a
  stability check: its stat signature and hash, taken again after a growing back-off, agree.

Settled paths are handed out in batches — a burst (``git pull``, ``cp -r``) is coalesced — and
each batch is one ``Exporter.run(changed=batch)``: the same engine as `vaultsync export`, holding
the vault's writer lock for the whole watch. A periodic reconcile (``Exporter.stale``: list and
stat, no reading) catches what the observer dropped. Nothing the watcher meets — a bad seed, a
failing plugin, an unexpected exception — stops it: it says so in one line and goes on.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from .errors import VaultsyncError
from .pipeline import Exporter
from .read import display_name, require_seeds_folder
from .records import SyncReport
from .seed_events import Batch, ChangeQueue, SeedHints, start_observer, stop_quietly

log = logging.getLogger(__name__)


class Stopped(Exception):
    """Raised inside a run when a stop was asked before it began writing (nothing written)."""


class Superseded(Exception):
    """Raised inside a round's full run when more seed files changed before it began writing:
    the round is redone with them (their notes are previewed at once instead of waiting)."""


# a round put off this long is finished even if files keep changing (a slow, steady download)
MAX_SUPERSEDED = 10.0  # s
# after a preview, the full run waits for this much quiet: a burst of files is previewed file
# by file, then linked once
QUIET_BEFORE_FULL = 1.0  # s


@dataclass
class WatchOptions:
    """How to watch. ``say`` prints a line of news; ``warn`` a line about a problem."""

    poll: bool = False
    interval: float = 30.0  # s between reconciling rescans
    say: Callable[[str], None] = print
    warn: Callable[[str], None] = lambda line: print(line, file=sys.stderr)


@dataclass
class Watcher:
    """Drives one ``Exporter`` (already entered: it holds the vault's lock) from file events.

    ``catch_up()`` runs once over everything; ``serve(stop)`` processes settled batches until
    ``stop`` is set, then returns. A stop asked during a run aborts it if it has not begun
    writing (nothing written; the next start catches up), else lets it finish.
    """

    exporter: Exporter
    options: WatchOptions = field(default_factory=WatchOptions)
    stop: threading.Event = field(default_factory=threading.Event)
    mode: str = ""
    runs: int = 0
    _shown: set[str] = field(default_factory=set)
    _retry: set[str] = field(default_factory=set)
    _before: dict[str, frozenset[str]] = field(default_factory=dict)  # a put-off round's seeds, before it
    _put_off_since: float | None = None  # when the first round now put off began
    _may_put_off: bool = False
    _full_due: bool = False  # files were previewed: their full run waits for a quiet moment
    _last_round: float = 0.0

    def catch_up(self) -> SyncReport:
        """One run over the whole seeds folder; prints its problems; raises ``Stopped``."""
        return self._run(None)

    def prepare(self) -> None:
        """Link the corpus in memory now (cheap when a run just did), so that the first new seed
        file's notes appear as fast as the next ones (``Exporter.preview``).

        What the next round keeps is then frozen out of the collector (``Exporter.warm``)."""
        started = time.perf_counter()
        try:
            self.exporter.warm(checkpoint=self._checkpoint)
        except Stopped:
            return  # serve() sees the stop
        except Exception:  # only a missed shortcut: the next round links in full
            log.debug("could not link the corpus ahead of changes", exc_info=True)
        log.debug("ready for the next file in %.0f ms", (time.perf_counter() - started) * 1000)

    def start(self) -> None:
        """Start the observer (before the catch-up, so nothing changed meanwhile slips by);
        ``VaultsyncError`` when the seeds folder cannot be watched (it is missing)."""
        seeds, vault = self.exporter.seeds_dir, self.exporter.vault_dir
        require_seeds_folder(seeds)
        try:
            self._observer, self.mode, self._queue = start_observer(
                lambda trust: ChangeQueue(seeds, trust_close=trust),
                lambda q: SeedHints(q, seeds.resolve(), vault.resolve()), seeds,
                poll=self.options.poll, say=self.options.warn)
        except OSError as error:  # (it went away meanwhile, or cannot be listed)
            raise VaultsyncError(f"cannot watch the seeds folder {seeds} ({error.strerror or error}); "
                                 "check that it exists and can be read") from None
        self._watch_vault()
        self.options.say(f"watching {display_name(seeds, '').rstrip(os.sep)}{os.sep} → {vault}{os.sep} "
                         f"({self.mode})")

    def _watch_vault(self) -> None:
        """Tell the exporter what is touched in the vault (``Exporter.track_vault``), with the same
        native observer: its runs then check only the notes that may differ from what the last
        run wrote, and those touched. Not when polling (a poll of every note, every second), nor
        when one folder holds the other; what was touched while no observer ran is not known."""
        from .vault_events import VaultHints  # lazy: start-up time

        exporter = self.exporter
        seeds, vault = exporter.seeds_dir.resolve(), exporter.vault_dir.resolve()
        if exporter.touches is not None:
            exporter.touches.lose()  # (the observer restarted: what happened meanwhile is not known)
        if self.mode == "polling" or vault == seeds or seeds in vault.parents or vault in seeds.parents:
            return
        touches = exporter.touches if exporter.touches is not None else exporter.track_vault()
        try:
            self._observer.schedule(VaultHints(touches, vault), str(vault), recursive=True)
        except OSError as error:  # every note is checked, as without it
            touches.lose()
            exporter.touches = None
            log.debug("cannot watch the vault (%s): every run checks every note", error)

    def close(self) -> None:
        """Stop the observer (idempotent)."""
        if getattr(self, "_observer", None) is not None:
            stop_quietly(self._observer)
            self._observer = None

    def serve(self) -> None:
        """Watch until ``self.stop`` is set; never raises for a seed's or a plugin's fault."""
        if getattr(self, "_observer", None) is None:
            self.start()
        next_rescan = time.monotonic() + self.options.interval
        try:
            # the corpus linked in memory even if the catch-up found nothing to do, so that the
            # first new seed file's notes appear as fast as the next ones (``Exporter.preview``)
            self.prepare()
            while not self.stop.is_set():
                queue = self._queue
                batch = queue.take(min(0.2, max(0.0, next_rescan - time.monotonic())))
                if self.stop.is_set():
                    break
                died = self._observer is not None and not self._observer.is_alive()
                if time.monotonic() >= next_rescan or died:
                    batch = Batch(batch.paths if batch else frozenset(), True)
                    next_rescan = time.monotonic() + self.options.interval
                    if died or self._observer is None:  # e.g. the seeds folder itself was removed
                        if died:
                            self.options.warn("vaultsync: the file watcher stopped; restarting it")
                        self.close()
                        try:
                            self.start()
                        except VaultsyncError as error:  # tried again at the next rescan
                            self._problem(str(error))
                        queue = self._queue
                if batch is None:
                    if self._full_due and self._quiet():
                        try:
                            self._run(set(self._retry))
                            self.prepare()
                        except Stopped:
                            break
                    continue
                paths = set(batch.paths) | self._retry
                if batch.rescan:
                    try:
                        for relative in self.exporter.stale():
                            queue.hint(relative, closed=False, weak=True)  # settle it like any other
                    except VaultsyncError as error:  # e.g. the seeds folder is gone for now
                        self._problem(str(error))
                if paths:
                    try:
                        if self._run(paths, full=False) is not None and not self._full_due:
                            self.prepare()
                    except Stopped:
                        break
        finally:
            self.close()

    def _quiet(self) -> bool:
        """Time for the full run of previewed files: no file changing, and a quiet moment (or
        the files have waited long enough)."""
        now = time.monotonic()
        waited = self._put_off_since is not None and now - self._put_off_since >= MAX_SUPERSEDED
        return not len(self._queue) and (now - self._last_round >= QUIET_BEFORE_FULL or waited)

    # -- one run ------------------------------------------------------------------------------
    def _run(self, paths: set[str] | None, full: bool = True) -> SyncReport | None:
        """One round over ``paths`` (None: everything). The new papers of a file are previewed
        first; unless ``full``, a round that could preview stops there and its full run waits
        for a quiet moment (``_full_due``)."""
        exporter = self.exporter
        before = {r: self._before[r] if r in self._before else _ids(exporter.seed(r)) for r in paths or ()}
        started = time.perf_counter()
        self._retry = set(paths or ())
        try:
            # (the notes touched since the last round, when the vault's events are known)
            exporter.session.refresh(exporter.touches.peek() if exporter.touches is not None else None)
            preview = exporter.preview(paths, checkpoint=self._checkpoint) if paths else None
            if preview is not None:
                log.debug("new papers' notes written in %.0f ms", (time.perf_counter() - started) * 1000)
                if not full:
                    self._before = {**before, **self._before}
                    self._full_due = True
                    if self._put_off_since is None:
                        self._put_off_since = time.monotonic()
                    self._last_round = time.monotonic()
                    return preview  # problems and the change line come with the full run
            self._may_put_off = paths is not None and (
                self._put_off_since is None or time.monotonic() - self._put_off_since < MAX_SUPERSEDED)
            try:
                report = exporter.run(changed=paths, checkpoint=self._checkpoint)  # it reports what the preview wrote too
            finally:
                self._may_put_off = False
        except Superseded:
            log.debug("round put off: more seed files changed")
            self._before = before
            if self._put_off_since is None:
                self._put_off_since = time.monotonic()
            return None
        except Stopped:
            raise
        except VaultsyncError as error:
            self._problem(str(error))
            return None
        except Exception as error:  # a bug must not end a watch that runs for weeks
            log.debug("run failed", exc_info=True)
            self._problem(f"could not process {', '.join(sorted(paths or ())) or 'the seeds'}: "
                          f"{type(error).__name__}: {error} (run with --verbose for the traceback)")
            return None
        self._retry, self._before, self._put_off_since, self._full_due = set(), {}, None, False
        self._last_round = time.monotonic()
        self.runs += 1
        log.debug("run %d: %d seed file(s) in %.0f ms", self.runs, len(paths or ()),
                  (time.perf_counter() - started) * 1000)
        self._show_problems(report)
        if paths is not None:
            self._show_changes(sorted(paths), before, report)
        return report

    def _checkpoint(self, stage: str, done: int | None = None, total: int | None = None) -> None:
        """The exporter's ``checkpoint``: abort before writing if asked to stop or if more seed
        files changed (the exporter stops asking once the notes are being written)."""
        log.debug("stage: %s %s/%s", stage, done, total)
        if stage not in ("write", "finish") and self.stop.is_set():
            raise Stopped()
        if stage in ("render", "write") and self._may_put_off and len(getattr(self, "_queue", ())):
            raise Superseded()

    def _problem(self, line: str) -> None:
        self.options.warn(f"vaultsync: {line}")

    def _show_problems(self, report: SyncReport) -> None:
        """Each problem once while it lasts (a run reports every seed's problems again)."""
        current = list(dict.fromkeys(report.warnings + report.errors))
        for line in current:
            if line not in self._shown:
                self._problem(line)
        self._shown = set(current)

    def _show_changes(self, paths: list[str], before: dict[str, frozenset[str]], report: SyncReport) -> None:
        seeds = self.exporter.seeds_dir
        lines = []
        for relative in paths:
            after = _ids(self.exporter.seed(relative))
            added, gone = len(after - before[relative]), len(before[relative] - after)
            exists = (seeds / relative).exists()
            if not exists and not before[relative]:
                continue  # a scratch file that came and went
            if exists and self.exporter.seed(relative) is None:
                continue  # not a seed, or unreadable: the problem line said so
            name = display_name(seeds, relative)
            if added or gone:
                counts = ([f"+{added}"] if added else []) + ([f"−{gone}"] if gone else [])
                noun = "paper" if max(added, gone) == 1 and len(counts) == 1 else "papers"
                lines.append(f"{' '.join(counts)} {noun} from {name}" + ("" if exists else " (deleted)"))
            elif report.created or report.updated or report.removed:
                lines.append(f"{name} changed")
            else:
                log.debug("%s: nothing to update", name)
        concepts = sum(p.startswith("Concepts/") for p in report.created + report.updated)
        tail = [f"{concepts} concept{'s' if concepts != 1 else ''} updated"]
        if report.removed:
            tail.append(f"{len(report.removed)} marked removed")
        tail.append(f"{len(report.conflicts)} conflict{'s' if len(report.conflicts) != 1 else ''}")
        if len(lines) == 1:
            lines[0] += " · " + " · ".join(tail)
        elif lines:
            lines.append(f"{len(lines)} seed files: " + " · ".join(tail))
        for line in lines:
            self.options.say(line)
        for conflict in report.conflicts:
            self.options.say(f"  conflict: {conflict}")


def _ids(seed) -> frozenset[str]:
    return frozenset(a.id for a in seed.abstracts) if seed is not None else frozenset()
