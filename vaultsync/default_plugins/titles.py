"""An abstract's text made fit for names and titles: markup turned into plain words, sentences
found, phrases cut at a boundary, a gist of one clause, and the word lists the title rules share
(``vaultsync/data/title_words.txt``). Descriptive titles are built in ``contribution.py`` (from
the sentence stating the contribution) and ``topics.py`` (for an abstract that states none).
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from ..inline_html import html_to_markdown
from ..word_lists import read_word_lists

_VERBS = (
    r"(?:propos|introduc|present|develop|design|deriv|devis|buil[dt]|construct|creat|releas|"
    r"curat|contribut|offer|establish|unveil|formulat|defin|put forward|outlin|advocat|collect|compil)[a-z]*"
)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


_WORDS = read_word_lists(Path(__file__).resolve().parent.parent / "data" / "title_words.txt")


def _sentence(bounds: list[tuple[int, int]], pos: int) -> tuple[int, int]:
    index = bisect.bisect_right(bounds, (pos, float("inf"))) - 1
    return bounds[index] if index >= 0 else (0, 0)



_LATEX_BOLD = re.compile(r"\\textbf\{([^{}]*)\}")
_LATEX_ITALIC = re.compile(r"\\(?:emph|textit)\{([^{}]*)\}")
_LATEX_PLAIN = re.compile(
    r"\\(?:textsc|texttt|textrm|textsf|underline|url|text|mathrm|mathbf|mathcal|mathbb|"
    r"mathit|operatorname)\{([^{}]*)\}"
)
_MATH = re.compile(r"\$([^$]{0,200})\$")
_GREEK_AND_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "theta": "θ", "lambda": "λ", "mu": "μ", "sigma": "σ", "tau": "τ", "phi": "φ", "pi": "π",
    "omega": "ω", "eta": "η", "rho": "ρ", "kappa": "κ", "xi": "ξ", "psi": "ψ", "chi": "χ",
    "to": "→", "rightarrow": "→", "times": "×", "infty": "∞", "leq": "≤", "le": "≤", "geq": "≥",
    "ge": "≥", "approx": "≈", "sim": "~", "pm": "±", "cdot": "·", "ell": "ℓ", "%": "%",
}
_MATH_COMMAND = re.compile(r"\\([A-Za-z]+|%) ?")
_STARS = re.compile(r"\*+")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<!\w)__?(?=\S)|(?<=\S)__?(?!\w)")
_PARENTHETICAL = re.compile(r" ?\([^()]*\)| ?\[[^\[\]]*\]")
_COMMAND = re.compile(r"\\[A-Za-z]+\*?(?:\{([^{}]*)\})?")
_STOP = re.compile(r"\. (?=(?:[\"'“(\[$\\]|\*\*?|__?)?[A-Z0-9])")  # (`... LLMs. **CoLA** employs`)
_QUESTION = re.compile(r"[?!] (?=[\"'“(\[*$\\]?[A-Z0-9])")
_ABBREVIATIONS = ("e.g", "i.e", "et al", "vs", "fig", "eq", "cf", "resp", "approx", "no", "sec")
_BREAKS = re.compile(
    r", |; |: | [—–] | (?=(?:that|which|where|while|whereby|whose|to|by|through|via|using|for|"
    r"with|without|in|on|across|from|under|over|into|and|or|as|when|because|thereby|thus|"
    r"between|among|against|beyond|toward|towards|within|inside|per|"
    r"yielding|enabling|leveraging|achieving|allowing|resulting|based)\b)"
)
_TRAILING_WORDS = _WORDS["trailing_words"]
_TRAILING_PUNCTUATION = " ,;:.!?—–-"
_CLAUSE_END = re.compile(
    r"; | [—–] |, (?:and|but|while|whereas|and then|and we|we|together with|along with|as well as) | and (?:we )?(?:prove|show|"
    r"demonstrate|propose|introduce|provide|derive|establish|present|evaluate|achieve|find|"
    r"validate|obtain|give|release|design|develop|analy[sz]e|study|discuss)\b"
)
_DANGLING = _WORDS["dangling"]


# a name or a capital written as math: `$Morse$`, `${MorphKV}$`, `$\texttt{AMC}$`, `${\textbf{A}}$daptive`
_MATH_WORD = re.compile(r"\$(\{?(?:\\(?:text[a-z]*|mathrm|mathsf|mathtt|mathbf)\{)?([A-Za-z][A-Za-z0-9-]{2,30}|[A-Z](?=\}*\$[a-z]))"
                        r"\}?\}?)\$")


_MARKED_LETTERS = re.compile(r"(?<=[A-Za-z])\*\*([A-Za-z]{1,4})\*\*|\*\*([A-Za-z]{1,4})\*\*(?=[a-z])"
                             r"|(?<= )\*\*([a-z]{1,4})\*\*(?= )")  # (`the **for** Solver`)


def plain_text(text: str) -> str:
    """The abstract with HTML and LaTeX text commands turned into Markdown emphasis, a name
    written as math (``$Morse$``) as a word, and spaces collapsed."""
    if not _single_spaced(text):
        text = " ".join(text.split())
    text = html_to_markdown(text)
    if "$" in text:
        text = _MATH_WORD.sub(lambda m: m.group(2), text)
    if "\\" in text:
        text = _LATEX_BOLD.sub(r"**\1**", text)
        text = _LATEX_ITALIC.sub(r"*\1*", text)
        text = _LATEX_PLAIN.sub(r"\1", text)
        text = text.replace("\\%", "%").replace("\\&", "&")
    if "**" in text:  # `**Li**nearizing ... **g**at**e**d`: letters a long form marks for its acronym, as plain words
        text = _MARKED_LETTERS.sub(lambda m: next(g for g in m.groups() if g), text)
    return text.replace("``", '"').replace("''", '"').replace("---", "—")


def _single_spaced(text: str) -> bool:
    """Whether ``" ".join(text.split()) == text``, told without building the words: a printable
    text has no whitespace but the space (tabs, newlines and other spaces are not printable)."""
    if "  " in text or text.startswith(" ") or text.endswith(" "):
        return False
    if text.isascii():  # a few searches for a character, not a table lookup per character
        return not any(map(text.__contains__, _ASCII_SPACES))
    return text.isprintable()


_ASCII_SPACES = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"  # what str.split() splits ASCII at, besides " "


def _strip_tail(text: str) -> str:
    """Without trailing punctuation or a dangling function word (`... framework for`)."""
    while True:
        text = text.rstrip(_TRAILING_PUNCTUATION)
        head, _, last = text.rpartition(" ")
        if not head or last.casefold() not in _TRAILING_WORDS:
            return text
        text = head


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence; abbreviations (e.g., et al.) do not end one."""
    ends = [m.start() + 1 for m in _STOP.finditer(text)]
    if "? " in text or "! " in text:
        ends = sorted(ends + [m.start() + 1 for m in _QUESTION.finditer(text)])
    bounds, start = [], 0
    for end in ends:
        if text[max(start, end - 7):end - 1].casefold().endswith(_ABBREVIATIONS):
            continue
        bounds.append((start, end))
        start = end + 1
    if start < len(text):
        bounds.append((start, len(text)))
    return bounds


