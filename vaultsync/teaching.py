"""The user's vault teaches the vocabulary.

A concept note the user created (no ``vaultsync_id``) or edited (its bytes differ from what
vaultsync last wrote, by the state's record) is a statement about the field: its title is a
concept, its ``aliases`` are that concept's spellings, its ``broader`` links place it. What an
edited note taught is remembered in ``.vaultsync/taught.json`` inside the vault, so the lesson
outlives vaultsync's next rewrite of the note and a lost state, and travels with the vault.

Notes vaultsync wrote and nobody touched teach nothing: feeding the tool's own output back
into it would make every export differ from the one before. A generated note the state has no
record of (a fresh clone, a deleted state) is taken as untouched for the same reason.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Collection

from .frontmatter_io import FrontmatterError, note_head, read_frontmatter, split_note
from .records import TaughtConcept
from .sync import VaultSession
from .write import write_note_atomically

log = logging.getLogger(__name__)

CONCEPTS_FOLDER = "Concepts"
LESSONS_FILE = ".vaultsync/taught.json"  # inside the vault: lessons travel with it


def _link_text(value: Any) -> str:
    text = str(value).strip()
    if text.startswith("[[") and text.endswith("]]"):
        text = text[2:-2].split("|")[-1].split("#")[0]
    return " ".join(text.split())


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def read_taught(path: Path) -> TaughtConcept | None:
    """The concept a note states, or None for another type, a removed note, or broken YAML."""
    try:
        yaml_text, _ = split_note(path.read_text(encoding="utf-8-sig"))
        meta = read_frontmatter(yaml_text)
    except (OSError, UnicodeDecodeError, FrontmatterError) as error:
        log.debug("not learning from %s: %s", path, error)
        return None
    if meta.get("type", "concept") != "concept" or meta.get("status") == "removed":
        return None
    name = _link_text(meta.get("title") or path.stem)
    if not name:
        return None
    aliases = tuple(a for a in map(_link_text, _as_list(meta.get("aliases"))) if a)
    broader = tuple(b for b in map(_link_text, _as_list(meta.get("broader"))) if b)
    return TaughtConcept(name, aliases, broader)


def taught_concepts(session: VaultSession, remember: bool = True,
                    user_notes: list[tuple[str, TaughtConcept]] | None = None) -> tuple[TaughtConcept, ...]:
    """Every concept the user's vault teaches, in a stable order (see the module docstring).
    ``user_notes``: ``user_concept_notes`` of the vault, if the caller has them already."""
    root = session.root
    if user_notes is None:
        user_notes = user_concept_notes(root, session.note_paths())
    lessons: dict[str, TaughtConcept] = {f"path:{stem}": taught for stem, taught in user_notes}
    stored = _read_lessons(root)
    remembered: dict[str, list] = json.loads(stored) if stored else {}
    live = session.existing_names()
    remembered = {vid: value for vid, value in remembered.items() if vid in live}
    for vid, rel in sorted(session.changed_notes("concept", unknown_changed=False).items()):
        taught = read_taught(root / rel)
        if taught:
            remembered[vid] = [taught.name, list(taught.aliases), list(taught.broader)]
    for vid, (name, aliases, broader) in sorted(remembered.items()):
        lessons[vid] = TaughtConcept(name, tuple(aliases), tuple(broader))
    if remember:
        encoded = json.dumps(remembered, sort_keys=True, ensure_ascii=False, indent=1) + "\n"
        if encoded != (stored or "{}\n") and (remembered or stored):
            write_note_atomically(LESSONS_FILE, encoded, vault=root)
    return tuple(lessons.values())


def user_concept_notes(root: Path, generated: Collection[str] = ()) -> list[tuple[str, TaughtConcept]]:
    """(note stem, concept) of every concept note the user created in the Concepts folder.

    ``generated``: vault paths known to carry a ``vaultsync_id`` (the session's index), not read."""
    folder = root / CONCEPTS_FOLDER
    if not folder.is_dir():
        return []
    found = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if f"{CONCEPTS_FOLDER}/{entry.name}" in generated:
            continue
        if entry.name.endswith(".md") and entry.is_file() and not note_head(entry.path).get("vaultsync_id"):
            taught = read_taught(Path(entry.path))
            if taught:
                found.append((entry.name[:-3], taught))
    return found


def _read_lessons(root: Path) -> str | None:
    try:
        return (root / LESSONS_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
