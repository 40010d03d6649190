"""Is a phrase generic scientific phrasing rather than a concept worth a note?

Two tests, cheapest first: a stop-phrase list of how abstracts talk about themselves
("extensive experiments", "this paper", "downstream tasks"), generalised by a vocabulary of
generic modifiers and generic nouns (a phrase made only of those is generic: "superior results",
"comprehensive evaluation"); then how common the words are in general English (``wordfreq``):
a single common word, or a phrase whose every word is very common ("real world", "same time"),
is generic unless it is a known technical term. wordfreq is imported on first use only, since
loading its tables costs start-up time, and every answer is cached.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .canonical import concept_key

__all__ = ["is_generic", "names_a_thing", "word_commonness", "GENERIC_PHRASES"]

# A single word at least this common in general English (Zipf scale) is never a concept alone.
SINGLE_WORD_ZIPF = 4.0
# A phrase whose every word is at least this common is everyday English ("real world").
PHRASE_WORD_ZIPF = 5.3

# Whole phrases that abstracts use about themselves; matched by concept key (plural/case/hyphen-folded).
def _generic_key(text: str) -> str:
    # Hyphenated stock phrases fold to one word so they can act as a single generic modifier.
    key = concept_key(text)
    for stock, word in _STOCK:
        if stock in key:
            key = key.replace(stock, word)
    return key


_STOCK = (("state of the art", "sota"), ("real world", "realworld"), ("in depth", "indepth"),
          ("open source", "opensource"), ("well known", "wellknown"), ("large scale", "largescale"))

GENERIC_PHRASES = frozenset(_generic_key(p) for p in """
extensive experiments|extensive experimental results|experimental results|empirical results
state-of-the-art|state of the art performance|state-of-the-art methods|state-of-the-art results
real-world|real world applications|real-world data|real-world datasets|real-world scenarios
real-world settings|real-world tasks|this paper|this work|this study|this article|our method
our approach|our framework|our model|our results|our work|the paper|the proposed method
proposed method|proposed approach|proposed framework|proposed model|proposed algorithm
significant improvements|significant gains|substantial improvements|consistent improvements
competitive performance|superior performance|strong performance|remarkable performance
impressive performance|better performance|best performance|high performance
theoretical insights|theoretical analysis|theoretical guarantees|theoretical results
downstream tasks|downstream applications|downstream performance|future work|future research
future directions|key challenge|key challenges|key insight|key idea|main challenge
promising results|promising direction|promising performance|wide range|broad range
wide variety|large margin|recent years|recent advances|recent progress|recent work
recent studies|prior work|previous work|previous methods|existing methods|existing approaches
baseline methods|strong baselines|ablation studies|ablation study|open source|open-source
source code|code is available|publicly available|benchmark datasets|benchmark results
case study|case studies|numerical experiments|numerical results|simulation results
empirical evaluation|empirical study|empirical evidence|experimental evaluation
comprehensive evaluation|comprehensive experiments|systematic study|in-depth analysis
long term|short term|high quality|low cost|trade-off|first time|same time|other hand
paper presents|important role|crucial role|key role|great potential|large number
small number|wide adoption|growing interest|increasing attention|significant attention
practical applications|various applications|many applications|new approach|new method
novel approach|novel method|novel framework|simple yet effective|effective method
efficient method|general framework|unified framework|main contributions|contributions
computational efficiency|computational cost|computational overhead|performance degradation
performance gap|performance drop|project page|project website|code and data|plug-and-play
trainable parameters|model parameters|training data|training set|test set|test time|inference time
""".replace("\n", "|").split("|") if p.strip())

# Words that only grade or point at a result; a phrase built from these and GENERIC_NOUNS alone
# says nothing about its subject.
GENERIC_MODIFIERS = frozenset("""
extensive comprehensive significant substantial considerable consistent competitive superior
strong stronger remarkable impressive promising better best good great excellent high higher
low lower novel new proposed existing previous prior recent current various different several
numerous many multiple diverse wide broad large small key main major important crucial critical
essential fundamental central primary theoretical empirical experimental numerical practical
realworld sota indepth opensource wellknown largescale effective efficient simple robust general unified
principled systematic rigorous detailed thorough in-depth overall further additional potential
future downstream open public publicly available widespread growing increasing notable
significantly substantially consistently our this that these those such whole entire same
first second third last final initial original standard traditional conventional typical
popular common specific particular certain given other various several challenging difficult
""".split())
GENERIC_NOUNS = frozenset("""
experiment experiments result results performance improvement improvements gain gains insight
insights analysis analyses evaluation evaluations study studies work works paper article task
tasks challenge challenges problem problems issue issues approach approaches method methods
methodology framework frameworks model models technique techniques algorithm algorithms
solution solutions accuracy efficiency effectiveness robustness scalability advantage
advantages benefit benefits direction directions application applications setting settings
scenario scenarios baseline baselines benchmark benchmarks dataset datasets data outcome
outcomes finding findings contribution contributions idea ideas way ways range variety number
role impact effect effects quality cost costs margin margins time times year years advance
advances progress attention interest potential evidence guarantee guarantees property
properties case cases example examples alternative alternatives aspect aspects limitation
limitations capability capabilities implementation implementations experiment evaluation
strategy strategies system systems process processes procedure scheme schemes design designs
component components module modules version versions variant variants level levels
""".split())

# Everyday-word phrases that are nevertheless established technical terms.
KNOWN_TECHNICAL = frozenset(_generic_key(p) for p in """
language model|large language model|machine learning|deep learning|neural network
time series|social network|computer vision|natural language|speech recognition|power system
control system|information retrieval|game theory|search engine|state space|real time
decision tree|random forest|random walk|world model|data mining|data set|cross validation
""".replace("\n", "|").split("|") if p.strip())

FUNCTION_WORDS = frozenset("""
a an the of in on for to with by from at as and or via into over under between among this
that these those our its their we it is are be
""".split())

_NUMBER = re.compile(r"^[~≈<>±+\-]?\d[\d.,]*\s*(?:%|x|×|k|m|b|bn|pp|points?|percent)?$", re.IGNORECASE)
_SPLIT = re.compile(r"[\s\-\u2010-\u2015]+")


@lru_cache(maxsize=100_000)
def word_commonness(word: str) -> float:
    """How common ``word`` is in general English, on wordfreq's Zipf scale (0 = unseen, 7+ = "the")."""
    from wordfreq import zipf_frequency  # lazy: loading the tables costs start-up time

    return zipf_frequency(word, "en")


