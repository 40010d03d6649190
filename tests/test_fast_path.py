"""The fast path (process pool, batched writes, the direct YAML writer) writes exactly the bytes
the slow path writes, and a re-export of an unchanged corpus writes nothing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from vaultsync import extract
from vaultsync.pipeline import export
from vaultsync.plugins import get_plugin_manager

ROOT = Path(__file__).resolve().parents[1]
# the Inspec abstracts the corpus generator recombines: research data, not shipped; in the shared
# data folder beside the clone
INSPEC = ROOT.parent / "shared" / "benchmarks" / "inspec" / "test.jsonl"


def _corpus_module():
    spec = importlib.util.spec_from_file_location("vaultsync_bench_corpus", ROOT / "benchmarks" / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> Path:
    if not INSPEC.exists():
        pytest.skip(f"the Inspec abstracts the corpus generator recombines are not at {INSPEC}")
    corpus = _corpus_module()
    corpus.INSPEC = INSPEC
    folder = tmp_path_factory.mktemp("seeds")
    corpus.write_corpus(folder, 300, seed=11)
    for seed in sorted((ROOT / "seeds").glob("*.txt")):
        (folder / seed.name).write_bytes(seed.read_bytes())
    return folder


def files_of(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*")) if p.is_file()}


def test_fast_and_slow_paths_write_the_same_bytes(seeds, tmp_path, monkeypatch):
    monkeypatch.setattr(extract, "POOL_THRESHOLD", 100)  # so this small corpus goes through the pool
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state-fast"))
    monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)
    fast = export(seeds, tmp_path / "fast", get_plugin_manager())

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state-slow"))
    monkeypatch.setenv("VAULTSYNC_SLOW_PATH", "1")
    slow = export(seeds, tmp_path / "slow", get_plugin_manager())

    assert not fast.errors and not fast.conflicts
    assert (fast.papers, fast.concepts, len(fast.created)) == (slow.papers, slow.concepts, len(slow.created))
    got, want = files_of(tmp_path / "fast"), files_of(tmp_path / "slow")
    assert sorted(got) == sorted(want)
    differ = [path for path in want if got[path] != want[path]]
    assert not differ, f"{len(differ)} files differ, e.g. {differ[:3]}"


def test_re_exporting_an_unchanged_corpus_writes_nothing(seeds, tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)
    vault = tmp_path / "vault"
    first = export(seeds, vault, get_plugin_manager())
    before = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in vault.rglob("*.md")}
    again = export(seeds, vault, get_plugin_manager())
    assert first.created and not again.created and not again.updated and not again.removed
    assert again.unchanged == len(first.created) + len(first.updated) + first.unchanged
    assert {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in vault.rglob("*.md")} == before


def test_the_pool_sends_each_extraction_as_the_cache_stores_it(seeds, monkeypatch):
    from vaultsync.extract import extract_all
    from vaultsync.read import read_seeds
    from vaultsync.records import ExtractContext
    from vaultsync.extraction_codec import decode_extraction

    monkeypatch.setattr(extract, "POOL_THRESHOLD", 100)
    monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)
    pm = get_plugin_manager()
    abstracts = [a for s in read_seeds(seeds, pm).seeds for a in s.abstracts]
    encoded: dict[str, bytes] = {}
    pooled = extract_all(abstracts, pm, ExtractContext(), workers=2, on_encoded=encoded.update)
    alone = extract_all(abstracts, pm, ExtractContext(), workers=1)
    assert pooled == alone
    assert list(encoded) == [a.id for a in abstracts]
    assert [decode_extraction(encoded[a.id]) for a in abstracts] == alone
    mentions = [m for facts in pooled for m in facts.extraction.concepts]
    assert len({id(m) for m in mentions}) == len(set(mentions)) < len(mentions)  # equal ones are shared


def test_what_the_pool_extracted_is_cached_for_the_next_run(seeds, tmp_path, monkeypatch):
    from vaultsync import pipeline

    monkeypatch.setattr(extract, "POOL_THRESHOLD", 100)
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)
    first = export(seeds, tmp_path / "vault", get_plugin_manager())
    asked: list[int] = []
    extract_all = pipeline.extract_all
    monkeypatch.setattr(pipeline, "extract_all", lambda abstracts, *a, **k: asked.append(len(abstracts))
                        or extract_all(abstracts, *a, **k))
    more = seeds.parent / "more-seeds"
    more.mkdir()
    for seed in seeds.iterdir():
        (more / seed.name).write_bytes(seed.read_bytes())
    (more / "zz-new.txt").write_text("New Papers\n\nWe study sparse autoencoders for protein design, where "
                                     "learned dictionaries of features explain how protein language models "
                                     "fold sequences, and we release the features for future work.\n")
    again = export(more, tmp_path / "vault", get_plugin_manager())
    assert asked == [1] and again.papers == first.papers + 1  # every other abstract came from the cache
