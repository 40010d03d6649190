"""Write files into the vault safely: atomically, and never outside it.

A note is written to a temp file in its own folder (``.vaultsync-tmp-…``: a dot-name, so
Obsidian and sync tools ignore it), flushed to disk, then renamed over the note, and the folder
is flushed too. A crash at any instant leaves the old note or the new one, never half of one;
``sweep_temp_files`` removes the temp files a crash left behind.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from .errors import VaultsyncError

TEMP_PREFIX = ".vaultsync-tmp-"
_FORBIDDEN = {"\\"} | {chr(c) for c in range(32)}  # backslash: a separator on Windows
_NOT_NAMES = frozenset({"", ".", ".."})  # parts a plain path never has


class NoteChangedError(VaultsyncError):
    """The note changed on disk between reading it and replacing it (the user saved it)."""


def check_relative(relative: str, *, hidden_ok: bool = False) -> list[str]:
    """The parts of ``relative`` if it is a plain relative POSIX path that stays inside the vault
    on paper (no ``..``, ``.``, empty, absolute, drive or -- unless ``hidden_ok`` -- dot-named
    parts), else ``VaultsyncError``. Symlinks are ``resolve_vault_path``'s business."""
    parts = relative.split("/")
    # (set look-ups, not a generator over every character: asked of every note at every sync)
    if (not relative or relative.startswith("/") or not _NOT_NAMES.isdisjoint(parts)
            or not _FORBIDDEN.isdisjoint(relative) or (len(parts[0]) > 1 and parts[0][1] == ":")
            or (not hidden_ok and any(p.startswith(".") for p in parts))):
        raise VaultsyncError(f"refused to write {relative!r}: not a plain path inside the vault")
    return parts


def resolve_vault_path(vault: str | os.PathLike, relative: str, *, hidden_ok: bool = False,
                       folders: dict[str, tuple[Path, bool]] | None = None) -> Path:
    """The real path of ``relative`` inside ``vault``, or ``VaultsyncError`` if it would escape.

    ``relative`` must be a relative POSIX path without ``..``, ``.``, empty or (unless
    ``hidden_ok``) dot-named parts. Symlinks on the way are resolved: one that leads outside the
    vault is refused; one inside it is written through (the returned path is the real file).
    ``folders``, a dict kept for one sync, remembers each folder's real path and whether it is
    inside the vault, so thousands of notes in `Papers/` resolve their folder once (the note
    itself is still checked for a symlink each time).
    """
    parts = check_relative(relative, hidden_ok=hidden_ok)
    if folders is None:
        root = Path(vault).resolve()
        target = (root / Path(*parts)).resolve()
    else:
        if "" not in folders:
            folders[""] = (Path(vault).resolve(), True)
        root = folders[""][0]
        folder = "/".join(parts[:-1])
        known = folders.get(folder)
        if known is None:
            real = (root / Path(*parts[:-1])).resolve() if folder else root
            known = folders[folder] = (real, real.is_relative_to(root))
        real_folder, inside = known
        target = real_folder / parts[-1]
        if os.path.islink(target):
            target = target.resolve()
        elif inside:
            return target  # a plain name in a folder found inside the vault
    if target == root or not target.is_relative_to(root):
        raise VaultsyncError(
            f"refused to write {relative!r}: it leads outside the vault (through a symlink?)")
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()


