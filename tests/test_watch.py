"""`vaultsync watch`: the real watcher, as a subprocess on temporary folders, judged by the vault.

Every wait is for a condition (polled every 50 ms, up to 30 s), never a fixed sleep, so the
tests hold on a loaded 2-core machine. One watcher serves the scenarios that can share it.
"""

from __future__ import annotations

import errno
import itertools
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from vaultsync.records import text_id

HEADER = "ICML 2026 Papers"
_counter = itertools.count()
_TOPICS = ("sparse expert routing", "offline policy evaluation", "contrastive image retrieval",
           "graph neural message passing", "diffusion model sampling", "causal effect estimation")


def abstract(tag: str) -> str:
    n = next(_counter)
    name = f"{tag.capitalize()}{n}Net"
    return (f"We propose {name}, a method for {_TOPICS[n % len(_TOPICS)]} that improves accuracy "
            f"over strong baselines on {n + 3} standard benchmarks.")


def seed_text(abstracts: list[str]) -> str:
    return HEADER + "\n\n" + "\n\n".join(abstracts) + "\n"


def wait_for(condition, what: str, timeout: float = 60.0):
    """Poll until ``condition()`` holds (the timeout only guards against a hang, it times nothing)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def paper_notes(vault: Path) -> dict[str, list[tuple[Path, str]]]:
    """vaultsync_id -> [(note, its text)] for every paper note in the vault."""
    found: dict[str, list[tuple[Path, str]]] = {}
    for note in (vault / "Papers").glob("*.md") if (vault / "Papers").is_dir() else ():
        try:
            text = note.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        match = re.search(r"^vaultsync_id: ['\"]?([0-9a-f]{16})", text, re.M)
        if match:
            found.setdefault(match.group(1), []).append((note, text))
    return found


def have_notes(vault: Path, ids) -> bool:
    notes = paper_notes(vault)
    return all(i in notes for i in ids)


class WatcherProcess:
    """`python -m vaultsync watch` on tmp folders; collects its output lines as they come."""

    def __init__(self, seeds: Path, vault: Path, state: Path, *args: str):
        env = {**os.environ, "VAULTSYNC_STATE_DIR": str(state), "VAULTSYNC_LOAD_PLUGINS": ""}
        env.pop("VAULTSYNC_LOAD_PLUGINS")
        self.proc = subprocess.Popen([sys.executable, "-m", "vaultsync", "watch", str(seeds), str(vault), *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.out: list[str] = []
        self.err: list[str] = []
        for stream, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=lambda s=stream, k=sink: k.extend(iter(s.readline, "")), daemon=True).start()

    def lines(self, containing: str) -> list[str]:
        return [line for line in self.out if containing in line]

    def wait_line(self, containing: str, stream: str = "out") -> str:
        sink = self.out if stream == "out" else self.err
        return wait_for(lambda: next((line for line in list(sink) if containing in line), None),
                        f"a line with {containing!r}; out={self.out} err={self.err}")

    def stop(self, sig=signal.SIGINT, timeout: float = 60.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """A watcher started on a seeds folder that already holds one seed file."""
    root = tmp_path_factory.mktemp("watch")
    seeds, vault, state, outside = root / "seeds", root / "vault", root / "state", root / "outside"
    for folder in (seeds, outside):
        folder.mkdir()
    first = [abstract("early") for _ in range(3)]
    (seeds / "000_before.txt").write_text(seed_text(first), "utf-8")
    watcher = WatcherProcess(seeds, vault, state)
    watcher.wait_line("caught up")
    yield watcher, seeds, vault, outside, first
    assert watcher.stop() == 0


def test_catches_up_at_start(live):
    watcher, seeds, vault, outside, first = live
    assert watcher.lines("watching")[0].startswith("watching")
    assert have_notes(vault, [text_id(a) for a in first])


def test_a_concurrent_export_is_refused_while_watching(live):
    watcher, seeds, vault, outside, first = live
    env = {**os.environ, "VAULTSYNC_STATE_DIR": str(vault.parent / "state")}
    done = subprocess.run([sys.executable, "-m", "vaultsync", "export", str(seeds), str(vault)],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 1
    assert "being written by another vaultsync" in done.stderr


def test_a_file_renamed_into_place_is_one_change(live):
    watcher, seeds, vault, outside, first = live
    texts = [abstract("moved") for _ in range(2)]
    scratch = seeds / ".moved.txt.tmp"  # an editor's save-by-rename: ignored scratch name first
    scratch.write_text(seed_text(texts), "utf-8")
    os.replace(scratch, seeds / "moved.txt")
    wait_for(lambda: have_notes(vault, [text_id(t) for t in texts]), "the renamed file's notes")
    watcher.wait_line("moved.txt")
    assert len(watcher.lines("moved.txt")) == 1
    assert "+2 papers from" in watcher.lines("moved.txt")[0]


def test_a_file_written_slowly_in_chunks_is_processed_once_complete(live):
    watcher, seeds, vault, outside, first = live
    texts = [abstract("chunked") for _ in range(4)]
    data = seed_text(texts).encode("utf-8")
    pieces = [data[i * len(data) // 10:(i + 1) * len(data) // 10] for i in range(10)]
    with open(seeds / "chunked.txt", "wb") as handle:  # like a download: one handle, flushed often
        for piece in pieces:
            handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
            time.sleep(0.3)  # the writer's pace, not a wait for the watcher
    watcher.wait_line("chunked.txt")
    wait_for(lambda: have_notes(vault, [text_id(t) for t in texts]), "the chunked file's notes")
    from_chunked = {vid for vid, notes in paper_notes(vault).items()
                    if any("chunked.txt" in text for _, text in notes)}
    assert from_chunked == {text_id(t) for t in texts}  # no note from half a paragraph
    assert len(watcher.lines("chunked.txt")) == 1


def test_a_burst_of_100_files_is_coalesced_each_file_processed_once(live):
    watcher, seeds, vault, outside, first = live
    staging = outside / "burst"
    staging.mkdir()
    texts = {f"burst_{n:03d}.txt": abstract("burst") for n in range(100)}
    for name, text in texts.items():
        (staging / name).write_text(seed_text([text]), "utf-8")
    for name in texts:  # like `cp`: create, write, close, one after another
        (seeds / name).write_bytes((staging / name).read_bytes())
    wait_for(lambda: have_notes(vault, [text_id(t) for t in texts.values()]), "the burst's notes")
    wait_for(lambda: all(watcher.lines(name) for name in texts), "a line for each burst file")
    counts = Counter(name for name in texts for _ in watcher.lines(name))
    assert set(counts.values()) == {1}, counts
    notes = paper_notes(vault)
    assert all(len(notes[text_id(t)]) == 1 for t in texts.values())


def test_an_edited_seed_updates_its_notes_without_duplicates(live):
    watcher, seeds, vault, outside, first = live
    texts = [abstract("edited") for _ in range(2)]
    path = seeds / "edited.txt"
    path.write_text(seed_text(texts), "utf-8")
    wait_for(lambda: have_notes(vault, [text_id(t) for t in texts]), "the notes before the edit")
    before = len(paper_notes(vault))
    fixed = texts[0].replace("improves accuracy", "clearly improves accuracy")
    path.write_text(seed_text([fixed, texts[1]]), "utf-8")
    wait_for(lambda: any("clearly improves accuracy" in text for notes in paper_notes(vault).values()
                         for _, text in notes), "the edited note")
    assert len(paper_notes(vault)) == before  # updated in place, not a second note


def test_a_note_moved_in_obsidian_while_watching_is_updated_where_it_is(live):
    watcher, seeds, vault, outside, first = live
    text = abstract("moving")
    path = seeds / "moving.txt"
    path.write_text(seed_text([text]), "utf-8")
    note = wait_for(lambda: paper_notes(vault).get(text_id(text)), "the note to move")[0][0]
    (vault / "Reading").mkdir(exist_ok=True)
    moved = vault / "Reading" / "Kept by me.md"
    os.replace(note, moved)  # the user moves and renames it in Obsidian
    before = len(paper_notes(vault)) + len(list((vault / "Reading").glob("*.md")))
    path.write_text(seed_text([text.replace("improves accuracy", "notably improves accuracy")]), "utf-8")
    wait_for(lambda: "notably improves accuracy" in moved.read_text("utf-8"), f"the moved note updated; out={watcher.out[-4:]} err={watcher.err[-8:]}")
    assert not note.exists()
    assert len(paper_notes(vault)) + len(list((vault / "Reading").glob("*.md"))) == before


def test_a_deleted_seed_marks_its_notes_removed(live):
    watcher, seeds, vault, outside, first = live
    texts = [abstract("doomed") for _ in range(2)]
    path = seeds / "doomed.txt"
    path.write_text(seed_text(texts), "utf-8")
    ids = [text_id(t) for t in texts]
    wait_for(lambda: have_notes(vault, ids), "the notes before the delete")
    path.unlink()

    def marked():
        notes = paper_notes(vault)
        return all(re.search(r"^status: removed$", notes[i][0][1], re.M) for i in ids)

    wait_for(marked, "the notes marked status: removed")
    assert have_notes(vault, ids)  # marked, never deleted


def test_a_binary_file_is_reported_in_one_line_and_the_watcher_goes_on(live):
    watcher, seeds, vault, outside, first = live
    (seeds / "binary.txt").write_bytes(b"\x00\x01\x02\xff\xfe" * 200)
    line = watcher.wait_line("binary.txt", stream="err")
    assert line.startswith("vaultsync: ")
    after = [abstract("survivor")]
    (seeds / "after_binary.txt").write_text(seed_text(after), "utf-8")
    wait_for(lambda: have_notes(vault, [text_id(after[0])]), "a seed dropped after the binary file")
    assert watcher.proc.poll() is None
    assert len([line for line in watcher.err if "binary.txt" in line]) == 1


def test_sigint_stops_cleanly_and_releases_the_lock(tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a.txt").write_text(seed_text([abstract("stop")]), "utf-8")
    watcher = WatcherProcess(seeds, tmp_path / "vault", tmp_path / "state")
    watcher.wait_line("caught up")
    assert watcher.stop(signal.SIGINT) == 0
    watcher = WatcherProcess(seeds, tmp_path / "vault", tmp_path / "state")  # the lock was released
    watcher.wait_line("caught up")
    assert watcher.stop(signal.SIGTERM) == 0


def test_once_catches_up_and_exits_like_export(tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    texts = [abstract("once") for _ in range(2)]
    (seeds / "a.txt").write_text(seed_text(texts), "utf-8")
    env = {**os.environ, "VAULTSYNC_STATE_DIR": str(tmp_path / "state")}
    command = [sys.executable, "-m", "vaultsync", "watch", str(seeds), str(tmp_path / "vault"), "--once"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert have_notes(tmp_path / "vault", [text_id(t) for t in texts])
    (seeds / "bad.txt").write_bytes(b"\x00\xff" * 100)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 1 and "bad.txt" in done.stderr


@pytest.mark.parametrize("poll", [False, True])
def test_watching_a_missing_seeds_folder_is_one_line_like_export(tmp_path, poll):
    env = {**os.environ, "VAULTSYNC_STATE_DIR": str(tmp_path / "state")}
    command = [sys.executable, "-m", "vaultsync", "watch", str(tmp_path / "missing"), str(tmp_path / "vault")]
    done = subprocess.run(command + ["--poll"] * poll, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"vaultsync: seeds folder {tmp_path / 'missing'} does not exist; create it or pass the right path")


# -- the parts, in-process ----------------------------------------------------------------------

def test_exporter_marks_the_papers_of_a_deleted_seed_file_removed(tmp_path, monkeypatch):
    from vaultsync.pipeline import export
    from vaultsync.plugins import get_plugin_manager

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    seeds, vault = tmp_path / "seeds", tmp_path / "vault"
    seeds.mkdir()
    texts = [abstract("gone") for _ in range(2)]
    (seeds / "keep.txt").write_text(seed_text([abstract("kept")]), "utf-8")
    (seeds / "gone.txt").write_text(seed_text(texts), "utf-8")
    pm = get_plugin_manager()
    export(seeds, vault, pm)
    (seeds / "gone.txt").unlink()  # while nothing was running
    report = export(seeds, vault, pm)
    assert len([p for p in report.removed if p.startswith("Papers/")]) == 2
    notes = paper_notes(vault)
    assert all("status: removed" in notes[text_id(t)][0][1] for t in texts)


def test_a_burst_is_one_batch_and_an_unclosed_file_waits_for_stability(tmp_path):
    from vaultsync.seed_events import QUIET_AFTER_CLOSE, QUIET_UNCLOSED, ChangeQueue

    now = [0.0]
    queue = ChangeQueue(tmp_path, trust_close=True, clock=lambda: now[0])
    (tmp_path / "open.txt").write_text("still being written")
    queue.hint("open.txt", closed=False)
    for n in range(100):
        queue.hint(f"f{n}.txt", closed=False)
        queue.hint(f"f{n}.txt", closed=True)
        now[0] += 0.001
    assert queue.take(0) is None  # the burst is still arriving
    now[0] += QUIET_AFTER_CLOSE
    batch = queue.take(0)
    assert batch.paths == {f"f{n}.txt" for n in range(100)}
    now[0] += QUIET_UNCLOSED
    assert queue.take(0) is None  # first stability check: nothing to compare with yet
    now[0] += 1
    assert queue.take(0).paths == {"open.txt"}  # unchanged since: settled


def test_ignores_scratch_files_and_a_vault_inside_the_seeds_folder(tmp_path):
    from vaultsync.seed_events import ChangeQueue, SeedHints

    hints = SeedHints(ChangeQueue(tmp_path, trust_close=True), tmp_path, tmp_path / "vault")
    for name in (".x.txt", "x.txt~", "x.swp", "x.tmp", "x.part", "x.sync-conflict-1.txt",
                 "x (conflicted copy).txt", "vault/Papers/A.md", ".git/x.txt"):
        assert hints._relative(str(tmp_path / name)) is None, name
    assert hints._relative(str(tmp_path / "sub" / "x.txt")) == "sub/x.txt"


def test_falls_back_to_polling_when_native_watching_cannot_start(tmp_path, monkeypatch):
    from vaultsync import seed_events

    def no_watches():
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(seed_events, "_native_observer", no_watches)
    said = []
    observer, mode, queue = seed_events.start_observer(
        lambda trust: seed_events.ChangeQueue(tmp_path, trust_close=trust),
        lambda q: seed_events.SeedHints(q, tmp_path, tmp_path / "vault"), tmp_path, poll=False, say=said.append)
    try:
        assert mode == "polling" and not queue.trust_close
        assert "polling instead" in said[0] and "max_user_watches" in said[0]
    finally:
        observer.stop()
        observer.join()


def test_a_stop_or_a_new_file_never_aborts_a_round_that_is_writing(tmp_path, monkeypatch):
    """The export tells its progress how many notes it wrote and when it ends ('finish'); it asks
    its checkpoint at each step before writing, never while notes are being written; the watcher's
    checkpoint aborts at a stage's start."""
    from vaultsync.pipeline import ExportOptions, Exporter
    from vaultsync.plugins import get_plugin_manager
    from vaultsync.watch import Stopped, Superseded, Watcher

    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a.txt").write_text("Test Papers\n\n" + "\n\n".join(
        f"We study graph neural networks for task {i} with reinforcement learning." for i in range(300)) + "\n")
    told, asked = [], []
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    options = ExportOptions(progress=lambda stage, done, total: told.append((stage, done)))
    with Exporter(seeds, tmp_path / "vault", get_plugin_manager(), options) as exporter:
        exporter.run(checkpoint=lambda stage, done, total: asked.append((stage, done)))
        assert ("write", 256) in told and told[-1] == ("finish", None)
        assert ("write", None) in asked and ("link", None) in asked
        assert not [step for step in asked if step[0] in ("write", "finish") and step[1] is not None]

        watcher = Watcher(exporter)
        assert exporter.options is options  # the watcher changes nothing of the exporter's options
        watcher.stop.set()
        watcher._may_put_off, watcher._queue = True, ["more.txt"]
        watcher._checkpoint("finish")  # the digest, after every note is written: goes on
        with pytest.raises(Stopped):
            watcher._checkpoint("link")
        watcher.stop.clear()
        with pytest.raises(Superseded):
            watcher._checkpoint("write")  # about to write: a newer file puts the round off


