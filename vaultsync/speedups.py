"""The shortcuts a run takes, decided once by the runner (``pipeline.Exporter``) and handed to
the stages. Each one writes exactly the bytes going without it writes (tests/test_fast_path.py);
``VAULTSYNC_SLOW_PATH=1`` turns every one off, so that a test can compare."""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Mapping

from .collector import collector_frozen, collector_paused
from .frontmatter_flat import flat_yaml

SLOW_PATH_ENV = "VAULTSYNC_SLOW_PATH"


@dataclass(frozen=True)
class Speedups:
    """Which shortcuts a run takes (all of them by default)."""

    # large jobs (extraction, abstracts' Markdown) spread over a forked process pool, and each
    # extractor run over a chunk of abstracts in turn (else: one abstract at a time)
    pools: bool = True
    batched_writes: bool = True  # notes staged and made durable together (``write.WriteBatch``)
    flat_yaml: bool = True  # flat frontmatter read and written directly, not through PyYAML
    deferred_render: bool = True  # a note whose inputs did not change is not rendered again
    lessons_keep_cache: bool = True  # extractions a new lesson cannot change are kept (``run_cache``)
    # the cyclic garbage collector kept off what a stage builds and keeps (``collector``)
    collector: bool = True

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> "Speedups":
        """Every shortcut, or none with ``VAULTSYNC_SLOW_PATH=1``."""
        environ = os.environ if environ is None else environ
        if environ.get(SLOW_PATH_ENV) == "1":
            return cls(False, False, False, False, False, False)
        return cls()

    def collector_for(self, stage: str) -> AbstractContextManager:
        """The collector policy around ``stage``: paused while "extract" or "link" build what
        stays alive (a collection would walk it again and again and free nothing), frozen while
        notes are "write"-n (the model stays alive throughout)."""
        if not self.collector:
            return nullcontext()
        return collector_frozen() if stage == "write" else collector_paused()

    def shortcuts(self) -> AbstractContextManager:
        """The shortcuts deep inside the stages (the flat-YAML reader and writer), as set here."""
        return flat_yaml(self.flat_yaml)
