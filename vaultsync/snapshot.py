"""Stage 1b, scan: what the vault says before a run, read once into a frozen ``VaultSnapshot``.

The seeds say what the papers are; the vault says what the user made of the notes: the names
they carry (kept), the notes the user deleted (not recreated), the concept notes the user wrote
or edited (lessons for the extractors, names for the link). ``scan`` reads all of it in one
step, after the seeds are read (an abstract edited in its seed is matched to its old note here),
and hands it forward: ``extract`` reads the lessons, ``link`` the names. No stage asks the vault
again; only the sync, which writes, goes back to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Iterable, Mapping

from .canonical import concept_key
from .records import Abstract, TaughtConcept, frozen_mapping
from .renames import names_to_follow
from .sync import VaultSession
from .teaching import taught_concepts, user_concept_notes


@dataclass(frozen=True)
class VaultSnapshot:
    """The vault as a run found it (see the module docstring)."""

    # vaultsync_id -> the stem of its note, as the vault names it now (an edited abstract's new
    # id -> its old note's; notes that are to take their rendered names are not here)
    names: Mapping[str, str] = field(default_factory=frozen_mapping)
    deleted: frozenset[str] = frozenset()  # ids of notes vaultsync wrote that the user deleted
    # concept key -> the stem of a concept note the user wrote (no ``vaultsync_id``)
    user_concepts: Mapping[str, str] = field(default_factory=frozen_mapping)
    taught: tuple[TaughtConcept, ...] = ()  # what the user's concept notes teach, stable order


def scan(session: VaultSession, abstracts: Iterable[Abstract], remember_lessons: bool = True) -> VaultSnapshot:
    """Read what the vault says about this run's ``abstracts`` (the seeds as just read).

    Matches abstracts edited in their seed to their old notes, and tells the ``session`` which
    notes take new names (named from undecodable text that is now fixed; a collection whose
    header was fixed), so that its writes follow. ``remember_lessons``: store what edited
    concept notes taught in the vault (not in a dry run)."""
    abstracts = list(abstracts)
    user_notes = user_concept_notes(session.root, session.note_paths())
    taught = taught_concepts(session, remember=remember_lessons, user_notes=user_notes)
    names = dict(session.existing_names())
    places = list(map(attrgetter("id", "seed", "paragraph", "text"), abstracts))  # (20,000 every round)
    for new_id, old_id in session.match_edited(places).items():
        if old_id in names:
            names[new_id] = names[old_id]
    # names read from undecodable text are not the user's: once the text is fixed, the notes
    # are named afresh (and renamed by the sync)
    papers, collections = names_to_follow(abstracts, names, session.note_kinds(), session.edited_from)
    session.follow_names(papers, renamed_from=collections)
    for vid in (*papers, *collections.values()):
        names.pop(vid, None)
    return VaultSnapshot(
        names=frozen_mapping(names),
        deleted=frozenset(session.deleted_ids()),
        user_concepts=frozen_mapping({concept_key(lesson.name): stem for stem, lesson in user_notes}),
        taught=taught,
    )
