"""The `logseq` and `jsonl` output formats, on a small hand-built vault model."""

from __future__ import annotations

import json
import re

import pytest

from vaultsync.default_plugins.jsonl import JsonlFormat
from vaultsync.default_plugins.logseq import LogseqFormat, logseq_file_name
from vaultsync.records import (
    Abstract,
    Collection,
    CollectionInfo,
    Concept,
    OutputFile,
    Paper,
    RenderContext,
    VaultModel,
    frozen_mapping,
)

ICML = Collection("ICML 2026 Papers", venue="ICML 2026", year=2026)
TEXT_MOE = "We scale Mixture-of-Experts (MoE) models with sparse routing. Code: https://github.com/a/b."
TEXT_RL = "A Transformer policy for offline RL, with a café of experts — no ASCII here."


def make_model() -> VaultModel:
    moe = Abstract(TEXT_MOE, seed="icml.txt", paragraph=1, line=3, collection=ICML)
    rl = Abstract(TEXT_RL, seed="icml.txt", paragraph=2, line=5, collection=ICML)
    papers = (
        Paper(
            moe,
            name="SparseMoE",
            title="SparseMoE — sparse routing for Mixture-of-Experts",
            gist="sparse routing for MoE",
            aliases=("Sparse MoE, v2", "MoE"),  # a comma; and a concept's alias
            concepts=("Mixture Of Experts", "Routing"),
            links=(("Mixture-of-Experts", "Mixture Of Experts"),),
            urls=("https://github.com/a/b",),
            related=(rl.id,),
            metadata=frozen_mapping({"code": ("https://github.com/a/b",), "stars_count": 3}),
        ),
        Paper(
            rl,
            name="Transformer",  # the same name as a concept: Logseq has one namespace
            title="Transformer policies: offline RL",
            gist="",
            aliases=(),
            concepts=("Transformer",),
            links=(("Transformer", "Transformer"),),
            related=(moe.id,),
        ),
    )
    concepts = (
        Concept("Mixture Of Experts", id="c1", aliases=("MoE",), narrower=("Routing",),
                papers=(moe.id,)),
        Concept("Routing", id="c2", broader=("Mixture Of Experts",), papers=(moe.id,)),
        Concept("Transformer", id="c3", papers=(rl.id,)),
    )
    collections = (CollectionInfo("ICML 2026 Papers", ICML, (moe.id, rl.id)),)
    return VaultModel(papers, concepts, collections)


def render(fmt, model=None, render_note=None) -> list[OutputFile]:
    return list(fmt.render(model or make_model(), RenderContext(render_note=render_note)))


def properties(body: str) -> dict[str, str]:
    """The leading ``key:: value`` lines of a Logseq page (its page properties)."""
    props = {}
    for line in body.splitlines():
        found = re.fullmatch(r"([a-z0-9-]+):: (.*)", line)
        if not found:
            break
        props[found.group(1)] = found.group(2)
    return props


@pytest.mark.parametrize(
    "title, stem",
    [
        ("Mixture Of Experts", "Mixture Of Experts"),
        ("Input/Output", "Input___Output"),
        ("Q: why?", "Q%3A why%3F"),
        ('a*b"c<d>e|f#g\\h', "a%2Ab%22c%3Cd%3Ee%7Cf%23g%5Ch"),
        ("100%25 sure", "100%2525 sure"),  # looks URL-encoded already: its % is encoded
        ("snake_/x", "snake%5F___x"),
        ("a___b", "a%5F%5F%5Fb"),
        ("CON", "CON___"),
        ("Etc.", "Etc.___"),
        ("/lead", "lead"),
        ("Cafe\u0301", "Café"),  # NFC
    ],
)
def test_logseq_file_names_follow_triple_lowbar_format(title, stem):
    assert logseq_file_name(title) == stem


def test_logseq_pages_start_with_properties_then_blocks():
    files = {f.path: f for f in render(LogseqFormat())}
    paper = files["pages/SparseMoE.md"]
    props = properties(paper.body)
    assert list(props)[:3] == ["title", "type", "full-title"]
    assert props["title"] == "SparseMoE"
    assert props["type"] == "paper"
    assert props["venue"] == "ICML 2026" and props["year"] == "2026"
    assert props["concepts"] == "[[Mixture Of Experts]], [[Routing]]"
    assert props["tags"] == "[[ICML 2026 Papers]]"
    assert props["code"] == "https://github.com/a/b"  # plugin metadata becomes a property
    assert props["stars-count"] == "3"  # Logseq property keys use dashes
    # the alias with a comma is bracketed; "MoE" is the concept's alias, so the paper drops it
    assert props["alias"] == "[[Sparse MoE, v2]]"
    assert paper.body.split("\n\n", 1)[1].startswith("- We scale")  # the abstract block
    assert paper.frontmatter is None and paper.merge is False


def test_logseq_abstract_links_concepts_logseq_style():
    pytest.importorskip("vaultsync.markdown")
    files = {f.path: f for f in render(LogseqFormat())}
    body = files["pages/SparseMoE.md"].body.split("\n\n", 1)[1]
    assert "[Mixture-of-Experts]([[Mixture Of Experts]])" in body
    assert "|" not in body  # no Obsidian-only [[target|label]] links


def test_logseq_concept_page_has_alias_and_lists_its_papers():
    files = {f.path: f for f in render(LogseqFormat())}
    concept = files["pages/Mixture Of Experts.md"]
    props = properties(concept.body)
    assert props["type"] == "concept"
    assert props["alias"] == "MoE"
    assert props["narrower"] == "[[Routing]]"
    assert "\t- [[SparseMoE]] — sparse routing for MoE" in concept.body


