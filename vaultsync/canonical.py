"""One key per concept however it is spelled, and the Title Case the field writes names in.

``concept_key`` folds case, hyphens and Unicode dashes, British/American spelling and plurals,
so `LLMs`-style variants of a long form meet: `Mixture-of-Experts`, `mixture of experts` and
`Mixtures of Experts` share a key. It is a matching key only, never shown to a user.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_DASHES = re.compile(r"[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uFE58\uFE63\uFF0D_/-]+")
_NON_WORD = re.compile(r"[^\w+#.' ]+")
_SPACES = re.compile(r"\s+")
# In ASCII text the two patterns above come down to one character map: dashes, underscores,
# slashes and every other character that is no letter, digit or one of + # . ' part words.
# (Every character is in the map: a character missing from it costs a KeyError inside translate.)
_ASCII_SEPARATORS = str.maketrans({c: c if c.isalnum() or c in "+#.'" else " " for c in map(chr, range(128))})

# British -> American, for words the field spells both ways.
_SPELLING = {
    "optimisation": "optimization", "optimise": "optimize", "optimiser": "optimizer",
    "optimised": "optimized", "regularisation": "regularization", "normalisation": "normalization",
    "generalisation": "generalization", "generalise": "generalize", "tokenisation": "tokenization",
    "tokeniser": "tokenizer", "quantisation": "quantization", "visualisation": "visualization",
    "summarisation": "summarization", "characterisation": "characterization",
    "parameterisation": "parameterization", "parametrisation": "parametrization",
    "discretisation": "discretization", "vectorisation": "vectorization",
    "localisation": "localization", "categorisation": "categorization", "personalisation": "personalization",
    "organisation": "organization", "recognise": "recognize", "recognition": "recognition",
    "modelling": "modeling", "labelling": "labeling", "labelled": "labeled", "travelling": "traveling",
    "behaviour": "behavior", "behavioural": "behavioral", "neighbour": "neighbor",
    "neighbourhood": "neighborhood", "centre": "center", "colour": "color", "analyse": "analyze",
    "favour": "favor", "harmonisation": "harmonization", "randomisation": "randomization",
    "synthesise": "synthesize", "utilisation": "utilization", "stabilisation": "stabilization",
    "minimisation": "minimization", "maximisation": "maximization", "initialisation": "initialization",
    "factorisation": "factorization", "memorisation": "memorization", "anonymisation": "anonymization",
    "defence": "defense", "licence": "license", "programme": "program", "grey": "gray",
}

_NO_SINGULAR = {
    "analysis", "basis", "axis", "bias", "gas", "lens", "loss", "less", "class", "process", "bus",
    "thesis", "hypothesis", "synthesis", "diagnosis", "series", "species", "physics", "mathematics",
    "statistics", "robotics", "dynamics", "kinetics", "genomics", "economics", "linguistics",
    "semantics", "ethics", "news", "this", "its", "is", "was", "has", "does", "status", "corpus",
    "consensus", "focus", "radius", "virus", "calculus", "stimulus", "locus", "bonus", "plus",
    "minus", "chaos", "cos", "los", "as", "us", "yes", "gauss", "lasso", "atlas", "canvas",
    "alias", "metropolis", "fairness", "robustness", "awareness", "sparseness", "openness",
    "politics", "graphics", "optics", "acoustics", "electronics", "diffusers", "kernels",
    "mechanics", "pharmacokinetics", "proteomics", "metabolomics", "transcriptomics", "analytics",
    "logistics", "heuristics", "informatics", "phonetics", "forensics", "aesthetics", "genetics",
    "ness", "cross", "gross", "boss", "moss", "glass", "mass", "pass", "miss", "kiss", "stress",
}
_IRREGULAR = {
    "indices": "index", "matrices": "matrix", "vertices": "vertex", "data": "data",
    "criteria": "criterion", "phenomena": "phenomenon", "hypotheses": "hypothesis",
    "analyses": "analysis", "bases": "basis", "axes": "axis", "theses": "thesis",
    "syntheses": "synthesis", "diagnoses": "diagnosis", "children": "child", "people": "person",
    "men": "man", "women": "woman", "mice": "mouse", "feet": "foot", "teeth": "tooth",
    "lemmata": "lemma", "schemata": "schema", "corpora": "corpus", "foci": "focus",
    "radii": "radius", "stimuli": "stimulus", "loci": "locus", "optima": "optimum",
    "maxima": "maximum", "minima": "minimum", "spectra": "spectrum", "quanta": "quantum",
    "media": "medium", "curricula": "curriculum", "strata": "stratum", "automata": "automaton",
    "biases": "bias", "losses": "loss", "classes": "class", "processes": "process",
    "lenses": "lens", "gases": "gas", "aliases": "alias", "buses": "bus",
    "caches": "cache", "niches": "niche", "headaches": "headache", "avalanches": "avalanche",
    "cliches": "cliche", "moustaches": "moustache", "psyches": "psyche",
}


# The plural of an irregular singular, for spelling variants: `index` -> `indices`.
IRREGULAR_PLURALS = {one: many for many, one in _IRREGULAR.items() if one != many}


@lru_cache(maxsize=65_536)  # called per word of every key, tag and acronym: most words recur
def singular(word: str) -> str:
    """The singular of one lower-case English word, by rule (good enough for a matching key)."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or word in _NO_SINGULAR or not word.isalpha():
        return word
    if word.endswith("ss") or word.endswith("us") or word.endswith("is") or word.endswith("ness"):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("'s"):
        return word[:-1]
    return word


@lru_cache(maxsize=200_000)
def concept_key(text: str) -> str:
    """The matching key of a concept name: `Mixture-of-Experts` -> `mixture of expert`."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("\u2019", "'")
    if text.isascii():  # the usual case: one map instead of three regex passes (a new key in a third of the time)
        text = text.translate(_ASCII_SEPARATORS)
    else:
        text = _SPACES.sub(" ", _NON_WORD.sub(" ", _DASHES.sub(" ", text)))
    words = []
    for word in text.split():  # (the strip below leaves nothing of a word made of dots and quotes)
        word = word.strip(".'")
        if word.endswith("'s"):
            word = word[:-2]
        if not word:
            continue
        word = _SPELLING.get(word, word)
        words.append(singular(word))
    return " ".join(words)


_SMALL_WORDS = {
    "a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "nor", "of", "on",
    "or", "over", "per", "the", "to", "via", "vs", "with", "without", "under", "through",
}


def _has_upper(text: str) -> bool:
    return any(map(str.isupper, text))  # (map: no generator frame per character)


def _title_word(word: str, first: bool) -> str:
    if not word:
        return word
    if _has_upper(word[1:]) or any(map(str.isdigit, word)):
        return word  # KV, BERT, GPT-4, t-SNE, 3D: the field's own spelling
    if not first and word.lower() in _SMALL_WORDS:
        return word.lower()
    return word[0].upper() + word[1:]


@lru_cache(maxsize=65_536)  # cluster names are asked for again and again while linking
def title_case(text: str) -> str:
    """Title Case as the field writes names: `graph neural networks` -> `Graph Neural Networks`,
    keeping words that already carry inner capitals or digits (`KV`, `GPT-4`, `t-SNE`)."""
    out = []
    for index, word in enumerate(text.split()):
        parts = word.split("-")
        if len(parts) > 1 and any(_has_upper(part[1:]) for part in parts):
            out.append(word)  # t-SNE, Omni-MLLMs: already as the field writes it
            continue
        word = "-".join(_title_word(part, index == 0 and j == 0) for j, part in enumerate(parts))
        out.append(word)
    return " ".join(out)
