"""The built-in naming rule: a paper is named after the method, model, benchmark or dataset it
introduces, and titled from its contribution sentence (abstracts have no titles).

Name rules, over the whole abstract (the most reliable pattern wins, then the earliest):

0. the object of an introducing verb (``we propose``, ``this paper introduces``, ``we then
   derive``): ``Long Form (ACRONYM)`` -> ``ACRONYM`` with alias ``Long Form``; ``Coined (Long
   Form)`` -> ``Coined`` with the alias; ``Coined, a ...``; ``**Coined**``; ``\\textbf{Coined}``;
   ``the Coined benchmark``; and ``namely X`` / ``called X`` / ``dubbed X`` / ``termed X`` in a
   sentence about the authors' work;
1. ``a novel framework, X,`` after an introducing verb, or ``our method, X``; a plain
   capitalised word after an introducing verb (``introduces Grouter, a ...``);
2. ``called X`` elsewhere; 3. a bold coined token anywhere; 4. the extractors' hints
   (``paper_aliases``, ``acronym-coined`` mentions) when the text names the token.

A coined name has inner or several capitals or mixes letters and digits (``OptMaster``,
``PRISM``, ``X-Dub``, ``Llama3``); a plain capitalised word (``Grouter``) counts only before an
appositive (``Grouter, a ...``). A token before an ordinary noun (``GNN models``) or ending in a
lower-case hyphen part (``LLM-based``) is a modifier, not a name. Other names the paper introduces
that extend the main one (``AVI-Bench-PriSe``) become aliases; names of components (a module, a
loss) do not, so they cannot capture links meant for concept notes. A version number right
after a name belongs to it (``Llama-Guard 4``).

Titles: ``name — what it is`` (the appositive, or ``name — Long Form, a ...``); unnamed papers
get the object of their contribution sentence (``we propose a framework that exploits X`` ->
``Framework exploiting X``), cut at a phrase boundary, without markup or long math.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache
from typing import Iterator, NamedTuple

from ..hookspecs import hookimpl
from ..records import Abstract, Extraction, PaperName

TITLE_MAX = 110
GIST_MAX = 120

_DASH = "\\-\u2010\u2011"
_TOKEN = rf"[^\W_][\w{_DASH}+.]*[\w+]|[^\W_]"
_VERBS = (
    r"(?:propos|introduc|present|develop|design|deriv|devis|buil[dt]|construct|creat|releas|"
    r"curat|contribut|offer|establish|unveil|formulat|put forward)[a-z]*"
)
# Searched in " " + ASCII-lower-cased text: a literal first character keeps the regexes fast.
_INTRO = re.compile(rf" (?:we|paper|work|article|study|here) (?:[a-z]+ ){{0,2}}?{_VERBS} (?:here )?")
# (`which we call` and `we call` are two alternatives, not `(?:which )?we call`: an alternative
# that opens with a literal is ruled out at a glance, one that opens with a group is entered at
# every space, which made this scan twice as slow.)
_CALLED = re.compile(
    r" (?:namely|called|dubbed|termed|named|coined|denoted as|referred to as|"
    r"which we (?:call|term|name|dub)(?: it| this [a-z]+)?|we (?:call|term|name|dub)(?: it| this [a-z]+)?),? (?:as )?"
)
# Every match of _CALLED holds one of these; nine in ten abstracts hold none, and nine substring
# searches cost 60 % of the scan, which tries the pattern at every space.
_CALLED_WORDS = ("name", "called", "we call", "dub", "termed", "we term", "coined", "denoted as", "referred to as")
_PERSONAL = re.compile(rf" (?:we|our|this paper|this work) |{_VERBS}")
_HEAD_NOUNS = (
    r"(?:framework|method|approach|model|benchmark|dataset|data set|algorithm|architecture|"
    r"system|pipeline|technique|strategy|paradigm|network|agent|suite|toolkit|library|metric|"
    r"loss|module|scheme|protocol|mechanism|objective|corpus|environment|platform|procedure|"
    r"solver|estimator|optimizer|policy|tool|recipe|family|testbed|simulator|language)s?"
)
_APPOSITIVE = re.compile(rf"(?:a|an|the|our) (?:[\w{_DASH}]+ ){{0,5}}?{_HEAD_NOUNS}(?:,? (?=\S)| (?=\())")
_TOKEN_AT = re.compile(rf"(?:\*\*|\*|__|_)?({_TOKEN})(?:\*\*|\*|__|_)?")
_HEAD_AFTER = re.compile(rf" {_HEAD_NOUNS}\b", re.IGNORECASE)
_PAREN_AFTER = re.compile(r" ?\(([^()]{3,120})\)")
_LONG_THEN_ACRONYM = re.compile(rf"((?:[\w{_DASH}&'’]+ ){{0,9}}?[\w{_DASH}&'’]+) ?\(({_TOKEN})\)")
_VERSION = re.compile(r" v?\d+(?:\.\d+)*[a-z]?(?=[,:;.)( ]|$)")
_BOLD = re.compile(r"\*\*([^*]{2,60})\*\*")
_NUMBER_AND_LETTER = re.compile(r"\d+[A-Za-z]")
_DASHES = re.compile(f"[{_DASH}]")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

_ARTICLES_AND_SOFT = {"a", "an", "the", "novel", "new", "simple", "first", "unified", "general"}
_CONNECTORS = {
    "a", "an", "the", "that", "which", "to", "for", "as", "with", "by", "in", "on", "via",
    "using", "where", "whose", "wherein", "from", "into", "is", "are", "was", "can", "will",
    "both", "together", "at", "within", "across", "through", "under", "over",
}
_NOT_LONG_FORMS = {
    "to", "using", "that", "how", "with", "for", "on", "in", "of", "by", "via", "applying",
    "leveraging", "adding", "combining", "extending", "training", "results", "experiments",
}
_BOLD_AT = re.compile(r"(\*\*?|__?)([^*_]{2,60}?)\1(?!\w)")
_NOT_NAMES = {  # too common to be a paper's own name, or not names at all
    "ai", "ml", "llm", "llms", "nlp", "gpu", "gpus", "cpu", "rl", "dl", "api", "sota", "usa",
    "uk", "eu", "ii", "iii", "iv", "the", "this", "these", "those", "our", "we", "it", "its",
    "here", "however", "moreover", "furthermore", "specifically", "finally", "first", "second",
    "then", "new", "novel", "two", "three", "several", "both", "each", "such", "an", "in", "on",
}


class _Candidate(NamedTuple):
    rank: int  # lower is more reliable
    start: int
    name: str
    long: str | None
    end: int  # where the text after the name (its appositive) begins
    before: str = ""  # what it is, when said before it (`a novel paradigm, namely X`)


@lru_cache(maxsize=4096)
def coined_strength(token: str) -> int:
    """2 for a clearly coined name (``OptMaster``, ``PRISM``, ``X-Dub``, ``Llama3``), 1 for a
    plain capitalised word that may be one (``Grouter``), 0 for an ordinary word or modifier."""
    token = token.strip("*_")
    if len(token) < 2 or token.casefold() in _NOT_NAMES or _NUMBER_AND_LETTER.fullmatch(token):
        return 0  # 3D, 4K
    last = _DASHES.split(token)[-1]
    if last != token and last.isalpha() and last.islower():
        return 0  # LLM-based, GNN-guided: an adjective
    letters = [c for c in token if c.isalpha()]
    if not letters:
        return 0
    if sum(c.isupper() for c in letters) >= 2 or any(c.isupper() for c in token[1:]):
        return 2
    if any(c.isdigit() for c in token):
        return 2
    if token[0].isupper() and len(token) >= 4:
        return 1
    return 0


def _follows_as_name(text: str, end: int, strength: int) -> bool:
    """Whether what follows ``text[:end]`` lets the token before it stand as a name."""
    rest = text[end:end + 30]
    if not rest.strip() or rest[0] in ",:;.)—–" or rest.startswith((" (", " —", " –")):
        return True
    word = rest.split(maxsplit=1)[0].strip(",.;:").casefold() if rest.strip() else ""
    if strength == 1:
        return word in {"a", "an"}
    return word in _CONNECTORS or word.endswith(("ing", "ed")) or not word.isalpha()


def _long_form(words: str) -> str:
    parts = words.split()
    while parts and parts[0].casefold() in _ARTICLES_AND_SOFT:
        parts.pop(0)
    return " ".join(parts)


def _expands(long: str, name: str, strict: bool = True) -> bool:
    """Whether ``long`` can spell out ``name``: each capital of the name is a word initial or a
    capital of the long form (`Quantile-free Prediction Interval GNN` spells out `QpiGNN`);
    not ``strict``: the name's first letter starts a word and nothing reads as a citation."""
    words = long.split()
    if not words or words[0].casefold() in _NOT_LONG_FORMS:
        return False
    initials = [part[:1].casefold() for part in re.split(f"[\\s{_DASH}]+", long) if part]
    if not strict:
        return name[:1].casefold() in initials and not re.search(r"\d{4}|et al|e\.g|i\.e", long)
    letters = set(initials) | {c.casefold() for c in long if c.isupper()}
    return all(c.casefold() in letters for c in name if c.isupper())


