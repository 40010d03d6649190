"""Concept maps (JSON Canvas 1.0): valid, readable (no overlaps), deterministic, links resolve."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from vaultsync.default_plugins.obsidian import ObsidianFormat
from vaultsync.records import Abstract, Collection, CollectionInfo, Concept, Paper, RenderContext, VaultModel
from vaultsync.views.canvas import CanvasOptions, render_canvases

ICML = Collection("ICML 2026 Papers", venue="ICML 2026", year=2026)
NEURIPS = Collection("NeurIPS 2025", venue="NeurIPS 2025", year=2025)
NODE_TYPES = {"text", "file", "link", "group"}
SIDES = {"top", "right", "bottom", "left"}
COLORS = {"1", "2", "3", "4", "5", "6"}


def make_model(concept_papers: dict[str, list[int]], broader: dict[str, str] | None = None,
               papers: int = 6) -> VaultModel:
    """Papers 0..papers-1 (even ones in ICML, odd ones in NeurIPS); concepts as given."""
    broader = broader or {}
    abstracts = [Abstract(f"Abstract number {i}.", "s.txt", i + 1, i * 2 + 1, ICML if i % 2 == 0 else NEURIPS)
                 for i in range(papers)]
    ids = [a.id for a in abstracts]
    paper_records = tuple(
        Paper(a, name=f"Paper {i}", title=f"Paper {i}", gist=f"gist {i}", aliases=(),
              concepts=tuple(c for c, ps in concept_papers.items() if i in ps), links=())
        for i, a in enumerate(abstracts))
    narrower: dict[str, list[str]] = {}
    for child, parent in broader.items():
        narrower.setdefault(parent, []).append(child)
    concepts = tuple(
        Concept(name, id=f"c-{name}", broader=(broader[name],) if name in broader else (),
                narrower=tuple(narrower.get(name, ())), papers=tuple(ids[i] for i in sorted(ps)))
        for name, ps in sorted(concept_papers.items()))
    collections = (CollectionInfo(ICML.name, ICML, tuple(ids[0::2])),
                   CollectionInfo(NEURIPS.name, NEURIPS, tuple(ids[1::2])))
    return VaultModel(paper_records, concepts, collections)


SMALL = {
    "Deep Learning": [0, 1, 2, 3, 4],
    "Graph Neural Networks": [0, 2, 4],
    "Message Passing": [0, 2],
    "Transformer": [1, 3, 5],
    "Attention": [1, 3],
    "Reinforcement Learning": [5],
}
SMALL_BROADER = {"Graph Neural Networks": "Deep Learning", "Message Passing": "Graph Neural Networks",
                 "Transformer": "Deep Learning"}


def load(text: str) -> dict:
    return json.loads(text)


def assert_valid_canvas(canvas: dict) -> None:
    """The JSON Canvas 1.0 spec's required keys and types, unique ids, edges between nodes."""
    assert set(canvas) <= {"nodes", "edges"}
    ids = [n["id"] for n in canvas["nodes"]] + [e["id"] for e in canvas["edges"]]
    assert len(ids) == len(set(ids))
    for node in canvas["nodes"]:
        assert isinstance(node["id"], str) and node["type"] in NODE_TYPES
        for key in ("x", "y", "width", "height"):
            assert isinstance(node[key], int)
        assert node["width"] > 0 and node["height"] > 0
        assert node.get("color", "1") in COLORS
        if node["type"] == "file":
            assert isinstance(node["file"], str)
        if node["type"] == "text":
            assert isinstance(node["text"], str)
        if node["type"] == "group":
            assert isinstance(node.get("label", ""), str)
    node_ids = {n["id"] for n in canvas["nodes"]}
    for edge in canvas["edges"]:
        assert edge["fromNode"] in node_ids and edge["toNode"] in node_ids
        assert edge.get("fromSide", "top") in SIDES and edge.get("toSide", "top") in SIDES
        assert edge.get("toEnd", "arrow") in {"none", "arrow"}


