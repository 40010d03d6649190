"""Carrying out one ``VaultSession.apply``: each file is found in the vault, planned
(``sync_plan.plan_note``) and written -- in batches made durable together -- then the papers
gone from their seeds are marked removed and the state is saved."""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple

import yaml

from .errors import VaultsyncError
from .journal import JournalEntry
from .records import DeferredNote, OutputFile, SyncReport
from .regions import merge_note
from .renames import move_views, rename_note
from .state import NoteRecord, PaperRecord
from .state_db import StateError
from .sync_plan import (NO_TEXT, REMOVED_KEY, REMOVED_VALUE, Conflict, OnDisk, Skip, Unchanged, from_seeds,
                        frontmatter_or_none, frontmatter_text, input_sha, plan_note, sha)
from .vault_scan import note_stem
from .write import (NoteChangedError, WriteBatch, check_relative, file_signature, resolve_vault_path,
                    write_bytes_atomically)

CONFLICTS_DIR = ".vaultsync/conflicts"
# Notes derived from the seeds: marked `status: removed` (never deleted) when no longer derived.
DERIVED_KINDS = ("paper", "concept", "collection")


class PendingWrite(NamedTuple):
    """A note staged in the batch, not yet renamed into place."""

    file: OutputFile | DeferredNote  # as given (not what it rendered): synced again if the note changes meanwhile
    note: NoteRecord  # its record once written, but its file signature
    target: Path
    existed: bool  # a file was there: the note is updated, not created
    frontmatter_text: Any  # bytes | None, or NO_TEXT (see ``sync_plan.frontmatter_text``)


