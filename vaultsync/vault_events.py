"""What changed in the vault between two runs of a watcher: the paths of the notes touched
(edited, created, moved, deleted -- by the user or by vaultsync), as file events tell it.

A watcher's run checks the notes touched since the last run and, of the others, only those the
model says may differ (``RenderContext.changes``). The events are only ever a reason to check
more: whatever they cannot say precisely (a folder moved or deleted, the observer restarted,
an overflow) makes ``drain`` answer None -- "anything may have changed": every note is checked.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from watchdog.events import (DirCreatedEvent, DirDeletedEvent, DirMovedEvent, FileClosedNoWriteEvent,
                             FileOpenedEvent, FileSystemEvent, FileSystemEventHandler)


class VaultTouches:
    """The vault-relative paths touched since the last ``drain`` (thread-safe: an observer's
    thread adds, the run drains). Starts "lost": nothing is known of what happened before."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._paths: set[str] = set()
        self._lost = True

    def add(self, relative: str) -> None:
        with self._lock:
            self._paths.add(relative)

    def lose(self) -> None:
        """Something happened that the paths cannot say: the next ``drain`` answers None."""
        with self._lock:
            self._lost = True

    def drain(self) -> set[str] | None:
        """The paths touched since the last drain (None: unknown, check everything); forget them."""
        with self._lock:
            paths, lost = self._paths, self._lost
            self._paths, self._lost = set(), False
        return None if lost else paths

    def peek(self) -> set[str] | None:
        """What ``drain`` would answer, without forgetting it."""
        with self._lock:
            return None if self._lost else set(self._paths)

    def put_back(self, paths: set[str] | None) -> None:
        """Paths drained by a run that then wrote nothing: still to check (None: lost)."""
        with self._lock:
            if paths is None:
                self._lost = True
            else:
                self._paths |= paths


class VaultHints(FileSystemEventHandler):
    """Watchdog events under the vault -> ``VaultTouches`` (dot-names -- vaultsync's temp files
    and state, ``.obsidian`` -- are skipped; a folder event loses track)."""

    def __init__(self, touches: VaultTouches, vault_root: Path):
        self.touches, self.root = touches, str(vault_root)

    def _relative(self, path: str | bytes) -> str | None:
        if not path:
            return None
        full = os.fsdecode(path)
        relative = os.path.relpath(full, self.root)
        if relative.startswith("..") or os.path.isabs(relative):
            return None
        relative = relative.replace(os.sep, "/")
        if relative == "." or any(part.startswith(".") for part in relative.split("/")):
            return None
        return relative

    def dispatch(self, event: FileSystemEvent) -> None:
        if isinstance(event, (FileOpenedEvent, FileClosedNoWriteEvent)):
            return  # (reading a note changes nothing)
        if isinstance(event, (DirMovedEvent, DirDeletedEvent, DirCreatedEvent)):
            # the notes in a folder moved, deleted or moved in may each get no event
            if self._relative(event.src_path) is not None or self._relative(getattr(event, "dest_path", "")):
                self.touches.lose()
            return
        if event.is_directory:
            return
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if (relative := self._relative(path)) is not None:
                self.touches.add(relative)
