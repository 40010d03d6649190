"""The whole job as one sentence: read → scan → extract → link → render → write.

The vault is scanned once into a frozen ``VaultSnapshot`` handed to extract and link; only the
sync goes back to the vault, to write.

``export`` runs it once (`vaultsync export`). ``Exporter`` runs it again and again over one open
vault session (`vaultsync watch`), re-reading only the seed files that changed and re-extracting
only abstracts it has not seen, so a new seed file costs little more than its own abstracts.

Around the stages the runner applies what is no stage's business, each in one place: the caches
(``run_cache``), the shortcuts (``Speedups``, read once) and the collector policy
(``Speedups.collector_for``; in a watcher, what is kept is frozen between rounds: ``warm``).
"""

from __future__ import annotations

import gc
import logging
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

import pluggy

from .code_signature import code_signature
from .extract import Extracted, extract_all
from .link import Linker, LinkOptions
from .link_preview import link_additions, prepare_additions
from .plugins import LazyPlugins, call_safely, promotion_options
from .progress import StageTimer
from .read import CachedSeed, ReadResult, list_seed_files, read_seeds, seed_signature
from .records import (Abstract, DeferredNote, ExtractContext, OutputFile, RenderChanges, Seed, SyncReport, VaultModel,
                      frozen_mapping)
from .render import render, render_lazily, renders_changes_only
from .render_changes import render_changes
from .run_cache import (cache_encoded, carry_over_lessons, conversion_key, extraction_fingerprint, forget_run,
                        last_run, load_conversions, load_extractions, remember_run, render_fingerprint,
                        run_print, save_conversions, save_extractions)
from .speedups import Speedups
from .snapshot import scan
from .state_db import StateDamaged
from .sync import VaultSession
from .write import file_signature
from .vault_events import VaultTouches

log = logging.getLogger(__name__)
_FREEZE_EVERY = 4096  # files written between two ``gc.freeze()`` (see ``Exporter._counted``)


@dataclass(frozen=True)
class ExportOptions:
    """How to export; the CLI fills it from options and the config file."""

    format: str = "obsidian"
    dry_run: bool = False
    recreate_deleted: bool = False
    config: Mapping[str, Mapping[str, Any]] = field(default_factory=frozen_mapping)
    # told each stage as it starts, and how far a long stage got: progress(stage, done, total)
    progress: Callable[[str, int | None, int | None], None] | None = None


