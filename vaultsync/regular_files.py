"""Only regular files are read from the seeds folder: never blocking, never without end.

A named pipe opened for reading waits for a writer forever; a link to ``/dev/zero`` never ends;
a link to itself cannot be followed. Whatever sits in the seeds folder (a seed file, or anything
the fingerprint of a run or the watcher's stability check looks at), it is opened without
blocking (``O_NONBLOCK``), then checked on the open descriptor (so it cannot be swapped in
between): a regular file of at most ``MAX_SEED_BYTES``, or a ``VaultsyncError`` of one line.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from typing import BinaryIO

from .errors import VaultsyncError

MAX_SEED_BYTES = 1 << 30  # 1 GiB: some two million abstracts; anything larger is not a seed file
_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
          | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0))
_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def open_regular_file(path: str | os.PathLike, display: str) -> BinaryIO:
    """``path`` open for reading in binary, if it is a regular file of at most ``MAX_SEED_BYTES``;
    else ``VaultsyncError`` naming ``display`` and what to do."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as error:
        raise VaultsyncError(_unreadable(path, display, error)) from None
    try:
        _check(os.fstat(fd), display)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def require_regular_file(path: str | os.PathLike, display: str) -> None:
    """``VaultsyncError`` unless ``path`` (followed if a link) is a regular file that may be read
    (by ``stat``: nothing is opened)."""
    try:
        status = os.stat(path)
    except OSError as error:
        raise VaultsyncError(_unreadable(path, display, error)) from None
    _check(status, display)


def file_digest(path: str | os.PathLike) -> str:
    """The SHA-256 of a regular file's bytes, read in blocks; for anything else, a digest of
    why it cannot be read (so that it changes when the file becomes readable)."""
    digest = hashlib.sha256()
    try:
        with open_regular_file(path, "") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    except (VaultsyncError, OSError) as error:
        return "unreadable:" + hashlib.sha256(str(error).encode("utf-8", "replace")).hexdigest()
    return digest.hexdigest()


def _check(status: os.stat_result, display: str) -> None:
    if not stat.S_ISREG(status.st_mode):
        kind = next((name for test, name in _KINDS if test(status.st_mode)), "not a regular file")
        raise VaultsyncError(f"{display}: is {kind}, not a seed file; skipped it (remove it from the seeds folder)")
    if status.st_size > MAX_SEED_BYTES:
        raise VaultsyncError(f"{display}: is {status.st_size:,} bytes, more than a seed file may hold "
                             f"({MAX_SEED_BYTES:,}); skipped it (split it into smaller files)")


def _unreadable(path: str | os.PathLike, display: str, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return f"{display}: is a symbolic link that leads back to itself; skipped it (remove it)"
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"{display}: cannot be read (permission denied); check its permissions"
    if error.errno == errno.ENOENT and os.path.islink(path):
        return f"{display}: is a symbolic link to a file that does not exist; skipped it (remove it)"
    return f"{display}: cannot be read ({error.strerror or error}); check the file"
