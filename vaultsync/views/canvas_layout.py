"""Where a concept map's cards, groups and edges go, so that the map reads at a glance.

- Each group is laid out as a layered tree: a broader concept above its narrower ones, each
  parent centred over its children, so an arrow runs down through the gap between two layers
  and never over another card.
- Groups are the unit of the whole map: packed in shelves, most important first, each next to
  the groups it shares the most edges with.
- Every other edge (a broader link between groups, two concepts sharing papers) is joined at the
  sides whose label lands in free space (a label on a card hides its name) and whose curve passes
  over the fewest cards, never back over its own two.

Edges are modelled as Obsidian draws them: a cubic curve leaving each card straight out of the
side it is attached to (``edge_curve``); ``docs/canvas_picture.py`` draws the same curves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

GAP_X = 100  # between cards in a row: room for an edge's label
GAP_Y = 120  # between layers: the arrows (and labels) run here
PAD = 40  # inside a group's border
BLOCK_GAP = 160  # between groups
SIDES = ("top", "right", "bottom", "left")
_NORMAL = {"top": (0, -1), "right": (1, 0), "bottom": (0, 1), "left": (-1, 0)}


@dataclass
class Box:
    """A card being laid out; ``x``/``y`` are relative to its block until the block is placed."""

    name: str
    count: int
    width: int
    height: int
    x: int = 0
    y: int = 0

    def anchor(self, side: str) -> tuple[float, float]:
        """The middle of ``side``, where an edge attaches."""
        dx, dy = _NORMAL[side]
        return self.x + self.width / 2 * (1 + dx), self.y + self.height / 2 * (1 + dy)


@dataclass
class Block:
    """A group of concepts (``label`` set) or the ungrouped rest (``label`` None).

    ``parent`` maps a member to the member drawn above it (its nearest broader concept in the
    group); members without one are the roots of the group's trees."""

    label: str | None
    boxes: list[Box]
    parent: dict[str, str] = field(default_factory=dict)
    width: int = 0
    height: int = 0
    x: int = 0
    y: int = 0


# ---------------------------------------------------------------- inside a block
def lay_out_block(block: Block) -> None:
    """Place a block's cards: a layered forest for a group, a grid for the ungrouped rest."""
    if block.label is None:
        _grid(block)
    else:
        _forest(block)
    block.width = max(b.x + b.width for b in block.boxes) + (PAD if block.label is not None else 0)
    block.height = max(b.y + b.height for b in block.boxes) + (PAD if block.label is not None else 0)


def _grid(block: Block) -> None:
    columns = max(1, math.ceil(math.sqrt(len(block.boxes))))
    x = y = row_height = 0
    for i, box in enumerate(block.boxes):
        if i and i % columns == 0:
            x, y, row_height = 0, y + row_height + GAP_Y, 0
        box.x, box.y = x, y
        x += box.width + GAP_X
        row_height = max(row_height, box.height)


def _forest(block: Block) -> None:
    """Roots side by side; under each card its children in a row, the card centred over them."""
    by_name = {b.name: b for b in block.boxes}
    children: dict[str | None, list[Box]] = {}
    for box in block.boxes:  # ``boxes`` is ranked: children come most-mentioned first
        children.setdefault(block.parent.get(box.name), []).append(box)
    depth: dict[str, int] = {}

    def walk(box: Box, level: int) -> None:
        depth[box.name] = level
        for child in children.get(box.name, ()):
            walk(child, level + 1)

    for root in children.get(None, ()):
        walk(root, 0)
    rows: dict[int, int] = {}
    for name, level in depth.items():
        rows[level] = max(rows.get(level, 0), by_name[name].height)
    tops = [PAD]
    for level in range(1, len(rows)):
        tops.append(tops[-1] + rows[level - 1] + GAP_Y)
    widths: dict[str, int] = {}

    def span(box: Box) -> int:
        kids = children.get(box.name, ())
        widths[box.name] = max(box.width, sum(map(span, kids)) + GAP_X * (len(kids) - 1) if kids else 0)
        return widths[box.name]

    def place(box: Box, left: int) -> None:
        box.x, box.y = left + (widths[box.name] - box.width) // 2, tops[depth[box.name]]
        kids = children.get(box.name, ())
        inner = sum(widths[k.name] for k in kids) + GAP_X * (len(kids) - 1)
        x = left + (widths[box.name] - inner) // 2
        for kid in kids:
            place(kid, x)
            x += widths[kid.name] + GAP_X

    x = PAD
    for root in children.get(None, ()):
        span(root)
        place(root, x)
        x += widths[root.name] + GAP_X


