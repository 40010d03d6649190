"""The state database: whatever happens to it, one sentence saying what to do, never a traceback;
a damaged one is set aside and rebuilt from the vault."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from vaultsync.errors import VaultsyncError
from vaultsync.pipeline import ExportOptions, export
from vaultsync.plugins import get_plugin_manager
from vaultsync.state import vault_key

ROOT = Path(__file__).resolve().parents[1]
NEW_SEED = ("NeurIPS 2025 Papers\n\nWe propose OrbitNet, a graph neural network for molecular property prediction "
            "that improves accuracy over message passing baselines on three benchmarks.\n")


def vault_files(vault: Path) -> dict[str, bytes]:
    """Every file of the vault but the writer lock's."""
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*"))
            if p.is_file() and not p.name.startswith("lock")}


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "VAULTSYNC_STATE_DIR": str(tmp_path / "state"), "SOURCE_DATE_EPOCH": "1796083200"}
    return subprocess.run([sys.executable, "-m", "vaultsync", *args], capture_output=True, text=True, env=env,
                          timeout=300)


@pytest.fixture
def exported(tmp_path):
    """The bundled seeds exported once; (seeds, vault, the state database's path)."""
    seeds = tmp_path / "seeds"
    shutil.copytree(ROOT / "seeds", seeds)
    vault = tmp_path / "vault"
    done = cli(tmp_path, "export", str(seeds), str(vault))
    assert done.returncode == 0, done.stderr
    return seeds, vault, tmp_path / "state" / f"{vault_key(vault)}.sqlite"


def test_a_state_locked_by_another_program_is_one_sentence_and_no_note_is_written(tmp_path, exported):
    seeds, vault, database = exported
    (seeds / "new.txt").write_text(NEW_SEED, encoding="utf-8")
    before = vault_files(vault)
    other = sqlite3.connect(database, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program writing the state
    try:
        done = cli(tmp_path, "export", str(seeds), str(vault))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"vaultsync: the state database {database} is locked by another program; close that program "
        "(or wait for it) and run again"]
    assert vault_files(vault) == before  # found before a single note was renamed into place


def _not_a_database(database: Path) -> None:
    database.write_bytes(b"this is not an SQLite database, just some bytes " * 100)


def _malformed(database: Path) -> None:
    with sqlite3.connect(database) as db:
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'notes'").fetchone()[0]
        size = db.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(database.read_bytes())
    data[(root - 1) * size:root * size] = bytes((i * 7919) % 256 for i in range(size))
    database.write_bytes(bytes(data))


def _not_utf8(database: Path) -> None:
    with sqlite3.connect(database) as db:
        db.execute("UPDATE notes SET path = CAST(X'ff41' AS TEXT) WHERE rowid = 1")


@pytest.mark.parametrize("damage, reason", [(_not_a_database, "file is not a database"),
                                            (_malformed, "database disk image is malformed"),
                                            (_not_utf8, "Could not decode to UTF-8")])
def test_a_damaged_state_is_set_aside_and_rebuilt_from_the_vault(tmp_path, exported, damage, reason):
    seeds, vault, database = exported
    with open(next((vault / "Papers").glob("*.md")), "a", encoding="utf-8") as note:
        note.write("\nMy own notes.\n")  # (a change in the vault: the next run reads every note)
    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    damage(database)
    before = vault_files(vault)
    done = cli(tmp_path, "export", str(seeds), str(vault))
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"vaultsync: the state database {database} was damaged ({reason}")
    assert line.endswith("and rebuilt it from the vault")
    set_aside = [p for p in database.parent.glob(f"{database.name}.damaged-*") if not p.name.endswith(("-wal", "-shm"))]
    assert len(set_aside) == 1
    assert vault_files(vault) == before  # nothing the rebuilt state took for an edit
    again = cli(tmp_path, "export", str(seeds), str(vault))
    assert again.returncode == 0 and again.stderr == ""
    assert vault_files(vault) == before


class _FullDisk(sqlite3.Connection):
    """A connection whose disk fills up as the notes are recorded: SQLite rolls the transaction
    back itself and says the disk is full."""

    def execute(self, sql, *args):
        if sql.startswith("INSERT OR REPLACE INTO notes"):
            super().execute("ROLLBACK")
            raise sqlite3.OperationalError("database or disk is full")
        return super().execute(sql, *args)


def test_a_full_disk_under_the_state_is_named_not_hidden(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    real_connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real_connect(*a, **k, factory=_FullDisk))
    with pytest.raises(VaultsyncError, match="the disk holding the state database .* is full; free some space "
                                             "and run again"):
        export(ROOT / "seeds", tmp_path / "vault", get_plugin_manager(), ExportOptions())


def test_doctor_names_a_damaged_state_and_leaves_it_where_it_is(exported):
    from vaultsync.doctor import diagnose

    _, vault, database = exported
    _not_a_database(database)
    findings = diagnose(vault, state_dir=database.parent)
    assert [f.check for f in findings if "damaged" in f.message] == ["state-unusable"]
    assert database.read_bytes().startswith(b"this is not an SQLite database")


