"""An abstract as safe, faithful Obsidian Markdown.

Every function here reads its input into tokens (``vaultsync.markdown_tokens``): *text*
(literal characters a reader should see) and *markup* (math, code, URLs, emphasis and link
syntax, kept or generated on purpose).
Only text is escaped, when the tokens are written back out, so escaping never touches math,
code or URLs, and a second pass reads back exactly the same tokens (``escape_markdown`` is
idempotent, and ``link_first_mentions`` can find surfaces in escaped text).

What the written text guarantees (checked by tests and by vaultcheck):
  * no raw HTML (``<`` is ``&lt;``), no ``[[``/``]]``/``![[`` outside inserted links, no tag
    (``#`` is ``\\#``), no ``%%``/``==``/``~~`` (one character of each pair escaped), no ``|``,
    no ``^block`` id, no block syntax at a line start (``---``, ``>``, ``-``, ``1.``, ``#``, indent);
  * every ``$`` outside math is escaped, so inline math is balanced the way vaultcheck counts it;
  * no ``(`` right after a ``]`` (a wiki-link followed by a parenthesis is a Markdown link elsewhere).
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator, Sequence

from vaultsync.markdown_tokens import ENTITY, Token, scan, text_token

__all__ = ["latex_to_markdown", "escape_markdown", "link_first_mentions", "abstract_to_markdown",
           "markdown_to_plain", "find_urls"]

_ORDERED = re.compile(r"\d{1,9}[.)]")
_ALWAYS_ESCAPED = frozenset("*[]|#^~")  # emphasis, links, tables, tags, block ids, strikethrough
_PAIR_ESCAPED = frozenset("%=")  # only `%%` (comment) and `==` (highlight) mean something
_LINE_START_ESCAPED = frozenset("-+=>")  # lists, rules, setext headings, quotes
_SCHEME_BEFORE = re.compile(r"(?:https?|ftp)$", re.IGNORECASE)
# Every character the loop in ``_escape`` may change, outside a line start.
_MAYBE_ESCAPED = re.compile(r"[\n\\$`<&*\[\]|#^~_%=:!]")
_URL_UNSAFE = {c: f"%{ord(c):02X}" for c in ' "<>\\^`{|}$[]'}


# ---------------------------------------------------------------- writing out
def _escape(s: str, before: str, after: str) -> str:
    """Literal text as Markdown that reads the same and means nothing else.

    ``before``/``after`` are the characters written just before and just after this text.
    """
    out: list[str] = []
    bol = before in ("", "\n")
    escape_at: set[int] = set()
    k, size = -1, len(s)
    if before == "]" and s[:1] == "(":
        out.append("\\(")  # `[[X|y]](QUBO)` reads as a Markdown link to `QUBO` in CommonMark
        k = 0
    while k + 1 < size:
        k += 1
        if not bol:  # a run of characters that are never escaped is copied whole
            stop = _MAYBE_ESCAPED.search(s, k)
            stop = stop.start() if stop else size
            if escape_at:
                stop = min([stop] + [p for p in escape_at if p >= k])
            if stop > k:
                out.append(s[k:stop])
                k = stop - 1
                continue
        c = s[k]
        prev = s[k - 1] if k else before
        nxt = s[k + 1] if k + 1 < len(s) else after
        if c == "\n":
            out.append(c)
            bol = True
            continue
        if bol:
            if c in " \t":
                continue  # indentation would make a code block; Markdown ignores it otherwise
            bol = False
            m = _ORDERED.match(s, k)
            if m:
                escape_at.add(m.end() - 1)
            if c in _LINE_START_ESCAPED:
                out.append("\\" + c)
                continue
        if c == "\\":
            out.append("&#92;" if k == len(s) - 1 and after == "$" else "\\\\")
        elif c == "$":  # next to a math `$`, `\$` would still read as `$$`
            out.append("&#36;" if (k == 0 and before == "$") or (k == len(s) - 1 and after == "$") else "\\$")
        elif c == "`":  # vaultcheck and Obsidian pair backticks before escapes
            out.append("&#96;")
        elif c == "<":
            out.append("&lt;")
        elif c == "&":
            out.append("&amp;" if ENTITY.match(s, k) else "&")
        elif c in _ALWAYS_ESCAPED or k in escape_at:
            out.append("\\" + c)
        elif c == "_":
            out.append("_" if prev.isalnum() and nxt.isalnum() else "\\_")
        elif c in _PAIR_ESCAPED:
            out.append("\\" + c if c in (prev, nxt) else c)
        elif c == ":" and s.startswith("//", k + 1) and _SCHEME_BEFORE.search(s, 0, k):
            out.append("\\:")  # a URL that is text (not a link) must not be autolinked
        elif c == "!" and k == len(s) - 1 and after == "[":
            out.append("\\!")  # `![` would embed
        else:
            out.append(c)
    return "".join(out)


def _encode_url(url: str, parens: bool = False) -> str:
    url = re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", url)
    url = re.sub(r"(?<==)=", "%3D", re.sub(r"(?<=~)~", "%7E", url))  # `==` highlights, `~~` strikes
    table = {**_URL_UNSAFE, "(": "%28", ")": "%29"} if parens else _URL_UNSAFE
    return "".join(table.get(c, c) for c in url)


def _bare_url_ok(url: str, before: str, following: Token | None) -> bool:
    """May ``url`` stay bare for Obsidian to autolink, or does it need `<…>` to end where it should?"""
    if before.isalnum() or before in ("_", "\\") or re.search(r"[*_~()]|==", url):
        return False
    if following is None:
        return True
    return following.kind == "text" and bool(re.match(r"[.,:;!?)]*(?:\s|$)", following.plain))


_NUMBER_END = re.compile(r"\d[\d.,]*$")
_NUMBER_START = re.compile(r"^\d+")


def _numbers_into_math(toks: Sequence[Token]) -> list[Token]:
    """`4.7$\\times$` -> `$4.7\\times$`: a digit touching a `$` makes pandoc and markdown-it's
    math plugins read the `$` as currency, so a number touching a formula joins it (it looks
    the same)."""
    toks = list(toks)
    for k, t in enumerate(toks):
        if t.kind != "math":
            continue
        delim = "$$" if t.md.startswith("$$") else "$"
        before = toks[k - 1] if k else None
        after = toks[k + 1] if k + 1 < len(toks) else None
        head = _NUMBER_END.search(before.plain) if before is not None and before.kind == "text" else None
        tail = _NUMBER_START.match(after.plain) if after is not None and after.kind == "text" else None
        if head or tail:
            lead, trail = head.group() if head else "", tail.group() if tail else ""
            # `{}` keeps a number after the formula out of its last script: `$10^3{}5$`
            content = lead + t.md[len(delim):-len(delim)] + ("{}" + trail if trail else "")
            toks[k] = Token("math", delim + content + delim, lead + t.plain + trail)
            if head:
                toks[k - 1] = text_token(before.plain[:head.start()])
            if tail:
                toks[k + 1] = text_token(after.plain[tail.end():])
    return [t for t in toks if t.kind != "text" or t.plain]


def _render(toks: Sequence[Token]) -> str:
    toks = _numbers_into_math(toks)
    out: list[str] = []
    last = ""
    for k, t in enumerate(toks):
        following = toks[k + 1] if k + 1 < len(toks) else None
        if t.kind == "text":
            nxt = "" if following is None else ("<" if following.kind in ("url", "autolink") else (following.md or "]")[0])
            piece = _escape(t.plain, last, nxt)
        elif t.kind in ("url", "autolink"):
            url = _encode_url(t.md)
            piece = url if t.kind == "url" and _bare_url_ok(url, last, following) else f"<{url}>"
        elif t.kind == "link_close":
            piece = "](" + _encode_url(t.md, parens=True) + ")"
        else:
            piece = t.md
            if piece[:1] in ("$", "`") and last == piece[0]:
                piece = " " + piece  # `$a$$b$` would read as display math, `a``b` as one code span
        if piece:
            out.append(piece)
            last = piece[-1]
    return "".join(out)


# ---------------------------------------------------------------- public API
def latex_to_markdown(text: str) -> str:
    """The abstract with LaTeX text commands, ``quotes'', dashes, `~` and HTML emphasis turned into
    Markdown; math (`$…$`, `$$…$$`, `\\(…\\)` -> `$…$`) and code are kept as written. The result is
    already escaped: ``escape_markdown`` leaves it unchanged."""
    return _render(scan(text, latex_mode=True))


def escape_markdown(text: str) -> str:
    """Markdown text made safe for a note body, keeping its math, code, URLs, Markdown links and
    `*`/`**` emphasis; everything else reads in Obsidian exactly as written. Idempotent."""
    return _render(scan(text, latex_mode=False))


_BAD_NAME = re.compile(r'[|#^\[\]*"\\/<>:?$`\n]|%%')
_BAD_SURFACE = re.compile(r"[\[\]|`$\\<>\n]|%%")


def _linkable(surface: str, name: str) -> bool:
    return (bool(surface.strip()) and not _BAD_SURFACE.search(surface)
            and bool(name) and name == name.strip() and not _BAD_NAME.search(name))


def _bounded(text: str, a: int, b: int) -> bool:
    """Does text[a:b] start and end on word boundaries (`AVI` is not in `AVI-Bench`; `LLM` is in `LLM-based`)?"""
    before, after = text[a - 1:a], text[b:b + 1]
    if before == "[" or after == "]":  # `\[[[X|y]]` would read as a longer wiki-link
        return False
    if text[a].isalnum() and before and (before.isalnum() or before in "_-"):
        return False
    if text[b - 1].isalnum() and after:
        if after.isalnum() or after == "_" or (after == "-" and not text[b + 1:b + 2].islower()):
            return False
    return True


def _first_mention(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        if _bounded(text, m.start(), m.end()):
            return m
        pos = m.start() + 1
    return None


@functools.lru_cache(maxsize=65_536)  # shared concepts' surfaces recur in thousands of papers
def _surface_pattern(surface: str) -> re.Pattern[str]:
    return re.compile(r"\s+".join(map(re.escape, surface.split())))


def link_first_mentions(markdown: str, links: Sequence[tuple[str, str]]) -> str:
    """Turn the first mention of each ``(surface, Concept Name)`` in prose into
    `[[Concept Name|surface]]` (`[[Concept Name]]` when they are equal).

    Longer surfaces are placed first; each concept is linked once (a concept already linked in
    ``markdown`` is not linked again); math, code, URLs, Markdown links and existing wiki-links
    are never touched. Pairs whose name is not a safe link target (`|#^[]`, path or file-name
    characters) or whose surface would break a link are skipped. The result is escaped like
    ``escape_markdown``'s.
    """
    toks = scan(markdown, latex_mode=False, wikilinks=True)
    linked = {t.md[2:-2].split("|")[0].split("#")[0].strip().casefold() for t in toks if t.kind == "wiki"}
    pairs = sorted((p for p in links if _linkable(*p)), key=lambda p: -len(p[0]))
    for surface, name in pairs:
        if name.casefold() in linked:
            continue
        pattern = _surface_pattern(surface)
        depth = 0
        for k, t in enumerate(toks):
            depth += (t.kind == "link_open") - (t.kind == "link_close")
            m = _first_mention(pattern, t.plain) if t.kind == "text" and not depth else None
            if m:
                shown = m.group()
                wiki = Token("wiki", f"[[{name}]]" if shown == name else f"[[{name}|{shown}]]", shown)
                around = [text_token(t.plain[:m.start()]), wiki, text_token(t.plain[m.end():])]
                toks[k:k + 1] = [x for x in around if x.kind != "text" or x.plain]
                linked.add(name.casefold())
                break
    return _render(toks)


# (text, links) -> its Markdown, kept by a long-lived process (`vaultsync watch` renders the same
# abstracts round after round); off by default, so a one-shot export holds no second copy
_remembered: dict[tuple[str, tuple], str] | None = None
_REMEMBER_AT_MOST = 200_000


def remember_conversions(on: bool = True) -> None:
    """Keep every abstract's Markdown for the life of the process (see ``_remembered``)."""
    global _remembered
    if not on:
        _remembered = None
    elif _remembered is None:
        _remembered = {}