def _after_intro(text: str, pos: int, rank: int) -> Iterator[_Candidate]:
    """The candidate, if any, whose name starts the object of an introducing verb at ``pos``."""
    window = text[pos:pos + 200]
    # (the pattern tries up to ten words, letter by letter, before it finds no parenthesis)
    pair = _LONG_THEN_ACRONYM.match(window) if "(" in window else None
    if pair and coined_strength(pair.group(2)) == 2:
        long = _long_form(pair.group(1))
        end = pos + pair.end()
        if _expands(long, pair.group(2)) and _follows_as_name(text, end, 2):
            yield _Candidate(rank, pos, pair.group(2), long, end)
            return
    offset = 4 if window.startswith("the ") else 1 if window.startswith("(") else 0
    bold = _BOLD_AT.match(window, offset)
    words = bold.group(2).split() if bold else []
    if bold and 1 < len(words) <= 4 and all(w[:1].isupper() or coined_strength(w) for w in words):
        name, strength, end = bold.group(2).strip(), 2, pos + bold.end()  # **Deep Sight Bench**
    else:
        token = _TOKEN_AT.match(window, offset)
        if not token:
            return
        name = token.group(1).rstrip(".")
        name = name[:-2] if name.endswith(("'s", "’s")) else name
        strength = coined_strength(name)
        end = pos + token.end()
        version = _VERSION.match(text, end)
        if version and not token.group(0).endswith(("*", "_")):
            name, end = name + version.group(0), version.end()  # Llama-Guard 4
        bold = None
    if offset == 1:  # `a simple framework (SimFrame)`
        if not text.startswith(")", end):
            return
        end += 1
    elif offset:  # `the ROAMM dataset`: a name, then what it is; or `the Transformer, a ...`
        head = _HEAD_AFTER.match(text, end)
        if head and strength == 2:
            end = head.end()
        elif not re.match(r", an? ", text[end:end + 4]):
            return
    if not strength or not (_follows_as_name(text, end, strength) or bold):
        return
    paren = _PAREN_AFTER.match(text, end)
    long = None
    if paren and len(paren.group(1).split()) >= 2 and _expands(paren.group(1), name, strict=False):
        long, end = paren.group(1).strip(), paren.end()
    yield _Candidate(rank if strength == 2 else rank + 1, pos, name, long, end)