def _is_acronym(word: str) -> bool:
    # KV, LLMs, GPT-4, t-SNE: the field's own coinages are never everyday English.
    return sum(map(str.isupper, word)) >= 2 or any(map(str.isdigit, word))


def _holds_acronym(text: str) -> bool:
    """Whether a word of ``text`` (split as ``_SPLIT`` does) is an acronym; for ASCII text (most
    phrases) in one regex pass, without a Python step per word."""
    if text.isascii():
        return _ASCII_ACRONYM.search(text) is not None
    return any(_is_acronym(w) for w in _SPLIT.split(text) if w)


# `_is_acronym` of some word, in ASCII: a digit, or two capitals with no separator between them
_ASCII_ACRONYM = re.compile(r"[0-9]|[A-Z][^\s\-]*[A-Z]")


@lru_cache(maxsize=200_000)
def is_generic(phrase: str) -> bool:
    """True when ``phrase`` is generic scientific phrasing or everyday English, not a concept.

    Bare numbers and percentages, a single common word ("performance", "model"), the stop
    phrases above ("extensive experiments"), phrases made only of generic modifiers and nouns
    ("superior results"), and phrases of very common words ("real world") are generic;
    "graph neural networks", "mendelian randomization" and "kv cache" are not.
    """
    text = phrase.strip()
    if not text or _NUMBER.match(text):
        return True
    key = _generic_key(text)
    if not key or key in GENERIC_PHRASES:
        return True
    if key in KNOWN_TECHNICAL:
        return False
    if _holds_acronym(text):
        return False
    words = [w for w in key.split() if w not in FUNCTION_WORDS]
    if not words:
        return True
    if all(w in GENERIC_MODIFIERS or w in GENERIC_NOUNS or _NUMBER.match(w) for w in words):
        return True
    if len(words) == 1:
        word = words[0]
        return word.isdigit() or word_commonness(word) >= SINGLE_WORD_ZIPF
    return all(word_commonness(w) >= PHRASE_WORD_ZIPF for w in words)


