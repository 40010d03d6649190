"""Text for Logseq pages, written the way Logseq's own parser (mldoc) reads it.

mldoc is not CommonMark, so the Obsidian escaping of ``vaultsync.markdown`` does not carry over:
it reads ``\\[\\[x\\]\\]`` and ``\\(x\\)`` as LaTeX, ``&#96;`` and HTML entities as the text they
are made of, ``#word`` as a tag even inside a property value, ``<script>`` as inline HTML, ``((x))``
as a block reference, ``{{x}}`` as a macro, ``key:: value`` as a property, and ``TODO`` at a
block's start as a task. What it honours is a backslash before an ASCII punctuation character.

So literal text is written with its own characters (no HTML entities), a backslash before each
character mldoc could read as markup, and never a ``\\)`` or ``\\]`` that could close a LaTeX
fragment a ``\\(`` or ``\\[`` escape opened (``tests/test_clients.py`` checks pages with mldoc).
"""

from __future__ import annotations

import re
from typing import Callable

from .markdown_tokens import scan

__all__ = ["escape_logseq", "logseq_markdown"]

_ALWAYS = frozenset("\\#*_`$<~=^[")  # tags, emphasis, code, math, HTML, highlights, links
_BEFORE_ITSELF = frozenset("({@")  # `((ref))`, `{{macro}}`, `@@snippet@@`
_BLOCK_START = frozenset("-+>:|")  # a list, a quote, a drawer or a table at a block's start
_TASK = re.compile(r"(?:TODO|DOING|DONE|LATER|NOW|WAITING|WAIT|CANCELED|CANCELLED|STARTED|IN-PROGRESS)\b")
_WORD_JOINER = "\u2060"  # invisible; keeps `\\` + `]` from reading as `\]`, which closes LaTeX


def escape_logseq(text: str, block_start: bool = False) -> str:
    """Literal ``text`` as Logseq Markdown that mldoc reads as exactly this text.

    ``block_start``: the text begins a block, where list, quote and task syntax mean something.
    """
    out: list[str] = []
    if block_start:
        text = text.lstrip()
        if text[:1] in _BLOCK_START or _TASK.match(text):
            out.append("\\")
    for k, c in enumerate(text):
        nxt = text[k + 1:k + 2]
        if c == "\\":
            out.append("\\\\" + (_WORD_JOINER if nxt in ("]", ")") else ""))
        elif c in _ALWAYS or (c in _BEFORE_ITSELF and nxt == c) or (c == ":" and text[k - 1:k] == ":"):
            # (`key\:: value` is still a property to mldoc; `key:\: value` is text)
            out.append("\\" + c)
        elif c in "\n\r":
            out.append(" ")  # a line break would start another line of the block
        else:
            out.append(c)
    return "".join(out)


def logseq_markdown(markdown: str, page: Callable[[str], str | None]) -> str:
    """Obsidian Markdown as ``vaultsync.markdown`` writes it (an abstract, linked) -> the same
    text in Logseq's Markdown. ``[[Concept|as written]]`` becomes ``[as written]([[Page]])`` for
    the page ``page(Concept)``, or the words alone when it gives None; math, code, URLs, links
    and emphasis are kept."""
    out: list[str] = []
    for t in scan(markdown, latex_mode=False, wikilinks=True):
        if t.kind == "text":
            out.append(escape_logseq(t.plain, block_start=not out))
        elif t.kind == "wiki":
            target, _, label = t.md[2:-2].partition("|")
            name = page(target)
            if name is None:
                out.append(escape_logseq(label or target, block_start=not out))
            elif label and label != name:
                out.append(f"[{escape_logseq(label)}]([[{name}]])")
            else:
                out.append(f"[[{name}]]")
        elif t.kind in ("url", "autolink"):
            out.append(f"<{t.md}>")
        elif t.kind == "link_close":
            out.append(f"]({t.md})")
        else:  # math, code, emphasis, a link's `[`: the same syntax in Logseq
            out.append(t.md)
    return "".join(out)
