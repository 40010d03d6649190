"""Process pools whose workers never outlive the vaultsync that started them.

A forked pool worker waits for work on a pipe whose other end it holds itself, so when its
parent dies without shutting the pool down (``kill -9``, the OOM killer, a closed terminal) it
waits forever, re-parented to init, holding the memory it inherited. Each worker therefore asks
the kernel to kill it when its parent dies (Linux: ``prctl(PR_SET_PDEATHSIG)``), and elsewhere
watches its parent's pid from a thread and exits when it changes.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PARENT_CHECK_EVERY = 1.0  # s, where the kernel cannot be asked


def forked_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` forked processes, each of which dies with this process."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=die_with_parent, initargs=(os.getpid(),))


def die_with_parent(parent: int) -> None:
    """In a worker: end this process when ``parent`` (the pid that started it) dies."""
    if sys.platform.startswith("linux") and _kill_me_when_parent_dies():
        if os.getppid() != parent:  # it died before the request was made
            os._exit(1)
        return
    threading.Thread(target=_watch_parent, args=(parent,), name="vaultsync-parent-watch", daemon=True).start()


def _kill_me_when_parent_dies() -> bool:
    try:
        import ctypes  # lazy: only pools need it

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (ImportError, OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_EVERY)
    os._exit(1)
