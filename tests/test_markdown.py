"""Abstract text -> Obsidian Markdown: conversion, escaping, linking, and what Obsidian will read."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vaultsync.markdown import (
    abstract_to_markdown,
    escape_markdown,
    find_urls,
    latex_to_markdown,
    link_first_mentions,
    markdown_to_plain,
)

VAULTCHECK = Path(__file__).resolve().parents[2] / "shared/tools/vaultcheck/vaultcheck.sh"


# ---------------------------------------------------------------- LaTeX and HTML -> Markdown
@pytest.mark.parametrize(
    ("latex", "markdown"),
    [
        (r"the \textbf{DynaSchedBench} suite", "the **DynaSchedBench** suite"),
        (r"an \emph{open} and \textit{shut} case", "an *open* and *shut* case"),
        (r"call \texttt{fit()} first", "call `fit()` first"),
        (r"call \texttt{a_b} first", "call `a_b` first"),
        (r"the \texttt{`x`} tick", "the `` `x` `` tick"),
        (r"see \url{https://github.com/RUCAIBox/ForesightKV}.", "see <https://github.com/RUCAIBox/ForesightKV>."),
        (r"our \href{https://example.org/x}{project page}", "our [project page](https://example.org/x)"),
        (r"an ``Observability Paradox'': yes", "an “Observability Paradox”: yes"),
        (r"IV analysis---particularly this", "IV analysis—particularly this"),
        (r"pages 1--5", "pages 1–5"),
        (r"over 17\% better", "over 17% better"),
        (r"R\&D", "R&D"),
        (r"Figure~1", "Figure\u00a01"),
        ("<b>bold</b> and <strong>strong</strong>", "**bold** and **strong**"),
        ("<i>it</i> and <em>em</em>", "*it* and *em*"),
        ("H<sub>2</sub>O and x<sup>2</sup>", "H₂O and x²"),
        ("x<sub>max</sub> y<sub>avg</sub>", r"xₘₐₓ y$_{\text{avg}}$"),
        (r"Kondrat\'ev and Schr\"{o}dinger", "Kondratév and Schrödinger"),
        (r"a\textbf{ padded }b", "a **padded** b"),
        (r"\textbf{\emph{both}}", "**both**"),
    ],
)
def test_latex_text_commands_become_markdown(latex, markdown):
    assert latex_to_markdown(latex) == markdown


@pytest.mark.parametrize(
    "math",
    [r"$n=26, 32$", r"$\mathcal{O}(t^{-1})$", r"$O(|\mu - \alpha|^2)$", r"$a--b~c\%$", "$$x---y$$", r"$(\beta \to +\infty)$"],
)
def test_math_is_kept_exactly(math):
    assert latex_to_markdown(f"before {math} after") == f"before {math} after"


def test_latex_inline_and_display_delimiters_become_dollars():
    assert latex_to_markdown(r"with \( \alpha_1 \) and \[ x^2 \] done") == r"with $\alpha_1$ and $$x^2$$ done"


def test_nested_math_in_text_commands_is_unnested_for_obsidian():
    # Obsidian pairs each `$` with the next one; the author's `$\textbf{4.28$\times$}$` would break.
    assert latex_to_markdown(r"by $\textbf{4.28$\times$}$ overall") == r"by $\textbf{4.28}\times\textbf{}$ overall"


def test_inline_code_is_kept_exactly():
    assert latex_to_markdown("run `a--b ~x $y` now") == "run `a--b ~x $y` now"


def test_markdown_in_the_abstract_is_kept():
    text = "We introduce **AVI-Bench**, a *new* benchmark."
    assert latex_to_markdown(text) == text
    assert escape_markdown(text) == text


def test_currency_is_not_math():
    assert latex_to_markdown("costs $5 and $x^2$") == r"costs \$5 and $x^2$"
    assert latex_to_markdown("from $5 to $10") == r"from \$5 to \$10"
    assert latex_to_markdown(r"only \$5") == r"only \$5"


# ---------------------------------------------------------------- escaping
@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("a\n---\nb", "a\n\\---\nb"),
        ("***", r"\*\*\*"),
        ("see [[Evil]] now", r"see \[\[Evil\]\] now"),
        ("see ![[Evil.png]]", r"see !\[\[Evil.png\]\]"),
        ("is #P-hard and #1", r"is \#P-hard and \#1"),
        ("a %% hidden %% b", r"a \%\% hidden \%\% b"),
        ("17% and 3 %", "17% and 3 %"),
        ("<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>"),
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)>"),
        ("a | b", r"a \| b"),
        ("==hl==", r"\=\=hl\=\="),
        ("a = b", "a = b"),
        ("end of line ^abc", r"end of line \^abc"),
        ("~~gone~~", r"\~\~gone\~\~"),
        ("> quote", r"\> quote"),
        ("- item", r"\- item"),
        ("+ item", r"\+ item"),
        ("1. item", r"1\. item"),
        ("2024) item", r"2024\) item"),
        ("    indented", "indented"),
        ("# Heading", r"\# Heading"),
        ("a `lone backtick", "a &#96;lone backtick"),
        ("snake_case stays", "snake_case stays"),
        ("__init__ file", r"\_\_init\_\_ file"),
        ("a * b", r"a \* b"),
        ("AT&T and &amp;", "AT&T and &"),
        ("&amp;lt; stays", "&amp;lt; stays"),
        ("&copy; is an entity", "© is an entity"),
        ("a \\ b", r"a \\ b"),
    ],
)
def test_escape_markdown(text, escaped):
    assert escape_markdown(text) == escaped


def test_escaped_text_reads_as_written_in_commonmark():
    md = pytest.importorskip("markdown_it").MarkdownIt("commonmark").enable(["table", "strikethrough"])
    text = "a | b ==hl== #tag %% x [[y]] <b>z</b> ~~s~~ 1. q _u_ ^id ![[e]] 5$"
    rendered = md.render(escape_markdown(text))
    assert rendered.startswith("<p>") and rendered.count("<") == 2
    assert html.unescape(rendered[3:-5]) == text


def test_dollar_next_to_math_is_an_entity():
    # `\$$x$` would be read by vaultcheck (and maybe Obsidian) as a `$$` delimiter.
    out = escape_markdown(r"\$$x$ and $y$\$")
    assert out == "&#36;$x$ and $y$&#36;"


def test_adjacent_formulas_are_separated():
    assert escape_markdown("$a$$b$") == "$a$ $b$"


# ---------------------------------------------------------------- URLs
def test_urls_keep_their_characters_and_lose_trailing_punctuation():
    text = "Code: https://github.com/KlingAIResearch/X-Dub. Page: https://xiaokunfeng.github.io/miga_homepage/."
    out = abstract_to_markdown(text)
    assert "https://github.com/KlingAIResearch/X-Dub. " in out
    assert "<https://xiaokunfeng.github.io/miga_homepage/>." in out  # `_` must not start emphasis


def test_url_with_emphasis_characters_is_an_autolink():
    assert escape_markdown("see https://x.org/_a_*b*c") == "see <https://x.org/_a_*b*c>"


def test_unsafe_links_stay_text():
    assert latex_to_markdown(r"\href{javascript:alert(1)}{click}") == "click"
    assert latex_to_markdown(r"\url{notes.md}") == "notes.md"


def test_find_urls():
    text = (r"See https://a.org/x. and \url{https://b.org/y} and https://a.org/x "
            r"and \href{https://c.org}{c} (https://d.org/p_(q)) `https://code.org`")
    assert find_urls(text) == ["https://a.org/x", "https://b.org/y", "https://c.org", "https://d.org/p_(q)"]


# ---------------------------------------------------------------- linking
def test_first_mention_becomes_a_link():
    out = link_first_mentions("We use LLMs. LLMs are big.", [("LLMs", "Large Language Model")])
    assert out == "We use [[Large Language Model|LLMs]]. LLMs are big."


def test_surface_equal_to_name_is_a_plain_link():
    assert link_first_mentions("a Transformer b", [("Transformer", "Transformer")]) == "a [[Transformer]] b"


def test_longest_surface_wins_and_shorter_takes_a_later_mention():
    text = "Multimodal Large Language Models beat Large Language Models."
    out = link_first_mentions(text, [("Large Language Models", "LLM"), ("Multimodal Large Language Models", "MLLM")])
    assert out == "[[MLLM|Multimodal Large Language Models]] beat [[LLM|Large Language Models]]."


def test_each_concept_is_linked_once():
    out = link_first_mentions("LLM and large language model", [("LLM", "LLM"), ("large language model", "LLM")])
    assert out.count("[[") == 1


def test_no_links_inside_math_code_urls_or_links():
    text = "$LLM$ `LLM` https://LLM.org/LLM [LLM](https://x.org) [[Other|LLM]] LLM"
    out = link_first_mentions(text, [("LLM", "Large Language Model")])
    assert out.endswith(" [[Large Language Model|LLM]]")
    assert out.count("Large Language Model") == 1


def test_existing_links_are_kept_and_not_repeated():
    once = link_first_mentions("LLM then LLM", [("LLM", "Large Language Model")])
    assert link_first_mentions(once, [("LLM", "Large Language Model")]) == once


@pytest.mark.parametrize(
    ("text", "surface"),
    [("AVI-Bench", "AVI"), ("Omni-MLLMs", "MLLMs"), ("LLMs", "LLM"), ("preLLM", "LLM"), ("LLM_x", "LLM")],
)
def test_links_sit_on_word_boundaries(text, surface):
    assert "[[" not in link_first_mentions(text, [(surface, "Concept")])


def test_hyphenated_compound_links_its_head():
    assert link_first_mentions("LLM-based agents", [("LLM", "LLM")]) == "[[LLM]]-based agents"


def test_surfaces_with_escaped_characters_are_found():
    md = escape_markdown("We use A* search and C# code.")
    out = link_first_mentions(md, [("A* search", "A Star Search"), ("C#", "C Sharp")])
    assert out == "We use [[A Star Search|A* search]] and [[C Sharp|C#]] code."


def test_surface_across_a_non_breaking_space_is_found():
    out = abstract_to_markdown(r"as in Figure~1 here", [("Figure 1", "Figure One")])
    assert out == "as in [[Figure One|Figure\u00a01]] here"


@pytest.mark.parametrize("name", ["A|B", "C#", "x^y", "[x]", "../../x", "a:b", "", " padded"])
def test_unsafe_concept_names_are_skipped(name):
    assert link_first_mentions("see word here", [("word", name)]) == "see word here"


def test_link_after_bang_is_not_an_embed():
    assert link_first_mentions("Wow!LLM", [("LLM", "LLM")]) == r"Wow\![[LLM]]"


# ---------------------------------------------------------------- plain text
@pytest.mark.parametrize(
    ("markdown", "plain"),
    [
        ("**AVI-Bench**: a *new*  benchmark", "AVI-Bench: a new benchmark"),
        (r"\#P-hard \[x\] &lt;b>", "#P-hard [x] <b>"),
        ("[[Large Language Model|LLMs]] and [[Transformer]]", "LLMs and Transformer"),
        ("[page](https://x.org) and `code` and $x^2$", "page and code and x^2"),
    ],
)
def test_markdown_to_plain(markdown, plain):
    assert markdown_to_plain(markdown) == plain


# ---------------------------------------------------------------- properties
FRAGMENTS = [
    "---", "--", "***", "$", "$$", "\\$", "\\(", "\\)", "\\[", "\\]", "[[", "]]", "![[", "%%", "==", "~~", "~",
    "<script>", "</b>", "<b>", "<i>", "<sub>", "</sub>", "<img src=x onerror=alert(1)>", "\\textbf{", "\\emph{",
    "\\texttt{", "\\url{", "\\href{", "}", "{", "``", "''", "https://x.org/a_b", "http://e.com/(x)", "#tag",
    "#1", "^abc", "1. ", "> ", "- ", "+ ", "\n", "\n\n", "    ", "&amp;", "&lt;", "&#36;", "\\%", "\\",
    "LLM", "model", "large model", "**", "*", "`", "```", "_", "|", " ", "x", "2",
]
texts = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(alphabet=st.sampled_from("ab $#[]|%=<>`*_\\-+.!^~&;{}()\n"), max_size=4),
              st.text(max_size=3)),
    max_size=30,
).map("".join)
LINKS = [("LLM", "Large Language Model"), ("large model", "Large Model"), ("model", "Model"), ("x", "X")]
FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})(.*)$")


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def _mask_code_and_math(text: str) -> tuple[str, list[str]]:
    """vaultcheck's masking (code spans, then $$, then $ per paragraph); returns problems found."""
    problems = []
    i = 0
    while m := re.compile(r"`+").search(text, i):
        close = re.compile(r"(?<!`)`{%d}(?!`)" % len(m.group())).search(text, m.end())
        if close and not re.search(r"\n[ \t]*\n", text[m.end():close.start()]):
            text = text[:m.start()] + _blank(text[m.start():close.end()]) + text[close.end():]
            i = close.end()
        else:
            i = m.end()
    toks = [m.start() for m in re.finditer(r"(?<!\\)\$\$", text)]
    if len(toks) % 2:
        problems.append("unbalanced_display_math")
    for a, b in zip(toks[::2], toks[1::2]):
        text = text[:a] + _blank(text[a:b + 2]) + text[b + 2:]
    for para in re.finditer(r"(?:[^\n]*\S[^\n]*(?:\n|$))+", text):
        toks = [para.start() + m.start() for m in re.finditer(r"(?<![\\$])\$(?!\$)", para.group())]
        if len(toks) % 2:
            problems.append("unbalanced_inline_math")
        for a, b in zip(toks[::2], toks[1::2]):
            text = text[:a] + _blank(text[a:b + 1]) + text[b + 1:]
    return text, problems