def overlaps(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def inside(inner: dict, outer: dict) -> bool:
    return (outer["x"] <= inner["x"] and inner["x"] + inner["width"] <= outer["x"] + outer["width"]
            and outer["y"] <= inner["y"] and inner["y"] + inner["height"] <= outer["y"] + outer["height"])


def assert_readable(canvas: dict) -> None:
    """No two boxes overlap, no two groups overlap, and each box is wholly in or out of a group."""
    boxes = [n for n in canvas["nodes"] if n["type"] != "group"]
    groups = [n for n in canvas["nodes"] if n["type"] == "group"]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not overlaps(a, b), (a, b)
    for i, a in enumerate(groups):
        for b in groups[i + 1:]:
            assert not overlaps(a, b), (a, b)
    for box in boxes:
        for group in groups:
            assert inside(box, group) or not overlaps(box, group), (box, group)
    # groups come first, so Obsidian draws them under their members
    kinds = [n["type"] for n in canvas["nodes"]]
    assert kinds[: kinds.count("group") + 1].count("group") == kinds.count("group")


def by_file(canvas: dict) -> dict[str, dict]:
    return {n["file"]: n for n in canvas["nodes"] if n["type"] == "file"}


def test_one_map_per_collection_and_one_for_all_concepts():
    files = render_canvases(make_model(SMALL, SMALL_BROADER))
    assert [f.path for f in files] == ["Maps/ICML 2026 Papers.canvas", "Maps/NeurIPS 2025.canvas",
                                       "Maps/All concepts.canvas"]
    for f in files:
        assert (f.kind, f.merge, f.frontmatter, f.vaultsync_id) == ("canvas", False, None, None)
        canvas = load(f.body)
        assert_valid_canvas(canvas)
        assert_readable(canvas)


def test_a_collection_map_shows_only_the_concepts_of_its_papers():
    icml, neurips, everything = (load(f.body) for f in render_canvases(make_model(SMALL, SMALL_BROADER)))
    assert set(by_file(icml)) == {"Concepts/Deep Learning.md", "Concepts/Graph Neural Networks.md",
                                  "Concepts/Message Passing.md"}
    assert "Concepts/Graph Neural Networks.md" not in by_file(neurips)
    assert len(by_file(everything)) == len(SMALL)


def test_every_file_node_names_a_note_the_obsidian_format_writes():
    model = make_model(SMALL, SMALL_BROADER)
    written = {f.path for f in ObsidianFormat().render(model, RenderContext())}
    canvases = [f for f in written if f.endswith(".canvas")]
    assert len(canvases) == 3  # the format renders the maps too
    for f in render_canvases(model):
        for path in by_file(load(f.body)):
            assert path in written


def test_bigger_nodes_for_concepts_more_papers_mention():
    nodes = by_file(load(render_canvases(make_model(SMALL, SMALL_BROADER))[-1].body))
    big, small = nodes["Concepts/Deep Learning.md"], nodes["Concepts/Reinforcement Learning.md"]
    assert big["width"] > small["width"] and big["height"] > small["height"]


def test_concepts_are_grouped_under_their_broader_concept():
    canvas = load(render_canvases(make_model(SMALL, SMALL_BROADER))[-1].body)
    groups = [n for n in canvas["nodes"] if n["type"] == "group"]
    assert [g["label"] for g in groups] == ["Deep Learning"]
    nodes = by_file(canvas)
    for name in ("Deep Learning", "Graph Neural Networks", "Message Passing", "Transformer"):
        assert inside(nodes[f"Concepts/{name}.md"], groups[0])
    assert not overlaps(nodes["Concepts/Reinforcement Learning.md"], groups[0])


def test_edges_for_broader_links_and_shared_papers():
    canvas = load(render_canvases(make_model(SMALL, SMALL_BROADER))[-1].body)
    name_of = {n["id"]: n["file"][len("Concepts/"):-3] for n in canvas["nodes"] if n["type"] == "file"}
    arrows = {(name_of[e["fromNode"]], name_of[e["toNode"]]) for e in canvas["edges"] if is_arrow(e)}
    assert arrows == {("Deep Learning", "Graph Neural Networks"), ("Graph Neural Networks", "Message Passing"),
                      ("Deep Learning", "Transformer")}
    shared = {frozenset((name_of[e["fromNode"]], name_of[e["toNode"]])): e["label"]
              for e in canvas["edges"] if "label" in e}
    assert shared[frozenset(("Attention", "Transformer"))] == "2 papers"
    assert shared[frozenset(("Attention", "Deep Learning"))] == "2 papers"
    # a broader link is not drawn twice, and one shared paper is not "strong"
    assert frozenset(("Deep Learning", "Graph Neural Networks")) not in shared
    assert frozenset(("Reinforcement Learning", "Transformer")) not in shared


def test_a_big_vault_is_capped_and_the_map_says_how_many_were_left_out():
    concepts = {f"Concept {i:02d}": list(range(i % 5 + 1)) for i in range(55)}
    canvas = load(render_canvases(make_model(concepts))[-1].body)
    assert len(by_file(canvas)) == 40
    header = next(n for n in canvas["nodes"] if n["type"] == "text")
    assert "15 more are left out" in header["text"]
    # the most mentioned are the ones kept
    assert "Concepts/Concept 04.md" in by_file(canvas) and "Concepts/Concept 00.md" not in by_file(canvas)
    assert_readable(canvas)
    fewer = load(render_canvases(make_model(concepts), CanvasOptions(max_concepts=10))[-1].body)
    assert len(by_file(fewer)) == 10


def test_same_model_gives_the_same_bytes():
    first = render_canvases(make_model(SMALL, SMALL_BROADER))
    second = render_canvases(make_model(dict(reversed(SMALL.items())), SMALL_BROADER))
    assert [(f.path, f.body) for f in first] == [(f.path, f.body) for f in second]
    assert first[0].body.startswith('{\n\t"nodes": [') and first[0].body.endswith("}\n")


def test_a_collection_named_all_concepts_does_not_replace_the_whole_map():
    model = make_model(SMALL)
    renamed = VaultModel(model.papers, model.concepts,
                         (CollectionInfo("All Concepts", ICML, model.collections[0].papers),))
    assert [f.path for f in render_canvases(renamed)] == ["Maps/All Concepts (collection).canvas",
                                                          "Maps/All concepts.canvas"]


def test_an_empty_vault_gets_a_map_with_only_its_header():
    canvas = load(render_canvases(VaultModel((), (), ()))[0].body)
    assert [n["type"] for n in canvas["nodes"]] == ["text"] and canvas["edges"] == []


names = st.sampled_from([f"C{i}" for i in range(30)])


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(names, st.lists(st.integers(0, 9), min_size=1, max_size=6), min_size=1, max_size=30),
       st.dictionaries(names, names, max_size=20))
