"""Concept maps as JSON Canvas 1.0 files (https://jsoncanvas.org), the format of Obsidian Canvas.

``render_canvases(model)`` gives ``Maps/<collection>.canvas`` (the concepts of that collection's
papers) and ``Maps/All concepts.canvas``. On each map:

- concept notes are ``file`` nodes (``Concepts/<name>.md``), larger the more papers mention them;
  opening one shows its papers, so every paper is two clicks from the map;
- concepts sharing a broader concept sit in a ``group`` node labelled with it (the broader
  concept's own node first when it is shown); concepts with no family on the map sit together,
  ungrouped, after the groups;
- edges: broader -> narrower (arrow), and strong co-occurrence (concepts sharing at least
  ``min_shared`` papers, the ``max_cooccurrence_edges`` strongest; no arrow, labelled);
- only the ``max_concepts`` most mentioned concepts are shown; a text node at the top says
  how many were left out and links to the index.

The layout is deterministic (the same model gives the same bytes: no randomness, ids hashed
from names, ties broken by name) and nodes never overlap: each group is packed on a grid of
rows, and groups are packed in rows ("shelves") below the header.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Iterable, Sequence

from ..records import Concept, OutputFile, VaultModel

MAPS = "Maps"
ALL_CONCEPTS = "All concepts"
GAP = 40  # between nodes in a group
BLOCK_GAP = 120  # between groups
PAD = 40  # inside a group's border
GROUP_COLORS = ("4", "5", "6", "3", "2", "1")  # JSON Canvas preset colours, green first


@dataclass(frozen=True)
class CanvasOptions:
    """How much a map shows."""

    max_concepts: int = 40
    min_shared: int = 2  # papers two concepts must share for a co-occurrence edge
    max_cooccurrence_edges: int = 30


@dataclass
class _Box:
    """A node being laid out; ``x``/``y`` are relative to its block until the block is placed."""

    name: str
    count: int
    width: int
    height: int
    x: int = 0
    y: int = 0


@dataclass
class _Block:
    """A group of concepts (``label`` set) or the ungrouped rest (``label`` None)."""

    label: str | None
    boxes: list[_Box] = field(default_factory=list)
    width: int = 0
    height: int = 0
    x: int = 0
    y: int = 0


def render_canvases(model: VaultModel, options: CanvasOptions = CanvasOptions()) -> list[OutputFile]:
    """One canvas per collection, then ``Maps/All concepts.canvas``; owned whole by vaultsync."""
    files = []
    taken = {ALL_CONCEPTS.casefold()}
    for collection in model.collections:
        stem = collection.name
        if stem.casefold() in taken:  # a collection called "All concepts"
            stem = f"{stem} (collection)"
        taken.add(stem.casefold())
        text = canvas_json(model, collection.papers, collection.name, f"Collections/{collection.name}",
                           options)
        files.append(_output(f"{MAPS}/{stem}.canvas", text))
    text = canvas_json(model, None, ALL_CONCEPTS, None, options)
    files.append(_output(f"{MAPS}/{ALL_CONCEPTS}.canvas", text))
    return files


def _output(path: str, text: str) -> OutputFile:
    return OutputFile(path, text, frontmatter=None, vaultsync_id=None, kind="canvas", merge=False)


def canvas_json(model: VaultModel, paper_ids: Sequence[str] | None, title: str,
                note: str | None, options: CanvasOptions = CanvasOptions()) -> str:
    """The canvas text for the concepts of ``paper_ids`` (all papers when ``None``).

    ``note`` is the vault path (without ``.md``) of the note the map belongs to, linked from
    the header. Tab-indented like the canvases Obsidian writes, keys in the spec's order.
    """
    return json.dumps(build_canvas(model, paper_ids, title, note, options),
                      indent="\t", ensure_ascii=False) + "\n"


def build_canvas(model: VaultModel, paper_ids: Sequence[str] | None, title: str,
                 note: str | None, options: CanvasOptions = CanvasOptions()) -> dict[str, Any]:
    """The canvas as data: ``{"nodes": [...], "edges": [...]}`` (groups first: z-order)."""
    scope = set(paper_ids) if paper_ids is not None else {p.id for p in model.papers}
    concepts = _concepts_by_name(model)
    papers_of = _papers_of(model, concepts, None if paper_ids is None else scope)
    ranked = sorted((n for n, ps in papers_of.items() if ps),
                    key=lambda n: (-len(papers_of[n]), n.casefold(), n))
    shown = ranked[: options.max_concepts]
    largest = len(papers_of[shown[0]]) if shown else 1
    boxes = {n: _box(n, len(papers_of[n]), largest) for n in shown}
    blocks = _blocks(shown, concepts, boxes)
    header = _header_text(title, note, len(shown), len(ranked), len(scope))
    header_height = _snap(80 + 32 * header.count("\n"))
    width = _place_blocks(blocks, top=header_height + BLOCK_GAP)

    nodes: list[dict[str, Any]] = [_node("text", "header", 0, 0, max(width, 640), header_height,
                                         text=header)]
    for i, block in enumerate(b for b in blocks if b.label is not None):
        nodes.append(_node("group", f"group:{block.label}", block.x, block.y, block.width,
                           block.height, label=block.label, color=GROUP_COLORS[i % len(GROUP_COLORS)]))
    for block in blocks:
        for box in block.boxes:
            nodes.append(_node("file", f"concept:{box.name}", block.x + box.x, block.y + box.y,
                               box.width, box.height, file=f"Concepts/{box.name}.md"))
    placed = {box.name: (block.x + box.x, block.y + box.y, box) for block in blocks for box in block.boxes}
    edges = _broader_edges(shown, concepts, placed) + _cooccurrence_edges(shown, papers_of, concepts,
                                                                          placed, options)
    return {"nodes": nodes, "edges": edges}


def _concepts_by_name(model: VaultModel) -> dict[str, Concept]:
    """Name -> concept, worked out once per model (every map asks)."""
    cached = model.__dict__.get("_canvas_concepts")
    if cached is None:
        cached = {c.name: c for c in model.concepts}
        object.__setattr__(model, "_canvas_concepts", cached)
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
    cached = model.__dict__.get("_canvas_positions")
    if cached is None:
        cached = defaultdict(list)
        for index, paper in enumerate(model.papers):
            cached[paper.id].append(index)
        object.__setattr__(model, "_canvas_positions", cached)
    return cached


def _box(name: str, count: int, largest: int) -> _Box:
    share = math.log1p(count) / math.log1p(largest) if largest > 0 else 0.0
    return _Box(name, count, _snap(260 + 140 * share), _snap(80 + 100 * share))


def _snap(value: float, step: int = 20) -> int:
    return int(round(value / step)) * step


def _family_head(name: str, concepts: dict[str, Concept], shown: set[str]) -> str:
    """The concept whose group ``name`` joins: its highest shown ancestor (first broader each
    step), else its first broader, else itself."""
    chain, seen, current = [], {name}, concepts.get(name)
    while current is not None:
        parent = next((b for b in current.broader if b in concepts and b not in seen), None)
        if parent is None:
            break
        chain.append(parent)
        seen.add(parent)
        current = concepts[parent]
    shown_ancestors = [b for b in chain if b in shown]
    if shown_ancestors:
        return shown_ancestors[-1]
    return chain[0] if chain else name


def _blocks(shown: list[str], concepts: dict[str, Concept], boxes: dict[str, _Box]) -> list[_Block]:
    """Groups of at least two concepts, biggest first, then one block of the rest."""
    shown_set = set(shown)
    families: dict[str, list[str]] = {}
    for name in shown:  # ``shown`` is ranked, so members come most-mentioned first
        families.setdefault(_family_head(name, concepts, shown_set), []).append(name)
    groups, loose = [], []
    for head, members in families.items():
        if len(members) < 2:
            loose.extend(members)
            continue
        members.sort(key=lambda n: (n != head, -boxes[n].count, n.casefold(), n))
        groups.append(_Block(head, [boxes[n] for n in members]))
    groups.sort(key=lambda b: (-sum(x.count for x in b.boxes), b.label.casefold(), b.label))
    blocks = groups + ([_Block(None, [boxes[n] for n in loose])] if loose else [])
    for block in blocks:
        _pack_block(block)
    return blocks


def _pack_block(block: _Block) -> None:
    """Place a block's boxes in rows of about sqrt(n); size the block around them."""
    columns = max(1, math.ceil(math.sqrt(len(block.boxes))))
    pad = PAD if block.label is not None else 0
    x = y = pad
    row_height = 0
    for i, box in enumerate(block.boxes):
        if i and i % columns == 0:
            x, y = pad, y + row_height + GAP
            row_height = 0
        box.x, box.y = x, y
        x += box.width + GAP
        row_height = max(row_height, box.height)
    block.width = max(b.x + b.width for b in block.boxes) + pad
    block.height = max(b.y + b.height for b in block.boxes) + pad