# ---------------------------------------------------------------- the blocks on the map
def place_blocks(blocks: list[Block], top: int, links: dict[tuple[int, int], int]) -> int:
    """Shelf-pack blocks left to right, wrapping at a width that keeps the map roughly square;
    after the first, each next block is the one sharing the most edges (``links``, keyed by
    block index pairs) with those placed, then the most important. Returns the width used."""
    if not blocks:
        return 0
    area = sum((b.width + BLOCK_GAP) * (b.height + BLOCK_GAP) for b in blocks)
    limit = max(max(b.width for b in blocks), int(math.sqrt(area) * 1.4))
    def joins(i: int, j: int) -> int:
        return links.get((min(i, j), max(i, j)), 0)

    order = [0]
    rest = list(range(1, len(blocks)))
    total = {i: joins(i, 0) for i in rest}  # edges joining each block to those placed
    while rest:  # ``blocks`` come most important first, so ties keep that order
        best = max(rest, key=lambda i: (joins(i, order[-1]), total[i], -i))
        order.append(best)
        rest.remove(best)
        for i in rest:
            total[i] += joins(i, best)
    shelves: list[list[Block]] = [[]]
    x = 0
    for i in order:
        if x and x + blocks[i].width > limit:
            shelves.append([])
            x = 0
        shelves[-1].append(blocks[i])
        x += blocks[i].width + BLOCK_GAP
    width = max(sum(b.width for b in shelf) + BLOCK_GAP * (len(shelf) - 1) for shelf in shelves)
    y = top
    for k, shelf in enumerate(shelves):
        # every other shelf runs right to left, so a block and the next stay neighbours at a wrap
        x = 0 if k % 2 == 0 else width
        for block in shelf:
            block.x, block.y = (x, y) if k % 2 == 0 else (x - block.width, y)
            x += block.width + BLOCK_GAP if k % 2 == 0 else -(block.width + BLOCK_GAP)
        y += max(b.height for b in shelf) + BLOCK_GAP
    return width


# ---------------------------------------------------------------- edges
def edge_curve(a: Box, a_side: str, b: Box, b_side: str) -> tuple[tuple[float, float], ...]:
    """The cubic Bézier an edge from ``a``'s side to ``b``'s side is drawn as: it leaves each
    card straight out of its side, by half the distance (at least 40, at most 150 px)."""
    p0, p3 = a.anchor(a_side), b.anchor(b_side)
    reach = min(max(math.dist(p0, p3) / 2, 40), 150)
    (ax, ay), (bx, by) = _NORMAL[a_side], _NORMAL[b_side]
    return p0, (p0[0] + ax * reach, p0[1] + ay * reach), (p3[0] + bx * reach, p3[1] + by * reach), p3


def curve_points(curve: Sequence[tuple[float, float]], steps: int = 24) -> list[tuple[float, float]]:
    p0, p1, p2, p3 = curve
    return [(c0 * p0[0] + c1 * p1[0] + c2 * p2[0] + c3 * p3[0], c0 * p0[1] + c1 * p1[1] + c2 * p2[1] + c3 * p3[1])
            for c0, c1, c2, c3 in _bernstein(steps)]


_WEIGHTS: dict[int, list[tuple[float, float, float, float]]] = {}  # steps -> ``_bernstein``


def _bernstein(steps: int) -> list[tuple[float, float, float, float]]:
    """The cubic's four weights at each of ``steps + 1`` even steps, worked out once: every
    candidate curve of every map is sampled at the same steps. Each weight is the product the
    sum ``u ** 3 * p0 + 3 * u * u * t * p1 + ...`` forms (left to right), so the points are the
    same floats to the last bit."""
    table = _WEIGHTS.get(steps)
    if table is None:
        table = _WEIGHTS[steps] = [(u ** 3, 3 * u * u * t, 3 * u * t * t, t ** 3)
                                   for t, u in ((i / steps, 1 - i / steps) for i in range(steps + 1))]
    return table


def label_rect(curve: Sequence[tuple[float, float]], text: str) -> tuple[float, float, float, float]:
    """Where the edge's label is drawn: a box (x, y, width, height) centred on the curve's middle."""
    p0, p1, p2, p3 = curve
    mx, my = (p0[0] + 3 * p1[0] + 3 * p2[0] + p3[0]) / 8, (p0[1] + 3 * p1[1] + 3 * p2[1] + p3[1]) / 8
    width, height = 8 * len(text) + 20, 28
    return mx - width / 2, my - height / 2, width, height


def label_on_card(curve, label: str, boxes: Iterable[Box]) -> bool:
    """Whether the edge's label, drawn where ``label_rect`` says, overlaps any of ``boxes``."""
    rect = label_rect(curve, label)
    return any(_rect_meets(rect, box) for box in boxes)


