"""A watcher's round renders and checks only the notes that may differ from what the last
successful run wrote (``RenderContext.changes``), plus the notes touched in the vault since
(``Exporter.track_vault``): the vault ends byte for byte as a one-shot export of the same seeds
leaves it, and a user's edits are merged or kept as when every note is checked."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from vaultsync import sync_run
from vaultsync.pipeline import Exporter, ExportOptions, export
from vaultsync.plugins import get_plugin_manager
from vaultsync.vault_events import VaultTouches
from vaultsync.watch import Watcher, WatchOptions

ROOT = Path(__file__).resolve().parents[1]
FIRST, SECOND = "000_923012a2bb372482.txt", "001_476b98bb6ff612ae.txt"
DIGEST = "New papers.md"


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".vaultsync" not in p.parts and p.name != DIGEST}


def _split(source: str) -> tuple[str, str, str]:
    """A bundled seed file cut in two: its header, its first half, its second half."""
    head, *paragraphs = (ROOT / "seeds" / source).read_text("utf-8").rstrip("\n").split("\n\n")
    half = len(paragraphs) // 2
    return head, "\n\n".join(paragraphs[:half]), "\n\n".join(paragraphs[half:])


@pytest.fixture
def given(monkeypatch) -> list[str]:
    """The paths of the notes given to the sync (rendered, or deferred and checked)."""
    seen: list[str] = []
    original = sync_run.SyncRun.sync_file

    def counted(self, f):
        seen.append(f.path)
        return original(self, f)
    monkeypatch.setattr(sync_run.SyncRun, "sync_file", counted)
    return seen


@pytest.fixture
def folders(tmp_path, monkeypatch):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    shutil.copy(ROOT / "seeds" / FIRST, seeds / FIRST)
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    return seeds, tmp_path / "vault"


def one_shot(tmp_path: Path, seeds: Path, monkeypatch) -> dict[str, bytes]:
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state-one-shot"))
    vault = tmp_path / "one-shot"
    export(seeds, vault, get_plugin_manager())
    return tree(vault)


def watching(seeds: Path, vault: Path) -> tuple[Exporter, VaultTouches]:
    exporter = Exporter(seeds, vault, get_plugin_manager(), ExportOptions())
    return exporter, exporter.track_vault()


def test_a_round_after_a_new_seed_file_checks_only_the_notes_it_changes(folders, given, tmp_path, monkeypatch):
    seeds, vault = folders
    exporter, touches = watching(seeds, vault)
    with exporter:
        exporter.run()  # (the first run checks every note: nothing is known of the vault before)
        everything = len(given)
        notes = set(tree(vault))
        assert everything >= len([n for n in notes if n.endswith(".md")])
        shutil.copy(ROOT / "seeds" / SECOND, seeds / SECOND)
        del given[:]
        report = exporter.run(changed=[SECOND])
        assert not report.errors
    after, checked = tree(vault), list(given)
    assert after == one_shot(tmp_path, seeds, monkeypatch)  # byte for byte (but ``New papers.md``)
    given = checked
    written = set(report.created) | set(report.updated)
    assert written <= set(given)  # every note that changed was checked ...
    print(len(given), everything, len(written), len(after))
    assert len(given) < everything  # ... and not every note (the link stage changed many, here)
    untouched = {p for p in notes if p.startswith("Papers/") and after[p] == (vault / p).read_bytes()}
    assert untouched - set(given), "some unchanged paper note was skipped"
    assert report.unchanged + len(written) >= len([p for p in after if p.endswith(".md")]) - 1


def test_a_user_edit_is_kept_when_untouched_and_merged_when_its_note_changes(folders, given, tmp_path, monkeypatch):
    seeds, vault = folders
    head, early, late = _split(SECOND)
    exporter, touches = watching(seeds, vault)
    with exporter:
        exporter.run()
        kept = sorted((vault / "Papers").glob("*.md"))[0]
        kept.write_text(kept.read_text("utf-8") + "\nMy own thoughts.\n", "utf-8")
        collection = next((vault / "Collections").glob("*.md"))
        collection.write_text(collection.read_text("utf-8") + "\nMy list of favourites.\n", "utf-8")
        for note in (kept, collection):
            touches.add(note.relative_to(vault).as_posix())  # (as the watcher's vault events tell it)
        (seeds / FIRST).write_text((ROOT / "seeds" / FIRST).read_text("utf-8").rstrip("\n") + "\n\n" + early + "\n",
                                   "utf-8")
        del given[:]
        report = exporter.run(changed=[FIRST])
        assert not report.errors and not report.conflicts
        assert kept.relative_to(vault).as_posix() in given  # touched: checked as before
        assert "My own thoughts." in kept.read_text("utf-8")
        text = collection.read_text("utf-8")
        assert "My list of favourites." in text and collection.relative_to(vault).as_posix() in report.updated
        # an edit inside the generated region of a note the round does not change, which the
        # vault's events report: checked (and kept, as when every note is checked)
        other = sorted((vault / "Papers").glob("*.md"))[1]
        edited = other.read_text("utf-8").replace("## Concepts", "## My concepts")
        other.write_text(edited, "utf-8")
        touches.add(other.relative_to(vault).as_posix())
        del given[:]
        report = exporter.run(changed=[FIRST])
        assert other.relative_to(vault).as_posix() in given and other.read_text("utf-8") == edited
        assert not report.errors


@pytest.mark.parametrize("events", [False, True], ids=["rescanned", "told by events"])
def test_a_deleted_or_moved_note_is_checked_and_ends_as_when_every_note_is(folders, given, tmp_path, monkeypatch,
                                                                           events):
    seeds, _ = folders

    def rounds(name: str, track: bool):
        monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / f"state-{name}"))
        vault = tmp_path / name
        exporter = Exporter(seeds, vault, get_plugin_manager(), ExportOptions())
        touches = exporter.track_vault() if track else None
        with exporter:
            exporter.run()
            deleted, moved = sorted((vault / "Papers").glob("*.md"))[:2]
            deleted.unlink()
            (vault / "Reading").mkdir()
            moved.rename(vault / "Reading" / moved.name)
            if touches is not None and events:  # (the vault's events say which notes; the
                for path in (deleted, moved, vault / "Reading" / moved.name):  # watcher refreshes those)
                    touches.add(path.relative_to(vault).as_posix())
                exporter.session.refresh(touches.peek())
            else:
                exporter.session.refresh()  # (as the watcher does without events)
                if touches is not None:
                    touches.drain()
            del given[:]
            report = exporter.run(changed=[FIRST])
            assert f"Papers/{moved.name}" in given
        return tree(vault), (report.created, report.updated, report.removed, report.conflicts, report.gone)

    assert rounds("tracked", True) == rounds("checked", False)


def test_a_run_after_a_failed_run_checks_every_note(folders, given, monkeypatch):
    seeds, vault = folders
    exporter, touches = watching(seeds, vault)
    with exporter:
        exporter.run()
        everything = len(given)
        shutil.copy(ROOT / "seeds" / SECOND, seeds / SECOND)
        original = sync_run.SyncRun._sync_at

        def failing(self, f, key, rel, found_by_id):
            if rel.startswith("Concepts/"):
                raise OSError(13, "Permission denied")
            return original(self, f, key, rel, found_by_id)
        monkeypatch.setattr(sync_run.SyncRun, "_sync_at", failing)
        assert exporter.run(changed=[SECOND]).errors
        monkeypatch.setattr(sync_run.SyncRun, "_sync_at", original)
        del given[:]
        assert not exporter.run(changed=[SECOND]).errors
        assert len(given) >= everything  # every note checked again
        del given[:]
        exporter.run(changed=[SECOND])
        assert len(given) < everything / 2  # and then only what changed


def test_unknown_vault_events_check_every_note(folders, given):
    seeds, vault = folders
    exporter, touches = watching(seeds, vault)
    with exporter:
        exporter.run()
        everything = len(given)
        del given[:]
        touches.lose()  # e.g. a folder moved, or the observer restarted
        exporter.run(changed=[FIRST])
        assert len(given) == everything
        del given[:]
        touches.add("Maps/My own map.canvas")  # a file no note's id says: the maps and index, too
        exporter.run(changed=[FIRST])
        assert "Index.md" in given and any(p.startswith("Maps/") for p in given)
        assert not any(p.startswith("Papers/") for p in given)


def test_an_exporter_that_is_not_told_of_the_vault_checks_every_note(folders, given):
    seeds, vault = folders
    with Exporter(seeds, vault, get_plugin_manager(), ExportOptions()) as exporter:
        exporter.run()
        everything = len(given)
        del given[:]
        exporter.run(changed=[FIRST])
        assert len(given) == everything


def test_the_watcher_learns_what_is_touched_in_the_vault(folders):
    seeds, vault = folders
    with Exporter(seeds, vault, get_plugin_manager(), ExportOptions()) as exporter:
        watcher = Watcher(exporter, WatchOptions(say=lambda line: None, warn=lambda line: None))
        watcher.start()
        try:
            if watcher.mode == "polling":
                pytest.skip("no native file watching here")
            watcher.catch_up()
            touches = exporter.touches
            assert touches is not None
            touches.drain()
            note = sorted((vault / "Papers").glob("*.md"))[0]
            note.write_text(note.read_text("utf-8") + "\nMine.\n", "utf-8")
            deadline = time.monotonic() + 10
            seen: set[str] = set()
            while time.monotonic() < deadline and f"Papers/{note.name}" not in seen:
                time.sleep(0.05)
                seen |= touches.drain() or set()
            assert f"Papers/{note.name}" in seen
            assert not any(part.startswith(".") for path in seen for part in path.split("/"))
        finally:
            watcher.close()


def test_a_new_collection_leaves_the_other_maps_as_a_one_shot_export_does(folders, given, tmp_path, monkeypatch):
    seeds, vault = folders
    head, early, late = _split(SECOND)
    (seeds / "002_neurips.txt").write_text("NeurIPS 2025 Papers\n\n" + early + "\n", "utf-8")
    exporter, touches = watching(seeds, vault)
    with exporter:
        exporter.run()
        (seeds / "003_iclr.txt").write_text("ICLR 2026 Papers\n\n" + late + "\n", "utf-8")
        del given[:]
        report = exporter.run(changed=["003_iclr.txt"])
        assert not report.errors
        checked = list(given)
        del given[:]
        (seeds / "003_iclr.txt").write_text("ICLR 2026 Papers\n\n" + late.replace(" the ", " a ", 1) + "\n", "utf-8")
        report = exporter.run(changed=["003_iclr.txt"])
        assert not report.errors
        again = list(given)
    assert tree(vault) == one_shot(tmp_path, seeds, monkeypatch)
    assert "Maps/ICLR 2026 Papers.canvas" in checked
    assert len(again) < len(checked)


def test_a_watcher_remembers_its_last_run_after_the_round_if_the_vault_is_as_it_left_it(folders, given):
    seeds, vault = folders
    exporter, touches = watching(seeds, vault)
    with exporter:
        exporter.run()
        for path in (vault / "Papers").glob("*.md"):  # (the events of the run's own writes)
            touches.add(path.relative_to(vault).as_posix())
        touches.add("New papers.md")
    del given[:]
    with Exporter(seeds, vault, get_plugin_manager(), ExportOptions()) as later:
        later.run()
    assert given == []  # served by the last run: nothing changed since

    exporter, touches = watching(seeds, vault)
    with exporter:
        exporter.run(changed=[FIRST])
        note = sorted((vault / "Papers").glob("*.md"))[0]
        note.write_text(note.read_text("utf-8") + "\nMine.\n", "utf-8")  # after the run, before the exit
        touches.add(note.relative_to(vault).as_posix())
    with Exporter(seeds, vault, get_plugin_manager(), ExportOptions()) as later:
        later.run()
    assert given  # not remembered: the vault changed after that run


def test_the_same_model_changes_nothing_and_a_format_opts_in_only_alone(folders):
    from vaultsync.hookspecs import hookimpl
    from vaultsync.render import renders_changes_only
    from vaultsync.render_changes import render_changes

    seeds, vault = folders
    with Exporter(seeds, vault, get_plugin_manager(), ExportOptions()) as exporter:
        exporter.run()
        model = exporter._model
    nothing = render_changes(model, model)
    assert not (nothing.papers or nothing.concepts or nothing.collections or nothing.index or nothing.maps)
    touched = render_changes(model, model, {model.papers[0].id, model.concepts[0].id})
    assert touched.papers == {model.papers[0].id} and touched.concepts == {model.concepts[0].id}

    pm = get_plugin_manager()
    assert renders_changes_only(pm, "obsidian")

    class OwnNotes:
        @hookimpl
        def vaultsync_render_note(self, subject, format, model):
            return None
    pm.register(OwnNotes())
    assert not renders_changes_only(pm, "obsidian")  # (what its notes read is not known)
