"""Phrase extractor: noun-phrase-like chunks ranked by corpus statistics.

No tagger: text is cut into chunks at punctuation, function words, common verbs, adverbs and
numbers; suffix rules then trim what a noun phrase cannot start or end with (a verb participle
after a noun, a trailing adjective, "novel"/"proposed"). Chunks of 1-4 words are candidates.
``rank_keyphrases`` ranks them by TF-IDF over the given documents; the hook reports each
non-generic candidate with its in-abstract salience, and ``promote_phrases`` lets the link stage
keep the ones that recur across papers.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from itertools import accumulate, chain
from operator import add
from typing import NamedTuple, Sequence

from ..canonical import concept_key, singular
from ..generic import is_generic
from ..hookspecs import hookimpl
from ..inline_html import without_html
from ..records import Abstract, ConceptMention, ExtractContext, Extraction, mention_from_fields

__all__ = [
    "Phrase",
    "candidate_phrases",
    "rank_keyphrases",
    "phrase_mentions",
    "promote_phrases",
    "vaultsync_extract",
]

MAX_WORDS = 4

# ---------------------------------------------------------------------------------------------
# Word lists: what cuts a chunk, and what a noun phrase cannot start or end with.

_FUNCTION_WORDS = """
a an the this that these those there here its it itself they them their theirs we us our ours
you your he she his her him i me my one ones who whom whose which what when where why how
whether if then than so because since while although though unless until upon whereas yet
and or nor but either neither both not no only also just even still very too quite rather
more most less least much many few several some any all each every other another such same
own else thus hence therefore however moreover furthermore additionally meanwhile instead
indeed often always never sometimes usually already again ever further well far almost nearly
of in on at by for with without within from to into onto over under above below between as
among amongst across through throughout during before after against about around along
toward towards via per versus vs beyond despite besides unlike like near behind beneath inside
outside including e.g i.e etc al cf s t is are was were be been being am has have had having
do does did doing done can could may might must shall should will would need needs ought
first second third fourth fifth firstly secondly finally lastly i ii iii iv v vi
new novel
"""

# Verbs of scientific prose, as cut points. -ing forms of these are verbs too ("using",
# "achieving"); gerunds that name things ("learning", "training") are not in this list.
_VERBS = """
use make show propose present introduce demonstrate achieve outperform improve provide
enable allow require obtain yield reveal find suggest indicate study investigate explore
examine consider address tackle solve leverage exploit employ adopt apply develop design
evaluate assess analyze analyse describe discuss report compare establish prove derive
extend generalize reduce increase decrease enhance boost lead remain become seem appear
exhibit perform achieve attain surpass exceed match reach offer give take bring help aim
focus rely depend result arise occur exist involve include contain comprise consist
represent denote define call name refer relate correspond capture incorporate integrate
combine construct build create generate produce introduce formulate cast frame view treat
handle mitigate alleviate overcome suffer fail lack struggle limit hinder prevent ensure
guarantee maintain preserve retain keep support facilitate allow permit let motivate
inspire highlight emphasize underscore illustrate confirm verify validate corroborate
observe notice note see know believe argue claim assume expect hypothesize conjecture
want try seek attempt strive remain become get go come put set run hold stand turn move
bridge close open unlock unleash pave shed tend continue begin start stop
conduct carry release publish share introduce identify determine estimate infer predict
achieve outperforms demonstrate
"""

# Irregular verb forms and common verb forms the suffix rules miss.
_VERB_FORMS = """
made shown given taken found seen known led brought kept held built run ran became began
went gone got gotten put set let thought brought sought done says said told shows gives
takes makes finds holds leads keeps sees knows runs becomes gets goes comes puts sets lets
yields reveals remains relies results arises occurs exists involves includes contains
consists represents leverages exploits employs adopts applies develops achieves outperforms
improves provides enables allows requires obtains suggests indicates studies investigates
explores examines considers addresses tackles solves proposes presents introduces
demonstrates describes discusses reports compares establishes proves derives extends
generalizes reduces increases decreases enhances boosts exhibits performs attains surpasses
exceeds matches reaches offers brings helps aims focuses depends captures incorporates
integrates combines constructs builds creates generates produces formulates handles
mitigates alleviates overcomes suffers fails lacks struggles limits hinders prevents ensures
guarantees maintains preserves retains supports facilitates permits motivates highlights
emphasizes illustrates confirms verifies validates observes argues claims assumes expects
continues tends remains seems appears serves plays needs wants tries seeks attempts enables
based due able unable likely unlikely thereby wherein whereby yet via
"""

# Words ending in -ly that are nouns, not adverbs.
LY_NOUNS = frozenset("""
family anomaly assembly supply monopoly italy butterfly jelly belly bully ally rally
poly reply apply homily lily holly folly panoply oligopoly duopoly
""".split())

# Words ending in -ed that are not participles.
ED_NOUNS = frozenset("""
speed seed need feed bed red embed shed breed weed hundred creed greed deed bleed steed
""".split())

# Adjective endings: a chunk never ends on one ("the method is robust").
# Endings of nouns and adjectives; a bare lower-case word without one, right after "to", is
# taken for an infinitive ("to recover latent components").
NOUN_SUFFIXES = (
    "tion", "sion", "ment", "ness", "ity", "ism", "ist", "ure", "ance", "ence", "ing", "or",
    "ar", "al", "ic", "ics", "ogy", "phy", "sis", "ry", "cy", "ty", "th", "ship", "hood", "ee",
    "um", "ix", "ex", "on", "ia", "ine", "ide", "ite", "ard", "nt", "oid", "ant", "ent",
)
ADJECTIVE_SUFFIXES = ("ive", "ous", "ful", "less", "able", "ible", "ical", "ary", "ent", "ant")
NOUN_SUFFIX_EXCEPTIONS = frozenset("""
objective objectives alternative alternatives derivative derivatives primitive primitives
directive initiative executive incentive representative perspective detective narrative
positive positives negative negatives adhesive explosive locomotive archive archives
generative cognitive motive motives additive additives relative relatives native natives
table variable variables cable vegetable label constable syllable timetable
dictionary vocabulary library summary boundary boundaries secretary diary salary anniversary
glossary commentary inventory itinerary binary ordinary literary military sanctuary
agent agents component components gradient gradients student students patient patients
client clients coefficient coefficients experiment experiments document documents segment
segments element elements moment moments environment environments content event events
parent parents talent opponent opponents respondent respondents constituent constituents
ingredient ingredients embedding continent accident incident president resident agreement
assessment deployment alignment treatment management payment equipment movement statement
department development measurement requirement improvement adjustment argument arguments
instrument instruments investment government achievement enhancement refinement placement
settlement engagement fragment fragments sentiment attachment commitment employment
replacement reinforcement advancement entailment containment displacement assignment
variant variants assistant assistants participant participants constant constants
invariant invariants determinant determinants quadrant applicant merchant tenant servant
restaurant plant plants accountant consultant descendant pollutant reactant reactants
defendant mutant mutants implant elephant infant giant giants
""".split())

# Plain adjectives the suffix rules miss; like those, they never end a phrase ("keeps X small").
PLAIN_ADJECTIVES = frozenset("""
small large big huge tiny high low long short fast slow quick old young good bad hard easy
simple clear free full deep shallow wide narrow strong weak rich poor true false dense sparse
robust smooth safe sure aware alike alone apart close costly fair fine flat firm harsh heavy
light loose tight rare scarce sharp slight steep stiff thick thin vast brittle noisy clean
""".split())

# Words that open noun phrases in abstracts but are never part of the concept.
LEADING_FILLERS = frozenset("""
proposed existing various different numerous recent previous current typical popular
traditional conventional certain particular given simple effective efficient powerful
promising remarkable comprehensive extensive unified principled systematic specific
important key main major significant substantial crucial essential overall additional
several diverse resulting corresponding respective underlying associated related
improved enhanced superior better best strong stronger great greater good
""".split())


def _verb_forms(bases: str) -> set[str]:
    forms: set[str] = set()
    for base in bases.split():
        stem = base[:-1] if base.endswith("e") and not base.endswith("ee") else base
        forms.update({base, base + "s", stem + "ed", stem + "ing"})
        if base.endswith("y") and base[-2] not in "aeiou":
            forms.update({base[:-1] + "ies", base[:-1] + "ied"})
    return forms


STOPWORDS = frozenset(
    set(_FUNCTION_WORDS.split()) | _verb_forms(_VERBS) | set(_VERB_FORMS.split())
)

# Math, URLs, LaTeX commands and HTML tags are masked (they cut chunks and never become phrases).
_MASK = re.compile(
    r"\$\$.*?\$\$|\$[^$]{1,400}\$|\\\(.*?\\\)|\\\[.*?\\\]"  # TeX math
    r"|(?:https?://|ftp://|www\.)\S+"  # URLs
    r"|\\[A-Za-z]+\*?|</?[A-Za-z][^<>]{0,40}>",  # LaTeX commands, HTML tags
    re.DOTALL,
)
# A word (letters/digits, with inner hyphens, dots, slashes or pluses: GPT-4, v1.5, TCP/IP, C++).
# Phrases are cut out of runs of words separated by whitespace only: anything else (punctuation,
# emphasis, masked text, or no space at all, as in `a_b`) cuts phrases.
# (Written as runs of word characters joined by single joiners: the same words as the per-character
# form `[^\W_](?:[^\W_]|<joiner>(?=[^\W_]))*\+*`, which the regex engine matches about twice as slowly.)
_WORD = re.compile(r"[^\W_]+(?:[-.+/\u2010\u2011][^\W_]+)*\+*")
_TOKEN = re.compile(r"\S+")  # what `str.split()` splits a text into (both use `str.isspace`)
_NUMBERISH = re.compile(r"^[\d.,/+\-]+(?:st|nd|rd|th|s|k|m|b|x)?$")
_DOMAIN = re.compile(r"\.(?:com|org|net|io|edu|ai|gov|html?|pdf)(?:/|$)")

# Per-word flags, computed once per distinct word.
_BOUNDARY, _PARTICIPLE, _ADJECTIVE, _FILLER, _PLURAL, _LOWER, _BARE, _TO = 1, 2, 4, 8, 16, 32, 64, 128
_TRAILING = _PARTICIPLE | _ADJECTIVE
_DROPPED_ALONE = _FILLER | _TRAILING  # a one-word piece with one of these is no phrase
_CUTS = _PARTICIPLE | _PLURAL  # a run with neither is one piece

# A text is read token by token (``str.split()``); each distinct token is described once, as the
# words in it: ``(start, stop, flags)`` within the token. Punctuation and masked text in a token
# become a ``_CUT``, a boundary that is no word, so the words around it are in different runs.
_CUT = (0, 0, _BOUNDARY)
_FLAGS: dict[str, tuple[tuple[int, int, int], ...]] = {}  # token -> its description
_Span = tuple[int, int]  # (start, stop) of a phrase in the text


class Phrase(NamedTuple):
    """A candidate phrase: ``text`` is ``source[start:end]`` exactly; ``key`` is its concept key."""

    text: str
    start: int
    end: int
    key: str


_new_phrase = tuple.__new__  # `_new_phrase(Phrase, (...))` is `Phrase(...)` without the Python-level __new__


def _classify(word: str) -> int:
    lower = word.lower()
    if (
        lower in STOPWORDS
        or _NUMBERISH.match(lower)
        or (lower.endswith("ly") and len(lower) > 4 and lower not in LY_NOUNS)
        or ("." in lower and _DOMAIN.search(lower))
    ):
        return _BOUNDARY | (_TO if lower == "to" else 0)
    flags = 0
    if len(lower) > 4 and lower.endswith("ed") and lower not in ED_NOUNS:
        flags |= _PARTICIPLE
    if lower in PLAIN_ADJECTIVES or (
        lower.endswith(ADJECTIVE_SUFFIXES) and lower not in NOUN_SUFFIX_EXCEPTIONS
    ):
        flags |= _ADJECTIVE
    if lower in LEADING_FILLERS:
        flags |= _FILLER
    if word.islower() and word.isalpha():
        flags |= _LOWER
        if lower.endswith("s") and len(lower) > 3 and singular(lower) != lower:
            flags |= _PLURAL
        elif not lower.endswith(NOUN_SUFFIXES) and not flags & _TRAILING:
            flags |= _BARE  # a base-form verb after "to" ("to recover"), or a noun
    return flags


def _describe(token: str) -> tuple[tuple[int, int, int], ...]:
    """The words of a whitespace-free ``token`` as ``(start, stop, flags)``, with a ``_CUT``
    wherever something else than a word comes first, between words, or last (cached)."""
    if token.isalnum():  # the usual case, told without the regex (`[^\W_]` is `str.isalnum`)
        words = [(0, len(token))]
    else:
        words = [(m.start(), m.end()) for m in _WORD.finditer(token)]
    if words == [(0, len(token))]:  # the token is one word
        description = ((0, len(token), _classify(token)),)
    else:
        items = []
        position = 0
        for start, stop in words:
            if start > position or items:  # two words never join without whitespace between
                items.append(_CUT)
            items.append((start, stop, _word_flags(token[start:stop])))
            position = stop
        if position < len(token) or not items:
            items.append(_CUT)
        description = tuple(items)
    if len(_FLAGS) > 200_000:
        _FLAGS.clear()  # bound the memory an endless stream of new tokens can take
    _FLAGS[token] = description
    return description


def _word_flags(word: str) -> int:
    """The flags of one word (a word is a token of its own, so its description is cached too)."""
    description = _FLAGS.get(word) or _describe(word)
    return description[0][2]


def _mask(text: str) -> str:
    if "$" in text or "\\" in text or "<" in text or "://" in text or "www." in text:
        return _MASK.sub(lambda m: "\x00" * (m.end() - m.start()), text)
    return text


def _token_starts(text: str, tokens: list[str]) -> list[int]:
    """Where each of ``tokens`` (``text.split()``) starts in ``text``."""
    ends = list(accumulate(map(len, tokens), initial=0))  # summed in C: no Python step per token
    if ends[-1] + len(tokens) - 1 == len(text):  # one whitespace character between tokens, none around them
        return list(map(add, ends, range(len(tokens))))
    return [m.start() for m in _TOKEN.finditer(text)]


def _add(piece: list[tuple[int, int, int]], spans: list[_Span]) -> None:
    """Trim a piece to a noun phrase (no leading filler, no trailing participle/adjective) and keep it."""
    begin, end = 0, len(piece)
    while begin < end and piece[begin][2] & _FILLER:
        begin += 1
    while end > begin and piece[end - 1][2] & _TRAILING:
        end -= 1
    if end - begin > MAX_WORDS:  # keep the head noun and its nearest modifiers
        begin = end - MAX_WORDS
        while begin < end - 1 and piece[begin][2] & _FILLER:
            begin += 1
    if end > begin:
        spans.append((piece[begin][0], piece[end - 1][1]))


def _add_run(run: list[tuple[int, int, int]], spans: list[_Span]) -> None:
    """Cut a run of content words where a participle follows a noun ("model trained on": a verb)."""
    if len(run) == 1:  # the usual case, inlined: `_add` of one word
        start, stop, flags = run[0]
        if not flags & _DROPPED_ALONE:
            spans.append((start, stop))
        return
    cuts = 0
    for item in run:
        cuts |= item[2]
    if not cuts & _CUTS:
        _add(run, spans)
        return
    piece: list[tuple[int, int, int]] = []
    last = len(run) - 1
    for index, item in enumerate(run):
        if piece and item[2] & _PARTICIPLE and not piece[-1][2] & _TRAILING:
            _add(piece, spans)
            piece = []
            continue  # the verb itself belongs to no phrase
        piece.append(item)
        # A plural noun inside a lower-case run ends its phrase: "experts classification",
        # "nodes compete", "compounds occurring": what follows is a verb or a new phrase.
        if index < last and item[2] & _PLURAL and run[index + 1][2] & _LOWER:
            _add(piece, spans)
            piece = []
    if piece:
        _add(piece, spans)


def _phrase_spans(text: str) -> list[_Span]:
    """``(start, stop)`` of every candidate phrase in ``text``, in text order (see ``candidate_phrases``)."""
    return [(begin + start, begin + stop) for begin, phrases in _stretches(text) for start, stop, _, _ in phrases]


# A run of content words never crosses a token made of boundaries only (`the`, `of`, `(e.g.,`),
# so a text falls apart into stretches: maximal sequences of tokens that each hold a content word.
# A stretch's phrases depend on nothing but its own characters and on whether a `to` came right
# before it (`to recover`: a verb), and stretches recur across abstracts (`graph neural
# networks`, `large language models (LLMs)`), so each distinct stretch is chunked once.
# The stretches are found in a copy of the text where each token is replaced by its code, as
# many times as it has characters (`the model` -> `sss www`), so one regex pass over the copy
# finds them at their offsets in the text: no Python step per word.
_SKIP, _SKIP_TO, _HOLDS = "s", "t", "w"  # a token of boundaries only (the last one `to`), or with a content word
# (A literal first lets the regex engine skip ahead fast; character classes match in one step.)
_STRETCH = re.compile(rf"{_HOLDS}(?:[{_HOLDS}\s]*{_HOLDS})?")
# (start, stop, surface, mention key (see _mention_key)) of each phrase, relative to the stretch
_StretchPhrases = tuple[tuple[int, int, str, str], ...]


class _TokenCodes(dict):
    """token -> its code repeated to its length, worked out from its description on first sight."""

    def __missing__(self, token: str) -> str:
        description = _FLAGS.get(token) or _describe(token)
        if not all(flags & _BOUNDARY for _, _, flags in description):
            code = _HOLDS
        else:
            code = _SKIP_TO if description[-1][2] & _TO else _SKIP
        if len(self) > 200_000:
            self.clear()  # bound the memory an endless stream of new tokens can take
        codes = self[token] = code * len(token)
        return codes


_CODES = _TokenCodes()
# stretch -> its phrases; one table for stretches right after `to`, one for all others
_STRETCHES: tuple[dict[str, _StretchPhrases], dict[str, _StretchPhrases]] = ({}, {})


def _stretches(text: str) -> list[tuple[int, _StretchPhrases]]:
    """``(start, phrases)`` of each stretch of ``text`` that has phrases, in text order."""
    masked = _mask(text)
    codes = " ".join(map(_CODES.__getitem__, masked.split()))
    single_spaced = len(codes) == len(masked)
    if not single_spaced:  # other whitespace than single spaces between tokens: keep it
        codes = _TOKEN.sub(lambda token: _CODES[token.group()], masked)
    found = []
    for match in _STRETCH.finditer(codes):
        begin, end = match.span()
        stretch = masked[begin:end]
        if single_spaced:  # the token before ends two characters back
            after_to = begin > 0 and codes[begin - 2] == _SKIP_TO
        else:
            after_to = codes[:begin].rstrip()[-1:] == _SKIP_TO
        phrases = _STRETCHES[after_to].get(stretch)
        if phrases is None:
            phrases = _stretch_phrases(stretch, after_to)
        if phrases:
            found.append((begin, phrases))
    return found


def _stretch_phrases(stretch: str, follows_to: bool) -> _StretchPhrases:
    """The phrases of one stretch, chunked word by word, kept for the next time it occurs."""
    tokens = stretch.split()
    after_to = follows_to
    describe = _FLAGS.get
    spans: list[_Span] = []
    run: list[tuple[int, int, int]] = []  # the content words of the current run
    for token, at in zip(tokens, _token_starts(stretch, tokens)):
        for start, stop, flags in describe(token) or _describe(token):
            if flags & _BOUNDARY or (after_to and flags & _BARE):  # `to recover`: a verb
                if run:
                    _add_run(run, spans)
                    run = []
                after_to = flags & _TO
            else:
                run.append((at + start, at + stop, flags))
                after_to = False
    if run:
        _add_run(run, spans)
    phrases = tuple((start, stop, surface, _mention_key_of(surface)) for start, stop in spans
                    for surface in (stretch[start:stop],))
    table = _STRETCHES[follows_to]
    if len(table) > 100_000:
        table.clear()  # bound the memory an endless stream of new stretches can take
    table[stretch] = phrases
    return phrases


def candidate_phrases(text: str) -> list["Phrase"]:
    """Noun-phrase-like chunks of 1-4 words, in text order, each an exact slice of ``text``.

    Chunks are runs of words separated by whitespace only, cut at function words, common verbs,
    adverbs, numbers and any punctuation; longer runs keep their last four words. Math
    (``$...$``), URLs, LaTeX commands, HTML tags and Markdown emphasis never enter a phrase.
    """
    phrases: list[Phrase] = []
    for start, stop in _phrase_spans(text):
        surface = text[start:stop]
        key = concept_key(surface)
        if key:
            phrases.append(_new_phrase(Phrase, (surface, start, stop, key)))
    return phrases


# ---------------------------------------------------------------------------------------------
# Ranking


def _salience(phrases: Sequence[Phrase], length: int) -> dict[str, float]:
    """Per key: occurrences weighted by how early the phrase first appears and how long it is."""
    scores: dict[str, float] = {}
    first: dict[str, int] = {}
    for phrase in phrases:
        scores[phrase.key] = scores.get(phrase.key, 0.0) + 1.0
        first.setdefault(phrase.key, phrase.start)
    for key, tf in scores.items():
        words = key.count(" ") + 1
        position = 1.0 + 1.0 / (1.0 + 5.0 * first[key] / max(length, 1))
        scores[key] = tf * position * (1.0 + 0.5 * min(words - 1, 2))
    return scores


def _keep(phrase: Phrase) -> bool:
    return not is_generic(phrase.text)


def _document_scores(phrases: Sequence[Phrase], length: int, df: Counter, n_docs: int) -> dict[str, float]:
    """TF-IDF of each non-generic key: weighted term frequency x smooth idf over the corpus."""
    kept = [p for p in phrases if _keep(p)]
    salience = _salience(kept, length)
    return {
        key: value * (math.log((1 + n_docs) / (1 + df[key])) + 1.0) for key, value in salience.items()
    }


def rank_keyphrases(docs: list[str], k: int = 10) -> list[list[str]]:
    """The top ``k`` keyphrases of each document, as written, by TF-IDF over ``docs``.

    Document frequencies come from ``docs`` themselves (smooth idf); a phrase's term frequency
    is weighted by how early it first appears and by its length; phrases sharing a concept key
    are one phrase. Deterministic: ties break by first position in the document.
    """
    per_doc = [candidate_phrases(doc) for doc in docs]
    df: Counter = Counter()
    for phrases in per_doc:
        df.update({p.key for p in phrases})
    ranked: list[list[str]] = []
    for doc, phrases in zip(docs, per_doc, strict=True):
        scores = _document_scores(phrases, len(doc), df, len(docs))
        surface: dict[str, Phrase] = {}
        for phrase in phrases:
            surface.setdefault(phrase.key, phrase)
        order = sorted(scores, key=lambda key: (-scores[key], surface[key].start))
        ranked.append([surface[key].text for key in order[:k]])
    return ranked


# ---------------------------------------------------------------------------------------------
# The hook and promotion across papers


# Per surface: its concept key, or "" when it is no mention (no key, or generic phrasing).
_MENTION_KEYS: dict[str, str] = {}


def _mention_key_of(surface: str) -> str:
    """The concept key under which ``surface`` is a mention, or "" (cached)."""
    known = _MENTION_KEYS.get(surface)
    return _mention_key(surface) if known is None else known


def _mention_key(surface: str) -> str:
    key = concept_key(surface)
    if key and is_generic(surface):
        key = ""
    if len(_MENTION_KEYS) > 200_000:
        _MENTION_KEYS.clear()  # bound the memory an endless stream of new phrases can take
    _MENTION_KEYS[surface] = key
    return key


def phrase_mentions(text: str) -> list[ConceptMention]:
    """One ``ConceptMention(kind="phrase")`` per non-generic candidate key in ``text``."""
    # One pass: per key, its first phrase's position and spelling; only keys written again (a
    # few per abstract) get their spellings counted (in text order). The score is
    # ``_salience``'s, computed the same way (keep the two in step).
    first: dict[str, tuple[int, str]] = {}
    repeated: dict[str, dict[str, int]] = {}
    for begin, phrases in _stretches(text):
        for start, _, surface, key in phrases:
            if not key:
                continue
            if key not in first:
                first[key] = (begin + start, surface)
                continue
            counts = repeated.get(key)
            if counts is None:
                counts = repeated[key] = {first[key][1]: 1}
            counts[surface] = counts.get(surface, 0) + 1
    length = max(len(text), 1)
    mentions = []
    for key, (position, name) in first.items():
        counts = repeated.get(key) if repeated else None
        if counts is None:  # the usual case: written once
            tf, surfaces = 1, (name,)
        else:
            # The name is the spelling written most often (the first one on a tie, as
            # ``Counter.most_common`` picks it); surfaces keep text order.
            name, tf, surfaces = max(counts, key=counts.get), sum(counts.values()), tuple(counts)
        spaces = key.count(" ")
        # (`tf *`, `spaces if ... else 2`: the same floats as ``float(tf) *`` and ``min``, without the calls)
        score = tf * (1.0 + 1.0 / (1.0 + 5.0 * position / length)) * (1.0 + 0.5 * (spaces if spaces < 2 else 2))
        # built without the frozen dataclass's ``__init__``, which was a tenth of this hook's
        # time: an abstract reports some 25 phrases (tests/test_phrases.py compares the two)
        mentions.append(mention_from_fields(name, "phrase", surfaces, (), _round4(score), (), False))
    return mentions


def _round4(score: float) -> float:
    """``round(score, 4)``, exactly, at a fraction of the cost (the builtin goes through decimal
    strings; an abstract reports some 25 phrases). Away from a tie, the nearest integer to
    ``score * 10000`` is that of the exact product (the product is off by far less than
    0.01), and dividing it by 10000 rounds correctly, as the builtin's conversion back does."""
    scaled = score * 10000.0
    if 0.0 <= scaled < 1e12:
        off = math.remainder(scaled, 1.0)  # scaled minus its nearest integer, exactly (no int to build)
        if -0.49 < off < 0.49:
            return (scaled - off) / 10000.0
    return round(score, 4)


