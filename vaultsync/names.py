"""Note names that are safe on every file system Obsidian runs on, and unique within a folder.

Modelled on Obsidian Importer's ``sanitizeFileName`` (``src/util.ts``): NFC, no characters that
file systems or wiki links reject, no hidden or trailing-dot names, no Windows device names, a
byte cap, and collisions decided the way macOS and Windows decide them (case-insensitively,
NFC/NFD-insensitively).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable, Iterator

FALLBACK_NAME = "Untitled"
MIN_BYTES = 16

# `:` reads as a subtitle separator; slashes and pipes as alternatives.
_COLON = re.compile(r"\s*:+\s*")
_SLASH_SEGMENTS = re.compile(r"[/\\]")
_PIPE = re.compile(r"\s*\|\s*")
_DROPPED = re.compile(r'[*<>?#^\[\]]')
_PERCENTS = re.compile(r"%{2,}")
# Zero-width and bidirectional-override characters: invisible in a file list, a spoofing risk.
_INVISIBLE = re.compile("[\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_SPACES = re.compile(r"\s+")
_EDGE_SEPARATORS_END = re.compile(r"(?:\s+-)+$")
_EDGE_SEPARATORS_START = re.compile(r"^(?:-\s+)+")
# Windows device names, alone or with any extension; superscript digits count too.
_WINDOWS_RESERVED = re.compile(
    r"^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(\s*(?:\..*)?)$",
    re.IGNORECASE | re.DOTALL,
)


def _is_removed_char(char: str) -> bool:
    category = unicodedata.category(char)
    # Cc: control characters; Cs: lone surrogates (not encodable); Zl/Zp become spaces below.
    return category in ("Cc", "Cs") and not char.isspace()


def _strip_edges(name: str) -> str:
    """Remove what may not start (a dot: hidden) or end (a dot or space: Windows) a name."""
    while True:
        before = name
        name = name.strip()
        name = name.lstrip(".").rstrip(". ")
        name = _EDGE_SEPARATORS_END.sub("", name)
        name = _EDGE_SEPARATORS_START.sub("", name)
        if name == before:
            return name


def _cut_to_bytes(name: str, max_bytes: int) -> str:
    """At most ``max_bytes`` UTF-8 bytes, cut at a word boundary when one is near the end,
    never inside a code point nor before a combining mark."""
    if len(name.encode("utf-8")) <= max_bytes:
        return name
    size = 0
    end = 0
    for index, char in enumerate(name):
        size += len(char.encode("utf-8"))
        if size > max_bytes:
            break
        end = index + 1
    # Keep a base character together with the marks that follow it.
    while end > 0 and end < len(name) and unicodedata.combining(name[end]):
        end -= 1
    cut = name[:end]
    if end < len(name) and not name[end].isspace():
        space = cut.rfind(" ")
        if space >= end // 2:
            cut = cut[:space]
    return cut


# A name made of printable ASCII without any character the rules below change, and without an
# edge they strip, is already safe: most names are, and linking 20,000 papers asks for ~100,000.
_UNSAFE_ASCII = re.compile(r'[^ -~]|[*"\\/<>:|?#^\[\]]|%%|  |^[ .]|^- |[ .]$| -$')


def _already_safe(text: object, max_bytes: int) -> bool:
    return (type(text) is str and text.isascii() and 0 < len(text) <= max_bytes
            and _UNSAFE_ASCII.search(text) is None and _WINDOWS_RESERVED.match(text) is None)


def _make_not_reserved(name: str) -> str:
    return _WINDOWS_RESERVED.sub(r"\1_\2", name)


def safe_note_name(text: str, max_bytes: int = 200) -> str:
    """A note name (file stem) for ``text`` that Obsidian and every file system accept.

    The result is NFC; contains no control characters and none of ``* " \\ / < > : | ? # ^ [ ]``
    (``:`` becomes `` - ``, ``/``, ``\\`` and ``|`` become ``-``, ``"`` becomes ``'``, the rest
    are dropped), no ``%%`` (an Obsidian comment); does not start with a dot or end with a dot
    or space; has whitespace collapsed to single spaces; is not a Windows device name (``CON``
    becomes ``CON_``); is at most ``max_bytes`` UTF-8 bytes; and is never empty (``Untitled``).
    Path segments made only of dots are dropped, so ``../../x`` becomes ``x``.
    It is idempotent: ``safe_note_name(safe_note_name(x)) == safe_note_name(x)``.
    Raises ``ValueError`` when ``max_bytes`` is below 16.
    """
    if max_bytes < MIN_BYTES:
        raise ValueError(f"max_bytes must be at least {MIN_BYTES}, not {max_bytes}")
    if _already_safe(text, max_bytes):
        return text
    name = unicodedata.normalize("NFC", str(text))
    name = "".join(" " if char.isspace() else char for char in name if not _is_removed_char(char))
    name = _INVISIBLE.sub("", name)
    segments = [part for part in _SLASH_SEGMENTS.split(name) if part.strip(". ")]
    name = "-".join(part.strip() for part in segments)
    name = _COLON.sub(" - ", name)
    name = _PIPE.sub("-", name)
    name = name.replace('"', "'")
    name = _DROPPED.sub("", name)
    name = _PERCENTS.sub("%", name)
    name = _SPACES.sub(" ", name)
    for _ in range(8):  # each rule can expose another (a cut ends in a dot, a strip leaves CON)
        before = name
        name = unicodedata.normalize("NFC", name)
        name = _strip_edges(name)
        name = _make_not_reserved(name)
        name = _cut_to_bytes(name, max_bytes)
        if name == before:
            break
    return name or FALLBACK_NAME


def name_key(name: str) -> str:
    """The key two note names collide on: NFC and case-folded (as on macOS and Windows)."""
    if name.isascii():
        return name.lower()  # the same for ASCII (already NFC; case-folds as it lower-cases)
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


_SMALL_WORDS = {"a", "an", "the", "of", "for", "to", "in", "on", "with", "and", "or", "by", "via"}


def _short_hint(hint: str, max_chars: int = 60) -> str:
    hint = _SPACES.sub(" ", hint).strip(" ,;:.")
    if len(hint) <= max_chars:
        return hint
    words = hint[:max_chars + 1].split(" ")
    words = words[:-1] if len(words) > 1 else [hint[:max_chars]]
    while len(words) > 1 and words[-1].casefold() in _SMALL_WORDS:
        words.pop()  # `... paradigm for` reads as cut off
    return " ".join(words).rstrip(" ,;:.")


class NameRegistry:
    """Hands out unique, safe note names within one folder, deterministically.

    ``claim("PRISM", hints=("geodesic representation learning",))`` returns ``PRISM`` the first
    time; a second paper also called PRISM gets ``PRISM (geodesic representation learning)``
    from its first hint that is still free (hints are cut to 60 characters at a word, and a
    leading repeat of the name, as in a title ``PRISM — ...``, is dropped), and only when no
    hint helps ``PRISM (2)``, ``PRISM (3)``, ... Two names never collide under
    :func:`name_key`. The same claims in the same order give the same names.
    """

    def __init__(self, max_bytes: int = 200) -> None:
        self.max_bytes = max_bytes
        self._taken: set[str] = set()
        # base name -> the last number it was given: names are only ever taken, never freed, so
        # every lower number is still taken (1,000 papers named alike would otherwise cost
        # 500,000 candidates)
        self._last_number: dict[str, int] = {}

    def copy(self) -> "NameRegistry":
        """A registry with the same names taken, to claim more without changing this one."""
        other = NameRegistry(self.max_bytes)
        other._taken = set(self._taken)
        other._last_number = dict(self._last_number)
        return other

    def reserve(self, name: str) -> None:
        """Mark ``name`` as taken (a note that already exists), as written on disk."""
        self._taken.add(name_key(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name_key(name) in self._taken

    def _with_suffix(self, base: str, suffix: str) -> str:
        room = max(self.max_bytes - len(suffix.encode("utf-8")), 0)
        stem = _strip_edges(_cut_to_bytes(base, room))
        return safe_note_name(stem + suffix if stem else suffix.strip(), self.max_bytes)

    def _candidates(self, base: str, hints: Iterable[str]) -> Iterator[str]:
        yield base
        for hint in hints:
            if hint[:len(base)].casefold() == base.casefold():
                hint = hint[len(base):].lstrip(" —–-:,")  # a title `PRISM — a ...` repeats the name
            hint = safe_note_name(_short_hint(hint), self.max_bytes) if hint.strip() else ""
            if hint and name_key(hint) != name_key(base):
                yield self._with_suffix(base, f" ({hint})")

    def claim(self, name: str, hints: Iterable[str] = ()) -> str:
        """A safe form of ``name`` that no earlier claim or reservation holds; now taken."""
        base = safe_note_name(name, self.max_bytes)
        for candidate in self._candidates(base, hints):  # lazily: most names are free at once
            key = name_key(candidate)
            if key not in self._taken:
                self._taken.add(key)
                return candidate
        number = self._last_number.get(base, 1) + 1
        while True:
            candidate = self._with_suffix(base, f" ({number})")
            key = name_key(candidate)
            if key not in self._taken:
                self._taken.add(key)
                self._last_number[base] = number
                return candidate
            number += 1
