"""What makes the next run cheap: extractions remembered across runs, and a fingerprint of
everything a run reads, so a run over unchanged seeds and an unchanged vault returns at once.

Both are keyed on the code and data of the installed vaultsync and its plugins (their files'
stat signatures), the configuration and, for extractions, the concepts the vault teaches: any
change there and the cache is simply not used.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

import pluggy

from .extraction_codec import decode_extraction, encode_extraction
from .plugins import call_safely
from .records import Abstract, ExtractContext, SyncReport, TaughtConcept
from .regular_files import file_digest
from .state import State
from .write import TEMP_PREFIX

log = logging.getLogger(__name__)

_LAST_RUN = "last-run"
_LESSONS = "extraction-lessons"  # the fingerprint of the cached extractions, and its lessons


def _digest(*parts: Any) -> str:
    text = json.dumps(parts, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _listing_digest(listing: list[tuple[str, int, int]]) -> str:
    """A ``_listing``'s digest (by hand: 25,000 files through ``json`` cost a no-op 40 ms)."""
    text = "\n".join(f"{path}\0{size}\0{mtime}" for path, size, mtime in listing)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def extraction_fingerprint(code: str, config: Mapping[str, Any], taught: tuple) -> str:
    return _digest("extract", code, config, [asdict(t) for t in taught])


def render_fingerprint(code: str, format_name: str, config: Mapping[str, Any]) -> str:
    """What renders a note besides its inputs: the code, the format and the config."""
    return _digest("render", code, format_name, config)


def load_extractions(state: State, fingerprint: str, wanted: Iterable[str]) -> dict[str, Any]:
    """The cached extractions of the abstracts ``wanted`` (those cached under this fingerprint)."""
    wanted = set(wanted)
    # a few (a watch round): look them up; many (a run after a restart): read the table once
    stored = state.extractions(fingerprint, wanted if len(wanted) <= 2000 else None)
    found = {}
    for abstract_id in wanted:
        data = stored.get(abstract_id)
        if data is not None:
            facts = decode_extraction(data)
            if facts is not None:
                found[abstract_id] = facts
    return found


def save_extractions(state: State, fingerprint: str, new: Mapping[str, Any], live: Iterable[str] | None,
                     taught: tuple = ()) -> None:
    """Cache ``new`` (abstract id -> its extraction) and forget the abstracts not ``live`` (None:
    forget nothing, as a watcher's preview does: the next run that saves knows what is live);
    ``taught``: the lessons ``fingerprint`` was made with (see ``carry_over_lessons``)."""
    with state.transaction():
        records = [(i, encode_extraction(e)) for i, e in new.items()]
        if live is None:
            state.add_extractions(fingerprint, records)
        else:
            state.put_extractions(fingerprint, records, keep=live)
        lessons = {"fingerprint": fingerprint, "taught": [asdict(t) for t in taught]}
        state.put_blob(_LESSONS, json.dumps(lessons, ensure_ascii=False).encode("utf-8"))


