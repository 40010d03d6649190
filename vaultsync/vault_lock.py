"""One writer per vault: a lock file inside the vault, ``VAULT/.vaultsync/lock``.

The lock lives with what it guards. Kept beside the state database instead, two vaultsyncs with
different state folders (``VAULTSYNC_STATE_DIR``, another user, another machine on a shared
drive) would each take their own lock and write the same vault at once. The operating system
releases the lock when its holder dies, whatever kills it; the lock file itself stays, empty.
"""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock, Timeout

from .errors import VaultsyncError
from .write import resolve_vault_path

LOCK_FILE = ".vaultsync/lock"
HOLDER_FILE = ".vaultsync/lock.pid"  # who holds it, for the message a second writer gets


class VaultLock:
    """The writer lock of the vault at ``root`` (a resolved path). ``acquire`` fails at once."""

    def __init__(self, root: Path):
        self.root = root
        self._lock: FileLock | None = None

    def acquire(self, create: bool = True) -> bool:
        """Take the lock, or raise ``VaultsyncError`` naming the process that holds it. Without
        ``create`` (a dry run, which writes nothing), a vault without a lock file is not locked:
        return False."""
        # (resolved like a note: a .vaultsync folder linked out of the vault is refused)
        path = resolve_vault_path(self.root, LOCK_FILE, hidden_ok=True)
        if not create and not path.is_file():
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(path, timeout=0)
        try:
            lock.acquire()
        except Timeout:
            raise VaultsyncError(
                f"{self.root} is being written by another vaultsync (pid {self._holder()}); "
                "wait for it or stop it") from None
        self._lock = lock
        try:
            (path.parent / Path(HOLDER_FILE).name).write_text(str(os.getpid()))
        except OSError:  # only the message of a second writer would miss it
            pass
        return True

    def release(self) -> None:
        if self._lock is not None:
            try:
                (self.root / HOLDER_FILE).unlink()
            except OSError:
                pass
            self._lock.release()
            self._lock = None

    def _holder(self) -> str:
        try:
            return (self.root / HOLDER_FILE).read_text().strip() or "unknown"
        except OSError:
            return "unknown"
