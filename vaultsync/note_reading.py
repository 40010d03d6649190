"""A note read as Obsidian reads it: its generated region, the links in its body and
properties, and what in its properties Obsidian would misread (for ``doctor`` and the digest)."""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable

from .regions import BEGIN_LINE, END_LINE, begin_marker, marker_lines


# -- generated regions -----------------------------------------------------------------------


@dataclass(frozen=True)
class RegionSpan:
    """Where a note's one generated region is: character offsets into the note's text."""

    begin: int  # start of the begin marker line
    start: int  # start of the region's content
    end: int  # start of the end marker line
    after_end: int  # just after the end marker line (and its newline)
    sha: str | None  # the hash in the begin marker
    text: str  # the region's content

    def reblessed(self, note: str) -> str:
        """``note`` with the begin marker's hash set to the region as it is now."""
        eol = "\r\n" if note[self.begin:self.start].endswith("\r\n") else "\n"
        return note[:self.begin] + begin_marker(self.text) + eol + note[self.start:]


def find_region(text: str) -> RegionSpan | None:
    """The note's generated region, or ``None`` unless there is exactly one begin marker line
    followed by exactly one end marker line (the rule ``regions.merge_note`` applies)."""
    begins, ends = marker_lines(BEGIN_LINE, text), marker_lines(END_LINE, text)
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        return None
    begin, end = begins[0], ends[0]
    start = text.index("\n", begin.start()) + 1
    after = text.find("\n", end.start())
    after = len(text) if after < 0 else after + 1
    return RegionSpan(begin.start(), start, end.start(), after, begin.group("sha") or None,
                      text[start:end.start()])


def has_markers(text: str) -> bool:
    return "%% vaultsync:" in text and bool(marker_lines(BEGIN_LINE, text) or marker_lines(END_LINE, text))


# -- links -----------------------------------------------------------------------------------
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MASKS = (re.compile(r"(`+)(?:(?!\1).)+?\1", re.S), re.compile(r"\$\$.+?\$\$", re.S),
          re.compile(r"(?<![\\$])\$(?!\s)[^$\n]+?(?<![\s\\])\$(?!\d)"), re.compile(r"%%.*?%%", re.S))
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")