class SyncRun:
    """The bookkeeping of one ``apply`` call on ``session`` (a ``sync.VaultSession``).

    ``batched``: notes are written together by ``commit`` (one disk flush per batch) rather
    than one at a time."""

    def __init__(self, session, dry_run: bool, render_fingerprint: str | None = None, batched: bool = True):
        self.s, self.dry_run = session, dry_run
        self.known = session.state.notes()
        # note key -> (inputs key, input_sha) of the notes earlier runs rendered; and this run's
        self.inputs = _Rendered(session.state, render_fingerprint) if render_fingerprint is not None else {}
        self.rendered: list[tuple[str, str, str]] = []
        self.deleted = session.deleted_ids()
        self.renamed, self.gone = _renamed_and_gone(session, self.known, self.deleted)
        self.created: list[str] = []
        self.updated: list[str] = []
        self.unchanged = 0
        self.conflicts: list[str] = []
        self.conflict_keys: set[str] = set()  # the keys of the notes in ``conflicts``
        self.removed: list[str] = []
        self.warnings: list[str] = list(session._warnings)
        self.errors: list[str] = []
        self.skipped = 0
        self.seen_keys: set[str] = set()
        self.rescanned = False  # the vault was listed again during this sync
        self.folders: dict[str, tuple[Path, bool]] = {}  # the vault's folders: real path, inside?
        self.conflicts_dir: bool | None = None  # .vaultsync/conflicts exists (None: not looked yet)
        self.batch = WriteBatch() if batched else None
        self.pending: list[PendingWrite] = []
        self.given_ids: set[str] = set()  # the ids of the files given: the others may be marked removed
        self.given_kinds: dict[str, int] = defaultdict(int)  # how many files of each kind were given
        # path -> (frontmatter text, file signature) of each note written: see ``SyncReport.written``
        self.written: dict[str, tuple[bytes | None, tuple[int, int, int] | None]] = {}

    def given(self, f: OutputFile | DeferredNote) -> None:
        """Count ``f`` for the report and remember its id for ``mark_removed``."""
        if f.vaultsync_id:
            self.given_ids.add(f.vaultsync_id)
        self.given_kinds[f.kind] += 1

    def sync_file(self, f: OutputFile | DeferredNote) -> None:
        key = f.vaultsync_id or f"path:{f.path}"
        if key in self.seen_keys:
            self.errors.append(f"{f.path}: given twice in one sync; the first copy was written")
            return
        self.seen_keys.add(key)
        try:
            check_relative(f.path)
            where = self.s.existing_path(f.vaultsync_id) if f.vaultsync_id else None
            if where is not None and not os.path.lexists(os.path.join(self.s.root, where)):
                where = self._moved_meanwhile(f.vaultsync_id)
            if where is not None and where != f.path and f.vaultsync_id in self.s.following:
                where = self._follow_name(f, where)
            if where is None and f.vaultsync_id in self.deleted and not self.s.recreate_deleted:
                if isinstance(plan_note(f, OnDisk(f.path, deleted=True), None), Skip):
                    self.skipped += 1
                    return
            for attempt in (1, 2):
                try:
                    return self._sync_at(f, key, where or f.path, found_by_id=where is not None)
                except NoteChangedError:
                    if attempt == 2:
                        self.conflict_keys.add(key)
                        self.conflicts.append(f"{where or f.path}: changed while vaultsync was "
                                              "writing it; run vaultsync again")
        except StateError:
            raise  # not this note's problem: the run stops
        except VaultsyncError as exc:
            self.errors.append(str(exc))
        except yaml.YAMLError as exc:
            self.errors.append(f"{f.path}: its frontmatter cannot be written as YAML ({exc}); "
                               "this is a bug in the format that rendered it")
        except OSError as exc:
            self.errors.append(f"{f.path}: could not write it ({exc.strerror or exc}); "
                               "check the folder's permissions")

    def _target(self, rel: str) -> Path:
        """``resolve_vault_path`` of ``rel`` (each folder is resolved once per sync)."""
        return resolve_vault_path(self.s.root, rel, folders=self.folders)

    def _follow_name(self, f: OutputFile | DeferredNote, where: str) -> str:
        """Rename the note at ``where`` to the name ``f`` is rendered with (in the note's folder),
        its old name added to its aliases first (so that, killed in between, the next run still
        finds it under either name, with the alias); return where the note is now. A dry run, or
        a file already at the new name, leaves it as it is."""
        folder, _, old_name = where.rpartition("/")
        new_name = f.path.rpartition("/")[2]
        new_rel = f"{folder}/{new_name}" if folder else new_name
        if self.dry_run or new_rel == where or os.path.lexists(os.path.join(self.s.root, new_rel)):
            return where
        old_stem, new_stem = note_stem(old_name), note_stem(new_name)
        try:
            rename_note(self._target(where), self._target(new_rel), old_stem)
        except (OSError, UnicodeDecodeError, VaultsyncError) as error:
            self.warnings.append(f"{where}: could not be renamed to {new_name} ({error}); it keeps its name")
            return where
        self.s._index[f.vaultsync_id] = (new_rel, f.kind)
        self.renamed[old_stem] = new_stem
        for old_key, rec in move_views(self.s.root, self.s.state, self.s.ledger, old_stem, new_stem).items():
            self.known.pop(old_key, None)
            self.known[rec.key] = rec
        return new_rel

    def _moved_meanwhile(self, vaultsync_id: str) -> str | None:
        """The note was at a path the vault scan saw, but is gone: the user moved or deleted it
        since (in Obsidian, during a long run). Look again (once per sync) rather than write it
        anew at its old place, which would leave two notes with one id."""
        if not self.rescanned:
            self.rescanned = True
            self.s.refresh()
            self.deleted |= self.s.deleted_ids()  # gone from the vault: deleted, not moved
        return self.s.existing_path(vaultsync_id)

    def _as_written(self, rec: NoteRecord) -> bool:
        """The file at ``rec.path`` is what vaultsync last wrote there: its stat signature is
        the recorded one or, when that moved but the file may not have (a vault copied, restored
        from a backup, pulled with git or a sync tool: new inodes and times), its bytes hash to
        the recorded content hash -- and then the new signature is recorded, so the next run
        trusts the stat alone again."""
        path = os.path.join(self.s.root, rec.path)
        signature = file_signature(path)
        if signature is None or rec.signature == signature:
            return signature is not None
        if rec.content_sha is None:
            return False
        try:
            with open(path, "rb") as fh:
                same = sha(fh.read()) == rec.content_sha
        except OSError:
            return False
        if same and not self.dry_run:
            self.s.state.put_note(replace(rec, signature=signature))
        return same

    def _sync_at(self, given: OutputFile | DeferredNote, key: str, rel: str, found_by_id: bool) -> None:
        """Sync the note of ``given`` (as given: a ``DeferredNote`` is rendered here if need be) at ``rel``."""
        rec = self.known.get(key) or self.known.get(self.s._matched.get(given.vaultsync_id, ""))
        f = given
        if isinstance(f, DeferredNote):
            remembered = self.inputs.get(key)
            if (remembered is not None and remembered[0] == f.inputs_key and rec is not None
                    and rec.path == rel and rec.input_sha == remembered[1] and self._as_written(rec)):
                self.unchanged += 1  # rendered from the same inputs as last time: the same note
                return
            inputs_key, f = f.inputs_key, f.render()
            inp = input_sha(f)
            self.rendered.append((key, inputs_key, inp))
        else:
            inp = input_sha(f)
        if rec is not None and rec.path == rel and rec.input_sha == inp and self._as_written(rec):
            self.unchanged += 1  # what vaultsync wrote from the same input, untouched since
            return
        target = self._target(rel)
        sig = file_signature(target)
        old_bytes = target.read_bytes() if sig is not None else None
        on_disk = OnDisk(rel, old_bytes, found_by_id, () if f.merge else self.s.ledger.hashes(rel))
        plan = plan_note(f, on_disk, rec)
        if isinstance(plan, Conflict):
            self.conflict_keys.add(key)
            return self._conflict(rel, plan.reason, plan.proposed)
        if self.dry_run:
            if isinstance(plan, Unchanged):
                self.unchanged += 1
            else:
                (self.updated if old_bytes is not None else self.created).append(rel)
            return
        note = NoteRecord(key, rel, f.kind, sha(plan.data), plan.region_sha, inp, plan.owned_keys, None,
                          plan.proposed)
        if isinstance(plan, Unchanged):
            self.unchanged += 1
            self._record(f, note, target)
            return
        item = PendingWrite(given, note, target, old_bytes is not None,
                            frontmatter_text(plan.text) if f.merge else NO_TEXT)
        if self.batch is not None:
            # the bytes are on disk (a temp file) now: keep their hash (and the note's frontmatter
            # text, for the report), not them, until the rename
            self.batch.stage(target, plan.data, expect=sig)
            self.pending.append(item)
        else:
            self._expect([item])
            write_bytes_atomically(target, plan.data, expect=sig)
            self._written(item)

    def _expect(self, items: list[PendingWrite]) -> None:
        """Record notes about to be renamed into place, durably, first: in the journal (for the
        state) and, for files owned whole, in the vault's ledger (see ``whole_files``)."""
        self.s.journal.record([JournalEntry(item.note, item.existed) for item in items])
        self.s.ledger.expect([(item.note.path, item.note.content_sha) for item in items
                              if item.frontmatter_text is NO_TEXT])

    def _written(self, item: PendingWrite) -> None:
        rel = item.note.path
        (self.updated if item.existed else self.created).append(rel)
        self._drop_conflict_copy(rel)
        signature = self._record(item.file, item.note, item.target)
        if item.frontmatter_text is not NO_TEXT:
            self.written[rel] = (item.frontmatter_text, signature)

    def _record(self, f: OutputFile | DeferredNote, note: NoteRecord, target: Path) -> tuple[int, int, int] | None:
        """Record ``note`` as written (with the file signature of ``target``); return that signature."""
        signature = file_signature(target)
        self.s.state.put_note(NoteRecord(note.key, note.path, note.kind, note.content_sha, note.region_sha,
                                         note.input_sha, note.owned_keys, signature, note.proposed))
        if f.vaultsync_id:
            self.s._index[f.vaultsync_id] = (note.path, f.kind)
        return signature

    def commit(self, more: bool = False) -> None:
        """Write the staged notes (see ``WriteBatch``); a note saved meanwhile is synced again.
        ``more``: other notes follow, to be staged in a new batch."""
        batch, self.batch = self.batch, None  # a note synced again here is written at once
        pending, self.pending = self.pending, []
        if pending:  # what is about to be renamed into place, recorded first: see ``journal``
            self._expect(pending)
        for item, error in zip(pending, batch.commit() if batch is not None else ()):
            f = item.file
            if isinstance(error, NoteChangedError):
                self.seen_keys.discard(item.note.key)
                self.sync_file(f)  # merge again with what the user saved
            elif error is not None:
                self.errors.append(f"{f.path}: could not write it ({getattr(error, 'strerror', None) or error}); "
                                   "check the folder's permissions")
            else:
                self._written(item)
        if more and batch is not None:
            self.batch = WriteBatch()

    def _conflict(self, rel: str, reason: str, proposed: str | None) -> None:
        copy = f"{CONFLICTS_DIR}/{rel}"
        if proposed is not None and not self.dry_run:
            target = resolve_vault_path(self.s.root, copy, hidden_ok=True)
            data = proposed.encode("utf-8")
            if not target.exists() or target.read_bytes() != data:
                write_bytes_atomically(target, data)
                self.conflicts_dir = True
        verb = "would be" if self.dry_run else "is"
        where = f"; vaultsync's version {verb} in {copy}" if proposed is not None else ""
        self.conflicts.append(f"{rel}: not updated: {reason}{where}")

    def _drop_conflict_copy(self, rel: str) -> None:
        if self.conflicts_dir is None:  # looked once per sync: most vaults have none
            self.conflicts_dir = os.path.isdir(os.path.join(self.s.root, CONFLICTS_DIR))
        if not self.conflicts_dir:
            return
        copy = self.s.root / CONFLICTS_DIR / rel
        if copy.is_file() and not copy.is_symlink():
            copy.unlink()

    def mark_removed(self, given: set[str], seeds: set[str]) -> None:
        """Mark removed the derived notes whose id is not in ``given`` (see ``_mark_removed``)."""
        candidates = [(vid, where) for vid, where in self.s._index.items()
                      if where[1] in DERIVED_KINDS and vid not in given]
        if not candidates:
            return
        paper_seeds = self.s.state.seeds_of(vid for vid, (_, kind) in candidates if kind == "paper")
        for vid, (rel, kind) in sorted(candidates, key=lambda kv: kv[1][0]):
            try:
                self._mark_removed(vid, rel, kind, paper_seeds.get(vid), seeds)
            except StateError:
                raise
            except (VaultsyncError, OSError, UnicodeDecodeError) as exc:
                self.warnings.append(f"{rel}: no longer derived from the seeds, but it could not be "
                                     f"marked removed ({exc})")

    def _mark_removed(self, vid: str, rel: str, kind: str, seed: str | None, seeds: set[str]) -> None:
        target = resolve_vault_path(self.s.root, rel)
        text = target.read_text("utf-8")
        fm = frontmatter_or_none(text)
        # a paper is gone when its own seed was read without it; a concept or collection note
        # is gone when a run over the seeds no longer produces it
        if fm is None or (kind == "paper" and not from_seeds(seed, fm.get("source"), seeds)):
            return
        if fm.get(REMOVED_KEY) == REMOVED_VALUE:
            return
        if fm.get(REMOVED_KEY) not in (None, ""):
            self.warnings.append(f"{rel}: no longer derived from the seeds, but its "
                                 f"'{REMOVED_KEY}' property is yours, so it was not marked")
            return
        keep = {k: fm[k] for k in ("vaultsync_id", "type") if k in fm}
        result = merge_note(text, {**keep, REMOVED_KEY: REMOVED_VALUE}, None)
        self.removed.append(rel)
        if self.dry_run or result.text is None:
            return
        data = result.text.encode("utf-8")
        rec = self.known.get(vid)
        owned = tuple(rec.owned_keys if rec else ()) + (REMOVED_KEY,)
        written = NoteRecord(vid, rel, kind, sha(data), rec.region_sha if rec else None, None, owned, None,
                             rec.proposed if rec else None)
        self.s.journal.record([JournalEntry(written, existed=True)])
        write_bytes_atomically(target, data, expect=file_signature(target))
        self.s.state.put_note(replace(written, signature=file_signature(target)))

    def save_state(self, seeds: list[str], papers: list[PaperRecord] | None) -> None:
        st = self.s.state
        now = st.notes()
        for old_id in self.s._matched.values():
            st.delete_note(old_id)
        for vid, (rel, kind) in self.s._index.items():
            rec = now.get(vid)
            if rec is None or rec.path != rel:
                st.put_note(NoteRecord(vid, rel, kind, owned_keys=rec.owned_keys if rec else (),
                                       region_sha=rec.region_sha if rec else None,
                                       proposed=rec.proposed if rec else None))
        if papers is not None:
            # an abstract gone from its seed keeps its record while its note is in the vault
            # (marked removed): when it comes back, edited or as it was before an edit (an older
            # version of the seed restored), it is matched to that note, not given a second one
            table, current, index = st.paper_table(), set(self.s._matched.values()), self.s._index
            redo = _seeds_changed(table, set(seeds), papers, current, index)
            kept = [(i, seed) for seed in redo for i in table.get(seed, ()) if i not in current and i in index]
            st.replace_papers(redo, [p for p in papers if p.seed in redo] + st.papers_at(kept),
                              forget_ids=self.s._matched.values())

    def report(self, seeds: list[str]) -> SyncReport:
        warnings = list(self.warnings)
        if self.skipped:
            warnings.append(f"{self.skipped} note(s) you deleted were not recreated "
                            "(ask to recreate deleted notes to get them back)")
        created, updated, unchanged = list(self.created), list(self.updated), self.unchanged
        if self.s.recovered:  # written by an interrupted run: still news, as it was news then
            made, now = set(created), set(created) | set(updated)
            new = {rel for rel, existed in self.s.recovered.items() if not existed}  # (even if updated since)
            created += sorted(new - made)
            updated = [rel for rel in updated if rel not in new]
            updated += [rel for rel, existed in self.s.recovered.items() if existed and rel not in now]
            unchanged = max(0, unchanged - len(set(self.s.recovered) - now))
        return SyncReport(
            papers=self.given_kinds["paper"], concepts=self.given_kinds["concept"],
            created=tuple(created), updated=tuple(updated), unchanged=unchanged,
            conflicts=tuple(self.conflicts), removed=tuple(self.removed),
            warnings=tuple(warnings), errors=tuple(self.errors), seeds=tuple(seeds),
            renamed=MappingProxyType(self.renamed), gone=self.gone, written=MappingProxyType(self.written),
        )