def _candidates(text: str, low: str, bounds: list[tuple[int, int]]) -> Iterator[_Candidate]:
    """Every name candidate in ``text``; ``low`` is `" " + text` lower-cased (ASCII only)."""
    for match in _INTRO.finditer(low):
        yield from _after_intro(text, match.end() - 1, 0)
        start, end = _sentence(bounds, match.start())
        appositive = _APPOSITIVE.search(low, match.end(), end + 1)
        if appositive:
            before = text[appositive.start() - 1:appositive.end() - 1].strip(" ,")
            for candidate in _after_intro(text, appositive.end() - 1, 1):
                yield candidate._replace(before=before)
    for match in _CALLED.finditer(low) if any(map(low.__contains__, _CALLED_WORDS)) else ():
        start, _ = _sentence(bounds, match.start())
        personal = _PERSONAL.search(low, start, match.start() + 1)
        phrase = re.search(r"\b((?:a|an|the) [^,;:]{3,80}?),?$", text[start:match.start() - 1])
        for candidate in _after_intro(text, match.end() - 1, 0 if personal else 2):
            yield candidate._replace(before=phrase.group(1) if phrase else "")
    position = low.find(" our ")
    while position >= 0:
        appositive = _APPOSITIVE.match(low, position + 1)
        if appositive:
            before = text[position:appositive.end() - 1].strip(" ,")
            for candidate in _after_intro(text, appositive.end() - 1, 1):
                yield candidate._replace(before=before)
        position = low.find(" our ", position + 1)
    if "**" in text:
        for match in _BOLD.finditer(text):
            name = match.group(1).strip()
            if " " not in name and coined_strength(name) == 2:
                yield _Candidate(3, match.start(), name, None, match.end())