def offences(markdown: str, names=()) -> list[str]:
    """What in ``markdown`` Obsidian would read as something other than the abstract's text."""
    found = []
    if any(FENCE.match(line) and not (line.strip()[0] == "`" and "`" in FENCE.match(line).group(2))
           for line in markdown.split("\n")):
        found.append("fence")
    masked, problems = _mask_code_and_math(markdown)
    found += problems
    for name in names:  # the links we asked for are allowed
        masked = re.sub(r"\[\[%s(\|[^\[\]|\n]+)?\]\]" % re.escape(name), lambda m: _blank(m.group()), masked)
    for line in markdown.split("\n"):
        if re.fullmatch(r" *([-*_])([ \t]*\1){2,}[ \t]*", line) or re.fullmatch(r" *(-+|=+)[ \t]*", line):
            found.append(f"rule or setext line {line!r}")
        if re.match(r"[ \t]|[>+\-#=|]|\d+[.)]|\*\s", line):
            found.append(f"block syntax at line start {line!r}")
    for line in masked.split("\n"):
        if re.search(r"(?:^|\s)\^[A-Za-z0-9-]+\s*$", line):
            found.append("block id")
    for pair in ("%%", "[[", "]]", "==", "~~"):
        if pair in masked:
            found.append(pair)
    if re.search(r"<[A-Za-z/!?]", re.sub(r"<(?:https?|ftp|mailto):[^\s<>]*>", "", masked)):
        found.append("raw HTML")
    if re.search(r"(?:^|\s)#[^\s#]", masked):
        found.append("tag")
    for i, c in enumerate(masked):
        backslashes = len(masked[:i]) - len(masked[:i].rstrip("\\"))
        if c == "|" and backslashes % 2 == 0:
            found.append("table pipe")
    return found


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_any_abstract_becomes_a_safe_note_body(text):
    out = abstract_to_markdown(text, LINKS)
    assert offences(out, [n for _, n in LINKS]) == []