def carry_over_lessons(state: State, pm: pluggy.PluginManager, code: str, context: ExtractContext,
                       abstracts: Mapping[str, Abstract]) -> dict[str, Any]:
    """The cached extractions of ``abstracts`` (by id) that still hold now that the vault
    teaches other lessons (``context.taught``), filed under the new extraction fingerprint.

    A lesson (a concept note the user wrote or edited) changes what the vocabulary reads, and
    so the extraction fingerprint: without this, one edited concept note means extracting the
    whole corpus again. Of vaultsync's own extractors only the vocabulary reads the lessons, so
    when every extractor says which abstracts the lessons may change (the hook
    ``vaultsync_lessons_may_change``), an abstract none of them flags keeps what was extracted
    under the cache's lessons -- when they were all that changed (same code and config)."""
    stored = state.get_blob(_LESSONS)
    if not stored or not abstracts:
        return {}
    answering = {impl.plugin_name for impl in pm.hook.vaultsync_lessons_may_change.get_hookimpls()}
    if any(impl.plugin_name not in answering for impl in pm.hook.vaultsync_extract.get_hookimpls()):
        return {}  # an extractor that does not say may read the lessons anywhere
    record = json.loads(stored)
    before = tuple(TaughtConcept(t["name"], tuple(t["aliases"]), tuple(t["broader"])) for t in record["taught"])
    old, new = record["fingerprint"], extraction_fingerprint(code, context.config, context.taught)
    if old == new or old != extraction_fingerprint(code, context.config, before):
        return {}
    may_change = _lessons_may_change(pm, replace(context, taught=before), context)
    if may_change is None:
        return {}
    kept = {}
    for abstract_id, data in state.extractions(old, abstracts if len(abstracts) <= 2000 else None).items():
        abstract = abstracts.get(abstract_id)
        if abstract is not None and not may_change(abstract.text):
            facts = decode_extraction(data)
            if facts is not None:
                kept[abstract_id] = facts
    state.move_extractions(old, new, kept)
    return kept


def _lessons_may_change(pm: pluggy.PluginManager, before: ExtractContext, after: ExtractContext):
    """One test of texts: whether any extractor may read the text differently (None: a plugin failed)."""
    outcome = call_safely(pm, "vaultsync_lessons_may_change", context_text="the lessons", before=before, after=after)
    if outcome.failures:
        for failure in outcome.failures:
            log.warning("%s", failure)
        return None
    tests = outcome.result
    if len(tests) == 1:
        return tests[0]
    return lambda text: any(test(text) for test in tests)


def cache_encoded(state: State, fingerprint: str, records: Iterable[tuple[str, bytes]]) -> None:
    """Cache (abstract id, ``encode_extraction`` bytes) records as they are (a pool's workers
    send them so); ``save_extractions`` still forgets the abstracts no longer live."""
    state.add_extractions(fingerprint, records)


def _listing(folder: Path, skip_hidden: bool) -> list[tuple[str, int, int]]:
    """(relative path, size, mtime) of every file below ``folder``; hidden files and folders
    skipped (``skip_hidden``) but an interrupted run's temp files: one left makes the run a real
    one, which sweeps it (``VaultSession._sweep``)."""
    found = []
    pending = [""]
    while pending:
        relative = pending.pop()
        try:
            entries = list(os.scandir(folder / relative if relative else folder))
        except OSError:
            continue
        for entry in entries:
            if skip_hidden and entry.name.startswith(".") and not entry.name.startswith(TEMP_PREFIX):
                continue
            path = f"{relative}/{entry.name}" if relative else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(path)
                else:
                    stat = entry.stat(follow_symlinks=False)
                    found.append((path, stat.st_size, stat.st_mtime_ns))
            except OSError:
                continue
    return sorted(found)


class RunPrint:
    """Everything a run reads -- the code, the options, every seed file, every vault file -- as
    digests: ``exact`` by the files' sizes and times (cheap), ``sized`` by the seeds' sizes
    only, and ``content()`` by the seeds' bytes (read only when asked)."""

    def __init__(self, code: str, options: Mapping[str, Any], seeds_dir: Path, seeds: list, vault: list):
        self.code, self.options, self.seeds_dir, self.seeds = code, options, seeds_dir, seeds
        self.vault = _listing_digest(vault)  # (the vault's listing is long: digested once)
        self.exact = _digest("run", code, options, seeds, self.vault)

    @property
    def sized(self) -> str:
        return _digest("run-sized", self.code, self.options, [(path, size) for path, size, _ in self.seeds],
                       self.vault)

    def content(self) -> str | None:
        """The digest with the seeds' bytes; None if a seed changed since they were listed."""
        # (in blocks, and only regular files: a named pipe or a link to a device in the folder
        # must not hang the run or fill the memory)
        hashes = [(path, file_digest(self.seeds_dir / path)) for path, _, _ in self.seeds]
        if _listing(self.seeds_dir, skip_hidden=False) != self.seeds:
            return None
        return _digest("run-content", self.code, self.options, hashes, self.vault)

    def after(self, vault_dir: Path) -> "RunPrint":
        """The same seeds, as the run read them, and the vault as it is now (the run wrote it)."""
        return RunPrint(self.code, self.options, self.seeds_dir, self.seeds, _listing(vault_dir, True))


