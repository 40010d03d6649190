"""The small immutable records that flow through the pipeline.

read -> ``Seed`` of ``Abstract``s; extract -> one ``Extraction`` per abstract (merged from every
extractor plugin); link -> a ``VaultModel`` of ``Paper``s, ``Concept``s and ``CollectionInfo``s;
render -> ``OutputFile``s; write -> a ``SyncReport``.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Protocol


@lru_cache(maxsize=1 << 16)  # an abstract's id and its edit matching ask for the same text
def normalise_text(text: str) -> str:
    """The form of an abstract that identifies it: NFC, case-folded, whitespace collapsed."""
    # str.split() cuts at exactly the characters the regex \s matches (str.isspace), 3x faster
    # than collapsing them with a regex substitution (20,000 abstracts are hashed every run)
    return " ".join(unicodedata.normalize("NFC", text).split()).casefold()


def text_id(text: str) -> str:
    """A stable id for an abstract: the same text gives the same id in any seed file."""
    return hashlib.sha256(normalise_text(text).encode("utf-8")).hexdigest()[:16]


class FrozenMapping(Mapping[str, Any]):
    """A read-only mapping that pickles (records cross process pools and the extraction cache as
    pickles; a ``types.MappingProxyType`` does not)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, Any] | None = None) -> None:
        self._items = dict(items or {})

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: str, default: Any = None) -> Any:
        return self._items.get(key, default)

    def __reduce__(self):
        return (FrozenMapping, (self._items,))

    def __repr__(self) -> str:
        return f"FrozenMapping({self._items!r})"


def frozen_mapping(items: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    return FrozenMapping(items)


@dataclass(frozen=True)
class Collection:
    """What a seed file's header line names: `ICML 2026 Papers` -> venue `ICML 2026`, year 2026."""

    name: str
    venue: str | None = None
    year: int | None = None


@dataclass(frozen=True)
class Abstract:
    """One paragraph of a seed file: one paper."""

    text: str  # as the author wrote it, wrapped lines joined by single spaces
    seed: str  # seed file name, relative to the seeds folder (POSIX separators)
    paragraph: int  # 1-based number of this abstract within its seed file
    line: int  # 1-based line of the seed file where the paragraph starts
    collection: Collection

    @cached_property  # hashing the normalised text is costly and every stage asks for it
    def id(self) -> str:
        return text_id(self.text)


@dataclass(frozen=True)
class Seed:
    """A seed file read into abstracts. ``problems`` are one-line, user-facing warnings."""

    path: str  # relative to the seeds folder (POSIX separators)
    collection: Collection
    abstracts: tuple[Abstract, ...]
    problems: tuple[str, ...] = ()


class ConceptMention(NamedTuple):  # ~30 per abstract: a tuple is the smallest and quickest record to build
    """A concept an extractor found in one abstract.

    ``name`` is the extractor's best long form ("Mixture-of-Experts"); ``surfaces`` are the
    exact spellings found in the text, used to place the inline ``[[link|as written]]``;
    ``aliases`` are other names it knows (an acronym, a vocabulary alias).
    """

    name: str
    kind: str  # "acronym", "vocabulary", "phrase", or a plugin's own kind
    surfaces: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    score: float = 1.0  # salience within this abstract; higher is more important
    broader: tuple[str, ...] = ()  # broader concept names, when the extractor knows them
    canonical: bool = False  # True when ``name`` is already the canonical spelling (vocabulary)


def mention_from_fields(name: str, kind: str, surfaces: tuple[str, ...], aliases: tuple[str, ...], score: float,
                        broader: tuple[str, ...], canonical: bool) -> ConceptMention:
    """``ConceptMention(name, kind, ...)`` from its fields in order (the extraction cache and the
    pool's results rebuild mentions this way)."""
    return ConceptMention(name, kind, surfaces, aliases, score, broader, canonical)


@dataclass(frozen=True)
class Extraction:
    """What one or all extractors found in one abstract.

    ``paper_aliases`` are names the paper coins for itself (its method, a coined acronym and
    its expansion); ``metadata`` adds frontmatter properties (scalars or tuples of strings).
    """

    concepts: tuple[ConceptMention, ...] = ()
    paper_aliases: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=frozen_mapping)

    @staticmethod
    def merge(parts: Iterable["Extraction"]) -> "Extraction":
        concepts: list[ConceptMention] = []
        aliases: list[str] = []
        metadata: dict[str, Any] = {}
        for part in parts:
            concepts.extend(part.concepts)
            if part.paper_aliases:  # (most parts have neither: no generator or loop to start)
                aliases.extend(a for a in part.paper_aliases if a not in aliases)
            if part.metadata:
                for key, value in part.metadata.items():
                    metadata.setdefault(key, value)
        return Extraction(tuple(concepts), tuple(aliases), frozen_mapping(metadata))