def _sentence(bounds: list[tuple[int, int]], pos: int) -> tuple[int, int]:
    index = bisect.bisect_right(bounds, (pos, float("inf"))) - 1
    return bounds[index] if index >= 0 else (0, 0)


def _hint_candidates(text: str, extraction: Extraction) -> Iterator[_Candidate]:
    hints = list(extraction.paper_aliases) + [
        surface
        for mention in extraction.concepts
        if mention.kind.startswith("acronym-coined")
        for surface in (*mention.surfaces, *mention.aliases)
    ]
    for hint in hints:
        if coined_strength(hint) == 2:
            start = _find_token(text, hint)
            if start >= 0:
                yield _Candidate(4, start, hint, None, start + len(hint))


def _find_token(text: str, token: str) -> int:
    """Where ``token`` first occurs in ``text`` with no word character or hyphen on either side
    (as ``(?<![\\w-])token(?![\\w-])`` would find it, without compiling a pattern per token), or -1."""
    at = text.find(token)
    while at >= 0:
        end = at + len(token)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_-"):
            return at
        at = text.find(token, at + 1)
    return -1


def _long_form_hint(name: str, extraction: Extraction) -> str | None:
    for mention in extraction.concepts:
        if mention.kind.startswith("acronym") and name in (*mention.surfaces, *mention.aliases):
            if mention.name != name and " " in mention.name:
                return mention.name
    return None


# --- text clean-up, phrase trimming, titles ------------------------------------------------------

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
_STOP = re.compile(r"\. (?=[\"'“(\[*$\\]?[A-Z0-9])")
_QUESTION = re.compile(r"[?!] (?=[\"'“(\[*$\\]?[A-Z0-9])")
_ABBREVIATIONS = ("e.g", "i.e", "et al", "vs", "fig", "eq", "cf", "resp", "approx", "no", "sec")
_BREAKS = re.compile(
    r", |; |: | [—–] | (?=(?:that|which|where|while|whereby|whose|to|by|through|via|using|for|"
    r"with|without|in|on|across|from|under|over|into|and|or|as|when|because|thereby|thus|"
    r"between|among|against|beyond|toward|towards|within|inside|per|"
    r"yielding|enabling|leveraging|achieving|allowing|resulting|based)\b)"
)
_TRAILING_WORDS = {
    "a", "an", "the", "of", "and", "or", "for", "to", "with", "in", "on", "by", "that", "which",
    "as", "from", "into", "via", "its", "their", "our", "both", "while", "when", "where", "whose",
    "is", "are", "can", "such", "together", "along", "also", "only", "even", "rather", "instead",
    "it", "this", "these", "them", "they", "between", "among", "than",
}
_TRAILING_PUNCTUATION = " ,;:.!?—–-"
_CLAUSE_END = re.compile(
    r"; | [—–] |, (?:and|but|while|whereas|and then|and we|we) | and (?:we )?(?:prove|show|"
    r"demonstrate|propose|introduce|provide|derive|establish|present|evaluate|achieve|find|"
    r"validate|obtain|give|release|design|develop|analy[sz]e|study|discuss)\b"
)
_DANGLING = {"it", "this", "these", "them", "they", "we", "its", "their", "our"}


def plain_text(text: str) -> str:
    """The abstract with LaTeX text commands turned into Markdown emphasis and spaces collapsed."""
    if not _single_spaced(text):
        text = " ".join(text.split())
    if "\\" in text:
        text = _LATEX_BOLD.sub(r"**\1**", text)
        text = _LATEX_ITALIC.sub(r"*\1*", text)
        text = _LATEX_PLAIN.sub(r"\1", text)
        text = text.replace("\\%", "%").replace("\\&", "&")
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
    body = body.replace("{", "").replace("}", "").strip()
    return "" if "\\" in body or len(body) > 16 else body


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


