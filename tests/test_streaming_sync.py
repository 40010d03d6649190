"""The sync writes notes as they are rendered, in batches: any batch size gives the same vault
and the same report, including the notes marked removed when a seed file goes."""

from __future__ import annotations

import shutil
from pathlib import Path

from vaultsync import sync
from vaultsync.pipeline import export
from vaultsync.plugins import get_plugin_manager

ROOT = Path(__file__).resolve().parents[1]


def files_of(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*")) if p.is_file()}


def export_twice(tmp_path: Path, name: str, monkeypatch):
    """A full export of the bundled seeds, then one without the first seed file."""
    seeds = tmp_path / f"seeds-{name}"
    shutil.copytree(ROOT / "seeds", seeds)
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / f"state-{name}"))
    vault = tmp_path / name
    first = export(seeds, vault, get_plugin_manager())
    sorted(seeds.glob("*.txt"))[0].unlink()
    second = export(seeds, vault, get_plugin_manager())
    return vault, first, second


def test_small_batches_write_what_one_batch_writes(tmp_path, monkeypatch):
    monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)  # batches are the fast path's
    monkeypatch.setattr(sync, "_BATCH", 1_000_000)
    whole, *reports_whole = export_twice(tmp_path, "whole", monkeypatch)
    monkeypatch.setattr(sync, "_BATCH", 3)
    batched, *reports_batched = export_twice(tmp_path, "batched", monkeypatch)

    assert files_of(batched) == files_of(whole)
    for got, want in zip(reports_batched, reports_whole):
        assert not got.errors and not got.conflicts
        assert got == want
    first, second = reports_batched
    assert first.created and not first.removed
    assert second.removed  # the papers of the seed file that went, and what only they named
    live = [p for p in (batched / "Papers").glob("*.md") if "status: removed" not in p.read_text("utf-8")]
    assert len(live) == second.papers
