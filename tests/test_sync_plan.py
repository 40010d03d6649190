"""The sync's plan for one note: a pure decision from what is on disk and what vaultsync recorded."""

from __future__ import annotations

from vaultsync.records import OutputFile
from vaultsync.state import NoteRecord
from vaultsync.sync_plan import Conflict, OnDisk, Skip, Unchanged, Write, plan_note, sha

NOTE = OutputFile("Papers/A.md", "Generated text.\n", {"vaultsync_id": "a1", "type": "paper"}, "a1", "paper")
MAP = OutputFile("Maps/A.canvas", '{"nodes": []}\n', None, None, "data", merge=False)


def test_a_new_note_is_written():
    plan = plan_note(NOTE, OnDisk("Papers/A.md"), None)
    assert isinstance(plan, Write)
    assert "Generated text." in plan.text and plan.data == plan.text.encode("utf-8")
    assert plan.owned_keys == ("vaultsync_id", "type")


def test_a_note_already_as_planned_is_unchanged():
    first = plan_note(NOTE, OnDisk("Papers/A.md"), None)
    again = plan_note(NOTE, OnDisk("Papers/A.md", first.data, found_by_id=True), None)
    assert isinstance(again, Unchanged) and again.data == first.data


def test_a_note_the_user_deleted_is_skipped():
    assert plan_note(NOTE, OnDisk("Papers/A.md", deleted=True), None) == Skip()


def test_a_note_of_the_users_own_at_the_path_is_not_overwritten():
    plan = plan_note(NOTE, OnDisk("Papers/A.md", b"# My own note\n"), None)
    assert isinstance(plan, Conflict) and plan.reason == "it is a note of your own"
    assert "Generated text." in plan.proposed


def test_a_whole_file_someone_changed_is_theirs_unless_vaultsync_wrote_those_bytes():
    mine = b'{"nodes": [1]}\n'
    assert isinstance(plan_note(MAP, OnDisk("Maps/A.canvas", mine), None), Conflict)
    assert isinstance(plan_note(MAP, OnDisk("Maps/A.canvas", mine, whole_file_hashes=(sha(mine),)), None), Write)
    recorded = NoteRecord("path:Maps/A.canvas", "Maps/A.canvas", "data", sha(mine))
    assert isinstance(plan_note(MAP, OnDisk("Maps/A.canvas", mine), recorded), Write)


def test_a_region_the_user_edited_is_a_conflict():
    first = plan_note(NOTE, OnDisk("Papers/A.md"), None)
    record = NoteRecord("a1", "Papers/A.md", "paper", sha(first.data), first.region_sha, None, first.owned_keys)
    edited = first.text.replace("Generated text.", "My rewrite.").encode("utf-8")
    changed = OutputFile(NOTE.path, "New generated text.\n", NOTE.frontmatter, "a1", "paper")
    assert isinstance(plan_note(changed, OnDisk("Papers/A.md", edited, found_by_id=True), record), Conflict)
