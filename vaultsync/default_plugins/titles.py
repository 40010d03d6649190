"""Titles for untitled abstracts: the text cleaned of markup, phrases cut at a boundary, and a
short descriptive title built from the sentence stating the paper's contribution.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from ..inline_html import html_to_markdown

_VERBS = (
    r"(?:propos|introduc|present|develop|design|deriv|devis|buil[dt]|construct|creat|releas|"
    r"curat|contribut|offer|establish|unveil|formulat|defin|put forward|outlin|advocat|collect|compil)[a-z]*"
)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _word_lists(path: Path) -> dict[str, frozenset[str]]:
    """The word lists in ``path``: ``[name]`` starts one, then words, any number a line."""
    lists: dict[str, set[str]] = {}
    words: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            words = lists.setdefault(line.strip("[]"), set())
        else:
            words.update(line.split())
    return {name: frozenset(found) for name, found in lists.items()}


_WORDS = _word_lists(Path(__file__).resolve().parent.parent / "data" / "title_words.txt")


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
_STOP = re.compile(r"\. (?=[\"'“(\[*$\\]?[A-Z0-9])")
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
    r"; | [—–] |, (?:and|but|while|whereas|and then|and we|we) | and (?:we )?(?:prove|show|"
    r"demonstrate|propose|introduce|provide|derive|establish|present|evaluate|achieve|find|"
    r"validate|obtain|give|release|design|develop|analy[sz]e|study|discuss)\b"
)
_DANGLING = _WORDS["dangling"]


# a name or a capital written as math: `$Morse$`, `${MorphKV}$`, `$\texttt{AMC}$`, `${\textbf{A}}$daptive`
_MATH_WORD = re.compile(r"\$(\{?(?:\\(?:text[a-z]*|mathrm|mathsf|mathtt|mathbf)\{)?([A-Za-z][A-Za-z0-9-]{2,30}|[A-Z](?=\}*\$[a-z]))"
                        r"\}?\}?)\$")


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


# Sentences that state what the paper contributes, most telling first: (pattern over the
# lower-cased text, how the title reads its object). "object": the noun phrase is the title
# (`we propose a framework for X` -> `Framework for X`); "topic": the same, for a paper that
# studies something (`we study the convergence of X` -> `Convergence of X`); "action": the verb
# becomes a gerund (`we rebalance the load across devices` -> `Rebalancing the load across devices`).
_CONTRIBUTION = (
    (re.compile(r" (?:this|our) position paper (?:[a-z]+ ){0,2}?(?:argues|advocates|contends|calls for|posits|claims|critiques|challenges|examines)"
                r"(?: that)? "), "position"),
    (re.compile(
        rf" (?:we|this paper|this work|this article|this study|here we) (?:[a-z]+,? ){{0,4}}?"
        rf"(?:{_VERBS}|assembl[a-z]*|provid[a-z]*) (?:here )?(?=(?:a|an|the|two|three|several|new|novel|[a-z]+) )"
    ), "object"),
    (re.compile(  # `we use X to study Y` -> `X for studying Y`
        r" we (?:[a-z]+ly )?(?:use|apply|leverage|employ|exploit|utili[sz]e) (?=(?:a|an|the|[a-z-]+) [^.;]{3,80}? to [a-z]{3,} )"
    ), "use"),
    (re.compile(
        r" (?:this (?:paper|work|article|study|note)|we) (?:[a-z]+ ){0,1}?((?:address|stud(?:y|ies)|consider|tackle|"
        r"investigate|examine|explore|analy[sz]e|focus(?:es)? on|revisit|characteri[sz]e|formali[sz]e|extend)s?) "
        r"(?!that |whether |why |when |how |what |if |it |this |these |such )"
    ), "topic"),
    (re.compile(  # `we conduct the first comprehensive investigation into X` -> `X`
        r" (?:we|this paper|this work|this study) (?:[a-z]+ ){1,3}?(?:an?|the) (?:[a-z-]+ ){0,3}?"
        r"(?:study|analysis|investigation|examination|evaluation|characteri[sz]ation) (?:of|into|on) "
    ), "topic"),
    (re.compile(
        r" (?:our|the) (?:main |key |core |central )?(?:contribution|idea|foundation|focus) "
        r"(?:of (?:our|this) (?:work|paper|approach) )?is "
    ), "object"),
    (re.compile(
        r" we (?:also |further |then |first |here |[a-z]{3,}ly )?([a-z]{3,}[^sy ,.]|[a-z]{3,}y) (?=(?:a|an|the|[a-z]+) )"
        r"(?!that |whether |why |when |how |what |if |it |this |these |such |them |to |on |in |with |for )"
    ), "action"),
)
_RELATIVE_VERB = re.compile(r",? (?:that|which) ([a-z]{2,}[a-z]s)\b(?: and ([a-z]{2,}[a-z]s)\b)?")
_LEADING = re.compile(
    r"^(?:(?:a|an|the|two|three|several|novel|new|first|simple|simple yet effective|simple and effective|"
    r"general|generic|principled|rigorous|comprehensive|systematic|unified|efficient and effective|"
    r"effective|practical|versatile|flexible|powerful|lightweight|scalable|yet|(?<=, )and)[, ]+)+", re.IGNORECASE)
_NOT_A_TITLE_START = _WORDS["not_a_title_start"]
_REFERS_BACK = _WORDS["refers_back"]
_TITLE_BREAKS = re.compile(
    r", | ?; | ?: | [—–] | (?=(?:that|which|where|while|whereby|whose|to|by|through|using|when|because|"
    r"thereby|thus|yielding|enabling|leveraging|achieving|allowing|resulting|showing|"
    r"demonstrating|and then|and (?:show|prove|demonstrate|evaluate|achieve)|across|based on|for|"
    r"with|via|in|on|under|from|without|beyond|against|between|among)\b)"
)
_GENERIC_TITLE_WORDS = _WORDS["generic_title_words"]
NAME_WORDS = 8
NAME_CHARS = 60
GIST_WORDS = 20
GIST_CHARS = 120


def _gerund(verb: str) -> str:
    """``exploits`` -> ``exploiting``, ``uses`` -> ``using``, ``maps`` -> ``mapping``."""
    return _gerund_of_base(verb[:-1])


def _gerund_of_base(stem: str) -> str:
    """``rebalance`` -> ``rebalancing``, ``map`` -> ``mapping``, ``study`` -> ``studying``."""
    if stem.endswith("ie"):
        return stem[:-2] + "ying"
    if stem.endswith(("che", "she", "sse", "xe", "ze")):
        return stem[:-1] + "ing"
    if stem.endswith("e") and not stem.endswith(("ee", "ye", "oe")):
        return stem[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", stem):
        return stem + stem[-1] + "ing"
    return stem + "ing"


def _as_gerund(match: re.Match) -> str:
    verb = match.group(1)
    if verb.endswith(("ss", "us", "is", "ous")) or verb in ("has", "does", "was", "models", "features", "needs"):
        return match.group(0)
    return " " + _gerund(verb) + (f" and {_gerund(match.group(2))}" if match.group(2) else "")


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


_FILLER_OF = re.compile(
    r"\b(?:the |a )?(?:problems?|task|setting|case|question|challenge|issue|class|family|notion) of (?:the )?",
    re.IGNORECASE)
_CLAUSE = re.compile(r", | ?; | ?: | ?[—–] ?| (?:that|which|where|whereby|whose|who|while|when|because|thus|thereby) |"
                     r" and (?:we )?(?:show|prove|demonstrate|find|establish|evaluate|achieve|propose)\b")
# where a title may be cut: before a preposition (never `of`: `levels | of collaboration` needs it)
# or a participle (`a dataset of peer reviews | simulating ...`)
_PREPOSITION = re.compile(
    r" (?=(?:for|in|on|with|via|under|from|across|without|between|among|through|by|using|based on|to|into|"
    r"over|beyond|against|towards?|within|as)\b|[a-z]+ing\b)")
_GENERIC_HEAD = re.compile(
    r"^(?:(?:theoretical|analysis|learning|unified|general|new|novel|simple|efficient|effective|rigorous) )?"
    r"(?:framework|method|approach|algorithm|technique|procedure|model|system|theory|paradigm|strategy|scheme|"
    r"pipeline|mechanism|tool|way|solution)s? (?:(?:to|that|which) )?(?=[a-z]+)", re.IGNORECASE)


_INNER_ARTICLE = re.compile(r" (?:the|a|an) (?=\w)")


_MODALS = frozenset({"can", "could", "may", "might", "will", "would", "shall", "should", "must"})


def _core(phrase: str) -> str:
    """The phrase up to its first clause boundary (a comma, `that`, `which`, `where`, ...)."""
    match = _CLAUSE.search(phrase)
    return phrase[:match.start()] if match else phrase


def short_phrase(text: str, words: int = NAME_WORDS, chars: int = NAME_CHARS) -> str:
    """``text`` as a noun phrase of at most ``words`` words and ``chars`` characters: cut at its first
    clause boundary, then at the last preposition that keeps it short (a participle whose
    complement was cut goes with it: `accounting | for ...`); ``""`` when that leaves fewer than
    two words."""
    text = _strip_loose_end(_core(text.split("…")[0]).strip())
    if len(text) <= chars and len(text.split()) <= words:
        return text if len(text.split()) >= 2 else ""
    best = ""
    for match in _PREPOSITION.finditer(text):
        head = _strip_loose_end(text[:match.start()])  # (`a problem accounting | for delays`: a loose end)
        if len(head) > chars or len(head.split()) > words:
            break
        if len(head.split()) >= 2 and not head.count('"') % 2:
            best = head
    return best


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


def _title_from(phrase: str, reads: str, verb: str, at_word: bool = False) -> str:
    """A short descriptive title from the words after a contribution verb, or ``""``; ``at_word``:
    cut at a word when no phrase boundary leaves it short enough."""
    if reads == "position":  # ICML's convention: `Position: graph learning will lose relevance`
        claim = _cut_at_word(_core(phrase.split("…")[0]), 10, 70)
        return f"Position: {_capitalise(_strip_loose_end(claim))}" if len(claim.split()) >= 3 else ""
    if reads == "use":
        return _tool_for(phrase)
    if reads == "topic" and verb.startswith("extend"):  # `we extend X to dynamic settings` -> `X for ...`
        phrase = phrase.replace(" to ", " for ", 1)
    if reads == "action":
        if verb in _NOT_ACTIONS or verb.endswith(("ly", "ed")):
            return ""
        phrase = f"{_gerund_of_base(verb)} {phrase}"
    else:
        phrase = _reshaped(_LEADING.sub("", phrase))
    phrase = _FILLER_OF.sub("", phrase)
    phrase = _INNER_ARTICLE.sub(" ", phrase)  # titles drop articles: `Hitting times of SGD`, not `the ...`
    generic = _GENERIC_HEAD.match(phrase)
    if generic:  # `an approach enhancing conformal prediction` -> `Enhancing conformal prediction`
        rest = phrase[generic.end():]
        first = rest.split(" ", 1)[0]
        if first.endswith("ing") and first not in _LOOSE_ENDS:
            phrase = rest
        elif generic.group(0).rstrip().endswith(("to", "that", "which")) and first.isalpha() \
                and not first.endswith("ly"):
            rest_words = rest.split(" ", 1)
            if first in _MODALS and len(rest_words) == 2:  # `an algorithm that can falsify X` -> `Falsifying X`
                first, rest_words = rest_words[1].split(" ", 1)[0], rest_words[1].split(" ", 1)
            if first.rstrip("s") in _USE_VERBS and len(rest_words) == 2 and " to " in rest_words[1]:
                return _tool_for(rest_words[1])  # `methods that leverage X to predict Y` -> `X for predicting Y`
            verb = _gerund_of_base(first) if generic.group(0).rstrip().endswith(("to", "can")) or first not in \
                _NOT_ACTIONS and not first.endswith("s") else _gerund(first) if first.endswith("s") else first
            phrase = f"{verb} {rest_words[1] if len(rest_words) == 2 else ''}"
    words = phrase.split()
    if not words or words[0].casefold() in _NOT_A_TITLE_START:
        return ""
    title = short_phrase(phrase)
    if not title and at_word:
        title = _strip_loose_end(_cut_at_word(_core(phrase.split("…")[0]), NAME_WORDS, NAME_CHARS))
        following = phrase[len(title):].split(maxsplit=1)
        if following and not _BOUNDARY.match(following[0]):
            return ""  # (a cut inside a noun phrase: `a framework for deep | networks`)
    elif title and len(title) < len(_core(phrase)) and not _PREPOSITION.search(title) and " of " not in title:
        title = _with_complement(phrase, title)  # `Sandbox suite` -> `Sandbox suite for data-model co-development`
    kept = [w.strip(",.;:").casefold() for w in title.split()]
    if len(kept) < 2 or _REFERS_BACK.intersection(kept) or all(w in _GENERIC_TITLE_WORDS for w in kept) \
            or _vague(title.split()) or any(_GLUED.search(w) for w in kept) \
            or not (_technical(title.split()) or len(kept) >= 3 and sum(w not in _GENERIC_TITLE_WORDS for w in kept) >= 2):
        return ""
    return _capitalise(title)


_NOT_ACTIONS = _WORDS["not_actions"]
_VAGUE_HEADS = _WORDS["vague_heads"]
_PURPOSE = re.compile(r" (?:(?:specifically|particularly|explicitly) )?(?:tailored|designed|developed|intended|suited|"
                      r"dedicated|built|crafted|customi[sz]ed|speciali[sz]ed) (?:for(?= )|to (?:[a-z]+ly )?([a-z]{3,})(?= ))")
_MODAL_RELATIVE = re.compile(r",? (?:that|which) (?:can|could|may|will) (?!be |not |also |only |then |both |further )([a-z]{3,})\b")
_BOUNDARY = re.compile(r"(?:for|in|on|with|via|under|from|across|without|between|among|through|by|using|to|into|over|that|"
                       r"which|where|whose|while|as|and|or)$|[,;:(—–]")
_GLUED = re.compile(r"^(?:an?|the)-|^[-/]|[-/]$")  # debris of math a title cannot show: `an-DP`, `ratio of ρ/`


_AND_VERB = re.compile(rf"^and (?:[a-z]+ly )?{_VERBS} (?=[a-z-]+ )")
_TO_VERB = re.compile(r"to ([a-z]{3,}) ")


def _reshaped(phrase: str) -> str:
    """The object of a contribution verb read as a title: `to speed up X` -> `speeding up X`; `a
    framework that exploits X` / `that can exploit X` -> `framework exploiting X`; `a suite
    tailored for X` -> `suite for X`; `designed to detect X` -> `for detecting X`."""
    if phrase.startswith("and "):  # `we formulate and design X`
        phrase = _AND_VERB.sub("", phrase)
    to_verb = _TO_VERB.match(phrase)
    if to_verb and to_verb.group(1) not in _NOT_ACTIONS | _MODALS | _NOT_A_TITLE_START:
        phrase = f"{_gerund_of_base(to_verb.group(1))} {phrase[to_verb.end():]}"
    if " that " in phrase or " which " in phrase:
        phrase = _MODAL_RELATIVE.sub(lambda m: " " + _gerund_of_base(m.group(1)), phrase, count=1)
        phrase = _RELATIVE_VERB.sub(_as_gerund, phrase, count=1)
    return _PURPOSE.sub(lambda m: " for" + (f" {_gerund_of_base(m.group(1))}" if m.group(1) else ""), phrase, count=1)


def _vague(words: list[str]) -> bool:
    """Is the title's head noun (before its first preposition, else its last word) one that says
    nothing alone (`answer`, `set`, `limit`), with no technical word before it (`Affirmative
    answer`, but not `Hardmax limit of ...`)?"""
    at = next((i for i, word in enumerate(words) if i and word in _HEAD_ENDS), len(words)) - 1
    return words[at].casefold() in _VAGUE_HEADS and not _technical([w for w in words[:at] if not w.endswith("ing")], rare=3.0)


_HEAD_ENDS = frozenset({"of", "for", "in", "on", "with", "between", "to", "across", "under", "via", "from", "among"})


_USE_VERBS = frozenset({"use", "apply", "leverage", "employ", "exploit", "utilize", "utilise"})


def _tool_for(phrase: str) -> str:
    """`graph neural networks to investigate X` (after `we use`) -> `Graph neural networks for
    investigating X`, or ``""`` when that does not fit a title (a tool alone names nothing)."""
    tool, _, rest = phrase.partition(" to ")
    verb, _, rest = rest.partition(" ")
    if verb in _NOT_ACTIONS | _MODALS | _NOT_A_TITLE_START or verb in ("the", "a", "an") or not verb.isalpha() \
            or "," in tool or len(tool.split()) > 6:
        return ""
    title = short_phrase(f"{_LEADING.sub('', tool)} for {_gerund_of_base(verb)} {rest}")
    return _capitalise(_INNER_ARTICLE.sub(" ", title)) if " for " in title else ""


_ADJECTIVE = re.compile(r"(?:able|ible|ly|al|ive|ous|ic|ed|ent|ant|ful|less|ary)$", re.IGNORECASE)


def _with_complement(phrase: str, title: str) -> str:
    """A title that is only a head (`Parallelizable bisection algorithm`) with its complement,
    when the phrase has one (`for computing f-softargmax`) and fits with the first premodifier
    dropped, an adjective (`Parallelizable`, never `graph` of `graph neural networks`); else
    ``title`` as it was."""
    words = _core(phrase).split()
    shorter = short_phrase(" ".join(words[1:])) if len(title.split()) >= 3 and _ADJECTIVE.search(words[0]) else ""
    if _PREPOSITION.search(shorter) and len(shorter.split()) >= 3 and words[1].isalpha() \
            and words[1].casefold() not in _NOT_A_TITLE_START:
        return shorter
    return title


def contribution_title(text: str, low: str, bounds: list[tuple[int, int]]) -> tuple[str, str]:
    """(title, gist) of a paper that names nothing, from the sentence stating its contribution:
    ``we propose a framework that exploits X`` -> ``Framework exploiting X``; ``we study the
    convergence of X`` -> ``Convergence of X``; ``we rebalance the load across devices`` ->
    ``Rebalancing the load across devices``. The title is a noun phrase of at most 8 words and 60
    characters, never a clause that needs its sentence (`these issues`) and never the abstract's
    opening words; the gist is one clause of at most 20 words. When no sentence states a
    contribution, the title is the paper's strongest terms (``""`` when it has none)."""
    cut_short: tuple[str, str] | None = None  # a title cut at a word: better than none
    for pattern, reads in _CONTRIBUTION:
        for match in pattern.finditer(low):
            _, end = _sentence(bounds, match.end() - 1)
            phrase = clean_phrase(text[match.end() - 1:end], 400)
            verb = match.group(1) if pattern.groups else ""
            said = f"{_third_person(verb)} {phrase}" if verb else phrase
            title = _title_from(phrase, reads, verb)
            if title:
                return title, gist_of(said)
            if cut_short is None and reads == "object":
                title = _title_from(phrase, reads, verb, at_word=True)
                cut_short = (title, gist_of(said)) if title else None
    if cut_short:
        return cut_short
    sentences = [text[start:end] for start, end in bounds[:3]] or [text]
    return "", gist_of(clean_phrase(sentences[0], 400))


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
        if len(head.split()) >= 3 and not head.count('"') % 2:
            best = head
    return best or _strip_tail(_cut_at_word(text, GIST_WORDS, GIST_CHARS))
