"""Finding vaultsync's notes in a vault: every Markdown file carrying a ``vaultsync_id``,
wherever the user moved it (dot-folders and symlinks are skipped)."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Mapping, Optional

from .frontmatter_io import note_head
from .state import NoteRecord
from .write import file_signature

Index = dict[str, tuple[str, Optional[str]]]  # vaultsync_id -> (vault path, type)


def note_stem(name: str) -> str:
    """``os.path.splitext(name)[0]``, without its cost for a name ending ".md" (nearly every
    note: a watcher asks for the stem of every note before each round)."""
    if name[-3:] == ".md" and name[:-3].lstrip("."):
        return name[:-3]
    return os.path.splitext(name)[0]


def scan_notes(root: Path, known: Mapping[str, NoteRecord]) -> tuple[Index, list[str]]:
    """The notes in the vault at ``root`` by id, and a warning per id that several notes carry.

    ``known``: what the state recorded (id -> record). A note whose stat signature is the one
    vaultsync recorded is what it wrote: its id and type come from the state, so only notes
    changed or unknown since are read."""
    warnings: list[str] = []
    found: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    recorded = {(rec.path, rec.signature): rec for rec in known.values() if rec.signature and rec.vaultsync_id}
    prefix = os.path.join(str(root), "")  # of every path os.walk gives (pathlib: 30k objects)
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and not os.path.islink(os.path.join(folder, d)))
        for name in sorted(files):
            full = os.path.join(folder, name)
            if name.startswith(".") or not name.endswith(".md") or os.path.islink(full):
                continue
            rel = full[len(prefix):].replace(os.sep, "/")
            rec = recorded.get((rel, file_signature(full)))
            if rec is not None:
                found[rec.vaultsync_id].append((rel, rec.kind))
                continue
            head = note_head(full)
            if head.get("vaultsync_id"):
                found[head["vaultsync_id"]].append((rel, head.get("type")))
    # a run killed after renaming its notes into place and before saving the state leaves
    # notes the state never recorded: one it updated in place under a new id (an edited
    # abstract's) carries that id at the path the state records for the former one. It is
    # still the former id's note: else that id would look deleted by the user, and its
    # paper would never get a note again when the abstract is as it was
    unknown = [vid for vid in found if vid not in known]  # (nearly always none)
    owners = {rec.path: rec.vaultsync_id for rec in known.values() if rec.vaultsync_id} if unknown else {}
    for vid in unknown:
        for place in list(found[vid]):
            owner = owners.get(place[0])
            if owner is not None and owner not in found:
                found[vid].remove(place)
                found[owner] = [place]
        if not found[vid]:
            del found[vid]
    index: Index = {}
    for vid, places in found.items():
        places.sort(key=lambda p: p[0])
        if len(places) > 1:
            rec = known.get(vid)
            first = next((p for p in places if rec and p[0] == rec.path), places[0])
            places.remove(first)
            places.insert(0, first)
            others = ", ".join(p for p, _ in places[1:])
            warnings.append(f"{first[0]} and {others} carry the same vaultsync_id; vaultsync updates "
                            f"{first[0]} only (remove vaultsync_id from the copy)")
        index[vid] = places[0]
    return index, warnings


def list_notes(root: Path) -> set[str]:
    """The vault paths of every Markdown file outside dot-folders (symlinks skipped), unread."""
    paths: set[str] = set()
    folders = [""]
    while folders:  # plain strings: this runs before every watch round, over thousands of notes
        folder = folders.pop()
        prefix = f"{folder}/" if folder else ""
        with os.scandir(os.path.join(root, folder)) as entries:
            for entry in entries:
                name = entry.name
                if name[0] == ".":
                    continue
                if entry.is_dir(follow_symlinks=False):  # (False for a link to a folder)
                    folders.append(prefix + name)
                elif name[-3:] == ".md" and not entry.is_symlink():
                    paths.add(prefix + name)
    return paths