@hookimpl
def vaultsync_extract(abstract: Abstract, context: ExtractContext) -> Extraction | None:
    """Report the abstract's non-generic noun phrases; the link stage promotes recurring ones."""
    if not context.options("phrases").get("enabled", True):
        return None
    mentions = phrase_mentions(without_html(abstract.text))
    return Extraction(concepts=tuple(mentions)) if mentions else None


def promote_phrases(
    doc_phrases: list[list[ConceptMention]],
    min_df: int = 2,
    top_k: int = 15,
    max_df_ratio: float = 0.5,
) -> set[str]:
    """Concept keys of phrases worth a shared concept note.

    A phrase is promoted when it has two words or more (a single word — "node", "prompts",
    "suppresses" — is too weak a signal without a tagger; the vocabulary names single-word
    concepts), is among the ``top_k`` of some paper by salience x idf, occurs in at least
    ``min_df`` papers (never fewer than two: a concept of one paper links nothing), is not
    generic, and (in corpora of ten papers or more) occurs in at most ``max_df_ratio`` of them.
    """
    min_df = max(2, min_df)
    n_docs = len(doc_phrases)
    # per paper, concept key -> its (last) phrase mention with that key, in order of first
    # mention (one comprehension: half a million mentions at 20,000 papers)
    keyed = [{concept_key(m.name): m for m in mentions if m.kind == "phrase"} for mentions in doc_phrases]
    df: Counter = Counter(chain.from_iterable(keyed))
    df.pop("", None)  # no key: never a concept
    max_df = max_df_ratio * n_docs if n_docs >= 10 else math.inf
    # the phrases frequent enough, and not too frequent, to be promoted: most phrases occur in
    # one paper only, so testing these first (in C, below) skips most of the work
    idf = {key: math.log((1 + n_docs) / (1 + count)) + 1.0 for key, count in df.items()
           if min_df <= count <= max_df}
    promoted: set[str] = set()
    names_ok: dict[str, bool] = {}  # name -> two words or more, and not generic (names recur)
    for doc in keyed:
        scored = []
        for key in filter(idf.__contains__, doc):
            mention = doc[key]
            name_ok = names_ok.get(mention.name)
            if name_ok is None:
                name_ok = names_ok[mention.name] = " " in mention.name.strip() and not is_generic(mention.name)
            if name_ok:
                scored.append((-mention.score * idf[key], key))
        if len(scored) > top_k:  # (else every one is promoted: no order to find)
            scored.sort()
            del scored[top_k:]
        promoted.update([key for _, key in scored])
    return promoted

