"""Hearing that seed files changed: file-system events are only hints, held in a ``ChangeQueue``
until each path has settled (see ``watch`` for the rules), then handed out in batches."""

from __future__ import annotations

import errno
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from watchdog.events import (DirCreatedEvent, DirDeletedEvent, DirMovedEvent, FileClosedEvent,
                             FileCreatedEvent, FileDeletedEvent, FileModifiedEvent, FileMovedEvent,
                             FileSystemEvent, FileSystemEventHandler)
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from .read import is_ignored
from .regular_files import file_digest

log = logging.getLogger(__name__)

QUIET_AFTER_CLOSE = 0.03  # s: inotify told us the writer is done; wait only for its siblings
QUIET_UNCLOSED = 3.0  # s: written but never closed (hard link, lost close): wait this long
QUIET_POLLING = 0.6  # s: no close events; a writer pausing longer than this looks finished
POLL_INTERVAL = 0.25  # s: the polling observer's snapshot interval
MAX_BATCH_DELAY = 1.0  # s: a settled path waits at most this long for a burst to end
BACKOFF = (0.1, 0.2, 0.4, 0.8, 1.6)  # s: between stability checks of a path still changing


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


class SeedHints(FileSystemEventHandler):
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


def start_observer(queue_for: Callable[[bool], ChangeQueue], handler_for: Callable[[ChangeQueue], SeedHints],
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
                stop_quietly(observer)
            hint = (" (raise fs.inotify.max_user_watches / max_user_instances to avoid it)"
                    if error.errno in (errno.ENOSPC, errno.EMFILE) else "")
            say(f"native file watching could not start ({error.strerror or error}); "
                f"polling instead{hint}")
    observer = PollingObserver(timeout=POLL_INTERVAL)
    queue = queue_for(False)
    observer.schedule(handler_for(queue), str(seeds_dir.resolve()), recursive=True)
    observer.start()
    return observer, "polling", queue


def stop_quietly(observer: BaseObserver) -> None:
    try:
        observer.stop()
        if observer.is_alive():
            observer.join(1)
    except Exception:  # stopping must not hide why we stop
        log.debug("stopping the observer failed", exc_info=True)
