"""Stage 2, extract: every extractor plugin reads every abstract; the name rule names the paper.

Each abstract is independent of the others, so a large job is spread over a process pool (both
cores on a 2-core machine); small jobs stay in-process, where pool start-up would dominate.
A plugin that fails on one abstract is named in one line and the others go on.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Sequence

import pluggy

from .records import Abstract, ExtractContext, Extraction, PaperName

log = logging.getLogger(__name__)

POOL_THRESHOLD = 3000  # abstracts; below this a pool costs more than it saves
_CHUNK = 500


@dataclass(frozen=True)
class Extracted:
    """What the extract stage knows about one abstract."""

    extraction: Extraction
    name: PaperName
    problems: tuple[str, ...] = ()


def _plugin_name(pm: pluggy.PluginManager, impl) -> str:
    return pm.get_name(impl.plugin) or impl.plugin_name


def extract_one(abstract: Abstract, pm: pluggy.PluginManager, context: ExtractContext) -> Extracted:
    """Run every extractor on one abstract, then the name rule; never raises for a plugin's bug."""
    parts: list[Extraction] = []
    problems: list[str] = []
    where = f"{abstract.seed} ¶{abstract.paragraph}"
    # Call implementations one by one (pluggy's order) so one failing plugin spares the rest.
    for impl in reversed(pm.hook.vaultsync_extract.get_hookimpls()):
        try:
            part = impl.function(abstract=abstract, context=context)
        except Exception as error:
            problems.append(f"plugin {_plugin_name(pm, impl)!r} failed in vaultsync_extract on {where}: "
                            f"{type(error).__name__}: {error}")
            continue
        if part is not None:
            parts.append(part)
    extraction = Extraction.merge(parts)
    name = None
    for impl in reversed(pm.hook.vaultsync_paper_name.get_hookimpls()):
        try:
            name = impl.function(abstract=abstract, extraction=extraction)
        except Exception as error:
            problems.append(f"plugin {_plugin_name(pm, impl)!r} failed in vaultsync_paper_name on {where}: "
                            f"{type(error).__name__}: {error}")
            continue
        if name is not None:
            break
    if name is None:
        words = abstract.text.split()
        name = PaperName(title=" ".join(words[:10]), gist=" ".join(words[:20]))
    return Extracted(extraction, name, tuple(problems))


# A forked worker inherits the parent's plugin manager and context through these globals.
_WORKER: tuple[pluggy.PluginManager, ExtractContext] | None = None


def _extract_chunk(abstracts: Sequence[Abstract]) -> list[Extracted]:
    assert _WORKER is not None
    pm, context = _WORKER
    return [extract_one(abstract, pm, context) for abstract in abstracts]


def extract_all(
    abstracts: Sequence[Abstract], pm: pluggy.PluginManager, context: ExtractContext, workers: int | None = None
) -> list[Extracted]:
    """Extract every abstract, in order; uses a process pool for large jobs where fork exists."""
    global _WORKER
    workers = workers if workers is not None else min(os.cpu_count() or 1, 4)
    if len(abstracts) < POOL_THRESHOLD or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [extract_one(abstract, pm, context) for abstract in abstracts]
    _WORKER = (pm, context)
    try:
        chunks = [abstracts[i:i + _CHUNK] for i in range(0, len(abstracts), _CHUNK)]
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return [item for chunk in pool.map(_extract_chunk, chunks) for item in chunk]
    finally:
        _WORKER = None