def test_any_model_gives_a_valid_map_without_overlaps(concept_papers, broader):
    broader = {c: b for c, b in broader.items() if c in concept_papers and b in concept_papers and c != b}
    for f in render_canvases(make_model(concept_papers, broader, papers=10), CanvasOptions(max_concepts=25)):
        canvas = load(f.body)
        assert_valid_canvas(canvas)
        assert_readable(canvas)


# ---------------------------------------------------------------- a map that reads at a glance
def is_arrow(edge: dict) -> bool:
    """A broader -> narrower edge (a co-occurrence line has no arrow, and may have no label)."""
    return edge.get("toEnd", "arrow") == "arrow"


def edge_geometry(canvas: dict):
    """(edge, its curve, the cards it passes over, whether its label sits on a card), as drawn."""
    from vaultsync.views.canvas_layout import Box, crossings, edge_curve, label_rect

    boxes = {n["id"]: Box(n["id"], 0, n["width"], n["height"], n["x"], n["y"]) for n in canvas["nodes"]}
    cards = [boxes[n["id"]] for n in canvas["nodes"] if n["type"] != "group"]
    for edge in canvas["edges"]:
        a, b = boxes[edge["fromNode"]], boxes[edge["toNode"]]
        curve = edge_curve(a, edge["fromSide"], b, edge["toSide"])
        on_card = False
        if "label" in edge:
            x, y, w, h = label_rect(curve, edge["label"])
            on_card = any(x < c.x + c.width and c.x < x + w and y < c.y + c.height and c.y < y + h for c in cards)
        yield edge, curve, crossings(curve, cards, (a, b)), on_card


