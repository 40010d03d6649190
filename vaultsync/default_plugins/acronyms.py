"""The built-in acronym extractor: `long form (ACR)` and `ACR (long form)` definitions.

Our own take on Schwartz & Hearst (2003). The classic algorithm matches the acronym's letters
right to left and stops at the first word that supplies the first letter, which cuts long forms
short (`Cross-view Confidence Alignment (CCA)` -> `Confidence Alignment`, taking the second C
from inside "Confidence"). Here every candidate start is aligned and the best one wins
(``acronym_alignment.py``):

* The acronym is split into units: letters and digits, or whole words for hyphenated parts
  such as `Omni` in `Omni-MLLMs` or `Neurons` in `SS-Neurons`. A final `s` after a capital is a
  plural (`LLMs` -> `LLM`) and needs no letter of its own.
* Each word of the long form is split at hyphens and dashes into parts. A part contributes its
  initial first, then possibly later letters (`Low` gives L and o in `LoRA`); `2`/`4` may stand
  for "to"/"for" (`I2V`), `x` for a leading "ex". The first word must give the first unit by
  its initial; every word must contribute except function words (of, for, &, ...) and at most
  one other word, at a cost of one point (`Job Shop Scheduling Problem (JSP)`); the parts of a
  hyphenated word that contribute nothing are skipped (`Cross-view` gives just C).
* Among the valid starts (at most min(|A|+5, 2|A|) words back, as in S-H), the alignment with
  the most capitals and digits matched as initials wins, ties going to the shorter form; it must
  match at least half of them as initials. A lone word must be longer than the acronym + 2.

Head-noun extension: `key-value (KV) cache` is the concept "key-value cache" (alias "KV cache")
when the word after the parenthesis is a concept head (`_HEADS`: cache, divergence, models,
attention, ...; never framework/method/module, which name a paper's own thing) *and* the long
form reads as a modifier: its last word is a hyphenated compound that is not an "X-of-Y" noun
(key-value, text-to-image, Kullback-Leibler; but not Mixture-of-Experts) or an adjective by
suffix (-al, -ic, -ive, -ous, -ary, ...).

Coined hint: a definition is `coined` (kind "acronym-coined" in the hook) when the paper
introduces the name: in the same sentence, a verb cue (propose, introduce, present, develop,
design, call, name, dub, term, coin; termed, dubbed, named, called, namely) at most four words
before the long form, or `our`/`novel`/`new`/`proposed` at most one word before, with no
preposition, conjunction or -ing word in between ("we propose a framework using Large Language
Models (LLMs)" is not coined); or `, a novel`/`, a new`/`, our` or `module`/`framework`/
`block`/`mechanism`/`pipeline` right after the parenthesis; or bold markup (`**...**`,
`\\textbf{...}`) on the long form. It is only a hint: the host decides across the corpus.

Position of the short form for `ACR (long form)`: the definition's ``start``/``end`` are the
long form's span inside the parentheses, ``short_start`` the acronym's.

Ignored: parentheses inside math (`$...$`, `\\(...\\)`), `(e.g., ...)`, `(i.e., ...)`,
`(see ...)`, `(ours)`, citations and numbers (they fail the acronym shape or the alignment).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ..canonical import singular
from ..hookspecs import hookimpl
from ..inline_html import without_html
from ..records import Abstract, ExtractContext, Extraction, mention_from_fields
from .acronym_alignment import _FUNCTION_WORDS, _align, _split_plural, _units

_DASH = "\\-\u2010\u2011\u2012\u2013\u2014\u2015"
_ACR = rf"[A-Za-z0-9](?:[A-Za-z0-9&+./{_DASH}]*[A-Za-z0-9])?"
_OPEN_MARK = r"(?:\*\*?|\\text(?:bf|it)\{|\\emph\{|[\"“'‘])?"
_CLOSE_MARK = r"(?:\*\*?|\}|[\"”'’])?"
# `(ACR)`, `(ACR, ...)`, `(ACR; ...)` and `(ACR (...))`, matched at the opening parenthesis.
_ACR_INSIDE = re.compile(rf"\(\s*{_OPEN_MARK}({_ACR}){_CLOSE_MARK}\s*(?=[);,]|\s+\()")
# `ACR (` : the whitespace-separated token right before a parenthesis.
_ACR_TOKEN = re.compile(rf"[(\[]?{_OPEN_MARK}({_ACR}){_CLOSE_MARK}")
_INNER = re.compile(r"\(\s*([^()\[\],;:]{2,160}?)\s*[),;]")
_NOT_A_DEFINITION = re.compile(
    r"\s*(?:e\.?\s?g|i\.?\s?e|see|cf|ours|resp|respectively|etc|a\.?k\.?a"
    r"|also|like|such|including|which|where|with|or|and|in|for|from)(?![\w\-\u2010\u2011])",
    re.IGNORECASE,
)
_TWO_CAPS = re.compile(r"[A-Z].*[A-Z0-9]|[0-9].*[A-Z]")
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$|\\\(.+?\\\)|\\\[.+?\\\]", re.DOTALL)
_MARKUP = re.compile(
    r"\\(?:textbf|textit|emph|textsc|texttt|underline|mathbf|mathrm|text)\{|\*+|[{}\"“”`]"
    r"|(?<!\w)_+(?=\w)|(?<=\w)_+(?!\w)"
)
_MARKUP_CHAR = re.compile(r"[\\*{}\"“”`_]")
_OPENING_MARK = re.compile(r"(?:\*\*?|\\text(?:bf|it)\{|\\emph\{)\Z")
_UPTO_LAST_BOUNDARY = re.compile(rf"(?s).*(?:[.!?;:,()\[\]$]|\s[{_DASH}]+\s)")
_WORD = re.compile(rf"\w+(?:[{_DASH}/]\w+)*|&")
_PART_SPLIT = re.compile(rf"[{_DASH}/]")
_HEAD_AFTER = re.compile(r"[ \t]+([A-Za-z]+)\b")
# `X (ABC), a novel ...`, `X (ABC) module`: what follows the definition shows it is the paper's.
_COINED_AFTER = re.compile(
    r"\s*,\s*(?:(?:a|an)\s+(?:novel|new)|our)\b|[ \t]+(?:module|framework|block|mechanism|pipeline)\b",
    re.IGNORECASE,
)
_SENTENCE_START = re.compile(r"(?s).*[.!?;:]\s")

# Nouns that complete a modifier long form into a concept. Not framework/method/module/system:
# those usually name the paper's own contribution, not a shared concept.
_HEADS = frozenset(
    """cache divergence distance loss score metric kernel model network attention embedding token
    layer graph tree encoder decoder policy space algorithm learning sampling estimation
    estimator detection generation segmentation classification retrieval reasoning prompting
    decoding inference representation matrix synthesis translation recognition regression
    clustering optimization search transformer""".split()
)
_ADJECTIVE_SUFFIXES = ("al", "ic", "ive", "ous", "ary", "ular", "inear", "able", "ible", "wise")
_NOUNS_LIKE_ADJECTIVES = frozenset(
    """retrieval signal interval potential proposal removal trial goal journal manual material
    terminal principal animal capital logic topic metric heuristic music clinic traffic graphic
    objective derivative alternative perspective primitive narrative incentive directive
    vocabulary boundary dictionary summary library adversary variable table cable""".split()
)
_COIN_VERBS = frozenset(
    """propose proposes introduce introduces present presents develop develops design designs
    call calls name names dub dubs term terms coin coins termed dubbed named called namely""".split()
)
_COIN_CUES = _COIN_VERBS | {"our", "novel", "new", "proposed"}
_COIN_BLOCKERS = (_FUNCTION_WORDS - {"a", "an", "the"}) | {
    "that", "which", "across", "between", "than", "such"}


@dataclass(frozen=True)
class AcronymDefinition:
    """One acronym definition. ``long`` is ``text[start:end]`` exactly as written (markup and
    all); ``name`` is the long form cleaned of emphasis markup with spaces collapsed;
    ``short`` is the acronym as written, at ``text[short_start:]``. ``extended_long`` and
    ``extended_short`` are set when a head noun completes the concept (`key-value cache`,
    `KV cache`); ``coined`` when the sentence shows the paper introduces the name."""

    short: str
    long: str
    start: int
    end: int
    short_start: int
    name: str
    extended_long: str | None = None
    extended_short: str | None = None
    coined: bool = False

    @property
    def singular_short(self) -> str:
        """`LLMs` -> `LLM`; the acronym itself when it is not a plural."""
        return _split_plural(self.short)[0]


def find_acronym_definitions(text: str) -> list[AcronymDefinition]:
    """Every acronym defined in ``text``, in order, the first definition of each acronym only.
    Never raises; returns an empty list when there is none."""
    if "(" not in text:
        return []
    math = []
    if "$" in text or "\\" in text:
        math = [(m.start(), m.end()) for m in _MATH.finditer(text)]
    found: list[AcronymDefinition] = []
    seen: set[str] = set()
    p = -1
    while (p := text.find("(", p + 1)) >= 0:
        if (p and text[p - 1] == "\\") or (math and _inside(math, p)):
            continue
        definition = _long_then_short(text, p, math) or _short_then_long(text, p)
        if definition is not None and definition.singular_short.casefold() not in seen:
            seen.add(definition.singular_short.casefold())
            found.append(definition)
    return found


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    return any(s <= pos < e for s, e in spans)


def _is_acronym_shape(short: str) -> bool:
    """Two capitals, or a capital and a digit: `MoE`, `kNN`, `I2V`, `3D`; not `Ours`, `2023`."""
    return len(short) <= 15 and _TWO_CAPS.search(short) is not None


def _long_then_short(text: str, p: int, math: list[tuple[int, int]]) -> AcronymDefinition | None:
    m = _ACR_INSIDE.match(text, p)
    if m is None or not _is_acronym_shape(m.group(1)):
        return None
    short = m.group(1)
    units = _units(short)
    if units is None:
        return None
    lo = max(0, p - 11 * min(len(units) + 5, 2 * len(units)) - 16)  # room for the longest window
    if lo > 0 and not text[lo - 1].isspace():
        lo = text.find(" ", lo, p) + 1 or p  # never start inside a word
    for s, e in math:  # a long form never runs through a formula
        if lo < e <= p:
            lo = e
    clean, starts, origs = _clean(text, lo, p)
    cut = _UPTO_LAST_BOUNDARY.match(clean)
    words = [(w.start(), w.end(), w.group()) for w in _WORD.finditer(clean, cut.end() if cut else 0)]
    words = words[-min(len(units) + 5, 2 * len(units)):]  # Schwartz-Hearst's longest window
    match = _align(units, [w[2] for w in words], fixed_start=False)
    if match is None:
        return None
    first = words[match]
    start = _to_original(starts, origs, first[0])
    end = _to_original(starts, origs, words[-1][1] - 1) + 1
    name = " ".join(clean[first[0]: words[-1][1]].split())
    close = m.end() if m.end() < len(text) and text[m.end()] == ")" else None
    return _definition(text, short, m.start(1), start, end, name, close)


def _short_then_long(text: str, p: int) -> AcronymDefinition | None:
    q = p - 1 if p and text[p - 1] == " " else p
    if q == 0 or not (text[q - 1].isalnum() or text[q - 1] in "*}\"'”’"):
        return None  # cheap: most parentheses follow a lower-case word or punctuation
    chunk = text[max(0, q - 24): q].split()
    if not chunk or (len(chunk) == 1 and q > 24 and not text[q - 25].isspace()):
        return None
    token_start = q - len(chunk[-1])
    before = _ACR_TOKEN.fullmatch(text, token_start, q)
    if before is None or not _is_acronym_shape(before.group(1)):
        return None
    inner = _INNER.match(text, p)
    if inner is None or _NOT_A_DEFINITION.match(inner.group(1)):
        return None
    if not any(c in inner.group(1).strip() for c in " -\u2010\u2011\u2013"):
        return None  # `ACR (Word)`: a lone word in parentheses is a gloss, not an expansion
    short = before.group(1)
    units = _units(short)
    clean, starts, origs = _clean(text, inner.start(1), inner.end(1))
    words = [(w.start(), w.end(), w.group()) for w in _WORD.finditer(clean)]
    if units is None or _align(units, [w[2] for w in words], fixed_start=True) is None:
        return None
    start = _to_original(starts, origs, words[0][0])
    end = _to_original(starts, origs, words[-1][1] - 1) + 1
    name = " ".join(clean[words[0][0]: words[-1][1]].split())
    short_start = before.start(1)
    close = inner.end() - 1 if text[inner.end() - 1] == ")" else None
    return _definition(text, short, short_start, start, end, name, close, coin_from=short_start)


def _clean(text: str, lo: int, hi: int) -> tuple[str, list[int], list[int]]:
    """``text[lo:hi]`` without emphasis markup, and a map back: clean offset ``starts[i]`` is
    original offset ``origs[i]``, and so on to the next segment."""
    if _MARKUP_CHAR.search(text, lo, hi) is None:  # the usual case, and a cheap test
        return text[lo:hi], [0], [lo]
    pieces, starts, origs, pos, length = [], [], [], lo, 0
    for m in _MARKUP.finditer(text, lo, hi):
        if m.start() > pos:
            pieces.append(text[pos: m.start()])
            starts.append(length)
            origs.append(pos)
            length += m.start() - pos
        pos = m.end()
    if pos < hi:
        pieces.append(text[pos:hi])
        starts.append(length)
        origs.append(pos)
    return "".join(pieces), starts or [0], origs or [lo]


def _to_original(starts: list[int], origs: list[int], offset: int) -> int:
    i = bisect_right(starts, offset) - 1
    return origs[i] + offset - starts[i]


def _definition(text: str, short: str, short_start: int, start: int, end: int, name: str,
                close: int | None, coin_from: int | None = None) -> AcronymDefinition:
    opening = _OPENING_MARK.search(text, max(0, start - 10), start)
    if opening is not None and _MARKUP_CHAR.search(text, start, end):
        start = opening.start()  # `**C**ross-view **C**onfidence`: keep the markup balanced
    long = text[start:end]
    bold = opening is not None and opening.group().startswith(("**", "\\textbf"))
    extended_long = extended_short = None
    if close is not None:
        head = _HEAD_AFTER.match(text, close + 1)
        if head and singular(head.group(1).lower()) in _HEADS and _is_modifier(name):
            extended_long = f"{name} {head.group(1)}"
            extended_short = f"{short} {head.group(1)}"
    coined = bold or _coined_before(text, coin_from if coin_from is not None else start) or (
        close is not None and _COINED_AFTER.match(text, close + 1) is not None)
    return AcronymDefinition(
        short=short, long=long, start=start, end=end, short_start=short_start, name=name,
        extended_long=extended_long, extended_short=extended_short, coined=coined)


def _is_modifier(name: str) -> bool:
    """Whether a long form reads as a modifier that wants a head noun (`key-value`)."""
    last = name.split()[-1].lower()
    parts = _PART_SPLIT.split(last)
    if last in _NOUNS_LIKE_ADJECTIVES or singular(parts[-1]) in _HEADS:
        return False
    if len(parts) > 1:
        return "of" not in parts[1:-1] or parts[0] in ("out", "in")
    return last.endswith(_ADJECTIVE_SUFFIXES)


def _coined_before(text: str, start: int) -> bool:
    before = text[max(0, start - 100): start]
    cut = _SENTENCE_START.match(before)
    words = [w.lower() for w in _WORD.findall(before[cut.end() if cut else 0:])][-6:]
    for index in range(len(words) - 1, -1, -1):
        word = words[index]
        if word in _COIN_CUES:  # verbs reach over `a simple yet effective`; `our`, `novel` less
            return len(words) - index - 1 <= (4 if word in _COIN_VERBS else 1)
        if word in _COIN_BLOCKERS or (word.endswith("ing") and "-" not in word):
            return False
    return False


def _written(text: str, word: str) -> bool:
    """Whether ``word`` occurs in ``text`` as a whole token (`LLM` is not written in `LLMs`)."""
    at = text.find(word)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(word)] if at + len(word) < len(text) else " "
        if not (before.isalnum() or before in "-_") and not (after.isalnum() or after in "-_"):
            return True
        at = text.find(word, at + 1)
    return False


@hookimpl
def vaultsync_extract(abstract: Abstract, context: ExtractContext) -> Extraction | None:
    """One concept per acronym definition, keyed by its long form as written (cleaned of markup).
    Kind "acronym-coined" when the paper seems to introduce the name, else "acronym"."""
    if context is not None and not context.options("acronyms").get("enabled", True):
        return None
    text = without_html(abstract.text)
    definitions = find_acronym_definitions(text)
    if not definitions:
        return None
    concepts, names = [], set()
    for d in definitions:
        singular_short = d.singular_short
        if d.extended_long:
            head = d.extended_short.split()[-1]
            name = d.extended_long
            head_singular = singular(head.lower()) if head.islower() else head
            aliases = [f"{singular_short} {head_singular}", d.extended_short]
            surfaces = [d.long, d.extended_short, d.short]
        else:
            name = d.name
            aliases = [singular_short]
            if d.short != singular_short or _written(text, singular_short + "s"):
                aliases.append(singular_short + "s")
            surfaces = [d.long, d.short] + [a for a in aliases if _written(text, a)]
        if name.casefold() in names:
            continue
        names.add(name.casefold())
        concepts.append(mention_from_fields(
            name,
            "acronym-coined" if d.coined else "acronym",
            tuple(dict.fromkeys(surfaces)),
            tuple(dict.fromkeys(aliases)),
            float(max(1, text.count(singular_short))),
            (),
            False,
        ))
    return Extraction(concepts=tuple(concepts))


@hookimpl
def vaultsync_lessons_may_change(before: ExtractContext, after: ExtractContext) -> None:
    return None  # acronyms are read from the text alone: no lesson changes them
