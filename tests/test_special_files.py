"""Whatever sits in the seeds folder -- a named pipe, a link to a device, a link to itself --
`export` and `watch` finish, say it in one line, and go on with the real seed files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vaultsync.records import text_id

ABSTRACT = ("We study graph neural networks for molecular property prediction and show that "
            "message passing with attention improves accuracy on three benchmarks.")
MEMORY_LIMIT = 2 << 30  # bytes of address space: reading /dev/zero ends in MemoryError, not a swap storm

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


def _limited() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def vaultsync(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """The CLI on tmp folders; the timeout is only a safety net for a hang (the outcome is what counts)."""
    env = {**os.environ, "VAULTSYNC_STATE_DIR": str(tmp_path / "state")}
    return subprocess.run([sys.executable, "-m", "vaultsync", *args], capture_output=True, text=True, env=env,
                          timeout=120, preexec_fn=_limited)


@pytest.fixture
def seeds(tmp_path):
    folder = tmp_path / "seeds"
    folder.mkdir()
    (folder / "good.txt").write_text(f"ICML 2026 Papers\n\n{ABSTRACT}\n", encoding="utf-8")
    return folder


def paper_written(vault: Path) -> bool:
    return any(f"vaultsync_id: {text_id(ABSTRACT)}" in p.read_text("utf-8") for p in (vault / "Papers").glob("*.md"))


@pytest.mark.parametrize("name, named", [("pipe.txt", True), (".hidden-pipe", False), ("slides.pdf", True)])
def test_a_named_pipe_in_the_seeds_folder_never_hangs_export(tmp_path, seeds, name, named):
    os.mkfifo(seeds / name)
    done = vaultsync(tmp_path, "export", str(seeds), str(tmp_path / "vault"))
    assert "Traceback" not in done.stderr
    assert paper_written(tmp_path / "vault")
    problems = [line for line in done.stderr.splitlines() if name in line]
    if named:  # a file the reader was asked to read: one line, exit status 1
        assert done.returncode == 1 and len(problems) == 1 and "named pipe" in problems[0]
    else:  # a hidden file is not a seed: not even a line
        assert done.returncode == 0 and problems == []


def test_a_link_to_dev_zero_is_refused_without_reading_it(tmp_path, seeds):
    (seeds / "zero.txt").symlink_to("/dev/zero")
    done = vaultsync(tmp_path, "export", str(seeds), str(tmp_path / "vault"))
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr
    assert done.returncode == 1 and paper_written(tmp_path / "vault")
    assert [line for line in done.stderr.splitlines() if "zero.txt" in line] == [
        f"vaultsync: {seeds / 'zero.txt'}: is a link to /dev/zero, outside the seeds folder; "
        "skipped it (copy the file into the seeds folder instead)"]


@pytest.mark.parametrize("command", [["export"], ["watch", "--once"]])
def test_a_link_to_itself_is_one_line_and_the_rest_is_written(tmp_path, seeds, command):
    (seeds / "self.txt").symlink_to("self.txt")
    done = vaultsync(tmp_path, *command, str(seeds), str(tmp_path / "vault"))
    assert "Traceback" not in done.stderr and "RuntimeError" not in done.stderr
    assert done.returncode == 1 and paper_written(tmp_path / "vault")
    assert [line for line in done.stderr.splitlines() if "self.txt" in line] == [
        f"vaultsync: {seeds / 'self.txt'}: is a symbolic link that leads back to itself; skipped it (remove it)"]


def test_the_watcher_steps_over_a_named_pipe_and_stops_when_asked(tmp_path, seeds):
    from test_watch import WatcherProcess, abstract, have_notes, seed_text, wait_for

    os.mkfifo(seeds / "pipe.txt")
    os.mkfifo(seeds / ".hidden-pipe")
    watcher = WatcherProcess(seeds, tmp_path / "vault", tmp_path / "state")
    try:
        watcher.wait_line("caught up")
        assert paper_written(tmp_path / "vault")
        os.mkfifo(seeds / "late.txt")  # a pipe appearing while watching, then a real seed file
        later = abstract("late")
        (seeds / "later.txt").write_text(seed_text([later]), "utf-8")
        wait_for(lambda: have_notes(tmp_path / "vault", [text_id(later)]), "the later seed file's note")
    finally:
        assert watcher.stop(timeout=30) == 0
    assert not any("Traceback" in line for line in watcher.err)
