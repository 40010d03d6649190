"""Inline HTML as authors paste it into abstracts (`<b>FooNet</b>`, `<em>x</em>`, `&amp;`), read the
way the rest of vaultsync reads text: as Markdown emphasis (names, titles) or as plain text (extractors).
"""

from __future__ import annotations

import html
import re

_HTML_EMPHASIS = re.compile(r"<(b|strong|i|em)\s*>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]{0,200})?/?>")


def _html_emphasis(match: re.Match) -> str:
    """``<b>FooNet</b>`` -> ``**FooNet**``; emphasis inside a word (``<b>S</b>olving``, authors
    marking the letters of an acronym) is dropped, so the word reads whole."""
    inner = match.group(2).strip()
    text = match.string
    if not inner or not (inner[0].isalnum() and inner[-1].isalnum()) or \
            (match.start() and text[match.start() - 1].isalnum()) or \
            (match.end() < len(text) and text[match.end()].isalnum()):
        return match.group(2)
    mark = "**" if match.group(1).lower() in ("b", "strong") else "*"
    return f"{mark}{inner}{mark}"


def html_to_markdown(text: str) -> str:
    """Inline HTML as authors paste it into abstracts, as Markdown: emphasis becomes ``**``/``*``,
    other tags go, entities become their characters (``&amp;`` -> ``&``)."""
    if "<" in text:
        for _ in range(2):  # nested emphasis: <b><i>X</i></b>
            text = _HTML_EMPHASIS.sub(_html_emphasis, text)
        text = _HTML_TAG.sub("", text)
    if "&" in text:
        text = html.unescape(text)
    return text


def without_html(text: str) -> str:
    """The text with inline HTML tags dropped and entities resolved, as extractors read it
    (`<b>S</b>olving` -> `Solving`, `&amp;` -> `&`); the text itself when it has neither."""
    if "<" in text:
        text = _HTML_TAG.sub("", text)
    if "&" in text:
        text = html.unescape(text)
    return text