def _seeds_changed(table: Mapping[str, Mapping[str, int]], seeds: set[str], papers: list[PaperRecord],
                   current: set[str], index: Mapping[str, Any]) -> set[str]:
    """The seeds (of ``seeds`` and of ``papers``) whose papers' places (id, seed, paragraph) in
    ``table`` (``State.paper_table``) are not those of ``papers`` plus the kept ones: of an id
    neither among ``papers`` nor in ``current`` (which gets the ids of ``papers``), with a note
    in ``index``. Only these seeds' records are written again (an id is its text's hash: the same
    id, seed and paragraph are the same record): a watcher's round, the new file's.

    One pass over ``papers`` (a watcher's round has 20,000: the places of each seed are not
    built as sets to compare); the seeds' other places are looked at only when some are left."""
    redo: set[str] = set()
    stored: dict[str, set[str]] = defaultdict(set)  # seed -> ids of its papers stored at their place
    for p in papers:
        current.add(p.id)
        if table.get(p.seed, _NO_ROWS).get(p.id, _NO_ROWS) == p.paragraph:
            stored[p.seed].add(p.id)
        else:  # not stored, or at another paragraph (or the same id twice in the seed)
            redo.add(p.seed)
    for seed in seeds.union(stored).difference(redo):
        rows, same = table.get(seed, _NO_ROWS), stored.get(seed, _NO_ROWS)
        if len(rows) > len(same) and any(i not in same and (i in current or i not in index) for i in rows):
            redo.add(seed)  # a stored place that is neither a paper's nor kept
    return redo