class Exporter:
    """One vault kept in sync with one seeds folder, over as many runs as needed.

    Holds the vault's writer lock from ``__enter__`` to ``__exit__``. Between runs it remembers
    each seed file's stat signature and what was extracted from each abstract (by id).
    """

    def __init__(self, seeds_dir: Path, vault_dir: Path, pm: pluggy.PluginManager | LazyPlugins,
                 options: ExportOptions = ExportOptions(), remember: bool = True):
        self.seeds_dir = Path(seeds_dir)
        self.vault_dir = Path(vault_dir)
        self.plugins = pm  # (``LazyPlugins``: imported when first needed; their problems join the report)
        self.options = options
        self.remember = remember  # keep extractions in memory for the next run (False: free them)
        self.session = VaultSession(self.vault_dir, recreate_deleted=options.recreate_deleted,
                                    dry_run=options.dry_run)
        self._seeds: dict[str, CachedSeed] = {}
        self._extracted: dict[str, Extracted] = {}
        self._taught: tuple = ()
        self._code: str | None = None  # the stat signature of vaultsync's and the plugins' code
        self._model: VaultModel | None = None  # what the last full run linked
        self._linker = Linker(keep=remember)  # ... and how (a watcher's next run links only what changed)
        # what the last run that wrote every note it should (no error) wrote them from: the next
        # run renders only what may differ from it (``render_changes``), when it knows what
        # happened in the vault since (``touches``)
        self._baseline: VaultModel | None = None
        self.touches: VaultTouches | None = None  # see ``track_vault``
        self._unremembered: tuple | None = None  # (print, report, digest's signature): see ``remember_last``
        self._primed = False  # the extractors have run in this process
        self._remembering = False  # this exporter keeps abstracts' Markdown in memory
        self._previewed: SyncReport | None = None  # what previews wrote since the last run
        self._timer = StageTimer(log)  # (with -v: how long each stage took)
        self.speedups = Speedups.from_environment()
        self._frozen = False  # what ``warm`` kept is frozen out of the collector until the next run
        self._checkpoint: Callable[[str, int | None, int | None], None] | None = None  # see ``run``

    @property
    def pm(self) -> pluggy.PluginManager:
        return self.plugins.manager() if isinstance(self.plugins, LazyPlugins) else self.plugins

    def __enter__(self) -> "Exporter":
        self.session.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.remember_last()
        except Exception:  # (only a later start's shortcut is lost)
            log.debug("could not remember the last run", exc_info=True)
        self._thaw()
        if self._remembering:
            from .markdown import remember_conversions

            remember_conversions(False)
        self.session.__exit__(*exc)

    def _step(self, stage: str | None, done: int | None = None, total: int | None = None) -> None:
        """Report that ``stage`` begins (None: the last one ended), or how far it got."""
        if done is None:
            self._timer.lap(stage)
        if stage is None:
            return
        if self._checkpoint is not None and not (done is not None and stage in ("write", "finish")):
            self._checkpoint(stage, done, total)  # may raise: the run is abandoned (see ``run``)
        if self.options.progress is not None:
            self.options.progress(stage, done, total)
        elif done is None:
            log.debug("stage: %s", stage)

    def _thaw(self) -> None:
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    def _counted(self, files: Iterable[OutputFile]) -> Iterator[OutputFile]:
        """``files``, telling the progress bar how many were written (it counts without a total)."""
        for done, f in enumerate(files):
            if done % 256 == 0 and done:
                self._step("write", done, None)
                if done % _FREEZE_EVERY == 0 and self.speedups.collector:
                    # what the sync keeps of the notes written so far lives as long as the model: frozen
                    # with it, so that full collections do not walk it again and again (7 at 20k papers)
                    gc.freeze()
            yield f

    def track_vault(self) -> VaultTouches:
        """Start learning what is touched in the vault (the caller feeds the paths, e.g. from file
        events: ``vault_events.VaultHints``); from the next successful run on, each run renders
        and checks only the notes that may differ from what that run wrote, and those touched."""
        self.touches = VaultTouches()
        self._baseline = None  # (what happened before is not known)
        return self.touches

    def read(self) -> ReadResult:
        """Every seed file, re-reading only those whose stat signature changed."""
        return read_seeds(self.seeds_dir, self.pm, cache=self._seeds)

    def stale(self) -> set[str]:
        """Seed files new, changed or gone since the last run, by stat signature (no reading)."""
        current = set(list_seed_files(self.seeds_dir))
        changed = {r for r in current if r not in self._seeds
                   or self._seeds[r][0] != seed_signature(self.seeds_dir / r)}
        return changed | (set(self._seeds) - current)

    def seed(self, relative: str) -> Seed | None:
        """The seed file as the last run read it (None if it was not read or could not be)."""
        return cached[1] if (cached := self._seeds.get(relative)) else None

    def preview(self, changed: Iterable[str], checkpoint=None) -> SyncReport | None:
        """A watch round's quick first half: the abstracts new in ``changed`` seeds, linked to the
        vault's concepts (``link_additions``), written; pure additions only (else None). ``run`` follows."""
        if self._model is None or self.options.dry_run:
            return None
        self._checkpoint = checkpoint
        with self.speedups.shortcuts():
            return self._preview(sorted(set(changed)))

    def _preview(self, changed: list[str]) -> SyncReport | None:
        before = {relative: self.seed(relative) for relative in changed}
        for relative in changed:
            self._seeds.pop(relative, None)
        read = read_seeds(self.seeds_dir, self.pm, only=[r for r in changed if (self.seeds_dir / r).is_file()],
                          cache=self._seeds, known=[c.collection for c in self._model.collections])
        now = {seed.path: {a.id for a in seed.abstracts} for seed in read.seeds}
        for relative, seed in before.items():
            if seed is not None and not {a.id for a in seed.abstracts} <= now.get(relative, set()):
                return None  # an abstract was edited, moved or removed
        known = self._model.paper_ids() | self.session.deleted_ids()
        new: dict[str, Abstract] = {}
        for seed in read.seeds:
            for abstract in seed.abstracts:
                if abstract.id not in known and self.session.existing_path(abstract.id) is None:
                    new.setdefault(abstract.id, abstract)
        if not new:
            return None
        # (the preview knows only the linked papers: the next run that saves forgets the dead)
        extracted = self._extract(list(new.values()), self._taught, live=None)
        with self.speedups.collector_for("link"):
            model = link_additions(self._model, list(new.values()), extracted,
                                   self.session.existing_names().values())
        from .markdown import pools_allowed  # lazy: start-up time

        with pools_allowed(self.speedups.pools):
            files = [f for f in render(model, self.options.format, self.pm, {"config": self.options.config})
                     if f.vaultsync_id in new]
        report = self.session.apply(files, partial=True, settle=False,  # (the full run settles)
                                    papers=[(a.id, a.seed, a.paragraph, a.text) for a in new.values()],
                                    batched=self.speedups.batched_writes)
        self._previewed = self._previewed.followed_by(report) if self._previewed else report
        return report

    def _extract(self, abstracts: list[Abstract], taught: tuple, live: set[str] | None) -> list[Extracted]:
        """What the extractors find in ``abstracts``: remembered (this session, or the state's
        cache under the same code, config and lessons), else extracted now and remembered.
        The state's cache then forgets the abstracts not ``live`` (None: it forgets nothing)."""
        with self.speedups.collector_for("extract"):  # what is loaded and extracted here stays alive
            return self._extract_paused(abstracts, taught, live)

    def _extract_paused(self, abstracts: list[Abstract], taught: tuple, live: set[str] | None) -> list[Extracted]:
        state = self.session.state
        fingerprint = extraction_fingerprint(self._code, self.options.config, taught)
        missing = {a.id for a in abstracts if a.id not in self._extracted}
        if missing:  # what earlier runs extracted with the same extractors, config and lessons
            self._extracted.update(load_extractions(state, fingerprint, missing))
        fresh = {a.id: a for a in abstracts if a.id not in self._extracted}
        context = ExtractContext(vault=str(self.vault_dir.resolve()), config=self.options.config, taught=taught)
        carried = {}  # ... or under other lessons, where they change nothing
        if fresh and not self.options.dry_run and self.speedups.lessons_keep_cache:
            carried = carry_over_lessons(state, self.pm, self._code, context, fresh)
            if carried:
                log.debug("other lessons: %d of %d extractions still hold", len(carried), len(fresh))
            self._extracted.update(carried)
            fresh = {i: a for i, a in fresh.items() if i not in carried}
        cached: set[str] = set()  # what a pool's workers sent, cached as it came (already encoded)

        def cache(records: list[tuple[str, bytes]]) -> None:
            if not self.options.dry_run:
                cache_encoded(state, fingerprint, records)
                cached.update(i for i, _ in records)

        extracted_now = extract_all(list(fresh.values()), self.pm, context, on_encoded=cache,
                                    on_progress=lambda done, total: self._step("extract", done, total),
                                    speedups=self.speedups)
        for abstract, facts in zip(fresh.values(), extracted_now):
            self._extracted[abstract.id] = facts
        if (fresh or carried) and not self.options.dry_run:
            save_extractions(state, fingerprint, {i: self._extracted[i] for i in fresh if i not in cached}, live,
                             taught)
        return [self._extracted[a.id] for a in abstracts]

    def run(self, changed: Iterable[str] | None = None, checkpoint=None) -> SyncReport:
        """Bring the vault up to date with the seeds folder; return what changed.

        ``changed``: seed files to re-read even if their stat signature looks unchanged. A seed file
        gone (since the last run, or since the state last saw it) has its papers marked removed. A
        state database found damaged before any note was written was replaced by an empty one: the
        run starts again on it (and says so). ``checkpoint(stage, done, total)``, asked at each step
        before writing, may raise to abandon it."""
        self._checkpoint = checkpoint
        state = self.session.state
        notices = [str(state.repaired)] if state.repaired is not None else []
        state.repaired = None
        self._thaw()  # (what ``warm`` froze: this run replaces most of it)
        with self.speedups.shortcuts():
            try:
                report = self._run(changed)
            except StateDamaged as damaged:  # (raised by the sync only as a StateError)
                notices.append(str(damaged))
                report = self._run(changed)
        return replace(report, warnings=tuple(notices) + report.warnings) if notices else report

    def _run(self, changed: Iterable[str] | None) -> SyncReport:
        self._timer.restart()
        for relative in changed or ():
            self._seeds.pop(relative, None)
        begun, previous = self._last_run(changed)
        if previous is not None:
            log.debug("nothing changed since the last run: seeds, vault, code and options are the same")
            return previous
        read, extracted, model = self._read_extract_link()
        # a problem with the input is an error (exit status 1) even though the run went on
        problems = tuple(read.problems) + tuple(p for facts in extracted for p in facts.problems)
        problems = tuple(self.pm.load_problems if isinstance(self.plugins, LazyPlugins) else ()) + problems
        del extracted
        if not self.remember:  # a one-shot export: what was extracted is in the model and the state
            self._extracted.clear()
        report = self._write(model, read, problems)
        if not self.options.dry_run:
            report = self._finish(report, read, begun)
        self._step(None)
        return report

    def _last_run(self, changed: Iterable[str] | None) -> tuple[Any, SyncReport | None]:
        """The print of what this run starts from; the last run's report if it started from the same."""
        if self._code is None:
            self._code = code_signature(self.plugins)
        run_options = {"format": self.options.format, "config": self.options.config,
                       "recreate_deleted": self.options.recreate_deleted}
        asks = not self.options.dry_run and not changed and not self.session.recovered
        begun = run_print(self._code, self.seeds_dir, self.vault_dir if asks else None, run_options)
        return begun, last_run(self.session.state, begun) if asks else None

    def _write(self, model: VaultModel, read: ReadResult, problems: tuple[str, ...]) -> SyncReport:
        """render → write: every note of ``model`` rendered as the sync asks for it, written if it
        changed; what the run did, with the seeds' problems and the files it could not read."""
        self._step("render")
        state = self.session.state
        baseline, self._baseline = self._baseline, None  # (until this run has written all it should)
        touched = self.touches.drain() if self.touches is not None else None
        if touched:
            self.session.refresh(touched)  # (touched since the watcher's refresh: moved or deleted)
        writing = False
        try:
            changes = self._changes(baseline, model, touched)
            present = model_ids(model) if changes is not None else ()
            # the model stays alive through the write and the hooks: no garbage collection walks it
            with self.speedups.collector_for("write"):  # (a full one: a second at 20,000 papers, nothing freed)
                with self._rendering(model, changes) as files:  # rendered as the sync writes them: never all at once
                    self._step("write")
                    gone = state.paper_seeds() - set(self._seeds)
                    writing = True
                    report = self.session.apply(
                        self._counted(files), dry_run=self.options.dry_run,
                        seeds=[seed.path for seed in read.seeds] + sorted(gone), settle=False,
                        render_fingerprint=render_fingerprint(self._code, self.options.format, self.options.config),
                        batched=self.speedups.batched_writes, present=present)
        except BaseException:
            if not writing:  # abandoned before the sync began (a stop, more seeds): nothing written
                self._baseline = baseline
                if self.touches is not None:
                    self.touches.put_back(touched)
            raise
        if changes is not None:
            log.debug("render: %d papers, %d concepts, %d collections may differ from the last run's notes",
                      len(changes.papers), len(changes.concepts), len(changes.collections))
        if self._previewed is not None:  # one round: the notes the preview wrote count as this run's
            report, self._previewed = self._previewed.followed_by(report), None
        return replace(report, papers=len(model.papers), concepts=len(model.concepts),
                       warnings=report.warnings + problems, errors=report.errors + tuple(read.failed),
                       seeds=tuple(seed.path for seed in read.seeds))

    def _finish(self, report: SyncReport, read: ReadResult, begun: Any) -> SyncReport:
        """The after-sync hooks (the digest of what's new), the state settled, the run remembered
        if it did all it should (a failed run is not what the same seeds give: the next one works
        again; only the seeds' own problems, whose bytes are in the print, may recur)."""
        self._step("finish")
        with self.speedups.collector_for("write"):  # (the model is still alive: see ``_write``)
            outcome = call_safely(self.pm, "vaultsync_sync_finished", report=report, vault=self.vault_dir,
                                  config=self.options.config)
        # (what was written into each note served the hooks: let it go)
        report = replace(report, warnings=report.warnings + tuple(str(f) for f in outcome.failures),
                         written=frozen_mapping())
        self.session.settle()  # the notes written are accounted for: hooks run, state saved
        if not report.errors and self.remember:  # every note is as this model renders it, or in conflict
            self._baseline = self._model
        self._unremembered = None
        if not report.errors and set(report.warnings) <= set(read.problems):
            if self.touches is not None:  # a watcher that knows what is touched in the vault
                # listing the vault and hashing every seed is for a later start: done once the
                # round is over (``remember_last``), if the vault is still as the run left it
                forget_run(self.session.state)
                self._unremembered = (begun, report, file_signature(self.vault_dir / "New papers.md"))
            else:
                remember_run(self.session.state, begun.after(self.vault_dir), report)
        else:
            forget_run(self.session.state)
        return report

    def remember_last(self) -> None:
        """Remember the last run for a later start (``run_cache.last_run``: a start that finds the
        seeds and the vault as that run left them skips its run), if it was put off (see
        ``_finish``) and nothing but that run touched the vault since: each path touched is a note
        as vaultsync last wrote it (its file signature), or the digest as the run left it."""
        pending, self._unremembered = self._unremembered, None
        if pending is None or self.touches is None or self.session.state is None:
            return
        begun, report, digest = pending
        touched = self.touches.peek()
        if touched is None:
            return
        if touched:
            written = {rec.path: rec.signature for rec in self.session.state.notes().values()}
            for path in touched:
                signature = file_signature(self.vault_dir / path)
                if written.get(path, digest if path == "New papers.md" else None) != signature or signature is None:
                    return  # the user's doing, or not known: the next start runs
        remember_run(self.session.state, begun.after(self.vault_dir), report)

    def _changes(self, baseline: VaultModel | None, model: VaultModel,
                 touched: set[str] | None) -> RenderChanges | None:
        """The notes of ``model`` that may differ from what the last successful run wrote (from
        ``baseline``), the notes touched in the vault since, and the notes that need the sync's
        attention (deleted, moved, in conflict, renamed by the sync); None: every note is checked
        -- no such run (the first, or the last failed or was abandoned while writing), the vault's
        events not known (``touches``), notes an interrupted run wrote, a dry run, or a format
        that does not render only the changes (``renders_changes_only``)."""
        if (baseline is None or touched is None or self.options.dry_run or self.session.recovered
                or not renders_changes_only(self.pm, self.options.format)):
            return None
        session = self.session
        ids = session.deleted_ids() | session.conflicted | session.following | set(session._matched)
        unknown = False  # a path touched that no note's id says: the maps and index are checked
        recorded = session.state.notes()
        if touched:
            at = {path: vid for vid, (path, _) in session._index.items()}
            was = {rec.path: key for key, rec in recorded.items()}
            for path in touched:
                if path in at or path in was:
                    ids.update(vid for vid in (at.get(path), was.get(path)) if vid)
                elif path != "New papers.md":  # (the digest's own note: no format renders it)
                    unknown = True
        ids.update(vid for vid, (path, _) in session._index.items()  # moved since vaultsync wrote them
                   if (rec := recorded.get(vid)) is None or rec.path != path)
        changes = render_changes(baseline, model, ids)
        return replace(changes, index=True, maps=True, collection_maps=None) if unknown else changes

    @contextmanager
    def _rendering(self, model: VaultModel,
                   changes: RenderChanges | None = None) -> Iterator[Iterator[OutputFile | DeferredNote]]:
        """Every note of ``model`` in the chosen format, rendered as it is asked for within the
        block (or as a ``DeferredNote``, rendered only if the sync needs it); abstracts' Markdown
        comes from the state's cache when the same text with the same links was converted before
        (by the same code), and what was converted is cached after."""
        from .markdown import conversions, pools_allowed  # lazy: start-up time

        state = self.session.state
        papers = model.papers if changes is None else [p for p in model.papers if p.id in changes.papers]
        wanted = {conversion_key(p.abstract.text, p.links): (p.abstract.text, tuple(p.links)) for p in papers}
        known = load_conversions(state, self._code, wanted)
        with conversions(dict(known)) as table, pools_allowed(self.speedups.pools):
            yield render_lazily(model, self.options.format, self.pm, {"config": self.options.config},
                                defer=self.speedups.deferred_render, changes=changes)
        if not self.options.dry_run:
            save_conversions(state, self._code, wanted, table, known)

    def warm(self, checkpoint=None) -> None:
        """Get ready to ``preview`` the next new seed file quickly: link the corpus if no run has
        yet, index what the last link found; write nothing. What it keeps is frozen out of the
        collector until the next ``run`` (collections walked it all every few files of a preview)."""
        self._checkpoint = checkpoint
        try:
            with self.speedups.shortcuts(), self.speedups.collector_for("link"):  # (what it makes stays)
                self._warm()
        finally:
            if self.speedups.collector:
                gc.freeze()
                self._frozen = True

    def _warm(self) -> None:
        if self.options.dry_run:
            return
        self.remember_last()  # (the round is over: what a later start needs, while nothing happens)
        if self._model is None:
            if self._code is None:
                self._code = code_signature(self.plugins)
            self._read_extract_link()
        prepare_additions(self._model)
        from .markdown import remember_conversions  # lazy: start-up time

        remember_conversions()  # the next rounds render the same abstracts again (until __exit__)
        self._remembering = True
        if not self._primed and self._model.papers:
            # extractors load their data (the vocabulary) on first use: not at the first new file
            context = ExtractContext(vault=str(self.vault_dir.resolve()), config=self.options.config,
                                     taught=self._taught)
            extract_all([self._model.papers[0].abstract], self.pm, context, speedups=self.speedups)
            self._primed = True

    def _read_extract_link(self) -> tuple[ReadResult, list[Extracted], VaultModel]:
        """read → scan → extract → link: the seeds, what the vault says, each abstract, the model."""
        self._step("read")
        read = self.read()
        abstracts = [abstract for seed in read.seeds for abstract in seed.abstracts]
        snapshot = scan(self.session, abstracts, remember_lessons=not self.options.dry_run)
        self._step("extract")
        if snapshot.taught != self._taught:  # the user taught something new: every abstract may read differently
            self._extracted.clear()
            self._taught = snapshot.taught
        live = {a.id for a in abstracts}
        extracted = self._extract(abstracts, snapshot.taught, live)
        for stale in set(self._extracted) - live:
            del self._extracted[stale]
        self._step("link")
        options = LinkOptions(snapshot.names, snapshot.deleted, snapshot.user_concepts, **promotion_options(self.pm))
        with self.speedups.collector_for("link"):  # what it builds stays alive
            model = self._linker.link(abstracts, extracted, options)
        if self.options.dry_run:  # (a dry run's model is not the vault's)
            self._linker = Linker(keep=self.remember)
        self._model = None if self.options.dry_run else model
        if not self.remember:  # a one-shot export previews nothing: the index it would use goes
            model.caches.pop("relatedness", None)
        return read, extracted, model


def model_ids(model: VaultModel) -> set[str]:
    """The ids of the notes a format renders from ``model`` (papers, concepts but those the user
    wrote, collections, the index): notes a run left unrendered as unchanged are not gone."""
    from .link import collection_id

    return {*(p.id for p in model.papers), *(c.id for c in model.concepts if not c.user_note),
            *(collection_id(c.collection.name) for c in model.collections), "index"}


def export(seeds_dir: Path, vault_dir: Path, pm: pluggy.PluginManager | LazyPlugins,
           options: ExportOptions = ExportOptions()) -> SyncReport:
    """Read every seed in ``seeds_dir`` and bring ``vault_dir`` up to date with it, once (with
    ``LazyPlugins``, a run that finds nothing changed imports no plugin)."""
    with Exporter(seeds_dir, vault_dir, pm, options, remember=False) as exporter:
        return exporter.run()