def test_logseq_paper_named_like_a_concept_gets_its_own_page():
    files = {f.path: f for f in render(LogseqFormat())}
    assert properties(files["pages/Transformer.md"].body)["type"] == "concept"
    paper = files["pages/Transformer (paper).md"]
    assert properties(paper.body)["title"] == "Transformer (paper)"
    assert "[[Transformer (paper)]]" in properties(files["pages/SparseMoE.md"].body)["related"]


def test_every_logseq_link_has_a_page():
    files = render(LogseqFormat())
    titles = {properties(f.body)["title"].casefold() for f in files}
    aliases = {
        a.strip().strip("[]").casefold()
        for f in files
        for a in re.split(r",\s(?![^\[]*\]\])", properties(f.body).get("alias", ""))
        if a
    }
    assert len(titles) == len(files)  # one page per title, case-insensitively
    for f in files:
        for target in re.findall(r"\[\[([^\[\]]+)\]\]", f.body):
            assert target.casefold() in titles | aliases, f"{f.path} links to missing [[{target}]]"
        assert f.path == f"pages/{logseq_file_name(properties(f.body)['title'])}.md"


def test_logseq_uses_a_plugin_rendered_note():
    override = OutputFile("pages/custom.md", "title:: custom\n", merge=False)

    def render_note(subject, fmt, model):
        return override if isinstance(subject, Concept) and subject.name == "Routing" else None

    files = render(LogseqFormat(), render_note=render_note)
    assert override in files
    assert "pages/Routing.md" not in {f.path for f in files}


def test_jsonl_is_one_json_object_per_paper():
    model = make_model()
    [file] = render(JsonlFormat(), model)
    assert (file.path, file.kind, file.merge) == ("papers.jsonl", "data", False)
    lines = file.body.splitlines()
    assert len(lines) == len(model.papers) and file.body.endswith("\n")
    records = [json.loads(line) for line in lines]
    required = {"id", "name", "title", "venue", "year", "concepts", "aliases", "urls", "source", "text"}
    for record, paper in zip(records, model.papers):  # model order
        assert isinstance(record, dict) and required <= set(record)
        assert record["id"] == paper.id and record["text"] == paper.abstract.text
    assert records[0]["concepts"] == ["Mixture Of Experts", "Routing"]
    assert records[0]["related"] == [model.papers[1].id]
    assert records[0]["metadata"] == {"code": ["https://github.com/a/b"], "stars_count": 3}
    assert "café" in file.body  # not ASCII-escaped


def test_jsonl_is_deterministic():
    assert render(JsonlFormat(), make_model()) == render(JsonlFormat(), make_model())


def test_jsonl_uses_a_plugin_rendered_paper():
    def render_note(subject, fmt, model):
        return OutputFile("x", json.dumps({"id": subject.id, "custom": True})) if fmt == "jsonl" else None

    [file] = render(JsonlFormat(), render_note=render_note)
    assert all(json.loads(line)["custom"] for line in file.body.splitlines())


def test_logseq_text_is_escaped_for_logseqs_parser():
    """What mldoc would read as a tag, HTML, a task, a macro, a block reference or LaTeX stays
    text (tests/test_clients.py checks whole exports with mldoc itself)."""
    from vaultsync.logseq_text import escape_logseq, logseq_markdown

    assert escape_logseq("ranked #1 in C#") == r"ranked \#1 in C\#"
    assert escape_logseq('<script>alert("x")</script>') == r'\<script>alert("x")\</script>'
    assert escape_logseq("TODO: read", block_start=True) == r"\TODO: read"
    assert escape_logseq("((ref)) {{macro}} key:: value") == r"\((ref)) \{{macro}} key:\: value"
    assert escape_logseq("[[x]] and [0, 1]") == r"\[\[x]] and \[0, 1]"
    assert escape_logseq(r"a \] b") == "a \\\\\u2060] b"  # never `\]`: it closes a LaTeX `\[`
    markdown = r"\#1 on \[\[x\]\] with &#96; and [[Mixture Of Experts|MoE]]\(sparse) $x^2$ `co#de`"
    assert logseq_markdown(markdown, {"Mixture Of Experts": "MoE page"}.get) == (
        r"\#1 on \[\[x]] with \` and [MoE]([[MoE page]])(sparse) $x^2$ `co#de`")


def test_logseq_free_text_properties_are_escaped_and_links_are_not():
    model = make_model()
    paper = model.papers[0]
    odd = Collection('Inspec: "Test" split #1', venue='Inspec: "Test" split #1', year=None)
    abstract = Abstract(paper.abstract.text, "icml.txt", 1, 3, odd)
    tagged = Paper(abstract, name=paper.name, title="#1 on <b>MoE</b>", gist=paper.gist, aliases=("C#",),
                   concepts=paper.concepts, links=paper.links, urls=paper.urls,
                   metadata=frozen_mapping({"code": ("https://github.com/a/my_repo",)}))
    model = VaultModel((tagged,), model.concepts, (CollectionInfo(odd.name, odd, (abstract.id,)),))
    props = properties(next(f for f in render(LogseqFormat(), model) if f.path == "pages/SparseMoE.md").body)
    assert props["full-title"] == r"\#1 on \<b>MoE\</b>"
    assert props["venue"] == r'Inspec: "Test" split \#1' and "year" not in props
    assert props["alias"] == "[[C#]]"
    assert props["code"] == "https://github.com/a/my_repo"
