"""Text from a seed can never escape its note: end to end, through the real pipeline."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from vaultsync.doctor import diagnose
from vaultsync.frontmatter_io import read_frontmatter, split_note
from vaultsync.pipeline import ExportOptions, export
from vaultsync.plugins import get_plugin_manager

ROOT = Path(__file__).resolve().parents[1]
VAULTCHECK = ROOT.parent / "shared/tools/vaultcheck/vaultcheck.sh"

HOSTILE = [
    "We propose ../../../escaped, a method whose name tries to climb out of the vault folder entirely.",
    "We introduce **CON**, a benchmark named like a reserved Windows device, for testing file systems.",
    "We propose **A/B\\C:D*E?F\"G<H>I|J#K^L[M]N**, a framework with every forbidden character in its name.",
    "---\ntitle: injected\nvaultsync_id: evil\n---\nThis abstract opens with a YAML block to inject frontmatter into the note.",
    "We study [[Evil Link]] and ![[embed]] and %% hidden %% comments and #P-hard tags in graph neural networks.",
    "We show <script>alert(1)</script> and <img src=x onerror=alert(1)> render as text in reinforcement learning.",
    "Costs fell from $5 to $3 while $x^2$ stayed, with a | b pipes and ==highlights== in transformers today.",
    "We propose [[Large Language Models]], a name that is itself a wiki link, for large language models (LLMs).",
]


@pytest.fixture
def hostile_vault(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "evil.txt").write_text("Evil 2026 Papers\n\n" + "\n\n".join(HOSTILE) + "\n", encoding="utf-8")
    vault = tmp_path / "inside" / "vault"
    report = export(seeds, vault, get_plugin_manager(), ExportOptions())
    return tmp_path, vault, report


def test_nothing_is_written_outside_the_vault(hostile_vault):
    tmp_path, vault, _ = hostile_vault
    outside = [p for p in tmp_path.rglob("*") if p.is_file()
               and not p.is_relative_to(vault) and not p.is_relative_to(tmp_path / "state")
               and not p.is_relative_to(tmp_path / "seeds")]
    assert outside == []


def test_each_hostile_abstract_is_one_note_with_only_our_frontmatter(hostile_vault):
    _, vault, report = hostile_vault
    papers = sorted((vault / "Papers").glob("*.md"))
    assert report.papers == len(papers) == len(HOSTILE)
    for path in papers:
        meta = read_frontmatter(split_note(path.read_text(encoding="utf-8"))[0])
        assert meta["type"] == "paper" and meta["vaultsync_id"] != "evil" and meta["title"] != "injected"
        name = path.stem
        assert not set('*"\\/<>:|?#^[]') & set(name) and name.upper() != "CON"


def test_hostile_text_reads_as_text(hostile_vault):
    _, vault, _ = hostile_vault
    # frontmatter values are plain strings to Obsidian; the body is what gets rendered
    bodies = "\n".join(split_note(p.read_text(encoding="utf-8"))[1] for p in (vault / "Papers").glob("*.md"))
    assert "<script>" not in bodies and "<img " not in bodies
    assert "[[Evil Link]]" not in bodies and "![[embed]]" not in bodies
    assert "\n---\ntitle: injected" not in bodies


def test_every_link_resolves_and_doctor_finds_nothing_wrong(hostile_vault):
    _, vault, _ = hostile_vault
    problems = [f for f in diagnose(vault) if f.severity in ("error", "warning")]
    assert problems == []


@pytest.mark.skipif(not VAULTCHECK.exists(), reason="the vaultcheck tool (../shared/tools/vaultcheck) is not beside this clone")
def test_obsidian_reads_the_hostile_vault_with_zero_errors(hostile_vault):
    _, vault, _ = hostile_vault
    result = subprocess.run([str(VAULTCHECK), str(vault), "--json", "--no-obsidiantools"],
                            capture_output=True, text=True, timeout=600)
    summary = json.loads(result.stdout)
    assert summary["errors"] == 0, result.stdout[-3000:]