_CONTRIBUTION = (  # (pattern over the lower-cased text, whether the gist keeps the verb)
    (re.compile(
        rf" (?:we|this paper|this work|this article|this study) (?:[a-z]+ ){{0,2}}?"
        rf"(?:{_VERBS}|assembl[a-z]*|provid[a-z]*) (?=(?:a|an|the|two|three|several|new|novel) )"
    ), False),
    (re.compile(
        r" this (?:paper|work|article|study|note) ((?:addresses|studies|considers|tackles|"
        r"investigates|examines|explores|analy[sz]es|focuses on|revisits|characterizes)) "
    ), True),
    (re.compile(
        r" (?:our|the) (?:main |key |core |central )?(?:contribution|idea|foundation|insight|focus) "
        r"(?:of (?:our|this) (?:work|paper|approach) )?is "
    ), False),
    (re.compile(
        r" we (?:[a-z]+ ){0,2}?((?:analy[sz]e|study|investigate|examine|explore|characterize|"
        r"revisit|consider|formalize|prove|identify|address|tackle|compute|estimate|develop|"
        r"propose|introduce|present)) (?!that |whether |why |when |it |this )"
    ), True),
    (re.compile(
        r" we (?:[a-z]+ ){0,2}?(?:show|find|demonstrate|prove|argue|observe) that "
        r"(?!they |it |this |these |there |such |our )"
    ), False),
)
_RELATIVE_VERB = re.compile(r",? (?:that|which) ([a-z]{2,}[a-z]s)\b")
_LEADING = re.compile(r"^(?:(?:a|an|the|novel|new|first)\s+)+", re.IGNORECASE)