@settings(max_examples=300, deadline=None)
@given(texts)
def test_escape_markdown_output_is_safe_and_stable(text):
    once = escape_markdown(text)
    assert offences(once) == []
    assert escape_markdown(once) == once


@settings(max_examples=300, deadline=None)
@given(texts)
@example("\\emph{```*```}")  # a star inside a code span inside emphasis closes nothing
def test_converted_abstract_needs_no_further_escaping(text):
    converted = latex_to_markdown(text)
    assert escape_markdown(converted) == converted


@settings(max_examples=300, deadline=None)
@given(texts)
def test_linking_is_idempotent(text):
    once = abstract_to_markdown(text, LINKS)
    assert link_first_mentions(once, LINKS) == once


@settings(max_examples=300, deadline=None)
# U+FEFF is whitespace to markdown-it (as to JavaScript) but not to str.split: invisible either way
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"),
                                      blacklist_characters="*`&\\\u2028\u2029\ufeff"),
               max_size=60))
def test_escaped_text_reads_as_written(text):
    """CommonMark (markdown-it) shows exactly the text, as one or more paragraphs and nothing else."""
    md = pytest.importorskip("markdown_it").MarkdownIt("commonmark").enable(["table", "strikethrough"])
    if re.search(r"(?:https?|ftp)://|<[a-z]+:", text, re.I) or re.search(r"\[[^\]]*\]\(", text):
        return  # URLs and links are markup on purpose
    rendered = md.render(escape_markdown(text))
    tags = set(re.findall(r"</?([a-z0-9]+)", rendered))
    assert tags <= {"p", "br"}, rendered
    shown = html.unescape(re.sub(r"<[^>]+>", " ", rendered))
    # (a number touching a formula moves inside its `$`s, `4.7$x$` -> `$4.7x$`, `$x$0` -> `$x{}0$`,
    # so math renderers do not read a currency sign: the same characters, the delimiters and the
    # empty TeX group, which shows nothing, aside)
    def characters(shown_text):
        return shown_text.replace("$", "").replace("{}", "").split()
    assert characters(shown) == characters(text)


