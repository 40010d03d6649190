"""`vaultsync doctor`: a clean vault passes; each planted problem is found by itself."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from test_canvas import SMALL, SMALL_BROADER, make_model
from vaultsync.cli import app
from vaultsync.default_plugins.obsidian import ObsidianFormat
from vaultsync.doctor import ERROR, INFO, WARNING, diagnose, needs_action
from vaultsync.note_reading import LinkResolver, find_region, link_targets
from vaultsync.records import RenderContext
from vaultsync.sync import VaultSession

runner = CliRunner()


@pytest.fixture
def vault(tmp_path, monkeypatch):
    """A vault vaultsync has just written, with its state in tmp_path/state."""
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "vault"
    files = list(ObsidianFormat().render(make_model(SMALL, SMALL_BROADER), RenderContext()))
    with VaultSession(root, state_dir=tmp_path / "state") as session:
        report = session.apply(files)
    assert not report.errors and not report.conflicts
    return root


def found(vault, **kwargs):
    return {(f.check, f.path) for f in diagnose(vault, **kwargs)}


def edit(path, old, new):
    text = path.read_text("utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), "utf-8")


def test_a_vault_vaultsync_just_wrote_is_healthy(vault):
    findings = diagnose(vault)
    assert [f for f in findings if f.severity != INFO] == []
    assert not needs_action(findings)
    result = runner.invoke(app, ["doctor", str(vault)])
    assert result.exit_code == 0, result.output
    assert "healthy" in result.output


def test_unresolved_links_are_found_but_not_those_in_code_or_math(vault):
    note = vault / "Papers" / "Paper 0.md"
    note.write_text(note.read_text() + "\nSee [[Nowhere]], [[Paper 1#Results|the results]], "
                    "[[papers/PAPER 2]], [[Concepts/Attention.md]], ![[Maps/All concepts.canvas]],"
                    " `[[In Code]]`, $[[x]]$ and\n```\n[[In A Fence]]\n```\n", "utf-8")
    edit(vault / "Papers" / "Paper 1.md", 'tags:', 'up: "[[Missing Parent]]"\ntags:')
    assert {(c, p) for c, p in found(vault) if c == "unresolved-link"} == {
        ("unresolved-link", "Papers/Paper 0.md"), ("unresolved-link", "Papers/Paper 1.md")}
    messages = [f.message for f in diagnose(vault) if f.check == "unresolved-link"]
    assert sorted(messages) == ["[[Missing Parent]] names no note", "[[Nowhere]] names no note"]


def test_link_targets_drop_alias_heading_and_block():
    assert link_targets("[[A|x]] [[B#h]] [[C#^blk|y]] [[#Local]] ![[img.png]] [[T\\|t]]") == [
        "A", "B", "C", "", "img.png", "T"]
    resolver = LinkResolver(["Papers/Ünïcode Note.md", "img.png"])
    assert resolver.resolves("ünïcode note") and resolver.resolves("Papers/Ünïcode Note.md")
    assert resolver.resolves("img.png") and not resolver.resolves("img")


def test_properties_obsidian_cannot_show(vault):
    edit(vault / "Papers" / "Paper 0.md", "tags:",
         "meta:\n  a: 1\nscores:\n  - 1\n  - two\nup: [[Paper 1]]\nlevels:\n  - [1, 2]\ntags:\n  - my tag\n  - '2024'")
    checks = {c for c, p in found(vault) if p == "Papers/Paper 0.md"}
    assert {"property-nested", "property-mixed-list", "property-unquoted-link", "property-tags"} <= checks
    assert all(f.severity == ERROR for f in diagnose(vault) if f.check.startswith("property-"))


def test_unreadable_frontmatter(vault):
    edit(vault / "Papers" / "Paper 0.md", "type: paper", "type: [paper")
    assert ("frontmatter-invalid", "Papers/Paper 0.md") in found(vault)


def test_duplicate_ids(vault):
    shutil.copy(vault / "Papers" / "Paper 0.md", vault / "Papers" / "Paper 0 copy.md")
    findings = [f for f in diagnose(vault) if f.check == "duplicate-id"]
    assert [(f.path, f.severity) for f in findings] == [("Papers/Paper 0 copy.md", ERROR)]
    assert "Papers/Paper 0.md" in findings[0].message


def test_pending_conflict_copies(vault):
    copy = vault / ".vaultsync" / "conflicts" / "Concepts" / "Attention.md"
    copy.parent.mkdir(parents=True)
    copy.write_text("vaultsync's version\n")
    assert ("conflict-pending", "Concepts/Attention.md") in found(vault)


def test_a_conflict_the_sync_engine_left_is_found(vault, tmp_path):
    note = vault / "Concepts" / "Attention.md"
    edit(note, "# Attention", "# Attention (my title)")
    model = make_model({**SMALL, "Attention": [1, 3, 5]}, SMALL_BROADER)  # its paper list changes
    with VaultSession(vault, state_dir=tmp_path / "state") as session:
        report = session.apply(list(ObsidianFormat().render(model, RenderContext())))
    assert report.conflicts
    assert {("conflict-pending", "Concepts/Attention.md"), ("region-edited", "Concepts/Attention.md")} <= found(vault)


def test_hand_edited_and_broken_regions(vault):
    edit(vault / "Concepts" / "Transformer.md", "# Transformer", "# Transformers!")
    edit(vault / "Concepts" / "Attention.md", "%% vaultsync:end %%", "")
    edit(vault / "Concepts" / "Deep Learning.md", "\n%% vaultsync:end %%", "\n%% vaultsync:end %%\nMine.")
    results = found(vault)
    assert ("region-edited", "Concepts/Transformer.md") in results
    assert ("region-broken", "Concepts/Attention.md") in results
    assert not any(p == "Concepts/Deep Learning.md" for _, p in results)  # text after the region is yours


def test_stale_state(vault):
    (vault / "Concepts" / "Attention.md").unlink()
    (vault / "Maps" / "All concepts.canvas").unlink()
    (vault / "Stray.md").write_text("---\nvaultsync_id: from-another-vault\ntype: paper\n---\nHello\n")
    findings = {(f.check, f.path): f.severity for f in diagnose(vault)}
    assert findings[("state-deleted", "Concepts/Attention.md")] == INFO
    assert findings[("state-stale", "Maps/All concepts.canvas")] == INFO
    assert findings[("state-unknown", "Stray.md")] == WARNING


def test_no_state_at_all_is_only_information(vault, tmp_path):
    shutil.rmtree(tmp_path / "state")
    findings = diagnose(vault)
    assert [(f.check, f.severity) for f in findings] == [("state-missing", INFO)]


def test_seeds_that_cannot_be_read(vault, tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "good.txt").write_text("ICML 2026 Papers\n\nWe study sparse routing for experts.\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("NeurIPS\n\nAn abstract.\n")
    (seeds / "linked.txt").symlink_to(outside)
    findings = [f for f in diagnose(vault, seeds=seeds) if f.check == "seed-unreadable"]
    assert len(findings) == 1 and "linked.txt" in findings[0].path and findings[0].severity == ERROR
    # the vault's config names the seeds folder: no option needed
    (vault / ".vaultsync").mkdir(exist_ok=True)
    (vault / ".vaultsync" / "vaultsync.toml").write_text(f'seeds = "{seeds}"\n')
    assert any(f.check == "seed-unreadable" for f in diagnose(vault))


def test_the_command_exits_1_and_prints_json_when_something_needs_action(vault):
    (vault / "Index.md").write_text((vault / "Index.md").read_text() + "\n[[Gone]]\n")
    result = runner.invoke(app, ["doctor", str(vault), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert {"check": "unresolved-link", "severity": "warning", "path": "Index.md",
            "message": "[[Gone]] names no note", "fix": data[0]["fix"]} in data
    table = runner.invoke(app, ["doctor", str(vault)])
    assert table.exit_code == 1 and "[[Gone]]" in table.stdout and "1 warning" in table.stdout


def test_a_missing_vault_is_one_clear_line(tmp_path):
    result = runner.invoke(app, ["doctor", str(tmp_path / "nope")])
    assert result.exit_code == 1 and "is not a folder" in result.output


def test_find_region_needs_exactly_one_pair_of_markers():
    text = "a\n%% vaultsync:begin sha=0123 %%\nbody\n%% vaultsync:end %%\nafter\n"
    span = find_region(text)
    assert span.text == "body\n" and span.sha == "0123" and text[span.after_end:] == "after\n"
    assert find_region(text + "%% vaultsync:end %%\n") is None
    assert find_region("no markers") is None


def test_the_findings_read_at_80_columns(vault):
    """Each finding's check, note path and problem stay whole on their lines in an 80-column terminal."""
    (vault / "Index.md").write_text((vault / "Index.md").read_text() + "\n[[Gone for good]]\n")
    (vault / "Concepts" / "Mine.md").write_text("---\ntags: [bad tag]\n---\nmine\n")
    result = runner.invoke(app, ["doctor", str(vault)], env={"COLUMNS": "80"})
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    assert lines[-1].endswith(": 1 error, 1 warning, 0 notes")  # the summary line is never wrapped
    assert max(map(len, lines[:-1])) <= 80
    assert any(line.split()[:3] == ["warning", "unresolved-link", "Index.md"] for line in lines)
    assert any(line.split()[:3] == ["error", "property-tags", "Concepts/Mine.md"] for line in lines)
    assert any(line.strip() == "[[Gone for good]] names no note" for line in lines)