def run_print(code: str, seeds_dir: Path, vault_dir: Path | None, options: Mapping[str, Any]) -> RunPrint:
    """The ``RunPrint`` of a run over ``seeds_dir`` and ``vault_dir`` as they are now (the
    vault not listed when None: a run that will not ask ``last_run`` lists it ``after``)."""
    vault = _listing(vault_dir, True) if vault_dir is not None else []
    return RunPrint(code, options, seeds_dir, _listing(seeds_dir, skip_hidden=False), vault)


def last_run(state: State, now: RunPrint) -> SyncReport | None:
    """What the last run reported, if it ran on exactly what a run would read ``now``: the same
    files by their times, or -- when only the seeds' times moved (a seed file touched, saved
    unchanged, copied or checked out again) -- the same seed bytes, whose new times are then
    remembered."""
    stored = state.get_blob(_LAST_RUN)
    if not stored:
        return None
    record = json.loads(stored)
    if record.get("fingerprint") != now.exact:
        if record.get("sized") != now.sized or record.get("content") is None or record["content"] != now.content():
            return None
        record["fingerprint"] = now.exact
        state.put_blob(_LAST_RUN, json.dumps(record, ensure_ascii=False).encode("utf-8"))
    report = record["report"]
    return SyncReport(papers=report["papers"], concepts=report["concepts"], unchanged=report["files"],
                      conflicts=tuple(report["conflicts"]), warnings=tuple(report["warnings"]),
                      errors=tuple(report["errors"]), seeds=tuple(report["seeds"]))


def remember_run(state: State, then: RunPrint, report: SyncReport) -> None:
    """Remember ``report`` as what a run over ``then`` gives (``then``: the ``RunPrint`` taken
    when the run began, ``after`` it wrote the vault)."""
    files = len(report.created) + len(report.updated) + report.unchanged
    record = {"fingerprint": then.exact, "sized": then.sized, "content": then.content(), "report": {
        "papers": report.papers, "concepts": report.concepts, "files": files,
        "conflicts": list(report.conflicts), "warnings": list(report.warnings), "errors": list(report.errors),
        "seeds": list(report.seeds)}}
    state.put_blob(_LAST_RUN, json.dumps(record, ensure_ascii=False).encode("utf-8"))


def forget_run(state: State) -> None:
    """Forget the last run: the next one cannot be served from it."""
    state.put_blob(_LAST_RUN, b"")


def conversion_key(text: str, links) -> str:
    """The key of an abstract's Markdown: its text and inline links (separators no text holds)."""
    joined = "\x00".join([text, *("\x1f".join(pair) for pair in links)])
    return hashlib.blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def load_conversions(state: State, code: str, wanted: Mapping[str, Any]) -> dict[Any, str]:
    """``wanted`` (hash -> (text, links)) -> the Markdown earlier runs converted, by (text, links)."""
    stored = state.conversions(_digest("convert", code))
    return {wanted[key]: markdown for key, markdown in stored.items() if key in wanted}


def save_conversions(state: State, code: str, wanted: Mapping[str, Any], table: Mapping[Any, str],
                     known: Mapping[Any, str]) -> None:
    """Store the conversions in ``table`` that were not ``known`` before; forget unwanted ones."""
    new = [(key, table[item]) for key, item in wanted.items() if item in table and item not in known]
    with state.transaction():
        state.put_conversions(_digest("convert", code), new, keep=wanted)
