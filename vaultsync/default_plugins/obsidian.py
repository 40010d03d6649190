"""The `obsidian` output format (the default): paper, concept, collection and index notes.

Frontmatter holds only scalars and flat lists of strings, links quoted as `"[[…]]"`, so
Obsidian's Properties view shows it cleanly. The body returned here is the generated region;
the sync engine wraps it in `%% vaultsync:begin %%` markers and keeps the user's text around it.
"""

from __future__ import annotations

import hashlib
import marshal
from functools import lru_cache, partial
from typing import Iterable

from slugify import slugify

from ..hookspecs import hookimpl
from ..link import collection_id
from ..records import CollectionInfo, Concept, DeferredNote, OutputFile, Paper, RenderContext, VaultModel

PAPERS, CONCEPTS, COLLECTIONS = "Papers", "Concepts", "Collections"
INDEX = "Index.md"


def link(name: str, label: str | None = None) -> str:
    return f"[[{name}|{label}]]" if label and label != name else f"[[{name}]]"


@lru_cache(maxsize=4096)  # a handful of venues, asked by every paper and collection note
def venue_tag(venue: str | None) -> str | None:
    """`ICML 2026` -> `icml-2026`: a valid Obsidian tag (it has a non-numeric character)."""
    tag = slugify(venue or "")
    return tag if tag and not tag.replace("-", "").isdigit() else None


def _gist_line(paper: Paper) -> str:
    return _list_line(paper.name, paper.gist)


@lru_cache(maxsize=65_536)  # a paper is listed in every concept note it names: escape it once
def _list_line(name: str, gist: str) -> str:
    from ..markdown import escape_markdown

    return f"- {link(name)} — {escape_markdown(gist)}" if gist else f"- {link(name)}"


def _shares(paper: Paper) -> tuple[str, ...]:
    """What each related paper shares with ``paper`` ("" where a plugin's model does not say)."""
    shares = paper.related_shares
    return shares if len(shares) == len(paper.related) else ("",) * len(paper.related)


def _related_line(name: str, shares: str) -> str:
    """`- [[Other paper]] — shares Offline RL, Flow Matching`: why the paper is listed."""
    return f"- {link(name)} — shares {_escaped_shares(shares)}" if shares else f"- {link(name)}"


@lru_cache(maxsize=65_536)  # a few concept lists recur in most related lines: escape each once
def _escaped_shares(shares: str) -> str:
    from ..markdown import escape_markdown

    return escape_markdown(shares)


def render_paper(paper: Paper, model: VaultModel) -> OutputFile:
    from ..markdown import abstract_to_markdown, escape_markdown

    abstract = paper.abstract
    collection = model.collection_of(paper.id)
    tags = ["paper"] + [t for t in (venue_tag(abstract.collection.venue),) if t]
    frontmatter = {
        "vaultsync_id": paper.id,
        "type": "paper",
        "title": paper.title,
        "aliases": list(paper.aliases),
        "collection": link(collection.name),
        "venue": abstract.collection.venue,  # None (left out) when the seed's header names none
        "year": abstract.collection.year,
        "concepts": [link(c) for c in paper.concepts],
        "fields": [link(f) for f in paper.fields],
        "related": [link(model.paper(r).name) for r in paper.related],
        "urls": list(paper.urls),
        "source": f"{abstract.seed}, paragraph {abstract.paragraph}",
        "tags": tags,
    }
    for key in ("venue", "year"):
        if frontmatter[key] is None:
            del frontmatter[key]
    for key, value in paper.metadata.items():
        frontmatter.setdefault(key, list(value) if isinstance(value, (tuple, list)) else value)
    lines = [f"# {escape_markdown(paper.title)}", "", abstract_to_markdown(abstract.text, paper.links), ""]
    if paper.concepts or paper.fields:
        lines += ["## Concepts", "", *(f"- {link(c)}" for c in paper.concepts), ""]
        if paper.fields:
            lines += [f"Fields: {', '.join(link(f) for f in paper.fields)}", ""]
    if paper.related:
        lines += ["## Related papers", "", *(_related_line(model.paper(r).name, shares)
                                             for r, shares in zip(paper.related, _shares(paper))), ""]
    return OutputFile(f"{PAPERS}/{paper.name}.md", "\n".join(lines).rstrip() + "\n", frontmatter,
                      paper.id, kind="paper")


