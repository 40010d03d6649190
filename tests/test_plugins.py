"""Plugin discovery, isolation and listing: what a plugin author and a user rely on."""

from __future__ import annotations

import json
import textwrap

import pytest

from vaultsync.config import load_config
from vaultsync.default_plugins import DEFAULT_PLUGINS
from vaultsync.errors import VaultsyncError
from vaultsync.hookspecs import hookimpl
from vaultsync.plugins import (
    LOAD_PLUGINS_ENV,
    call_each,
    call_safely,
    get_plugin_manager,
    list_plugins,
    plugin_origin,
)
from vaultsync.records import Abstract, Collection, ExtractContext, Extraction, PaperName

ABSTRACT = Abstract("We propose FooNet, a net.", seed="a.txt", paragraph=3, line=7,
                    collection=Collection("C"))


@pytest.fixture(autouse=True)
def no_env_plugins(monkeypatch):
    monkeypatch.delenv(LOAD_PLUGINS_ENV, raising=False)


@pytest.fixture
def pm():
    return get_plugin_manager()


def write_plugin(folder, name, source):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")


GOOD_PLUGIN = """
    from vaultsync.hookspecs import hookimpl
    from vaultsync.records import Extraction

    @hookimpl
    def vaultsync_extract(abstract, context):
        return Extraction(paper_aliases=("good",))
"""


def test_a_registered_plugin_is_listed_then_gone(pm):
    class NamingPlugin:
        __name__ = "NamingPlugin"

        @hookimpl
        def vaultsync_paper_name(self, abstract, extraction):
            return PaperName(title="From the user plugin", name="UserName")

    pm.register(NamingPlugin(), name="user-naming")
    try:
        listed = {p["name"]: p for p in list_plugins(pm)}
        assert listed["user-naming"] == {
            "name": "user-naming", "hooks": ["vaultsync_paper_name"], "version": None
        }
        # a plugin marked normally beats the built-in `trylast` naming rule
        name = pm.hook.vaultsync_paper_name(abstract=ABSTRACT, extraction=Extraction())
        assert name.name == "UserName"
    finally:
        pm.unregister(name="user-naming")
    assert "user-naming" not in {p["name"] for p in list_plugins(pm)}


def test_defaults_are_registered_under_their_names(pm):
    names = {p["name"] for p in list_plugins(pm)}
    assert set(DEFAULT_PLUGINS) <= names
    assert all(plugin_origin(pm, n) == "built-in" for n in DEFAULT_PLUGINS)


def test_list_plugins_json_shape(pm):
    items = json.loads(json.dumps(list_plugins(pm)))
    assert items and all(set(item) == {"name", "hooks", "version"} for item in items)
    assert all(isinstance(i["hooks"], list) and all(h.startswith("vaultsync_") for h in i["hooks"])
               for i in items)
    assert [i["name"] for i in items] == sorted(i["name"] for i in items)


def test_plugins_dir_loads_loose_files(tmp_path):
    write_plugin(tmp_path, "good", GOOD_PLUGIN)
    write_plugin(tmp_path, "_helper", "raise RuntimeError('not a plugin')")
    pm = get_plugin_manager(plugins_dirs=[tmp_path])
    assert pm.has_plugin("good") and not pm.has_plugin("_helper")
    assert plugin_origin(pm, "good") == str(tmp_path / "good.py")
    assert pm.load_problems == []


def test_a_broken_plugin_gives_one_line_and_others_still_load(tmp_path):
    write_plugin(tmp_path, "broken", "x = undefined_name\n")
    write_plugin(tmp_path, "good", GOOD_PLUGIN)
    pm = get_plugin_manager(plugins_dirs=[tmp_path])
    assert pm.has_plugin("good") and not pm.has_plugin("broken")
    [problem] = pm.load_problems
    assert problem == (
        f"plugin 'broken' ({tmp_path / 'broken.py'}) failed to load: "
        "NameError: name 'undefined_name' is not defined — fix or remove it"
    )
    assert "\n" not in problem


def test_per_vault_plugins_load(tmp_path):
    write_plugin(tmp_path / ".vaultsync" / "plugins", "vaultonly", GOOD_PLUGIN)
    assert get_plugin_manager(vault=tmp_path).has_plugin("vaultonly")
    assert get_plugin_manager(vault=tmp_path / "elsewhere").load_problems == []


def test_missing_plugins_dir_is_reported(tmp_path):
    pm = get_plugin_manager(plugins_dirs=[tmp_path / "nope"])
    assert pm.load_problems == [f"plugins folder {tmp_path / 'nope'} does not exist — check --plugins-dir"]