def file_signature(path: str | os.PathLike) -> tuple[int, int, int] | None:
    """(inode, size, mtime_ns) of a file, or ``None`` if it does not exist: a cheap change check."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a file just created or renamed in it) to disk, where the system can."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # e.g. Windows cannot open folders
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_bytes_atomically(
    path: str | os.PathLike, data: bytes, *, vault: str | os.PathLike | None = None,
    expect: tuple[int, int, int] | None | bool = False,
) -> Path:
    """Replace ``path`` with ``data`` atomically; return the real path written.

    With ``vault``, ``path`` is vault-relative and checked by ``resolve_vault_path``; without
    it, ``path`` must not contain ``..``. ``expect`` (a ``file_signature`` or ``None`` for
    "must not exist") is checked just before the rename; on mismatch the temp file is removed
    and ``NoteChangedError`` raised, so an edit saved meanwhile is never overwritten.
    """
    if vault is not None:
        target = resolve_vault_path(vault, os.fspath(path), hidden_ok=True)
    else:
        if ".." in Path(path).parts:
            raise VaultsyncError(f"refused to write {os.fspath(path)!r}: it contains '..'")
        target = Path(path)
    tmp = _write_temp(target, data, durable=True, exists=expect is not None)
    try:
        if expect is not False and file_signature(target) != expect:
            raise NoteChangedError(f"{os.fspath(path)} changed while vaultsync was writing it")
        os.replace(tmp, target)
    except BaseException:
        _unlink(tmp)
        raise
    fsync_folder(target.parent)
    return target


def _write_temp(target: Path, data: bytes, durable: bool, exists: bool = True) -> str:
    """A hidden temp file beside ``target`` holding ``data``, with ``target``'s permissions;
    ``durable`` flushes it to disk (a batch flushes all its temp files at once instead).
    ``exists``: False when the caller has just found ``target`` missing, so the temp file gets a
    new file's permissions without looking (if the note appears meanwhile, the caller's
    signature check before the rename refuses to replace it)."""
    mode = _MODE
    if exists:
        try:
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            pass
    try:
        fd, tmp = _create_temp(target.parent, mode)
    except FileNotFoundError:  # a new folder (not looked for first: most notes' folders exist)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _create_temp(target.parent, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if mode != _MODE:
            os.chmod(tmp, mode)
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


# ``tempfile.mkstemp``'s flags (binary on Windows: no newline translation; not inherited)
_TEMP_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0))


def _create_temp(folder: Path, mode: int) -> tuple[int, str]:
    """A new, uniquely named temp file in ``folder``, open for writing, created with ``mode``
    (less the umask, which ``_MODE`` already is): ``tempfile.mkstemp`` without its name
    generator's overhead and the ``chmod`` its 0600 files need (an export creates 30,000)."""
    for _ in range(100):
        tmp = os.path.join(folder, TEMP_PREFIX + secrets.token_hex(6))
        try:
            return os.open(tmp, _TEMP_FLAGS, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temp file name in {folder}")


class WriteBatch:
    """Many atomic writes made durable together, for a sync that writes thousands of notes.

    ``stage`` writes each temp file; ``commit`` flushes them all to disk at once (one ``syncfs``
    of the vault's file system, rather than one ``fsync`` per note, which costs more than
    everything else an export does), then renames each over its note (checking ``expect`` just
    before, as ``write_bytes_atomically`` does) and flushes each folder once. A crash at any
    instant still leaves every note old or new, never half of one.
    """

    def __init__(self) -> None:
        self._staged: list[tuple[str, Path, tuple[int, int, int] | None | bool]] = []

    def stage(self, target: Path, data: bytes, *, expect: tuple[int, int, int] | None | bool = False) -> None:
        """Write ``data`` to a temp file beside ``target`` (a real path from ``resolve_vault_path``)."""
        tmp = _write_temp(target, data, durable=False, exists=expect is not None)
        self._staged.append((tmp, target, expect))

    def __len__(self) -> int:
        return len(self._staged)

    def commit(self) -> list[Exception | None]:
        """Make every staged write durable and visible; one outcome per ``stage``, in order:
        ``None``, ``NoteChangedError`` (the note changed meanwhile; it was left alone) or ``OSError``."""
        staged, self._staged = self._staged, []
        try:
            _flush_files([tmp for tmp, _, _ in staged])
        except BaseException:
            for tmp, _, _ in staged:
                _unlink(tmp)
            raise
        outcomes: list[Exception | None] = []
        folders: dict[Path, None] = {}
        for index, (tmp, target, expect) in enumerate(staged):
            try:
                if expect is not False and file_signature(target) != expect:
                    raise NoteChangedError(f"{target} changed while vaultsync was writing it")
                os.replace(tmp, target)
                folders[target.parent] = None
                outcomes.append(None)
            except Exception as error:
                _unlink(tmp)
                outcomes.append(error)
            except BaseException:
                for left in staged[index:]:
                    _unlink(left[0])
                raise
        for folder in folders:
            fsync_folder(folder)
        return outcomes


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


_SYNCFS_FROM = 16  # files; below this, fsync each (syncfs also flushes other programs' writes)


def _flush_files(paths: list[str]) -> None:
    """Flush the data of ``paths`` to disk: one ``syncfs`` where Linux has it, else ``fsync`` each."""
    if not paths:
        return
    if len(paths) >= _SYNCFS_FROM and _syncfs(paths[0]):
        return
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _syncfs(path: str) -> bool:
    """``syncfs(2)`` on the file system holding ``path``; False where it is not available."""
    try:
        import ctypes  # lazy: only large syncs need it

        libc = ctypes.CDLL(None, use_errno=True)
        syncfs = libc.syncfs
    except (ImportError, OSError, AttributeError):
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        return syncfs(fd) == 0
    finally:
        os.close(fd)


def write_note_atomically(
    path: str | os.PathLike, text: str, *, vault: str | os.PathLike | None = None,
    expect: tuple[int, int, int] | None | bool = False,
) -> Path:
    """Write ``text`` as UTF-8 to ``path`` atomically (see ``write_bytes_atomically``)."""
    return write_bytes_atomically(path, text.encode("utf-8"), vault=vault, expect=expect)


def sweep_temp_files(vault: str | os.PathLike) -> list[Path]:
    """Remove temp files a crashed vaultsync left anywhere in ``vault``; return them.

    Call it only while holding the vault's writer lock. Symlinked folders are not entered.
    """
    removed: list[Path] = []
    for folder, dirs, files in os.walk(vault):
        dirs[:] = [d for d in dirs if d != ".git" and not os.path.islink(os.path.join(folder, d))]
        for name in files:
            if name.startswith(TEMP_PREFIX):
                path = Path(folder, name)
                try:
                    path.unlink()
                    removed.append(path)
                except FileNotFoundError:
                    pass
    return removed