def _place_blocks(blocks: list[_Block], top: int) -> int:
    """Shelf-pack blocks left to right, wrapping at a width that keeps the map roughly square.
    Returns the width used."""
    if not blocks:
        return 0
    area = sum((b.width + BLOCK_GAP) * (b.height + BLOCK_GAP) for b in blocks)
    limit = max(max(b.width for b in blocks), int(math.sqrt(area) * 1.4))
    x, y, shelf = 0, top, 0
    for block in blocks:
        if x and x + block.width > limit:
            x, y, shelf = 0, y + shelf + BLOCK_GAP, 0
        block.x, block.y = x, y
        x += block.width + BLOCK_GAP
        shelf = max(shelf, block.height)
    return max(b.x + b.width for b in blocks)


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


def _sides(a: tuple[int, int, _Box], b: tuple[int, int, _Box]) -> tuple[str, str]:
    """Which sides to join so the edge runs the short way between the two boxes."""
    ax, ay = a[0] + a[2].width / 2, a[1] + a[2].height / 2
    bx, by = b[0] + b[2].width / 2, b[1] + b[2].height / 2
    if abs(bx - ax) > abs(by - ay):
        return ("right", "left") if bx > ax else ("left", "right")
    return ("bottom", "top") if by >= ay else ("top", "bottom")