@dataclass(frozen=True)
class PaperName:
    """What a paper is called. ``name`` is the method/benchmark name as written (or None)."""

    title: str  # "AVI-Bench — a benchmark for audio-visual intelligence of Omni-MLLMs"
    name: str | None = None  # "AVI-Bench"
    aliases: tuple[str, ...] = ()  # the name's expansion and other spellings
    gist: str = ""  # one line saying what the paper does, for lists


@dataclass(frozen=True)
class Extracted:
    """What the extract stage knows about one abstract."""

    extraction: Extraction
    name: PaperName
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class Concept:
    """A shared concept note."""

    name: str  # canonical Title Case name; also the note's file stem
    id: str = ""  # vaultsync_id: stable, from the concept's matching key
    aliases: tuple[str, ...] = ()
    broader: tuple[str, ...] = ()  # names of broader concepts (that exist in the model)
    narrower: tuple[str, ...] = ()
    papers: tuple[str, ...] = ()  # paper ids, in the model's paper order
    kind: str = "concept"
    user_note: bool = False  # the user wrote this concept's note: link to it, never write it


@dataclass(frozen=True)
class Paper:
    """A paper note, fully linked."""

    abstract: Abstract
    name: str  # unique, file-name-safe note stem
    title: str
    gist: str
    aliases: tuple[str, ...]
    concepts: tuple[str, ...]  # concept names, most specific first
    links: tuple[tuple[str, str], ...]  # (surface as written, concept name) for inline links
    urls: tuple[str, ...] = ()
    related: tuple[str, ...] = ()  # paper ids, most related first
    related_shares: tuple[str, ...] = ()  # what each related paper shares with this one ("Offline RL, Flow Matching")
    metadata: Mapping[str, Any] = field(default_factory=frozen_mapping)
    # broad concepts the paper belongs to (`Large Language Models`): filed under, not about
    fields: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.abstract.id


@dataclass(frozen=True)
class CollectionInfo:
    """A collection note: one per collection name."""

    name: str  # note stem
    collection: Collection
    papers: tuple[str, ...]  # paper ids in seed order


@dataclass(frozen=True)
class VaultModel:
    """Everything the link stage knows; what formats render."""

    papers: tuple[Paper, ...]
    concepts: tuple[Concept, ...]
    collections: tuple[CollectionInfo, ...]
    # papers the notes refer to (as related papers) that are not part of this model's output:
    # a preview of new papers names older ones
    referenced: tuple[Paper, ...] = ()
    # what the stages work out of the model once and ask again (papers by id, the relatedness
    # index, canvas layouts): filled on first use, never part of what the model says
    # (not an argument: a model made by ``dataclasses.replace`` starts with none of the old ones)
    caches: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    def paper(self, paper_id: str) -> Paper:
        return self._papers_by_id()[paper_id]

    def paper_ids(self) -> frozenset[str]:
        """The ids of ``papers`` (not of ``referenced``): a set made once (a watcher asks at
        every new seed file)."""
        cache = self.caches.get("paper_ids")
        if cache is None:
            cache = self.caches["paper_ids"] = frozenset(p.id for p in self.papers)
        return cache

    def collection_of(self, paper_id: str) -> "CollectionInfo":
        """The first collection listing the paper (a dict built once: renderers ask per paper)."""
        cache = self.caches.get("collection_by_id")
        if cache is None:
            cache = self.caches["collection_by_id"] = {}
            for collection in self.collections:
                for pid in collection.papers:
                    cache.setdefault(pid, collection)
        return cache[paper_id]

    def _papers_by_id(self) -> dict[str, Paper]:
        cache = self.caches.get("by_id")
        if cache is None:
            cache = self.caches["by_id"] = {p.id: p for p in (*self.referenced, *self.papers)}
        return cache


@dataclass(frozen=True)
class OutputFile:
    """One file a format wants in the output folder.

    ``path`` is relative to the output root with POSIX separators. Markdown notes give
    ``frontmatter`` (the keys vaultsync owns, in order) and ``body`` (the generated region); the
    sync engine merges them with what the user wrote. ``vaultsync_id`` lets the engine find a
    note the user renamed or moved. Files with ``merge=False`` are owned whole by vaultsync.
    """

    path: str
    body: str
    frontmatter: Mapping[str, Any] | None = None
    vaultsync_id: str | None = None
    kind: str = "note"  # "paper", "concept", "collection", "index", "data", ...
    merge: bool = True


@dataclass(frozen=True)
class DeferredNote:
    """A note named before it is rendered, so the sync can find it unchanged without rendering it.

    ``inputs_key`` is a digest of everything the rendering reads: the same key (under the same
    code, format and config) renders the same ``OutputFile``. ``render()`` gives that file; its
    ``path``, ``vaultsync_id`` and ``kind`` are the ones here. A format yields these only when
    ``RenderContext.may_defer`` says so; whoever receives one and needs the note calls ``render()``.
    """

    path: str
    vaultsync_id: str
    kind: str
    inputs_key: str
    render: Callable[[], OutputFile]