def _math(match: re.Match) -> str:
    body = _LATEX_PLAIN.sub(r"\1", match.group(1))
    body = _MATH_COMMAND.sub(lambda m: _GREEK_AND_SYMBOLS.get(m.group(1), "\\"), body)
    body = body.replace("{", "").replace("}", "").replace("_", "").replace("^", "").strip()
    return "…" if "\\" in body or len(body) > 16 else body  # (a title cuts before math it cannot show)


def _good_cut(text: str, cut: int, separator: str) -> bool:
    words = text[:cut].split()
    if not words or words[-1].casefold() in _DANGLING or text[:cut].count('"') % 2:
        return False
    if separator == ", ":  # not inside a list of short items: `stages, perception, understanding`
        previous = text.rfind(", ", 0, cut)
        if previous >= 0 and len(text[previous:cut].split()) <= 3:
            return False
    follower = text[cut:cut + 12].split(maxsplit=1)
    if words[-1].endswith("ed") and follower and follower[0] in ("by", "to", "in", "on", "with", "from"):
        return False  # `a metric inspired | by ...`
    return True


def trim_phrase(text: str, limit: int, shortest: int = 0, strict: bool = False) -> str:
    """``text`` cut to at most ``limit`` characters at a phrase boundary (a comma, a preposition,
    a relative pronoun; not inside a list), without trailing punctuation or a dangling function
    word. Below ``shortest`` characters a word boundary is used instead, or with ``strict``
    nothing (``""``) is returned."""
    text = _strip_tail(text.strip())
    if len(text) <= limit:
        return text
    cut = 0
    for match in _BREAKS.finditer(text, 0, limit + 2):
        if match.start() <= limit and _good_cut(text, match.start(), match.group(0)):
            cut = match.start()
    if cut < max(shortest, 1):
        if strict:
            return ""
        cut = text.rfind(" ", 0, limit + 1)
        cut = cut if cut > 0 else limit
    return _strip_tail(text[:cut]) or text[:limit].strip()