# ---------------------------------------------------------------- the note in a real vault checker
HOSTILE = (
    r"We propose ../../x, a \textbf{Large Language Model} method --- with ``quotes''. --- "
    "[[Evil]] is #P-hard %% hidden %% <script>alert(1)</script> <img src=x onerror=alert(1)> "
    r"a | b costs $5 and $x^2$ ==hl== end ^abc ![[Evil.png]] \(y\) `co$de` https://x.org/a_b."
)


def test_hostile_abstract_passes_vaultcheck(tmp_path):
    if not VAULTCHECK.exists():
        pytest.skip(f"vaultcheck not found at {VAULTCHECK}")
    links = [("Large Language Model", "Large Language Model"), ("method", "Method"), ("x", "X")]
    body = abstract_to_markdown(HOSTILE, links)
    assert "[[Large Language Model]]" in body and "[[Method|method]]" in body
    (tmp_path / "Papers").mkdir()
    (tmp_path / "Concepts").mkdir()
    (tmp_path / "Papers" / "Hostile.md").write_text(f"---\ntitle: Hostile\n---\n{body}\n", encoding="utf-8")
    for _, name in links:
        (tmp_path / "Concepts" / f"{name}.md").write_text(f"# {name}\n", encoding="utf-8")
    proc = subprocess.run([str(VAULTCHECK), str(tmp_path), "--no-obsidiantools", "--json"],
                          capture_output=True, text=True, timeout=120)
    report = json.loads(proc.stdout)
    failing = {k: v["examples"] for k, v in report["checks"].items() if v["severity"] == "error" and v["count"]}
    assert report["errors"] == 0, failing
    assert report["stats"]["resolved_links"] == report["stats"]["links"] == 3