# Termhood: what a phrase's head noun says it is. A concept names a thing (a method, a model, an
# object of study); these heads name a measurement or quantity, a place in a sequence, or the
# talk of papers about themselves, whatever modifies them ("Attack Success Rate", "Sample Size",
# "Last Token", "Valuable Insights").
MEASURE_HEADS = frozenset("""
size sizes rate rates ratio ratios number numbers amount amounts count counts percentage percentages
point points accuracy accuracies performance performances cost costs time times speed speeds usage
consumption efficiency quality level levels scale scales degree degrees score scores value values
error errors loss losses gap gaps gain gains overhead overheads latency throughput budget budgets
bound bounds rate complexity complexities length lengths demand demands resource resources
""".split())
ABSTRACT_HEADS = frozenset("""
insight insights knowledge understanding property properties characterization characterizations
foundation foundations condition conditions assumption assumptions question questions answer answers
idea ideas role roles impact impacts challenge challenges behavior behaviors behaviour capability
capabilities ability abilities nature perspective perspectives paradigm paradigms approach approaches
method methods algorithm algorithms model models solution solutions system systems technique techniques
task tasks data dataset datasets domain domains scenario scenarios environment environments setting
settings stage stages step steps process processes pattern patterns information output outputs input
inputs sample samples instance instances component components innovation innovations research
community expert experts expertise work works paper papers literature evidence observation
observations result results finding findings validation evaluation evaluations analysis analyses
study studies experiment experiments case cases example examples version versions variant variants
way ways direction directions aspect aspects issue issues problem problems limitation limitations
advantage advantages benefit benefits effect effects factor factors feature features structure
structures relation relations relationship relationships class classes type types form forms
family families set sets group groups part parts kind kinds manner context contexts region regions training learning integration shift shifts
""".split())
# A modifier that grades, counts or places rather than names ("Exceptional", "Final", "Two").
GRADING_MODIFIERS = GENERIC_MODIFIERS | frozenset("""
exceptional optimal valuable mild pivotal total comparable degraded suboptimal meaningful deeper
satisfactory outstanding tight tighter sufficient broader minimal similar single multiple two three
four five six ten few more less most least extra faster slower better worse improved limited
significant massive huge tiny vast complex simple entire whole full partial early late last next
previous final initial prior proper reliable accurate precise exact approximate fine coarse modern
classical classic learnable scalable realworld real-world trainable novel
""".split())
# modifiers that name only the generic unit a head belongs to (embeddings of samples, features of inputs)
_WHOSE = frozenset("sample instance example input output item datapoint".split())
TECHNICAL_ZIPF = 3.0  # a word this rare in general English is a field's own ("wasserstein", "covariance")


@lru_cache(maxsize=100_000)
def names_a_thing(phrase: str) -> bool:
    """Termhood: does ``phrase`` (a candidate concept of two words or more, found by corpus
    statistics alone) name a thing a researcher would file papers under?

    No when its head noun names a measurement or quantity (``Attack Success Rate``), talk about
    research (``Valuable Insights``) or a generic abstraction (``Data Distribution``); when a
    modifier grades, counts or places (``Exceptional Performance``, ``Last Token``); when it opens
    with a verb form (``Drawing Inspiration``, ``Trained Models``); when it cites (``Zhao et``);
    and when no word is the field's own (rare in general English, or an acronym): ``Global
    Context``, ``Reward Function``. Yes for ``Covariance Matrix``, ``Wasserstein Barycenter``.
    """
    if is_generic(phrase):
        return False
    words = [w for w in _SPLIT.split(phrase.strip()) if w]
    key_words = [w for w in concept_key(phrase).split() if w not in FUNCTION_WORDS]
    if len(words) < 2 or not key_words or "et" in key_words:
        return False
    head = key_words[-1]
    if head in MEASURE_HEADS or head in ABSTRACT_HEADS or head + "s" in ABSTRACT_HEADS \
            or head.endswith(("ity", "ness", "ability")):
        return False  # a measure, talk about research, or a property (`Biological Plausibility`)
    first = words[0].casefold()
    if first.endswith(("ed", "ing")) and not _is_acronym(words[0]) and first not in _NOMINAL_ING:
        return False
    if any(w in GRADING_MODIFIERS for w in key_words[:-1]):
        return False
    if all(w in _WHOSE for w in key_words[:-1]):
        return False  # says whose the head is, not what: `Sample Embeddings`, `Input Features`
    return any(_is_acronym(w) or word_commonness(w.casefold()) < TECHNICAL_ZIPF for w in words)


# -ing words that name a field or technique, not an action ("Contrastive Learning" heads are fine
# anyway; these may open a term: "Learning Rate" is a measure, "Sampling Bias" is not)
_NOMINAL_ING = frozenset("learning sampling matching embedding clustering reasoning planning hashing".split())
