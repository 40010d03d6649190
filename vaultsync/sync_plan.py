"""What to do with one note, decided from what is on disk and what vaultsync recorded: a pure
function (``plan_note``) of frozen records, which reads and writes nothing.

The rules (see ``sync``): a note the user deleted is not recreated unless asked; a file owned
whole that someone changed since vaultsync wrote it is theirs; a note found at a path (not by
its id) that is the user's own or another id's is not overwritten; otherwise vaultsync's
properties and region are merged into the note (``property_merge``, ``regions``), and a region
the user edited, or markers or YAML they broke, make a conflict.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from dataclasses import dataclass
from typing import Any, Union

from .errors import VaultsyncError
from .frontmatter_io import FrontmatterError, read_frontmatter, split_note
from .property_merge import merge_base, merge_properties, proposal
from .records import OutputFile
from .regions import merge_note
from .state import NoteRecord

REMOVED_KEY, REMOVED_VALUE = "status", "removed"
_ENGINE = "vaultsync-sync-1"  # bump when the written form changes, to invalidate fast skips


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ``json.dumps(..., default=str, ensure_ascii=False)``, without making an encoder per note
_INPUT_JSON = json.JSONEncoder(default=str, ensure_ascii=False).encode


def input_sha(f: OutputFile) -> str:
    """A hash of everything the written note depends on besides the vault: equal inputs, equal
    hashes (it is only ever compared with the hashes this code recorded)."""
    fm = None if f.frontmatter is None else tuple(f.frontmatter.items())
    try:
        # marshal's version 2 takes only exact built-in types and writes no back-references, so
        # equal inputs give equal bytes; three times quicker than JSON for a note's body
        blob = b"m" + marshal.dumps((_ENGINE, f.body, fm, f.merge, f.kind), 2)
    except ValueError:  # a value of a plugin's own type: as JSON, with str() of it
        blob = b"j" + _INPUT_JSON([_ENGINE, f.body, fm, f.merge, f.kind]).encode("utf-8", "surrogatepass")
    return sha(blob)


def frontmatter_or_none(text: str | None) -> dict | None:
    """The properties of a note's text; None when it has none that can be read."""
    if text is None:
        return None
    try:
        return read_frontmatter(split_note(text)[0])
    except FrontmatterError:
        return None


NO_TEXT = object()  # a file written whole (a canvas): no frontmatter text to report


def frontmatter_text(text: str) -> bytes | None | object:
    """The frontmatter YAML of a note's text, as a reader of the note finds it (``split_note``),
    in UTF-8 (half the memory of a str with one non-Latin-1 character: 30,000 are kept until the
    sync's hooks ran); ``NO_TEXT`` when it has none that can be read."""
    try:
        yaml_text = split_note(text)[0]
    except FrontmatterError:
        return NO_TEXT
    return yaml_text if yaml_text is None else yaml_text.encode("utf-8")


def from_seeds(seed: str | None, source: Any, seeds: set[str]) -> bool:
    """Whether a paper came from one of ``seeds``: by the state, else by its ``source`` property."""
    if seed is not None:
        return seed in seeds
    if not isinstance(source, str):
        return False
    return any(source == s or (source.startswith(s) and not (source[len(s)].isalnum()
               or source[len(s)] in "._-/")) for s in seeds)


@dataclass(frozen=True)
class OnDisk:
    """What the vault holds at the path a note goes to (read before the note is planned)."""

    rel: str  # the vault path the note goes to
    data: bytes | None = None  # the file's bytes there; None: no file
    found_by_id: bool = False  # the note there was found by its vaultsync_id (not just by path)
    whole_file_hashes: tuple[str, ...] = ()  # of bytes vaultsync wrote there whole (``whole_files``)
    deleted: bool = False  # the user deleted vaultsync's note, and deleted notes are not recreated


@dataclass(frozen=True)
class Skip:
    """Leave the note alone: the user deleted it."""


