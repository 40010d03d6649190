"""Spans the context rules read (``vaultsync.context``): sentences, the sentences that report
results in figures, and lists of what a method is tested on."""

from __future__ import annotations

import re
from functools import lru_cache

import ahocorasick

# A sentence that reports a result in figures (`improves accuracy by 2.5%`, `a 3x speed-up`, `a
# score of 42.4`) names what the method was measured on and against, not what it is about.
_FIGURE = re.compile(r"\d(?:[.,]\d+)?\$? ?\\?(?:%|x\b|×|times\b|points\b|pp\b)|\bscores? of \d"
                     r"|\b(?:of|to) \$?\d+\.\d+\b(?!\s?(?:[kmbt]\b|million|billion|thousand|hours?|days?|[gt]b\b|\$?\\))"  # `an FID of 2.23`, `RMSD from 5.52 to 2.36`
                     r"|\bfrom \$?\d+(?:\.\d+)?\$? to \$?\d")
_DIGIT = re.compile(r"\d")
_RESULT_VERB = re.compile(r"\b(?:achiev|improv|reduc|increas|outperform|surpass|gain|boost|maintain|reach|attain"
                          r"|yield|lower|cut|speed|accelerat|match|exceed|beat|preserv|degrad|drop)")


def _results_sentences(text: str, low: str) -> list[tuple[int, int]]:
    """The spans of the sentences that report results in figures (see ``_FIGURE``)."""
    # (every figure has a digit at most ten characters from its start, `scores of 4`: the
    # search for one starts there, not at every word of the text before it)
    digit = _DIGIT.search(low)
    if digit is None or not _FIGURE.search(low, max(0, digit.start() - 10)):
        return []
    starts = [0] + [m.end() for m in _SENTENCE_START.finditer(text)]
    spans = []
    for start, end in zip(starts, starts[1:] + [len(low)]):
        if start and _FIGURE.search(low, start, end) and _RESULT_VERB.search(low, start, end):
            spans.append((start, end))
    return spans


_SENTENCE_START = re.compile(r"(?<=[.!?])\s+(?=[\"'“(\[*$\\]?[A-Z0-9])")


_ITEMS_END = re.compile(r"[.;!?)\]]")  # a list after a colon or in parentheses runs to its end


_COUNTED = re.compile(r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|multiple)\b[^,.;:]*$")


_LISTED_SETS_BEFORE = frozenset({"applications", "domains", "tasks", "benchmarks", "datasets", "settings", "environments"})
_TESTING = re.compile(r"\b(?:evaluat|experiment|tested|testing|validat|demonstrat|benchmark|performance|results?\b)")
_LIST_OPENER = re.compile(r"(?:^|[^a-z])(?:on|in|across) (?=[^.;:()]*$)")


def _listed_before(low: str, at: int) -> tuple[int, int] | None:
    """The span of a list of several named before the set noun at ``at`` (`on image and text
    classification tasks`, `in finance and weather forecasting applications`), or None."""
    window = low[max(0, at - 80):at]
    opener = None
    for opener in _LIST_OPENER.finditer(window):
        pass
    if opener is None:
        return None
    items = window[opener.end():]
    if " and " not in items and ", " not in items or len(items.split()) > 8:
        return None
    sentence_start = max(low.rfind(". ", 0, at), 0)
    sentence_end = low.find(". ", at)
    if not _TESTING.search(low, sentence_start, sentence_end if sentence_end >= 0 else len(low)):
        return None  # (`a dataset for training on captioning and QA tasks` is what the paper is for)
    start = at - len(window) + opener.end()
    return start, at


def _lists_items(low: str, start: int) -> bool:
    """Does a list of several items start at ``start`` (`A, B, and C`), not an acronym or a clause?"""
    end = _ITEMS_END.search(low, start)
    items = low[start:end.start() if end else len(low)]
    return items.count(",") >= 1 and len(items.split()) <= 3 * (items.count(",") + 2)


_AUTHORS_WORDS = re.compile(r"\b(?:we|our|us|this (?:paper|work|study))\b")


def _authors_sentence(low: str, at: int) -> bool:
    """Do the authors speak in the sentence around ``at`` (`we`, `our`, `this paper`)?"""
    start = max(low.rfind(". ", 0, at), 0)
    end = low.find(". ", at)
    return _AUTHORS_WORDS.search(low, start, end if end >= 0 else len(low)) is not None


