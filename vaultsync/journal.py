"""What a sync is about to write, recorded before its notes are renamed into place.

A sync records each note it writes in the state database, in one transaction committed once
the run is done. A run killed between renaming notes into place and that commit would leave
notes whose bytes the state does not know: the next run would take vaultsync's own writing for
the user's edits (concept notes "teaching" the vocabulary, maps kept as "changed since vaultsync
wrote it"), and the digest would never hear of the notes the killed run created.

So the records of each batch are appended to a journal beside the state database and flushed to
disk *before* the batch is renamed into place; the journal is emptied once the run is accounted
for (state saved, after-sync hooks run). A session that finds a journal ``recover``s it: every
journaled note whose bytes are still the journaled ones is recorded as vaultsync's, and the next
sync reports it again as created or updated, for the hooks that never saw it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable

from .state import NoteRecord, State
from .write import file_signature, fsync_folder

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JournalEntry:
    """A note about to be written: its record (without a signature), and whether it existed."""

    record: NoteRecord
    existed: bool


class WriteJournal:
    """The journal file at ``path`` (None: a dry run, which journals nothing)."""

    def __init__(self, path: Path | None):
        self.path = path

    def exists(self) -> bool:
        return self.path is not None and self.path.exists()

    def record(self, entries: Iterable[JournalEntry]) -> None:
        """Append ``entries`` and flush them to disk (before the notes they describe are renamed)."""
        if self.path is None:
            return
        lines = "".join(json.dumps(_fields(entry), ensure_ascii=False) + "\n" for entry in entries)
        if not lines:
            return
        new = not self.path.exists()
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(lines)
            handle.flush()
            os.fsync(handle.fileno())
        if new:  # the file's name must be on disk too
            fsync_folder(self.path.parent)

    def entries(self) -> list[JournalEntry]:
        """What the journal holds, oldest first (a line cut short by a crash is skipped)."""
        if self.path is None:
            return []
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        found = []
        for line in text.splitlines():
            try:
                key, path, kind, content, region, inp, owned, proposed, existed = json.loads(line)
            except (ValueError, TypeError):
                continue
            found.append(JournalEntry(NoteRecord(key, path, kind, content, region, inp, tuple(owned), None,
                                                 proposed), bool(existed)))
        return found

    def clear(self) -> None:
        """Empty the journal: what it recorded is accounted for."""
        if self.path is not None:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass


def recover(state: State, root: Path, journal: WriteJournal) -> dict[str, bool]:
    """Record in ``state`` every journaled note whose bytes in the vault at ``root`` are the
    journaled ones; return their paths, each with whether it existed before the journaled run
    (updated) or not (created). The journal is kept until the caller settles it."""
    entries = journal.entries()
    if not entries:
        journal.clear()
        return {}
    known = state.notes()
    owners = {rec.path: key for key, rec in known.items()}
    existed: dict[str, bool] = {}
    by_path: dict[str, list[NoteRecord]] = {}
    for entry in entries:
        existed.setdefault(entry.record.path, entry.existed)  # as before the first write
        by_path.setdefault(entry.record.path, []).append(entry.record)
    recovered: dict[str, bool] = {}
    with state.transaction():
        for rel, records in by_path.items():
            full = root / rel
            signature = file_signature(full)
            try:
                sha = hashlib.sha256(full.read_bytes()).hexdigest() if signature is not None else None
            except OSError:
                continue
            rec = next((r for r in reversed(records) if r.content_sha == sha), None)
            if rec is None:
                continue  # not renamed into place before the kill, or changed since
            key = rec.key
            if key not in known and owners.get(rel, key) != key:
                # an edited abstract's note, rewritten in place under the abstract's new id: it is
                # still the note of the id the state knows there (see ``VaultSession._scan``)
                key = owners[rel]
            state.put_note(replace(rec, key=key, signature=signature))
            recovered[rel] = existed[rel]
    log.info("recovered %d note(s) written by an interrupted run", len(recovered))
    return recovered


def _fields(entry: JournalEntry) -> list:
    rec = entry.record
    return [rec.key, rec.path, rec.kind, rec.content_sha, rec.region_sha, rec.input_sha, list(rec.owned_keys),
            rec.proposed, entry.existed]

