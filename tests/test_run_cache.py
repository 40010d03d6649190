"""A run over unchanged seeds and an unchanged vault is cheap; extractions are remembered."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultsync.hookspecs import hookimpl
from vaultsync.pipeline import ExportOptions, export
from vaultsync.plugins import get_plugin_manager
from vaultsync import sync

ROOT = Path(__file__).resolve().parents[1]


class CountingExtractor:
    """A plugin that counts the abstracts it is asked about."""

    def __init__(self):
        self.calls = 0

    @hookimpl
    def vaultsync_extract(self, abstract, context):
        self.calls += 1
        return None


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a.txt").write_text((ROOT / "seeds/000_923012a2bb372482.txt").read_text(encoding="utf-8"),
                                 encoding="utf-8")
    counter = CountingExtractor()
    pm = get_plugin_manager()
    pm.register(counter, name="counting")
    try:
        yield seeds, tmp_path / "vault", pm, counter
    finally:
        pm.unregister(name="counting")


def test_an_unchanged_run_reads_no_note_and_extracts_nothing(setup, monkeypatch):
    seeds, vault, pm, counter = setup
    first = export(seeds, vault, pm)
    assert counter.calls == first.papers > 0

    def no_reading(*args):
        raise AssertionError("the vault was scanned")

    monkeypatch.setattr(sync, "scan_notes", no_reading)
    again = export(seeds, vault, pm)
    assert (again.created, again.updated, again.papers) == ((), (), first.papers)
    assert counter.calls == first.papers


def test_a_note_the_user_edited_makes_a_real_run_and_extractions_come_from_the_cache(setup):
    seeds, vault, pm, counter = setup
    first = export(seeds, vault, pm)
    note = next((vault / "Papers").glob("*.md"))
    note.write_text(note.read_text(encoding="utf-8") + "\nMy note.\n", encoding="utf-8")
    again = export(seeds, vault, pm)  # a new Exporter: what it knows comes from the state
    assert counter.calls == first.papers  # nothing extracted twice
    assert note.read_text(encoding="utf-8").endswith("\nMy note.\n") and again.updated == ()


def test_a_changed_seed_extracts_only_its_new_abstracts(setup):
    seeds, vault, pm, counter = setup
    first = export(seeds, vault, pm)
    text = (seeds / "a.txt").read_text(encoding="utf-8")
    (seeds / "a.txt").write_text(text.rstrip() + "\n\nWe propose FrobNet, a graph neural network for protein design "
                                 "that outperforms baselines on three benchmarks.\n", encoding="utf-8")
    again = export(seeds, vault, pm)
    assert counter.calls == first.papers + 1 and again.papers == first.papers + 1


def test_abstracts_are_converted_to_markdown_once_across_runs(setup, monkeypatch):
    from vaultsync import markdown

    seeds, vault, pm, _ = setup
    converted = []
    real = markdown.latex_to_markdown
    monkeypatch.setattr(markdown, "latex_to_markdown", lambda text: converted.append(text) or real(text))
    first = export(seeds, vault, pm)
    assert len(converted) == first.papers
    before = {p.name: p.read_bytes() for p in (vault / "Papers").glob("*.md")}
    text = (seeds / "a.txt").read_text(encoding="utf-8")
    (seeds / "a.txt").write_text(text.rstrip() + "\n\nWe propose FrobNet, a graph neural network for protein "
                                 "design that outperforms baselines on three benchmarks.\n", encoding="utf-8")
    converted.clear()
    again = export(seeds, vault, pm)
    assert again.papers == first.papers + 1
    assert 1 <= len(converted) < first.papers // 2  # the new one, and those whose links changed
    # and a note converted from the cache is the note converted afresh
    fresh = vault.parent / "fresh"
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(vault.parent / "state-fresh"))
    export(seeds, fresh, pm)
    assert {p.name: p.read_bytes() for p in (vault / "Papers").glob("*.md")} == \
        {p.name: p.read_bytes() for p in (fresh / "Papers").glob("*.md")}
    assert before.keys() < {p.name for p in (vault / "Papers").glob("*.md")}


def test_seeds_touched_but_unchanged_are_served_from_the_last_run(setup, monkeypatch):
    seeds, vault, pm, counter = setup
    first = export(seeds, vault, pm)
    for seed in seeds.iterdir():  # saved again unchanged, or checked out again: new times, same bytes
        data = seed.read_bytes()
        seed.unlink()
        seed.write_bytes(data)

    def no_reading(*args):
        raise AssertionError("the vault was scanned")
    monkeypatch.setattr(sync, "scan_notes", no_reading)
    again = export(seeds, vault, pm)
    assert (again.created, again.updated, again.papers) == ((), (), first.papers)
    export(seeds, vault, pm)  # and the new times are remembered: served by times alone
    assert counter.calls == first.papers


def _same_size_edit(seed: Path) -> None:
    text = seed.read_text("utf-8")
    seed.write_text(text.replace(" the ", " thy ", 1), "utf-8")


def test_a_seed_edited_to_the_same_size_is_not_served_from_the_last_run(setup):
    seeds, vault, pm, counter = setup
    export(seeds, vault, pm)
    _same_size_edit(seeds / "a.txt")
    again = export(seeds, vault, pm)
    assert again.updated  # the edited abstract's note


def test_a_seed_edited_during_a_run_makes_the_next_run_a_real_one(setup, monkeypatch):
    from vaultsync.pipeline import Exporter

    seeds, vault, pm, counter = setup
    read_then_edit = Exporter._read_extract_link

    def edited_meanwhile(self):
        found = read_then_edit(self)
        _same_size_edit(seeds / "a.txt")  # after the run read it: this run did not see it
        return found
    monkeypatch.setattr(Exporter, "_read_extract_link", edited_meanwhile)
    export(seeds, vault, pm)
    monkeypatch.setattr(Exporter, "_read_extract_link", read_then_edit)
    again = export(seeds, vault, pm)
    assert again.updated


def test_other_options_are_not_served_from_the_last_run(setup):
    seeds, vault, pm, counter = setup
    export(seeds, vault, pm)
    report = export(seeds, vault, pm, ExportOptions(format="jsonl"))
    assert "papers.jsonl" in report.created


class Odd:
    """A plugin's own metadata value: marshal does not know it, so its record is pickled."""

    def __eq__(self, other):
        return type(other) is Odd