# What the abstract sets aside without a cue word of its own:
# - what is too costly or scarce to use (`Since interventional data is costly to generate, we
#   learn from passive data`): the paper works without it;
_COSTLY = re.compile(r"\b((?:[a-z0-9-]+ ){0,3}[a-z0-9-]+) (?:is|are) (?:often |typically |usually |very |notoriously "
                     r"|prohibitively |extremely )?(?:costly|expensive|scarce|unavailable|infeasible|impractical)\b")
# - a prospect the work leads to (`paving the way for more reliable machine learning systems`, `...,
#   shedding light on inductive biases in neural circuits`);
_COSTLY_WORDS = ("costly", "expensive", "scarce", "unavailable", "infeasible", "impractical")
_PROSPECT = re.compile(r"\b(?:pav(?:e|es|ed|ing) the way (?:for|to|towards?)|open(?:s|ing)? (?:up )?(?:new )?"
                       r"(?:avenues|doors|possibilities|directions) (?:for|to|in)|, shedding (?:new |further )?light on"  # (`our results shed light on X`: X is theirs)
                       r"|(?:with|has|have) (?:broad |important "
                       r"|potential |significant )?implications (?:for|in))\s(?!(?:a )?(?:better |deeper |more )?understanding)")  # (understanding X is the topic)
_PROSPECT_WORDS = ("the way", "avenues", "doors", "possibilities", "directions", "shedding", "implications")
# - what a method is compared with after a first term of comparison (`outperforms dense models
#   with more compute, as well as mixture-of-expert models`), and what it is as good as (`the
#   same guarantees as the local-search methods`).
# - an aside in parentheses (`the LCM (LCM-SDXL, which is already accelerated with consistency
#   distillation)`): a remark in passing, read as an example.
_ASIDE = re.compile(r"\((?:[^()]{0,40}, )?which [^()]*\)")
# - a list of names in parentheses after what they are examples of (`4-bit quantization (GPTQ, AWQ)`).
# (not a long form: `(human-ai alignment and safety evaluation)` spells an acronym out; the look behind the
# parenthesis comes after it, so the search skips to each parenthesis)
_NAMED_IN_PARENTHESES = re.compile(r"\((?<=[a-z0-9] \()(?:(?:[^(),;:]{1,30}, )+(?:and |or )?[^(),;:]{1,30}"
                                   r"|[^()\s]{1,20} (?:and|or) [^()\s]{1,20})\)")
# - what falls short in a contrast (`TTT keeps reducing perplexity, while Mamba cannot`): a baseline.
_CONTRASTED_WORDS = ("while", "whereas", "unlike")
_CONTRASTED_FAILS = re.compile(r"\b(?:while|whereas|unlike) ((?:[a-z0-9-]+ ){0,2}[a-z0-9-]+) (?:cannot|can't|fails?|failed"
                               r"|does not|do not|did not|struggles?|breaks? down)\b")
_ALSO_COMPARED = re.compile(r",? as well as ")
# - a burden: what a method needs at a cost (`might necessitate considerable prompt tuning`, `the
#   need for a separate reward model`), named by what it costs, not what the paper does.
_BURDEN = re.compile(r"\b(?:requir(?:e|es|ed|ing)|necessitat(?:e|es|ed|ing)|demand(?:s|ing)?|the need for)"
                     r" (?:a |an )?(?:extensive|considerable|costly|expensive|careful|manual|significant|separate"
                     r"|heavy|substantial|laborious|additional|cumbersome|lengthy) (?:and [a-z-]+ )?")
# ... or in the passive (`additional post-training quantization (PTQ) on tuned weights is needed`).
_BURDEN_NEEDED = re.compile(r"\b(?:additional|extra|separate|costly|expensive|manual|extensive) ((?:[a-z0-9-]+ ){0,3}"
                            r"[a-z0-9-]+)(?= (?:\([^()]*\) )?(?:[a-z -]{0,25} )?(?:is|are) (?:often |typically |usually "
                            r"|still )?(?:needed|required|necessary)\b)")
# - what a method spares its user (`removes the need for a reward model`, `no need for retraining`,
#   `lifting the requirement of paired data`): the paper works without it.
_NO_NEED = re.compile(r"\b(?:(?:remov|reduc|lessen|alleviat|circumvent|lift|sidestep|eas)[a-z]* (?:the |any )?"
                      r"|no (?:longer )?)(?:need|necessity|requirement) (?:for|of) (?:a |an |the )?")
_FULL_STOP = re.compile(r"[.;!?](?:\s|$)")
_NOUN_PHRASE_END = re.compile(r"[.,;:()]| (?:by|through|via|while|and|with|in|on|to|at|from|which|that|as)\b")


def _to_full_stop(low: str, start: int) -> int:
    end = _FULL_STOP.search(low, start)
    return end.start() if end else len(low)