def clean_phrase(text: str, limit: int, strict: bool = False) -> str:
    """A phrase fit for a title or a list line: no markup or parentheticals, math only when
    short and plain, trimmed to ``limit`` characters (see :func:`trim_phrase`)."""
    if "$" in text:
        text = _MATH.sub(_math, text).replace("$", "")
    if "(" in text or "[" in text:
        text = _PARENTHETICAL.sub("", _PARENTHETICAL.sub("", text))
    if "\\" in text:
        text = _COMMAND.sub(lambda m: m.group(1) or "", text)
    if "*" in text:
        text = _STARS.sub("", text)
    if "_" in text:
        text = _UNDERSCORE_EMPHASIS.sub("", text)
    text = " ".join(text.replace("`", "").split())
    for match in _CLAUSE_END.finditer(text, 30):
        previous = max(text.rfind(", ", 0, match.start()), 0)
        if match.group(0)[0] != "," or len(text[previous:match.start()].split()) > 3:
            text = text[:match.start()]  # one clause: `..., and show that ...` is another claim
            break
    return trim_phrase(text, limit, shortest=limit // 3, strict=strict)
_LEADING = re.compile(
    r"^(?:(?:a|an|the|two|three|several|novel|new|first|simple|simple yet effective|simple and effective|"
    r"general|generic|principled|rigorous|comprehensive|systematic|unified|efficient and effective|"
    r"effective|practical|versatile|flexible|powerful|lightweight|scalable|yet|(?<=, )and)[, ]+)+", re.IGNORECASE)
_NOT_A_TITLE_START = _WORDS["not_a_title_start"]
_TITLE_BREAKS = re.compile(
    r", | ?; | ?: | [—–] | (?=(?:that|which|where|while|whereby|whose|to|by|through|using|when|because|"
    r"thereby|thus|yielding|enabling|leveraging|achieving|allowing|resulting|showing|"
    r"demonstrating|and then|and (?:show|prove|demonstrate|evaluate|achieve)|across|based on|for|"
    r"with|via|in|on|under|from|without|beyond|against|between|among)\b)"
)
NAME_WORDS = 8
NAME_CHARS = 60
GIST_WORDS = 20
GIST_CHARS = 120


def _capitalise(text: str) -> str:
    first = text.split(" ", 1)[0]
    if not first or any(c.isupper() for c in first[1:]) or not first[0].islower():
        return text  # do-Shapley, xLSTM: as written
    return text[0].upper() + text[1:]


_LOOSE_ENDS = _WORDS["loose_ends"]


def _strip_loose_end(text: str) -> str:
    """Without a trailing function word, or a participle that needs what followed it
    (`a suite tailored`, `an algorithm designed`)."""
    while True:
        text = _strip_tail(text)
        head, _, last = text.rpartition(" ")
        word = last.casefold()
        participle = word.endswith("ed") and len(word) > 4 and word.isalpha() and not word.endswith("eed")
        purpose = head.endswith(" to") and word.isalpha() and not word.endswith("ing") and word[-2:] != "es"  # `to address`
        if not head or not (word in _LOOSE_ENDS or participle or purpose or word.endswith("ly") and word.isalpha()):
            return text
        text = head


def _cut_at_word(text: str, words: int, chars: int) -> str:
    kept: list[str] = []
    for word in text.split()[:words]:
        if len(" ".join([*kept, word])) > chars:
            break
        kept.append(word)
    return " ".join(kept)


def _technical(words: list[str], rare: float = 3.6) -> bool:
    """Does the phrase hold a word that only a field uses (rarer than ``rare`` in general English
    on wordfreq's Zipf scale, an acronym)?"""
    from ..generic import word_commonness  # (wordfreq's tables load on first use)

    return any(any(c.isupper() for c in w[1:]) or any(c.isdigit() for c in w)
               or word_commonness(w.casefold().strip(",.;:")) < rare for w in words if w.isascii())


# `quantization, | sparsity, and low-rank`, `past, present, | and future`: a cut between the items of a list
_NEXT_ITEM = re.compile(r"(?!(?:which|that|where|while|whereas|and|or|but|we|it|they|thus|thereby|[a-z]+ing)\b)"
                        r"(?:[\w'’-]+ ){0,3}?[\w'’-]+(?:,? (?:and|or) |, )")
_LAST_ITEM = re.compile(r"(?:and|or) (?!(?:we|it|they|then|thus|thereby|also)\b)")
_ITEM_BEFORE = re.compile(r", (?:[\w'’-]+ ){0,3}[\w'’-]+$")


def _inside_list(text: str, start: int, end: int) -> bool:
    """Does a cut at ``text[start:end]`` part the items of a list (`A, | B, and C`, `A, B, | and C`)
    or a range of numbers (`spanning 0.25B | to 18B`)?"""
    if text[start:end] == ", ":
        return _NEXT_ITEM.match(text, end) is not None or _LAST_ITEM.match(text, end) is not None \
            and _ITEM_BEFORE.search(text, 0, start) is not None
    if not text.startswith(" to ", start):
        return False
    return re.search(r"\d\S*$", text[:start]) is not None and re.match(r" to \S*\d", text[start:]) is not None \
        or _ASKS_TO.search(text, 0, start) is not None  # `by encouraging the model | to learn X`: what it is asked to do


_ASKS_TO = re.compile(r"\b(?:encourag|enabl|allow|forc|teach|train|help|prompt|guid|requir|ask|caus)[a-z]* "
                      r"(?:the |a |an |its |their |each |every )?[\w-]+$")


def gist_of(phrase: str) -> str:
    """One clause of at most 20 words: ``phrase`` cut at a boundary, or at a word."""
    phrase = phrase.split("…")[0].lstrip(" ,;:.—–-")
    text = _strip_tail(phrase.strip())
    if len(text) <= GIST_CHARS and len(text.split()) <= GIST_WORDS:
        return text
    best = ""
    for match in _TITLE_BREAKS.finditer(text):
        head = _strip_loose_end(text[:match.start()])
        if len(head) > GIST_CHARS or len(head.split()) > GIST_WORDS:
            break
        if len(head.split()) >= 3 and not head.count('"') % 2 and not _inside_list(text, match.start(), match.end()):
            best = head
    return best or _before_cut_modifier(_strip_tail(_cut_at_word(text, GIST_WORDS, GIST_CHARS)))


# a past participle opening the modifier a word cut ended in (`recordings | collected during
# naturalistic`; not an -ing word, most of which name things: `learning`, `embedding`)
_CUT_MODIFIER = re.compile(r"^(.*) [a-z]{2,}[a-df-z]ed ((?:[\w'’-]+ ?){1,8})$")  # (the last one)


def _before_cut_modifier(gist: str) -> str:
    """A gist cut at a word, without the participial modifier the cut left unfinished (what
    the noun before it is stays whole), where six words or more are left."""
    modifier = _CUT_MODIFIER.match(gist)
    if modifier is None or len(modifier[1].split()) < 6:
        return gist
    return _strip_tail(modifier[1])
