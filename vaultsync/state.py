"""What vaultsync last wrote into a vault, cached in SQLite **outside** the vault.

The vault is the source of truth; this is a cache. Sync tools corrupt live databases inside
synced folders, so the database lives in the user's state directory
(``platformdirs.user_state_dir("vaultsync")``, or ``$VAULTSYNC_STATE_DIR``), one file per vault,
named by a hash of the vault's resolved path. Delete it and the next run rebuilds it from the
notes' ``vaultsync_id``s (only "which notes did the user delete" is forgotten).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

import platformdirs

from .state_db import StateDamaged, StateDatabase

_SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    key TEXT PRIMARY KEY,          -- vaultsync_id, or 'path:' + path for files without one
    path TEXT NOT NULL,            -- vault-relative, POSIX
    kind TEXT,
    content_sha TEXT,              -- sha256 of the bytes last written or seen
    region_sha TEXT,
    input_sha TEXT,                -- hash of the OutputFile that produced content_sha
    owned_keys TEXT,               -- JSON list of the frontmatter keys vaultsync wrote
    signature TEXT,                -- JSON [inode, size, mtime_ns] after the write
    proposed TEXT                  -- JSON of the properties the user may edit too, as vaultsync wrote them
);
CREATE TABLE IF NOT EXISTS seeds (path TEXT PRIMARY KEY, sha TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS papers (
    id TEXT NOT NULL, seed TEXT NOT NULL, paragraph INTEGER, text TEXT,
    PRIMARY KEY (id, seed)
);
-- a sync forgets the papers of each seed file it read: without this, one scan of the table per
-- seed file (1,000 files of 20,000 papers: 4.9 s; with it 0.25 s)
CREATE INDEX IF NOT EXISTS papers_by_seed ON papers (seed);
CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, value BLOB);
CREATE TABLE IF NOT EXISTS extractions (   -- what the extractors found in an abstract, pickled
    id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS rendered (      -- a note's render inputs, and the input_sha they gave
    key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, inputs_key TEXT NOT NULL, input_sha TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS conversions (   -- an abstract's Markdown, by hash of (text, links)
    key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, markdown TEXT NOT NULL
);
"""


def state_dir() -> Path:
    """Where state databases live: ``$VAULTSYNC_STATE_DIR`` or the platform's user state dir."""
    return Path(os.environ.get("VAULTSYNC_STATE_DIR") or platformdirs.user_state_dir("vaultsync"))


