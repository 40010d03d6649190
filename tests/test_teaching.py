"""The user's vault teaches the vocabulary: concept notes they create or edit."""

from __future__ import annotations

import json
import shutil

import pytest

from vaultsync.frontmatter_io import read_frontmatter, split_note
from vaultsync.pipeline import export
from vaultsync.plugins import get_plugin_manager

ABSTRACTS = [
    "We study wombat routing for sparse models and show that wombat routing improves expert load in "
    "large language models (LLMs) across many tasks.",
    "Wombat routing is extended to vision transformers, where we find that wombat routing stabilises "
    "training of large language models and image encoders alike.",
]


@pytest.fixture
def vault_and_seeds(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a.txt").write_text("ICML 2026 Papers\n\n" + "\n\n".join(ABSTRACTS) + "\n", encoding="utf-8")
    return tmp_path / "vault", seeds


def meta(path):
    return read_frontmatter(split_note(path.read_text(encoding="utf-8"))[0])


def test_a_concept_note_the_user_creates_becomes_a_concept(vault_and_seeds):
    vault, seeds = vault_and_seeds
    export(seeds, vault, get_plugin_manager())
    note = vault / "Concepts/Marsupial Expert Routing.md"
    note.write_text("---\ntype: concept\naliases:\n  - wombat routing\n---\nMy concept.\n", encoding="utf-8")
    export(seeds, vault, get_plugin_manager())
    papers = [p.read_text(encoding="utf-8") for p in (vault / "Papers").glob("*.md")]
    assert all("[[Marsupial Expert Routing|" in text for text in papers)
    assert any("[[Marsupial Expert Routing|wombat routing]]" in text for text in papers)
    assert note.read_text(encoding="utf-8").endswith("My concept.\n")  # the user's note is left alone


def test_aliases_the_user_adds_to_a_generated_concept_note_are_learned_and_kept(vault_and_seeds, tmp_path):
    vault, seeds = vault_and_seeds
    export(seeds, vault, get_plugin_manager())
    note = vault / "Concepts/Large Language Models.md"
    text = note.read_text(encoding="utf-8").replace("aliases:\n", "aliases:\n  - wombat routing\n", 1)
    note.write_text(text, encoding="utf-8")
    export(seeds, vault, get_plugin_manager())
    assert "wombat routing" in meta(note)["aliases"]
    lessons = json.loads((vault / ".vaultsync/taught.json").read_text(encoding="utf-8"))
    assert any("wombat routing" in aliases for _, aliases, _ in lessons.values())
    shutil.rmtree(tmp_path / "state")  # a lost state forgets nothing the vault taught
    export(seeds, vault, get_plugin_manager())
    assert "wombat routing" in meta(note)["aliases"]


def test_untouched_generated_notes_teach_nothing(vault_and_seeds):
    vault, seeds = vault_and_seeds
    export(seeds, vault, get_plugin_manager())
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    export(seeds, vault, get_plugin_manager())
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before
    assert not (vault / ".vaultsync/taught.json").exists()


def test_the_users_own_concept_note_is_linked_to_and_never_a_conflict(vault_and_seeds):
    vault, seeds = vault_and_seeds
    export(seeds, vault, get_plugin_manager())
    note = vault / "Concepts/Wombat Routing.md"
    note.write_text("---\ntype: concept\n---\nWhat I know about it.\n", encoding="utf-8")
    report = export(seeds, vault, get_plugin_manager())
    assert report.conflicts == () and note.read_text(encoding="utf-8") == "---\ntype: concept\n---\nWhat I know about it.\n"
    assert any("[[Wombat Routing|wombat routing]]" in p.read_text(encoding="utf-8")
               for p in (vault / "Papers").glob("*.md"))
