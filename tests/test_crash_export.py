"""`kill -9` of the real `vaultsync export` at random moments, then a rerun: a consistent vault."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from vaultsync.frontmatter_io import read_frontmatter, split_note
from vaultsync.write import TEMP_PREFIX

ROOT = Path(__file__).resolve().parents[1]
USER_TEXT = "\nMy own reading notes: compare with last year's results.\n"


def write_seeds(folder: Path, round_: int) -> int:
    """Three seed files of abstracts recombined from the bundled ones; each round edits some."""
    sentences = [s for f in sorted((ROOT / "seeds").glob("*.txt"))
                 for s in re.split(r"(?<=\.) ", " ".join(f.read_text(encoding="utf-8").split("\n\n")[1:]))
                 if len(s.split()) > 6]
    rng = random.Random(7)
    count = 0
    for n in range(3):
        abstracts = []
        for i in range(15):
            picked = rng.sample(sentences, 5)
            if (i + round_) % 4 == 0:
                picked.append(f"In revision {round_} we also report results on {i + 3} additional datasets.")
            abstracts.append(" ".join(picked))
        (folder / f"seed{n}.txt").write_text("ICML 2026 Papers\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
        count += len(abstracts)
    return count


def run_export(seeds: Path, vault: Path, env: dict, kill_after: float | None = None) -> int | None:
    process = subprocess.Popen([sys.executable, "-m", "vaultsync", "export", str(seeds), str(vault), "--quiet"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if kill_after is None:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err.decode()[-5000:]
        return process.returncode
    time.sleep(kill_after)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    return None


def test_kill_the_real_export_at_random_moments_then_rerun(tmp_path):
    env = {**os.environ, "VAULTSYNC_STATE_DIR": str(tmp_path / "state"), "SOURCE_DATE_EPOCH": "1796083200"}
    seeds, vault = tmp_path / "seeds", tmp_path / "vault"
    seeds.mkdir()
    total = write_seeds(seeds, 0)
    run_export(seeds, vault, env)
    annotated = sorted((vault / "Papers").glob("*.md"))[0]
    annotated.write_text(annotated.read_text(encoding="utf-8") + USER_TEXT, encoding="utf-8")

    rng = random.Random(2026)
    for round_ in range(1, 9):  # each round edits abstracts, so a killed run was rewriting notes
        write_seeds(seeds, round_)
        run_export(seeds, vault, env, kill_after=rng.uniform(0.2, 2.5))
    run_export(seeds, vault, env)

    leftovers = [p for p in vault.rglob("*") if p.name.startswith(TEMP_PREFIX)]
    assert leftovers == []
    ids: Counter = Counter()
    for note in vault.rglob("*.md"):
        if ".vaultsync" in note.parts:
            continue
        meta = read_frontmatter(split_note(note.read_text(encoding="utf-8"))[0])  # parses: no partial note
        if meta.get("vaultsync_id"):
            ids[meta["vaultsync_id"]] += 1
    assert [i for i, n in ids.items() if n > 1] == []
    live = [p for p in (vault / "Papers").glob("*.md")
            if "status: removed" not in p.read_text(encoding="utf-8")]
    assert len(live) == total
    assert annotated.read_text(encoding="utf-8").endswith(USER_TEXT)

    # what survives the kills is what a clean export of the final seeds gives
    clean = tmp_path / "clean"
    run_export(seeds, clean, {**env, "VAULTSYNC_STATE_DIR": str(tmp_path / "state-clean")})
    for folder in ("Concepts", "Collections"):
        mine = {p.name: p.read_text(encoding="utf-8") for p in (vault / folder).glob("*.md")
                if "status: removed" not in p.read_text(encoding="utf-8")}
        theirs = {p.name: p.read_text(encoding="utf-8") for p in (clean / folder).glob("*.md")}
        assert mine == theirs
    shutil.rmtree(clean)


def test_a_note_rewritten_by_a_run_killed_before_saving_its_state_stays_its_papers(tmp_path, monkeypatch):
    """The window the test above hits now and then, made certain: a run renames an edited
    abstract's note into place under the abstract's new id, and dies before the state is
    saved. When the abstract is back as it was, its paper still has its note (the state's old
    id must not look deleted by the user)."""
    from vaultsync.pipeline import Exporter, ExportOptions
    from vaultsync.plugins import get_plugin_manager
    from vaultsync.sync_run import SyncRun

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    seeds, vault = tmp_path / "seeds", tmp_path / "vault"
    seeds.mkdir()
    total = write_seeds(seeds, 0)
    original = (seeds / "seed0.txt").read_text(encoding="utf-8")

    def export() -> None:
        with Exporter(seeds, vault, get_plugin_manager(), ExportOptions()) as exporter:
            exporter.run()

    def live_papers() -> dict[str, str]:
        found = {}
        for note in (vault / "Papers").glob("*.md"):
            meta = read_frontmatter(split_note(note.read_text(encoding="utf-8"))[0])
            if meta.get("status") != "removed":
                found[meta["vaultsync_id"]] = note.name
        return found

    export()
    before = live_papers()
    assert len(before) == total
    edited = original.replace("\n\n", "\n\nIn this revision we also report one more dataset. ", 1)
    (seeds / "seed0.txt").write_text(edited, encoding="utf-8")

    def killed(*args, **kwargs):
        raise KeyboardInterrupt("killed before the state was saved")

    with monkeypatch.context() as patch:
        patch.setattr(SyncRun, "save_state", killed)
        with pytest.raises(KeyboardInterrupt):
            export()
    renamed = set(live_papers()) - set(before)
    assert len(renamed) == 1  # the edited abstract's note, updated in place, under its new id

    (seeds / "seed0.txt").write_text(original, encoding="utf-8")  # the edit undone
    export()
    assert live_papers() == before


# The child exports with ``os.replace`` watched: it kills itself with SIGKILL right after the
# first rename into the folder given (or, for "state", just before the state is saved).
KILLED_CHILD = r"""
import os, signal, sys
from pathlib import Path
from vaultsync.pipeline import ExportOptions, export
from vaultsync.plugins import get_plugin_manager
from vaultsync.sync_run import SyncRun