def test_load_plugins_env_selects_external_plugins(tmp_path, monkeypatch):
    write_plugin(tmp_path, "one", GOOD_PLUGIN)
    write_plugin(tmp_path, "two", GOOD_PLUGIN)
    monkeypatch.setenv(LOAD_PLUGINS_ENV, "two, missing")
    pm = get_plugin_manager(plugins_dirs=[tmp_path])
    assert pm.has_plugin("two") and not pm.has_plugin("one")
    assert pm.has_plugin("logseq")  # built-ins always load
    assert pm.load_problems == [
        f"{LOAD_PLUGINS_ENV} names plugin 'missing', which was not found — install it or correct the name"
    ]


def test_empty_load_plugins_env_loads_no_external_plugin(tmp_path, monkeypatch):
    write_plugin(tmp_path, "one", GOOD_PLUGIN)
    monkeypatch.setenv(LOAD_PLUGINS_ENV, "")
    pm = get_plugin_manager(plugins_dirs=[tmp_path])
    assert not pm.has_plugin("one")
    assert {p["name"] for p in list_plugins(pm)} <= set(DEFAULT_PLUGINS)


def test_config_disables_a_plugin(tmp_path):
    write_plugin(tmp_path / ".vaultsync" / "plugins", "good", GOOD_PLUGIN)
    (tmp_path / ".vaultsync" / "vaultsync.toml").write_text(
        "disabled_plugins = ['jsonl']\n[good]\nenabled = false\n", encoding="utf-8")
    pm = get_plugin_manager(vault=tmp_path, config=load_config(vault=tmp_path))
    assert not pm.has_plugin("good") and not pm.has_plugin("jsonl")
    assert pm.has_plugin("logseq") and pm.load_problems == []


class Raising:
    __name__ = "Raising"

    @hookimpl
    def vaultsync_extract(self, abstract, context):
        raise KeyError("boom")

    @hookimpl
    def vaultsync_paper_name(self, abstract, extraction):
        raise ZeroDivisionError("division by zero")


class Helpful:
    __name__ = "Helpful"

    @hookimpl
    def vaultsync_extract(self, abstract, context):
        return Extraction(paper_aliases=("helpful",))


def test_a_hook_raising_is_named_and_others_still_run(pm):
    pm.register(Helpful(), name="helpful")
    pm.register(Raising(), name="raising")
    try:
        outcome = call_safely(pm, "vaultsync_extract", context_text="a.txt paragraph 3",
                              abstract=ABSTRACT, context=ExtractContext())
        assert Extraction(paper_aliases=("helpful",)) in outcome.result
        [failure] = outcome.failures
        assert (failure.plugin, failure.hook) == ("raising", "vaultsync_extract")
        assert str(failure) == ("plugin 'raising' failed in vaultsync_extract on a.txt paragraph 3: "
                                "KeyError: 'boom' — fix or remove it")
    finally:
        pm.unregister(name="raising")
        pm.unregister(name="helpful")


class Choosy:
    """Fails on some abstracts only (odd paragraphs), returns nothing for others."""

    __name__ = "Choosy"

    @hookimpl
    def vaultsync_extract(self, abstract, context):
        if abstract.paragraph % 2:
            raise ValueError(f"odd paragraph {abstract.paragraph}")
        return None if abstract.paragraph % 4 == 0 else Extraction(paper_aliases=(f"p{abstract.paragraph}",))


def test_calling_each_plugin_over_a_batch_gives_each_call_its_own_outcome(pm):
    from vaultsync.extract import extract_many, extract_one

    pm.register(Helpful(), name="helpful")
    pm.register(Choosy(), name="choosy")
    abstracts = [Abstract(f"We propose Net{i}, a net for graphs.", seed="a.txt", paragraph=i, line=i,
                          collection=Collection("C")) for i in range(1, 9)]
    calls = [{"abstract": a, "context": ExtractContext()} for a in abstracts]
    wheres = [f"a.txt paragraph {a.paragraph}" for a in abstracts]
    try:
        batched = call_each(pm, "vaultsync_extract", calls, wheres)
        one_by_one = [call_safely(pm, "vaultsync_extract", context_text=w, **c) for c, w in zip(calls, wheres)]
        assert batched == one_by_one
        assert [len(o.failures) for o in batched] == [1, 0] * 4  # each failure stays with its abstract
        assert str(batched[2].failures[0]).startswith("plugin 'choosy' failed in vaultsync_extract on "
                                                      "a.txt paragraph 3: ValueError: odd paragraph 3")
        assert extract_many(abstracts, pm, ExtractContext()) == [extract_one(a, pm, ExtractContext())
                                                                 for a in abstracts]
        # a firstresult hook is still called one by one, falling through as call_safely does
        names = call_each(pm, "vaultsync_paper_name", [{"abstract": a, "extraction": Extraction()}
                                                       for a in abstracts], wheres)
        assert names == [call_safely(pm, "vaultsync_paper_name", context_text=w, abstract=a,
                                     extraction=Extraction()) for a, w in zip(abstracts, wheres)]
    finally:
        pm.unregister(name="choosy")
        pm.unregister(name="helpful")


