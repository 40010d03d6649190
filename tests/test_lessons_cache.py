"""A lesson (a concept note the user writes or edits) re-extracts only the abstracts whose
vocabulary reading it can change; every other cached extraction still holds and is kept."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vaultsync import pipeline
from vaultsync.default_plugins.vocabulary import lessons_may_change, vaultsync_extract
from vaultsync.hookspecs import hookimpl
from vaultsync.pipeline import export
from vaultsync.plugins import get_plugin_manager
from vaultsync.read import read_seeds
from vaultsync.records import ExtractContext, TaughtConcept
from vaultsync.speedups import SLOW_PATH_ENV

ROOT = Path(__file__).resolve().parents[1]

LESSONS = {
    "none": (),
    "a new concept": (TaughtConcept("Job Shop Rescheduling", ("job shop", "JSR")),),
    "a shipped concept renamed": (TaughtConcept("Reinforcement Learning", ("RL", "reward-driven learning")),),
    "aliases and a broader concept": (TaughtConcept("Diffusion Models", ("score-based generative models",),
                                                    ("Generative Models",)),),
    "a two-letter acronym": (TaughtConcept("Optimal Transport", ("OT",)),),
}


@pytest.fixture(scope="module")
def abstracts():
    return [a for seed in read_seeds(ROOT / "seeds", get_plugin_manager()).seeds for a in seed.abstracts]


@pytest.mark.parametrize("before", sorted(LESSONS))
@pytest.mark.parametrize("after", sorted(LESSONS))
def test_where_the_test_says_no_change_the_vocabulary_reads_the_same(abstracts, before, after):
    old, new = ExtractContext(taught=LESSONS[before]), ExtractContext(taught=LESSONS[after])
    may_change = lessons_may_change(old, new)
    flagged = [a for a in abstracts if may_change(a.text)]
    for abstract in abstracts:
        if not may_change(abstract.text):
            assert vaultsync_extract(abstract, old) == vaultsync_extract(abstract, new)
    if before == after:
        assert flagged == []
    else:  # not every abstract, and not none: some name the concept the lesson is about
        assert 0 < len(flagged) < len(abstracts)


def test_a_disabled_vocabulary_reads_nothing_under_any_lessons(abstracts):
    off = {"vocabulary": {"enabled": False}}
    may_change = lessons_may_change(ExtractContext(config=off), ExtractContext(config=off, taught=LESSONS["a new concept"]))
    assert not any(may_change(a.text) for a in abstracts)


def _teach(vault: Path) -> None:
    note = vault / "Concepts" / "Reinforcement Learning.md"
    note.write_text(note.read_text("utf-8") + "\nMy own remark.\n", "utf-8")
    (vault / "Concepts" / "Reward Shaping.md").write_text(
        "---\naliases: [shaped rewards]\nbroader: [Reinforcement Learning]\n---\nMine.\n", "utf-8")


@pytest.fixture
def extracted(monkeypatch) -> list[int]:
    """How many abstracts each extraction stage gave the extractors."""
    counts: list[int] = []
    original = pipeline.extract_all

    def counted(abstracts, *args, **kwargs):
        counts.append(len(abstracts))
        return original(abstracts, *args, **kwargs)
    monkeypatch.setattr(pipeline, "extract_all", counted)
    return counts


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_lesson_reextracts_only_what_it_may_change_and_writes_the_same_vault(tmp_path, monkeypatch, extracted,
                                                                               abstracts):
    every = len({a.id for a in abstracts})
    seeds = tmp_path / "seeds"
    shutil.copytree(ROOT / "seeds", seeds)
    vaults = {}
    for mode in ("kept", "all extracted again"):
        monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / f"state-{mode}"))
        if mode == "kept":
            monkeypatch.delenv(SLOW_PATH_ENV, raising=False)
        else:
            monkeypatch.setenv(SLOW_PATH_ENV, "1")
        vault = vaults[mode] = tmp_path / mode
        export(seeds, vault, get_plugin_manager())
        _teach(vault)
        extracted.clear()
        report = export(seeds, vault, get_plugin_manager())
        assert not report.errors and not report.conflicts
        if mode == "kept":
            kept_counts = list(extracted)
        else:
            assert extracted == [every]
    assert 0 < sum(kept_counts) < every  # the papers that name reinforcement learning or rewards
    assert _tree(vaults["kept"]) == _tree(vaults["all extracted again"])


class _OwnExtractor:
    """A plugin's extractor that does not say whether lessons change what it finds."""

    @hookimpl
    def vaultsync_extract(self, abstract, context):
        return None


class _DeclaredExtractor(_OwnExtractor):
    """A plugin's extractor that says the lessons never change what it finds."""

    @hookimpl
    def vaultsync_lessons_may_change(self, before, after):
        return None


@pytest.mark.parametrize("plugin, keeps", [(_OwnExtractor, False), (_DeclaredExtractor, True)])
def test_with_a_plugins_extractor_a_lesson_keeps_the_cache_only_if_it_answers_for_the_lessons(
        tmp_path, monkeypatch, extracted, abstracts, plugin, keeps):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv(SLOW_PATH_ENV, raising=False)
    pm = get_plugin_manager()
    pm.register(plugin(), name="own-extractor")
    vault = tmp_path / "vault"
    export(ROOT / "seeds", vault, pm)
    _teach(vault)
    extracted.clear()
    export(ROOT / "seeds", vault, pm)
    every = len({a.id for a in abstracts})
    assert len(extracted) == 1 and (0 < extracted[0] < every if keeps else extracted[0] == every)
