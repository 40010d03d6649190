"""Draw a JSON Canvas concept map as SVG, and as PNG through headless Chromium, to look at it.

    python docs/canvas_picture.py "example_vault/Maps/All concepts.canvas" docs/concept-map.png
    python docs/canvas_picture.py MAP.canvas OUT.svg          # the SVG only (no browser needed)
    python docs/canvas_picture.py MAP.canvas OUT.png --report # also count what hurts reading

Cards, groups and edges are drawn as Obsidian draws them (the same curves vaultsync lays out
with: ``vaultsync.views.canvas_layout.edge_curve``); text cards show their Markdown source.
``--report`` prints the edges that pass over a card and the labels that land on one.
The PNG needs ``chromium`` (Debian: ``apt-get install chromium``) or ``$CHROMIUM``.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vaultsync.views.canvas_layout import Box, crossings, curve_points, edge_curve, label_rect  # noqa: E402

# JSON Canvas preset colours, as Obsidian's light theme shows them
COLORS = {"1": "#e93147", "2": "#ec7500", "3": "#e0ac00", "4": "#08b94e", "5": "#086ddd", "6": "#7852ee"}
MARGIN = 60


def boxes_of(canvas: dict) -> dict[str, Box]:
    return {n["id"]: Box(n["id"], 0, n["width"], n["height"], n["x"], n["y"]) for n in canvas["nodes"]}


def card_title(node: dict) -> str:
    if node["type"] == "file":
        return Path(node["file"]).stem
    return node.get("text") or node.get("url") or ""


def to_svg(canvas: dict) -> str:
    nodes = canvas["nodes"]
    left = min(n["x"] for n in nodes) - MARGIN
    top = min(n["y"] for n in nodes) - MARGIN - 30
    right = max(n["x"] + n["width"] for n in nodes) + MARGIN
    bottom = max(n["y"] + n["height"] for n in nodes) + MARGIN
    boxes = boxes_of(canvas)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{left} {top} {right - left} {bottom - top}" '
           f'width="{right - left}" height="{bottom - top}" font-family="Inter, Helvetica, Arial, sans-serif">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#7a7a7a"/></marker></defs>',
           f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" fill="#f7f7f5"/>']
    for n in nodes:  # groups first (they come first in the file), then cards over them
        color = COLORS.get(n.get("color", ""), "#9a9a9a")
        if n["type"] == "group":
            out.append(f'<rect x="{n["x"]}" y="{n["y"]}" width="{n["width"]}" height="{n["height"]}" rx="14" '
                       f'fill="{color}" fill-opacity="0.08" stroke="{color}" stroke-width="3"/>')
            out.append(f'<text x="{n["x"] + 4}" y="{n["y"] - 12}" font-size="26" font-weight="600" '
                       f'fill="{color}">{html.escape(n.get("label", ""))}</text>')
    for edge in canvas["edges"]:
        a, b = boxes[edge["fromNode"]], boxes[edge["toNode"]]
        curve = edge_curve(a, edge.get("fromSide", "right"), b, edge.get("toSide", "left"))
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = curve
        arrow = ' marker-end="url(#arrow)"' if edge.get("toEnd", "arrow") == "arrow" else ""
        dash = ' stroke-dasharray="10 7"' if "label" in edge else ""
        out.append(f'<path d="M{x0},{y0} C{x1},{y1} {x2},{y2} {x3},{y3}" fill="none" stroke="#7a7a7a" '
                   f'stroke-width="3"{dash}{arrow}/>')
    for n in nodes:
        if n["type"] == "group":
            continue
        out.append(f'<rect x="{n["x"]}" y="{n["y"]}" width="{n["width"]}" height="{n["height"]}" rx="10" '
                   'fill="#ffffff" stroke="#c8c8c8" stroke-width="2"/>')
        lines = card_title(n).splitlines() if n["type"] == "text" else [card_title(n)]
        size = 22 if n["type"] == "text" else max(20, min(30, n["height"] // 5))
        y = n["y"] + (34 if n["type"] == "text" else n["height"] / 2 + size / 3)
        for line in lines:
            x = n["x"] + (20 if n["type"] == "text" else n["width"] / 2)
            anchor = "start" if n["type"] == "text" else "middle"
            weight = "700" if line.startswith("# ") or n["type"] == "file" else "400"
            out.append(f'<text x="{x}" y="{y}" font-size="{size}" font-weight="{weight}" text-anchor="{anchor}" '
                       f'fill="#222">{html.escape(line.removeprefix("# "))}</text>')
            y += size * 1.45
    for edge in canvas["edges"]:  # labels last: drawn over everything, as Obsidian does
        if "label" not in edge:
            continue
        a, b = boxes[edge["fromNode"]], boxes[edge["toNode"]]
        x, y, w, h = label_rect(edge_curve(a, edge["fromSide"], b, edge["toSide"]), edge["label"])
        out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="#f7f7f5" stroke="#b0b0b0"/>')
        out.append(f'<text x="{x + w / 2}" y="{y + h / 2 + 7}" font-size="18" text-anchor="middle" '
                   f'fill="#555">{html.escape(edge["label"])}</text>')
    out.append("</svg>")
    return "\n".join(out)


def reading_problems(canvas: dict) -> list[str]:
    """Edges drawn over a card that is not one of their ends; labels drawn over any card."""
    boxes = boxes_of(canvas)
    cards = [boxes[n["id"]] for n in canvas["nodes"] if n["type"] != "group"]
    names = {n["id"]: (card_title(n).splitlines() or [n.get("label", "")])[0] for n in canvas["nodes"]}
    problems = []
    for edge in canvas["edges"]:
        a, b = boxes[edge["fromNode"]], boxes[edge["toNode"]]
        curve = edge_curve(a, edge["fromSide"], b, edge["toSide"])
        what = f"{names[edge['fromNode']]} -> {names[edge['toNode']]}"
        hits = crossings(curve, cards, (a, b))
        if hits:
            problems.append(f"edge over {hits} card(s): {what}")
        if "label" in edge:
            x, y, w, h = label_rect(curve, edge["label"])
            if any(x < c.x + c.width and c.x < x + w and y < c.y + c.height and c.y < y + h for c in cards):
                problems.append(f"label on a card: {what}")
    return problems


def screenshot(svg: Path, png: Path, width: int, height: int) -> None:
    browser = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        raise SystemExit("no chromium found: install it (apt-get install chromium) or set $CHROMIUM")
    scale = min(1.0, 1800 / width)
    page = svg.with_suffix(".html")
    page.write_text(f'<html><body style="margin:0"><img src="{svg.name}" width="{int(width * scale)}" '
                    f'height="{int(height * scale)}"></body></html>', "utf-8")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--no-first-run", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                        f"--user-data-dir={profile}", f"--window-size={int(width * scale)},{int(height * scale)}",
                        f"--screenshot={png.resolve()}", page.resolve().as_uri()],
                       check=True, capture_output=True, timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("canvas", type=Path)
    parser.add_argument("out", type=Path, help="an .svg, or a .png (through headless Chromium)")
    parser.add_argument("--report", action="store_true", help="list edges over cards and labels on cards")
    args = parser.parse_args()
    canvas = json.loads(args.canvas.read_text("utf-8"))
    svg = to_svg(canvas)
    if args.out.suffix == ".svg":
        args.out.write_text(svg, "utf-8")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "map.svg"
            path.write_text(svg, "utf-8")
            view = svg.split('viewBox="', 1)[1].split('"', 1)[0].split()
            screenshot(path, args.out, int(float(view[2])), int(float(view[3])))
    if args.report:
        problems = reading_problems(canvas)
        print("\n".join(problems) or "no edge over a card, no label on a card")
        print(f"{len(canvas['edges'])} edges, {len(problems)} problems")


if __name__ == "__main__":
    main()
