"""What's new: ``New papers.md``, and optionally today's daily note, after each sync.

``update_digest(vault, report)`` is the whole job; the ``vaultsync_sync_finished`` hook below
calls it (register this module as the default plugin ``digest``; block it to turn digests off).

- A paper note in ``report.created`` is *new*; one in ``report.updated`` whose ``vaultsync_id``
  the digest has never seen is *edited* (its abstract changed, so its id did). Other updates
  (a related list, a concept renamed) are not news. Seen ids are kept in
  ``.vaultsync/digest.json``; without that file nothing counts as edited (the current paper ids
  are taken as seen), so a first digest never floods.
- ``New papers.md`` keeps its history inside one generated region: today's section
  (``## YYYY-MM-DD``, then ``### [[Collection]]``, then one line per paper: link, gist, top three
  concepts) goes on top; earlier days are kept exactly as they are, even if the user edited
  them; a paper appears once per day. Text outside the region is the user's and is never
  touched; a note whose markers are broken is left alone, and vaultsync's version goes to
  ``.vaultsync/conflicts/New papers.md``.
- Links in it follow the notes renamed since the last sync (by the user, or by vaultsync: see
  ``renames``), and links to notes the user deleted become plain text, so the history never
  holds a link that resolves nowhere.
- "Today" is the local date, or the UTC date of ``$SOURCE_DATE_EPOCH`` when it is set
  (reproducible builds), so tests and committed vaults are deterministic.
- With ``daily`` (config ``[digest] daily = true``), the same lines are also appended to
  today's daily note; see ``daily_note.append_lines`` for where and when.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..errors import VaultsyncError
from ..frontmatter_io import FrontmatterError, note_head, read_frontmatter, split_note
from ..hookspecs import hookimpl
from ..records import SyncReport, frozen_mapping
from ..regions import merge_note
from ..renames import relink
from ..write import file_signature, write_note_atomically
from .daily_note import append_lines, entry_key

log = logging.getLogger(__name__)

DIGEST_NOTE = "New papers.md"
SEEN_FILE = ".vaultsync/digest.json"
CONFLICTS_DIR = ".vaultsync/conflicts"
FRONTMATTER = {"type": "digest", "title": "New papers", "tags": ["digest"]}
INTRO = "# New papers\n\nWhat each sync added or changed, newest day first.\n"
_DAY = re.compile(r"^## (\d{4}-\d{2}-\d{2})[ \t]*$")
_COLLECTION = re.compile(r"^### (.+?)[ \t]*$")
_LINK = re.compile(r"^\[\[([^\]|#]+)")


@dataclass(frozen=True)
class DigestEntry:
    """One paper in a digest: its collection (a link) and its Markdown list line."""

    collection: str
    paper: str  # note name, the key that keeps a paper once per day
    line: str


@dataclass(frozen=True)
class DigestUpdate:
    """What ``update_digest`` did: the entries recorded, files written, one-line problems."""

    entries: tuple[DigestEntry, ...] = ()
    written: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def digest_date(now: dt.datetime | None = None) -> dt.date:
    """Today: ``$SOURCE_DATE_EPOCH`` (seconds, as a UTC date) when set, else the local date."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        try:
            return dt.datetime.fromtimestamp(int(epoch), tz=dt.timezone.utc).date()
        except (ValueError, OverflowError, OSError):
            log.warning("SOURCE_DATE_EPOCH=%r is not a number of seconds; using today", epoch)
    return (now or dt.datetime.now()).date()


def update_digest(vault: Path, report: SyncReport, *, daily: bool = False,
                  today: dt.date | None = None) -> DigestUpdate:
    """Record the papers ``report`` created or whose abstract changed; see the module doc.

    Writes nothing when there is no such paper. Never raises for a problem in the vault: each
    becomes a line of ``problems``.
    """
    vault = Path(vault)
    today = today or digest_date()
    seen = _load_seen(vault)
    ids: dict[str, str | None] = {}
    entries = digest_entries(vault, report, seen, ids)
    written, problems = [], []
    renamed, gone = getattr(report, "renamed", None) or {}, getattr(report, "gone", ())
    if entries or renamed or gone:
        try:
            if _write_digest_note(vault, entries, today, problems, renamed, gone):
                written.append(DIGEST_NOTE)
            if daily and entries:
                path = append_to_daily_note(vault, [e.line for e in entries], today)
                if path:
                    written.append(path)
        except (OSError, VaultsyncError) as error:
            problems.append(f"what's new was not fully written: {error}")
    try:
        _save_seen(vault, seen, report, ids)
    except (OSError, VaultsyncError) as error:
        problems.append(f"{SEEN_FILE}: could not be written ({error})")
    return DigestUpdate(tuple(entries), tuple(written), tuple(problems))


