"""LaTeX text-mode vocabulary for abstracts: which commands mean what outside math.

Only tables and small pure helpers live here; ``vaultsync.markdown`` does the scanning.
"""

from __future__ import annotations

import re
import unicodedata

# \cmd{X} that becomes emphasis: the value is the Markdown delimiter.
EMPHASIS = {"textbf": "**", "textit": "*", "emph": "*", "textsl": "*"}
# \cmd{X} shown as plain X (font, box and case changes have no Markdown form).
PASS_THROUGH = frozenset(
    "textrm textsf textsc textnormal textup textmd mbox hbox text underline uline".split()
)
# Text-mode commands that may wrap `$…$` inside math: `$\textbf{4.28$\times$}$`.
TEXT_IN_MATH = frozenset({"text", "textbf", "textit", "textrm", "textsf", "texttt", "textnormal",
                          "textup", "emph", "mbox", "hbox"})
# Citations and cross-references: a key means nothing to a reader, so a parenthetical citation
# goes (with the space before it); a textual one (`\citet{lee2019} showed`) and a reference
# (`Section~\ref{sec:method}`) keep their key, which stands in the sentence. Optional `[…]`
# arguments (`\citep[see][p.~3]{x}`) go with them.
DROPPED_CITATIONS = frozenset(
    "cite citep citealp citealt citeyearpar parencite autocite footcite supercite nocite label".split()
)
KEPT_CITATIONS = frozenset("citet citeauthor citeyear textcite ref eqref autoref cref Cref pageref".split())
# \word commands without an argument.
WORDS = {
    "ldots": "…", "dots": "…", "textellipsis": "…", "LaTeX": "LaTeX", "TeX": "TeX",
    "textendash": "–", "textemdash": "—", "S": "§", "P": "¶", "copyright": "©",
    "textregistered": "®", "texttrademark": "™", "ss": "ß", "ae": "æ", "AE": "Æ", "o": "ø",
    "O": "Ø", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "textbackslash": "\\",
    "textasciitilde": "~", "textasciicircum": "^", "textunderscore": "_", "textbar": "|",
    "textless": "<", "textgreater": ">", "textquotedblleft": "“", "textquotedblright": "”",
    "textquoteleft": "‘", "textquoteright": "’", "quad": " ", "qquad": " ", "newline": " ",
}
# \X for a single non-letter X: a literal character (or a spacing command).
SYMBOLS = {"%": "%", "&": "&", "_": "_", "#": "#", "$": "$", "{": "{", "}": "}",
           " ": " ", ",": "\u2009", ";": " ", ":": " ", "!": "", "-": "", "/": "", "\\": " "}
_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
            "=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306",
            "H": "\u030b", "r": "\u030a", "k": "\u0328"}
_ACCENT = re.compile(r"""\\(?:(['`^"~=.])\s*|([cvuHrk])(?=[\s{]))\s*(?:\{\s*(\\i|\\j|[A-Za-z])\s*\}|(\\i|[A-Za-z]))""")

SUPERSCRIPT = dict(zip("0123456789+-=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ"))
SUBSCRIPT = dict(zip("0123456789+-=()aeoxhklmnpst", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ"))

_SAFE_URL = re.compile(r"(?:https?|ftp)://[^\s/?#]+\S*|mailto:[^\s@]+@\S+", re.IGNORECASE)


def accent(text: str, i: int) -> tuple[int, str] | None:
    """`\\'e`, `\\'{e}`, `\\"{o}`, `\\c{c}` at ``text[i]`` -> (end, the accented letter in NFC)."""
    m = _ACCENT.match(text, i)
    if not m:
        return None
    letter = m.group(3) or m.group(4)
    letter = {"\\i": "i", "\\j": "j"}.get(letter, letter)
    mark = _ACCENTS[m.group(1) or m.group(2)]
    return m.end(), unicodedata.normalize("NFC", letter + mark)


def braced(text: str, i: int) -> tuple[int, str] | None:
    """The ``{…}`` argument starting at ``text[i]`` (spaces before it allowed) -> (end, inside)."""
    while i < len(text) and text[i] in " \t":
        i += 1
    if i >= len(text) or text[i] != "{":
        return None
    depth, j = 0, i
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1, text[i + 1:j]
        j += 1
    return None


def skip_optional(text: str, i: int) -> int:
    """The index after any `[…]` optional arguments starting at ``text[i]`` (spaces allowed)."""
    while True:
        j = i
        while j < len(text) and text[j] in " \t":
            j += 1
        if j >= len(text) or text[j] != "[":
            return i
        close = text.find("]", j)
        if close == -1 or "\n\n" in text[j:close]:
            return i
        i = close + 1


def unescape_argument(text: str) -> str:
    r"""`\_`, `\%`, `\#`, `\&`, `\~`… inside `\url{}` or `\texttt{}` -> the character."""
    return re.sub(r"\\([%&_#${}~^ ])", r"\1", text).replace("\\textbackslash{}", "\\")


def is_safe_url(url: str) -> bool:
    """Only web and mail links become links; `javascript:` and relative paths stay text."""
    return bool(_SAFE_URL.fullmatch(url))


def script(inner: str, sup: bool) -> str | None:
    """`<sup>2</sup>` / `<sub>2</sub>` as Unicode super/subscripts, when every character has one."""
    table = SUPERSCRIPT if sup else SUBSCRIPT
    if inner and all(c in table for c in inner):
        return "".join(table[c] for c in inner)
    return None