def forget_vault(vault: str | os.PathLike, directory: str | os.PathLike) -> None:
    """Delete what the state folder records of ``vault`` (its database and journal): a vault
    folder that is gone or empty is a new vault, and what was recorded of the old one (notes it
    had, notes its user deleted) must not apply to it."""
    key = vault_key(vault)
    for path in Path(directory).glob(f"{key}.*"):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def vault_key(vault: str | os.PathLike) -> str:
    """The name of a vault's state files: a hash of its resolved path."""
    return hashlib.sha256(str(Path(vault).resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:24]


@dataclass(frozen=True)
class NoteRecord:
    """One file as vaultsync last wrote (or saw) it."""

    key: str
    path: str
    kind: str | None = None
    content_sha: str | None = None
    region_sha: str | None = None
    input_sha: str | None = None
    owned_keys: tuple[str, ...] = ()
    signature: tuple[int, int, int] | None = None
    proposed: str | None = None  # ``property_merge.proposal``: the base of the next three-way merge

    @property
    def vaultsync_id(self) -> str | None:
        return None if self.key.startswith("path:") else self.key


@dataclass(frozen=True)
class PaperRecord:
    """Where an abstract was and what it said (normalised), for matching edited abstracts."""

    id: str
    seed: str
    paragraph: int
    text: str


class State:
    """The state database of one vault. Writes are grouped with ``transaction()``.

    Every SQLite failure is a ``StateError`` (a ``VaultsyncError``) saying what to do. A damaged
    database is moved aside and replaced by an empty one (unless ``repair`` is False): found on
    opening, ``repaired`` says so and the run goes on; found later, ``StateDamaged`` is raised.
    """

    def __init__(self, vault: str | os.PathLike, directory: str | os.PathLike | None = None,
                 repair: bool = True):
        folder = Path(directory) if directory is not None else state_dir()
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{vault_key(vault)}.sqlite"
        # the notes table, decoded: read before every sync and scan of a long watch; this
        # process is the vault's only writer (the lock), so it changes only through put/delete
        self._notes: dict[str, NoteRecord] | None = None
        self._ids: set[str] | None = None  # ``note_ids``, kept with ``_notes``
        self._places: dict[str, dict[str, int]] | None = None  # ``paper_table``: kept as ``_notes`` is
        self._db = StateDatabase(self.path, _SCHEMA, repair, on_replaced=self._forget)
        self.repaired: StateDamaged | None = self._db.repaired
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(notes)")}
        if "proposed" not in columns:  # a state written before vaultsync merged the user's properties
            self._db.execute("ALTER TABLE notes ADD COLUMN proposed TEXT")

    def _forget(self) -> None:
        self._notes = self._ids = self._places = None

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        # IMMEDIATE: the write lock is taken now, so a state another program holds is found
        # before a single note is written, not after the notes were renamed into place
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            self._db.rollback_quietly()
            self._forget()  # what was put since BEGIN is undone
            raise

    # notes ------------------------------------------------------------------------------
    def notes(self) -> dict[str, NoteRecord]:
        """key -> record of every note vaultsync wrote (a copy: the caller may change it)."""
        if self._notes is None:
            rows = self._db.execute("SELECT * FROM notes")
            self._notes = {r[0]: _note(r) for r in rows}
        return dict(self._notes)

    def note_ids(self) -> set[str]:
        """The ``vaultsync_id`` of every note vaultsync wrote (the keys not of a path)."""
        if self._notes is None:
            self.notes()
        if self._ids is None:
            self._ids = {key for key in self._notes if key and not key.startswith("path:")}
        return set(self._ids)

    def put_note(self, rec: NoteRecord) -> None:
        # (a sync puts every note it writes: tuples are kept as they are, and the columns'
        # JSON is made without the json module where it is plain)
        owned, sig = rec.owned_keys, rec.signature
        if self._notes is not None:  # as the table would give it back
            if type(owned) is not tuple or (sig and type(sig) is not tuple):
                rec = replace(rec, owned_keys=tuple(owned), signature=tuple(sig) if sig else None)
            self._notes[rec.key] = rec
            if self._ids is not None and rec.key and not rec.key.startswith("path:"):
                self._ids.add(rec.key)
        self._db.execute(
            "INSERT OR REPLACE INTO notes VALUES (?,?,?,?,?,?,?,?,?)",
            (rec.key, rec.path, rec.kind, rec.content_sha, rec.region_sha, rec.input_sha,
             _owned_json(tuple(owned)), _signature_json(sig) if sig else None, rec.proposed),
        )

    def delete_note(self, key: str) -> None:
        if self._notes is not None:
            self._notes.pop(key, None)
            if self._ids is not None:
                self._ids.discard(key)
        self._db.execute("DELETE FROM notes WHERE key = ?", (key,))

    # seeds ------------------------------------------------------------------------------
    def seed_hash(self, seed: str) -> str | None:
        rows = self._db.execute("SELECT sha FROM seeds WHERE path = ?", (seed,))
        return rows[0][0] if rows else None

    def put_seed_hash(self, seed: str, sha: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO seeds VALUES (?, ?)", (seed, sha))

    # papers -----------------------------------------------------------------------------
    def papers(self) -> list[PaperRecord]:
        rows = self._db.execute("SELECT id, seed, paragraph, text FROM papers ORDER BY seed, paragraph")
        return [PaperRecord(*r) for r in rows]

    def paper_places(self) -> list[tuple[str, str, int]]:
        """(id, seed, paragraph) of every paper, as ``papers`` orders them, without their texts
        (the texts of 20,000 abstracts are most of the table)."""
        return self._db.execute("SELECT id, seed, paragraph FROM papers ORDER BY seed, paragraph")

    def paper_table(self) -> dict[str, dict[str, int]]:
        """seed -> {id: paragraph} of every paper (``paper_places`` as a mapping; the caller must
        not change it). Read once, then kept as ``replace_papers`` changes the table: a watcher's
        round compares the places of all 20,000 papers with its own (reading them: ~35 ms)."""
        if self._places is None:
            places: dict[str, dict[str, int]] = {}
            for i, seed, paragraph in self._db.execute("SELECT id, seed, paragraph FROM papers"):
                places.setdefault(seed, {})[i] = paragraph
            self._places = places
        return self._places

    def seeds_of(self, ids: Iterable[str]) -> dict[str, str]:
        """id -> seed of these papers (of an id in several seeds, the last as ``papers`` orders them)."""
        ids, found = list(ids), {}
        for start in range(0, len(ids), 400):  # SQLite caps the parameters of one statement
            chunk = ids[start:start + 400]
            found.update(self._db.execute(f"SELECT id, seed FROM papers WHERE id IN ({','.join('?' * len(chunk))})"
                                          " ORDER BY seed, paragraph", chunk))
        return found

    def paper_seeds(self) -> set[str]:
        """The seeds of the papers (from the index by seed)."""
        return {row[0] for row in self._db.execute("SELECT DISTINCT seed FROM papers")}

    def papers_at(self, keys: Iterable[tuple[str, str]]) -> list[PaperRecord]:
        """The papers of these (id, seed) keys, as ``papers`` orders them."""
        keys, found = list(keys), []
        for start in range(0, len(keys), 400):  # SQLite caps the parameters of one statement
            chunk = keys[start:start + 400]
            rows = self._db.execute("SELECT id, seed, paragraph, text FROM papers WHERE (id, seed) IN "
                                    f"(VALUES {','.join(['(?, ?)'] * len(chunk))})",
                                    [v for key in chunk for v in key])
            found += [PaperRecord(*r) for r in rows]
        return sorted(found, key=lambda p: (p.seed, p.paragraph))

    def replace_papers(self, seeds: Iterable[str], papers: Iterable[PaperRecord],
                       forget_ids: Iterable[str] = ()) -> None:
        """Forget the papers of ``seeds`` and the ids ``forget_ids``, then store ``papers``."""
        seeds, forget_ids, papers = list(seeds), set(forget_ids), list(papers)
        self._db.executemany("DELETE FROM papers WHERE seed = ?", [(s,) for s in seeds])
        self._db.executemany("DELETE FROM papers WHERE id = ?", [(i,) for i in forget_ids])
        self._db.executemany("INSERT OR REPLACE INTO papers VALUES (?,?,?,?)",
                             [(p.id, p.seed, p.paragraph, p.text) for p in papers])
        if self._places is not None:  # the same changes, in the same order (a later paper of an (id, seed) wins)
            for seed in seeds:
                self._places.pop(seed, None)
            if forget_ids:
                for rows in self._places.values():
                    for i in forget_ids.intersection(rows):
                        del rows[i]
            for p in papers:
                self._places.setdefault(p.seed, {})[p.id] = p.paragraph

    # extraction cache -----------------------------------------------------------------------
    def extractions(self, fingerprint: str, ids: Iterable[str] | None = None) -> dict[str, bytes]:
        """The cached extractions made under ``fingerprint`` (the extractors and their inputs):
        every one, or those of the abstracts ``ids``."""
        if ids is None:
            rows = self._db.execute("SELECT id, data FROM extractions WHERE fingerprint = ?", (fingerprint,))
            return {row[0]: bytes(row[1]) for row in rows}
        found = {}
        ids = list(ids)
        for start in range(0, len(ids), 500):  # SQLite caps the parameters of one statement
            chunk = ids[start:start + 500]
            rows = self._db.execute(f"SELECT id, data FROM extractions WHERE fingerprint = ? AND id IN "
                                    f"({','.join('?' * len(chunk))})", (fingerprint, *chunk))
            found.update((row[0], bytes(row[1])) for row in rows)
        return found

    def put_extractions(self, fingerprint: str, items: Iterable[tuple[str, bytes]], keep: Iterable[str]) -> None:
        """Store new extractions; forget those of abstracts not in ``keep`` or of another fingerprint."""
        self._db.execute("CREATE TEMP TABLE IF NOT EXISTS live (id TEXT PRIMARY KEY)")
        self._db.execute("DELETE FROM live")
        self._db.executemany("INSERT OR IGNORE INTO live VALUES (?)", [(i,) for i in keep])
        self._db.execute("DELETE FROM extractions WHERE fingerprint != ? OR id NOT IN (SELECT id FROM live)",
                         (fingerprint,))
        self._db.executemany("INSERT OR REPLACE INTO extractions VALUES (?, ?, ?)",
                             [(i, fingerprint, data) for i, data in items])

    def add_extractions(self, fingerprint: str, items: Iterable[tuple[str, bytes]]) -> None:
        """Store new extractions, forgetting nothing (``put_extractions`` does that)."""
        self._db.executemany("INSERT OR REPLACE INTO extractions VALUES (?, ?, ?)",
                             [(i, fingerprint, data) for i, data in items])

    def move_extractions(self, old: str, new: str, ids: Iterable[str]) -> None:
        """File the extractions of ``ids`` cached under fingerprint ``old`` under ``new``."""
        ids = list(ids)
        for start in range(0, len(ids), 500):  # SQLite caps the parameters of one statement
            chunk = ids[start:start + 500]
            self._db.execute(f"UPDATE extractions SET fingerprint = ? WHERE fingerprint = ? AND id IN "
                             f"({','.join('?' * len(chunk))})", (new, old, *chunk))

    def conversions(self, fingerprint: str) -> dict[str, str]:
        """Every abstract's Markdown cached under ``fingerprint`` (the code that converts it)."""
        rows = self._db.execute("SELECT key, markdown FROM conversions WHERE fingerprint = ?", (fingerprint,))
        return dict(rows)

    def put_conversions(self, fingerprint: str, items: Iterable[tuple[str, str]], keep: Iterable[str]) -> None:
        """Store new conversions; forget those not in ``keep`` or of another fingerprint."""
        self._db.execute("CREATE TEMP TABLE IF NOT EXISTS live_conversions (key TEXT PRIMARY KEY)")
        self._db.execute("DELETE FROM live_conversions")
        self._db.executemany("INSERT OR IGNORE INTO live_conversions VALUES (?)", [(k,) for k in keep])
        self._db.execute("DELETE FROM conversions WHERE fingerprint != ? OR key NOT IN "
                         "(SELECT key FROM live_conversions)", (fingerprint,))
        self._db.executemany("INSERT OR REPLACE INTO conversions VALUES (?, ?, ?)",
                             [(k, fingerprint, markdown) for k, markdown in items])

    def rendered(self, fingerprint: str) -> dict[str, tuple[str, str]]:
        """note key -> (inputs key, input_sha) of the notes rendered under ``fingerprint`` (the
        code, format and config that render them)."""
        rows = self._db.execute("SELECT key, inputs_key, input_sha FROM rendered WHERE fingerprint = ?",
                                (fingerprint,))
        return {key: (inputs, sha) for key, inputs, sha in rows}

    def rendered_one(self, fingerprint: str, key: str) -> tuple[str, str] | None:
        """``rendered(fingerprint).get(key)``, for a run that asks about a few notes."""
        rows = self._db.execute("SELECT inputs_key, input_sha FROM rendered WHERE fingerprint = ? AND key = ?",
                                (fingerprint, key))
        return tuple(rows[0]) if rows else None

    def put_rendered(self, fingerprint: str, items: Iterable[tuple[str, str, str]]) -> None:
        """Store (note key, inputs key, input_sha) rows; forget those of another fingerprint."""
        self._db.execute("DELETE FROM rendered WHERE fingerprint != ?", (fingerprint,))
        self._db.executemany("INSERT OR REPLACE INTO rendered VALUES (?, ?, ?, ?)",
                             [(key, fingerprint, inputs, sha) for key, inputs, sha in items])

    # free-form cache for other stages (e.g. extraction results) ---------------------------
    def get_blob(self, key: str) -> bytes | None:
        rows = self._db.execute("SELECT value FROM blobs WHERE key = ?", (key,))
        return bytes(rows[0][0]) if rows else None

    def put_blob(self, key: str, value: bytes) -> None:
        self._db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (key, value))


def _note(row: tuple) -> NoteRecord:
    key, path, kind, content, region, inp, owned, sig, proposed = row
    return NoteRecord(key, path, kind, content, region, inp, _owned_keys(owned) if owned else (),
                      _signature(sig) if sig else None, proposed)


@lru_cache(maxsize=1024)  # most notes of a kind own the same keys
def _owned_keys(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


@lru_cache(maxsize=1024)  # most notes of a kind own the same keys
def _owned_json(keys: tuple[str, ...]) -> str:
    return json.dumps(list(keys))


def _signature_json(signature) -> str:
    """``json.dumps(list(signature))``: integers written directly (one per note written)."""
    if len(signature) == 3 and all(type(n) is int for n in signature):
        return f"[{signature[0]}, {signature[1]}, {signature[2]}]"
    return json.dumps(list(signature))


def _signature(text: str) -> tuple:
    """``put_note``'s JSON list of integers, read back (30,000 of them before every sync)."""
    try:
        return tuple(map(int, text[1:-1].split(",")))
    except ValueError:  # not what put_note wrote
        return tuple(json.loads(text))
