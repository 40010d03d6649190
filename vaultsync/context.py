"""Context decides a link: a concept the abstract negates, contrasts itself with or only
evaluates on is not what the paper is about.

NegEx-style (Chapman et al., 2001): a *cue* opens a *scope* that runs forward to the end of its
clause, or a few words at most; a mention whose every occurrence lies in some scope is not
linked. Three kinds of cue:

* negation and contrast: ``without``, ``unlike``, ``instead of``, ``rather than``, ``avoids``,
  ``beyond``, ``not``, ``as opposed to``, ``inspired by``, ``compared with``, ``outperforms``;
  and the words they attach to: ``X-free`` (training-free), ``non-X`` (non-interactive);
* prior work: a sentence that opens with ``existing``/``previous``/... methods, to its end;
* results: a sentence that reports a result in figures (``improves accuracy by 2.5%``);
* evaluation and examples: ``evaluated on``, ``performance on``, ``datasets including``, ``such
  as``, ``like``: what the method is tested on, or an example, not its topic. A benchmark or
  dataset there (the vocabulary says it is one) goes to the ``datasets`` property instead.

Then salience (``vaultsync.salience``): a concept named once, outside the opening sentence and the
authors' own sentences, is named in passing and not linked.

Only the built-in kinds of mention (vocabulary, acronym, phrase) are judged; a plugin's own
kinds (a dataset extractor's ``dataset``) are its own business.
"""

from __future__ import annotations

import re
from functools import lru_cache

import ahocorasick

from .records import ConceptMention, Extraction, frozen_mapping
from .word_lists import DATA, read_word_lists
from .context_spans import (_ITEMS_END, _LISTED_SETS_BEFORE, _COUNTED, _authors_sentence,
                            _listed_before, _lists_items, _results_sentences, _set_aside, _ALSO_COMPARED)

JUDGED_KINDS = frozenset({"vocabulary", "acronym", "acronym-coined", "phrase"})
SCOPE_WORDS = 8  # a cue reaches at most this many words (NegEx uses five to six)
EVALUATION_SCOPE_WORDS = 14

# Cues, word by word: a cue word, and the word that must follow it (None: none needed).
# (A dictionary walk over the words: one regex of every cue, tried at every position, cost 0.8 ms an abstract.)
_NEGATION_CUES: dict[str, tuple[str, ...] | None] = {
    "without": None, "unlike": None, "beyond": None, "neither": None, "nor": None,
    "avoid": None, "avoids": None, "avoiding": None, "avoided": None,
    "instead": ("of",), "rather": ("than",), "opposed": ("to",), "inspired": ("by",), "inspiration": ("from",), "contrast": ("to", "with", "against"),
    "contrary": ("to",), "compare": ("to", "with", "against"), "compared": ("to", "with", "against"),
    "comparing": ("to", "with", "against"),
    "bypass": None, "bypasses": None, "bypassing": None,  # (not `circumvent`: circumventing a curse is the topic)
    "comparison": ("to", "with", "against"), "motivated": ("by",), "relative": ("to",), "free": ("of",),
    "alternative": ("to",), "alternatives": ("to",), "short": ("of",), "lag": ("behind",), "lags": ("behind",), "lagging": ("behind",),
    "underperform": None, "underperforms": None, "underperforming": None, "replace": None, "replaces": None, "replacing": None,
    "eliminate": None, "eliminates": None, "eliminating": None,
    "obviate": None, "obviates": None, "obviating": None,
    "not": None, "doesn't": None, "don't": None, "isn't": None, "aren't": None, "can't": None, "cannot": None,
    "absence": ("of",), "lack": ("of",), "lacking": None, "lacks": None,
    # prior work the paper sets itself against: `existing methods such as LoRA`
    "existing": None, "previous": None, "traditional": None, "conventional": None,
    "prior": ("work", "works", "methods", "approaches", "studies", "research", "art"),
}
_NOT_NEGATING = frozenset({"only", "just", "merely", "simply", "necessarily", "yet", "least"})
_COMPARISON_CUES = frozenset({"outperform", "outperforms", "outperforming", "outperformed", "surpass",
                              "surpasses", "surpassing", "surpassed", "beats", "beating"})
