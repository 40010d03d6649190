"""The `logseq` output format: a Logseq graph's `pages/` folder.

Logseq keeps page properties as ``key:: value`` lines at the top of the file (no YAML), links
as ``[[Page]]`` (``[as written]([[Page]])`` for a label), and names files from the page title
with its ``:triple-lowbar`` file-name format (see :func:`logseq_file_name`).

Pages share one namespace there (case-insensitive), unlike the vault's Papers/ and Concepts/
folders, so a paper whose name is also a concept's gets the page ``<name> (paper)``; every page
says its name in ``title::`` so a link finds it whatever the file-name escaping does.
Logseq has no comment syntax to fence a generated region, so pages are ``merge=False``: owned
whole by vaultsync and rewritten on each export (a user's notes belong on their own pages).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Iterable
from urllib.parse import quote

from ..hookspecs import hookimpl
from ..latex import is_safe_url
from ..logseq_text import escape_logseq, logseq_markdown
from ..records import CollectionInfo, Concept, OutputFile, Paper, RenderContext, VaultModel

PAGES = "pages"

# Logseq's frontend.common.file.util: characters reserved on some platform, URL-encoded.
_RESERVED = re.compile(r'[:*?"<>|#\\]+')
_URL_ENCODED = re.compile(r"%[0-9a-fA-F]{2}")
_WINDOWS_RESERVED = {"CON", "PRN", "AUX", "NUL"} | {f"{d}{n}" for d in ("COM", "LPT") for n in range(1, 10)}
_KEY_CHARS = re.compile(r"[^a-z0-9-]+")


def logseq_file_name(title: str) -> str:
    """The file stem Logseq gives page ``title`` (``:file/name-format :triple-lowbar``).

    NFC; one leading/trailing ``/`` dropped; an existing ``%XX`` gets its ``%`` encoded;
    ``: * ? " < > | # \\`` URL-encoded; Windows device names and a trailing ``.`` marked with a
    trailing ``/``; then ``_`` next to a slash or in ``___`` encoded as ``%5F`` and ``/``
    (a namespace) written ``___``. ``Foo/Bar: baz`` -> ``Foo___Bar%3A baz``.
    """
    name = unicodedata.normalize("NFC", title)
    name = name[1:] if name.startswith("/") else name
    name = name[:-1] if name.endswith("/") else name
    name = _URL_ENCODED.sub(lambda m: "%25" + m.group()[1:], name)
    name = _RESERVED.sub(lambda m: quote(m.group(), safe=""), name)
    if name in _WINDOWS_RESERVED or name.endswith("."):
        name += "/"
    for ambiguous in ("___", "_/", "/_"):
        name = name.replace(ambiguous, ambiguous.replace("_", "%5F"))
    return name.replace("/", "___")


def page_path(title: str) -> str:
    return f"{PAGES}/{logseq_file_name(title)}.md"


def link(title: str) -> str:
    return f"[[{title}]]"


def _one_line(value: Any) -> str:
    return " ".join(str(value).split())


def _page_list(titles: Iterable[str]) -> str:
    """A property value Logseq reads as page references whatever its commas."""
    return ", ".join(link(_one_line(t)) for t in titles)


def _alias_list(aliases: Iterable[str]) -> str:
    # Logseq splits `alias::` on commas, and reads `#x` or `[[x]]` in it as references: an alias
    # with a comma, or anything mldoc could misread, is bracketed
    return ", ".join(link(a) if "," in a or escape_logseq(a) != a else a for a in map(_one_line, aliases))


def _text(value: Any) -> Any:
    """A free-text property value (a title, a venue, a plugin's metadata) as mldoc reads it
    literally: no `#tag`, page reference or HTML in it. A web address is kept as it is: Logseq
    links it."""
    if isinstance(value, str):
        return value if is_safe_url(value) else escape_logseq(_one_line(value))
    if isinstance(value, (tuple, list)):
        return [_text(v) for v in value]
    return value


def property_lines(properties: dict[str, Any]) -> list[str]:
    """``key:: value`` lines, skipping empty values; tuples and lists joined with ``, ``."""
    lines = []
    for key, value in properties.items():
        if isinstance(value, (tuple, list)):
            value = ", ".join(_one_line(v) for v in value)
        if value is None or value == "":
            continue
        lines.append(f"{key}:: {_one_line(value)}")
    return lines


def block(text: str, indent: int = 0) -> list[str]:
    """One Logseq block per paragraph of ``text``; wrapped lines continue the block."""
    lines = []
    prefix = "\t" * indent
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        rows = paragraph.splitlines() or [""]
        lines.append(f"{prefix}- {rows[0]}")
        lines.extend(f"{prefix}  {row}" for row in rows[1:])
    return lines


class PageNames:
    """Logseq page titles for every note of a model, unique case-insensitively."""

    def __init__(self, model: VaultModel) -> None:
        taken: set[str] = set()
        self.concepts: dict[str, str] = {}
        self.collections: dict[str, str] = {}
        self.papers: dict[str, str] = {}

        def claim(title: str, suffix: str) -> str:
            candidate, number = title, 1
            while candidate.casefold() in taken:
                number += 1
                candidate = f"{title} ({suffix})" if number == 2 else f"{title} ({suffix} {number})"
            taken.add(candidate.casefold())
            return candidate

        for concept in model.concepts:
            self.concepts[concept.name] = claim(concept.name, "concept")
        for collection in model.collections:
            self.collections[collection.name] = claim(collection.name, "collection")
        for paper in model.papers:
            self.papers[paper.id] = claim(paper.name, "paper")
        self._claimed_aliases = set(taken)

    def aliases(self, aliases: Iterable[str]) -> list[str]:
        """Aliases no other page or alias has: Logseq would merge the two pages otherwise."""
        kept = []
        for alias in aliases:
            key = _one_line(alias).casefold()
            if key and key not in self._claimed_aliases:
                self._claimed_aliases.add(key)
                kept.append(alias)
        return kept


def abstract_blocks(paper: Paper, names: PageNames) -> list[str]:
    """The abstract as a Logseq block, concept mentions linked the Logseq way."""
    from ..markdown import abstract_to_markdown

    return block(logseq_markdown(abstract_to_markdown(paper.abstract.text, paper.links), names.concepts.get))


def render_paper(paper: Paper, model: VaultModel, names: PageNames) -> OutputFile:
    abstract = paper.abstract
    title = names.papers[paper.id]
    collection = next((c for c in model.collections if paper.id in c.papers), None)
    properties: dict[str, Any] = {
        "title": title,
        "type": "paper",
        "full-title": _text(paper.title),
        "alias": _alias_list(names.aliases(paper.aliases)),
        "tags": _page_list([names.collections[collection.name]] if collection else []),
        "venue": _text(abstract.collection.venue),
        "year": abstract.collection.year,
        "concepts": _page_list(names.concepts[c] for c in paper.concepts if c in names.concepts),
        "fields": _page_list(names.concepts[f] for f in paper.fields if f in names.concepts),
        "related": _page_list(names.papers[r] for r in paper.related if r in names.papers),
        "urls": paper.urls,
        "source": _text(f"{abstract.seed}, paragraph {abstract.paragraph}"),
        "vaultsync-id": paper.id,
    }
    for key, value in paper.metadata.items():
        key = _KEY_CHARS.sub("-", key.lower().replace("_", "-")).strip("-")
        if key and isinstance(value, (str, int, float, tuple, list)):
            properties.setdefault(key, _text(value))
    lines = property_lines(properties) + [""] + abstract_blocks(paper, names)
    return OutputFile(page_path(title), "\n".join(lines) + "\n", None, paper.id, "paper", merge=False)


def _paper_item(paper: Paper, names: PageNames) -> str:
    gist = escape_logseq(_one_line(paper.gist))
    return f"{link(names.papers[paper.id])} — {gist}" if gist else link(names.papers[paper.id])


def render_concept(concept: Concept, model: VaultModel, names: PageNames) -> OutputFile:
    title = names.concepts[concept.name]
    properties = {
        "title": title,
        "type": "concept",
        "alias": _alias_list(names.aliases(concept.aliases)),
        "broader": _page_list(names.concepts[b] for b in concept.broader if b in names.concepts),
        "narrower": _page_list(names.concepts[n] for n in concept.narrower if n in names.concepts),
        "vaultsync-id": concept.id,
    }
    papers = [model.paper(p) for p in concept.papers if p in names.papers]
    lines = property_lines(properties) + ["", f"- Papers ({len(papers)})"]
    lines += [f"\t- {_paper_item(paper, names)}" for paper in papers]
    return OutputFile(page_path(title), "\n".join(lines) + "\n", None, concept.id or None,
                      "concept", merge=False)


def render_collection(collection: CollectionInfo, model: VaultModel, names: PageNames) -> OutputFile:
    info = collection.collection
    title = names.collections[collection.name]
    properties = {
        "title": title,
        "type": "collection",
        "venue": _text(info.venue),
        "year": info.year,
    }
    papers = [model.paper(p) for p in collection.papers if p in names.papers]
    lines = property_lines(properties) + ["", f"- Papers ({len(papers)})"]
    lines += [f"\t- {_paper_item(paper, names)}" for paper in papers]
    return OutputFile(page_path(title), "\n".join(lines) + "\n", None, None, "collection", merge=False)


class LogseqFormat:
    name = "logseq"
    description = "A Logseq graph: pages/ with key:: value properties and [[links]]."

    def render(self, model: VaultModel, context: RenderContext) -> Iterable[OutputFile]:
        names = PageNames(model)
        for subject in (*model.concepts, *model.collections, *model.papers):
            rendered = context.render_note(subject, self.name, model) if context.render_note else None
            if rendered is not None:
                yield rendered
            elif isinstance(subject, Paper):
                yield render_paper(subject, model, names)
            elif isinstance(subject, Concept):
                yield render_concept(subject, model, names)
            else:
                yield render_collection(subject, model, names)


@hookimpl
def vaultsync_register_formats(register) -> None:
    register(LogseqFormat())