@dataclass(frozen=True)
class Unchanged:
    """The file already holds ``data``: nothing to write; the note's record is brought up to date."""

    data: bytes
    region_sha: str | None
    owned_keys: tuple[str, ...]
    proposed: str | None  # ``property_merge.proposal``: the base of the next three-way merge


@dataclass(frozen=True)
class Write:
    """Write ``data`` (``text`` in UTF-8) in place of what the file holds."""

    text: str
    data: bytes
    region_sha: str | None
    owned_keys: tuple[str, ...]
    proposed: str | None


@dataclass(frozen=True)
class Conflict:
    """Do not touch the note: ``reason``; vaultsync's version (``proposed``, if any) goes beside it."""

    reason: str
    proposed: str | None


Plan = Union[Skip, Unchanged, Write, Conflict]


def plan_note(f: OutputFile, on_disk: OnDisk, record: NoteRecord | None) -> Plan:
    """What to do with the note ``f`` renders, given what is ``on_disk`` where it goes and the
    ``record`` of what vaultsync last wrote for it (None: nothing). Raises ``VaultsyncError``
    when the format rendered a note that cannot be merged (a bug in the format)."""
    if on_disk.deleted:
        return Skip()
    old_bytes, rel = on_disk.data, on_disk.rel
    if not f.merge:
        # a file owned whole (a canvas, a JSONL dump) that someone changed since vaultsync
        # wrote it -- a map the user rearranged -- is theirs now: propose, don't overwrite
        edited = (old_bytes is not None and old_bytes != f.body.encode("utf-8")
                  and (record is None or record.content_sha != sha(old_bytes))
                  and sha(old_bytes) not in on_disk.whole_file_hashes)
        if edited:
            return Conflict("it was changed since vaultsync wrote it", f.body)
        return _decided(f.body, None, (), None, old_bytes)
    try:
        existing = old_bytes.decode("utf-8") if old_bytes is not None else None
    except UnicodeDecodeError as exc:
        return Conflict(f"it is not UTF-8 (byte {exc.start})", None)
    fm = dict(f.frontmatter) if f.frontmatter is not None else None
    old_fm = frontmatter_or_none(existing)
    if existing is not None and not on_disk.found_by_id and f.vaultsync_id is not None:
        other = (old_fm or {}).get("vaultsync_id")
        if other != f.vaultsync_id:
            why = "a note of your own" if not other else "the note of another vaultsync_id"
            return Conflict(f"it is {why}", merge_note(None, fm, f.body).text)
    owned = list(fm or ())
    proposed = proposal(fm)  # (before the user's edits are merged in: the next merge's base)
    if fm is not None and old_fm:
        stored = record.proposed if record is not None else None
        untouched = stored is None and record is not None and record.content_sha == sha(old_bytes)
        fm = merge_properties(fm, old_fm, merge_base(stored, old_fm, untouched))
    if record is not None:
        owned += [k for k in record.owned_keys if k not in owned]
    if old_fm and old_fm.get(REMOVED_KEY) == REMOVED_VALUE and fm is not None:
        owned.append(REMOVED_KEY)  # the abstract is back
    last_region = record.region_sha if record is not None and record.path == rel else None
    try:
        result = merge_note(existing, fm, f.body, owned, last_region_sha=last_region)
    except ValueError as exc:
        raise VaultsyncError(f"{f.path}: {exc}; this is a bug in the format that rendered it") from exc
    if result.conflict:
        return Conflict(result.conflict, result.proposed)
    return _decided(result.text, result.region_sha, tuple(fm or ()), proposed, old_bytes)


def _decided(text: str, region_sha: str | None, owned: tuple[str, ...], proposed: str | None,
             old_bytes: bytes | None) -> Unchanged | Write:
    data = text.encode("utf-8")
    if data == old_bytes:
        return Unchanged(data, region_sha, owned, proposed)
    return Write(text, data, region_sha, owned, proposed)
