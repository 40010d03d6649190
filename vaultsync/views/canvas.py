"""Concept maps as JSON Canvas 1.0 files (https://jsoncanvas.org), the format of Obsidian Canvas.

``render_canvases(model)`` gives ``Maps/<collection>.canvas`` (the concepts of that collection's
papers) and ``Maps/All concepts.canvas``. On each map:

- concept notes are ``file`` nodes (``Concepts/<name>.md``), larger the more papers mention them;
  opening one shows its papers, so every paper is two clicks from the map;
- a concept and the concepts under it sit in a ``group`` node labelled with it, broader above
  narrower; concepts whose broader concept is off the map group under it by name; concepts with
  no family on the map stand alone, next to what they are joined to, or together at the end;
- edges: broader -> narrower (arrow), and strong co-occurrence (concepts sharing at least
  ``min_shared`` papers, the ``max_cooccurrence_edges`` strongest; no arrow, labelled);
- only ``max_concepts`` concepts are shown, by importance (``select_concepts``); a text node at
  the top says how many were left out and links to the index.

The layout (``canvas_layout``) is deterministic -- the same model gives the same bytes: no
randomness, ids hashed from names, ties broken by name -- nodes never overlap, no edge label sits
on a card (a co-occurrence line that no choice of sides keeps its label clear for is drawn without
one), and edges keep off other cards where the layout allows it (``docs/canvas_picture.py`` draws
a map to look at it).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import chain, combinations
from typing import Any, Iterable, Sequence

from ..records import Concept, OutputFile, VaultModel
from .canvas_layout import (BLOCK_GAP, Block, Box, choose_sides, edge_curve, label_on_card, lay_out_block,
                            place_blocks, use_sides)

MAPS = "Maps"
ALL_CONCEPTS = "All concepts"
GROUP_COLORS = ("4", "5", "6", "3", "2", "1")  # JSON Canvas preset colours, green first


@dataclass(frozen=True)
class CanvasOptions:
    """How much a map shows."""

    max_concepts: int = 40
    min_shared: int = 2  # papers two concepts must share for a co-occurrence edge
    max_cooccurrence_edges: int = 30


def render_canvases(model: VaultModel, options: CanvasOptions = CanvasOptions(),
                    collections: Iterable[str] | None = None) -> list[OutputFile]:
    """One canvas per collection, then ``Maps/All concepts.canvas``; owned whole by vaultsync.
    ``collections``: only the maps of these collections (by name), and the one of all concepts.
    A map whose plan (``_Plan``) is the one last drawn for its path is not laid out again."""
    files = []
    taken = {ALL_CONCEPTS.casefold()}
    only = None if collections is None else set(collections)
    for collection in model.collections:
        stem = collection.name
        if stem.casefold() in taken:  # a collection called "All concepts"
            stem = f"{stem} (collection)"
        taken.add(stem.casefold())
        if only is not None and collection.name not in only:
            continue
        path = f"{MAPS}/{stem}.canvas"
        plan = _plan(model, collection.papers, collection.name, f"Collections/{collection.name}", options)
        files.append(_output(path, _drawn(path, plan)))
    path = f"{MAPS}/{ALL_CONCEPTS}.canvas"
    files.append(_output(path, _drawn(path, _plan(model, None, ALL_CONCEPTS, None, options))))
    return files


# map path -> the plan last drawn for it and its text (one entry a map: a watcher's round asks
# for the maps again and most of them read nothing that changed)
_DRAWN: dict[str, tuple[_Plan, str]] = {}


def _drawn(path: str, plan: _Plan) -> str:
    """The canvas text of ``plan``: the one last drawn for ``path`` when its plan was the same
    (a plan holds all that drawing reads, so the text would be the same), else drawn now."""
    last = _DRAWN.get(path)
    if last is not None and last[0] == plan:
        return last[1]
    text = _text(_draw(plan))
    _DRAWN[path] = (plan, text)
    return text


def _output(path: str, text: str) -> OutputFile:
    return OutputFile(path, text, frontmatter=None, vaultsync_id=None, kind="canvas", merge=False)


def canvas_json(model: VaultModel, paper_ids: Sequence[str] | None, title: str,
                note: str | None, options: CanvasOptions = CanvasOptions()) -> str:
    """The canvas text for the concepts of ``paper_ids`` (all papers when ``None``).

    ``note`` is the vault path (without ``.md``) of the note the map belongs to, linked from
    the header. Tab-indented like the canvases Obsidian writes, keys in the spec's order.
    """
    return _text(build_canvas(model, paper_ids, title, note, options))


def _text(canvas: dict[str, Any]) -> str:
    return json.dumps(canvas, indent="\t", ensure_ascii=False) + "\n"


def build_canvas(model: VaultModel, paper_ids: Sequence[str] | None, title: str,
                 note: str | None, options: CanvasOptions = CanvasOptions()) -> dict[str, Any]:
    """The canvas as data: ``{"nodes": [...], "edges": [...]}`` (groups first: z-order)."""
    return _draw(_plan(model, paper_ids, title, note, options))


@dataclass(frozen=True)
class _Plan:
    """All that drawing a map (``_draw``) reads of the model: equal plans, the same canvas."""

    header: str
    counts: tuple[tuple[str, int], ...]  # the concepts shown, most important first: papers mentioning each
    broader: tuple[tuple[str, str], ...]  # ``_broader_pairs``
    shared: tuple[tuple[tuple[str, str], int], ...]  # ``_shared_pairs``
    above: tuple[tuple[str, ...], ...]  # each shown concept's ancestors on the map, nearest first
    first_broader: tuple[str, ...]  # each shown concept's first broader concept of the model, else itself


def _plan(model: VaultModel, paper_ids: Sequence[str] | None, title: str, note: str | None,
          options: CanvasOptions) -> _Plan:
    scope = set(paper_ids) if paper_ids is not None else model.paper_ids()
    concepts = _concepts_by_name(model)
    papers_of = _papers_of(model, concepts, None if paper_ids is None else scope)
    mentioned = [n for n, ps in papers_of.items() if ps]
    shown = select_concepts(mentioned, papers_of, concepts, options.max_concepts)
    on_map = set(shown)
    return _Plan(_header_text(title, note, len(shown), len(mentioned), len(scope)),
                 tuple((n, len(papers_of[n])) for n in shown),
                 tuple(_broader_pairs(shown, concepts)),
                 tuple(_shared_pairs(shown, papers_of, concepts, options)),
                 tuple(tuple(a for a in _ancestors(n, concepts) if a in on_map) for n in shown),
                 tuple(next((b for b in concepts[n].broader if b in concepts), n) for n in shown))


def _draw(plan: _Plan) -> dict[str, Any]:
    """The canvas of ``plan``: the layout and the JSON Canvas nodes and edges."""
    shown = [n for n, _ in plan.counts]
    largest = plan.counts[0][1] if shown else 1
    boxes = {n: _box(n, count, largest) for n, count in plan.counts}
    broader, shared = list(plan.broader), list(plan.shared)
    blocks = _blocks(shown, dict(zip(shown, plan.above)), dict(zip(shown, plan.first_broader)), boxes,
                     broader + [p for p, _ in shared])
    header = plan.header
    header_height = _snap(80 + 32 * header.count("\n"))
    width = place_blocks(blocks, header_height + BLOCK_GAP, _block_links(blocks, broader + [p for p, _ in shared]))
    for block in blocks:  # from here on, cards are where they are drawn
        for box in block.boxes:
            box.x, box.y = block.x + box.x, block.y + box.y

    nodes: list[dict[str, Any]] = [_node("text", "header", 0, 0, max(width, 640), header_height,
                                         text=header)]
    for i, block in enumerate(b for b in blocks if b.label is not None):
        nodes.append(_node("group", f"group:{block.label}", block.x, block.y, block.width,
                           block.height, label=block.label, color=GROUP_COLORS[i % len(GROUP_COLORS)]))
    for block in blocks:
        for box in block.boxes:
            nodes.append(_node("file", f"concept:{box.name}", box.x, box.y, box.width, box.height,
                               file=f"Concepts/{box.name}.md"))
    # the header is a card too: no edge or label should cover it
    cards = [*boxes.values(), Box("\x00header", 0, max(width, 640), header_height)]
    tree = {(parent, child) for block in blocks for child, parent in block.parent.items()}
    used: dict[tuple[str, str], int] = {}  # (card, side) -> edges attached there
    for b, n in sorted(tree):
        use_sides(used, boxes[b], "bottom", boxes[n], "top")
    edges = []
    for b, n in broader:  # an arrow down a group's tree runs between its layers
        sides = ("bottom", "top") if (b, n) in tree else choose_sides(boxes[b], boxes[n], cards, used=used)
        edges.append(_edge("broader", b, n, sides))
    for (a, b), count in shared:
        label = f"{count} papers"
        sides = choose_sides(boxes[a], boxes[b], cards, label, used)
        if label_on_card(edge_curve(boxes[a], sides[0], boxes[b], sides[1]), label, cards):
            # no sides keep it off every card: a label there would hide a card's name, so the
            # line goes unlabelled (each concept's note still lists its papers)
            edges.append(_edge("shared", a, b, sides, toEnd="none"))
        else:
            edges.append(_edge("shared", a, b, sides, toEnd="none", label=label))
    return {"nodes": nodes, "edges": edges}


def select_concepts(mentioned: Iterable[str], papers_of: dict[str, list[str]], concepts: dict[str, Concept],
                    slots: int) -> list[str]:
    """The ``slots`` most important concepts, most important first: the most papers first; among
    concepts as many papers mention, the one tied (as broader or narrower) to more concepts
    already chosen, then to more concepts on the map at all, then by name -- so the last slots
    go to concepts that join the map's families, not to the start of the alphabet."""
    def neighbours(name: str) -> set[str]:
        concept = concepts[name]
        return {n for n in (*concept.broader, *concept.narrower) if papers_of.get(n)}

    ranked = sorted(mentioned, key=lambda n: (-len(papers_of[n]), n.casefold(), n))
    if len(ranked) <= slots:
        return ranked
    cut = len(papers_of[ranked[slots - 1]])
    chosen = [n for n in ranked if len(papers_of[n]) > cut]
    tied = [n for n in ranked if len(papers_of[n]) == cut]
    linked = {n: neighbours(n) for n in tied}
    ties = {n: len(linked[n] & set(chosen)) for n in tied}
    heap = [(-ties[n], -len(linked[n]), n.casefold(), n) for n in tied]
    heapq.heapify(heap)
    while len(chosen) < slots and heap:
        score, _, _, name = heapq.heappop(heap)
        if name in ties and -score == ties[name]:
            chosen.append(name)
            del ties[name]
            for other in linked[name]:  # they are now tied to one more chosen concept
                if other in ties:
                    ties[other] += 1
                    heapq.heappush(heap, (-ties[other], -len(linked[other]), other.casefold(), other))
    return chosen


