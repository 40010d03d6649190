"""The built-in seed reader: a text file whose first line names the collection, then one
abstract per paragraph (paragraphs separated by blank lines, possibly wrapped over lines)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Iterator

from ..decoding import open_seed_text
from ..hookspecs import hookimpl
from ..records import Abstract, Collection, Seed

SEED_SUFFIXES = (".txt", ".md")
MAX_ABSTRACT_CHARS = 20_000  # a longer paragraph is not an abstract
MIN_ABSTRACT_WORDS = 8  # a shorter paragraph is a stray line (a page number, a heading)
MAX_HEADER_CHARS = 150

# A venue is a name with a capital letter (ICML, NeurIPS, CoRL, AAAI-26 is written "AAAI 2026")
# right before a year. The rest of the header may be in any language.
_VENUE = re.compile(
    r"(?<![\w-])([A-Z][A-Za-z&+.-]*[A-Z][\w&+.-]*|[A-Z][a-z]*[A-Z][\w&+.-]*)"
    r"[\s'’-]*((?:19|20)\d\d)(?!\d)"
)
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
# A header may also be written as fields, one a line: `venue: ICML 2026`, `year: 2026`, `name: …`.
_HEADER_FIELD = re.compile(r"(collection|name|title|venue|year)\s*:\s*(\S.*)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?。]\s*$")


def parse_collection(header: str) -> Collection:
    """`ICML 2026 Papers` -> Collection("ICML 2026 Papers", venue "ICML 2026", year 2026)."""
    header = " ".join(header.split())
    match = _VENUE.search(header)
    if match:
        year = int(match.group(2))
        return Collection(header, f"{match.group(1).strip()} {year}", year)
    year_match = _YEAR.search(header)
    return Collection(header, None, int(year_match.group(1)) if year_match else None)


def collection_from_fields(fields: dict[str, str]) -> Collection:
    """`venue: ICML 2026` -> Collection("ICML 2026", venue "ICML 2026", year 2026); `name:` (or
    `collection:`, `title:`) names it, `year:` adds the year the venue does not say."""
    fields = {key.lower(): " ".join(value.split()) for key, value in fields.items()}
    name = fields.get("name") or fields.get("collection") or fields.get("title")
    venue = fields.get("venue")
    year_match = _YEAR.fullmatch(fields.get("year", ""))
    year = int(year_match.group(1)) if year_match else None
    if venue:
        found = parse_collection(venue if year is None or str(year) in venue else f"{venue} {year}")
        venue = found.venue or (venue if year is None or str(year) in venue else f"{venue} {year}")
        year = year or found.year
    if name is None:
        return Collection(venue or str(year), venue, year)
    found = parse_collection(name)
    return Collection(name, venue or found.venue, year or found.year)


def collection_from_file_name(relative: str) -> Collection:
    """A seed without a header line is named by its file: `neurips_2025.txt` -> `neurips 2025`."""
    stem = Path(relative).stem
    name = " ".join(re.sub(r"[_]+", " ", stem).split()) or stem
    found = parse_collection(name.upper() if name.islower() else name)
    return Collection(name, found.venue, found.year)


def _paragraphs(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, list[str], int]]:
    """Group lines into paragraphs: (first line number, stripped lines, characters in all).

    A paragraph past ``MAX_ABSTRACT_CHARS`` keeps counting but stops keeping lines, so a huge
    file without blank lines streams through in bounded memory."""
    start, block, size = 0, [], 0
    for number, line in lines:
        line = line.strip()
        if line:
            if not size:
                start = number
            size += len(line) + 1
            if size <= MAX_ABSTRACT_CHARS + 1:
                block.append(line)
        elif size:
            yield start, block, size
            block, size = [], 0
    if size:
        yield start, block, size


def _join(lines: list[str]) -> str:
    text = lines[0]
    for line in lines[1:]:
        # a word hyphenated at a line break keeps its hyphen and loses the break
        text += line if text.endswith("-") and text[-2:-1].isalpha() else " " + line
    return " ".join(text.split())


def _is_header(block: list[str]) -> bool:
    first = block[0]
    # a header is a short name, not a sentence; a one-line abstract must not be taken for it
    return len(first) <= MAX_HEADER_CHARS and len(first.split()) <= 15 and not _SENTENCE_END.search(first)


def parse_seed_lines(
    lines: Iterable[tuple[int, str]], relative: str, problems: list[str], display: str | None = None
) -> Seed:
    """Read numbered lines of a seed file into a Seed; problems are appended to ``problems``.

    ``display`` names the file in messages (default: the relative path)."""
    display = display or relative
    collection = None
    abstracts: list[Abstract] = []
    skipped = 0  # paragraphs already reported: the file then needs no second message
    for start, block, size in _paragraphs(lines):
        if collection is None:
            fields = [_HEADER_FIELD.fullmatch(line) for line in block]
            taken = next((i for i, m in enumerate(fields) if m is None), len(block))
            if taken:
                collection = collection_from_fields({m.group(1): m.group(2) for m in fields[:taken]})
            elif _is_header(block):
                collection = parse_collection(block[0])
                taken = 1
            if taken:
                size -= sum(len(line) + 1 for line in block[:taken])
                block = block[taken:]
                start += taken
                if not block:
                    continue
            else:
                collection = collection_from_file_name(relative)
        if size > MAX_ABSTRACT_CHARS + 1:
            problems.append(
                f"{display} line {start}: a paragraph of {size:,} characters is not an abstract; "
                "skipped it (separate abstracts with blank lines)"
            )
            skipped += 1
            continue
        text = _join(block)  # words joined by single spaces
        if text.count(" ") + 1 < MIN_ABSTRACT_WORDS:
            problems.append(f"{display} line {start}: {text[:40]!r} is too short for an abstract; skipped it")
            skipped += 1
            continue
        abstracts.append(Abstract(text, relative, len(abstracts) + 1, start, collection))
    if collection is None:
        collection = collection_from_file_name(relative)
    if not abstracts and not skipped:
        problems.append(no_abstracts(display))
    # Abstracts hold the collection they were read under; a header-less file names all the same.
    return Seed(relative, collection, tuple(abstracts), tuple(problems))


def no_abstracts(display: str) -> str:
    return f"{display}: holds no abstracts; add one paragraph per abstract after the header line"


@hookimpl(trylast=True)
def vaultsync_read_seed(path: Path, relative: str) -> Seed | None:
    if path.suffix.lower() not in SEED_SUFFIXES:
        return None
    decoded = open_seed_text(path, str(path))
    problems: list[str] = []
    seed = parse_seed_lines(decoded.lines, relative, problems, str(path))
    # decoding problems are only known once every line was read; a line too long to read is
    # why a file holds no abstracts, not a second problem
    problems = [p for p in seed.problems if not (decoded.skipped_lines and p == no_abstracts(str(path)))]
    return Seed(seed.path, seed.collection, seed.abstracts, tuple(decoded.problems) + tuple(problems))
