"""The vault is a function of the set of abstracts: whatever the order seed files arrive in,
and however many runs bring them, the same seeds give the same notes (issue 22).

Two things are history by nature and are left out of the comparison: ``New papers.md`` (what
each run added, by day) and a note marked ``status: removed`` (a concept an earlier run had,
kept so that the user's links to it still resolve)."""

from __future__ import annotations

from pathlib import Path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultsync.pipeline import ExportOptions, export
from vaultsync.plugins import get_plugin_manager

SEEDS = Path(__file__).resolve().parents[1] / "seeds"
FILES = 4


def _abstracts() -> list[str]:
    found = []
    for path in sorted(SEEDS.glob("*.txt")):
        found += [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()]
    return found


ABSTRACTS = _abstracts()


def _live_notes(vault: Path) -> dict[str, str]:
    notes = {}
    for path in sorted(vault.rglob("*")):
        rel = path.relative_to(vault).as_posix()
        if not path.is_file() or rel.startswith(".vaultsync/") or rel == "New papers.md":
            continue
        text = path.read_text(encoding="utf-8")
        if "\nstatus: removed\n" not in text.partition("\n---\n")[0]:
            notes[rel] = text
    return notes


def _write_seed(folder: Path, number: int, abstracts: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    body = "\n\n".join(abstracts)
    (folder / f"part-{number}.txt").write_text(f"Order Test Papers {number}\n\n{body}\n", encoding="utf-8")


def _export_once(work: Path, parts: list[list[str]], monkeypatch) -> None:
    """One export of ``parts`` (one seed file each) to ``work/once``, with a state of its own."""
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(work / "state-once"))
    for number, abstracts in enumerate(parts):
        _write_seed(work / "seeds-once", number, abstracts)
    export(work / "seeds-once", work / "once", get_plugin_manager(), ExportOptions())


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(assignment=st.lists(st.integers(0, FILES - 1), min_size=len(ABSTRACTS), max_size=len(ABSTRACTS)),
       arrival=st.permutations(range(FILES)))
def test_seed_files_arriving_in_any_order_give_the_vault_one_export_gives(tmp_path_factory, monkeypatch,
                                                                         assignment, arrival):
    work = tmp_path_factory.mktemp("order")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")
    parts: list[list[str]] = [[] for _ in range(FILES)]
    for abstract, part in zip(ABSTRACTS, assignment):
        parts[part].append(abstract)
    parts = [p for p in parts if p]
    pm = get_plugin_manager()
    _export_once(work, parts, monkeypatch)
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(work / "state-runs"))
    for number in [n for n in arrival if n < len(parts)]:
        _write_seed(work / "seeds-runs", number, parts[number])
        export(work / "seeds-runs", work / "runs", pm, ExportOptions())
    once, runs = _live_notes(work / "once"), _live_notes(work / "runs")
    assert sorted(once) == sorted(runs)
    assert [rel for rel in once if once[rel] != runs[rel]] == []


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.permutations(range(len(ABSTRACTS))), dropped=st.integers(0, 31))
def test_one_watcher_taking_seed_files_one_by_one_gives_the_vault_one_export_gives(tmp_path_factory, monkeypatch,
                                                                                   order, dropped):
    """The watcher's runs update one linker (``Exporter`` with ``remember``): 32 abstracts, then
    three small files (one size band: the linker updates, never starts over), then one abstract
    taken out of the first file."""
    from vaultsync.pipeline import Exporter

    work = tmp_path_factory.mktemp("watcher")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")
    abstracts = [ABSTRACTS[i] for i in order]
    base, rest = abstracts[:32], abstracts[32:]
    parts = [base, rest[0::3], rest[1::3], rest[2::3]]
    final = [[a for a in base if a != base[dropped]], *parts[1:]]
    pm = get_plugin_manager()
    _export_once(work, final, monkeypatch)
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(work / "state-runs"))
    with Exporter(work / "seeds-runs", work / "runs", pm, ExportOptions(), remember=True) as exporter:
        for number, part in enumerate(parts):
            _write_seed(work / "seeds-runs", number, part)
            exporter.run(changed=[f"part-{number}.txt"])
        _write_seed(work / "seeds-runs", 0, final[0])
        exporter.run(changed=["part-0.txt"])
    once, runs = _live_notes(work / "once"), _live_notes(work / "runs")
    assert sorted(once) == sorted(runs)
    assert [rel for rel in once if once[rel] != runs[rel]] == []
