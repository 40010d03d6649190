"""The tokens ``markdown_tokens.scan`` reads text into, and the spans it keeps whole: math
(`$...$`, `\\(...\\)`) and code (backticks), written back out exactly as TeX and CommonMark read them."""

from __future__ import annotations

import re
from typing import NamedTuple

from vaultsync import latex

_CONTROL_SEQ = re.compile(r"\\(?:[A-Za-z]+|[^\n])?")
_BLANK = re.compile(r"\n[ \t]*(?:\n|$)")
_TICKS = re.compile(r"`+")


class Token(NamedTuple):
    kind: str  # text | math | code | url | autolink | em_open | em_close | link_open | link_close | wiki
    md: str  # the markup as written ("" for text, which is escaped when written out)
    plain: str  # what a reader sees


def text_token(s: str) -> Token:
    return Token("text", "", s)


def _math_span(s: str, start: int, delim: str) -> tuple[int, str] | None:
    """Find the math closing ``delim`` from ``s[start]``: (end, content) or None when not math.

    Math never contains a backtick or a blank line, and inline math opens before a non-space and
    closes after one (so `$5 and $10` is currency). `$` inside a text command's braces is the
    author's nested math (`$\\textbf{4.28$\\times$}$`); it is unnested so Obsidian, which pairs
    each `$` with the next, sees one formula: `$\\textbf{4.28}\\times\\textbf{}$`.
    """
    if delim == "$" and (start >= len(s) or s[start].isspace()):
        return None
    out: list[str] = []
    stack: list[list] = []  # per open brace: [command before it, inside nested math?]
    pending: str | None = None
    j = start
    while j < len(s):
        c = s[j]
        if c == "\\":
            m = _CONTROL_SEQ.match(s, j)
            out.append(m.group())
            pending = m.group()[1:] if m.group()[1:2].isalpha() else None
            j = m.end()
            continue
        if c == "$":
            if stack:
                top = stack[-1]
                if top[0] in latex.TEXT_IN_MATH:
                    out.append("\\" + top[0] + "{" if top[1] else "}")
                    top[1] = not top[1]
                j += 1
                continue
            content = "".join(out)
            if delim == "$$" and not s.startswith("$$", j):
                return None
            if not content.strip() or content[-1].isspace() or content.endswith("\\"):
                return None
            return j + len(delim), content
        if c == "`" or (c == "\n" and _BLANK.match(s, j)):
            return None
        if c == "{":
            stack.append([pending, False])
        elif c == "}" and stack:
            stack.pop()
        if not c.isspace():
            pending = None
        out.append(c)
        j += 1
    return None


def _math(delim: str, content: str) -> Token:
    """Math as written, on one line; `<tag`, `[[`, `]]`, `%%` get a space and a final `\\$` an
    empty group, which TeX ignores."""
    md = content.replace("\n", " ")
    md = re.sub(r"<(?=[A-Za-z/!?])", "< ", md)
    md = re.sub(r"([\[\]%])(?=\1)", r"\1 ", md)
    if md.endswith("$"):  # `\$` before the closing `$` would read as `$$`
        md += "{}"
    return Token("math", delim + md + delim, content)


def _code(content: str, ticks: int | None = None) -> list[Token]:
    if not content:
        return []
    if ticks is None:  # generated (`\texttt`): a fence longer than any backtick run inside
        content = content.replace("\n", " ")
        ticks = max((len(r) for r in _TICKS.findall(content)), default=0) + 1
        if content[0] in "` " or content[-1] in "` ":
            content = f" {content} "
    plain = content[1:-1] if len(content) > 2 and content[0] == content[-1] == " " else content
    fence = "`" * ticks
    return [Token("code", fence + content.replace("\n", " ") + fence, plain)]
