"""Every client reads the export as written: Logseq's own parser (mldoc) reads every page of a
Logseq export with its properties and page references intact, and markdown-it (CommonMark, with
Obsidian-style wiki-links and KaTeX math) renders every Obsidian note and map without a stray link,
raw HTML or open math.

The parsers are npm packages (``tests/clients/package.json``), installed on first use into
``tests/clients/node_modules/`` (git-ignored); the tests skip when node or npm is absent or the
install fails. The export is the bundled seeds plus the edge-case seeds of ``tests/data/edge_seeds``.

Run as a script for the figures: ``python tests/test_clients.py [SEEDS_DIR ...]``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = ROOT / "tests" / "clients"
EDGE_SEEDS = ROOT / "tests" / "data" / "edge_seeds"
SEED_DIRS = (ROOT / "seeds", EDGE_SEEDS)


# ---------------------------------------------------------------- running the parsers
class ClientsUnavailable(Exception):
    """node or npm is missing, or the parsers could not be installed."""


def install_clients() -> None:
    """``npm ci`` into tests/clients/node_modules, once (the lockfile pins every package)."""
    if not shutil.which("node"):
        raise ClientsUnavailable("node is needed to run Logseq's and markdown-it's parsers")
    if (CLIENTS / "node_modules" / ".package-lock.json").is_file():
        return
    if not shutil.which("npm"):
        raise ClientsUnavailable("npm is needed to install Logseq's and markdown-it's parsers")
    result = subprocess.run(["npm", "ci", "--silent", "--no-audit", "--no-fund"], cwd=CLIENTS,
                            capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise ClientsUnavailable(f"npm ci failed in {CLIENTS}: {result.stderr.strip()[-500:]}")


def read_as(parser: str, items: list[dict[str, str]]) -> dict:
    """What ``parser`` ("mldoc" or "markdown") reads in each {"id", "text"}."""
    install_clients()
    result = subprocess.run(["node", str(CLIENTS / "read_as_clients.js"), parser], input=json.dumps(items),
                            capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise AssertionError(f"read_as_clients.js {parser} failed: {result.stderr[-2000:]}")
    return json.loads(result.stdout)


def export_mixed(seed_dirs, target: Path, fmt: str) -> Path:
    """Export every seed file of ``seed_dirs`` (copied into one folder) to ``target`` in ``fmt``."""
    from vaultsync.pipeline import ExportOptions, export
    from vaultsync.plugins import get_plugin_manager

    seeds = target.parent / f"{target.name}-seeds"
    seeds.mkdir(parents=True, exist_ok=True)
    for folder in seed_dirs:
        for seed in sorted(Path(folder).glob("*.txt")):
            shutil.copy(seed, seeds / seed.name)
    os.environ.setdefault("VAULTSYNC_STATE_DIR", str(target.parent / "state"))  # run as a script
    export(seeds, target, get_plugin_manager(), ExportOptions(format=fmt))
    return target


# ---------------------------------------------------------------- Logseq pages, as mldoc reads them
# Inline elements an exported page may hold; any other (Tag, Inline_Html, Macro, Footnote_Reference,
# Timestamp, Export_Snippet, a Block_ref...) is text mldoc misread.
MLDOC_INLINE = {"Plain", "Link", "Emphasis", "Code", "Latex_Fragment", "Break_Line", "Email"}
_PROPERTY_LINE = re.compile(r"^([a-z0-9-]+):: (.*)$")
_PAGE_REF = re.compile(r"\[\[(.+?)\]\]")


def written_properties(text: str) -> dict[str, str]:
    """The ``key:: value`` lines at the top of a page, as written."""
    properties = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        match = _PROPERTY_LINE.match(line)
        if match:
            properties[match.group(1)] = match.group(2)
    return properties


def _inline_problems(nodes: list, text: str, titles: set[str]) -> list[str]:
    problems = []
    for node in nodes:
        kind, value = node[0], node[1] if len(node) > 1 else None
        if kind not in MLDOC_INLINE:
            problems.append(f"{kind} {json.dumps(node[1:])[:80]}")
        elif kind == "Link":
            url = value["url"]
            if url[0] == "Page_ref" and url[1].casefold() not in titles:
                problems.append(f"a reference to a page that does not exist: [[{url[1]}]]")
            elif url[0] not in ("Page_ref", "Complex"):
                problems.append(f"a {url[0]} link: {value['full_text'][:80]}")
            problems += _inline_problems(value.get("label") or [], text, titles)
        elif kind == "Emphasis":
            if value[0][0] not in ("Italic", "Bold"):
                problems.append(f"{value[0][0]} emphasis")
            problems += _inline_problems(value[1], text, titles)
        elif kind == "Latex_Fragment":
            delimiter = "$" if value[0] == "Inline" else "$$"
            if f"{delimiter}{value[1]}{delimiter}" not in text:
                problems.append(f"math that was not written as math: {value[1][:80]!r}")
    return problems


def page_problems(text: str, ast: list, titles: set[str]) -> list[str]:
    """How mldoc's reading of a page differs from what vaultsync wrote: properties lost, changed or
    holding references that were not written as ``[[…]]``; blocks that are not plain list items;
    inline elements that were meant as text; page references to pages that do not exist."""
    problems = []
    blocks = [block for block, _ in ast]
    written = written_properties(text)
    drawer = blocks[0][1] if blocks and blocks[0][0] == "Property_Drawer" else []
    read = {key: (value, refs) for key, value, refs in drawer}
    if set(read) != set(written):
        problems.append(f"properties read {sorted(read)}, written {sorted(written)}")
    for key, (value, refs) in read.items():
        if written.get(key) != value:
            problems.append(f"property {key}: read {value!r}, written {written.get(key)!r}")
        expected = _PAGE_REF.findall(value)  # what was written as `[[…]]` (escaped text is `\[\[…`)
        found = [ref[1]["url"][1] for ref in refs if ref[0] == "Link" and ref[1]["url"][0] == "Page_ref"]
        if len(found) != len(refs) or found != expected:
            problems.append(f"property {key}: references {json.dumps(refs)[:120]}, written {expected}")
        if key not in ("alias",):
            problems += [f"property {key}: {p}" for p in _inline_problems(refs, text, titles)]
    body = text.split("\n\n", 1)[1] if "\n\n" in text else ""
    items = sum(1 for line in body.splitlines() if line.lstrip("\t").startswith("- "))
    headings = [b for b in blocks if b[0] == "Heading"]
    if len(headings) != items:
        problems.append(f"{len(headings)} blocks read, {items} written")
    for block in blocks[1:]:
        if block[0] == "Paragraph" and all(n[0] == "Break_Line" for n in block[1]):
            continue
        if block[0] != "Heading":
            problems.append(f"a {block[0]} block")
            continue
        heading = block[1]
        if heading.get("marker") or heading.get("priority") or heading.get("size"):
            problems.append(f"a block read as a task, priority or heading: {json.dumps(heading['title'])[:80]}")
        if heading["meta"]["properties"]:
            problems.append(f"block properties {heading['meta']['properties']}")
        problems += _inline_problems(heading["title"], text, titles)
    return problems


def logseq_problems(pages: Path) -> dict[str, list[str]]:
    """Page file name -> what mldoc misreads in it (pages read cleanly are left out)."""
    texts = {p.name: p.read_text("utf-8") for p in sorted(pages.glob("*.md"))}
    titles = {written_properties(t)["title"].casefold() for t in texts.values()}
    read = read_as("mldoc", [{"id": name, "text": text} for name, text in texts.items()])
    out = {}
    for result in read["results"]:
        problems = page_problems(texts[result["id"]], result["ast"], titles)
        if problems:
            out[result["id"]] = problems
    return out


# ---------------------------------------------------------------- Obsidian notes, as markdown-it reads them
MARKDOWN_BLOCKS = {"paragraph_open", "paragraph_close", "heading_open", "heading_close", "bullet_list_open",
                   "bullet_list_close", "list_item_open", "list_item_close", "inline", "math_block"}
MARKDOWN_INLINE = {"text", "text_special", "softbreak", "wikilink", "math_inline", "math_inline_double", "code_inline", "em_open",
                   "em_close", "strong_open", "strong_close", "link_open", "link_close"}
_WEB_URL = re.compile(r"(?:https?|ftp)://\S+|mailto:\S+")


def note_problems(tokens: list[dict]) -> list[str]:
    """What markdown-it reads in a note body that vaultsync did not write: a Markdown link to
    something other than a web address (`[[X|y]](QUBO)` read as `[…](QUBO)`), raw HTML, an image,
    a block vaultsync never writes (quote, code block, table), a `$` that is not an escape (math
    left open), a `[[`/`]]` that is not a link."""
    problems = []
    for token in tokens:
        kind, content = token["type"], token.get("content", "")
        if kind not in MARKDOWN_BLOCKS | MARKDOWN_INLINE:
            problems.append(f"{kind} {content[:80]!r}")
        elif kind == "link_open" and not _WEB_URL.fullmatch(token.get("href") or ""):
            problems.append(f"a link to {token.get('href')!r}")
        elif kind == "text" and ("$" in content or "[[" in content or "]]" in content):
            problems.append(f"text {content[:80]!r}")
    return problems


def obsidian_problems(vault: Path) -> dict[str, list[str]]:
    """Note (or map text node) -> what markdown-it misreads in it."""
    from vaultsync.frontmatter_io import split_note

    items = []
    for path in sorted(vault.rglob("*")):
        relative = path.relative_to(vault).as_posix()
        if relative.startswith(".") or not path.is_file():
            continue
        if path.suffix == ".md":
            items.append({"id": relative, "text": split_note(path.read_text("utf-8"))[1]})
        elif path.suffix == ".canvas":  # Obsidian renders a map's text cards as Markdown
            for node in json.loads(path.read_text("utf-8"))["nodes"]:
                if node["type"] == "text":
                    items.append({"id": f"{relative} text card {node['id']}", "text": node["text"]})
    read = read_as("markdown", items)
    return {r["id"]: p for r in read["results"] if (p := note_problems(r["tokens"]))}


# ---------------------------------------------------------------- tests
@pytest.fixture(scope="module")
def clients():
    try:
        install_clients()
    except (ClientsUnavailable, OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(str(error))


@pytest.fixture(scope="module")
def exports(tmp_path_factory, clients):
    root = tmp_path_factory.mktemp("clients")
    return {fmt: export_mixed(SEED_DIRS, root / fmt, fmt) for fmt in ("obsidian", "logseq")}


def test_logseq_reads_every_page_with_its_properties_and_references_intact(exports):
    pages = exports["logseq"] / "pages"
    assert len(list(pages.glob("*.md"))) > 200  # every paper, concept, collection and index page
    problems = logseq_problems(pages)
    assert not problems, json.dumps(problems, indent=1, ensure_ascii=False)[:4000]


def test_markdown_it_renders_every_note_without_a_stray_link_or_open_math(exports):
    problems = obsidian_problems(exports["obsidian"])
    assert not problems, json.dumps(problems, indent=1, ensure_ascii=False)[:4000]


@pytest.mark.parametrize("page, expected", [
    ("title:: P\ntags:: [[A]]\n\n- a #tag <b>x</b> \\[\\[y\\]\\]\n",
     ["Tag", "Inline_Html", "math that was not written"]),
    ("title:: P\nvenue:: Inspec: \"Test\" split #1\n\n- fine\n", ["property venue: references"]),
    ("title:: P\n\n- TODO fine\n", ["read as a task"]),
])
def test_the_logseq_judge_sees_what_mldoc_misreads(clients, page, expected):
    [result] = read_as("mldoc", [{"id": "p", "text": page}])["results"]
    problems = " | ".join(page_problems(page, result["ast"], {"p", "a"}))
    for word in expected:
        assert word in problems


def test_the_markdown_judge_sees_a_stray_link_and_open_math(clients):
    [result] = read_as("markdown", [{"id": "n", "text": "[[Q|q]](QUBO) costs $5, <b>x</b>"}])["results"]
    problems = " | ".join(note_problems(result["tokens"]))
    assert "a link to 'QUBO'" in problems and "html_inline" in problems and "text ' costs $5" in problems


if __name__ == "__main__":  # the figures: pages and notes read cleanly, of how many
    import tempfile

    dirs = [Path(d) for d in sys.argv[1:]] or list(SEED_DIRS)
    with tempfile.TemporaryDirectory() as tmp:
        logseq = export_mixed(dirs, Path(tmp) / "logseq", "logseq") / "pages"
        obsidian = export_mixed(dirs, Path(tmp) / "obsidian", "obsidian")
        bad_pages = logseq_problems(logseq)
        bad_notes = obsidian_problems(obsidian)
        pages = len(list(logseq.glob("*.md")))
        notes = sum(1 for p in obsidian.rglob("*.md") if not p.relative_to(obsidian).as_posix().startswith("."))
        for name, problems in {**bad_pages, **bad_notes}.items():
            print(f"{name}: {'; '.join(problems)[:300]}")
        print(f"mldoc {read_as('mldoc', [])['version']}: {pages - len(bad_pages)} of {pages} Logseq pages read cleanly")
        print(f"markdown-it {read_as('markdown', [])['version']}: {notes - len([n for n in bad_notes if n.endswith('.md')])}"
              f" of {notes} notes rendered cleanly; map text cards with problems: "
              f"{len([n for n in bad_notes if not n.endswith('.md')])}")
