"""A seed saved as Latin-1 by mistake, then saved again as UTF-8: the papers keep their notes,
which take the names a fresh export gives; links follow the names."""

from __future__ import annotations

import pytest

from vaultsync.doctor import diagnose
from vaultsync.frontmatter_io import read_frontmatter, split_note
from vaultsync.pipeline import export
from vaultsync.plugins import get_plugin_manager
from vaultsync.records import text_id

SEED = """Artículos de NeurIPS 2025

We propose a Réseau-Énergie graph network for molecular property prediction that improves accuracy over message passing baselines on three benchmarks with attention.

We introduce Café-Bench, a benchmark for evaluating large language models on multilingual reasoning tasks across twelve languages and three domains of expertise.
"""
NOTES = "\n## My notes\n\nRead this one again.\n"


def notes_of(folder):
    found = {}
    for note in folder.glob("*.md"):
        text = note.read_text("utf-8")
        found[note.stem] = (read_frontmatter(split_note(text)[0]), text)
    return found


@pytest.fixture
def resaved(tmp_path, monkeypatch):
    """Exported from the Latin-1 file (day 1), annotated, then exported from the UTF-8 one (day 2)."""
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    seeds, vault = tmp_path / "seeds", tmp_path / "vault"
    seeds.mkdir()
    (seeds / "es.txt").write_bytes(SEED.encode("latin-1"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1778716800")
    export(seeds, vault, get_plugin_manager())
    before = notes_of(vault / "Papers")
    assert any("\ufffd" in stem for stem in before)  # (the mistake)
    mangled = next(stem for stem, (_, text) in before.items() if "molecular property prediction" in text)
    with open(vault / "Papers" / f"{mangled}.md", "a", encoding="utf-8") as note:
        note.write(NOTES)
    (seeds / "es.txt").write_text(SEED, encoding="utf-8")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1778803200")
    report = export(seeds, vault, get_plugin_manager())
    fresh = tmp_path / "fresh"
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "fresh-state"))
    export(seeds, fresh, get_plugin_manager())
    return vault, fresh, mangled, report


def test_the_notes_take_the_names_a_fresh_export_gives_keeping_identity_and_annotations(resaved):
    vault, fresh, mangled, report = resaved
    assert report.errors == () and report.conflicts == ()
    papers = notes_of(vault / "Papers")
    assert sorted(papers) == sorted(notes_of(fresh / "Papers"))  # the fixed names, no second note
    assert not any("\ufffd" in p.name for p in vault.rglob("*"))
    [(meta, text)] = [papers[stem] for stem in papers if "molecular property prediction" in papers[stem][1]]
    assert text.endswith(NOTES)  # the same note, annotated
    assert meta["vaultsync_id"] == text_id(SEED.split("\n\n")[1])
    assert mangled in meta["aliases"]  # the old name, for the user's own links and searches


def test_the_collection_note_follows_its_fixed_header(resaved):
    vault, fresh, _, _ = resaved
    collections = notes_of(vault / "Collections")
    assert sorted(collections) == sorted(notes_of(fresh / "Collections")) == ["Artículos de NeurIPS 2025"]
    meta, _ = collections["Artículos de NeurIPS 2025"]
    assert meta.get("status") != "removed" and "Art\ufffdculos de NeurIPS 2025" in meta["aliases"]


def test_vaultsyncs_links_follow_the_new_names(resaved):
    vault, _, mangled, _ = resaved
    digest = (vault / "New papers.md").read_text("utf-8")
    assert "## 2026-05-14" in digest and "\ufffd" not in digest
    assert [f for f in diagnose(vault) if f.check == "unresolved-link"] == []


def test_a_fixed_name_is_the_old_one_read_properly():
    from vaultsync.renames import fixed_by

    assert fixed_by("R\ufffdseau-\ufffdnergie", "Réseau-Énergie")
    assert fixed_by("\ufffd\ufffdtude", "Étude")  # (two bytes of another encoding, one letter)
    assert not fixed_by("R\ufffdseau", "Reseau2") and not fixed_by("Reseau", "Reseau")


def test_relinking_keeps_headings_and_display_text():
    from vaultsync.renames import relink

    text = "- [[Old]] · [[Old#Results|see]] · [[Gone|shown]] · [[Gone]] · [[Other]]"
    assert relink(text, {"Old": "New"}, ["Gone"]) == "- [[New]] · [[New#Results|see]] · shown · Gone · [[Other]]"