class OutputFormat(Protocol):
    """An output format registered through ``vaultsync_register_formats``."""

    name: str
    description: str

    def render(self, model: VaultModel, context: "RenderContext") -> Iterable[OutputFile]: ...


@dataclass(frozen=True)
class RenderContext:
    """What a format may need besides the model: options, and a way to ask plugins for a note."""

    options: Mapping[str, Any] = field(default_factory=frozen_mapping)
    render_note: Callable[[Any, str, VaultModel], OutputFile | None] | None = None
    # the format may yield ``DeferredNote``s: the sync asks for it, and no plugin renders a note
    # in the format's place (the inputs a plugin reads cannot be known)
    may_defer: bool = False
    # the notes that may render differently from what the last successful run wrote (None: all
    # may); given only to a format that declares ``supports_render_changes``, which then yields
    # only these -- the others are in the vault as they should be, and count as given
    changes: "RenderChanges | None" = None


@dataclass(frozen=True)
class RenderChanges:
    """Which notes of a model may render differently from the notes of the model that the last
    successful run wrote (``pipeline.render_changes`` works it out, once per run).

    A paper's note: its record changed (not equal), it is new, its collection's name changed, or
    a paper it lists as related changed its name or gist -- or the user touched its note since
    (``touched``). A concept's or a collection's note: its record changed, or a paper it lists
    changed its name or gist (or touched). The index and the maps: ``index``, ``maps``. Ids not
    here render as they rendered last time: a format that declares ``supports_render_changes``
    may leave them out, and the sync then counts them as given (never marked removed)."""

    papers: frozenset[str] = frozenset()  # paper ids
    concepts: frozenset[str] = frozenset()  # concept ids
    collections: frozenset[str] = frozenset()  # collection note stems (``CollectionInfo.name``)
    index: bool = True
    maps: bool = True  # the maps: ``Maps/All concepts.canvas`` and, of the collections' ...
    collection_maps: frozenset[str] | None = None  # ... those of these collections (None: all)

    def renders(self, subject: Any) -> bool:
        """``subject``'s note (a ``Paper``, ``Concept`` or ``CollectionInfo``) may differ."""
        if isinstance(subject, Paper):
            return subject.id in self.papers
        if isinstance(subject, Concept):
            return subject.id in self.concepts
        if isinstance(subject, CollectionInfo):
            return subject.name in self.collections
        return True


@dataclass(frozen=True)
class SyncReport:
    """What a sync did. Every list holds vault-relative paths or one-line messages."""

    papers: int = 0
    concepts: int = 0
    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    unchanged: int = 0
    conflicts: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()  # notes marked `status: removed`
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    seeds: tuple[str, ...] = ()  # seed files read in this run
    # note name -> its new name, for the notes renamed since the last sync (by the user, or by
    # vaultsync: a name that follows fixed text); and the names of notes the user deleted since
    # vaultsync wrote them: links to them in what vaultsync keeps as history are rewritten
    renamed: Mapping[str, str] = field(default_factory=frozen_mapping)
    gone: tuple[str, ...] = ()
    # path -> (frontmatter YAML, as ``split_note`` finds it, in UTF-8, or None; the note's file
    # signature just after): what the sync wrote into each note created or updated, so that a
    # hook (the digest) need not read the notes back; a note whose signature changed since was
    # edited meanwhile, and must be read. Canvases and other whole files are not in it.
    written: Mapping[str, tuple[bytes | None, tuple[int, int, int] | None]] = field(
        default_factory=frozen_mapping, compare=False, repr=False)

    def followed_by(self, then: "SyncReport") -> "SyncReport":
        """This sync and ``then`` as one report (a watcher's preview and its full run): a note
        created by the first is created."""
        created = dict.fromkeys(self.created + then.created)
        return replace(then, created=tuple(created), updated=tuple(p for p in then.updated if p not in created),
                       renamed=frozen_mapping({**self.renamed, **then.renamed}),
                       gone=tuple(sorted(set(self.gone) | set(then.gone))),
                       conflicts=self.conflicts + then.conflicts, errors=self.errors + then.errors,
                       warnings=self.warnings + then.warnings, written=frozen_mapping({**self.written, **then.written}))


@dataclass(frozen=True)
class TaughtConcept:
    """A concept as the user named it in a concept note they created or edited."""

    name: str
    aliases: tuple[str, ...] = ()
    broader: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExtractContext:
    """What extractors may consult besides the abstract: the target vault, the concepts its
    user taught (see ``vaultsync.teaching``), and the config, one section per plugin name."""

    vault: str | None = None  # absolute path of the vault being written, if any
    config: Mapping[str, Mapping[str, Any]] = field(default_factory=frozen_mapping)
    taught: tuple[TaughtConcept, ...] = ()

    def options(self, plugin: str) -> Mapping[str, Any]:
        return self.config.get(plugin, frozen_mapping())
