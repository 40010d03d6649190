"""Reading abstract text into tokens: literal *text*, and *markup* kept or generated on purpose.

``scan(text, latex_mode=True)`` also reads LaTeX text commands, ``quotes'', dashes, `~` and HTML
emphasis (the conversion step); ``latex_mode=False`` reads Markdown only. Math, code, URLs,
Markdown links, `*`/`**` emphasis (and, on request, wiki-links) become markup tokens; Markdown
escapes and HTML entities are decoded into text. ``vaultsync.markdown`` writes tokens back out.
"""

from __future__ import annotations

import functools
import html
import re

from vaultsync import latex
from vaultsync.markdown_spans import _BLANK, _TICKS, Token, _code, _math, _math_span, text_token

__all__ = ["ENTITY", "Token", "scan", "text_token"]


_URL = re.compile(r"(?:https?|ftp)://[A-Za-z0-9][^\s<>\"'`{}|\\^\[\]$]*", re.IGNORECASE)
_AUTOLINK = re.compile(r"<((?:https?|ftp)://[^\s<>]+|mailto:[^\s<>@]+@[^\s<>]+)>", re.IGNORECASE)
_LINK_DEST = re.compile(r"\((?:<([^<>\n]*)>|([^\s()<>]+))\)")
_WIKI = re.compile(r"\[\[([^\[\]\n]+)\]\]")
ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_HTML_EM = re.compile(r"<(b|strong|i|em)\s*>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_HTML_SCRIPT = re.compile(r"<(sub|sup)\s*>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_STARS = re.compile(r"\*+")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff]")
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_SCRIPT_TEXT = re.compile(r"[A-Za-z0-9][A-Za-z0-9.,+\- ]*")


# Where ``_Scanner._markup`` may find markup: anywhere else it returns None.
_MARKDOWN_STARTS = re.compile(r"[\\$`*<&\[]|(?i:https?://|ftp://)")
_LATEX_STARTS = re.compile(r"[\\$`*<&\[~'-]|(?i:https?://|ftp://)")


@functools.lru_cache(maxsize=16)
def _tick_closer(n: int) -> re.Pattern[str]:
    return re.compile(r"(?<!`)`{%d}(?!`)" % n)


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", " ").replace("\u2029", " ")
    return _CONTROLS.sub("", text)


def _strip_url(url: str) -> str:
    """A URL as found in prose, without the sentence's trailing punctuation."""
    while url:
        if url[-1] in ".,;:!?*_~":
            url = url[:-1]
        elif url[-1] == ")" and url.count(")") > url.count("("):
            url = url[:-1]
        else:
            break
    return url


