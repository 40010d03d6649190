"""Short noun phrases for titles: a phrase cut at a clause boundary or a preposition, never inside
a noun phrase (``contribution.py`` builds titles with them)."""

from __future__ import annotations

import re

from .titles import _WORDS, NAME_CHARS, NAME_WORDS, _strip_loose_end

_GENERIC_TITLE_WORDS = _WORDS["generic_title_words"]

_CLAUSE = re.compile(r", | ?; | ?: | ?[—–] ?| (?:that|which|where|whereby|whose|who|while|when|because|thus|thereby) |"
                     r" and (?:we )?(?:show|prove|demonstrate|find|establish|evaluate|achieve|propose)\b| by (?=[a-z]+ing\b)")
# where a title may be cut: before a preposition (never `of`: `levels | of collaboration` needs it)
# or a participle (`a dataset of peer reviews | simulating ...`), never a noun in -ing (`deep | learning`,
# but `an algorithm | matching the ...`)
_PREPOSITION = re.compile(
    r" (?=(?:for|in|on|at|with|via|under|from|across|without|between|among|through|by|using|based on|to|into|"
    r"over|beyond|against|towards?|within|as|until)\b|(?=[a-z]+ing\b)(?!(?:" + "|".join(sorted(_WORDS["nominal_ing"])) +
    r")\b(?! (?:the|a|an|its|their|this|these|each|all)\b)))")

_INNER_ARTICLE = re.compile(r" (?:the|a|an) (?=\w)")


_MODALS = frozenset({"can", "could", "may", "might", "will", "would", "shall", "should", "must"})


def _core(phrase: str) -> str:
    """The phrase up to its first clause boundary (a comma, `that`, `which`, `where`, ...)."""
    match = _CLAUSE.search(phrase)
    return phrase[:match.start()] if match else phrase


def _strip_modifier_end(text: str) -> str:
    """Without a loose end (see ``_strip_loose_end``) or a premodifier its noun was cut from
    (`detectors with probabilistic | reasoning`, `analysis of HDM using online | learning`);
    ``""`` for a cut inside a suspended hyphen (`sample- and communication-efficient | ...`)."""
    if "-" in text and _SUSPENDED.search(text):
        return ""
    text = _PARTICIPLE_END.sub("", text)  # `LMs trained or fine-tuned | to compose X`: cut from its complement
    while True:
        text = _strip_loose_end(text)
        head, _, last = text.rpartition(" ")
        before = head.rpartition(" ")[2]  # `framework characterizing`, `approach to constructing`: no object
        participle = last.endswith("ing") and (before in _GENERIC_TITLE_WORDS or before in ("to", "for", "of", "by")
                                               and last not in _WORDS["nominal_ing"])
        if not head or last not in _PREMODIFIERS and not ("-" in last and _COMPOUND_ADJECTIVE.search(last)) \
                and not participle:
            return text
        text = head


_PREMODIFIERS = _WORDS["premodifiers"]
_SUSPENDED = re.compile(r"\w- (?:and|or)(?: [\w-]+)?\s*$|\w-\s*$")
_COMPOUND_ADJECTIVE = re.compile(r"-(?:based|aware|free|specific|driven|guided|efficient|agnostic|order|level|dependent|"
                                 r"independent|like|wise|informed|constrained|augmented|conditioned)$")


def short_phrase(text: str, words: int = NAME_WORDS, chars: int = NAME_CHARS, trimmed: bool = False) -> str:
    """``text`` as a noun phrase of at most ``words`` words and ``chars`` characters: cut at its first
    clause boundary, then at the last preposition that keeps it short (a participle whose
    complement was cut goes with it: `accounting | for ...`); ``""`` when that leaves fewer than
    two words."""
    text = _strip_modifier_end(_core(text.split("…")[0]).strip())
    lean = _INNER_ARTICLE.sub(" ", text)  # titles drop articles: `Hitting times of SGD`, not `the ...`
    if len(lean) <= chars and len(lean.split()) <= words:
        return lean if len(lean.split()) >= 2 else ""
    best = ""
    for match in _PREPOSITION.finditer(text):  # (cut where the articles still tell a participle: `matching the`)
        head = _strip_modifier_end(text[:match.start()])  # (`accounting | for`: a loose end)
        articles = head.count(" the ") + head.count(" a ") + head.count(" an ")
        size = len(head) - 4 * head.count(" the ") - 2 * head.count(" a ") - 3 * head.count(" an ")
        if size > chars or len(head.split()) - articles > words:
            break
        if len(head.split()) - articles >= 2 and not head.count('"') % 2:
            best = head
    best = _with_short_complement(text, best, words, chars) if len(best.split()) == 2 else best
    if not best:  # `sublinear-time deterministic sparse Fourier transform | algorithm for ...`: the thing, without its kind
        first = _PREPOSITION.search(text)
        kind = _TRAILING_KIND.search(text, 0, first.start() if first else len(text))
        lean = _INNER_ARTICLE.sub(" ", text[:kind.start()]) if kind and (not first or kind.end() == first.start()) else ""
        best = lean if 3 <= len(lean.split()) <= words and len(lean) <= chars and "," not in lean \
            and " of " not in lean and " and " not in lean and not lean.endswith(("'s", "’s")) else ""
    first, _, rest = text.partition(" ")
    if not best and not trimmed and _SOFT_ADJECTIVE.fullmatch(first.casefold()) and len(rest.split()) >= 3:
        return short_phrase(rest, words, chars, True)  # `theoretical | framework of multi-scale adaptive feature learning`
    return _INNER_ARTICLE.sub(" ", best) if best else ""


_PARTICIPLE_END = re.compile(r"(?<=[A-Za-z]s)(?: (?:[a-z-]{3,}[^e\W]ed|[a-z-]+-tuned),? (?:or|and))? (?:[a-z-]{3,}[^e\W]ed|[a-z-]+-tuned)$")
_SOFT_ADJECTIVE = re.compile(r"theoretical|unified|general|generic|novel|new|simple|principled|rigorous|comprehensive|"
                             r"systematic|flexible|practical|effective|efficient|formal|modular")


_TRAILING_KIND = re.compile(r" (?:algorithm|method|framework|approach|technique|procedure|scheme)s?$|"
                            r" (?:algorithm|method|framework|approach|technique|procedure|scheme)s?(?= (?:for|to|that|which)\b)")


def _with_short_complement(text: str, head: str, words: int, chars: int) -> str:
    """A two-word head cut from its complement (`Nonparametric interpretation | for deep learning
    compatible modern Hopfield models`) with the complement's head noun and its nearest modifiers
    (`Nonparametric interpretation for modern Hopfield models`), when three or more fit; else ``head``."""
    joint = re.match(r" (for|of|on|in) (?:the |a |an )?([^,;:()]+?)(?= (?:for|of|on|in|with|via|by|to|that|which|and|or)\b|$)",
                     text[len(head):]) if text.startswith(head) else None
    complement = joint.group(2).split() if joint else []
    for keep in range(len(complement) - 1, 2, -1):
        kept = complement[-keep:]
        title = f"{head} {joint.group(1)} {' '.join(kept)}"
        dropped = [w.casefold() for w in complement[:-keep]]  # (modifiers only: never a verb, `evaluating the | X`)
        if len(title) <= chars and len(title.split()) <= words and not dropped[-1].endswith("-") \
                and dropped[-1] not in ("and", "or", "of", "non") \
                and not any(w.endswith("ing") and w not in _WORDS["nominal_ing"] or w in ("the", "a", "an", "its", "their")
                            for w in dropped):
            return title
    return head