def render_concept(concept: Concept, model: VaultModel) -> OutputFile:
    frontmatter = {
        "vaultsync_id": concept.id,
        "type": "concept",
        "title": concept.name,
        "aliases": list(concept.aliases),
        "broader": [link(b) for b in concept.broader],
        "paper_count": len(concept.papers),
        "tags": ["concept"],
    }
    from ..markdown import escape_markdown

    lines = [f"# {escape_markdown(concept.name)}", ""]
    if concept.broader:
        lines += ["Broader: " + ", ".join(link(b) for b in concept.broader), ""]
    if concept.narrower:
        lines += ["## Narrower concepts", "", *(f"- {link(n)}" for n in concept.narrower), ""]
    if concept.papers:
        lines += [f"## Papers ({len(concept.papers)})", "", *(_gist_line(model.paper(p)) for p in concept.papers), ""]
    return OutputFile(f"{CONCEPTS}/{concept.name}.md", "\n".join(lines).rstrip() + "\n", frontmatter,
                      frontmatter["vaultsync_id"], kind="concept")


def render_collection(collection: CollectionInfo, model: VaultModel) -> OutputFile:
    from ..markdown import escape_markdown

    info = collection.collection
    frontmatter = {
        "vaultsync_id": collection_id(info.name),
        "type": "collection",
        "title": info.name,
        "venue": info.venue,
        "year": info.year,
        "paper_count": len(collection.papers),
        "tags": ["collection"] + [t for t in (venue_tag(info.venue),) if t],
    }
    for key in ("venue", "year"):
        if frontmatter[key] is None:
            del frontmatter[key]
    lines = [f"# {escape_markdown(info.name)}", "", f"## Papers ({len(collection.papers)})", "",
             *(_gist_line(model.paper(p)) for p in collection.papers)]
    return OutputFile(f"{COLLECTIONS}/{collection.name}.md", "\n".join(lines).rstrip() + "\n", frontmatter,
                      frontmatter["vaultsync_id"], kind="collection")


def render_index(model: VaultModel) -> OutputFile:
    """The vault's front page: collections, then every concept A–Z with its paper count."""
    lines = ["# Research vault", "", f"{len(model.papers)} papers, {len(model.concepts)} concepts.", "",
             "## Collections", "", *(f"- {link(c.name)} ({len(c.papers)} papers)" for c in model.collections), ""]
    top = sorted(model.concepts, key=lambda c: (-len(c.papers), c.name.casefold()))[:30]
    lines += ["## Most connected concepts", "", *(f"- {link(c.name)} ({len(c.papers)})" for c in top), ""]
    lines += ["## All concepts", ""]
    letter = None
    for concept in model.concepts:
        first = concept.name[:1].upper() if concept.name[:1].isalpha() else "#"
        if first != letter:
            letter = first
            lines += ["", f"### {first}" if first != "#" else "### 0–9", ""]
        lines.append(f"- {link(concept.name)} ({len(concept.papers)})")
    frontmatter = {"vaultsync_id": "index", "type": "index", "title": "Research vault", "tags": ["index"]}
    return OutputFile(INDEX, "\n".join(lines).rstrip() + "\n", frontmatter, "index", kind="index")


