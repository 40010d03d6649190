"""Pausing Python's cyclic garbage collector while a stage builds many objects it keeps."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (as it was, after it).

    Loading 20,000 cached extractions or linking them makes millions of small objects that all
    stay alive; each full collection walks the whole growing heap again (two thirds of the load
    time, a sixth of the link time at that scale) and finds nothing to free. Reference counting
    still frees everything else at once.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def collector_frozen() -> Iterator[None]:
    """Inside the block, cyclic garbage collections skip every object alive when it began
    (``gc.freeze``); after it, they look at them again.

    Writing notes makes short-lived objects by the million while the linked model -- millions
    of objects at conference scale -- stays alive throughout: every full collection walked the
    model again. Frozen, it is left out; what the block makes is still collected.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