def digest_entries(vault: Path, report: SyncReport, seen: set[str] | None,
                   ids: dict[str, str | None] | None = None) -> list[DigestEntry]:
    """One entry per paper note created, or updated under an id not in ``seen`` (``None``: no
    record, so updates never count). Notes that are not papers, or are marked removed, are skipped.
    ``ids`` is given the paper id (or None) of each note read, so no note is read twice."""
    entries = []
    ids = {} if ids is None else ids
    written = getattr(report, "written", None) or {}  # what the sync wrote: no need to read it back
    changes = [(p, False) for p in report.created]
    changes += [(p, True) for p in report.updated]
    for rel, updated in changes:
        if updated:
            head = note_head(str(vault / rel))
            ids[rel] = head.get("vaultsync_id") if head.get("type") == "paper" else None
            if seen is None or ids[rel] in seen:
                continue  # an update, not news: decided from the note's first lines
        meta = _note_meta(os.path.join(vault, rel), written.get(rel))  # (no pathlib: 30,000 notes)
        if meta is None:
            continue
        is_paper = meta.get("type") == "paper"
        if not updated:  # the id ``_save_seen`` records, as ``note_head`` would read it
            ids[rel] = str(meta.get("vaultsync_id") or "") or None if is_paper else None
        if not is_paper or meta.get("status") == "removed":
            continue
        if updated and (seen is None or meta.get("vaultsync_id") in seen):
            continue
        entries.append(_entry(rel.rpartition("/")[2][:-3], meta, edited=updated))  # the name, less ``.md``
    return entries


def _note_meta(path: str, written: tuple[bytes | None, Any] | None = None) -> dict[str, Any] | None:
    """The frontmatter of a Markdown note; None for any other file or one that cannot be read.
    ``written``: the frontmatter the sync wrote into the note and the note's signature then
    (``SyncReport.written``), read instead of the note while the note is unchanged."""
    if os.path.splitext(path)[1] != ".md":
        return None
    if written is not None and written[1] is not None and file_signature(path) == written[1]:
        try:
            return read_frontmatter(None if written[0] is None else written[0].decode("utf-8"))
        except (UnicodeDecodeError, FrontmatterError):
            return None
    try:
        with open(path, encoding="utf-8") as fh:
            return read_frontmatter(split_note(fh.read())[0])
    except (OSError, UnicodeDecodeError, FrontmatterError):
        return None


def _entry(name: str, meta: dict[str, Any], edited: bool) -> DigestEntry:
    title = str(meta.get("title") or "")
    gist = title
    for dash in (" — ", " – ", ": "):
        if title.startswith(name + dash):
            gist = title[len(name + dash):]
    if title == name:
        gist = ""
    concepts = [c for c in (meta.get("concepts") or []) if isinstance(c, str) and c.startswith("[[")][:3]
    line = f"- [[{name}]]" + (" (abstract edited)" if edited else "")
    if gist:
        line += f" — {_escape(gist)}"
    if concepts:
        line += " · " + ", ".join(concepts)
    collection = meta.get("collection")
    collection = collection if isinstance(collection, str) and collection.strip() else "Other papers"
    return DigestEntry(collection.strip(), name, line)


def _escape(text: str) -> str:
    try:
        from ..markdown import escape_markdown
    except ImportError:  # pragma: no cover - the Markdown module ships with vaultsync
        return re.sub(r"([\\`*_\[\]<>$#|]|%%)", r"\\\1", text)
    return escape_markdown(text)


