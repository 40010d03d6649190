"""Stage 2, extract: every extractor plugin reads every abstract; the name rule names the paper.

Each abstract is independent of the others, so a large job is spread over a process pool (both
cores on a 2-core machine); small jobs stay in-process, where pool start-up would dominate.
A plugin that fails on one abstract is named in one line and the others go on.
"""

from __future__ import annotations

import logging
import multiprocessing
import operator
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence

import pluggy

from .collector import collector_paused
from .plugins import HookOutcome, call_each, call_safely
from .records import Abstract, ConceptMention, ExtractContext, Extraction, PaperName, mention_from_fields

log = logging.getLogger(__name__)

# Set to 1, turns off every shortcut (pools, batched writes, the direct YAML writer), so a test
# can check the fast path writes the same bytes (tests/test_fast_path.py).
SLOW_PATH_ENV = "VAULTSYNC_SLOW_PATH"
POOL_THRESHOLD = 3000  # abstracts; below this a pool costs more than it saves
_CHUNK = 500


@dataclass(frozen=True)
class Extracted:
    """What the extract stage knows about one abstract."""

    extraction: Extraction
    name: PaperName
    problems: tuple[str, ...] = ()


def extract_one(abstract: Abstract, pm: pluggy.PluginManager, context: ExtractContext) -> Extracted:
    """Run every extractor on one abstract, then the name rule; never raises for a plugin's bug."""
    where = _where(abstract)
    found = call_safely(pm, "vaultsync_extract", context_text=where, abstract=abstract, context=context)
    return _named(abstract, found, pm, where)


def extract_many(abstracts: Sequence[Abstract], pm: pluggy.PluginManager, context: ExtractContext
                 ) -> list[Extracted]:
    """``[extract_one(a, pm, context) for a in abstracts]``, each extractor running over all of
    them in turn (``call_each``: its data stays in the CPU's caches), with the cyclic garbage
    collector paused (what they return stays alive until the chunk is done: collections would
    walk it again and again and find nothing to free)."""
    wheres = [_where(abstract) for abstract in abstracts]
    with collector_paused():
        found = call_each(pm, "vaultsync_extract", [{"abstract": a, "context": context} for a in abstracts], wheres)
        return [_named(abstract, facts, pm, where) for abstract, facts, where in zip(abstracts, found, wheres)]


def _where(abstract: Abstract) -> str:
    return f"{abstract.seed} paragraph {abstract.paragraph}"


def _named(abstract: Abstract, found: HookOutcome, pm: pluggy.PluginManager, where: str) -> Extracted:
    """What the extractors ``found`` in ``abstract``, merged, and the paper's name."""
    extraction = Extraction.merge(found.result)
    named = call_safely(pm, "vaultsync_paper_name", context_text=where, abstract=abstract, extraction=extraction)
    name = named.result
    if name is None:  # every name rule failed: still a usable, honest title
        words = abstract.text.split()
        name = PaperName(title=" ".join(words[:10]), gist=" ".join(words[:20]))
    return Extracted(extraction, name, tuple(str(f) for f in (*found.failures, *named.failures)))


# A forked worker inherits the parent's plugin manager and context through these globals.
_WORKER: tuple[pluggy.PluginManager, ExtractContext] | None = None


def _extract_chunk(abstracts: Sequence[Abstract]) -> list[Extracted]:
    assert _WORKER is not None
    return _extract_chunk_with(abstracts, _WORKER)


def extract_all(
    abstracts: Sequence[Abstract], pm: pluggy.PluginManager, context: ExtractContext, workers: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> list[Extracted]:
    """Extract every abstract, in order; uses a process pool for large jobs where fork exists.

    ``on_progress(done, total)`` is told how far it got, every few hundred abstracts."""
    global _WORKER
    workers = workers if workers is not None else min(os.cpu_count() or 1, 4)
    chunks = [abstracts[i:i + _CHUNK] for i in range(0, len(abstracts), _CHUNK)]
    done: list[Extracted] = []
    shared = None  # results unpickled from the pool: each chunk brings its own copies
    if os.environ.get(SLOW_PATH_ENV) == "1":  # one abstract at a time, every plugin in turn
        results = ([extract_one(abstract, pm, context) for abstract in chunk] for chunk in chunks)
    elif len(abstracts) < POOL_THRESHOLD or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        results = map(_extract_chunk_with, chunks, [(pm, context)] * len(chunks))
    else:
        _WORKER = (pm, context)
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
        results = pool.map(_extract_chunk, chunks)
        shared = _Shared()
    try:
        with collector_paused():  # everything extracted stays alive: see extract_many
            for chunk in results:
                done.extend(map(shared.extracted, chunk) if shared is not None else chunk)
                if on_progress is not None:
                    on_progress(len(done), len(abstracts))
    finally:
        if _WORKER is not None:
            pool.shutdown()
            _WORKER = None
    return done


def _extract_chunk_with(abstracts: Sequence[Abstract], setup) -> list[Extracted]:
    pm, context = setup
    return extract_many(abstracts, pm, context)


_MENTION_FIELDS = operator.attrgetter("name", "kind", "surfaces", "aliases", "score", "broader", "canonical")


class _Shared:
    """One copy of each concept mention, string and tuple of strings the extractions repeat.

    Abstracts name the same concepts, kinds and aliases again and again, but each chunk of
    results is unpickled from its own process with its own copies: 20,000 abstracts bring some
    600,000 mentions of which 430,000 differ, and 800,000 strings of which 90,000 differ.
    Sharing them makes the extractions, alive until the link stage is done, a third smaller.
    The records are rebuilt (equal to the ones given), not changed."""

    def __init__(self) -> None:
        self._values: dict = {}  # string or tuple of strings -> its one copy
        self._mentions: dict[tuple, ConceptMention] = {}  # a mention's fields -> its one copy

    def one(self, value):
        return self._values.setdefault(value, value)

    def strings(self, values: tuple[str, ...]) -> tuple[str, ...]:
        if not values:
            return ()
        found = self._values.get(values)
        return found if found is not None else self.one(tuple(map(self.one, values)))

    def mention(self, m: ConceptMention) -> ConceptMention:
        found = self._mentions.get(_MENTION_FIELDS(m))
        if found is None:
            one, strings = self.one, self.strings
            fields = (one(m.name), one(m.kind), strings(m.surfaces), strings(m.aliases), m.score,
                      strings(m.broader), m.canonical)  # the key holds the shared copies only
            found = self._mentions[fields] = mention_from_fields(*fields)
        return found

    def extracted(self, facts: Extracted) -> Extracted:
        found = facts.extraction
        extraction = Extraction(tuple(map(self.mention, found.concepts)), self.strings(found.paper_aliases),
                                found.metadata)
        return Extracted(extraction, facts.name, facts.problems)