def _noun_phrase(low: str, start: int) -> tuple[int, int]:
    """The span of the noun phrase at ``start``: up to a preposition or clause boundary, five words at most."""
    stop = _NOUN_PHRASE_END.search(low, start, start + 60)
    end = stop.start() if stop else min(len(low), start + 60)
    words = low[start:end].split(" ")
    return start, start + len(" ".join(words[:5]))
# - what is already well understood, and through what (`The expressive power of MPNNs is well understood,
#   primarily through techniques from graph isomorphism testing.`, `... are well understood for ReLU
#   networks`): prior knowledge, to the sentence's end (not `not well understood`, `less well studied`).
_WELL_KNOWN_WORDS = ("well understood", "well studied", "well established", "well characteri")
_WELL_KNOWN = re.compile(r"(?<!not )(?<!less )(?<!poorly )\b(?:(?:reasonably|fairly|now|already|relatively) )?well"
                         r" (?:understood|studied|established|characteri[sz]ed)\b")
# - who studies a thing and what worries it raises (`studied in the statistical physics
#   communities`, `posing privacy and copyright concerns`, `overcoming gradient estimation challenges`):
#   the setting of the paper, named as an example of where it matters.
_CONCERNS = re.compile(r"\b((?:[a-z0-9-]+ ){0,3}[a-z0-9-]+) (?:communit(?:y|ies)|concerns|literature|challenges)\b")
_CONCERNS_WORDS = ("communit", "concerns", "literature", "challenges")
# ... only the words that name the thing: not a verb or a grading word before them (`Cooperative
# MARL faces significant challenges`: MARL is the topic, the one facing them)
_NOT_THE_THING = frozenset("""face faces facing faced pose poses posing posed present presents presenting raise raises
raising remain remains remaining significant major key unique several many new the these those such its their
considerable substantial critical fundamental open various great""".split())


def _concern_spans(low: str) -> list[tuple[int, int]]:
    spans = []
    for match in _CONCERNS.finditer(low):
        start, end = match.span(1)
        words = low[start:end].split(" ")
        while words and words[0] not in _NOT_THE_THING and any(w in _NOT_THE_THING for w in words):
            start += len(words.pop(0)) + 1
        while words and words[0] in _NOT_THE_THING:
            start += len(words.pop(0)) + 1
        if words:
            spans.append((start, end))
    return spans
# - what a thing suffers from after the opening sentence (`private synthetic data suffers from the curse
#   of dimensionality`): a weakness named in passing, as a concern.
_FIRST_STOP = re.compile(r"[.!?](?:\s|$)")
_SUFFERS = re.compile(r"\bsuffer(?:s|ed|ing)? (?:heavily |severely |greatly |badly |often )?from (?:the |a |an )?")
# - the fields a problem the abstract opens with sits in (`Reward design in reinforcement learning and
#   optimal control is challenging.`): where it matters, as `applications in`, not the topic.
_PROBLEM_IN_FIELDS = re.compile(r"^[^.!?]{0,60}?\bin ((?:[a-z-]+ ){0,3}[a-z-]+ and (?:[a-z-]+ ){0,3}[a-z-]+) (?:is|are"
                                r"|remains?) (?:challenging|crucial|important|difficult|hard|essential|critical|vital"
                                r"|a (?:key|central|fundamental|major|long-standing) )")
# - the range of tasks or domains a method is shown on (`in downstream tasks from molecular design
#   to property prediction`): examples, as after `ranging from`.
# - where a setting or problem is met (`a setting often encountered in time series forecasting`,
#   `this problem naturally arises in ...`): an example of where it matters, as `applications in`.
_MET_IN = re.compile(r"\b(?:setting|scenario|situation|regime|problem)s? (?:that (?:is|are) )?(?:often |commonly "
                     r"|frequently |typically |naturally )?(?:encountered|found|arising|arises|arise|seen|common"
                     r"|prevalent|ubiquitous) in ")
_MET_IN_WORDS = tuple(f"{word} in " for word in
                      "encountered found arising arises arise seen common prevalent ubiquitous".split())
_RANGE_WORDS = ("s from ", "s spanning ", "—", "–")  # (every noun of a range ends in `s`)
_RANGE = re.compile(r"\b(?:tasks|applications|domains|problems|settings|areas|fields|scenarios|modalities|behaviou?rs"
                    r"|capabilities)(?: |\s?[—–]\s?)(?:from|spanning) ([^.;:]{1,80}? to [^.;:,—–]{1,60})")