class ObsidianFormat:
    name = "obsidian"
    description = "An Obsidian vault: paper, concept and collection notes with wiki-links (default)."
    supports_deferred_render = True  # yields DeferredNotes when ``context.may_defer``
    # yields only the notes of ``context.changes`` when given: its notes read nothing but what
    # ``render_changes`` follows (their records, and the names and gists of the papers they list)
    supports_render_changes = True

    def render(self, model: VaultModel, context: RenderContext) -> Iterable[OutputFile]:
        from ..markdown import converted_ahead  # lazy: start-up time

        changes = context.changes
        # a concept whose note the user wrote is linked to, never written
        subjects = [*model.papers, *(c for c in model.concepts if not c.user_note), *model.collections]
        papers = model.papers
        if changes is not None:  # only the notes that may differ from what the last run wrote
            subjects = [s for s in subjects if changes.renders(s)]
            papers = [p for p in papers if p.id in changes.papers]
        # each note rendered only if the sync needs it, when it may say so
        note = self._deferred if context.may_defer else self._note
        with converted_ahead([(p.abstract.text, p.links) for p in papers]):  # both cores, when large
            for subject in subjects:
                yield note(subject, model, context)
        if changes is None or changes.index:
            yield render_index(model)
        if changes is None or changes.maps:
            from ..views.canvas import render_canvases  # lazy: only the obsidian format draws maps

            yield from render_canvases(model, collections=changes.collection_maps if changes is not None else None)

    def _note(self, subject, model: VaultModel, context: RenderContext) -> OutputFile:
        rendered = context.render_note(subject, self.name, model) if context.render_note else None
        return rendered if rendered is not None else _render_builtin(subject, model)

    def _deferred(self, subject, model: VaultModel, context: RenderContext) -> OutputFile | DeferredNote:
        key = inputs_key(subject, model)
        if key is None:
            return self._note(subject, model, context)
        if isinstance(subject, Paper):
            path, vaultsync_id, kind = f"{PAPERS}/{subject.name}.md", subject.id, "paper"
        elif isinstance(subject, Concept):
            path, vaultsync_id, kind = f"{CONCEPTS}/{subject.name}.md", subject.id, "concept"
        else:
            path, vaultsync_id, kind = (f"{COLLECTIONS}/{subject.name}.md", collection_id(subject.collection.name),
                                        "collection")
        # rendered by this module's renderer directly: a format may defer only when no plugin but
        # this module renders notes (``render.only_own_notes``; asking through the hook costs
        # more than rendering some notes)
        return DeferredNote(path, vaultsync_id, kind, key, partial(_render_builtin, subject, model))


def inputs_key(subject: Paper | Concept | CollectionInfo, model: VaultModel) -> str | None:
    """A digest of everything the built-in renderer reads to render ``subject``'s note (every
    field of its records, and the names and gists of the papers it lists), or None when a value
    is not a plain one (a plugin's metadata) and so cannot be digested exactly."""
    if isinstance(subject, Paper):
        abstract, info = subject.abstract, subject.abstract.collection
        inputs = ("paper", subject.id, subject.name, subject.title, subject.gist, subject.aliases,
                  subject.concepts, subject.fields, subject.links, subject.urls, subject.related,
                  subject.related_shares, tuple(subject.metadata.items()),
                  abstract.text, abstract.seed, abstract.paragraph, abstract.line, info.name, info.venue, info.year,
                  model.collection_of(subject.id).name, _listed(subject.related, model))
    elif isinstance(subject, Concept):
        inputs = ("concept", subject.name, subject.id, subject.aliases, subject.broader, subject.narrower,
                  subject.papers, subject.kind, subject.user_note, _listed(subject.papers, model))
    else:
        info = subject.collection
        inputs = ("collection", subject.name, info.name, info.venue, info.year, subject.papers,
                  _listed(subject.papers, model))
    try:
        # marshal's version 2 takes only exact built-in types and writes no back-references:
        # equal inputs give equal bytes, and a value of another type is refused
        data = marshal.dumps(inputs, 2)
    except ValueError:
        return None
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def _listed(paper_ids: Iterable[str], model: VaultModel) -> tuple:
    """What a list line of each paper shows (``_gist_line``): its name and gist."""
    shown = model.caches.get("list_inputs")
    if shown is None:  # once per model: a paper is listed in every concept note it names
        shown = {paper_id: (paper.name, paper.gist) for paper_id, paper in model._papers_by_id().items()}
        model.caches["list_inputs"] = shown
    return tuple(map(shown.__getitem__, paper_ids))


def _render_builtin(subject, model: VaultModel) -> OutputFile:
    if isinstance(subject, Paper):
        return render_paper(subject, model)
    if isinstance(subject, Concept):
        return render_concept(subject, model)
    return render_collection(subject, model)


@hookimpl
def vaultsync_register_formats(register) -> None:
    register(ObsidianFormat())


@hookimpl(trylast=True)
def vaultsync_render_note(subject, format: str, model: VaultModel) -> OutputFile | None:
    return _render_builtin(subject, model) if format == ObsidianFormat.name else None