def test_deleting_the_state_is_safe_even_after_the_seeds_changed(tmp_path, exported):
    """The README's advice: delete the state and the next run rebuilds it from the vault. The
    maps the new seed changes are rewritten (not frozen as "rearranged"), nothing is learnt."""
    seeds, vault, database = exported
    reference = tmp_path / "reference"
    shutil.copytree(vault, reference)
    shutil.copytree(database.parent, tmp_path / "reference-state")
    (seeds / "new.txt").write_text(NEW_SEED, encoding="utf-8")
    shutil.rmtree(database.parent)
    done = cli(tmp_path, "export", str(seeds), str(vault))
    assert done.returncode == 0 and " 0 conflicts" in done.stdout, done.stdout + done.stderr
    env = {**os.environ, "VAULTSYNC_STATE_DIR": str(tmp_path / "reference-state"), "SOURCE_DATE_EPOCH": "1796083200"}
    ref = subprocess.run([sys.executable, "-m", "vaultsync", "export", str(seeds), str(reference)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert ref.returncode == 0, ref.stderr
    assert vault_files(vault) == {p: data for p, data in vault_files(reference).items()}


def test_a_vault_folder_deleted_and_exported_again_is_written_whole(tmp_path, monkeypatch):
    """`rm -rf vault` then export (the README's developer command): the state's record of the old
    vault (notes it had) must not read as notes the user deleted one by one."""
    from vaultsync.pipeline import export
    from vaultsync.plugins import get_plugin_manager

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    seeds, vault = tmp_path / "seeds", tmp_path / "vault"
    seeds.mkdir()
    (seeds / "a.txt").write_text(
        "ICML 2026 Papers\n\nWe propose FooNet, a graph neural network for molecules that predicts binding "
        "affinity from molecular graphs and protein pockets with message passing.\n\n"
        "We introduce BarBench, a benchmark for mathematical reasoning of large language models, with "
        "problems from olympiads and a judge that checks each proof step.\n", encoding="utf-8")
    first = export(seeds, vault, get_plugin_manager())
    shutil.rmtree(vault)
    again = export(seeds, vault, get_plugin_manager())
    assert len(again.created) == len(first.created) > 0 and not again.warnings
    assert sorted(p.name for p in (vault / "Papers").glob("*.md")) == ["BarBench.md", "FooNet.md"]
    # a single note the user deletes is still not recreated
    (vault / "Papers/FooNet.md").unlink()
    export(seeds, vault, get_plugin_manager())
    assert not (vault / "Papers/FooNet.md").exists()


def test_the_seeds_of_papers_are_those_the_papers_table_gives_them(tmp_path):
    from vaultsync.state import PaperRecord, State

    state = State(tmp_path / "vault", tmp_path / "state")
    try:
        state.replace_papers((), [PaperRecord("a", "one.txt", 1, "x"), PaperRecord("a", "two.txt", 3, "x"),
                                  PaperRecord("b", "one.txt", 2, "y")]
                             + [PaperRecord(f"p{n}", "many.txt", n, "z") for n in range(900)])
        wanted = ["a", "b", "gone", *(f"p{n}" for n in range(0, 900, 2))]
        assert state.seeds_of(wanted) == {
            i: seed for i, seed, _ in state.paper_places() if i in wanted}  # (an id in two seeds: the last)
        assert state.seeds_of(["a"]) == {"a": "two.txt"}
    finally:
        state.close()


def _table_as_read(state) -> dict[str, dict[str, int]]:
    """``paper_table`` as the papers table gives it now."""
    table: dict[str, dict[str, int]] = {}
    for i, seed, paragraph in state.paper_places():
        table.setdefault(seed, {})[i] = paragraph
    return table


def test_the_paper_table_kept_in_memory_is_the_papers_table(tmp_path):
    from vaultsync.state import PaperRecord, State

    state = State(tmp_path / "vault", tmp_path / "state")
    try:
        state.replace_papers((), [PaperRecord("a", "one.txt", 1, "x"), PaperRecord("b", "one.txt", 2, "y"),
                                  PaperRecord("a", "two.txt", 3, "x"), PaperRecord("c", "three.txt", 1, "z")])
        assert state.paper_table() == _table_as_read(state)  # (read once, then kept)
        steps = [
            # a seed forgotten and written again; an (id, seed) given twice: the last paragraph wins
            (["one.txt"], [PaperRecord("b", "one.txt", 1, "y"), PaperRecord("b", "one.txt", 4, "y")], ()),
            ([], [PaperRecord("d", "two.txt", 2, "w")], ["a"]),  # an id forgotten in every seed
            (["three.txt", "nowhere.txt"], [], ["nobody"]),  # a seed emptied
            ([], [PaperRecord("c", "one.txt", 7, "z")], []),
        ]
        for seeds, papers, forget in steps:
            state.replace_papers(iter(seeds), iter(papers), forget_ids=iter(forget))
            assert {seed: rows for seed, rows in state.paper_table().items() if rows} == _table_as_read(state)
        with pytest.raises(RuntimeError), state.transaction():  # undone: the table is read again
            state.replace_papers(["two.txt"], [PaperRecord("e", "five.txt", 1, "v")])
            raise RuntimeError
        assert state.paper_table() == _table_as_read(state) and "two.txt" in state.paper_table()
    finally:
        state.close()
