"""The sync engine: what a user who annotates their vault can rely on."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from vaultsync.errors import VaultsyncError
from vaultsync.pipeline import export
from vaultsync.plugins import get_plugin_manager
from vaultsync.frontmatter_io import read_frontmatter, split_note
from vaultsync.records import OutputFile, text_id
from vaultsync.sync import VaultSession, note_stem, sync_files
from vaultsync.write import (NoteChangedError, TEMP_PREFIX, file_signature, sweep_temp_files,
                             write_note_atomically)


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    folder = tmp_path / "state"
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def vault(tmp_path):
    return tmp_path / "vault"


def paper(pid: str, name: str, body: str = "", *, seed: str = "s.txt", n: int = 1, **extra):
    fm = {"vaultsync_id": pid, "type": "paper", "title": name, "source": f"{seed} ¶{n}", **extra}
    return OutputFile(f"Papers/{name}.md", body or f"# {name}\n\nAbstract of {name}.\n", fm, pid,
                      "paper")


def sync(vault, files, **kw):
    with VaultSession(vault, recreate_deleted=kw.pop("recreate_deleted", False), dry_run=kw.get("dry_run", False)) as s:
        return s.apply(files, **kw)


def fm_of(path: Path) -> dict:
    return read_frontmatter(split_note(path.read_text())[0])


def test_first_sync_creates_notes_and_second_changes_nothing(vault):
    files = [paper("a1", "Alpha"), paper("b2", "Beta"),
             OutputFile("Maps/concepts.canvas", '{"nodes": []}', merge=False, kind="data")]
    first = sync(vault, files)
    assert sorted(first.created) == ["Maps/concepts.canvas", "Papers/Alpha.md", "Papers/Beta.md"]
    before = {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()}
    second = sync(vault, files)
    assert (second.created, second.updated, second.unchanged) == ((), (), 3)
    assert {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()} == before


def test_user_text_outside_the_region_survives_a_resync(vault):
    sync(vault, [paper("a1", "Alpha")])
    note = vault / "Papers/Alpha.md"
    yaml_text, rest = split_note(note.read_text())
    note.write_text(f"---\n{yaml_text}---\nMy intro.\n\n{rest}\n## My notes\n\nSee [[Beta]]. 🧪\n")
    report = sync(vault, [paper("a1", "Alpha", "# Alpha\n\nA corrected abstract.\n")])
    assert report.updated == ("Papers/Alpha.md",)
    text = note.read_text()
    assert "A corrected abstract." in text
    assert split_note(text)[1].startswith("My intro.\n\n%% vaultsync:begin")
    assert text.endswith("%% vaultsync:end %%\n\n## My notes\n\nSee [[Beta]]. 🧪\n")


def test_user_keys_stay_in_order_and_owned_keys_are_updated(vault):
    sync(vault, [paper("a1", "Alpha", year=2025)])
    note = vault / "Papers/Alpha.md"
    note.write_text(note.read_text().replace("type: paper\n", "type: paper\nrating: 5\nread: yes\n")
                    .replace("---\n%%", "cssclasses:\n  - wide\n---\n%%"))
    sync(vault, [paper("a1", "Alpha", year=2026, venue="ICML 2026")])
    fm = fm_of(note)
    assert fm["year"] == 2026 and fm["venue"] == "ICML 2026"
    assert list(fm) == ["vaultsync_id", "type", "rating", "read", "title", "source", "year",
                        "venue", "cssclasses"]
    assert "read: yes\n" in note.read_text()  # the user's text, not re-quoted


def test_an_edit_inside_the_region_leaves_the_note_alone_and_proposes_a_copy(vault):
    sync(vault, [paper("a1", "Alpha")])
    note = vault / "Papers/Alpha.md"
    note.write_text(note.read_text().replace("Abstract of Alpha.", "My rewrite of it."))
    before = note.read_bytes(), file_signature(note)
    report = sync(vault, [paper("a1", "Alpha", "# Alpha\n\nNew abstract.\n")])
    assert (note.read_bytes(), file_signature(note)) == before
    assert len(report.conflicts) == 1 and "Papers/Alpha.md" in report.conflicts[0]
    copy = vault / ".vaultsync/conflicts/Papers/Alpha.md"
    assert "New abstract." in copy.read_text() and str(copy.relative_to(vault)) in report.conflicts[0]
    # Once the user takes vaultsync's version, the note is managed again and the copy goes.
    shutil.copy(copy, note)
    report = sync(vault, [paper("a1", "Alpha", "# Alpha\n\nNewer.\n")])
    assert report.updated == ("Papers/Alpha.md",) and not copy.exists()


def test_removed_markers_are_a_conflict(vault):
    sync(vault, [paper("a1", "Alpha")])
    note = vault / "Papers/Alpha.md"
    note.write_text(note.read_text().replace("%% vaultsync:end %%\n", ""))
    before = note.read_bytes()
    report = sync(vault, [paper("a1", "Alpha", "# Alpha\n\nNew.\n")])
    assert note.read_bytes() == before and "markers" in report.conflicts[0]


def test_broken_yaml_is_a_conflict_and_the_note_is_untouched(vault):
    sync(vault, [paper("a1", "Alpha")])
    note = vault / "Papers/Alpha.md"
    note.write_text(note.read_text().replace("type: paper\n", "type: paper\nbad: [unclosed\n"))
    before = note.read_bytes()
    report = sync(vault, [paper("a1", "Alpha", "# Alpha\n\nNew.\n")])
    assert note.read_bytes() == before and "YAML" in report.conflicts[0]


def test_a_renamed_and_moved_note_is_updated_where_it_is(vault):
    sync(vault, [paper("a1", "Alpha")])
    (vault / "Reading").mkdir()
    moved = vault / "Reading/Alpha (mine).md"
    os.rename(vault / "Papers/Alpha.md", moved)
    with VaultSession(vault) as s:
        assert s.existing_path("a1") == "Reading/Alpha (mine).md"
        assert s.existing_names() == {"a1": "Alpha (mine)"}
        report = s.apply([paper("a1", "Alpha", "# Alpha\n\nUpdated.\n")])
    assert report.updated == ("Reading/Alpha (mine).md",)
    assert not (vault / "Papers/Alpha.md").exists() and "Updated." in moved.read_text()


def test_a_note_moved_or_deleted_during_a_long_session_is_not_written_anew(vault):
    """The vault was scanned, then the user moved one note and deleted another in Obsidian
    while the run was busy (a watcher's session lives for weeks): neither comes back at its old
    place, so no two notes ever carry one id."""
    sync(vault, [paper("a1", "Alpha"), paper("b2", "Beta")])
    with VaultSession(vault) as s:
        assert s.existing_path("a1") == "Papers/Alpha.md"  # scanned
        (vault / "Reading").mkdir()
        moved = vault / "Reading/Alpha (mine).md"
        os.rename(vault / "Papers/Alpha.md", moved)
        (vault / "Papers/Beta.md").unlink()
        report = s.apply([paper("a1", "Alpha", "# Alpha\n\nUpdated.\n"), paper("b2", "Beta", "# Beta\n\nNew.\n")])
    assert report.updated == ("Reading/Alpha (mine).md",) and report.created == ()
    assert "Updated." in moved.read_text()
    assert not (vault / "Papers/Alpha.md").exists() and not (vault / "Papers/Beta.md").exists()


def test_a_deleted_note_is_not_recreated_unless_asked(vault):
    files = [paper("a1", "Alpha"), paper("b2", "Beta")]
    sync(vault, files)
    (vault / "Papers/Beta.md").unlink()
    with VaultSession(vault) as s:
        assert s.deleted_ids() == {"b2"}
        report = s.apply(files)
    assert not (vault / "Papers/Beta.md").exists() and report.created == ()
    assert any("not recreated" in w for w in report.warnings)
    report = sync(vault, files, recreate_deleted=True)
    assert report.created == ("Papers/Beta.md",)


def test_an_abstract_gone_from_its_seed_is_marked_removed_and_revived(vault):
    files = [paper("a1", "Alpha", n=1), paper("b2", "Beta", n=2),
             paper("c3", "Gamma", seed="other.txt")]
    sync(vault, files, seeds=["s.txt", "other.txt"])
    report = sync(vault, files[:1], seeds=["s.txt"])  # other.txt was not read this run
    assert report.removed == ("Papers/Beta.md",)
    assert fm_of(vault / "Papers/Beta.md")["status"] == "removed"
    assert "status" not in fm_of(vault / "Papers/Gamma.md")
    assert sync(vault, files[:1], seeds=["s.txt"]).removed == ()  # already marked
    sync(vault, files, seeds=["s.txt", "other.txt"])
    assert "status" not in fm_of(vault / "Papers/Beta.md")


def test_only_changed_notes_are_rewritten(vault):
    files = [paper("a1", "Alpha"), paper("b2", "Beta"), paper("c3", "Gamma")]
    sync(vault, files)
    sigs = {p.name: file_signature(p) for p in (vault / "Papers").iterdir()}
    files[1] = paper("b2", "Beta", "# Beta\n\nChanged.\n")
    report = sync(vault, files)
    assert report.updated == ("Papers/Beta.md",) and report.unchanged == 2
    now = {p.name: file_signature(p) for p in (vault / "Papers").iterdir()}
    assert now["Alpha.md"] == sigs["Alpha.md"] and now["Gamma.md"] == sigs["Gamma.md"]
    assert now["Beta.md"] != sigs["Beta.md"]


def test_a_second_session_on_the_same_vault_is_refused(vault):
    with VaultSession(vault):
        with pytest.raises(VaultsyncError, match=rf"being written by another vaultsync \(pid {os.getpid()}\)"):
            VaultSession(vault).__enter__()
    with VaultSession(vault):  # released afterwards
        pass


def test_two_writers_with_different_state_folders_are_refused_too(vault, tmp_path):
    """The lock lives in the vault: another state folder (VAULTSYNC_STATE_DIR) is no way round it."""
    with VaultSession(vault, state_dir=tmp_path / "state-one"):
        with pytest.raises(VaultsyncError, match="being written by another vaultsync"):
            VaultSession(vault, state_dir=tmp_path / "state-two").__enter__()
    assert (vault / ".vaultsync" / "lock").exists()


def test_a_symlink_out_of_the_vault_is_never_written_through(vault, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Alpha.md").write_text("precious\n")
    vault.mkdir()
    (vault / "Papers").symlink_to(outside, target_is_directory=True)
    (vault / "Concepts").mkdir()
    (vault / "Concepts/Loop.md").symlink_to(outside / "Alpha.md")
    report = sync(vault, [paper("a1", "Alpha"),
                          OutputFile("Concepts/Loop.md", "x\n", {"type": "concept"}, "k1", "concept")])
    assert len(report.errors) == 2 and all("outside the vault" in e for e in report.errors)
    assert (outside / "Alpha.md").read_text() == "precious\n" and os.listdir(outside) == ["Alpha.md"]


@pytest.mark.parametrize("bad", ["../x.md", "Papers/../../x.md", "/etc/x.md", ".obsidian/x.md",
                                 "Papers//x.md", "C:/x.md", "a\\..\\x.md", "a\x00.md"])
def test_path_traversal_is_refused_and_other_files_still_written(vault, tmp_path, bad):
    report = sync(vault, [OutputFile(bad, "x\n", {"type": "index"}), paper("a1", "Alpha")])
    assert len(report.errors) == 1 and "refused" in report.errors[0]
    assert report.created == ("Papers/Alpha.md",)
    assert not (tmp_path / "x.md").exists()


def test_deleted_state_is_rebuilt_from_the_vault_without_duplicates(vault, state_dir):
    files = [paper("a1", "Alpha"), paper("b2", "Beta")]
    sync(vault, files)
    os.rename(vault / "Papers/Beta.md", vault / "Beta moved.md")
    shutil.rmtree(state_dir)
    report = sync(vault, files)
    assert report.created == () and report.unchanged == 2
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    assert notes == ["Beta moved.md", "Papers/Alpha.md"]
    with VaultSession(vault) as s:
        assert s.deleted_ids() == set()


def test_an_edited_abstract_updates_its_note_in_place(vault):
    old_text = "We propose Alpha, a method for sparse routing in large models. It is fast."
    new_text = "We propose Alpha, a method for sparse routing in large models. It is very fast."
    old_id, new_id = text_id(old_text), text_id(new_text)
    with VaultSession(vault) as s:
        s.match_edited([(old_id, "s.txt", 1, old_text), ("z9", "s.txt", 2, "Unrelated text.")])
        s.apply([paper(old_id, "Alpha"), paper("z9", "Zeta", n=2)], seeds=["s.txt"])
    note = vault / "Papers/Alpha.md"
    note.write_text(note.read_text() + "My notes.\n")
    with VaultSession(vault) as s:
        assert s.match_edited([(new_id, "s.txt", 1, new_text), ("z9", "s.txt", 2,
                                                                 "Unrelated text.")]) == {new_id: old_id}
        assert s.existing_path(new_id) == "Papers/Alpha.md" and old_id not in s.deleted_ids()
        report = s.apply([paper(new_id, "Alpha", "# Alpha\n\nvery fast\n"), paper("z9", "Zeta", n=2)],
                         seeds=["s.txt"])
    assert report.updated == ("Papers/Alpha.md",) and report.removed == ()
    assert fm_of(note)["vaultsync_id"] == new_id and note.read_text().endswith("My notes.\n")
    assert sorted(p.name for p in (vault / "Papers").iterdir()) == ["Alpha.md", "Zeta.md"]


def test_one_session_matches_an_abstract_edited_between_two_runs(vault):
    # a watcher's session: the second run reuses what the first normalised, and still matches
    old_text = "We propose Alpha, a method for sparse routing in large models. It is fast."
    new_text = "We propose Alpha, a method for sparse routing in large models. It is VERY fast."
    old_id, new_id = text_id(old_text), text_id(new_text)
    with VaultSession(vault) as s:
        assert s.match_edited([(old_id, "s.txt", 1, old_text), ("z9", "s.txt", 2, "Unrelated text.")]) == {}
        s.apply([paper(old_id, "Alpha"), paper("z9", "Zeta", n=2)], seeds=["s.txt"])
        assert s.match_edited([(old_id, "s.txt", 1, old_text), ("z9", "s.txt", 2, "Unrelated text.")]) == {}
        assert s.match_edited([(new_id, "s.txt", 1, new_text), ("z9", "s.txt", 2,
                                                                 "Unrelated text.")]) == {new_id: old_id}
        assert [(p.id, p.text) for p in s._papers] == [(new_id, new_text.casefold()), ("z9", "unrelated text.")]
        assert s.existing_path(new_id) == "Papers/Alpha.md"


def test_a_renamed_seed_with_an_edit_still_matches(vault):
    old_text = "A benchmark for audio-visual intelligence of omni models with many tasks."
    new_text = "A benchmark for audio visual intelligence of omni-modal models with many tasks."
    with VaultSession(vault) as s:
        s.match_edited([(text_id(old_text), "old.txt", 3, old_text)])
        s.apply([paper(text_id(old_text), "AVI")], seeds=["old.txt"])
    with VaultSession(vault) as s:
        assert s.match_edited([(text_id(new_text), "new.txt", 3, new_text)]) == {
            text_id(new_text): text_id(old_text)}


def test_a_duplicated_note_warns_and_updates_one(vault):
    sync(vault, [paper("a1", "Alpha")])
    shutil.copy(vault / "Papers/Alpha.md", vault / "Papers/Alpha 1.md")
    report = sync(vault, [paper("a1", "Alpha", "# Alpha\n\nNew.\n")])
    assert report.updated == ("Papers/Alpha.md",)  # the one vaultsync wrote, not the copy
    assert any("same vaultsync_id" in w for w in report.warnings)
    assert "New." not in (vault / "Papers/Alpha 1.md").read_text()


def test_a_users_own_note_at_the_path_is_not_overwritten(vault):
    (vault / "Papers").mkdir(parents=True)
    (vault / "Papers/Alpha.md").write_text("my own note\n")
    report = sync(vault, [paper("a1", "Alpha")])
    assert (vault / "Papers/Alpha.md").read_text() == "my own note\n"
    assert "note of your own" in report.conflicts[0]
    assert "Abstract of Alpha" in (vault / ".vaultsync/conflicts/Papers/Alpha.md").read_text()


def test_dry_run_writes_nothing(vault, state_dir):
    report = sync(vault, [paper("a1", "Alpha")], dry_run=True)
    assert report.created == ("Papers/Alpha.md",)
    assert not any(p.is_file() for p in vault.rglob("*"))
    assert sync(vault, [paper("a1", "Alpha")]).created == ("Papers/Alpha.md",)


def test_stray_temp_files_are_swept_before_a_session_first_writes(vault):
    (vault / "Papers").mkdir(parents=True)
    stray = vault / "Papers" / f"{TEMP_PREFIX}abc"
    stray.write_text("half a no")
    with VaultSession(vault) as session:
        assert stray.exists()  # (a run that finds nothing to do does not walk the vault for them)
        session.apply([paper("a1", "Alpha")])
        assert not stray.exists()
    stray.write_text("x")
    assert sweep_temp_files(vault) == [stray]


def test_stray_temp_files_are_swept_by_an_export_that_finds_nothing_else_to_do(tmp_path):
    seeds, vault = tmp_path / "seeds", tmp_path / "vault"
    seeds.mkdir()
    (seeds / "a.txt").write_text("Papers\n\nWe study flow matching for offline RL.\n", encoding="utf-8")
    export(seeds, vault, get_plugin_manager())
    stray = next(vault.rglob("*.md")).parent / f"{TEMP_PREFIX}abc"
    stray.write_text("half a note")
    export(seeds, vault, get_plugin_manager())
    assert not stray.exists()


def test_a_note_saved_during_the_write_is_not_overwritten(tmp_path):
    note = tmp_path / "n.md"
    note.write_text("old\n")
    sig = file_signature(note)
    note.write_text("the user's save\n")
    with pytest.raises(NoteChangedError):
        write_note_atomically(note, "vaultsync's\n", expect=sig)
    assert note.read_text() == "the user's save\n"
    assert os.listdir(tmp_path) == ["n.md"]


def test_the_state_lives_outside_the_vault_and_caches_blobs(vault, state_dir):
    with VaultSession(vault) as s:
        s.state.put_blob("extract:abc", b"\x00cached")
        s.state.put_seed_hash("s.txt", "f00")
    with VaultSession(vault) as s:
        assert s.state.get_blob("extract:abc") == b"\x00cached"
        assert s.state.seed_hash("s.txt") == "f00"
        assert s.state.path.parent == state_dir
    assert not any(p.suffix.startswith(".sqlite") for p in vault.rglob("*"))


def test_sync_files_is_one_call(vault):
    assert sync_files([paper("a1", "Alpha")], vault).created == ("Papers/Alpha.md",)


def test_a_file_owned_whole_that_the_user_changed_is_proposed_not_overwritten(vault):
    canvas = lambda text: OutputFile("Maps/concepts.canvas", text, merge=False, kind="canvas")  # noqa: E731
    sync(vault, [canvas('{"nodes": []}')])
    sync(vault, [canvas('{"nodes": [1]}')])  # vaultsync's own change: written
    assert (vault / "Maps/concepts.canvas").read_text() == '{"nodes": [1]}'
    (vault / "Maps/concepts.canvas").write_text('{"nodes": [1], "mine": true}')  # the user rearranged it
    report = sync(vault, [canvas('{"nodes": [2]}')])
    assert (vault / "Maps/concepts.canvas").read_text() == '{"nodes": [1], "mine": true}'
    assert len(report.conflicts) == 1 and (vault / ".vaultsync/conflicts/Maps/concepts.canvas").exists()


def test_a_concept_note_no_longer_derived_is_marked_removed_not_deleted(vault):
    concept = lambda cid, name: OutputFile(f"Concepts/{name}.md", f"# {name}\n",  # noqa: E731
                                           {"vaultsync_id": cid, "type": "concept", "title": name}, cid, "concept")
    sync(vault, [paper("a1", "Alpha"), concept("c1", "Graphs"), concept("c2", "Trees")], seeds=["s.txt"])
    report = sync(vault, [paper("a1", "Alpha"), concept("c1", "Graphs")], seeds=["s.txt"])
    assert report.removed == ("Concepts/Trees.md",)
    assert fm_of(vault / "Concepts/Trees.md")["status"] == "removed"
    report = sync(vault, [paper("a1", "Alpha"), concept("c1", "Graphs"), concept("c2", "Trees")], seeds=["s.txt"])
    assert "status" not in fm_of(vault / "Concepts/Trees.md")


def test_the_state_reads_a_note_record_back_as_it_was_put(tmp_path):
    from vaultsync.state import NoteRecord, State

    records = [NoteRecord("a", "Papers/A.md", "paper", "c", "r", "i", ("vaultsync_id", "type"), (12, 3456, 10**18)),
               NoteRecord("path:x", "x.canvas", "canvas", "c", None, "i", (), None),
               NoteRecord("b", "Papers/B.md", "paper", None, None, None, ("vaultsync_id", "type"), (1, 0, 2))]
    state = State(tmp_path / "vault", tmp_path / "state")
    with state.transaction():
        for rec in records:
            state.put_note(rec)
    state.close()
    again = State(tmp_path / "vault", tmp_path / "state")
    assert again.notes() == {rec.key: rec for rec in records}
    again.close()


@given(st.text(alphabet=".md aé", min_size=1, max_size=12))  # (a file name: no "/")
@example(".md")
@example("..md")
@example("a..md")
@example("x.md.md")
@example("Notes.MD")
def test_a_notes_stem_is_what_splitext_gives(name):
    assert note_stem(name) == os.path.splitext(name)[0]


def test_tags_aliases_and_a_title_edited_in_obsidian_survive_a_resync(vault):
    """What Obsidian's Properties view writes is kept: the user's tag and alias stay beside
    vaultsync's new values, the user's title stays, and vaultsync's own removals still apply."""
    def alpha(tags, aliases, gist):
        return paper("a1", "Alpha", tags=tags, aliases=aliases, title=f"Alpha — {gist}")

    sync(vault, [alpha(["paper", "icml-2026"], ["ALP"], "a first gist")])
    note = vault / "Papers/Alpha.md"
    text = note.read_text()
    text = text.replace("  - icml-2026\n", "  - icml-2026\n  - to-read\n")
    text = text.replace("  - ALP\n", "  - ALP\n  - My alpha\n")
    text = text.replace('title: "Alpha — a first gist"', "title: Alpha, as I call it")
    note.write_text(text)
    report = sync(vault, [alpha(["paper", "icml-2027"], ["ALP", "ALPHA"], "a better gist")])
    assert (report.updated, report.conflicts) == (("Papers/Alpha.md",), ())
    fm = fm_of(note)
    assert fm["tags"] == ["paper", "icml-2027", "to-read"]
    assert fm["aliases"] == ["ALP", "ALPHA", "My alpha"]
    assert fm["title"] == "Alpha, as I call it"
    again = sync(vault, [alpha(["paper", "icml-2027"], ["ALPHA"], "a better gist")])
    assert again.conflicts == () and fm_of(note)["aliases"] == ["ALPHA", "My alpha"]
    assert fm_of(note)["tags"] == ["paper", "icml-2027", "to-read"]