_NO_ROWS: Mapping = MappingProxyType({})


class _Rendered:
    """``State.rendered(fingerprint)``, asked note by note: a run given a few notes (a watcher's
    round) looks up theirs; one given many reads them all at once."""

    # (at 20,000 papers one lookup costs 10 us, the whole table 26 ms: a round gives ~600 notes)
    _ONE_BY_ONE = 2048

    def __init__(self, state, fingerprint: str):
        self.state, self.fingerprint = state, fingerprint
        self.all: dict[str, tuple[str, str]] | None = None
        self.asked = 0

    def get(self, key: str) -> tuple[str, str] | None:
        if self.all is None:
            self.asked += 1
            if self.asked <= self._ONE_BY_ONE:
                return self.state.rendered_one(self.fingerprint, key)
            self.all = self.state.rendered(self.fingerprint)
        return self.all.get(key)


def _renamed_and_gone(session, known: Mapping[str, NoteRecord],
                      deleted: set[str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """Since vaultsync last recorded them: {old name: new name} of the notes renamed, and the
    names of the notes deleted (none that a note in the vault is named now)."""
    index, matched = session._index, session._matched
    moved = [(rec.path, rel) for vid, (rel, _) in index.items()  # (every note, before every sync: cheap)
             if (rec := known.get(vid) or (known.get(matched[vid]) if vid in matched else None)) is not None
             and rec.path != rel]
    gone = {note_stem(known[vid].path.rpartition("/")[2]) for vid in deleted if vid in known}
    if not moved and not gone:
        return {}, ()
    names = set(session.existing_names().values())
    renamed = {note_stem(before.rpartition("/")[2]): note_stem(now.rpartition("/")[2]) for before, now in moved}
    return ({old: new for old, new in renamed.items() if old != new and old not in names},
            tuple(sorted(gone - names)))