def _concepts_by_name(model: VaultModel) -> dict[str, Concept]:
    """Name -> concept, worked out once per model (every map asks)."""
    cached = model.caches.get("canvas_concepts")
    if cached is None:
        cached = {c.name: c for c in model.concepts}
        model.caches["canvas_concepts"] = cached
    return cached


def _papers_of(model: VaultModel, concepts: dict[str, Concept], scope: set[str] | None) -> dict[str, list[str]]:
    """Concept name -> the papers (of ``scope``, or all) that list it, in the model's order;
    concepts no paper of ``scope`` lists are left out. From the papers' side: a collection's
    map looks at its own papers, not at every concept."""
    if scope is None:
        return {c.name: list(c.papers) for c in model.concepts if c.papers}
    position = _positions(model)
    papers_of: dict[str, list[str]] = {}
    for index in sorted(index for i in scope for index in position.get(i, ())):
        paper = model.papers[index]
        for name in paper.concepts:
            if name in concepts:
                papers_of.setdefault(name, []).append(paper.id)
    return papers_of


def _positions(model: VaultModel) -> dict[str, list[int]]:
    """Paper id -> its places in the model, worked out once per model (40 maps would each walk
    every paper to find their own)."""
    cached = model.caches.get("canvas_positions")
    if cached is None:
        cached = defaultdict(list)
        for index, paper in enumerate(model.papers):
            cached[paper.id].append(index)
        model.caches["canvas_positions"] = cached
    return cached