# -- New papers.md ---------------------------------------------------------------------------
def _write_digest_note(vault: Path, entries: list[DigestEntry], today: dt.date, problems: list[str],
                       renamed: Mapping[str, str] = frozen_mapping(), gone: Iterable[str] = ()) -> bool:
    """Add ``entries`` to ``New papers.md``; links in it to notes ``renamed`` since (old name ->
    new) follow them, and links to notes ``gone`` become plain text."""
    from ..note_reading import find_region

    target = vault / DIGEST_NOTE
    signature = file_signature(target)
    existing = target.read_text("utf-8") if signature is not None else None
    region = None
    if existing is not None:
        span = find_region(existing)
        if span is not None:
            region = relink(span.text, renamed, gone)
            existing = span.reblessed(existing)  # the history is the user's to edit too
    if not entries and region is None:
        return False  # (only links to follow, and no digest to follow them in)
    body = digest_body(region, entries, today) if entries else region
    result = merge_note(existing, FRONTMATTER, body, FRONTMATTER.keys())
    if result.conflict:
        write_note_atomically(f"{CONFLICTS_DIR}/{DIGEST_NOTE}", result.proposed, vault=vault)
        problems.append(f"{DIGEST_NOTE}: not updated: {result.conflict}; vaultsync's version "
                        f"is in {CONFLICTS_DIR}/{DIGEST_NOTE}")
        return False
    if result.text == existing:
        return False
    write_note_atomically(DIGEST_NOTE, result.text, vault=vault, expect=signature)
    return True


def digest_body(region: str | None, entries: Iterable[DigestEntry], today: dt.date) -> str:
    """The digest region: the intro, today's section (old and new entries), then earlier days
    exactly as ``region`` has them."""
    global _last_body
    heading = f"## {today.isoformat()}"
    last, _last_body = _last_body, None  # (taken: ``today`` changes it)
    if last is not None and last[0] == heading and last[1] == region:
        today_, earlier = last[2], last[3]  # the parse of the body the last call made
    else:
        lines = (region or "").splitlines()
        starts = [i for i, line in enumerate(lines) if _DAY.match(line)] + [len(lines)]
        days = [(lines[a], lines[a + 1:b]) for a, b in zip(starts, starts[1:])]
        todays = next((block for head, block in days if head.strip() == heading), [])
        today_ = _Today(todays)
        earlier = ["\n".join([head, *block]).strip("\n") + "\n" for head, block in days if head.strip() != heading]
    parses_back = today_.add(entries)
    body = "\n".join([INTRO, today_.text(heading), *earlier])
    if parses_back:
        _last_body = heading, body, today_, earlier
    return body


# The last ``digest_body``: (heading, the body it made, today's section and the earlier days in
# it). The next call is given that body back (a watcher's next round: ``New papers.md`` as the
# digest left it), and then does not parse again the 20,000 lines of a big export's day; any
# other text is parsed. Kept only when the body parses back to the same section (see ``_Today.add``).
_last_body: tuple[str, str, "_Today", list[str]] | None = None


class _Today:
    """Today's section: its collections in order, each with its lines (the paper lines, and any
    other line the user left there), and the lines by the paper they link to (``entry_key``)."""

    def __init__(self, old: list[str]):
        self.lines: dict[str, list[str]] = {}  # collection -> its lines
        self.serials: dict[str, list[int]] = {}  # ... and each line's number
        self.by_key: dict[str | None, list[tuple[int, str]]] = {}  # key -> (number, collection)
        self.serial = 0
        current = None
        for line in old:
            found = _COLLECTION.match(line)
            if found:
                current = found.group(1)
                self.lines.setdefault(current, [])
                self.serials.setdefault(current, [])
            elif line.strip():
                self._append(current or "Other papers", line)

    def _append(self, collection: str, line: str) -> None:
        self.lines.setdefault(collection, []).append(line)
        self.serials.setdefault(collection, []).append(self.serial)
        self.by_key.setdefault(entry_key(line), []).append((self.serial, collection))
        self.serial += 1

    def add(self, entries: Iterable[DigestEntry]) -> bool:
        """Add ``entries``: once per day, the newer line replaces the older (lines are dropped by
        key, not rescanned). Returns whether ``text`` parses back to this section (no new line
        or collection name that the line split or the patterns would read otherwise)."""
        new_by_collection: dict[str, list[DigestEntry]] = {}
        for entry in entries:
            new_by_collection.setdefault(f"{entry.collection}", []).append(entry)
        dropped: dict[str, set[int]] = {}  # collection -> numbers of its lines dropped
        parses_back = True
        for collection, items in sorted(new_by_collection.items(), key=lambda kv: kv[0].casefold()):
            head = f"### {collection}"
            found = _COLLECTION.match(head)
            parses_back = parses_back and head.splitlines() == [head] and found and found.group(1) == collection
            for entry in sorted(items, key=lambda e: (e.paper.casefold(), e.paper)):
                for serial, where in self.by_key.pop(entry.paper.casefold(), ()):
                    dropped.setdefault(where, set()).add(serial)
                parses_back = parses_back and entry.line.splitlines() == [entry.line] and bool(
                    entry.line.strip()) and not _COLLECTION.match(entry.line) and not _DAY.match(entry.line)
                self._append(collection, entry.line)
        for collection, numbers in dropped.items():
            kept = [(n, line) for n, line in zip(self.serials[collection], self.lines[collection]) if n not in numbers]
            self.serials[collection] = [n for n, _ in kept]
            self.lines[collection] = [line for _, line in kept]
        for collection in [c for c, lines in self.lines.items() if not lines]:  # (not written: not read back)
            del self.lines[collection], self.serials[collection]
        return bool(parses_back)

    def text(self, heading: str) -> str:
        out = [heading, ""]
        for collection, lines in self.lines.items():
            if lines:
                out += [f"### {collection}", "", *lines, ""]
        return "\n".join(out).rstrip("\n") + "\n"