def test_a_concept_that_heads_a_group_sits_in_it():
    """The map's biggest concept, whose own broader concept is off the map, heads its group."""
    concepts = {"Big": [0, 1, 2, 3, 4], "Child A": [0, 1], "Child B": [2, 3], "Other": [5]}
    model = make_model(concepts, {"Child A": "Big", "Child B": "Big", "Big": "Hidden"})
    model = VaultModel(model.papers, model.concepts + (Concept("Hidden", id="c-Hidden", narrower=("Big",)),),
                       model.collections)
    canvas = load(render_canvases(model)[-1].body)
    [group] = [n for n in canvas["nodes"] if n["type"] == "group"]
    nodes = by_file(canvas)
    assert group["label"] == "Big"
    for name in ("Big", "Child A", "Child B"):
        assert inside(nodes[f"Concepts/{name}.md"], group)


def test_broader_concepts_sit_above_narrower_ones_and_arrows_run_between_layers():
    canvas = load(render_canvases(make_model(SMALL, SMALL_BROADER))[-1].body)
    nodes = by_file(canvas)
    for parent, child in [("Deep Learning", "Graph Neural Networks"), ("Graph Neural Networks", "Message Passing"),
                          ("Deep Learning", "Transformer")]:
        top, bottom = nodes[f"Concepts/{parent}.md"], nodes[f"Concepts/{child}.md"]
        assert top["y"] + top["height"] < bottom["y"]
    for edge, _, over, _ in edge_geometry(canvas):
        if is_arrow(edge):
            assert (edge["fromSide"], edge["toSide"]) == ("bottom", "top") and over == 0


def test_the_last_slots_go_to_concepts_that_join_the_map_not_to_the_alphabet():
    concepts = {"Big": [0, 1, 2], "Aardvark": [3], "Abacus": [4], "Zeta": [5]}
    canvas = load(render_canvases(make_model(concepts, {"Zeta": "Big"}), CanvasOptions(max_concepts=2))[-1].body)
    assert set(by_file(canvas)) == {"Concepts/Big.md", "Concepts/Zeta.md"}


def test_the_bundled_vaults_map_keeps_edges_and_labels_off_cards(tmp_path, monkeypatch):
    from vaultsync.pipeline import ExportOptions, export
    from vaultsync.plugins import get_plugin_manager

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    root = Path(__file__).resolve().parents[1]
    export(root / "seeds", tmp_path / "vault", get_plugin_manager(), ExportOptions())
    canvas = load((tmp_path / "vault/Maps/All concepts.canvas").read_text("utf-8"))
    assert_valid_canvas(canvas)
    assert_readable(canvas)
    drawn = list(edge_geometry(canvas))
    assert len(drawn) >= 20
    assert not [e for e, _, _, on_card in drawn if on_card], "an edge label sits on a card"
    over = [e for e, _, hits, _ in drawn if hits]
    assert len(over) <= len(drawn) // 6, f"{len(over)} of {len(drawn)} edges pass over a card"


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(names, st.lists(st.integers(0, 9), min_size=1, max_size=6), min_size=1, max_size=30),
       st.dictionaries(names, names, max_size=20))
def test_arrows_down_a_group_never_pass_over_a_card(concept_papers, broader):
    broader = {c: b for c, b in broader.items() if c in concept_papers and b in concept_papers and c != b}
    canvas = load(render_canvases(make_model(concept_papers, broader, papers=10))[-1].body)
    for edge, _, over, _ in edge_geometry(canvas):
        if (edge["fromSide"], edge["toSide"]) == ("bottom", "top") and is_arrow(edge):
            assert over == 0, edge


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(names, st.lists(st.integers(0, 9), min_size=1, max_size=6, unique=True), min_size=1,
                       max_size=30),
       st.dictionaries(names, names, max_size=20), st.integers(5, 40))
def test_no_edge_label_ever_sits_on_a_card(concept_papers, broader, max_concepts):
    """Whatever the concepts, every map keeps its labels off cards (a label there hides the card's
    name); a co-occurrence line keeps its label unless no way of drawing it leaves the label clear."""
    broader = {c: b for c, b in broader.items() if c in concept_papers and b in concept_papers and c != b}
    model = make_model(concept_papers, broader, papers=10)
    for f in render_canvases(model, CanvasOptions(max_concepts=max_concepts)):
        canvas = load(f.body)
        assert_valid_canvas(canvas)
        assert_readable(canvas)
        for edge, _, _, on_card in edge_geometry(canvas):
            assert not on_card, edge


