"""The scan: what the vault says before a run, read once and handed to extract and link."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from vaultsync.records import Abstract, Collection, OutputFile
from vaultsync.snapshot import VaultSnapshot, scan
from vaultsync.sync import VaultSession


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))


ALPHA = Abstract("Alpha text.", "s.txt", 1, 2, Collection("ICML 2026 Papers"))


def _paper(pid: str, name: str) -> OutputFile:
    return OutputFile(f"Papers/{name}.md", f"# {name}\n", {"vaultsync_id": pid, "type": "paper"}, pid, "paper")


def test_the_snapshot_holds_the_users_names_deletions_and_concept_notes(tmp_path: Path):
    vault = tmp_path / "vault"
    with VaultSession(vault) as session:
        session.apply([_paper(ALPHA.id, "Alpha"), _paper("b2", "Beta")])
    (vault / "Papers" / "Alpha.md").rename(vault / "Papers" / "Alpha (mine).md")  # the user renamed it
    (vault / "Papers" / "Beta.md").unlink()  # ... and deleted this one
    (vault / "Concepts").mkdir()
    (vault / "Concepts" / "Score Matching.md").write_text("---\naliases: [denoising score matching]\n---\nMine.\n")
    with VaultSession(vault) as session:
        snapshot = scan(session, [ALPHA])
    assert snapshot.names == {ALPHA.id: "Alpha (mine)"}
    assert snapshot.deleted == frozenset({"b2"})
    assert snapshot.user_concepts == {"score matching": "Score Matching"}
    assert [(t.name, t.aliases) for t in snapshot.taught] == [("Score Matching", ("denoising score matching",))]


def test_a_snapshot_cannot_be_changed_by_a_stage(tmp_path: Path):
    with VaultSession(tmp_path / "vault") as session:
        snapshot = scan(session, [])
    assert snapshot == VaultSnapshot()
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.names = {}  # type: ignore[misc]
    with pytest.raises(TypeError):
        snapshot.names["x"] = "y"  # type: ignore[index]