@contextmanager
def conversions(table: dict[tuple[str, tuple], str]) -> Iterator[dict[tuple[str, tuple], str]]:
    """Within the block, ``abstract_to_markdown`` answers from ``table`` ((text, links) ->
    Markdown, e.g. loaded from the state) and adds what it converts to it. A process that
    remembers conversions (``remember_conversions``) keeps them afterwards."""
    global _remembered
    previous = _remembered
    if previous:
        table.update((key, markdown) for key, markdown in previous.items() if key not in table)
    _remembered = table
    try:
        yield table
    finally:
        _remembered = previous if previous is None else table


_POOLS: ContextVar[bool] = ContextVar("vaultsync_markdown_pools", default=True)


@contextmanager
def pools_allowed(enabled: bool) -> Iterator[None]:
    """Within the block, ``converted_ahead`` may use a process pool (``enabled``) or never does."""
    token = _POOLS.set(enabled)
    try:
        yield
    finally:
        _POOLS.reset(token)


@contextmanager
def converted_ahead(items: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> Iterator[None]:
    """Within the block, ``abstract_to_markdown`` answers for ``items`` (text, links) from a
    process pool converting them ahead, in order, when there are enough of them to pay for one
    (the same rule as extraction; never inside ``pools_allowed(False)``). The block starts at
    once: the caller renders and writes the first notes while the pool converts the next ones,
    so the caller asks for them in ``items``' order."""
    global _remembered, _pending
    from .extract import POOL_THRESHOLD  # lazy: start-up time
    from .workers import forked_pool

    workers = min(os.cpu_count() or 1, 4)
    if (len(items) < POOL_THRESHOLD or workers < 2 or not _POOLS.get()
            or "fork" not in multiprocessing.get_all_start_methods()):
        yield
        return
    previous, previous_pending = _remembered, _pending
    table = previous if previous is not None else {}  # filled in place: a caller may hold it
    todo = list(dict.fromkeys(key for key in ((text, tuple(links)) for text, links in items) if key not in table))
    if len(todo) < POOL_THRESHOLD:  # e.g. a watcher's round: most are remembered already
        yield
        return
    chunks = [todo[i:i + 500] for i in range(0, len(todo), 500)]
    pool = forked_pool(workers)
    try:
        _remembered = table
        _pending = zip(chunks, pool.map(_convert_chunk, chunks))
        yield
    finally:
        pool.shutdown(cancel_futures=True)
        _remembered, _pending = previous, previous_pending


def _convert_chunk(keys: Sequence[tuple[str, tuple]]) -> list[str]:
    return [link_first_mentions(escape_markdown(latex_to_markdown(text)), links) for text, links in keys]


# Chunks a pool is converting (see ``converted_ahead``): (keys, their Markdown), in order.
_pending: Iterator[tuple[Sequence[tuple[str, tuple]], list[str]]] | None = None


def abstract_to_markdown(text: str, links: Sequence[tuple[str, str]] = ()) -> str:
    """An abstract as written by its authors -> the body of its paper note: converted, escaped, linked."""
    if _remembered is None:
        return link_first_mentions(escape_markdown(latex_to_markdown(text)), links)
    key = (text, tuple(links))
    markdown = _remembered.get(key)
    while markdown is None and _pending is not None:
        chunk = next(_pending, None)  # wait for the pool's next chunk (it converts them in order)
        if chunk is None:
            break
        _remembered.update(zip(*chunk))
        markdown = _remembered.get(key)
    if markdown is None:
        if len(_remembered) >= _REMEMBER_AT_MOST:
            _remembered.clear()
        markdown = _remembered[key] = link_first_mentions(escape_markdown(latex_to_markdown(text)), links)
    return markdown


def markdown_to_plain(text: str) -> str:
    """Markdown -> the text a reader sees, on one line: no emphasis, escapes or link syntax; math
    and code keep their content; a wiki-link shows its alias (or its target)."""
    return re.sub(r"\s+", " ", "".join(t.plain for t in scan(text, latex_mode=False, wikilinks=True))).strip()


def find_urls(text: str) -> list[str]:
    """Web and mail URLs in an abstract (bare, `<…>`, `\\url{}`, `\\href{}{}`, `[t](u)`), without
    trailing sentence punctuation, each once, in order of appearance."""
    urls: list[str] = []
    for t in scan(text, latex_mode=True):
        url = t.md if t.kind in ("url", "autolink", "link_close") else None
        if url and url not in urls:
            urls.append(url)
    return urls
