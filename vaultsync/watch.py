"""`vaultsync watch`: keep a vault in sync with its seeds folder, live.

Every file-system event is only a hint that a seed file may have changed. Hints go into a
``ChangeQueue``, which holds each path until it has *settled*:

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

import errno
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from watchdog.events import (DirCreatedEvent, DirDeletedEvent, DirMovedEvent, FileClosedEvent,
                             FileCreatedEvent, FileDeletedEvent, FileModifiedEvent, FileMovedEvent,
                             FileSystemEvent, FileSystemEventHandler)
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from .errors import VaultsyncError
from .pipeline import Exporter
from .read import display_name, is_ignored, require_seeds_folder
from .records import SyncReport
from .regular_files import file_digest

log = logging.getLogger(__name__)

QUIET_AFTER_CLOSE = 0.03  # s: inotify told us the writer is done; wait only for its siblings
QUIET_UNCLOSED = 3.0  # s: written but never closed (hard link, lost close): wait this long
QUIET_POLLING = 0.6  # s: no close events; a writer pausing longer than this looks finished
POLL_INTERVAL = 0.25  # s: the polling observer's snapshot interval
MAX_BATCH_DELAY = 1.0  # s: a settled path waits at most this long for a burst to end
BACKOFF = (0.1, 0.2, 0.4, 0.8, 1.6)  # s: between stability checks of a path still changing


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
class _Pending:
    last: float  # monotonic time of the latest hint
    closed: bool  # the latest hint says the file is complete (closed, renamed in, deleted)
    signature: tuple | None = None  # what the last stability check saw
    checked: int = 0  # stability checks so far
    next_check: float = 0.0


@dataclass(frozen=True)
class Batch:
    """Settled seed files (relative POSIX paths); ``rescan``: look at the whole folder too."""

    paths: frozenset[str] = frozenset()
    rescan: bool = False


class ChangeQueue:
    """Coalesces hints about seed files into batches of settled paths. Thread-safe.

    The observer's thread calls ``hint``; the run loop calls ``take``. ``trust_close``: hints
    carry close-after-write (inotify), so a closed path needs no stability check.
    """

    def __init__(self, seeds_dir: Path, *, trust_close: bool, clock: Callable[[], float] = time.monotonic):
        self.seeds_dir = seeds_dir
        self.trust_close = trust_close
        self.clock = clock
        self._pending: dict[str, _Pending] = {}
        self._last_hint = 0.0
        self._rescan = False
        self._cond = threading.Condition()

    def hint(self, relative: str, *, closed: bool, weak: bool = False) -> None:
        """``relative`` may have changed. ``weak`` (a rescan found it): keep an existing hint."""
        with self._cond:
            now = self.clock()
            item = self._pending.get(relative)
            if item is not None and weak:
                return
            self._pending[relative] = _Pending(now, closed)
            self._last_hint = now
            self._cond.notify()

    def ask_rescan(self) -> None:
        with self._cond:
            self._rescan = True
            self._cond.notify()

    def wake(self) -> None:
        with self._cond:
            self._cond.notify()

    def __len__(self) -> int:
        with self._cond:
            return len(self._pending)

    def take(self, timeout: float) -> Batch | None:
        """Wait up to ``timeout`` s for a batch; None if nothing settled (or asked) by then."""
        deadline = self.clock() + timeout
        with self._cond:
            while True:
                now = self.clock()
                settled, wait = self._settled(now)
                burst_over = now - self._last_hint >= QUIET_AFTER_CLOSE
                oldest = min((self._pending[r].last for r in settled), default=now)
                if settled and (burst_over or now - oldest >= MAX_BATCH_DELAY) or self._rescan:
                    for relative in settled:
                        del self._pending[relative]
                    batch, self._rescan = Batch(frozenset(settled), self._rescan), False
                    return batch
                if settled:
                    wait = min(wait, QUIET_AFTER_CLOSE)
                remaining = deadline - now
                if remaining <= 0:
                    return None
                self._cond.wait(max(0.005, min(wait, remaining)))

    def _settled(self, now: float) -> tuple[list[str], float]:
        """The paths settled now, and how long until the next one might be."""
        settled, wait = [], 3600.0
        for relative, item in self._pending.items():
            if self.trust_close and item.closed:
                due = item.last + QUIET_AFTER_CLOSE
                if now >= due:
                    settled.append(relative)
                else:
                    wait = min(wait, due - now)
                continue
            due = max(item.last + (QUIET_UNCLOSED if self.trust_close else QUIET_POLLING), item.next_check)
            if now < due:
                wait = min(wait, due - now)
                continue
            signature = _stability_signature(self.seeds_dir / relative)
            if item.checked and signature == item.signature:
                settled.append(relative)
                continue
            item.signature = signature
            item.next_check = now + BACKOFF[min(item.checked, len(BACKOFF) - 1)]
            item.checked += 1
            wait = min(wait, item.next_check - now)
        return settled, wait


def _stability_signature(path: Path) -> tuple | None:
    """(size, mtime_ns, inode, sha256) of a file, None if gone: equal twice means it is still."""
    try:
        before = os.stat(path)
    except OSError:
        return None
    # (in blocks, and only a regular file: a named pipe must not hang the watcher)
    return (before.st_size, before.st_mtime_ns, before.st_ino, file_digest(path))


class _Hints(FileSystemEventHandler):
    """Turns watchdog events under the seeds folder into hints; ignores scratch files and the vault."""

    def __init__(self, queue: ChangeQueue, seeds_root: Path, vault_root: Path):
        self.queue, self.seeds_root, self.vault_root = queue, seeds_root, vault_root

    def _relative(self, path: str | bytes) -> str | None:
        if not path:
            return None
        full = Path(os.fsdecode(path))
        try:
            relative = full.relative_to(self.seeds_root)
        except ValueError:
            return None
        if full == self.vault_root or self.vault_root in full.parents or not relative.parts:
            return None  # the tool's own writes
        if any(part.startswith(".") for part in relative.parts[:-1]) or is_ignored(relative.name):
            return None
        return relative.as_posix()

    def dispatch(self, event: FileSystemEvent) -> None:
        if isinstance(event, (DirMovedEvent, DirDeletedEvent, DirCreatedEvent)):
            # a folder of seeds came or went: its files may not each get an event
            if self._relative(event.src_path) or self._relative(getattr(event, "dest_path", "")):
                self.queue.ask_rescan()
            return
        if event.is_directory:
            return
        if isinstance(event, FileMovedEvent):
            for path in (event.src_path, event.dest_path):
                if (relative := self._relative(path)) is not None:
                    self.queue.hint(relative, closed=True)  # a rename is atomic: whole or gone
        elif isinstance(event, (FileClosedEvent, FileDeletedEvent)):
            if (relative := self._relative(event.src_path)) is not None:
                self.queue.hint(relative, closed=True)
        elif isinstance(event, (FileCreatedEvent, FileModifiedEvent)):
            if (relative := self._relative(event.src_path)) is not None:
                self.queue.hint(relative, closed=False)


def _native_observer() -> tuple[BaseObserver, str, bool]:
    """The platform's observer, its name, and whether it reports close-after-write."""
    if sys.platform.startswith("linux"):
        from watchdog.observers.inotify import InotifyObserver

        # full events: a file renamed in from outside the folder is a move (complete), not a create
        return InotifyObserver(generate_full_events=True), "inotify", True
    from watchdog.observers import Observer

    observer = Observer()
    return observer, type(observer).__name__.replace("Observer", "").lower() or "native", False