# -- seen ids --------------------------------------------------------------------------------
def _load_seen(vault: Path) -> set[str] | None:
    try:
        data = json.loads((vault / SEEN_FILE).read_text("utf-8"))
        return {str(i) for i in data.get("papers", [])}
    except (OSError, ValueError, AttributeError):
        return None


def _save_seen(vault: Path, seen: set[str] | None, report: SyncReport,
               ids: dict[str, str | None] | None = None) -> None:
    """Add the ids of the papers in ``report`` (``ids``: those already read) to ``seen``, and save it."""
    ids = {} if ids is None else ids
    for rel in (*report.created, *report.updated):
        if rel not in ids:
            head = note_head(str(vault / rel))
            ids[rel] = head.get("vaultsync_id") if head.get("type") == "paper" else None
    if seen is None:  # first digest: every paper now in the vault counts as seen
        seen = set(_vault_paper_ids(vault, ids))
    seen.update(i for i in ids.values() if i)
    text = _seen_text(sorted(seen))
    target = vault / SEEN_FILE
    if not seen and not target.exists():
        return  # no paper notes here (another format's output): leave no trace
    if not target.exists() or target.read_text("utf-8") != text:
        write_note_atomically(SEEN_FILE, text, vault=vault)


def _seen_text(ids: list[str]) -> str:
    """``json.dumps({"papers": ids}, indent=0) + "\\n"``, made by the C encoder (with an indent
    json encodes in Python: 20,000 ids every round)."""
    if not ids:
        return '{\n"papers": []\n}\n'
    return '{\n"papers": [\n' + json.dumps(ids, separators=(",\n", ": "))[1:-1] + "\n]\n}\n"


def _vault_paper_ids(vault: Path, known: Mapping[str, str | None]) -> Iterable[str]:
    """The id of every paper note in the vault; ``known`` (vault-relative path -> id) are not read."""
    for folder, dirs, files in os.walk(vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel_folder = os.path.relpath(folder, vault)
        for name in files:
            if name.endswith(".md") and not name.startswith("."):
                rel = name if rel_folder == "." else f"{rel_folder}/{name}".replace(os.sep, "/")
                if rel in known:
                    continue
                head = note_head(os.path.join(folder, name))
                if head.get("type") == "paper" and head.get("vaultsync_id"):
                    yield head["vaultsync_id"]


def append_to_daily_note(vault: Path, lines: list[str], today: dt.date) -> str | None:
    """``daily_note.append_lines`` under the line that points to ``New papers.md``."""
    return append_lines(vault, lines, today, heading=f"New papers (see [[{DIGEST_NOTE[:-3]}]]):")


# -- the plugin ------------------------------------------------------------------------------
@hookimpl
def vaultsync_sync_finished(report: SyncReport, vault: Path, config: Mapping[str, Any]) -> None:
    """After each sync: update ``New papers.md`` (and today's daily note with ``[digest] daily``)."""
    daily = (config.get("digest") or {}).get("daily", False) is True
    result = update_digest(Path(vault), report, daily=daily)
    for problem in result.problems:
        log.warning("%s", problem)
