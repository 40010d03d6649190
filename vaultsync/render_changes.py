"""Which notes of a model may render differently from the notes of the model the last successful
run wrote: the model diff a watcher's run offers the format (``RenderContext.changes``), so that
a new seed file costs what it changes, not a render and a check of every note.

Records are compared by identity first (a link stage that keeps the records that did not change
gives the same objects), then by equality. What a note shows of *other* records is followed too:
a paper note names its related papers and its collection, a concept or collection note shows the
name and gist of each paper it lists (the built-in renderers read nothing else; a format that
reads more does not declare ``supports_render_changes``).
"""

from __future__ import annotations

from typing import Iterable

from .records import RenderChanges, VaultModel


def render_changes(before: VaultModel, after: VaultModel, touched: Iterable[str] = ()) -> RenderChanges:
    """The notes of ``after`` that may render differently from those of ``before``; ``touched``:
    ids whose notes must be checked whatever the models say (the user edited, moved or deleted
    them since, or the last run could not write them)."""
    touched = set(touched)
    old_papers = {p.id: p for p in before.papers}
    papers: set[str] = set()
    shown: set[str] = set()  # papers whose name or gist changed (or that came or went)
    mapped: set[str] = set()  # papers whose concepts changed, or that came or went (the maps show those)
    for paper in after.papers:
        old = old_papers.pop(paper.id, None)
        if old is paper:
            continue
        if old is None:
            papers.add(paper.id)
            shown.add(paper.id)
            mapped.add(paper.id)
        elif old != paper:
            papers.add(paper.id)
            if old.name != paper.name or old.gist != paper.gist:
                shown.add(paper.id)
            if old.concepts != paper.concepts:
                mapped.add(paper.id)
    shown.update(old_papers)  # (gone: whoever listed them lists them no more)
    mapped.update(old_papers)
    if after.referenced or before.referenced:  # (a preview's model: not what a full run renders)
        shown.update(p.id for p in (*after.referenced, *before.referenced))
    # a paper note names its related papers and its collection
    old_collection, new_collection = _collection_names(before), _collection_names(after)
    for paper in after.papers:
        if paper.id in papers:
            continue
        if (paper.id in touched or (shown and not shown.isdisjoint(paper.related))
                or old_collection.get(paper.id) != new_collection.get(paper.id)):
            papers.add(paper.id)
    old_concepts = {c.id: c for c in before.concepts}
    concepts = {c.id for c in after.concepts
                if old_concepts.get(c.id) is not c
                and (c.id in touched or old_concepts.get(c.id) != c or not shown.isdisjoint(c.papers))}
    old_collections = {c.name: c for c in before.collections}
    collections = {c.name for c in after.collections
                   if old_collections.get(c.name) is not c
                   and (old_collections.get(c.name) != c or not shown.isdisjoint(c.papers))}
    # identical records still render anew when touched (an identity test skipped them above)
    concepts.update(c.id for c in after.concepts if c.id in touched)
    from .link import collection_id  # (the id a collection's note carries)

    collections.update(c.name for c in after.collections if collection_id(c.collection.name) in touched)
    changed = bool(papers or concepts or collections or len(before.concepts) != len(after.concepts)
                   or len(before.collections) != len(after.collections))
    return RenderChanges(frozenset(papers), frozenset(concepts), frozenset(collections),
                         index=changed or "index" in touched, maps=changed,
                         collection_maps=_collection_maps(before, after, mapped) if changed else frozenset())


def _collection_maps(before: VaultModel, after: VaultModel, differ: set[str]) -> frozenset[str] | None:
    """The collections whose map (``views.canvas``) may differ; None: every one. A collection's
    map reads its papers (in the model's order) and their concepts, and of the concept graph:
    whether each of those concepts is there, its broader concepts and those on the map among its
    narrower ones (``select_concepts``), and its ancestors' broader concepts (``_ancestors``)."""
    if [c.name for c in before.collections] != [c.name for c in after.collections]:
        return None  # (the maps' names and order)
    graph_before = {c.name: (c.broader, c.narrower) for c in before.concepts}
    graph_after = {c.name: (c.broader, c.narrower) for c in after.concepts}
    moved = {n for n in graph_before.keys() | graph_after.keys() if graph_before.get(n) != graph_after.get(n)}
    # for each moved concept, the names a map must mention to read it, in either model: asked of
    # each map instead of walking every map's ancestors twice
    below_before, below_after = _below(graph_before), _below(graph_after)
    reached = {n: (_reaching(n, below_before), _reaching(n, below_after)) for n in moved}
    old_collections = {c.name: c for c in before.collections}
    maps = set()
    for collection in after.collections:
        old = old_collections[collection.name]
        if old.papers != collection.papers or not differ.isdisjoint(collection.papers):
            maps.add(collection.name)
            continue
        if not moved:
            continue
        # its papers are in both models with the same concepts (none is in ``differ``)
        names = {name for paper_id in collection.papers for name in after.paper(paper_id).concepts}
        if any(_as_read(graph_before.get(n), names, graph_before) != _as_read(graph_after.get(n), names, graph_after)
               for n, (by_before, by_after) in reached.items()
               if not (names.isdisjoint(by_before) and names.isdisjoint(by_after))):
            maps.add(collection.name)
    return frozenset(maps)


def _as_read(entry: tuple | None, names: set[str], graph: dict) -> tuple | None:
    """A concept's (broader, narrower) as a map whose papers mention ``names`` reads it: the
    narrower ones its papers mention (that are concepts of ``graph``)."""
    return None if entry is None else (entry[0], tuple(n for n in entry[1] if n in names and n in graph))


def _below(graph: dict) -> dict[str, list[str]]:
    """Name -> the concepts of ``graph`` that list it as broader."""
    below: dict[str, list[str]] = {}
    for name, (broader, _) in graph.items():
        for parent in broader:
            below.setdefault(parent, []).append(name)
    return below


def _reaching(target: str, below: dict[str, list[str]]) -> set[str]:
    """The names a map's papers must mention for the map to read ``target``: the target and the
    concepts below it (a map looks up its papers' concepts and, through concepts of the model,
    all their ancestors; see ``_ancestors`` in ``views.canvas``)."""
    found = {target}
    frontier = [target]
    while frontier:
        frontier = [c for n in frontier for c in below.get(n, ()) if c not in found]
        found.update(frontier)
    return found


def _collection_names(model: VaultModel) -> dict[str, str]:
    """Paper id -> the name of its collection (``VaultModel.collection_of``), kept in the model."""
    names = model.caches.get("collection_names")
    if names is None:
        names = model.caches["collection_names"] = {}
        for collection in model.collections:
            for paper_id in collection.papers:
                names.setdefault(paper_id, collection.name)
    return names