def test_conversions_ahead_answer_as_the_pool_delivers_them_in_any_order(monkeypatch):
    from vaultsync import extract, markdown
    from vaultsync.markdown import abstract_to_markdown, converted_ahead

    monkeypatch.setattr(extract, "POOL_THRESHOLD", 10)
    items = [(f"Abstract {i} uses *graph neural networks* and $x_{i}$ with GNNs.",
              (("graph neural networks", "Graph Neural Networks"),) if i % 3 else ()) for i in range(1300)]
    want = [abstract_to_markdown(text, links) for text, links in items]  # no pool, no table
    order = [1299, 0, 1, 700, *range(2, 1300)]  # a late chunk first: the ones before it wait in the table
    parent, convert = os.getpid(), markdown.link_first_mentions

    def in_the_pool_only(*args):
        assert os.getpid() != parent, "converted again in this process, not taken from the pool"
        return convert(*args)

    monkeypatch.setattr(markdown, "link_first_mentions", in_the_pool_only)
    with converted_ahead(items):
        got = {i: abstract_to_markdown(*items[i]) for i in order}
    assert [got[i] for i in range(1300)] == want
    assert "[[Graph Neural Networks|graph neural networks]]" in want[1]


# ---------------------------------------------------------------- what every CommonMark renderer reads
def test_a_link_before_a_parenthesis_is_not_a_markdown_link_in_commonmark():
    md = pytest.importorskip("markdown_it").MarkdownIt("commonmark")
    name = "Quadratic Unconstrained Binary Optimization"
    body = abstract_to_markdown("written as quadratic unconstrained binary optimization(QUBO) problems",
                                [("quadratic unconstrained binary optimization", name)])
    assert f"[[{name}|quadratic unconstrained binary optimization]]\\(QUBO)" in body
    assert "<a " not in md.render(body)
    assert link_first_mentions(body, [("quadratic unconstrained binary optimization", name)]) == body


@pytest.mark.parametrize(("latex", "markdown"), [
    (r"as shown by prior work~\cite{smith2020,doe2021}.", "as shown by prior work."),
    (r"RLHF \citep[see][p.~3]{ouyang2022} aligns", "RLHF aligns"),
    (r"\citet{lee2019} showed", "lee2019 showed"),
    (r"see Section~\ref{sec:method} and Eq.~\eqref{eq:loss}", "see Section\u00a0sec:method and Eq.\u00a0eq:loss"),
    (r"\label{x}We study", "We study"),
])
def test_citations_are_not_shown_raw(latex, markdown):
    assert latex_to_markdown(latex) == markdown


@pytest.mark.parametrize(("text", "markdown"), [
    (r"surpass 4.7$\times$ compression", r"surpass $4.7\times$ compression"),
    (r"up to $10^3$5 more", r"up to $10^3{}5$ more"),
    (r"the 2024$^{th}$ run", r"the $2024^{th}$ run"),
])
def test_a_number_touching_a_formula_joins_it(text, markdown):
    """pandoc and markdown-it-texmath read a `$` next to a digit as currency, not math."""
    assert abstract_to_markdown(text) == markdown
