"""A killed vaultsync leaves no worker processes behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# The child extracts four abstracts with a pool of two workers (the pool threshold lowered), each
# abstract held up by an extractor that never returns; it says when both workers are busy.
CHILD = r"""
import os, sys, time
from vaultsync import extract
from vaultsync.hookspecs import hookimpl
from vaultsync.plugins import get_plugin_manager
from vaultsync.records import Abstract, Collection, ExtractContext

busy = sys.argv[1]
if sys.argv[2] == "watchdog":  # as where the kernel cannot be asked (not Linux)
    from vaultsync import workers
    workers._kill_me_when_parent_dies = lambda: False

class Stuck:
    @hookimpl
    def vaultsync_extract(self, abstract, context):
        with open(busy, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        time.sleep(3600)

pm = get_plugin_manager()
pm.register(Stuck(), "stuck")
extract.POOL_THRESHOLD, extract._CHUNK = 2, 1
text = "We study graph neural networks for molecules and report strong results on {} benchmarks."
abstracts = [Abstract(text.format(i), "s.txt", i + 1, 1, Collection("C")) for i in range(4)]
extract.extract_all(abstracts, pm, ExtractContext(), workers=2)
"""


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie (an exited child nobody reaped yet)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["kernel", "watchdog"])
def test_pool_workers_die_when_vaultsync_is_killed(tmp_path, how):
    busy = tmp_path / "busy"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(busy), how], stderr=subprocess.PIPE)
    workers: set[int] = set()
    try:
        for _ in range(600):  # (a safety net: the workers start in well under a second)
            workers = {int(line) for line in busy.read_text().split()} if busy.exists() else set()
            if len(workers) == 2 or child.poll() is not None:
                break
            time.sleep(0.1)
        assert len(workers) == 2, child.stderr.read().decode() if child.poll() is not None else "no workers"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        child.stderr.close()
    try:
        for _ in range(600):
            if not any(_alive(pid) for pid in workers):
                break
            time.sleep(0.1)
        assert not [pid for pid in workers if _alive(pid)], "workers outlived the killed vaultsync"
    finally:
        for pid in workers:  # (never leave them behind, even when the test fails)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