def _edge(kind: str, a: str, b: str, placed: dict, **extra: Any) -> dict[str, Any]:
    from_side, to_side = _sides(placed[a], placed[b])
    edge = {"id": node_id(f"{kind}:{a}\x1f{b}"), "fromNode": node_id(f"concept:{a}"),
            "fromSide": from_side, "toNode": node_id(f"concept:{b}"), "toSide": to_side}
    edge.update(extra)
    return edge


def _broader_edges(shown: list[str], concepts: dict[str, Concept], placed: dict) -> list[dict]:
    pairs = sorted({(b, n) for n in shown for b in concepts[n].broader if b in placed and b != n},
                   key=lambda p: (p[0].casefold(), p[1].casefold(), p))
    return [_edge("broader", b, n, placed) for b, n in pairs]


def _cooccurrence_edges(shown: list[str], papers_of: dict[str, list[str]],
                        concepts: dict[str, Concept], placed: dict,
                        options: CanvasOptions) -> list[dict]:
    by_paper: dict[str, list[str]] = {}
    for name in shown:
        for paper in papers_of[name]:
            by_paper.setdefault(paper, []).append(name)
    shared: Counter[tuple[str, str]] = Counter()
    for names in by_paper.values():
        shared.update(combinations(sorted(names), 2))
    related = {frozenset((n, b)) for n in shown for b in concepts[n].broader}
    strong = [(pair, n) for pair, n in shared.items()
              if n >= options.min_shared and frozenset(pair) not in related]
    strong.sort(key=lambda item: (-item[1], item[0][0].casefold(), item[0][1].casefold(), item[0]))
    return [_edge("shared", a, b, placed, toEnd="none", label=f"{n} papers")
            for (a, b), n in strong[: options.max_cooccurrence_edges]]


def canvas_files(canvas: dict[str, Any]) -> Iterable[str]:
    """The vault paths a canvas's file nodes point to."""
    return [n["file"] for n in canvas.get("nodes", ()) if n.get("type") == "file"]