# ---------------------------------------------------------------- scanning
class _Scanner:
    """Splits text into tokens. ``latex_mode`` also reads LaTeX text commands and HTML emphasis."""

    def __init__(self, latex_mode: bool, *, wikilinks: bool = False, links: bool = True,
                 open_em: frozenset[int] = frozenset()):
        self.latex, self.wikilinks, self.links, self.open_em = latex_mode, wikilinks, links, open_em

    def _nested(self, **changes) -> "_Scanner":
        options = {"wikilinks": self.wikilinks, "links": self.links, "open_em": self.open_em, **changes}
        return _Scanner(self.latex, **options)

    def scan(self, s: str) -> list[Token]:
        toks: list[Token] = []
        buf: list[str] = []
        i = 0
        starts = _LATEX_STARTS if self.latex else _MARKDOWN_STARTS
        while i < len(s):
            found = self._markup(s, i)
            if found is None:  # copy up to the next character where markup may start
                nxt = starts.search(s, i + 1)
                j = nxt.start() if nxt else len(s)
                buf.append(s[i:j])
                i = j
                continue
            i, new = found
            for t in new:
                if t.kind == "text":
                    buf.append(t.plain)
                    continue
                if t.kind == "unspace":  # what was dropped takes the space before it along
                    kept = "".join(buf).rstrip(" \t\u00a0")
                    buf[:] = [kept]
                    continue
                if "".join(buf):
                    toks.append(text_token("".join(buf)))
                buf.clear()
                toks.append(t)
        if "".join(buf):
            toks.append(text_token("".join(buf)))
        return toks

    def _markup(self, s: str, i: int) -> tuple[int, list[Token]] | None:
        c = s[i]
        if c == "\\":
            return self._backslash(s, i)
        if c == "$":
            if s.startswith("$$", i):
                span = _math_span(s, i + 2, "$$")
                return (span[0], [_math("$$", span[1])]) if span else (i + 2, [text_token("$$")])
            span = _math_span(s, i + 1, "$")
            return (span[0], [_math("$", span[1])]) if span else (i + 1, [text_token("$")])
        if c == "`":
            return self._backtick(s, i)
        if c == "*":
            return self._emphasis(s, i)
        if c == "<":
            return self._angle(s, i)
        if c == "&":
            m = ENTITY.match(s, i)
            value = html.unescape(m.group()) if m else None
            return (m.end(), [text_token(_normalise(value))]) if m and value != m.group() else None
        if c == "[":
            return self._bracket(s, i)
        if c in "hHfF" and self.links and not (i and (s[i - 1].isalnum() or s[i - 1] == "_")):
            m = _URL.match(s, i)
            url = _strip_url(m.group()) if m else ""
            if url and latex.is_safe_url(url):
                return i + len(url), [Token("url", url, url)]
        if self.latex:
            if s.startswith("''", i):
                return i + 2, [text_token("”")]
            if s.startswith("---", i):
                return i + 3, [text_token("—")]
            if s.startswith("--", i):
                return i + 2, [text_token("–")]
            if c == "~":
                return i + 1, [text_token("\u00a0")]
        return None

    def _backslash(self, s: str, i: int) -> tuple[int, list[Token]] | None:
        nxt = s[i + 1:i + 2]
        if self.latex:
            if nxt in ("(", "["):
                close = "\\)" if nxt == "(" else "\\]"
                j = s.find(close, i + 2)
                body = s[i + 2:j].strip() if j != -1 else ""
                delim = "$" if nxt == "(" else "$$"
                if body and "$" not in body and _math_span(body + delim, 0, delim) == (len(body) + len(delim), body):
                    return j + 2, [_math(delim, body)]
            m = _COMMAND.match(s, i)
            found = self._command(s, m.group(1), m.end()) if m else None
            if found:
                return found
            accented = latex.accent(s, i)
            if accented:
                return accented[0], [text_token(accented[1])]
            if nxt in latex.SYMBOLS:
                return i + 2, [text_token(latex.SYMBOLS[nxt])]
        if nxt and nxt in _ASCII_PUNCT:  # a Markdown escape: the character itself
            return i + 2, [text_token(nxt)]
        return None

    def _command(self, s: str, name: str, end: int) -> tuple[int, list[Token]] | None:
        if name in latex.WORDS:
            return end + 2 if s.startswith("{}", end) else end, [text_token(latex.WORDS[name])]
        citation = name in latex.DROPPED_CITATIONS or name in latex.KEPT_CITATIONS
        known = name in ("url", "href", "texttt") or name in latex.EMPHASIS or name in latex.PASS_THROUGH
        arg = latex.braced(s, latex.skip_optional(s, end) if citation else end) if known or citation else None
        if arg is None:
            return None
        end, inner = arg
        if name in latex.DROPPED_CITATIONS:
            return end, [Token("unspace", "", "")]
        if citation:
            return end, [text_token(", ".join(key.strip() for key in inner.split(",")))]
        if name == "url":
            url = latex.unescape_argument(inner).strip()
            ok = self.links and latex.is_safe_url(url)
            return end, [Token("autolink", url, url) if ok else text_token(url)]
        if name == "href":
            text = latex.braced(s, end)
            if text is None:
                return None
            return text[0], self._link(latex.unescape_argument(inner).strip(), text[1])
        if name == "texttt":
            return end, _code(latex.unescape_argument(inner))
        if name in latex.EMPHASIS:
            return end, self._emph(latex.EMPHASIS[name], inner)
        return end, self._nested().scan(inner)

    def _emph(self, delim: str, inner: str) -> list[Token]:
        """Emphasis around ``inner``; whitespace moves outside the delimiters, nesting of one kind flattens."""
        core = inner.strip()
        if not core or len(delim) in self.open_em or _BLANK.search(core):
            return self._nested().scan(inner)
        lead, trail = inner[:len(inner) - len(inner.lstrip())], inner[len(inner.rstrip()):]
        body = self._nested(open_em=self.open_em | {len(delim)}).scan(core)
        return [text_token(lead), Token("em_open", delim, ""), *body, Token("em_close", delim, ""), text_token(trail)]

    def _link(self, url: str, text: str) -> list[Token]:
        label = self._nested(links=False, wikilinks=False).scan(text)
        if not (self.links and latex.is_safe_url(url)) or _BLANK.search(text):
            return label or [text_token(url)]
        if not "".join(t.plain for t in label).strip():
            label = [text_token(url)]
        return [Token("link_open", "[", ""), *label, Token("link_close", url, "")]

    def _backtick(self, s: str, i: int) -> tuple[int, list[Token]]:
        n = _TICKS.match(s, i).end() - i
        if self.latex and n == 2:  # ``quoted''
            close = s.find("''", i + 2)
            if close != -1 and not _BLANK.search(s, i + 2, close):
                return i + 2, [text_token("“")]
        close = _tick_closer(n).search(s, i + n)
        if close and not _BLANK.search(s, i + n, close.start()):
            return close.end(), _code(s[i + n:close.start()], n)
        if self.latex and n == 1 and "'" in s[i + 1:i + 200]:  # `quoted'
            return i + 1, [text_token("‘")]
        return i + n, [text_token("`" * n)]

    def _emphasis(self, s: str, i: int) -> tuple[int, list[Token]]:
        """`*it*` / `**bold**` as the author wrote them; any other `*` is a literal star."""
        n = _STARS.match(s, i).end() - i
        if n > 2 or n in self.open_em or i + n >= len(s) or s[i + n].isspace():
            return i + n, [text_token("*" * n)]
        j = i + n
        while j < len(s):
            c = s[j]
            if c == "\\":
                j += 1 if s[j + 1:j + 2] == "\n" else 2
            elif c == "\n" and _BLANK.match(s, j):
                break
            elif c == "`":  # a code span binds tighter than emphasis: a star inside it closes nothing
                ticks = _TICKS.match(s, j).end() - j
                close = _tick_closer(ticks).search(s, j + ticks)
                j = close.end() if close and not _BLANK.search(s, j + ticks, close.start()) else j + ticks
            elif c == "*":
                k = _STARS.match(s, j).end()
                if k - j == n and not s[j - 1].isspace():
                    body = self._nested(open_em=self.open_em | {n}).scan(s[i + n:j])
                    return k, [Token("em_open", "*" * n, ""), *body, Token("em_close", "*" * n, "")]
                j = k
            else:
                j += 1
        return i + n, [text_token("*" * n)]

    def _angle(self, s: str, i: int) -> tuple[int, list[Token]] | None:
        m = _AUTOLINK.match(s, i) if self.links else None
        if m:
            return m.end(), [Token("autolink", m.group(1), m.group(1))]
        if not self.latex:
            return None
        m = _HTML_EM.match(s, i)
        if m:
            return m.end(), self._emph("**" if m.group(1).lower() in ("b", "strong") else "*", m.group(2))
        m = _HTML_SCRIPT.match(s, i)
        if m:
            sup, inner = m.group(1).lower() == "sup", m.group(2)
            unicode = latex.script(inner, sup)
            if unicode:
                return m.end(), [text_token(unicode)]
            if _SCRIPT_TEXT.fullmatch(inner) and not inner.endswith(" "):
                return m.end(), [_math("$", ("^" if sup else "_") + "{\\text{" + inner + "}}")]
            return m.end(), self._nested().scan(inner)
        m = _BR.match(s, i)
        return (m.end(), [text_token(" ")]) if m else None

    def _bracket(self, s: str, i: int) -> tuple[int, list[Token]] | None:
        if self.wikilinks:
            m = _WIKI.match(s, i)
            if m:
                target, _, alias = m.group(1).partition("|")
                return m.end(), [Token("wiki", m.group(), alias or target)]
        if not self.links:
            return None
        j = i + 1
        while j < len(s) and s[j] not in "[]\n":
            j += 2 if s[j] == "\\" else 1
        m = _LINK_DEST.match(s, j + 1) if j < len(s) and s[j] == "]" else None
        url = m and (m.group(1) or m.group(2))
        if m and j > i + 1 and latex.is_safe_url(url):
            return m.end(), self._link(url, s[i + 1:j])
        return None


