"""Stage 2, extract: every extractor plugin reads every abstract; the name rule names the paper.

Each abstract is independent of the others, so a large job is spread over a process pool (both
cores on a 2-core machine); small jobs stay in-process, where pool start-up would dominate.
A plugin that fails on one abstract is named in one line and the others go on.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from typing import Callable, Iterator, Sequence

import pluggy

from .context import in_context
from .salience import salient
from .inline_html import without_html
from .plugins import HookOutcome, call_each, call_safely
from .extraction_codec import decode_extraction, encode_extraction, Sharing
from .records import Abstract, Extracted, ExtractContext, Extraction, PaperName
from .speedups import Speedups
from .workers import forked_pool

log = logging.getLogger(__name__)

POOL_THRESHOLD = 3000  # abstracts; below this a pool costs more than it saves
_CHUNK = 500


def extract_one(abstract: Abstract, pm: pluggy.PluginManager, context: ExtractContext) -> Extracted:
    """Run every extractor on one abstract, then the name rule; never raises for a plugin's bug."""
    where = _where(abstract)
    found = call_safely(pm, "vaultsync_extract", context_text=where, abstract=abstract, context=context)
    return _named(abstract, found, pm, where)


def extract_many(abstracts: Sequence[Abstract], pm: pluggy.PluginManager, context: ExtractContext
                 ) -> list[Extracted]:
    """``[extract_one(a, pm, context) for a in abstracts]``, each extractor running over all of
    them in turn (``call_each``: its data stays in the CPU's caches)."""
    wheres = [_where(abstract) for abstract in abstracts]
    found = call_each(pm, "vaultsync_extract", [{"abstract": a, "context": context} for a in abstracts], wheres)
    return [_named(abstract, facts, pm, where) for abstract, facts, where in zip(abstracts, found, wheres)]


def _where(abstract: Abstract) -> str:
    return f"{abstract.seed} paragraph {abstract.paragraph}"


def _named(abstract: Abstract, found: HookOutcome, pm: pluggy.PluginManager, where: str) -> Extracted:
    """What the extractors ``found`` in ``abstract``, merged, and the paper's name."""
    text = without_html(abstract.text)
    extraction = in_context(text, Extraction.merge(found.result))
    named = call_safely(pm, "vaultsync_paper_name", context_text=where, abstract=abstract, extraction=extraction)
    name = named.result
    if name is None:  # every name rule failed: still a usable, honest title
        words = abstract.text.split()
        name = PaperName(title=" ".join(words[:10]), gist=" ".join(words[:20]))
    extraction = salient(text, extraction, (name.name, *name.aliases))
    return Extracted(extraction, name, tuple(str(f) for f in (*found.failures, *named.failures)))


# A forked worker inherits the parent's plugin manager and context through these globals.
_WORKER: tuple[pluggy.PluginManager, ExtractContext] | None = None


def _extract_chunk(abstracts: Sequence[Abstract]) -> list[bytes]:
    """In a pool's worker: the chunk's extractions, each as the extraction cache stores it
    (marshalled tuples: a fraction of the cost of pickling the records, both ways)."""
    assert _WORKER is not None
    return [encode_extraction(facts) for facts in _extract_chunk_with(abstracts, _WORKER)]


def extract_all(
    abstracts: Sequence[Abstract], pm: pluggy.PluginManager, context: ExtractContext, workers: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_encoded: Callable[[list[tuple[str, bytes]]], None] | None = None, speedups: Speedups = Speedups(),
) -> list[Extracted]:
    """Extract every abstract, in order; uses a process pool for large jobs where fork exists
    (unless ``speedups.pools`` is off: then one abstract at a time, every plugin in turn).

    ``on_progress(done, total)`` is told how far it got, every few hundred abstracts.
    ``on_encoded``, if given, is handed each chunk of (abstract id, bytes) the pool's workers
    sent, already encoded for the extraction cache (``run_cache.cache_encoded``), as it arrives."""
    global _WORKER
    workers = workers if workers is not None else min(os.cpu_count() or 1, 4)
    chunks = [abstracts[i:i + _CHUNK] for i in range(0, len(abstracts), _CHUNK)]
    done: list[Extracted] = []
    if not speedups.pools:  # one abstract at a time, every plugin in turn
        results = ([extract_one(abstract, pm, context) for abstract in chunk] for chunk in chunks)
    elif len(abstracts) < POOL_THRESHOLD or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        results = map(_extract_chunk_with, chunks, [(pm, context)] * len(chunks))
    else:
        _WORKER = (pm, context)
        pool = forked_pool(workers)
        results = _decoded(chunks, pool.map(_extract_chunk, chunks), pm, context, on_encoded)
    try:
        for chunk in results:
            done.extend(chunk)
            if on_progress is not None:
                on_progress(len(done), len(abstracts))
    finally:
        if _WORKER is not None:
            pool.shutdown()
            _WORKER = None
    return done


def _decoded(chunks, results, pm: pluggy.PluginManager, context: ExtractContext,
             on_encoded: Callable[[list[tuple[str, bytes]]], None] | None) -> Iterator[list[Extracted]]:
    """The pool's encoded chunks, decoded: one copy of each mention and string they repeat
    (``extraction_codec.Sharing``); each chunk's records handed to ``on_encoded`` and let go (kept
    until the end, 20,000 of them left the heap full of holes the link stage could not use)."""
    shared = Sharing()
    for chunk, records in zip(chunks, results):
        facts, encoded = [], []
        for abstract, data in zip(chunk, records):
            found = decode_extraction(data, shared)
            if found is None:  # cannot happen with the records vaultsync writes; never lose one
                found = extract_one(abstract, pm, context)
            else:
                encoded.append((abstract.id, data))
            facts.append(found)
        if on_encoded is not None:
            on_encoded(encoded)
        del records, encoded
        yield facts


def _extract_chunk_with(abstracts: Sequence[Abstract], setup) -> list[Extracted]:
    pm, context = setup
    return extract_many(abstracts, pm, context)
