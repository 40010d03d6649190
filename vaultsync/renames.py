"""Notes whose names change: vaultsync's own names that follow fixed text, and what a rename
means for the links vaultsync wrote earlier.

A seed read before it was valid UTF-8 (saved as Latin-1 by mistake) gives text with U+FFFD
where the undecodable bytes were, and notes named from it (``R�seau``). Such a name is not the
user's choice: once the seed is saved again as UTF-8, the paper keeps its note (edit matching
finds it), and the note follows the better name. The old name becomes one of the note's aliases,
so the user's own links to it still resolve; vaultsync's links are rendered with the new name.

A note renamed (by vaultsync, or by the user in a file manager) or deleted leaves links to its
old name in what vaultsync wrote and keeps as history (``New papers.md``): ``relink`` rewrites
them to the new name, or to plain text when the note is gone.
"""

from __future__ import annotations

import hashlib
import os
import re
from operator import attrgetter
from pathlib import Path
from typing import Iterable, Mapping

from .frontmatter_io import FrontmatterError, merge_frontmatter, read_frontmatter, split_note
from .records import Abstract
from .state import NoteRecord, State
from .whole_files import WholeFileLedger
from .write import file_signature, fsync_folder, write_bytes_atomically

UNDECODABLE = "\ufffd"  # what undecodable bytes became (``decoding``)
_LINK = re.compile(r"(!?)\[\[([^\[\]|#\n]+)((?:[#|][^\[\]\n]*)?)\]\]")


def named_from_undecodable_text(stem: str) -> bool:
    return UNDECODABLE in stem


def fixed_by(old_stem: str, new_stem: str) -> bool:
    """Whether ``new_stem`` is ``old_stem`` with its undecodable characters read properly (each
    run of U+FFFD standing for one or more characters, the rest the same)."""
    if not named_from_undecodable_text(old_stem) or named_from_undecodable_text(new_stem):
        return False
    parts = [re.escape(part) for part in re.split(f"{UNDECODABLE}+", old_stem)]
    return re.fullmatch(".+?".join(parts), new_stem, re.S) is not None


def fixed_collections(old: Mapping[str, str], new: Mapping[str, str]) -> dict[str, str]:
    """Collections renamed by a fixed header: {new id: old id}, pairing each old collection
    (id -> the stem of its note, gone from the seeds) named from undecodable text with the one
    new collection (id -> its note stem) whose name fixes it."""
    matches = {}
    for old_id, old_stem in old.items():
        if not named_from_undecodable_text(old_stem):
            continue
        found = [new_id for new_id, new_stem in new.items() if new_id not in matches and fixed_by(old_stem, new_stem)]
        if len(found) == 1:
            matches[found[0]] = old_id
    return matches


def names_to_follow(abstracts: Iterable[Abstract], existing: Mapping[str, str], kinds: Mapping[str, str | None],
                    edited_from: Mapping[str, tuple[str, str | None]]) -> tuple[set[str], dict[str, str]]:
    """What follows fixed text, among the notes ``existing`` (id -> note stem; ``kinds``: id ->
    type; ``edited_from``: an edited abstract's id -> its former text and the name vaultsync gave
    its note): the ids of papers named from undecodable text -- the name holds U+FFFD, or the
    former text did and the note still has the name vaultsync gave it -- whose abstract now
    reads without it; and {new collection id: old collection id} for collections whose header
    was fixed."""
    from .link_rules import collection_id  # lazy: start-up time
    from .names import safe_note_name

    abstracts = list(abstracts)
    headers = {}
    # (each collection's name hashed once, not once per abstract: 20,000 abstracts every round)
    for name in dict.fromkeys(map(attrgetter("collection.name"), abstracts)):
        headers.setdefault(collection_id(name), name)
    # (only names that hold U+FFFD, or edited abstracts', may follow: the rest are not looked at)
    maybe = [vid for vid, stem in existing.items() if UNDECODABLE in stem or vid in edited_from]
    texts = {abstract.id: abstract.text for abstract in abstracts} if maybe else {}
    papers = {vid for vid in maybe if vid in texts and UNDECODABLE not in texts[vid] and (
        named_from_undecodable_text(existing[vid])
        or (vid in edited_from and UNDECODABLE in edited_from[vid][0] and existing[vid] == edited_from[vid][1]))}
    # collections gone from the seeds: most rounds none, and then ``existing`` is not walked
    gone = {vid for vid, kind in kinds.items() if kind == "collection" and vid not in headers}
    old = {vid: stem for vid, stem in existing.items() if vid in gone} if gone else {}
    new = {cid: safe_note_name(name) for cid, name in headers.items() if cid not in existing}
    return papers, fixed_collections(old, new) if old and new else {}


