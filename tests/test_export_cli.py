"""`vaultsync export` as a newcomer meets it: what a dry run lists, --json, the summary line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vaultsync.cli import app
from vaultsync.commands.common import summary_line
from vaultsync.records import SyncReport

runner = CliRunner()
ABSTRACTS = [
    "We study graph neural networks for molecular property prediction and show that message passing "
    "with attention improves accuracy on three benchmarks.",
    "Large language models can solve combinatorial optimization problems when prompted with a "
    "formulation and a heuristic, as our experiments on routing problems show.",
]


@pytest.fixture
def seeds(tmp_path):
    folder = tmp_path / "seeds"
    folder.mkdir()
    (folder / "icml.txt").write_text("ICML 2026 Papers\n\n" + "\n\n".join(ABSTRACTS) + "\n", "utf-8")
    return folder


def export(*args: str):
    result = runner.invoke(app, ["export", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_dry_run_lists_each_note_it_would_write_and_writes_none(seeds, tmp_path):
    vault = tmp_path / "vault"
    out = export(seeds, vault, "--dry-run").splitlines()
    assert out[-1].startswith("(dry run) ") and "2 papers" in out[-1]
    listed = [line.split(None, 1) for line in out[:-1]]
    assert {verb for verb, _ in listed} == {"create"}
    assert "Collections/ICML 2026 Papers.md" in {path for _, path in listed}
    assert not any(vault.rglob("*.md"))
    export(seeds, vault)
    papers = {f"Papers/{p.name}" for p in (vault / "Papers").glob("*.md")}
    (seeds / "icml.txt").write_text("ICML 2026 Papers\n\n" + ABSTRACTS[0] + "\n", "utf-8")
    out = export(seeds, vault, "--dry-run").splitlines()
    removed = [line.split(None, 2)[2] for line in out if line.startswith("mark removed")]
    assert len([p for p in removed if p.startswith("Papers/")]) == 1 and set(removed) & papers
    assert any(line.startswith("update ") for line in out)


def test_json_prints_the_report_for_scripts(seeds, tmp_path):
    report = json.loads(export(seeds, tmp_path / "vault", "--dry-run", "--json"))
    assert report["dry_run"] is True and report["papers"] == 2
    assert "Index.md" in report["created"] and report["updated"] == [] and report["problems"] == []
    report = json.loads(export(seeds, tmp_path / "vault", "--json"))
    assert report["dry_run"] is False and (tmp_path / "vault" / "Index.md").is_file()
    papers = sorted(p.relative_to(tmp_path / "vault").as_posix() for p in (tmp_path / "vault/Papers").glob("*.md"))
    assert len(papers) == 2 and papers == sorted(p for p in report["created"] if p.startswith("Papers/"))


def test_the_summary_counts_in_good_english():
    one = SyncReport(papers=1, concepts=1, conflicts=("Papers/A.md: not updated",), warnings=("w",))
    assert "1 paper · 1 concept · " in summary_line(one, "v")
    assert "· 1 conflict · 1 problem" in summary_line(one, "v")
    assert "0 conflicts · 0 problems" in summary_line(SyncReport(), "v")