def test_cached_extractions_round_trip_and_unreadable_ones_are_missed(tmp_path):
    import pickle

    from vaultsync.records import Extracted
    from vaultsync.records import ConceptMention, Extraction, PaperName, frozen_mapping
    from vaultsync.run_cache import load_extractions, save_extractions
    from vaultsync.state import State

    mention = ConceptMention("Graph Neural Networks", "vocabulary", ("GNNs",), ("GNN",), 2.5, ("Deep Learning",), True)
    plain = Extracted(Extraction((mention,), ("FrobNet",), frozen_mapping({"urls": ("https://x.org",)})),
                      PaperName("FrobNet — graphs", "FrobNet", ("Frob Network",), "does graphs"), ("a problem",))
    odd = Extracted(Extraction((mention,), (), frozen_mapping({"odd": Odd()})), PaperName("Odd"))
    state = State(tmp_path / "vault", tmp_path / "state")
    save_extractions(state, "fp", {"a": plain, "b": odd}, live=["a", "b", "c", "d"])
    state.put_extractions("fp", [("c", pickle.dumps(plain)), ("d", b"M\x00garbage")], keep=["a", "b", "c", "d"])
    stored = state.extractions("fp", ["a", "b"])
    assert stored["a"][:1] == b"M" and stored["b"][:1] == b"P"  # plain records as tuples, the odd one pickled
    found = load_extractions(state, "fp", ["a", "b", "c", "d"])
    assert set(found) == {"a", "b"}  # an old plain pickle and a broken record: extracted again
    assert found["a"] == plain and pickle.dumps(found["a"]) == pickle.dumps(plain)
    assert found["b"] == odd
    assert load_extractions(state, "another", ["a"]) == {}
    state.close()


def test_a_run_that_failed_to_write_is_never_replayed_once_the_disk_is_fixed(setup, monkeypatch):
    """A full disk: the run reports its errors; once space is freed, the next run over the same
    seeds writes the missing notes (it is not served from the failed run)."""
    import errno

    from vaultsync import write

    seeds, vault, pm, _ = setup
    export(seeds, vault, pm)
    (seeds / "b.txt").write_text((ROOT / "seeds/001_476b98bb6ff612ae.txt").read_text(encoding="utf-8"),
                                 encoding="utf-8")
    real_write_temp = write._write_temp

    def full_disk(target, *args, **kwargs):
        if "Papers" in target.parts:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write_temp(target, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(write, "_write_temp", full_disk)
        failed = export(seeds, vault, pm)
    assert failed.errors and all("No space left on device" in e for e in failed.errors)
    unwritten = len(failed.errors)
    fixed = export(seeds, vault, pm)
    assert fixed.errors == () and len(fixed.created) + len(fixed.updated) >= unwritten
    again = export(seeds, vault, pm)  # and now the finished run serves
    assert (again.errors, again.created, again.updated) == ((), (), ())