def _gerund(verb: str) -> str:
    """``exploits`` -> ``exploiting``, ``uses`` -> ``using``, ``maps`` -> ``mapping``."""
    stem = verb[:-1]
    if stem.endswith("ie"):
        return stem[:-2] + "ying"
    if stem.endswith(("che", "she", "sse", "xe", "ze")):
        return stem[:-1] + "ing"
    if stem.endswith("e") and not stem.endswith("ee"):
        return stem[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", stem):
        return stem + stem[-1] + "ing"
    return stem + "ing"


def _as_gerund(match: re.Match) -> str:
    verb = match.group(1)
    if verb.endswith(("ss", "us", "is", "ous")) or verb in ("has", "does", "was"):
        return match.group(0)
    return " " + _gerund(verb)


def _third_person(verb: str) -> str:
    if verb.endswith("s"):
        return verb
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    if verb.endswith(("ss", "sh", "ch", "x", "z")):
        return verb + "es"
    return verb + "s"


def _capitalise(text: str) -> str:
    first = text.split(" ", 1)[0]
    if not first or any(c.isupper() for c in first[1:]) or not first[0].islower():
        return text  # do-Shapley, xLSTM: as written
    return text[0].upper() + text[1:]


def contribution_title(text: str, low: str, bounds: list[tuple[int, int]]) -> tuple[str, str]:
    """(title, gist) of a paper that names nothing: from the sentence stating its contribution
    (``we propose a framework that exploits X`` -> ``Framework exploiting X``), else from its
    first sentence. The title aims at 40–110 characters."""
    best: tuple[str, str] | None = None
    for pattern, keeps_verb in _CONTRIBUTION:
        for match in pattern.finditer(low):
            _, end = _sentence(bounds, match.end() - 1)
            phrase = clean_phrase(text[match.end() - 1:end], 400)
            as_title = _RELATIVE_VERB.sub(_as_gerund, phrase, count=1)
            title = _capitalise(trim_phrase(_LEADING.sub("", as_title), TITLE_MAX, 40))
            if keeps_verb:
                phrase = f"{_third_person(match.group(1))} {phrase}"
            gist = trim_phrase(phrase, GIST_MAX, 40)
            if len(title) >= 40:
                return title, gist
            if title and (best is None or len(title) > len(best[0])):
                best = (title, gist)
    if best:
        return best
    sentences = [text[start:end] for start, end in bounds[:3]] or [text]
    first = next((s for s in sentences if len(clean_phrase(s, TITLE_MAX)) >= 40), sentences[0])
    title = _capitalise(clean_phrase(first, TITLE_MAX)) or _capitalise(clean_phrase(text, TITLE_MAX))
    return title or "Untitled abstract", clean_phrase(first, GIST_MAX)


def _gist(text: str, candidate: _Candidate, bounds: list[tuple[int, int]]) -> str:
    """What the named paper is: the appositive after its name, else the phrase before it."""
    _, end = _sentence(bounds, max(candidate.end - 1, 0))
    rest = text[candidate.end:max(end, candidate.end)].lstrip(" ,:;—–-")
    rest = re.sub(r"^(?:as|is|which is|that is) (?=(?:a|an|the) )", "", rest)
    before = candidate.before
    if before and not re.match(r"(?:a|an|the) ", rest) and not before.casefold().startswith("our "):
        # `a novel framework, called X, that learns` -> `a novel framework that learns`
        joined = re.match(r"(?:that|which|for|to|with) ", rest)
        return clean_phrase(f"{before} {rest}" if joined else before, GIST_MAX)
    return clean_phrase(re.sub(r"^(?:which|that) ", "", rest), GIST_MAX)


def _title(name: str, long: str | None, gist: str) -> str:
    head = f"{name} — {long}" if long else name
    tail = re.sub(r"^(a|an) (?:novel|new) (?=[^aeiouAEIOU\W])", r"\1 ", gist)  # `a novel X` -> `a X`
    if long and not re.match(r"(?:a|an|the|to|for) ", tail):
        tail = ""
    joiner = (" " if tail.startswith(("to ", "for ")) else ", ") if long else " — "
    room = TITLE_MAX - len(head) - len(joiner)
    tail = trim_phrase(tail, room, strict=True) if tail and room >= 20 else ""
    title = head + joiner + tail if tail else head
    return trim_phrase(title, TITLE_MAX)


def _aliases(name: str, long: str | None, others: list[str], extraction: Extraction) -> tuple[str, ...]:
    found: list[str] = []
    keys = {name.casefold()}
    for alias in (long, *others, *extraction.paper_aliases):
        if alias and alias.casefold() not in keys and len(alias) <= 120:
            keys.add(alias.casefold())
            found.append(alias)
    return tuple(found[:6])


def paper_name(text: str, extraction: Extraction | None = None) -> PaperName:
    """Name and title one abstract from its text (``extraction`` adds hints when present).

    Never raises. ``name`` is the coined name as written, or ``None`` when the abstract coins
    none; ``title`` is ``name — what it is`` or, unnamed, a phrase from the contribution
    sentence (at most 110 characters, no trailing punctuation, no markup); ``gist`` is at most
    120 characters; ``aliases`` hold the name's expansion and extended names.
    """
    extraction = extraction or Extraction()
    plain = plain_text(text)
    low = plain.lower()
    low = " " + (low if len(low) == len(plain) else plain.translate(_ASCII_LOWER))
    bounds = sentence_bounds(plain)
    # The extractors' hints rank last (4) and are never an extended name (rank 0-1): they count
    # only when the text itself names nothing, so they are looked for only then.
    candidates = [*_candidates(plain, low, bounds)] or [*_hint_candidates(plain, extraction)]
    if not candidates:
        title, gist = contribution_title(plain, low, bounds)
        return PaperName(title=title, name=None, aliases=_aliases("", None, [], extraction), gist=gist)
    best = min(candidates, key=lambda c: (c.rank, c.start))
    long = best.long or _long_form_hint(best.name, extraction)
    extended = [c.name for c in candidates if c.rank <= 1 and best.name.casefold() in c.name.casefold()]
    gist = _gist(plain, best, bounds)
    if len(gist) < 20:  # `We call it X.`: say what it is from the contribution sentence
        gist = contribution_title(plain, low, bounds)[1] or gist
    return PaperName(
        title=_title(best.name, long, gist),
        name=best.name,
        aliases=_aliases(best.name, long, extended, extraction),
        gist=gist,
    )


@hookimpl(trylast=True)
def vaultsync_paper_name(abstract: Abstract, extraction: Extraction) -> PaperName:
    """The built-in rule: see :func:`paper_name`."""
    return paper_name(abstract.text, extraction)
