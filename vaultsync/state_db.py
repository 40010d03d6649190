"""The state's SQLite connection, whose every failure is one sentence saying what to do.

The state is a cache of what the vault says (``state.py``), so a damaged database is never a
dead end: it is moved aside (``<name>.damaged-<time>``, kept for a bug report) and an empty one
takes its place, which the next run fills from the vault's notes. A database locked by another
program, a full disk or a read-only folder each get their own sentence, never a traceback.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .errors import VaultsyncError

log = logging.getLogger(__name__)

BUSY_TIMEOUT = 5.0  # s: how long a statement waits for another program's lock on the state


class StateError(VaultsyncError):
    """The state database could not be used; the message says what to do."""


class StateDamaged(StateError):
    """The state database was damaged; it has been moved aside (``moved_to``) and replaced by an
    empty one, which a run fills again from the vault."""

    def __init__(self, path: Path, reason: str, moved_to: Path):
        super().__init__(f"the state database {path} was damaged ({reason}); vaultsync moved it to "
                         f"{moved_to.name} and rebuilt it from the vault")
        self.path, self.reason, self.moved_to = path, reason, moved_to


# SQLite's primary result codes (``sqlite3.Error.sqlite_errorcode & 0xFF``), and what its
# messages say where Python gives no code (a TEXT column that is not UTF-8 is Python's finding)
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26
_SAYS = ((_BUSY, "database is locked"), (_FULL, "disk is full"), (_READONLY, "readonly database"),
         (_CANTOPEN, "unable to open"), (_CORRUPT, "malformed"), (_NOTADB, "not a database"),
         (_CORRUPT, "could not decode"), (_IOERR, "disk i/o error"))


@contextmanager
def damage_stops_the_run() -> Iterator[None]:
    """Around a sync's writes: a state found damaged once notes are being written stops the run
    (a run that found it damaged before writing goes on at once on the empty one), and the next
    run rebuilds it."""
    try:
        yield
    except StateDamaged as damaged:
        raise StateError(f"the state database {damaged.path} was damaged ({damaged.reason}) while notes "
                         f"were being written; vaultsync moved it to {damaged.moved_to.name}: run vaultsync "
                         "again to rebuild it from the vault") from None


class StateDatabase:
    """One SQLite database (WAL mode) with ``schema``. Statements return their rows as a list.

    ``repair``: a damaged database is moved aside and replaced by an empty one, and the error is
    raised as ``StateDamaged`` (without it, as ``StateError``, and the file is left alone: what
    ``vaultsync doctor`` wants)."""

    def __init__(self, path: Path, schema: str, repair: bool = True,
                 on_replaced: Callable[[], None] = lambda: None):
        self.path, self._schema, self._repair = path, schema, repair
        self._on_replaced = on_replaced  # told when an empty database took the damaged one's place
        self._db: sqlite3.Connection | None = None
        try:
            self._open()
        except StateDamaged as damaged:
            # found at once: nothing was read from it, so the run goes on with the empty one (the
            # caller tells the user: ``vaultsync export`` in its report)
            log.debug("%s", damaged)
            self.repaired: StateDamaged | None = damaged
        else:
            self.repaired = None

    def _open(self) -> None:
        def connect() -> None:
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(self._schema)

        self._guarded(connect)

    # -- statements --------------------------------------------------------------------------
    def execute(self, sql: str, parameters: Iterable[Any] = ()) -> list[tuple]:
        return self._guarded(lambda: self._db.execute(sql, tuple(parameters)).fetchall())

    def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        self._guarded(lambda: self._db.executemany(sql, rows))

    @property
    def in_transaction(self) -> bool:
        return self._db is not None and self._db.in_transaction

    def rollback_quietly(self) -> None:
        """Undo the open transaction, if SQLite has not already (it does on a full disk): the
        error that caused the rollback is the one to report."""
        try:
            if self._db is not None and self._db.in_transaction:
                self._db.execute("ROLLBACK")
        except sqlite3.Error:
            log.debug("rollback failed", exc_info=True)

    def close(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                log.debug("closing the state failed", exc_info=True)
            self._db = None

    # -- errors ------------------------------------------------------------------------------
    def _guarded(self, action):
        try:
            return action()
        except sqlite3.Error as error:
            raise self._sentence(error) from None

    def _sentence(self, error: sqlite3.Error) -> StateError:
        text = str(error)
        code = (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF
        if code == 0:
            code = next((known for known, words in _SAYS if words in text.lower()), 0)
        where = f"the state database {self.path}"
        if code in (_BUSY, _LOCKED):
            return StateError(f"{where} is locked by another program; close that program (or wait for it) "
                              "and run again")
        if code == _FULL:
            return StateError(f"the disk holding {where} is full; free some space and run again")
        if code in (_READONLY, _CANTOPEN):
            return StateError(f"{where} cannot be written ({text}); check the permissions of "
                              f"{self.path.parent}, or set VAULTSYNC_STATE_DIR to a folder you can write")
        if code in (_CORRUPT, _NOTADB):
            return self._damaged(text)
        if code == _IOERR:
            return StateError(f"{where} could not be read or written ({text}); check the disk, then run again")
        return StateError(f"{where} failed ({text}); run again, or delete it: the next run rebuilds it "
                          "from the vault")

    def _damaged(self, reason: str) -> StateError:
        if not self._repair:
            return StateError(f"the state database {self.path} is damaged ({reason}); run vaultsync export "
                              "to set it aside and rebuild it from the vault")
        self.close()
        moved = self.path.with_name(f"{self.path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            for suffix in ("", "-wal", "-shm"):
                source = Path(f"{self.path}{suffix}")
                if source.exists():
                    os.replace(source, Path(f"{moved}{suffix}"))
            self._open()
            self._on_replaced()
        except (OSError, StateError) as error:
            return StateError(f"the state database {self.path} is damaged ({reason}) and could not be set "
                              f"aside ({error}); delete it: the next run rebuilds it from the vault")
        return StateDamaged(self.path, reason, moved)