seeds, vault, where = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
real_replace = os.replace

def replace_then_die(source, target, *args, **kwargs):
    real_replace(source, target, *args, **kwargs)
    if f"/{where}/" in os.fspath(target):
        os.kill(os.getpid(), signal.SIGKILL)

def save_state_die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

if where == "state":
    SyncRun.save_state = save_state_die
else:
    os.replace = replace_then_die
export(seeds, vault, get_plugin_manager(), ExportOptions())
"""


def files_of(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*"))
            if p.is_file() and not p.name.startswith("lock")}


@pytest.mark.parametrize("where", ["Concepts", "Maps", "state"])
def test_a_run_killed_between_its_renames_and_its_state_ends_as_if_never_killed(tmp_path, where):
    """vaultsync's own notes, renamed into place by a run killed before it saved its state, are
    never taken for the user's edits: no false lessons, no map frozen, no note missing."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1796083200"}
    bundled = sorted((ROOT / "seeds").glob("*.txt"))
    for name in ("seeds", "reference-seeds"):
        (tmp_path / name).mkdir()
        shutil.copy(bundled[0], tmp_path / name)
    vault, reference = tmp_path / "vault", tmp_path / "reference"
    run_export(tmp_path / "seeds", vault, {**env, "VAULTSYNC_STATE_DIR": str(tmp_path / "state")})
    run_export(tmp_path / "reference-seeds", reference, {**env, "VAULTSYNC_STATE_DIR": str(tmp_path / "ref-state")})
    for name in ("seeds", "reference-seeds"):
        shutil.copy(bundled[1], tmp_path / name)  # a second seed file: concept notes and maps change

    env["VAULTSYNC_STATE_DIR"] = str(tmp_path / "state")
    killed = subprocess.run([sys.executable, "-c", KILLED_CHILD, str(tmp_path / "seeds"), str(vault), where],
                            env=env, capture_output=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()[-3000:]
    run_export(tmp_path / "seeds", vault, env)
    run_export(tmp_path / "reference-seeds", reference, {**env, "VAULTSYNC_STATE_DIR": str(tmp_path / "ref-state")})
    assert not (vault / ".vaultsync/taught.json").exists()  # nothing learnt from vaultsync's own notes
    mine, theirs = files_of(vault), files_of(reference)
    assert sorted(set(mine) ^ set(theirs)) == []
    assert [p for p in mine if mine[p] != theirs[p]] == []


def test_restoring_an_older_seed_gives_a_paper_its_annotated_note_back(tmp_path, monkeypatch):
    """Edit an abstract, delete its seed, copy the original back (as ``git checkout`` does): the
    abstract gets its old, annotated note back -- no longer removed -- and no second note."""
    from vaultsync.pipeline import ExportOptions, export
    from vaultsync.plugins import get_plugin_manager

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    seeds, vault = tmp_path / "seeds", tmp_path / "vault"
    seeds.mkdir()
    original = (ROOT / "seeds/000_923012a2bb372482.txt").read_text(encoding="utf-8")
    header, first, *rest = original.split("\n\n")
    seed = seeds / "icml.txt"

    def run() -> dict[str, list[tuple[str, dict]]]:
        export(seeds, vault, get_plugin_manager(), ExportOptions())
        notes: dict[str, list[tuple[str, dict]]] = {}
        for note in (vault / "Papers").glob("*.md"):
            meta = read_frontmatter(split_note(note.read_text(encoding="utf-8"))[0])
            notes.setdefault(meta["aliases"][0] if meta.get("aliases") else note.stem, []).append((note.name, meta))
        return notes

    seed.write_text(original, encoding="utf-8")
    before = run()
    edited = first + " In a revised version we also report results on two further datasets."
    seed.write_text("\n\n".join([header, edited, *rest]), encoding="utf-8")
    run()
    [annotated] = [p for p in (vault / "Papers").glob("*.md") if "two further datasets" in p.read_text("utf-8")]
    annotated.write_text(annotated.read_text(encoding="utf-8") + USER_TEXT, encoding="utf-8")
    seed.unlink()
    assert all(meta.get("status") == "removed" for notes in run().values() for _, meta in notes)
    seed.write_text(original, encoding="utf-8")  # the older version, back
    after = run()
    assert {alias: len(notes) for alias, notes in after.items()} == {alias: 1 for alias in before}
    assert not [name for notes in after.values() for name, meta in notes if meta.get("status") == "removed"]
    assert annotated.read_text(encoding="utf-8").endswith(USER_TEXT)
    assert "two further datasets" not in annotated.read_text(encoding="utf-8")