def test_a_firstresult_hook_raising_falls_through_to_the_next_plugin(pm):
    pm.register(Raising(), name="raising")
    try:
        outcome = call_safely(pm, "vaultsync_paper_name", abstract=ABSTRACT, extraction=Extraction())
        assert [f.plugin for f in outcome.failures] == ["raising"]
        if pm.has_plugin("naming"):
            assert isinstance(outcome.result, PaperName)  # the built-in rule decided
    finally:
        pm.unregister(name="raising")


def test_a_vaultsync_error_in_a_hook_keeps_its_sentence(pm, tmp_path):
    class Reader:
        __name__ = "Reader"

        @hookimpl(tryfirst=True)
        def vaultsync_read_seed(self, path, relative):
            raise VaultsyncError(f"{relative} line 2: not a BibTeX entry; fix the entry")

    pm.register(Reader(), name="bibtex")
    try:
        outcome = call_safely(pm, "vaultsync_read_seed", context_text="x.bib",
                              path=tmp_path / "x.bib", relative="x.bib")
        assert outcome.result is None  # the plugin claimed the file: no other reader tries it
        assert str(outcome.failures[0]).startswith("x.bib line 2: not a BibTeX entry; fix the entry")
    finally:
        pm.unregister(name="bibtex")


def test_a_plugin_with_a_clashing_name_is_reported(tmp_path):
    write_plugin(tmp_path, "logseq", GOOD_PLUGIN)
    pm = get_plugin_manager(plugins_dirs=[tmp_path])
    assert len(pm.load_problems) == 1 and pm.load_problems[0].startswith("plugin 'logseq' (")
    assert plugin_origin(pm, "logseq") == "built-in"


def test_config_layers_pyproject_then_vault_then_command_line(tmp_path):
    project, vault = tmp_path / "project", tmp_path / "vault"
    (vault / ".vaultsync").mkdir(parents=True)
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[tool.vaultsync]\nformat = "logseq"\nseeds = "seeds"\n[tool.vaultsync.phrases]\n'
        "min_papers = 2\nmax = 5\n", encoding="utf-8")
    (vault / ".vaultsync" / "vaultsync.toml").write_text(
        "[phrases]\nmin_papers = 3\n", encoding="utf-8")
    config = load_config(vault=vault, project_dir=project)
    assert config.get("format") == "logseq"
    assert config.get("seeds") == str((project / "seeds").resolve())
    assert dict(config.plugin_options("phrases")) == {"min_papers": 3, "max": 5}
    assert dict(config.plugin_options("vocabulary")) == {}
    merged = config.merged({"format": "jsonl", "vault": None, "phrases": {"max": 9}})
    assert merged.get("format") == "jsonl"  # the command line wins; None means "not given"
    assert dict(merged.plugin_options("phrases")) == {"min_papers": 3, "max": 9}
    assert merged.as_dict()["plugins"]["phrases"]["max"] == 9


def test_unknown_config_keys_warn_and_invalid_toml_names_the_line(tmp_path):
    (tmp_path / ".vaultsync").mkdir()
    path = tmp_path / ".vaultsync" / "vaultsync.toml"
    path.write_text('format = "obsidian"\ncolour = "blue"\n', encoding="utf-8")
    [warning] = load_config(vault=tmp_path).warnings
    assert warning.startswith(f"{path}: unknown option 'colour' ignored")
    path.write_text('format = "obsidian"\n[phrases\n', encoding="utf-8")
    with pytest.raises(VaultsyncError, match=rf"^{path} line 2: invalid TOML"):
        load_config(vault=tmp_path)
    path.write_text("disabled_plugins = 'jsonl'\n", encoding="utf-8")
    with pytest.raises(VaultsyncError, match="'disabled_plugins' must be a list of names"):
        load_config(vault=tmp_path)


def test_a_misspelt_hook_or_argument_is_reported(tmp_path):
    write_plugin(tmp_path, "typo", """
        from vaultsync.hookspecs import hookimpl

        @hookimpl
        def vaultsync_extrct(abstract, context):
            return None
    """)
    write_plugin(tmp_path, "badarg", """
        from vaultsync.hookspecs import hookimpl

        @hookimpl
        def vaultsync_extract(abstract, ctx):
            return None
    """)
    pm = get_plugin_manager(plugins_dirs=[tmp_path])
    badarg, typo = pm.load_problems
    assert badarg.startswith(f"plugin 'badarg' ({tmp_path / 'badarg.py'}) failed to load: ")
    assert "ctx" in badarg and "\n" not in badarg
    assert typo == (f"plugin 'typo' ({tmp_path / 'typo.py'}) implements vaultsync_extrct, which is not"
                    " a vaultsync hook — check the spelling against docs/plugins.md")