def _tidy(toks: list[Token]) -> list[Token]:
    """Drop emphasis that Markdown would misread: empty, touching another delimiter, or padded."""
    toks = [t for t in toks if t.kind != "text" or t.plain]
    while True:
        pair: dict[int, int] = {}
        stack: list[int] = []
        for k, t in enumerate(toks):
            if t.kind == "em_open":
                stack.append(k)
            elif t.kind == "em_close" and stack:
                o = stack.pop()
                pair[o], pair[k] = k, o
        drop: set[int] = set()
        for k, t in enumerate(toks):
            if t.kind not in ("em_open", "em_close"):
                continue
            after = toks[k + 1] if k + 1 < len(toks) else None
            before = toks[k - 1] if k else None
            if after and after.kind in ("em_open", "em_close"):
                same_span = pair.get(k) == k + 1
                merge = t.kind == "em_close" and after.kind == "em_open" and t.md == after.md
                inner = k if (t.kind == "em_close" and after.kind == "em_close") else k + 1
                drop = {k, k + 1} if same_span or merge else {inner, pair.get(inner, inner)}
            elif t.kind == "em_open" and after and after.kind == "text" and after.plain[:1].isspace():
                drop = {k, pair.get(k, k)}
            elif t.kind == "em_close" and before and before.kind == "text" and before.plain[-1:].isspace():
                drop = {k, pair.get(k, k)}
            if drop:
                break
        if not drop:
            return toks
        toks = _merge_text([t for k, t in enumerate(toks) if k not in drop])


def _merge_text(toks: list[Token]) -> list[Token]:
    merged: list[Token] = []
    for t in toks:
        if t.kind == "text" and merged and merged[-1].kind == "text":
            merged[-1] = text_token(merged[-1].plain + t.plain)
        else:
            merged.append(t)
    return merged


def scan(text: str, latex_mode: bool, wikilinks: bool = False) -> list[Token]:
    return _tidy(_Scanner(latex_mode, wikilinks=wikilinks).scan(_normalise(text)))