_SAME_AS = re.compile(r"\b(?:the )?same (?:[a-z0-9-]+ ){0,4}as (?!well\b)")
# - another setting the paper sets itself against: what its object differs from (`their different
#   properties from those of ViTs`), and the setting of a sentence the next one turns from (`In
#   vision transformers, X is modeled. However, in LLMs, ...`): the contrast, not the topic.
_DIFFERENT_FROM = re.compile(r"\b(?:differ(?:s|ent|ing)?|distinct) (?:[a-z-]+ ){0,2}from (?:those|that) of ")
_TURNING_WORDS = ("however", "contrast", "yet")
_TURNED_FROM = re.compile(r"(?:^|[.!?] )in ([^,.;:]{3,60}), [^.!?]*[.!?] (?:however|in contrast|by contrast|yet),? (?:in|for) (?!practice|reality|general|turn)")


# The words each pattern needs, one of them at least (the patterns try several words at every
# word): which are in the text is one pass of an Aho-Corasick automaton, not a substring test each.
_GUARDS: dict[str, tuple[str, ...]] = {
    "costly": _COSTLY_WORDS, "contrasted": _CONTRASTED_WORDS, "prospect": _PROSPECT_WORDS, "which": ("which",),
    "concerns": _CONCERNS_WORDS, "suffers": ("suffer",), "and": (" and ",), "met in": _MET_IN_WORDS,
    "range": _RANGE_WORDS, "parenthesis": (" (",), "list": (", ", " and "), "same": ("same ",),
    "different": ("from those of ", "from that of "), "turning": _TURNING_WORDS,
    "burden": ("requir", "nece", "demand", "need for"), "needed": (" needed", " required", " necessary"),
    "well known": _WELL_KNOWN_WORDS, "no need": (" need", "requirement", "necessity")}


@lru_cache(maxsize=1)
def _guard_automaton() -> ahocorasick.Automaton:
    automaton = ahocorasick.Automaton()
    for word in {word for words in _GUARDS.values() for word in words}:
        automaton.add_word(word, tuple(name for name, words in _GUARDS.items() if word in words))
    automaton.make_automaton()
    return automaton


def _set_aside(low: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(negated spans, evaluation spans) of the patterns above (a prospect is read as an example
    of where the work may lead, so as an evaluation); ``_clause_end`` is passed in by the caller."""
    found = {name for _, names in _guard_automaton().iter(low) for name in names}  # (each pattern asked only where its words are)
    costly = _COSTLY.finditer(low) if "costly" in found else ()
    contrasted = _CONTRASTED_FAILS.finditer(low) if "contrasted" in found else ()
    negated = [m.span(1) for m in (*costly, *contrasted)]
    evaluation = [(m.end(), m.end()) for m in _PROSPECT.finditer(low)] if "prospect" in found else []
    evaluation += [(m.start() + 1, m.end() - 1) for m in _ASIDE.finditer(low)] if "which" in found else []
    evaluation += _concern_spans(low) if "concerns" in found else []
    opening = _FIRST_STOP.search(low)  # (what the field suffers from in the opening sentence is the problem)
    evaluation += [_noun_phrase(low, m.end()) for m in _SUFFERS.finditer(low, opening.end() if opening else len(low))] \
        if "suffers" in found else []
    evaluation += [m.span(1) for m in _PROBLEM_IN_FIELDS.finditer(low)] if "and" in found else []
    evaluation += [(m.end(), m.end()) for m in _MET_IN.finditer(low)] if "met in" in found else []
    evaluation += [m.span(1) for m in _RANGE.finditer(low)] if "range" in found else []
    evaluation += [(m.start() + 1, m.end() - 1) for m in _NAMED_IN_PARENTHESES.finditer(low)] \
        if "parenthesis" in found and "list" in found else []
    negated += [(m.end(), m.end()) for m in _SAME_AS.finditer(low)] if "same" in found else []
    negated += [(m.end(), m.end()) for m in _DIFFERENT_FROM.finditer(low)] if "different" in found else []
    negated += [m.span(1) for m in _TURNED_FROM.finditer(low)] if "turning" in found else []
    negated += [(m.end(), m.end()) for m in _BURDEN.finditer(low)] if "burden" in found else []
    negated += [m.span(1) for m in _BURDEN_NEEDED.finditer(low)] if "needed" in found else []
    negated += [(m.end(), _to_full_stop(low, m.end())) for m in _WELL_KNOWN.finditer(low)] if "well known" in found else []
    negated += [_noun_phrase(low, m.end()) for m in _NO_NEED.finditer(low)] if "no need" in found else []
    return negated, evaluation