# what the method is measured against, named after a word of comparison: `better than X`,
# `competitive with Y in reranking` (as `outperforms`, the scope ends at `in`, `on`, ...)
_COMPARATIVES: dict[str, tuple[str, ...]] = {
    "better": ("than",), "worse": ("than",), "faster": ("than",), "competitive": ("with",),
    "comparable": ("to", "with"), "superior": ("to",), "inferior": ("to",)}
_COMPARISON_STOPS = frozenset({"on", "in", "across", "for", "by", "with", "at", "over", "under", "while", "and"})
_EVALUATION_CUES = frozenset({"evaluate", "evaluated", "evaluating", "evaluation", "evaluations", "experiment",
                              "experiments", "experimental", "tested", "testing", "tests", "validate", "validated",
                              "validating", "validation", "benchmarked", "benchmarking", "results", "result",
                              # what results are reported on: `performance on`, `gains across`
                              "demonstrate", "demonstrated", "demonstrates", "demonstrating", "performance",
                              "accuracy", "improves", "improvement", "improvements", "gains", "achieves",
                              "reduction", "reductions", "speedup", "speedups",
                              # `simulations on synthetic data`, `empirical analysis on MIP benchmarks`
                              "simulation", "simulations", "computations", "empirical", "empirically"})
# a verb of testing also tests `in` a setting (`we evaluate it in a model predictive control setting`)
_TESTING_VERBS = frozenset({"evaluate", "evaluated", "evaluating", "tested", "testing", "validate", "validated",
                            "validating", "benchmarked", "benchmarking", "experiments", "simulations", "empirically"})
_EVALUATION_ON = frozenset({"on", "across", "over", "using"})
_SET_NOUNS = frozenset({"dataset", "datasets", "benchmark", "benchmarks", "environments"})
_SET_CUES = frozenset({"such", "including", "like", "e.g"})
# examples named in passing (`models such as GPT-4, Gemini Pro and Phi-3`): read like evaluation,
# so a named model or product there is not what the paper is about
_EXAMPLE_CUES: dict[str, tuple[str, ...] | None] = {"such": ("as",), "e.g": None, "including": None, "like": None,
                                                    "ranging": ("from",),
                                                    "example": None, "instance": None,
                                                    "examples": ("include", "includes", "including", "that", "are")}
_LISTS = read_word_lists(DATA / "context_words.txt")
_APPLICATION_WORDS, _APPLICATION_FOLLOWERS = _LISTS["application_words"], _LISTS["application_followers"]
_LISTED_SETS = _LISTS["listed_sets"]
_WORD = re.compile(r"[a-z][a-z0-9'.-]*[a-z0-9]|[a-z]")
# where a cue's reach ends: a clause boundary
_CLAUSE_END = re.compile(r"[.;:!?()\[\]]|, (?:but|while|whereas|and|which|we|it|our|this|thereby)\b| but | while | whereas ")
# ... and where a list of what is evaluated on, or of examples, ends (`such as A, B, and C`)
_LIST_END = re.compile(r"[.;:!?()\[\]]|, (?:but|while|whereas|which|we|it|our|this|thereby)\b"
                       r"|,? and (?:we|our|it|this|they|its|their)\b| but | while | whereas ")
_SHORT_PARENTHESIS = re.compile(r"\([^()\s]{1,15}\)")  # an acronym: the scope reads on through it
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


# Where a cue may start: one pass of an Aho-Corasick automaton over the text finds the few
# candidates (a regex of these alternatives took 0.1 ms an abstract), so the words between them
# are never looked at one by one.
_CUE_STARTS = tuple(cue.replace("_", " ") for cue in (
    "without unlike beyond neither nor_ avoid instead rather opposed inspir motivated contrast contrary compar relative "
    "free alternative bypass better worse faster competitive comparable superior inferior short lag underperform replac eliminat obviat not_ n't cannot outperform surpass beat evaluat experiment test validat "
    "benchmark result dataset environments demonstrat performance accuracy improve gains achieves reduction speedup non absence lack existing previous prior traditional "
    "conventional such e.g including example instance like ranging "
    "applic promis potential progress interest success breakthrough simulation computations empirical "
    "domains regimes settings scenarios tasks applications").split())


