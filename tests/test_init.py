"""`vaultsync init`: a commented config with every option at its default, never clobbered."""

from __future__ import annotations

import sys

from typer.testing import CliRunner

from vaultsync.cli import app
from vaultsync.commands.init import OPTIONS, defaults
from vaultsync.config import CONFIG_DIR, CONFIG_FILE, TOP_LEVEL_KEYS, load_config

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

runner = CliRunner()


def test_init_writes_every_option_at_its_default(tmp_path):
    vault = tmp_path / "vault"
    result = runner.invoke(app, ["init", str(vault)])
    assert result.exit_code == 0, result.output
    target = vault / CONFIG_DIR / CONFIG_FILE
    text = target.read_text("utf-8")
    data = tomllib.loads(text)
    assert data == defaults()
    assert data["format"] == "obsidian" and data["disabled_plugins"] == []
    assert data["digest"] == {"enabled": True, "daily": False}
    for key in TOP_LEVEL_KEYS:  # every top-level option is there, set or commented
        assert f"{key} = " in text
    assert all(f"\n# {help_text}\n" in text for *_, help_text in OPTIONS)
    # vaultsync reads it without complaint, and nothing it says blocks a plugin
    config = load_config(vault=vault)
    assert config.warnings == () and config.blocked_plugins == frozenset()
    assert config.get("format") == "obsidian"


def test_init_prints_the_next_two_commands(tmp_path):
    result = runner.invoke(app, ["init", str(tmp_path / "v")])
    commands = [line.split("#")[0].split() for line in result.output.splitlines() if "vaultsync " in line]
    assert [c[:2] for c in commands] == [["vaultsync", "export"], ["vaultsync", "watch"]]
    assert all(c[-1] == str(tmp_path / "v") for c in commands)


def test_init_keeps_an_existing_config_unless_forced(tmp_path):
    target = tmp_path / CONFIG_DIR / CONFIG_FILE
    target.parent.mkdir(parents=True)
    target.write_text('format = "logseq"\n')
    result = runner.invoke(app, ["init", str(tmp_path)])
    assert result.exit_code == 1 and "--force" in result.output
    assert target.read_text() == 'format = "logseq"\n'
    assert runner.invoke(app, ["init", str(tmp_path), "--force"]).exit_code == 0
    assert tomllib.loads(target.read_text())["format"] == "obsidian"