def fresh_maps(model: VaultModel, options: CanvasOptions = CanvasOptions()) -> list[tuple[str, str]]:
    """The maps of ``model`` drawn from nothing (no map's last drawing kept)."""
    from vaultsync.views import canvas

    canvas._DRAWN.clear()
    return [(f.path, f.body) for f in render_canvases(model, options)]


def test_a_map_whose_plan_did_not_change_is_not_drawn_again_and_ends_the_same(monkeypatch):
    from vaultsync.views import canvas

    before = make_model(SMALL, SMALL_BROADER)
    more = {**SMALL, "Attention": [1, 3, 5], "Reinforcement Learning": [5, 3]}  # NeurIPS papers only
    after = make_model(more, SMALL_BROADER)
    fresh_maps(before)
    drawn, real_draw = [], canvas._draw
    monkeypatch.setattr(canvas, "_draw", lambda plan: drawn.append(plan) or real_draw(plan))
    again = [(f.path, f.body) for f in render_canvases(after)]
    assert [p.header.splitlines()[0] for p in drawn] == ["# NeurIPS 2025", "# All concepts"]  # not ICML's
    monkeypatch.undo()
    assert again == fresh_maps(after)


models = st.tuples(st.dictionaries(names, st.lists(st.integers(0, 9), min_size=1, max_size=6), min_size=1,
                                   max_size=30),
                   st.dictionaries(names, names, max_size=20))


def as_model(given: tuple[dict, dict]) -> VaultModel:
    concept_papers, broader = given
    broader = {c: b for c, b in broader.items() if c in concept_papers and b in concept_papers and c != b}
    return make_model(concept_papers, broader, papers=10)


@settings(max_examples=150, deadline=None)
@given(models, st.dictionaries(names, names, max_size=20), st.integers(3, 12))
def test_maps_drawn_after_other_maps_are_the_maps_drawn_from_nothing(first, other_broader, max_concepts):
    """A map is drawn again only when its plan changed: after the maps of any model, those of the
    same papers under other broader links (what a watcher's round most often asks) are the same
    bytes as maps drawn from nothing."""
    options = CanvasOptions(max_concepts=max_concepts)
    fresh_maps(as_model(first), options)
    after = as_model((first[0], other_broader))
    assert [(f.path, f.body) for f in render_canvases(after, options)] == fresh_maps(after, options)


@settings(max_examples=120, deadline=None)
@given(st.dictionaries(names, st.lists(st.integers(0, 9), min_size=1, max_size=6), min_size=1, max_size=30),
       st.dictionaries(names, names, max_size=20), st.dictionaries(names, names, max_size=20),
       st.integers(3, 12))
def test_every_collection_map_a_new_concept_graph_changes_is_one_render_changes_names(
        concept_papers, broader, other_broader, max_concepts):
    """The same papers and concepts, other broader links: the maps that differ are among those
    ``render_changes`` says may differ (the others are not rendered in a watcher's round)."""
    from vaultsync.render_changes import render_changes

    before, after = as_model((concept_papers, broader)), as_model((concept_papers, other_broader))
    options = CanvasOptions(max_concepts=max_concepts)
    old, new = dict(fresh_maps(before, options)), dict(fresh_maps(after, options))
    differ = {path for path in new if new[path] != old.get(path)}
    may = render_changes(before, after).collection_maps
    assert may is not None
    assert differ - {"Maps/All concepts.canvas"} <= {f"Maps/{name}.canvas" for name in may}


def test_a_map_that_reads_a_moved_concept_only_through_an_ancestor_is_redrawn_and_named():
    """C's broader concept X is on no ICML paper; X moves from under A to under B, so on ICML's
    map C joins B's group instead of A's: ``render_changes`` names the map, and it is drawn anew."""
    from vaultsync.render_changes import render_changes

    papers = {"A": [0, 2, 4], "B": [0, 2], "C": [2, 4], "X": [1]}
    before = make_model(papers, {"C": "X", "X": "A"})
    after = make_model(papers, {"C": "X", "X": "B"})
    options = CanvasOptions(max_concepts=3)
    old = dict(fresh_maps(before, options))
    assert ICML.name in render_changes(before, after).collection_maps
    again = [(f.path, f.body) for f in render_canvases(after, options)]
    assert again == fresh_maps(after, options)
    assert dict(again)[f"Maps/{ICML.name}.canvas"] != old[f"Maps/{ICML.name}.canvas"]