def _box(name: str, count: int, largest: int) -> Box:
    share = math.log1p(count) / math.log1p(largest) if largest > 0 else 0.0
    return Box(name, count, _snap(260 + 140 * share), _snap(80 + 100 * share))


def _snap(value: float, step: int = 20) -> int:
    return int(round(value / step)) * step


def _ancestors(name: str, concepts: dict[str, Concept]) -> list[str]:
    """Every concept above ``name`` by broader links, nearest first (each once)."""
    found: list[str] = []
    seen, frontier = {name}, [name]
    while frontier:
        nxt = []
        for current in frontier:
            for parent in concepts[current].broader if current in concepts else ():
                if parent in concepts and parent not in seen:
                    seen.add(parent)
                    found.append(parent)
                    nxt.append(parent)
        frontier = nxt
    return found


def _blocks(shown: list[str], above: dict[str, tuple[str, ...]], first_broader: dict[str, str],
            boxes: dict[str, Box], linked: Iterable[tuple[str, str]]) -> list[Block]:
    """The map's groups, biggest first, then the concepts in none; each laid out.

    A concept joins the group of its most-mentioned ancestor on the map that has none above it
    there; a concept on the map with no ancestor there heads its own group (when something on
    the map descends from it); concepts whose ancestors are all off the map group under their
    first broader concept, named on the group's label. A group needs two members."""
    rank = {name: i for i, name in enumerate(shown)}
    heads_of_others = {a for name in shown for a in above[name]}
    families: dict[str, list[str]] = {}
    for name in shown:  # ``shown`` is ranked, so members come most-mentioned first
        roots = [a for a in above[name] if not above[a]]
        if roots:
            head = min(roots, key=rank.__getitem__)
        elif name in heads_of_others:
            head = name
        else:
            head = first_broader[name]
        families.setdefault(head, []).append(name)
    groups, loose = [], []
    for head, members in families.items():
        if len(members) < 2:
            loose.extend(members)
            continue
        members.sort(key=lambda n: (n != head, rank[n]))
        in_group = set(members)
        parent = {n: next(a for a in above[n] if a in in_group) for n in members
                  if any(a in in_group for a in above[n])}
        groups.append(Block(head, [boxes[n] for n in members], parent))
    groups.sort(key=lambda b: (-sum(x.count for x in b.boxes), b.label.casefold(), b.label))
    # a concept in no group but joined to one by an edge is a unit of its own, placed by what it
    # joins; the others wait together at the end
    joined = {n for pair in linked for n in pair}
    loose.sort(key=rank.__getitem__)
    single = [Block(None, [boxes[n]]) for n in loose if n in joined]
    rest = [boxes[n] for n in loose if n not in joined]
    blocks = groups + single + ([Block(None, rest)] if rest else [])
    for block in blocks:
        lay_out_block(block)
    return blocks


