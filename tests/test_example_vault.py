"""The committed example vault is exactly what the bundled seeds give, and Obsidian reads it cleanly."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from vaultsync.pipeline import ExportOptions, export
from vaultsync.plugins import get_plugin_manager

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "example_vault"
VAULTCHECK = ROOT.parent / "shared/tools/vaultcheck/vaultcheck.sh"
# The example vault's "New papers" digest is dated by this (the reproducible-builds convention);
# regenerate with: rm -rf example_vault && SOURCE_DATE_EPOCH=1796083200 vaultsync export seeds example_vault
EXAMPLE_EPOCH = "1796083200"


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def fresh_export(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EXAMPLE_EPOCH)
    vault = tmp_path / "vault"
    report = export(ROOT / "seeds", vault, get_plugin_manager(), ExportOptions())
    return vault, report


def test_the_example_vault_is_exactly_a_fresh_export_of_the_bundled_seeds(fresh_export):
    vault, report = fresh_export
    assert not report.errors and not report.warnings and not report.conflicts
    fresh, committed = files_of(vault), files_of(EXAMPLE)
    stale = sorted(set(fresh) ^ set(committed)) + sorted(p for p in fresh if p in committed and fresh[p] != committed[p])
    assert not stale, f"example_vault/ is stale ({len(stale)} files differ, e.g. {stale[:5]}); regenerate it (see EXAMPLE_EPOCH)"


def test_every_bundled_abstract_is_a_paper_note(fresh_export):
    vault, report = fresh_export
    paragraphs = sum(len([p for p in re.split(r"\n\s*\n", f.read_text(encoding="utf-8").strip())][1:])
                     for f in (ROOT / "seeds").glob("*.txt"))
    assert report.papers == paragraphs == len(list((vault / "Papers").glob("*.md")))


def test_a_second_export_changes_no_byte(fresh_export):
    vault, _ = fresh_export
    before = files_of(vault)
    report = export(ROOT / "seeds", vault, get_plugin_manager(), ExportOptions())
    assert (report.created, report.updated, report.removed) == ((), (), ())
    assert files_of(vault) == before


def test_re_exporting_the_committed_vault_changes_nothing(tmp_path, monkeypatch):
    """What a newcomer's first command does: export over the vault as cloned (no state yet)."""
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    vault = tmp_path / "example_vault"
    shutil.copytree(EXAMPLE, vault)
    report = export(ROOT / "seeds", vault, get_plugin_manager(), ExportOptions())
    assert (report.created, report.updated, report.removed, report.conflicts) == ((), (), (), ())


@pytest.mark.skipif(not VAULTCHECK.exists(), reason="the vaultcheck tool (../shared/tools/vaultcheck) is not beside this clone")
def test_obsidian_reads_a_fresh_export_with_zero_errors(fresh_export):
    vault, _ = fresh_export
    result = subprocess.run([str(VAULTCHECK), str(vault), "--json", "--no-obsidiantools"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads(result.stdout)
    assert summary["ok"] is True and summary["errors"] == 0


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", readme, flags=re.S)
    test_command = next(line for block in blocks for line in block.splitlines() if "pytest" in line)
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8")
    assert test_command.strip() in [line.strip() for line in ci.splitlines()]