def rename_note(old: Path, new: Path, old_stem: str) -> None:
    """Rename the note ``old`` to ``new`` (a free name), its old name added to its aliases first:
    killed in between, the next run finds it under either name, with the alias. Raises
    ``OSError`` or ``UnicodeDecodeError`` (the note is then as it was, or renamed only)."""
    text = old.read_text("utf-8")
    aliased = with_alias(text, old_stem)
    if aliased != text:
        write_bytes_atomically(old, aliased.encode("utf-8"), expect=file_signature(old))
    os.rename(old, new)
    fsync_folder(new.parent)


def move_views(root: Path, state: State, ledger: WholeFileLedger, old_stem: str,
               new_stem: str) -> dict[str, NoteRecord]:
    """Rename the files vaultsync owns whole and named after a note (``Maps/<name>.canvas``)
    with the note, with their records, when they are as vaultsync wrote them (one the user
    changed is theirs: it stays, and the new name gets a fresh one). Returns {old key: the
    record under its new key}."""
    moved = {}
    for key, rec in state.notes().items():
        folder, _, name = rec.path.rpartition("/")
        stem, dot, ext = name.rpartition(".")
        if not key.startswith("path:") or stem != old_stem or not dot:
            continue
        new_rel = f"{folder}/{new_stem}.{ext}" if folder else f"{new_stem}.{ext}"
        old_full, new_full = root / rec.path, root / new_rel
        try:
            if os.path.lexists(new_full) or os.path.islink(old_full) or rec.content_sha != _sha_of(old_full):
                continue
            ledger.expect([(new_rel, rec.content_sha)])  # (first: killed after the rename, it is known)
            os.rename(old_full, new_full)
        except OSError:
            continue
        state.delete_note(key)
        moved[key] = NoteRecord(f"path:{new_rel}", new_rel, rec.kind, rec.content_sha, rec.region_sha, rec.input_sha,
                                rec.owned_keys, file_signature(new_full), rec.proposed)
        state.put_note(moved[key])
    return moved


def _sha_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def with_alias(text: str, alias: str) -> str:
    """The note ``text`` with ``alias`` added to its ``aliases`` property (as the user would, so
    it is kept: see ``property_merge``); the text as it is if it has it, or has no frontmatter
    vaultsync can read."""
    try:
        yaml_text, body = split_note(text)
        meta = read_frontmatter(yaml_text)
    except FrontmatterError:
        return text
    if yaml_text is None:
        return text
    aliases = meta.get("aliases")
    aliases = list(aliases) if isinstance(aliases, (list, tuple)) else [] if aliases is None else [aliases]
    if alias in aliases:
        return text
    return f"---\n{merge_frontmatter(yaml_text, {'aliases': [*aliases, alias]})}---\n{body}"


def relink(text: str, renamed: Mapping[str, str], gone: Iterable[str] = ()) -> str:
    """``text`` with its ``[[links]]`` to a renamed note pointing at the new name, and those to
    a note that is gone turned into plain text (the link's display text, or its target)."""
    gone = set(gone)
    if not renamed and not gone:
        return text

    def replace(match: re.Match) -> str:
        embed, target, rest = match.groups()
        name = target.strip()
        if name in renamed:
            return f"{embed}[[{renamed[name]}{rest}]]"
        if name in gone and not embed:
            return rest[1:] if rest.startswith("|") and len(rest) > 1 else name
        return match.group(0)

    return _LINK.sub(replace, text)
