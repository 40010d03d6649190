"""Plugins are planned at once and imported only when a run has work (issue 22's no-op): the
plan and the loaded manager sign the code alike, a run with nothing to do imports no plugin,
and a plugin's problem is still said on every run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vaultsync.cli import app
from vaultsync.code_signature import code_signature
from vaultsync.plugins import LOAD_PLUGINS_ENV, LazyPlugins

runner = CliRunner()
ABSTRACT = ("We propose FooNet, a graph neural network for molecular property prediction, and show "
            "that message passing with attention improves accuracy on three benchmarks.")
LOOSE_PLUGIN = "from vaultsync.hookspecs import hookimpl\n\n@hookimpl\ndef vaultsync_extract(abstract, context):\n    return None\n"


@pytest.fixture(autouse=True)
def no_env_plugins(monkeypatch):
    monkeypatch.delenv(LOAD_PLUGINS_ENV, raising=False)


def _seeds(tmp_path: Path) -> Path:
    folder = tmp_path / "seeds"
    folder.mkdir()
    (folder / "a.txt").write_text("ICML 2026 Papers\n\n" + ABSTRACT + "\n", "utf-8")
    return folder


def test_the_plan_and_the_loaded_manager_sign_the_code_alike(tmp_path):
    (tmp_path / "loose.py").write_text(LOOSE_PLUGIN, "utf-8")
    plugins = LazyPlugins([tmp_path])
    planned = code_signature(plugins)
    assert not plugins.loaded
    assert code_signature(plugins.manager()) == planned
    assert "loose=" in planned
    (tmp_path / "loose.py").write_text(LOOSE_PLUGIN + "\n# edited\n", "utf-8")
    assert code_signature(LazyPlugins([tmp_path])) != planned  # an edited plugin is other code


def test_a_plugin_registered_besides_the_plan_is_signed_too():
    pm = LazyPlugins().manager()
    before = code_signature(pm)

    class Extra:
        pass

    pm.register(Extra(), name="extra")
    assert code_signature(pm) != before


def test_a_run_with_nothing_to_do_imports_no_plugin(tmp_path):
    seeds, vault = _seeds(tmp_path), tmp_path / "vault"
    env = {**os.environ, "VAULTSYNC_STATE_DIR": str(tmp_path / "state")}
    probe = ("import sys\nfrom vaultsync.cli import main\nsys.argv = ['vaultsync', 'export', '-q', sys.argv[1], sys.argv[2]]\n"
             "try:\n    main()\nexcept SystemExit as done:\n    assert not done.code, done.code\n"
             "print(sorted(m for m in sys.modules if m.startswith('vaultsync.default_plugins.')))\n")

    def imported() -> str:
        done = subprocess.run([sys.executable, "-c", probe, str(seeds), str(vault)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip().splitlines()[-1]

    assert "vaultsync.default_plugins.acronyms" in imported()  # the first run has work
    assert imported() == "[]"  # the second has none
    (seeds / "a.txt").write_text("ICML 2026 Papers\n\n" + ABSTRACT + "\n\nWe study sparse autoencoders "
                               "trained on the activations of language models and find features for syntax.\n", "utf-8")
    assert "vaultsync.default_plugins.acronyms" in imported()  # a changed seed: work again


def test_a_broken_plugin_is_reported_on_every_run(tmp_path):
    seeds, vault, plugins = _seeds(tmp_path), tmp_path / "vault", tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "broken.py").write_text("raise RuntimeError('boom')\n", "utf-8")
    for _ in range(2):  # (a run with a problem is not remembered: the next one loads and says it again)
        result = runner.invoke(app, ["export", str(seeds), str(vault), "--plugins-dir", str(plugins)])
        assert result.exit_code == 1
        assert "plugin 'broken'" in result.output and "RuntimeError: boom" in result.output


def test_a_missing_plugins_folder_is_reported_even_when_nothing_changed(tmp_path):
    seeds, vault = _seeds(tmp_path), tmp_path / "vault"
    assert runner.invoke(app, ["export", str(seeds), str(vault)]).exit_code == 0
    result = runner.invoke(app, ["export", str(seeds), str(vault), "--plugins-dir", str(tmp_path / "nope")])
    assert result.exit_code == 1
    assert f"plugins folder {tmp_path / 'nope'} does not exist" in result.output
    assert "0 created · 0 updated" in result.output


def test_an_installed_plugin_is_planned_from_its_entry_point_without_importing_it(tmp_path, monkeypatch):
    (tmp_path / "vs_probe_plugin.py").write_text(LOOSE_PLUGIN, "utf-8")
    info = tmp_path / "vs_probe_plugin-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vs-probe-plugin\nVersion: 1.2\n", "utf-8")
    (info / "entry_points.txt").write_text("[vaultsync]\nprobe = vs_probe_plugin\n", "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins = LazyPlugins()
    [probe] = [p for p in plugins.planned if p.name == "probe"]
    assert probe.file == str(tmp_path / "vs_probe_plugin.py")
    assert probe.source.origin == "entry point of vs-probe-plugin" and probe.source.version == "1.2"
    assert "vs_probe_plugin" not in sys.modules
    assert plugins.manager().has_plugin("probe")
    assert code_signature(plugins) == code_signature(plugins.manager())
    monkeypatch.setenv(LOAD_PLUGINS_ENV, "other")
    assert "probe" not in {p.name for p in LazyPlugins().planned}
    monkeypatch.delitem(sys.modules, "vs_probe_plugin")
