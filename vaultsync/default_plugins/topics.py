"""Titles for abstracts that state no contribution (no `we propose ...`, no `we study ...`): the
topic the opening sentence states, the strongest keyphrase, the strongest concepts."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from ..generic import is_generic, names_a_thing
from ..records import Extraction
from .titles import _LEADING, _WORDS, _NOT_A_TITLE_START, NAME_WORDS, _capitalise, _technical, clean_phrase


def _fold(name: str) -> str:
    return re.sub("[\\-\u2010\u2011]", "", name).casefold()


def opening_topic(text: str, bounds: list[tuple[int, int]]) -> str:
    """The topic the opening sentence states, as a title (see ``_topic_of``), or ``""``."""
    start, end = bounds[0] if bounds else (0, len(text))
    return _topic_of(clean_phrase(text[start:end], 400))


_TOPIC_VERB = re.compile(
    r" (?:is|are|was|were|has|have|had|can|could|may|might|will|would|must|should|remains?|plays?|poses?|"
    r"provides?|offers?|enables?|requires?|faces?|suffers?|relies|rely|aims?|seeks?|involves?|allows?|"
    r"has become|have become|addresses|address|constitutes?|refers?|shows?|achieves?|demonstrates?)\b")
_NOT_A_TOPIC_START = _NOT_A_TITLE_START | {"while", "although", "though", "despite", "recent", "recently",
                                           "existing", "current", "many", "most", "several", "since"}


def _topic_of(sentence: str) -> str:
    """The subject of an opening sentence that states a topic (`Strategic classification
    addresses ...` -> `Strategic classification`), or ``""``."""
    verb = _TOPIC_VERB.search(sentence)
    if not verb:
        return ""
    subject = _LEADING.sub("", sentence[:verb.start()]).strip(" ,")
    words = subject.split()
    named = all(re.fullmatch(r"[A-Z][a-z]+(?:-[A-Za-z]+)?", word) for word in words)  # `Active Feature Acquisition is ...`
    if not 2 <= len(words) <= 6 or words[0].casefold() in _NOT_A_TOPIC_START or "," in subject \
            or not (_technical(words) or named):
        return ""
    return _capitalise(subject)


_NOMINAL_ING = frozenset("learning sampling matching embedding clustering reasoning planning hashing modeling modelling "
                         "training pruning encoding decoding scaling forecasting tuning unlearning editing".split())


_GRADING = _WORDS["grading_starts"]


_STATEMENTS = frozenset({"lemma", "lemmas", "theorem", "theorems", "corollary", "conjecture", "proposition"})


# `cooperative Pavlov (win-stay, lose-shift) policy`: the phrase modifies the noun after its aside
_HEAD_AFTER_ASIDE = re.compile(r" \([^()]{1,60}\) (?!(?:and|or|to|in|of|for|with|on|by|is|are|was|were|that|which)\b)[a-z]{3,}\b")


def _keyphrase_title(text: str, extraction: Extraction) -> str:
    """The strongest keyphrase of two words or more that names a thing of the field
    (`Pre-memorization train accuracy`), written whole in the text, not ending in a participle
    (`heuristic prioritizing`) or a verb: the text never follows it with a determiner
    (`feedback loop entrenches | the ...`)."""
    low = text.casefold()
    for mention in sorted((m for m in extraction.concepts if m.kind == "phrase"), key=lambda m: -m.score):
        surface = mention.surfaces[0] if mention.surfaces else mention.name
        words = surface.split()
        last = words[-1].casefold() if words else ""
        if not 2 <= len(words) <= NAME_WORDS or len(surface) > 60 or re.search(r"\w[.,;:]\w", surface) \
                or last.endswith("ing") and last not in _NOMINAL_ING or is_generic(surface) or not names_a_thing(surface) \
                or words[0].casefold() in _GRADING \
                or last in _STATEMENTS:  # `Arbitrary Bregman divergences`: a phrase in passing; `X Lemma`: a step of a proof
            continue
        written = re.search(rf"(?<![\w-]){re.escape(surface.casefold())}(?![\w-])( (?:the|a|an|its|their|this|these|that|to)\b)?", low)
        if written and not written.group(1) and not _HEAD_AFTER_ASIDE.match(low, written.end()):
            return _capitalise(surface)
    return ""


def _concept_title(extraction: Extraction) -> str:
    """The abstract's strongest concept the vocabulary or an acronym definition vouches for, as
    written (`Sparse autoencoders`): not an umbrella term (`Benchmarks`), and a field (`Large
    Language Models`) only when it names nothing narrower."""
    from ..concept_index import UMBRELLA, concept_key

    ranked = sorted((m for m in extraction.concepts if m.kind in ("vocabulary", "acronym")
                     and concept_key(m.name) not in UMBRELLA), key=lambda m: -m.score)
    fields = _fields()
    for mention in sorted(ranked, key=lambda m: concept_key(m.name) in fields):  # (a stable sort: by score within)
        spellings = [s for s in mention.surfaces if " " in s and not s.isupper()] or [mention.name]
        return _capitalise(max(spellings, key=len))
    return ""


@lru_cache(maxsize=1)
def _fields() -> frozenset[str]:
    """Concepts the shipped vocabulary files ten or more others under (`Large Language Models`,
    `Reinforcement Learning`): fields, too broad to title a paper while a narrower one is named."""
    from ..concept_index import concept_key
    from .vocabulary import DATA_FILE, parse_vocabulary

    narrower = Counter(b for entry in parse_vocabulary(DATA_FILE.read_text(encoding="utf-8")) for b in entry.broader)
    return frozenset(concept_key(name) for name, count in narrower.items() if count >= 10)


_JOINED = re.compile(r" (?:for|in|of|via|under) (?:the |a |an )?(?:([a-z-]+) )?")


_WORD = re.compile(r"[^\s,;:.!?]+")


def _word_char(text: str, at: int) -> bool:
    return 0 <= at < len(text) and (text[at].isalnum() or text[at] in "-_")


def _without_brackets(text: str) -> str:
    """``text`` without its innermost parentheticals and brackets and the space before each, as
    ``_PARENTHETICAL.sub("", text)`` gives it, by string search (a regex tried at every
    character costs more than the abstract's few brackets)."""
    for opening, closing in ("()", "[]"):
        parts, at = [], 0
        start = text.find(opening)
        while start >= 0:
            end = text.find(closing, start + 1)
            if end < 0:
                break
            inner = text.rfind(opening, start, end)  # (the innermost: `(a (b) c)` loses `(b)`)
            cut = inner - 1 if inner > 0 and text[inner - 1] == " " else inner
            parts.append(text[at:max(cut, at)])
            at = end + 1
            start = text.find(opening, at)
        text = "".join(parts) + text[at:] if parts else text
    return text


def _joined_concepts_title(text: str, extraction: Extraction) -> str:
    """Two of the abstract's concepts as the text joins them (`reinforcement learning methods for
    large language models`): the strongest such span of at most 8 words and 60 characters, so
    a title relates two concepts only where the abstract does."""
    scores: dict[str, float] = {}
    for mention in extraction.concepts:
        if mention.kind in ("vocabulary", "acronym") or mention.kind == "phrase" and names_a_thing(mention.name):
            for surface in mention.surfaces:
                if len(surface) >= 3 and not is_generic(surface):
                    scores[surface.lower()] = max(scores.get(surface.lower(), 0.0), mention.score)
    by_last: dict[str, list[tuple[str, float]]] = {}
    by_first: dict[str, list[tuple[str, float]]] = {}
    for surface, score in scores.items():
        by_last.setdefault(surface.rsplit(" ", 1)[-1], []).append((surface, score))
        by_first.setdefault(surface.split(" ", 1)[0], []).append((surface, score))
    best, best_score = "", 0.0
    sentence = _without_brackets(text)  # (the whole text at once: a join never spans a full stop)
    low = sentence.lower()
    for join in _JOINED.finditer(low) if scores and len(low) == len(sentence) else ():
        head = low.rfind(" ", 0, join.start())  # (`reinforcement learning | methods | for ...`: a head noun may come between)
        before = [(surface, score, stop) for stop in (join.start(), head) if stop > 0
                  for surface, score in by_last.get(low[low.rfind(" ", 0, stop) + 1:stop], ())
                  if low.endswith(surface, 0, stop) and not _word_char(low, stop - len(surface) - 1)]
        if not before:
            continue
        a_surface, a_score, stop = max(before, key=lambda found: (found[1], len(found[0]), -found[2]))
        a_start = stop - len(a_surface)
        for at in {join.end(), join.start(1) if join.group(1) else join.end()}:
            first = _WORD.match(low, at)
            first = first.group(0) if first else ""
            for surface, score in by_first.get(first, ()):
                end = at + len(surface)
                span = sentence[a_start:end]
                if low.startswith(surface, at) and not _word_char(low, end) and a_score + score > best_score \
                        and len(span) <= 60 and len(span.split()) <= NAME_WORDS:
                    best, best_score = span, a_score + score
    return _capitalise(clean_phrase(re.sub(r" (?:the|a|an) ", " ", best), 60)) if best else ""


def topic_title(text: str, bounds: list[tuple[int, int]], extraction: Extraction) -> str:
    """The title of an abstract that states no contribution (see the module's docstring), never
    the abstract's opening words (`Detecting out-of-distribution examples is ...`); never empty."""
    opening = re.findall(r"\w+", text[:200].casefold())[:4]
    settled = ""
    text = _CITING.sub(lambda cited: " " * len(cited.group(0)), text) if "et al" in text else text
    for title in (rule() for rule in (lambda: _open_question(text), lambda: _joined_concepts_title(text, extraction),
                                      lambda: _keyphrase_title(text, extraction),
                                      lambda: _concept_title(extraction), lambda: opening_topic(text, bounds))):
        words = re.findall(r"\w+", title.casefold())[:4]
        if title and not (len(words) >= 3 and words == opening[:len(words)]):
            if not _settled(text, title):
                return title
            settled = settled or title
    return settled or _field_title(text, extraction) or "Untitled abstract"


_LOOSE = frozenset("this these that those such which it its their our each".split())
_COMPLEMENT = re.compile(r" (?:of|for|in|under|with) (?:the |a |an )?[a-z][\w-]*")


def _field_title(text: str, extraction: Extraction) -> str:
    """The last resort before `Untitled abstract`, which tells a researcher nothing: the field the
    abstract names (an umbrella concept) with the complement the text gives it (`a reduction in
    the sample complexity of learning` -> `Sample complexity of learning`), never the field alone
    (its own concept note)."""
    from ..concept_index import UMBRELLA, concept_key

    low = text.casefold()
    for mention in sorted((m for m in extraction.concepts if m.kind in ("vocabulary", "acronym")
                           and concept_key(m.name) in UMBRELLA), key=lambda m: -m.score):
        for surface in sorted(mention.surfaces, key=len, reverse=True):
            at = re.search(rf"(?<![\w-]){re.escape(surface.casefold())}(?![\w-])", low)
            complement = _COMPLEMENT.match(low, at.end()) if at else None
            if complement and complement.group(0).rsplit(" ", 1)[-1] not in _LOOSE:
                return _capitalise(re.sub(r" (?:the|a|an) ", " ", text[at.start():complement.end()]))
    return ""


# a sentence whose subject is cited work (`Merullo et al. (2024) showed that X`): X is what they found, not
# this paper's topic (a sentence of this paper's that cites, `improving on Koren et al.`, stays)
_CITING = re.compile(r"(?:^|(?<=\. ))(?:[A-Z][\w'-]+ )?[A-Z][\w'-]+ et al\.(?: \(?\[?\d{4}[a-z]?\]?\)?)?,? [a-z][^.]*\.")


_GAP = re.compile(r"(?:^|\. )(?:However|Yet|But),? ((?:the )?[\w'’ -]{5,70}?)(?: ?(?:---|--|—|–)[^.]{0,120}?(?:---|--|—|–) ?| )(?:remains?|is|are) (?:still |largely |relatively |far |much )?"
                  r"(?:less |under-?|un|poorly )(?:explored|studied|understood|investigated)\b")


def _open_question(text: str) -> str:
    """The gap the abstract names, which is what the paper studies (`However, MPNNs' generalization
    abilities remain less explored` -> `MPNNs' generalization abilities`), or ``""``."""
    gap = _GAP.search(text)
    words = _LEADING.sub("", gap.group(1)).split() if gap else []
    return _capitalise(" ".join(words)) if 2 <= len(words) <= NAME_WORDS and len(" ".join(words)) <= 60 and _technical(words) else ""


_SETTLED = re.compile(r"\b(?:(?:reasonably|fairly|relatively) )?well[ -](?:understood|studied)\b|"
                      r"\b(?:extensively|widely|thoroughly) (?:studied|explored)\b")


def _settled(text: str, title: str) -> bool:
    """Does the sentence that first names the topic say the field already understands it (`The
    expressive power of X is well understood`)? The paper studies something else."""
    at = text.casefold().find(title.casefold())
    if at < 0:
        return False
    start, end = text.rfind(". ", 0, at) + 1, text.find(". ", at)
    return bool(_SETTLED.search(text.casefold(), start, end if end >= 0 else len(text)))
