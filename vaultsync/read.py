"""Stage 1, read: find the seed files in the seeds folder and read each into abstracts."""

from __future__ import annotations

import fnmatch
import logging
import os
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable

import pluggy

from .errors import VaultsyncError
from .plugins import call_safely
from .records import Collection, Seed
from .regular_files import require_regular_file

log = logging.getLogger(__name__)

# Editors', sync tools' and downloaders' scratch files are never seeds.
IGNORED_NAMES = ("*~", "*.swp", "*.swx", "*.tmp", "*.part", "*.crdownload", "*.sync-conflict-*",
                 "*conflicted copy*", "#*#", "*.bak")


@dataclass
class ReadResult:
    """The seeds read, and one line per problem met (the run's exit status reflects them)."""

    seeds: list[Seed] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # one line per seed file that could not be read


def is_ignored(name: str) -> bool:
    """True for hidden, temporary and sync-artefact file names."""
    return name.startswith(".") or any(fnmatch.fnmatch(name, pattern) for pattern in IGNORED_NAMES)


def display_name(seeds_dir: Path, relative: str) -> str:
    """How a seed file is named in messages: the path as the user would type it."""
    return printable(str(seeds_dir / relative))


def printable(name: str) -> str:
    """A file name fit for a message and for a note, even if it was not valid UTF-8."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def require_seeds_folder(seeds_dir: Path) -> None:
    """``VaultsyncError`` unless ``seeds_dir`` is a folder."""
    if not seeds_dir.is_dir():
        what = "is not a folder" if seeds_dir.exists() else "does not exist"
        raise VaultsyncError(f"seeds folder {seeds_dir} {what}; create it or pass the right path")


def list_seed_files(seeds_dir: Path) -> list[str]:
    """Every candidate seed file below ``seeds_dir`` (relative POSIX paths, sorted)."""
    require_seeds_folder(seeds_dir)
    found = []
    for root, dirs, files in os.walk(seeds_dir, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if not is_ignored(name):
                found.append((Path(root) / name).relative_to(seeds_dir).as_posix())
    return sorted(found)


def read_seed_file(seeds_dir: Path, relative: str, pm: pluggy.PluginManager) -> Seed | None:
    """Read one seed file through the ``vaultsync_read_seed`` hook.

    Returns None for files no plugin reads (not seeds). Raises ``VaultsyncError`` with one line
    for a seed that cannot be used.
    """
    path = seeds_dir / relative
    display = display_name(seeds_dir, relative)
    if path.is_symlink():
        target = Path(os.path.realpath(path))  # (never raises: a link to itself stays as it is)
        if not target.is_relative_to(Path(os.path.realpath(seeds_dir))):
            raise VaultsyncError(
                f"{display}: is a link to {printable(str(target))}, outside the seeds folder; "
                "skipped it (copy the file into the seeds folder instead)"
            )
    require_regular_file(path, display)  # a named pipe, a device, a link loop: one line, never a hang
    safe_relative = printable(relative)
    outcome = call_safely(pm, "vaultsync_read_seed", context_text=display, path=path, relative=safe_relative)
    seed = outcome.result
    if seed is None and outcome.failures:
        failure = outcome.failures[0]
        raise VaultsyncError(failure.error if failure.user_error else str(failure))
    if seed is not None and safe_relative != relative:
        seed = Seed(seed.path, seed.collection, seed.abstracts,
                    seed.problems + (f"{display}: file name is not valid UTF-8; rename it",))
    return seed


# What a seed file gave the last time it was read: its stat signature, the seed (None for a file
# no plugin reads) and the one-line failure (None when it was read).
CachedSeed = tuple[tuple[int, int, int] | None, Seed | None, str | None]


def seed_signature(path: Path) -> tuple[int, int, int] | None:
    """(mtime, size, inode) of a seed file, or None when it cannot be stat'ed."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


def read_seeds(seeds_dir: Path, pm: pluggy.PluginManager, only: list[str] | None = None,
               cache: dict[str, CachedSeed] | None = None, known: Iterable[Collection] = ()) -> ReadResult:
    """Read every seed file (or only the relative paths in ``only``); problems never stop the run.

    With ``cache`` (kept by a long-lived caller), a file whose stat signature is unchanged is not
    read again, and files gone from the folder leave the cache. Collections named alike but for
    case are one (``one_spelling_per_collection``, with the ``known`` collections)."""
    result = ReadResult()
    current = only if only is not None else list_seed_files(seeds_dir)
    for relative in current:
        signature = seed_signature(seeds_dir / relative) if cache is not None else None
        cached = cache.get(relative) if cache is not None else None
        if cached is None or signature is None or cached[0] != signature:
            try:
                cached = (signature, read_seed_file(seeds_dir, relative, pm), None)
            except VaultsyncError as error:
                cached = (signature, None, str(error))
            if cache is not None:
                cache[relative] = cached
        _, seed, failure = cached
        if failure:
            result.failed.append(failure)
        elif seed is None:
            log.debug("%s: not a seed file; ignored", relative)
        else:
            result.seeds.append(seed)
            result.problems.extend(seed.problems)
    if cache is not None and only is None:
        for gone in set(cache) - set(current):
            del cache[gone]
    result.seeds = one_spelling_per_collection(result.seeds, known)
    return result


def one_spelling_per_collection(seeds: list[Seed], known: Iterable[Collection] = ()) -> list[Seed]:
    """``seeds`` with the collections whose names differ only by case (``Foo`` / ``foo``, ``NUL``
    / ``nul``) made one: a collection is one note, and note names never differ only by case (its
    ``vaultsync_id`` ignores case too). Each takes the spelling that sorts first, among ``seeds``
    and the ``known`` collections (those of the vault's other seeds)."""
    spellings: dict[str, dict[str, Collection]] = defaultdict(dict)
    for collection in [*known, *(seed.collection for seed in seeds)]:
        spellings[collection.name.casefold()].setdefault(collection.name, collection)
    if all(len(names) == 1 for names in spellings.values()):
        return seeds  # (nearly always)
    chosen = {key: names[min(names)] for key, names in spellings.items()}
    unified = []
    for seed in seeds:
        collection = chosen[seed.collection.name.casefold()]
        if collection != seed.collection:
            seed = replace(seed, collection=collection, abstracts=tuple(
                replace(a, collection=chosen[a.collection.name.casefold()]) for a in seed.abstracts))
        unified.append(seed)
    return unified
