"""The sync engine: the only code that touches the vault.

::

    with VaultSession(vault) as session:             # one writer per vault, sweeps temp files
        renamed = session.match_edited(papers)        # edited abstracts -> their old notes
        names = session.existing_names()              # keep the names notes already have
        report = session.apply(files, seeds=read_seeds)

The vault is the source of truth; the state database (``state.py``) only makes re-runs cheap.
What vaultsync will and won't touch:

- It writes only the files it is given, inside the vault, atomically; never through a symlink
  that leads out of the vault; never into dot-folders except its own ``.vaultsync/``.
- In a note it owns the generated region and its own frontmatter keys; all else is the user's.
- A note the user edited inside the region (or whose markers or YAML they broke) is left alone;
  vaultsync's version goes to ``.vaultsync/conflicts/<path>`` (Obsidian does not index dot-folders,
  so the copy's ``vaultsync_id`` never duplicates the note's).
- Notes are found by ``vaultsync_id`` wherever the user moved them; a note the user deleted is
  not recreated unless ``recreate_deleted``; a paper whose abstract left its seed is marked
  ``status: removed``, never deleted.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from . import state as state_mod
from .edit_matching import match_papers
from .errors import VaultsyncError
from .frontmatter_io import note_head
from .journal import WriteJournal, recover
from .records import DeferredNote, OutputFile, SyncReport, normalise_text
from .state import PaperRecord, State
from .state_db import damage_stops_the_run
from .sync_plan import sha
from .sync_run import SyncRun
from .vault_lock import VaultLock
from .note_index import NoteIndex
from .vault_scan import list_notes, note_stem, scan_notes
from .whole_files import WholeFileLedger
from .write import file_signature, sweep_temp_files

log = logging.getLogger(__name__)


class VaultSession:
    """Exclusive, stateful access to one vault for one run. Use as a context manager.

    ``__enter__`` takes the vault's writer lock (``.vaultsync/lock``, in the vault: a second
    vaultsync fails at once with ``VaultsyncError``, whatever its state folder), removes temp
    files a crash left, opens the state, records what an interrupted run wrote (``journal``) and
    indexes every note carrying a ``vaultsync_id`` (dot-folders and symlinks are skipped). A
    ``dry_run`` session writes nothing: it sweeps and recovers nothing, and takes the lock only in
    a vault vaultsync wrote before.
    """

    def __init__(self, vault: str | os.PathLike, *, recreate_deleted: bool = False,
                 state_dir: str | os.PathLike | None = None, dry_run: bool = False):
        self.vault = Path(vault)
        self.recreate_deleted = recreate_deleted
        self.dry_run = dry_run
        self._state_dir = Path(state_dir) if state_dir is not None else None
        self._lock: VaultLock | None = None
        self.state: State | None = None
        self._scanned: NoteIndex | None = None  # id -> (path, type)
        self._swept = False  # the temp files an interrupted run left: removed (``_sweep``)
        self._matched: dict[str, str] = {}  # new id -> old id
        self._papers: list[PaperRecord] | None = None
        # (id, seed, paragraph, text) -> its record, of the last ``match_edited``: a watcher's
        # next round normalises only the abstracts that changed, not 20,000
        self._records: dict[tuple[str, str, int, str], PaperRecord] = {}
        self._warnings: list[str] = []
        self.journal = WriteJournal(None)
        self.recovered: dict[str, bool] = {}  # notes an interrupted run wrote: path -> existed before
        self.following: set[str] = set()  # ids whose notes take their rendered names (``follow_names``)
        self.conflicted: set[str] = set()  # keys of the notes the last ``apply`` left in conflict
        # an edited abstract's id -> (its former text, normalised; the name vaultsync gave its note)
        self.edited_from: dict[str, tuple[str, str | None]] = {}

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> "VaultSession":
        if self.vault.exists() and not self.vault.is_dir():
            raise VaultsyncError(f"{self.vault} is a file, not a vault folder; choose a folder")
        new_vault = not self.vault.exists() or not any(self.vault.iterdir())
        self.vault.mkdir(parents=True, exist_ok=True)
        self.root = self.vault.resolve()
        folder = self._state_dir or state_mod.state_dir()
        folder.mkdir(parents=True, exist_ok=True)
        if new_vault and not self.dry_run:  # (`rm -rf vault` then export: not a user who deleted every note)
            state_mod.forget_vault(self.root, folder)
        lock = VaultLock(self.root)
        if lock.acquire(create=not self.dry_run):
            self._lock = lock
        try:
            self.state = State(self.root, folder)
            self.ledger = WholeFileLedger(self.root, writes=not self.dry_run)
            if not self.dry_run:
                self.journal = WriteJournal(folder / f"{state_mod.vault_key(self.root)}.journal")
                if self.journal.exists():  # (an interrupted run: its temp files go at once)
                    self._sweep()
                    self.recovered = recover(self.state, self.root, self.journal)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.state is not None:
            self.state.close()
            self.state = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    @property
    def _index(self) -> NoteIndex:
        """id -> (path, type) of every note carrying a ``vaultsync_id``; the vault is read on
        first use, so a run that finds nothing to do never reads a note."""
        if self._scanned is None:
            self._sweep()
            # (left unset if the scan fails: asked again, it scans again)
            scanned, self._warnings = scan_notes(self.root, self.state.notes())
            self._scanned = NoteIndex(scanned)
        return self._scanned

    def _sweep(self) -> None:
        """Remove the temp files an interrupted run left, once, before the vault is first read
        or written (a run that finds nothing to do walks the vault once, not twice)."""
        if not self._swept and not self.dry_run:
            for path in sweep_temp_files(self.root):
                log.info("removed %s left by an interrupted run", path)
        self._swept = True

    def refresh(self, touched: Iterable[str] | None = None) -> None:
        """Catch up with notes moved, renamed, deleted or added in the vault since the last scan.

        For a long-lived session (``vaultsync watch``). Cheap when nothing moved: lists the
        vault's notes and reads the head only of paths the index does not know; an id whose
        note is gone from its path leaves the index (so it counts as deleted, or is found anew).
        ``touched``: only these paths changed since (the vault's file events): only they are looked at.
        """
        if touched is not None:
            self._refresh_paths({rel for rel in touched if rel.endswith(".md")})
        else:
            paths = list_notes(self.root)
            index = self._index
            gone = [vid for vid, (rel, _) in index.items() if rel not in paths]
            for vid in gone:
                del index[vid]
            for rel in sorted(paths.difference([rel for rel, _ in index.values()])):
                head = note_head(os.path.join(self.root, rel))
                vid = head.get("vaultsync_id")
                if vid and vid not in self._index:
                    self._index[vid] = (rel, head.get("type"))
        # an edited abstract's note still carries its old id: found again, it is the new id's note
        for new_id, old_id in self._matched.items():
            if old_id in self._index and new_id not in self._index:
                self._index[new_id] = self._index.pop(old_id)

    def _refresh_paths(self, paths: set[str]) -> None:
        """``refresh`` of these vault paths only."""
        if not paths:
            return
        index = self._index

        def there(rel: str) -> bool:
            full = os.path.join(self.root, rel)
            return os.path.isfile(full) and not os.path.islink(full)
        indexed = {rel: vid for vid, (rel, _) in index.items() if rel in paths}
        for rel, vid in indexed.items():
            if not there(rel):
                del index[vid]
        for rel in sorted(paths.difference(indexed)):
            if there(rel):
                head = note_head(os.path.join(self.root, rel))
                vid = head.get("vaultsync_id")
                if vid and vid not in index:
                    index[vid] = (rel, head.get("type"))

    # -- what the pipeline asks before rendering ---------------------------------------------
    def existing_path(self, vaultsync_id: str) -> str | None:
        """Vault-relative path of the note carrying this id (or the note it was matched to)."""
        hit = self._index.get(vaultsync_id)
        return hit[0] if hit else None

    def note_paths(self) -> set[str]:
        """Vault paths of the notes carrying a ``vaultsync_id``."""
        return set(self._index.views()[2])

    def existing_names(self) -> dict[str, str]:
        """id -> the stem of its note as it is now named in the vault (a copy: the caller may change it)."""
        return dict(self._index.views()[0])

    def note_kinds(self) -> dict[str, str | None]:
        """id -> the type of its note (``paper``, ``concept``, ``collection``...)."""
        return dict(self._index.views()[1])

    def follow_names(self, ids: Iterable[str], renamed_from: Mapping[str, str] = MappingProxyType({})) -> None:
        """The notes of ``ids`` take the names they are rendered with at the next ``apply`` (see
        ``renames``); ``renamed_from`` (new id -> old id): notes whose id changed with their
        name (a collection's), which then answer ``existing_path(new id)``."""
        for new_id, old_id in renamed_from.items():
            if old_id in self._index and new_id not in self._index:
                self._matched[new_id] = old_id
                self._index[new_id] = self._index.pop(old_id)
        self.following = set(ids) | set(renamed_from)

    def changed_notes(self, kind: str | None = None, unknown_changed: bool = True) -> dict[str, str]:
        """id -> path of the notes (of ``kind``) whose bytes differ from what vaultsync last wrote:
        the ones the user edited. A note the state does not know counts as changed, unless
        ``unknown_changed`` is False."""
        known, index, root = self.state.notes(), self._index, str(self.root)
        kinds = index.views()[1]
        changed = {}
        # (only the notes of ``kind`` are looked at: a few thousand concepts of 25,000 notes)
        for vid in kinds if kind is None else [vid for vid, note_kind in kinds.items() if note_kind == kind]:
            rel = index[vid][0]
            rec = known.get(vid)
            if rec is None and not unknown_changed:
                continue
            full = f"{root}/{rel}"  # (no pathlib: one stat per note)
            if rec is not None and rec.signature is not None and file_signature(full) == rec.signature:
                continue  # untouched since vaultsync wrote it: no need to read it
            try:
                with open(full, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if rec is None or sha(data) != rec.content_sha:
                changed[vid] = rel
        return changed

    def deleted_ids(self) -> set[str]:
        """Ids vaultsync wrote before whose note is gone from the vault (the user deleted it)."""
        return self.state.note_ids().difference(self._index, self._matched.values())

    def match_edited(self, papers: Iterable[tuple[str, str, int, str]]) -> dict[str, str]:
        """Map abstracts edited in their seed to the notes of their previous versions.

        ``papers`` are this run's (id, seed, paragraph, text). A new id (no note yet) is matched
        to an old id that vanished from the seeds but whose note exists: same seed and nearby
        paragraph with similar text first, then across seeds (a renamed seed file). The old
        note then answers ``existing_path(new_id)`` and is updated in place under the new id.
        The papers are remembered and stored in the state by ``apply`` (unless a dry run).
        Returns {new id: old id}.
        """
        papers, before = list(papers), self._records
        self._records = records = {key: before[key] if key in before else PaperRecord(
            key[0], key[1], key[2], normalise_text(key[3])) for key in papers}
        self._papers = list(records.values()) if len(records) == len(papers) else [
            records[key] for key in papers]  # (the same paper twice: as often as given)
        current = {key[0] for key in records}
        if not current.difference(self._index.keys(), self._matched.keys()):
            return {}  # no new paper to match (a watcher's round: its new papers were previewed)
        new = [p for p in self._papers if p.id not in self._index and p.id not in self._matched]
        seeds = {p.seed for p in self._papers}
        matched = set(self._matched.values())
        old = self.state.papers_at((i, seed) for i, seed, _ in self.state.paper_places()  # (their texts only)
                                   if i not in current and i in self._index and i not in matched)
        matches = match_papers(new, old, seeds)
        texts, known = {r.id: r.text for r in old}, self.state.notes()
        for new_id, old_id in matches.items():
            self._matched[new_id] = old_id
            self._index[new_id] = self._index.pop(old_id)
            named = known[old_id].path.rpartition("/")[2] if old_id in known else None
            self.edited_from[new_id] = (texts[old_id], note_stem(named) if named else None)
        return matches

    # -- writing ----------------------------------------------------------------------------
    def apply(self, files: Iterable[OutputFile | DeferredNote], *, seeds: Iterable[str] = (),
              dry_run: bool = False, partial: bool = False,
              papers: Iterable[tuple[str, str, int, str]] = (),
              render_fingerprint: str | None = None, settle: bool = True, batched: bool = True,
              present: Iterable[str] = ()) -> SyncReport:
        """Bring the vault in line with ``files``; return what changed.

        Each file is merged into the note carrying its ``vaultsync_id`` (wherever it is) or
        written at its path; only files whose bytes change are written. Paper notes whose id is
        not among ``files`` and whose seed is in ``seeds`` (the seeds read in this run) are
        marked ``status: removed``. A bad path or an unwritable file is reported in ``errors``
        and the other files are still written. ``dry_run`` writes nothing, not even the state.
        ``partial``: ``files`` are a few notes ahead of a full run (the watcher's preview of new
        papers): nothing is marked removed, and only ``papers`` (id, seed, paragraph, text) are
        recorded -- so that an edit of one of them before the full run is matched to its note.
        A ``DeferredNote`` among ``files`` is rendered only when its note may change: not when
        the note is as vaultsync wrote it from the same input as an earlier run rendered from the
        same inputs key, under the same ``render_fingerprint`` (the code, format and config that
        render it; None: every note is rendered). The notes an interrupted run wrote (``recovered``)
        count as created or updated here. ``settle``: the sync is all there is to the run (else the
        caller calls ``settle()`` once what follows, e.g. the after-sync hooks, is done).
        ``batched``: notes are staged and made durable together (else written one at a time).
        ``present``: ids of notes left out of ``files`` because they are as the last run wrote
        them (``RenderContext.changes``): given all the same (never marked removed), and counted
        unchanged. The keys of the notes left in conflict are kept in ``conflicted`` until the
        next ``apply``.
        """
        self._sweep()
        seeds = list(seeds)
        run = SyncRun(self, dry_run, render_fingerprint, batched=batched)
        try:
            with damage_stops_the_run(), self.state.transaction():
                # ``files`` may be rendered as they are asked for: each is written (in batches of
                # ``_BATCH``) and let go, so the text of every note is never in memory at once
                for f in files:
                    run.sync_file(f)
                    run.given(f)
                    if len(run.pending) >= _BATCH:
                        run.commit(more=True)
                run.commit()
                present = set(present).difference(run.given_ids)
                run.unchanged += len(present)
                if seeds and not partial:
                    run.mark_removed(run.given_ids | present, set(seeds))
                if dry_run:
                    raise _DryRun  # roll the state back
                if render_fingerprint is not None and run.rendered:
                    self.state.put_rendered(render_fingerprint, run.rendered)
                if partial:
                    run.save_state(seeds, None)
                    self.state.replace_papers((), [PaperRecord(i, s, p, normalise_text(t)) for i, s, p, t in papers])
                else:
                    run.save_state(seeds, self._papers)
        except _DryRun:
            pass
        except BaseException:
            if not dry_run:  # (a watcher's session goes on: what was renamed into place is known)
                self._recover_quietly()
            raise
        if not dry_run:
            self.ledger.settle()
        self.conflicted = run.conflict_keys | (self.conflicted if partial else set())
        report = run.report(seeds)
        if settle:
            self.settle()
        return report

    def settle(self) -> None:
        """What was written is accounted for (the state saved, the hooks run): empty the journal."""
        self.journal.clear()
        self.recovered = {}

    def _recover_quietly(self) -> None:
        try:
            self.recovered = {**recover(self.state, self.root, self.journal), **self.recovered}
        except Exception:  # (the error in hand is the one to report; the next session recovers)
            log.debug("could not recover the journal", exc_info=True)


class _DryRun(Exception):
    pass


# Notes staged before a batch is made durable and renamed into place: a few disk flushes per
# export rather than one, and only this many notes' sync records in memory at a time.
_BATCH = 4096


def sync_files(files: Iterable[OutputFile], vault: str | os.PathLike, *,
               seeds: Iterable[str] = (), dry_run: bool = False,
               recreate_deleted: bool = False) -> SyncReport:
    """One-shot sync: open a session on ``vault``, apply ``files``, close it."""
    with VaultSession(vault, recreate_deleted=recreate_deleted, dry_run=dry_run) as session:
        return session.apply(files, seeds=seeds, dry_run=dry_run)