def start_observer(queue_for: Callable[[bool], ChangeQueue], handler_for: Callable[[ChangeQueue], _Hints],
                   seeds_dir: Path, *, poll: bool,
                   say: Callable[[str], None]) -> tuple[BaseObserver, str, ChangeQueue]:
    """Start watching ``seeds_dir``: natively, else (``poll``, or native failed) by polling."""
    if not poll:
        observer = None
        try:
            observer, name, trust_close = _native_observer()
            queue = queue_for(trust_close)
            observer.schedule(handler_for(queue), str(seeds_dir.resolve()), recursive=True)
            observer.start()
            return observer, name, queue
        except OSError as error:
            if observer is not None:
                _stop_quietly(observer)
            hint = (" (raise fs.inotify.max_user_watches / max_user_instances to avoid it)"
                    if error.errno in (errno.ENOSPC, errno.EMFILE) else "")
            say(f"native file watching could not start ({error.strerror or error}); "
                f"polling instead{hint}")
    observer = PollingObserver(timeout=POLL_INTERVAL)
    queue = queue_for(False)
    observer.schedule(handler_for(queue), str(seeds_dir.resolve()), recursive=True)
    observer.start()
    return observer, "polling", queue


def _stop_quietly(observer: BaseObserver) -> None:
    try:
        observer.stop()
        if observer.is_alive():
            observer.join(1)
    except Exception:  # stopping must not hide why we stop
        log.debug("stopping the observer failed", exc_info=True)


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

    def __post_init__(self) -> None:
        self.exporter.options = replace(self.exporter.options, progress=self._progress)

    def catch_up(self) -> SyncReport:
        """One run over the whole seeds folder; prints its problems; raises ``Stopped``."""
        return self._run(None)

    def prepare(self) -> None:
        """Link the corpus in memory now (cheap when a run just did), so that the first new seed
        file's notes appear as fast as the next ones (``Exporter.preview``).

        What the next round keeps is then frozen out of the collector (``Exporter.warm``)."""
        started = time.perf_counter()
        try:
            self.exporter.warm()
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
                lambda q: _Hints(q, seeds.resolve(), vault.resolve()), seeds,
                poll=self.options.poll, say=self.options.warn)
        except OSError as error:  # (it went away meanwhile, or cannot be listed)
            raise VaultsyncError(f"cannot watch the seeds folder {seeds} ({error.strerror or error}); "
                                 "check that it exists and can be read") from None
        self.options.say(f"watching {display_name(seeds, '').rstrip(os.sep)}{os.sep} → {vault}{os.sep} "
                         f"({self.mode})")

    def close(self) -> None:
        """Stop the observer (idempotent)."""
        if getattr(self, "_observer", None) is not None:
            _stop_quietly(self._observer)
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
            exporter.session.refresh()
            preview = exporter.preview(paths) if paths else None
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
                report = exporter.run(changed=paths)  # its report includes what the preview wrote
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

    def _progress(self, stage: str, done: int | None = None, total: int | None = None) -> None:
        """``ExportOptions.progress``: abort before writing if asked to stop or if more seed files
        changed -- never once the notes are being written (``write`` counting them, ``finish``)."""
        if stage in ("write", "finish") and done is not None:
            return
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