def _rect_meets(rect: tuple[float, float, float, float], box: Box) -> bool:
    x, y, w, h = rect
    return x < box.x + box.width and box.x < x + w and y < box.y + box.height and box.y < y + h


def crossings(curve, boxes: Iterable[Box], ends: tuple[Box, ...], points=None) -> int:
    """How many cards (other than its two ends, the same objects as in ``boxes``) the curve passes
    over (by 4 px or more)."""
    points = points or curve_points(curve)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    left, right, top, bottom = min(xs), max(xs), min(ys), max(ys)
    skip = {id(end) for end in ends}
    hits = 0
    for box in boxes:
        x0, x1, y0, y1 = box.x + 4, box.x + box.width - 4, box.y + 4, box.y + box.height - 4
        if id(box) in skip or right <= x0 or x1 <= left or bottom <= y0 or y1 <= top:
            continue
        hits += any(x0 < x < x1 and y0 < y < y1 for x, y in points)
    return hits


def choose_sides(a: Box, b: Box, boxes: Sequence[Box], label: str | None = None,
                 used: dict[tuple[str, str], int] | None = None) -> tuple[str, str]:
    """The sides to join ``a`` and ``b`` at: the sides facing each other when its label lands on
    no card, the curve passes over no other card and no other edge uses them (``used``: (card,
    side) -> edges, updated); else the pair that does best on those in that order, then is
    shortest (ties in ``SIDES`` order: the same map, the same bytes).

    A label on a card is never acceptable (it hides the card's name), a curve over a card only
    costs readability, so the label comes first. When every pair puts the label on a card the
    choice is the one made without a label; ``label_on_card`` tells the caller to leave it off."""
    used = {} if used is None else used
    near = _near(a, b, boxes)
    best = None
    facing = _facing(a, b)
    for a_side, b_side in (facing, *((x, y) for x in SIDES for y in SIDES if (x, y) != facing)):
        curve = edge_curve(a, a_side, b, b_side)
        # each part of the score is worked out only while the pair can still beat the best
        covered = label is not None and label_on_card(curve, label, near)
        if best is not None and covered > best[0][0]:
            continue
        points = curve_points(curve)
        if _doubles_back(points, a, b):
            continue
        hits = crossings(curve, near, (a, b), points)
        shared = used.get((a.name, a_side), 0) + used.get((b.name, b_side), 0)
        if best is not None and (covered, hits, shared) > best[0][:3]:
            continue
        length = sum(math.dist(p, q) for p, q in zip(points[::4], points[4::4]))
        score = (covered, hits, shared, round(length))
        if best is None or score < best[0]:
            best = (score, (a_side, b_side))
        if (a_side, b_side) == facing and score[:3] == (False, 0, 0):
            break
    sides = best[1] if best else ("bottom", "top")
    use_sides(used, a, sides[0], b, sides[1])
    return sides


def _facing(a: Box, b: Box) -> tuple[str, str]:
    """The sides of ``a`` and ``b`` that face each other (the way the two cards lie apart most)."""
    dx = (b.x + b.width / 2) - (a.x + a.width / 2)
    dy = (b.y + b.height / 2) - (a.y + a.height / 2)
    if abs(dx) > abs(dy):
        return ("right", "left") if dx > 0 else ("left", "right")
    return ("bottom", "top") if dy >= 0 else ("top", "bottom")


def use_sides(used: dict[tuple[str, str], int], a: Box, a_side: str, b: Box, b_side: str) -> None:
    """Count an edge at ``a``'s and ``b``'s sides (see ``choose_sides``)."""
    used[(a.name, a_side)] = used.get((a.name, a_side), 0) + 1
    used[(b.name, b_side)] = used.get((b.name, b_side), 0) + 1


def _near(a: Box, b: Box, boxes: Sequence[Box]) -> list[Box]:
    """The cards a curve between ``a`` and ``b`` could touch (within its reach of both)."""
    left, right = min(a.x, b.x) - 200, max(a.x + a.width, b.x + b.width) + 200
    top, bottom = min(a.y, b.y) - 200, max(a.y + a.height, b.y + b.height) + 200
    return [x for x in boxes if x.x < right and left < x.x + x.width and x.y < bottom and top < x.y + x.height]


def _doubles_back(points: Sequence[tuple[float, float]], a: Box, b: Box) -> bool:
    """Whether the curve runs back over one of its own cards (by 4 px or more), as it does when
    it leaves a card by the side facing away from the other end."""
    return crossings(None, (a, b), (), points) > 0
