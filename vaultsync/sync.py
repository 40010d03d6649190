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

import hashlib
import json
import logging
import marshal
import os
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Mapping

import yaml

from . import state as state_mod
from .errors import VaultsyncError
from .frontmatter_io import FrontmatterError, note_head, read_frontmatter, split_note
from .edit_matching import match_papers
from .journal import JournalEntry, WriteJournal, recover
from .property_merge import merge_base, merge_properties, proposal
from .records import DeferredNote, OutputFile, SyncReport, normalise_text
from .renames import move_views, rename_note
from .regions import merge_note
from .state import NoteRecord, PaperRecord, State
from .state_db import StateError, damage_stops_the_run
from .vault_lock import VaultLock
from .whole_files import WholeFileLedger
from .write import (NoteChangedError, WriteBatch, check_relative, file_signature, resolve_vault_path,
                    sweep_temp_files, write_bytes_atomically)

log = logging.getLogger(__name__)

CONFLICTS_DIR = ".vaultsync/conflicts"
REMOVED_KEY, REMOVED_VALUE = "status", "removed"
_ENGINE = "vaultsync-sync-1"  # bump when the written form changes, to invalidate fast skips


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ``json.dumps(..., default=str, ensure_ascii=False)``, without making an encoder per note
_INPUT_JSON = json.JSONEncoder(default=str, ensure_ascii=False).encode


def _input_sha(f: OutputFile) -> str:
    """A hash of everything the written note depends on besides the vault: equal inputs, equal
    hashes (it is only ever compared with the hashes this code recorded)."""
    fm = None if f.frontmatter is None else tuple(f.frontmatter.items())
    try:
        # marshal's version 2 takes only exact built-in types and writes no back-references, so
        # equal inputs give equal bytes; three times quicker than JSON for a note's body
        blob = b"m" + marshal.dumps((_ENGINE, f.body, fm, f.merge, f.kind), 2)
    except ValueError:  # a value of a plugin's own type: as JSON, with str() of it
        blob = b"j" + _INPUT_JSON([_ENGINE, f.body, fm, f.merge, f.kind]).encode("utf-8", "surrogatepass")
    return _sha(blob)