@lru_cache(maxsize=1)
def _cue_automaton() -> ahocorasick.Automaton:
    automaton = ahocorasick.Automaton()
    for cue in _CUE_STARTS:
        automaton.add_word(cue, len(cue))
    automaton.make_automaton()
    return automaton


def _cue_starts(low: str) -> list[int]:
    """Where a cue word may start in ``low``, in text order."""
    return sorted({end - length + 1 for end, length in _cue_automaton().iter(low)})


def _scopes(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(negated spans, evaluation spans) of ``text``: start and end offsets."""
    low = _lowered(text)
    negated: list[tuple[int, int]] = []
    evaluation: list[tuple[int, int]] = []
    for start in _cue_starts(low):
        if start and (low[start - 1].isalnum() or low[start - 1] == "'"):
            if not low.startswith("-free", start - 1) and not low.startswith("n't", start):
                continue  # inside a word
        if low.startswith("n't", start):
            start = low.rfind(" ", 0, start) + 1
        if low.startswith("free", start) and start and low[start - 1] == "-":
            start = max(low.rfind(" ", 0, start), low.rfind("/", 0, start)) + 1
        match = _WORD.match(low, start)
        if match is None:
            continue
        end, word = match.end(), match.group()
        following = _WORD.search(low, end, end + 40)
        after = following.group() if following else ""
        if word in _NEGATION_CUES:
            needs = _NEGATION_CUES[word]
            if needs is not None:
                if after not in needs and following is not None:  # `contrast it against`
                    following = _WORD.search(low, following.end(), following.end() + 40)
                    after = following.group() if following else ""
                if after not in needs:
                    continue
                end = following.end()
            elif word == "not" and after in _NOT_NEGATING:
                continue
            if word in _PRIOR_WORK and _opens_sentence(low, start):
                # `Previous methods either adopt X or train Y.`: the sentence is about prior work
                negated.append((end, _sentence_end(low, end)))
            else:
                negated.append((end, _clause_end(low, end, SCOPE_WORDS)))
        elif word in _COMPARISON_CUES or word in _COMPARATIVES and after in _COMPARATIVES[word] \
                and following.start() == end + 1:  # `outperforms LoRA on GLUE` contrasts LoRA, not GLUE
            end = end if word in _COMPARISON_CUES else following.end()
            reach = _clause_end(low, end, SCOPE_WORDS)
            stop = _COMPARISON_STOP.search(low, end, reach)
            negated.append((end, stop.start() if stop else reach))
            also = _ALSO_COMPARED.search(low, end, _clause_end(low, end, 2 * SCOPE_WORDS))
            if also is not None:  # `outperforms X with less compute, as well as Y`
                negated.append((also.end(), _clause_end(low, also.end(), SCOPE_WORDS)))
        elif word in _EVALUATION_CUES:
            on = (_TESTING_IN if word in _TESTING_VERBS else _EVALUATION_ON_WORD).search(low, end, _clause_end(low, end, 5))
            if on is not None and low.count(" ", end, on.start()) <= 4:
                reach = _clause_end(low, on.end(), EVALUATION_SCOPE_WORDS, _LIST_END)
                stop = _EVALUATION_STOP.search(low, on.end(), reach)  # `on X by 2%, with less memory`
                if stop is None and low.startswith(":", reach):  # `on three scenarios: (i) A; (ii) B`
                    full_stop = _FULL_STOP.search(low, reach)
                    reach = full_stop.start() if full_stop else len(low)
                evaluation.append((on.end(), stop.start() if stop else reach))
        elif word in _EXAMPLE_CUES and (_EXAMPLE_CUES[word] is None or after in _EXAMPLE_CUES[word]) \
                and not (word == "like" and low[max(0, start - 7):start].rstrip().endswith(("would", "'d", "looks"))):
            at = following.end() if _EXAMPLE_CUES[word] and following else end
            if word == "e.g":  # the scope opens after `e.g.,`, not at its own full stop
                at = end + len(low[end:end + 3]) - len(low[end:end + 3].lstrip(".,: "))
            evaluation.append((at, _clause_end(low, at, EVALUATION_SCOPE_WORDS, _LIST_END)))
        elif word in _APPLICATION_WORDS and after in _APPLICATION_FOLLOWERS and following.start() == end + 1 \
                and not _opens_sentence(low, start) \
                and not _authors_sentence(low, start):  # (`we propose X, with applications in Y`: Y is theirs)
            evaluation.append((following.end(), _clause_end(low, following.end(), EVALUATION_SCOPE_WORDS, _LIST_END)))
        elif word in _LISTED_SETS and (low.startswith((": ", " ("), end) or low.startswith(", ", end)
                                       and _COUNTED.search(low, max(0, start - 30), start)) and _lists_items(low, end + 2):
            evaluation.append((end + 2, _clause_end(low, end + 2, EVALUATION_SCOPE_WORDS + 6, _ITEMS_END)))
        elif word in _LISTED_SETS_BEFORE and (listed := _listed_before(low, start)) is not None:
            evaluation.append(listed)  # `tested in finance and weather forecasting applications`
        elif word in _SET_NOUNS and after in _SET_CUES:
            evaluation.append((following.end(), _clause_end(low, following.end(), EVALUATION_SCOPE_WORDS, _LIST_END)))
        elif word.endswith("-free") and len(word) > 5:  # training-free: what the method does without
            while start and low[start - 1] == "/":  # `Hessian/Jacobian-free`: without either
                start = max(low.rfind(" ", 0, start - 1), low.rfind("(", 0, start - 1)) + 1
            negated.append((start, end - 5))
        elif word.startswith("non-") or word.startswith("non") and len(word) > 6 and word[3:] in _NON_WORDS:
            negated.append((start, end))  # non-interactive segmentation
    if " alone" in low:  # (the pattern tries up to four words at every word: only where it can match)
        negated.extend(match.span(1) if match.group(1) else match.span(2) for match in _ALONE_FAILS.finditer(low))
    evaluation.extend(_results_sentences(text, low))
    aside_negated, aside_evaluation = _set_aside(low)  # `X is costly`, `paving the way for X`, `the same Y as X`
    negated.extend(span if span[0] < span[1] else (span[0], _clause_end(low, span[0], SCOPE_WORDS))
                   for span in aside_negated)
    evaluation.extend((start, end) if start < end else (start, _clause_end(low, start, EVALUATION_SCOPE_WORDS, _LIST_END))
                      for start, end in aside_evaluation)
    return negated, evaluation


# what the abstract says falls short on its own: `X alone is insufficient`, `prompting alone fails`
_ALONE_FAILS = re.compile(r"\b((?:[a-z0-9-]+ ){0,3}[a-z0-9-]+) alone (?:is |are |was |were |does |do )?"
                          r"(?:not|insufficient|inadequate|fails?|failed|cannot|can't|struggles?|falls? short|breaks? down)\b"
                          r"|\b(?:with|by|from|using|not) ((?:[a-z0-9-]+ ){0,2}[a-z0-9-]+) alone\b")  # `with prompting alone, LLMs struggle`
_COMPARISON_STOP = re.compile(r" (?:on|in|across|for|by|with|at|over|under|while|and) ")
_EVALUATION_ON_WORD = re.compile(r" (?:on|across|over|using) ")
_TESTING_IN = re.compile(r" (?:on|across|over|using|in) ")
_EVALUATION_STOP = re.compile(r" by | than |,? with |,? while | compared | relative ")
_NON_WORDS = frozenset({"interactive", "linear", "convex", "parametric", "stationary", "negative", "smooth",
                        "autoregressive", "euclidean", "markovian", "differentiable", "iid"})


_PRIOR_WORK = frozenset({"existing", "previous", "prior", "traditional", "conventional"})
_SENTENCE_OPENERS = frozenset("""however but yet moreover furthermore unfortunately in contrast the most many all
these such while although though currently notably nevertheless nonetheless still""".split())
_FULL_STOP = re.compile(r"[.!?](?:\s|$)")
_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)|, (?:while|whereas|but) (?:we|our)\b|, we\b")


def _opens_sentence(text: str, start: int) -> bool:
    """Whether the word at ``start`` opens its sentence, after an adverb at most (`However, most
    existing methods ...`)."""
    before = text[max(0, start - 40):start]
    cut = max(before.rfind(". "), before.rfind("; "))
    if cut < 0 and start > 40:
        return False
    return all(word.rstrip(",") in _SENTENCE_OPENERS for word in before[cut + 1:].split())


def _sentence_end(text: str, start: int) -> int:
    boundary = _SENTENCE_END.search(text, start)
    return boundary.start() if boundary else len(text)


def _clause_end(text: str, start: int, words: int, ends: re.Pattern = _CLAUSE_END) -> int:
    boundary = ends.search(text, start)
    while boundary and _SHORT_PARENTHESIS.match(text, boundary.start()):  # `knowledge tracing (KT) and ...`
        boundary = ends.search(text, text.index(")", boundary.start()) + 1)
    end = boundary.start() if boundary else len(text)
    count, at = 0, start
    while count < words:
        space = text.find(" ", at + 1)
        if space < 0 or space >= end:
            return end
        count += 1
        at = space
    return min(end, at)


@lru_cache(maxsize=1024)  # in_context and salience look for the same spellings in the same abstract
def _occurrences(low: str, surface: str) -> tuple[int, ...]:
    """Where ``surface`` occurs as a whole word in ``low``, the text in lower case (a spelling
    found in one case starts a sentence in another), in text order."""
    needle = _lower(surface)
    places = []
    at = low.find(needle)
    while at >= 0:
        end = at + len(needle)
        if (not at or not low[at - 1].isalnum()) and (end >= len(low) or not low[end].isalnum()):
            places.append(at)
        at = low.find(needle, at + 1)
    return tuple(places)


@lru_cache(maxsize=4)  # _scopes, in_context and salience each read the abstract in lower case
def _lowered(text: str) -> str:
    """``text`` in lower case, ASCII letters only (same length as the text, unlike str.lower on some letters)."""
    return text.translate(_ASCII_LOWER)


@lru_cache(maxsize=65_536)  # the same spellings recur in abstract after abstract
def _lower(surface: str) -> str:
    return surface.translate(_ASCII_LOWER)


_FREE_TEXT, _EVALUATED, _NEGATED = 0, 1, 2
NEGATED = _NEGATED  # (salience counts no mention set aside so)
# a concept named as the kind of a set of tasks or data is what is tested or trained on
# (not a kind of task set against another: `reasoning tasks, whereas ... memorization tasks`)
_TESTBED_WORDS = re.compile(r"\b(?:tasks|benchmarks)\b")
_ONLY_A_TESTBED = re.compile(r"s? (?:tasks|benchmarks)\b")
_RUN_ON = re.compile(r"\b(?:on|in|across|over|for|taking)\b(?:[^,;.:]*)$")
_TASKS_CONTRASTED = re.compile(r"\b(?:whereas|versus|vs\.?|while|unlike|than)\b")


def _only_a_testbed(low: str, start: int, end: int) -> bool:
    if not _ONLY_A_TESTBED.match(low, end) or not _RUN_ON.search(low[max(0, start - 40):start]):
        return False  # (tasks a method is run on, not those it is `integrated into`)
    sentence = low[low.rfind(". ", 0, start) + 1:_sentence_end(low, end)]
    return not (len(_TESTBED_WORDS.findall(sentence)) > 1 and _TASKS_CONTRASTED.search(sentence))


@lru_cache(maxsize=65_536)
def _artifact(name: str) -> bool:
    """A named artifact (a model, a dataset), not a concept: one token with a digit or an inner
    capital after a lower-case letter (`GPT-4`, `ChatGPT`, `ImageNet`, `nuScenes`; not `Pre-Training`)."""
    return " " not in name and (any(c.isdigit() for c in name) or _INNER_CAPITAL.search(name) is not None)


_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")


@lru_cache(maxsize=4)  # salience asks again for the abstract in_context just read
def _scoped(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]], bytes]:
    """(negated spans, evaluation spans, the scope of each character: a negation wins)."""
    negated, evaluation = _scopes(text)
    mask = bytearray(len(text))
    for spans, scope in ((evaluation, _EVALUATED), (negated, _NEGATED)):
        for start, end in spans:
            mask[start:end] = bytes((scope,)) * (end - start)
    return negated, evaluation, bytes(mask)


def scoped_spans(text: str) -> bytes:
    """One byte a character of ``text``: 0 where no cue's scope reaches, else the scope's kind
    (``NEGATED``: set aside by a negation or contrast)."""
    return _scoped(text)[2]


def in_context(text: str, extraction: Extraction) -> Extraction:
    """``extraction`` without the mentions that every occurrence puts in a negated, contrasted
    or evaluation context, nor a named model or dataset named only once, in passing (`we also
    fine-tune LLaMA`, `ImageNet-scale OOD detection is hard`); benchmarks set aside become the
    ``datasets`` property."""
    if not any(m.kind in JUDGED_KINDS and m.surfaces for m in extraction.concepts):
        return extraction
    low = _lowered(text)
    negated, evaluation, mask = _scoped(text)  # (mask: what scope each character is in)
    # a mention none of whose spellings starts inside a scope (one substring test per spelling, its
    # first word, over the scopes' text) stays without a closer look, unless it names an artifact
    scoped = "\x00".join(low[start:end] for start, end in (*negated, *evaluation))
    kept: list[ConceptMention] = []
    datasets: list[str] = []
    # (the words looked for first: the pattern alone, tried at every character, cost 20 µs an abstract)
    testbeds = ("tasks" in low or "benchmarks" in low) and _TESTBED_WORDS.search(low) is not None
    for mention in extraction.concepts:
        if mention.kind not in JUDGED_KINDS or not mention.surfaces:
            kept.append(mention)
            continue
        benchmark = "Benchmarks" in mention.broader
        artifact = benchmark or _artifact(mention.name)  # a dataset, a named model: `ImageNet`, `GPT-4`
        if not (artifact or testbeds or scoped and any(surface.lower().partition(" ")[0] in scoped
                                           for surface in mention.surfaces)):
            kept.append(mention)
            continue
        # evaluation drops what a method is tested on or with (a benchmark, a named model or
        # product: `Stable Diffusion`, `COVID-19`), not the task it is for (`surface parameterization`)
        seen = free = 0
        about = False
        only_evaluated = True
        for surface in mention.surfaces:
            capitals = surface.isupper() and len(surface) > 1  # `MATH` is not the `Math` of `Math-Shepherd`
            for at in _occurrences(low, surface):
                if capitals and not text.startswith(surface, at):
                    continue
                seen += 1
                scope = mask[at]
                if scope == _FREE_TEXT and not artifact and _only_a_testbed(low, at, at + len(surface)):
                    scope = _EVALUATED  # `on code generation tasks`
                if scope == _FREE_TEXT:
                    free += 1
                    about = not artifact  # a named model or dataset counts only named twice
                    if about or free > 1:
                        break
                only_evaluated = only_evaluated and scope == _EVALUATED
            if about or free > 1:
                break
        if not seen or about or free > 1:
            kept.append(mention)
        elif benchmark and only_evaluated and not free:
            datasets.append(mention.name)
    if len(kept) == len(extraction.concepts):
        return extraction
    metadata = dict(extraction.metadata)
    if datasets and "datasets" not in metadata:
        metadata["datasets"] = tuple(datasets)
    return Extraction(tuple(kept), extraction.paper_aliases, frozen_mapping(metadata))