def link_key(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def mask_code_and_math(body: str) -> str:
    """``body`` with fenced code, inline code, math and ``%% comments %%`` blanked out (same
    length), so links in them are not counted, as Obsidian does not count them."""
    lines, fence = body.split("\n"), None
    for i, line in enumerate(lines):
        found = _FENCE.match(line)
        if fence:
            if found and found.group(1)[0] == fence[0] and len(found.group(1)) >= len(fence):
                fence = None
            lines[i] = " " * len(line)
        elif found:
            fence, lines[i] = found.group(1), " " * len(line)
    text = "\n".join(lines)
    for pattern in _MASKS:
        text = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return text


def link_targets(body: str) -> list[str]:
    """The note names ``[[links]]`` and ``![[embeds]]`` point to: ``|alias``, ``#heading`` and
    ``^block`` dropped, links in code and math ignored. ``""`` is a link into the note itself."""
    out = []
    for found in _WIKILINK.finditer(mask_code_and_math(body)):
        target = found.group(1).split("|", 1)[0].rstrip("\\")
        out.append(target.split("#", 1)[0].strip())
    return out


class LinkResolver:
    """Resolves link targets the way Obsidian does: by file name or by path (from the vault
    root, relative to the note, or a path suffix); case-insensitive; ``.md`` optional."""

    def __init__(self, files: Iterable[str]):
        self.paths: set[str] = set()
        self.names: set[str] = set()
        for rel in files:
            key = link_key(rel)
            self.paths.add(key)
            self.names.add(posixpath.basename(key))
            if key.endswith(".md"):
                self.paths.add(key[:-3])
                self.names.add(posixpath.basename(key[:-3]))

    def resolves(self, target: str, source: str = "") -> bool:
        if not target:
            return True
        key = link_key(target).lstrip("/")
        if "/" not in key:
            return key in self.names
        relative = posixpath.normpath(posixpath.join(posixpath.dirname(link_key(source)), key))
        return (key in self.paths or relative in self.paths
                or any(p.endswith("/" + key) for p in self.paths))


# -- properties ------------------------------------------------------------------------------
_TAG_BAD = set("!\"#$%&'()*+,.:;<=>?@[\\]^`{|}~")
_LIST_KEYS = ("tags", "aliases", "cssclasses")


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "number"
    return "text" if isinstance(value, str) else type(value).__name__


def _unquoted_link(value: Any) -> bool:
    """YAML reads an unquoted ``[[Note]]`` as a list holding a one-item list."""
    return (isinstance(value, list) and len(value) == 1 and isinstance(value[0], list)
            and len(value[0]) == 1 and not isinstance(value[0][0], (list, dict)))


def tag_problem(tag: Any) -> str | None:
    """Why Obsidian would not accept ``tag`` as a tag, or ``None``."""
    if not isinstance(tag, str):
        return f"{tag!r} is {_kind(tag)}, not text"
    tag = tag.strip().removeprefix("#")
    if not tag:
        return "an empty tag"
    bad = sorted({c for c in tag if c in _TAG_BAD or c.isspace()})
    if bad:
        return f"tag {tag!r} contains {' '.join(repr(c) for c in bad)}"
    if all(c.isdigit() or c == "/" for c in tag):
        return f"tag {tag!r} has no letter"
    return None


def property_problems(frontmatter: dict[str, Any]) -> list[tuple[str, str]]:
    """(check, message) for each property Obsidian's Properties view cannot show as written."""
    problems = []
    for key, value in frontmatter.items():
        if _unquoted_link(value):
            problems.append(("property-unquoted-link", f"{key}: [[{value[0][0]}]] needs quotes"))
        elif isinstance(value, dict):
            problems.append(("property-nested", f"{key}: a nested list of properties"))
        elif isinstance(value, list):
            kinds = set()
            for item in value:
                if _unquoted_link(item):
                    problems.append(("property-unquoted-link", f"{key}: [[{item[0][0]}]] needs quotes"))
                elif isinstance(item, (list, dict)):
                    problems.append(("property-nested", f"{key}: a {type(item).__name__} inside a list"))
                else:
                    kinds.add(_kind(item))
            if len(kinds) > 1 and key not in _LIST_KEYS:
                problems.append(("property-mixed-list", f"{key}: mixes {', '.join(sorted(kinds))}"))
        if key in ("tags", "tag") and value is not None:
            tags = value.split(",") if isinstance(value, str) else value
            if not isinstance(tags, list):
                problems.append(("property-tags", f"{key} is {_kind(value)}; it must be a list of tags"))
            else:
                problems += [("property-tags", why) for why in map(tag_problem, tags) if why]
        if key in ("aliases", "cssclasses") and value is not None and not (
                isinstance(value, list) and all(isinstance(x, str) and x.strip() for x in value)):
            problems.append(("property-aliases", f"{key} must be a list of text"))
    return problems


PROPERTY_FIX = {
    "property-unquoted-link": 'Write the link in quotes: key: "[[Note]]".',
    "property-nested": "Flatten it: one property per value, or a list of plain values.",
    "property-mixed-list": "Make every item of the list the same kind (all text, or all numbers).",
    "property-tags": "Use a list of tags without spaces or punctuation (letters, digits, - _ /).",
    "property-aliases": "Write it as a list of names, one per line starting with '- '.",
}


def frontmatter_links(frontmatter: dict[str, Any]) -> list[str]:
    """Targets of the quoted ``"[[links]]"`` among property values (Obsidian resolves them)."""
    values = [v for value in frontmatter.values()
              for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]
    return [t for v in values if v.startswith("[[") and v.endswith("]]") for t in link_targets(v)]