def note_stem(name: str) -> str:
    """``os.path.splitext(name)[0]``, without its cost for a name ending ".md" (nearly every
    note: a watcher asks for the stem of every note before each round)."""
    if name[-3:] == ".md" and name[:-3].lstrip("."):
        return name[:-3]
    return os.path.splitext(name)[0]


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
        self._scanned: dict[str, tuple[str, str | None]] | None = None  # id -> (path, type)
        self._matched: dict[str, str] = {}  # new id -> old id
        self._papers: list[PaperRecord] | None = None
        self._warnings: list[str] = []
        self.journal = WriteJournal(None)
        self.recovered: dict[str, bool] = {}  # notes an interrupted run wrote: path -> existed before
        self.following: set[str] = set()  # ids whose notes take their rendered names (``follow_names``)
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
            for path in sweep_temp_files(self.root) if not self.dry_run else ():
                log.info("removed %s left by an interrupted run", path)
            self.state = State(self.root, folder)
            self.ledger = WholeFileLedger(self.root, writes=not self.dry_run)
            if not self.dry_run:
                self.journal = WriteJournal(folder / f"{state_mod.vault_key(self.root)}.journal")
                if self.journal.exists():
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
    def _index(self) -> dict[str, tuple[str, str | None]]:
        """id -> (path, type) of every note carrying a ``vaultsync_id``; the vault is read on
        first use, so a run that finds nothing to do never reads a note."""
        if self._scanned is None:
            self._scanned = self._scan()  # (left unset if the scan fails: asked again, it scans again)
        return self._scanned

    def _scan(self) -> dict[str, tuple[str, str | None]]:
        index: dict[str, tuple[str, str | None]] = {}
        self._warnings = []
        found: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
        known = self.state.notes()
        # a note whose stat signature is the one vaultsync recorded is what it wrote: its id and
        # type come from the state, so only notes changed or unknown since are read
        recorded = {(rec.path, rec.signature): rec for rec in known.values() if rec.signature and rec.vaultsync_id}
        prefix = os.path.join(str(self.root), "")  # of every path os.walk gives (pathlib: 30k objects)
        for folder, dirs, files in os.walk(self.root):
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
        for vid, places in found.items():
            places.sort(key=lambda p: p[0])
            if len(places) > 1:
                rec = known.get(vid)
                first = next((p for p in places if rec and p[0] == rec.path), places[0])
                places.remove(first)
                places.insert(0, first)
                others = ", ".join(p for p, _ in places[1:])
                self._warnings.append(
                    f"{first[0]} and {others} carry the same vaultsync_id; vaultsync updates "
                    f"{first[0]} only (remove vaultsync_id from the copy)")
            index[vid] = places[0]
        return index

    def refresh(self) -> None:
        """Catch up with notes moved, renamed, deleted or added in the vault since the last scan.

        For a long-lived session (``vaultsync watch``). Cheap when nothing moved: lists the
        vault's notes and reads the head only of paths the index does not know; an id whose
        note is gone from its path leaves the index (so it counts as deleted, or is found anew).
        """
        paths: set[str] = set()
        folders = [""]
        while folders:  # plain strings: this runs before every watch round, over thousands of notes
            folder = folders.pop()
            prefix = f"{folder}/" if folder else ""
            with os.scandir(os.path.join(self.root, folder)) as entries:
                for entry in entries:
                    name = entry.name
                    if name[0] == ".":
                        continue
                    if entry.is_dir(follow_symlinks=False):  # (False for a link to a folder)
                        folders.append(prefix + name)
                    elif name[-3:] == ".md" and not entry.is_symlink():
                        paths.add(prefix + name)
        index = self._index
        gone = [vid for vid, (rel, _) in index.items() if rel not in paths]
        for vid in gone:
            del index[vid]
        for rel in sorted(paths.difference([rel for rel, _ in index.values()])):
            head = note_head(os.path.join(self.root, rel))
            vid = head.get("vaultsync_id")
            if vid and vid not in self._index:
                self._index[vid] = (rel, head.get("type"))

    # -- what the pipeline asks before rendering ---------------------------------------------
    def existing_path(self, vaultsync_id: str) -> str | None:
        """Vault-relative path of the note carrying this id (or the note it was matched to)."""
        hit = self._index.get(vaultsync_id)
        return hit[0] if hit else None

    def note_paths(self) -> set[str]:
        """Vault paths of the notes carrying a ``vaultsync_id``."""
        return {path for path, _ in self._index.values()}

    def existing_names(self) -> dict[str, str]:
        """id -> the stem of its note as it is now named in the vault."""
        return {vid: note_stem(path.rpartition("/")[2]) for vid, (path, _) in self._index.items()}

    def note_kinds(self) -> dict[str, str | None]:
        """id -> the type of its note (``paper``, ``concept``, ``collection``...)."""
        return {vid: kind for vid, (_, kind) in self._index.items()}

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
        known = self.state.notes()
        changed = {}
        for vid, (rel, note_kind) in self._index.items():
            if kind is not None and note_kind != kind:
                continue
            rec = known.get(vid)
            if rec is None and not unknown_changed:
                continue
            full = self.root / rel
            if rec is not None and rec.signature is not None and file_signature(full) == rec.signature:
                continue  # untouched since vaultsync wrote it: no need to read it
            try:
                data = full.read_bytes()
            except OSError:
                continue
            if rec is None or _sha(data) != rec.content_sha:
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
        self._papers = [PaperRecord(i, s, p, normalise_text(t)) for i, s, p, t in papers]
        current = {p.id for p in self._papers}
        seeds = {p.seed for p in self._papers}
        new = [p for p in self._papers if p.id not in self._index and p.id not in self._matched]
        old = [r for r in self.state.papers()
               if r.id not in current and r.id in self._index and r.id not in self._matched.values()]
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
              render_fingerprint: str | None = None, settle: bool = True) -> SyncReport:
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
        """
        seeds = list(seeds)
        run = _Run(self, dry_run, render_fingerprint)
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
                if seeds and not partial:
                    run.mark_removed(run.given_ids, set(seeds))
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


# Notes derived from the seeds: marked `status: removed` (never deleted) when no longer derived.
DERIVED_KINDS = ("paper", "concept", "collection")
# Notes staged before a batch is made durable and renamed into place: a few disk flushes per
# export rather than one, and only this many notes' sync records in memory at a time.
_BATCH = 4096


class _Run:
    """The bookkeeping of one ``apply`` call."""

    def __init__(self, session: VaultSession, dry_run: bool, render_fingerprint: str | None = None):
        self.s, self.dry_run = session, dry_run
        self.known = session.state.notes()
        # note key -> (inputs key, input_sha) of the notes earlier runs rendered; and this run's
        self.inputs = session.state.rendered(render_fingerprint) if render_fingerprint is not None else {}
        self.rendered: list[tuple[str, str, str]] = []
        self.deleted = session.deleted_ids()
        self.renamed, self.gone = _renamed_and_gone(session, self.known, self.deleted)
        self.created: list[str] = []
        self.updated: list[str] = []
        self.unchanged = 0
        self.conflicts: list[str] = []
        self.removed: list[str] = []
        self.warnings: list[str] = list(session._warnings)
        self.errors: list[str] = []
        self.skipped = 0
        self.seen_keys: set[str] = set()
        self.rescanned = False  # the vault was listed again during this sync
        self.folders: dict[str, tuple[Path, bool]] = {}  # the vault's folders: real path, inside?
        self.syncing: OutputFile | DeferredNote | None = None  # the file ``sync_file`` is syncing
        self.conflicts_dir: bool | None = None  # .vaultsync/conflicts exists (None: not looked yet)
        # notes are written together by ``commit`` (one disk flush), unless the slow path is forced
        self.batch = None if os.environ.get("VAULTSYNC_SLOW_PATH") == "1" else WriteBatch()
        self.pending: list[tuple] = []
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
                self.skipped += 1
                return
            self.syncing = f
            for attempt in (1, 2):
                try:
                    return self._sync_at(f, key, where or f.path, found_by_id=where is not None)
                except NoteChangedError:
                    if attempt == 2:
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
                same = _sha(fh.read()) == rec.content_sha
        except OSError:
            return False
        if same and not self.dry_run:
            self.s.state.put_note(replace(rec, signature=signature))
        return same

    def _sync_at(self, f: OutputFile | DeferredNote, key: str, rel: str, found_by_id: bool) -> None:
        rec = self.known.get(key) or self.known.get(self.s._matched.get(f.vaultsync_id, ""))
        if isinstance(f, DeferredNote):
            remembered = self.inputs.get(key)
            if (remembered is not None and remembered[0] == f.inputs_key and rec is not None
                    and rec.path == rel and rec.input_sha == remembered[1] and self._as_written(rec)):
                self.unchanged += 1  # rendered from the same inputs as last time: the same note
                return
            inputs_key, f = f.inputs_key, f.render()
            inp = _input_sha(f)
            self.rendered.append((key, inputs_key, inp))
        else:
            inp = _input_sha(f)
        if rec is not None and rec.path == rel and rec.input_sha == inp and self._as_written(rec):
            self.unchanged += 1  # what vaultsync wrote from the same input, untouched since
            return
        target = self._target(rel)
        sig = file_signature(target)
        old_bytes = target.read_bytes() if sig is not None else None
        if not f.merge:
            # a file owned whole (a canvas, a JSONL dump) that someone changed since vaultsync
            # wrote it -- a map the user rearranged -- is theirs now: propose, don't overwrite
            edited = (old_bytes is not None and old_bytes != f.body.encode("utf-8")
                      and (rec is None or rec.content_sha != _sha(old_bytes))
                      and not self.s.ledger.wrote(rel, _sha(old_bytes)))
            if edited:
                return self._conflict(f, rel, "it was changed since vaultsync wrote it", f.body)
            return self._finish(f, key, rel, target, sig, old_bytes, f.body, None, (), inp, None)
        try:
            existing = old_bytes.decode("utf-8") if old_bytes is not None else None
        except UnicodeDecodeError as exc:
            return self._conflict(f, rel, f"it is not UTF-8 (byte {exc.start})", None)
        fm = dict(f.frontmatter) if f.frontmatter is not None else None
        old_fm = _frontmatter_or_none(existing)
        if existing is not None and not found_by_id and f.vaultsync_id is not None:
            other = (old_fm or {}).get("vaultsync_id")
            if other != f.vaultsync_id:
                why = "a note of your own" if not other else "the note of another vaultsync_id"
                return self._conflict(f, rel, f"it is {why}", merge_note(None, fm, f.body).text)
        owned = list(fm or ())
        proposed = proposal(fm)  # (before the user's edits are merged in: the next merge's base)
        if fm is not None and old_fm:
            stored = rec.proposed if rec is not None else None
            untouched = stored is None and rec is not None and rec.content_sha == _sha(old_bytes)
            fm = merge_properties(fm, old_fm, merge_base(stored, old_fm, untouched))
        if rec is not None:
            owned += [k for k in rec.owned_keys if k not in owned]
        if old_fm and old_fm.get(REMOVED_KEY) == REMOVED_VALUE and fm is not None:
            owned.append(REMOVED_KEY)  # the abstract is back
        last_region = rec.region_sha if rec is not None and rec.path == rel else None
        try:
            result = merge_note(existing, fm, f.body, owned, last_region_sha=last_region)
        except ValueError as exc:
            self.errors.append(f"{f.path}: {exc}; this is a bug in the format that rendered it")
            return
        if result.conflict:
            return self._conflict(f, rel, result.conflict, result.proposed)
        self._finish(f, key, rel, target, sig, old_bytes, result.text, result.region_sha,
                     tuple(fm or ()), inp, proposed)

    def _finish(self, f, key, rel, target, sig, old_bytes, text, region_sha, owned, inp, proposed) -> None:
        data = text.encode("utf-8")
        if data == old_bytes:
            self.unchanged += 1
        elif self.dry_run:
            (self.updated if old_bytes is not None else self.created).append(rel)
            return
        elif self.batch is not None:
            self.batch.stage(target, data, expect=sig)
            # the bytes are on disk (a temp file) now: keep their hash (and the note's frontmatter
            # text, for the report), not them, until the rename; and the file as given (a
            # DeferredNote, not what it rendered), to sync it again if the note changes meanwhile
            self.pending.append((self.syncing, key, rel, target, _sha(data), region_sha, owned, inp, proposed,
                                 old_bytes is not None, _frontmatter_text(text) if f.merge else _NO_TEXT))
            return
        else:
            item = (f, key, rel, target, _sha(data), region_sha, owned, inp, proposed, old_bytes is not None,
                    _frontmatter_text(text) if f.merge else _NO_TEXT)
            self._expect([item])
            write_bytes_atomically(target, data, expect=sig)
            self._written(*item)
            return
        if self.dry_run:
            return
        self._record(f, key, rel, target, _sha(data), region_sha, owned, inp, proposed)

    def _expect(self, items: list[tuple]) -> None:
        """Record notes about to be renamed into place, durably, first: in the journal (for the
        state) and, for files owned whole, in the vault's ledger (see ``whole_files``)."""
        self.s.journal.record([_journal_entry(item) for item in items])
        self.s.ledger.expect([(item[2], item[4]) for item in items if item[-1] is _NO_TEXT])

    def _written(self, f, key, rel, target, content_sha, region_sha, owned, inp, proposed, existed: bool,
                 frontmatter_text: bytes | None | object) -> None:
        (self.updated if existed else self.created).append(rel)
        self._drop_conflict_copy(rel)
        signature = self._record(f, key, rel, target, content_sha, region_sha, owned, inp, proposed)
        if frontmatter_text is not _NO_TEXT:
            self.written[rel] = (frontmatter_text, signature)

    def _record(self, f, key, rel, target, content_sha, region_sha, owned, inp,
                proposed) -> tuple[int, int, int] | None:
        """Record the note as written; return its file signature."""
        signature = file_signature(target)
        self.s.state.put_note(NoteRecord(key, rel, f.kind, content_sha, region_sha, inp, owned, signature, proposed))
        if f.vaultsync_id:
            self.s._index[f.vaultsync_id] = (rel, f.kind)
        return signature

    def commit(self, more: bool = False) -> None:
        """Write the staged notes (see ``WriteBatch``); a note saved meanwhile is synced again.
        ``more``: other notes follow, to be staged in a new batch."""
        batch, self.batch = self.batch, None  # a note synced again here is written at once
        pending, self.pending = self.pending, []
        if pending:  # what is about to be renamed into place, recorded first: see ``journal``
            self._expect(pending)
        for item, error in zip(pending, batch.commit() if batch is not None else ()):
            f, key, rel = item[:3]
            if isinstance(error, NoteChangedError):
                self.seen_keys.discard(key)
                self.sync_file(f)  # merge again with what the user saved
            elif error is not None:
                self.errors.append(f"{f.path}: could not write it ({getattr(error, 'strerror', None) or error}); "
                                   "check the folder's permissions")
            else:
                self._written(*item)
        if more and batch is not None:
            self.batch = WriteBatch()

    def _conflict(self, f: OutputFile, rel: str, reason: str, proposed: str | None) -> None:
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
        paper_seeds = {p.id: p.seed for p in self.s.state.papers()}
        for vid, (rel, kind) in sorted(self.s._index.items(), key=lambda kv: kv[1][0]):
            if kind not in DERIVED_KINDS or vid in given:
                continue
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
        fm = _frontmatter_or_none(text)
        # a paper is gone when its own seed was read without it; a concept or collection note
        # is gone when a run over the seeds no longer produces it
        if fm is None or (kind == "paper" and not _from_seeds(seed, fm.get("source"), seeds)):
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
        written = NoteRecord(vid, rel, kind, _sha(data), rec.region_sha if rec else None, None, owned, None,
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
            forgotten = set(seeds) | {p.seed for p in papers}
            # an abstract gone from its seed keeps its record while its note is in the vault
            # (marked removed): when it comes back, edited or as it was before an edit (an older
            # version of the seed restored), it is matched to that note, not given a second one
            current = {p.id for p in papers} | set(self.s._matched.values())
            kept = [p for p in st.papers() if p.seed in forgotten and p.id not in current and p.id in self.s._index]
            st.replace_papers(forgotten, papers + kept, forget_ids=self.s._matched.values())

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


_NO_TEXT = object()  # a file written whole (a canvas): no frontmatter text to report


def _renamed_and_gone(session: VaultSession, known: Mapping[str, NoteRecord],
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


def _journal_entry(item: tuple) -> JournalEntry:
    """The journal's entry for a note about to be written (an item of ``_Run.pending``)."""
    f, key, rel, _, content_sha, region_sha, owned, inp, proposed, existed, _ = item
    return JournalEntry(NoteRecord(key, rel, f.kind, content_sha, region_sha, inp, owned, None, proposed), existed)


def _frontmatter_text(text: str) -> bytes | None | object:
    """The frontmatter YAML of a note's text, as a reader of the note finds it (``split_note``),
    in UTF-8 (half the memory of a str with one non-Latin-1 character: 30,000 are kept until the
    sync's hooks ran); ``_NO_TEXT`` when it has none that can be read."""
    try:
        yaml_text = split_note(text)[0]
    except FrontmatterError:
        return _NO_TEXT
    return yaml_text if yaml_text is None else yaml_text.encode("utf-8")


def _frontmatter_or_none(text: str | None) -> dict | None:
    if text is None:
        return None
    try:
        return read_frontmatter(split_note(text)[0])
    except FrontmatterError:
        return None


def _from_seeds(seed: str | None, source: Any, seeds: set[str]) -> bool:
    """Whether a paper came from one of ``seeds``: by the state, else by its ``source`` property."""
    if seed is not None:
        return seed in seeds
    if not isinstance(source, str):
        return False
    return any(source == s or (source.startswith(s) and not (source[len(s)].isalnum()
               or source[len(s)] in "._-/")) for s in seeds)


def sync_files(files: Iterable[OutputFile], vault: str | os.PathLike, *,
               seeds: Iterable[str] = (), dry_run: bool = False,
               recreate_deleted: bool = False) -> SyncReport:
    """One-shot sync: open a session on ``vault``, apply ``files``, close it."""
    with VaultSession(vault, recreate_deleted=recreate_deleted, dry_run=dry_run) as session:
        return session.apply(files, seeds=seeds, dry_run=dry_run)
