"""How an extraction is stored in the extraction cache and sent back by a pool's workers."""

from __future__ import annotations

import marshal
import pickle
import sys
from itertools import starmap
from operator import attrgetter
from typing import Any

from .records import ConceptMention, Extracted, Extraction, PaperName, frozen_mapping, mention_from_fields

# An extraction is cached as plain tuples, marshalled ("M"), when it is made only of the usual
# records and values; otherwise (a plugin's own types) as a pickle ("P"). Loading 20,000
# marshalled records and building their objects takes a third of the time unpickling the
# dataclasses did. The tag names the layout and the Python version (marshal's format is
# Python's own): a record of another layout or version is not decoded but extracted again.
_LAYOUT = f"vaultsync-extraction-2/{sys.version_info[0]}.{sys.version_info[1]}"
# The fields of a ConceptMention, in order; a mention with other fields is pickled.
_MENTION_FIELDS = ("name", "kind", "surfaces", "aliases", "score", "broader", "canonical")
_mention_values = attrgetter(*_MENTION_FIELDS)


def _plain_mention(mention: ConceptMention) -> bool:
    return type(mention) is ConceptMention  # (a subclass may have fields of its own)


def encode_extraction(facts: Any) -> bytes:
    if (type(facts) is Extracted and type(facts.extraction) is Extraction and type(facts.name) is PaperName
            and all(_plain_mention(m) for m in facts.extraction.concepts)):
        extraction, name = facts.extraction, facts.name
        record = (_LAYOUT, tuple(_mention_values(m) for m in extraction.concepts), extraction.paper_aliases,
                  dict(extraction.metadata), (name.title, name.name, name.aliases, name.gist), facts.problems)
        try:
            return b"M" + marshal.dumps(record)
        except ValueError:  # a value marshal does not know (a plugin's metadata): pickle it all
            pass
    return b"P" + pickle.dumps(facts, pickle.HIGHEST_PROTOCOL)


def decode_extraction(data: bytes, shared: "Sharing | None" = None) -> Any:
    """The extraction ``_encode`` stored, or None when it cannot be read back (another layout,
    another version of a record): the abstract is then extracted again. With ``shared``, equal
    mentions and strings decoded before are the same objects (see ``Sharing``)."""
    try:
        if data[:1] == b"P":
            return pickle.loads(data[1:])
        if data[:1] != b"M":
            return None
        layout, mentions, paper_aliases, metadata, (title, name, aliases, gist), problems = marshal.loads(data[1:])
        if layout != _LAYOUT:
            return None
        if shared is None:
            concepts = tuple(starmap(mention_from_fields, mentions))
        else:
            concepts, paper_aliases = tuple(map(shared.mention, mentions)), shared.strings(paper_aliases)
        extraction = Extraction(concepts, paper_aliases, frozen_mapping(metadata))
        return Extracted(extraction, PaperName(title, name, aliases, gist), problems)
    except Exception:
        return None


class Sharing:
    """One copy of each concept mention, string and tuple of strings that decoded extractions
    repeat. Abstracts name the same concepts, kinds and aliases again and again, but each
    record decodes to its own copies: 20,000 abstracts bring some 600,000 mentions of which
    430,000 differ, and 800,000 strings of which 90,000 differ. Sharing them makes the
    extractions, alive until the link stage is done, a third smaller."""

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

    def mention(self, fields: tuple) -> ConceptMention:
        """The mention of these fields (``_MENTION_FIELDS``' values, as marshalled)."""
        found = self._mentions.get(fields)
        if found is None:
            name, kind, surfaces, aliases, score, broader, canonical = fields
            one, strings = self.one, self.strings
            key = (one(name), one(kind), strings(surfaces), strings(aliases), score, strings(broader), canonical)
            found = self._mentions[key] = mention_from_fields(*key)  # the key holds the shared copies only
        return found