def _block_links(blocks: list[Block], pairs: Iterable[tuple[str, str]]) -> dict[tuple[int, int], int]:
    """(block index, block index) -> how many edges join the two blocks."""
    where = {box.name: i for i, block in enumerate(blocks) for box in block.boxes}
    links: Counter[tuple[int, int]] = Counter()
    for a, b in pairs:
        i, j = sorted((where[a], where[b]))
        if i != j:
            links[(i, j)] += 1
    return links


def _header_text(title: str, note: str | None, shown: int, total: int, papers: int) -> str:
    from ..markdown import escape_markdown  # lazy: start-up time

    lines = [f"# {escape_markdown(title)}", ""]
    if note:
        lines.append(f"Concept map of [[{note}|{title}]] ({papers} papers).")
    else:
        lines.append(f"Concept map of the whole vault ({papers} papers).")
    if total > shown:
        lines.append(f"Showing the {shown} concepts most papers mention; {total - shown} more "
                     f"are left out (all are in [[Index]]).")
    else:
        lines.append(f"All {total} concepts are shown (and listed in [[Index]]).")
    lines.append("Boxes group concepts under a broader one; arrows point to narrower concepts; "
                 "labelled lines join concepts that share papers. Open a concept to see its papers.")
    return "\n".join(lines)


def node_id(key: str) -> str:
    """A stable 16-hex-digit id (the shape Obsidian uses) for a node or edge key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def _node(kind: str, key: str, x: int, y: int, width: int, height: int, **extra: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"id": node_id(key), "type": kind}
    for name in ("text", "file", "label"):
        if name in extra:
            node[name] = extra[name]
    node.update(x=x, y=y, width=width, height=height)
    if extra.get("color"):
        node["color"] = extra["color"]
    return node


def _edge(kind: str, a: str, b: str, sides: tuple[str, str], **extra: Any) -> dict[str, Any]:
    edge = {"id": node_id(f"{kind}:{a}\x1f{b}"), "fromNode": node_id(f"concept:{a}"),
            "fromSide": sides[0], "toNode": node_id(f"concept:{b}"), "toSide": sides[1]}
    edge.update(extra)
    return edge


def _broader_pairs(shown: list[str], concepts: dict[str, Concept]) -> list[tuple[str, str]]:
    """(broader, narrower) for every broader link between two concepts on the map."""
    on_map = set(shown)
    return sorted({(b, n) for n in shown for b in concepts[n].broader if b in on_map and b != n},
                  key=lambda p: (p[0].casefold(), p[1].casefold(), p))


def _shared_pairs(shown: list[str], papers_of: dict[str, list[str]], concepts: dict[str, Concept],
                  options: CanvasOptions) -> list[tuple[tuple[str, str], int]]:
    """The strongest co-occurrences: ((a, b), papers both mention), ``min_shared`` papers at least,
    not already joined by a broader link."""
    by_paper: dict[str, list[str]] = {}
    for name in shown:
        for paper in papers_of[name]:
            by_paper.setdefault(paper, []).append(name)
    # one count over every paper's pairs (a paper with one concept on the map has none)
    shared = Counter(chain.from_iterable(combinations(sorted(names), 2) for names in by_paper.values()
                                         if len(names) > 1))
    related = {frozenset((n, b)) for n in shown for b in concepts[n].broader}
    strong = [(pair, n) for pair, n in shared.items()
              if n >= options.min_shared and frozenset(pair) not in related]
    strong.sort(key=lambda item: (-item[1], item[0][0].casefold(), item[0][1].casefold(), item[0]))
    return strong[: options.max_cooccurrence_edges]


def canvas_files(canvas: dict[str, Any]) -> Iterable[str]:
    """The vault paths a canvas's file nodes point to."""
    return [n["file"] for n in canvas.get("nodes", ()) if n.get("type") == "file"]
