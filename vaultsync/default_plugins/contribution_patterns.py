"""The sentences that state what a paper contributes (``contribution.py`` reads titles from them)."""

from __future__ import annotations

import re

from .short_phrases import short_phrase
from .titles import _LEADING, NAME_CHARS, NAME_WORDS, _VERBS, _WORDS, _capitalise

# Sentences that state what the paper contributes, most telling first: (pattern over the
# lower-cased text, how the title reads its object). "object": the noun phrase is the title
# (`we propose a framework for X` -> `Framework for X`); "topic": the same, for a paper that
# studies something (`we study the convergence of X` -> `Convergence of X`); "action": the verb
# becomes a gerund (`we rebalance the load across devices` -> `Rebalancing the load across devices`).
_CONTRIBUTION = (
    (re.compile(r" (?:this|our) position paper (?:[a-z]+ ){0,2}?(?:argues|advocates|contends|calls for|posits|claims|critiques|challenges|examines)"
                r"(?: that)? "), "position", ("position paper",)),
    (re.compile(
        rf"(?: (?:we|this paper|this work|this article|this study|here we) (?:[a-z]+,? ){{0,4}}?|(?:,| and) then )"
        rf"(?:{_VERBS}|assembl[a-z]*|provid[a-z]*) (?:\((?:and|or) [a-z]+\) )?(?:here )?(?=(?:a|an|the|two|three|several|new|novel|[a-z][a-z-]*) )"
    ), "object", ()),
    (re.compile(r" (?:in doing so|thereby|in this way),? we obtain (?=an? )"), "object", ("we obtain",)),  # what the adaptation makes
    (re.compile(  # `we extend it to diffusion models` -> `Speculative sampling for diffusion models` (the opening topic)
        r" we (?:further |also |then )?extend (?:it|them|this (?:[a-z-]+ )?(?:technique|method|idea|approach|framework|paradigm)) to "
    ), "extend", ("extend",)),
    (re.compile(  # `we use X to study Y` -> `X for studying Y`
        r" we (?:[a-z]+ly )?(?:use|apply|leverage|employ|exploit|utili[sz]e) (?=(?:a|an|the|[a-z-]+) [^.;]{3,80}? to [a-z]{3,} )"
    ), "use", (" use ", " apply ", " leverage ", " employ ", " exploit ", " utili")),
    (re.compile(
        r" (?:this (?:paper|work|article|study|note)|we) (?:[a-z]+ ){0,1}?((?:address|stud(?:y|ies)|consider|tackle|"
        r"investigate|examine|explore|analy[sz]e|focus(?:es)? on|revisit|characteri[sz]e|formali[sz]e|extend)s?) "
        r"(?!that |whether |why |when |how |what |if |it |this |these |such )"
    ), "topic", ()),
    (re.compile(  # `we conduct the first comprehensive investigation into X` -> `X`
        r" (?:we|this paper|this work|this study) (?:[a-z]+ ){1,3}?(?:an?|the) (?:[a-z-]+ ){0,3}?"
        r"(?:study|analysis|investigation|examination|evaluation|characteri[sz]ation) (?:of|into|on) "
    ), "topic", ("study o", "analysis o", "investigation", "examination", "evaluation o", "characteri")),
    (re.compile(r" we (?:[a-z]+ )?show how to ([a-z]{3,}) (?=(?:a|an|the|[a-z-]+) )"), "how", ("show how to",)),
    (re.compile(
        r" (?:our|the) (?:main |key |core |central )?(?:contribution|idea|foundation|focus) "
        r"(?:of (?:our|this) (?:work|paper|approach) )?is "
    ), "object", ("contribution", " idea ", "foundation", "focus")),
    (re.compile(
        r" we (?:also |further |then |first |here |[a-z]{3,}ly )?([a-z]{3,}[^sy ,.]|[a-z]{3,}y) (?=(?:a|an|the|[a-z]+) )"
        r"(?!that |whether |why |when |how |what |if |it |this |these |such |them |to |on |in |with |for )"
    ), "action", ()),
    (re.compile(  # (last: any sentence that states more wins) `we fill this gap by rigorously analyzing X` -> `X`
        r" by (?:[a-z]+ly )?(?:analy[sz]ing|studying|investigating|characteri[sz]ing|examining) (?!that |whether |why |how |what |it |this |these |such )"
    ), "topic", (" by ",)),
    (re.compile(  # `we test this by applying SAEs to the task of activation probing` -> `SAEs for activation probing`
        r" by (?:applying|using|employing) (?=[^.;,]{3,60}? to (?:the )?(?:[a-z-]+ )?(?:tasks?|problems?) of )"
    ), "applied", ("applying", "using", "employing")),
    (re.compile(  # `we show that a strategy for X enhances Y` -> `Strategy for X`; `we show that X can achieve Y` -> `X achieving Y`
        r" we (?:[a-z]+ly )?(?:and [a-z]+ly )?(?:show|prove|demonstrate|find) that (?=(?:a|an|the|[a-z-]+) )"
    ), "claim", ("that ",)),
)

# a sentence about a step towards the contribution or the setting it starts from
_STEP = re.compile(r"to (?:derive|prove|obtain|compute|illustrate|gain insight into) [^,;]{3,120}, we |"
                   r"[^;]*? we first (?:consider|assume|review|recall|revisit|fix)\b")
_IMPROVED_BY = re.compile(r"(?:improving|enhancing|boosting|strengthening|augmenting) (?:the )?((?:[\w-]+ ){0,3}?[\w-]+)"
                          r"(?: (?:for|in|on) [^,;]{3,60}?)? by (?:[a-z]+ly )?([a-z]{3,}ing [^,;]{5,})")
# what a made thing rests on, set off by commas after its head (`a framework, based on the condition number of a
# Hessian, to analyze X`): the head and what it is for make the title
_ASIDE = re.compile(r"^((?:a|an) (?:[\w-]+ ){0,2}?[a-z]+), (?:based on|built on|grounded in|rooted in|inspired by) "
                    r"[^,;]{3,80}, (?=(?:to|for|that|which) )")


def _achieved(base: str, rest: str) -> str:
    """What a claim's subject is shown to achieve (`deep networks can achieve | dimension-independent
    rates of convergence for ...`), where the subject doing it makes no title (never the subject
    alone: `Deep neural networks`), else ``""``."""
    if base not in ("achieve", "attain", "obtain", "enjoy", "reach"):
        return ""
    title = short_phrase(re.sub(r"^ (?:the |an? )?", "", rest))
    return _capitalise(title) if len(title.split()) >= 3 and not title.split()[0].casefold() in _WORDS["refers_back"] else ""


# a light verb and what it yields, then how (`performing interpretable predictions through the sparsification of
# images`): how is what the paper contributes
_THROUGH = re.compile(r"(?:performing|making|producing|achieving|obtaining|yielding|delivering) [^,;]{3,60}? "
                      r"(?:through|via|by means of) (?:the |an? )?([a-z][^,;]{5,})")


def _by_means(phrase: str) -> str:
    """How a method does what it does, where that says more than what it does (see ``_IMPROVED_BY``
    and ``_THROUGH``), else ``phrase``."""
    means = _IMPROVED_BY.match(phrase)
    if means:
        return f"{means.group(2)} for {means.group(1)}"
    through = _THROUGH.match(phrase)
    return through.group(1) if through and not through.group(1).startswith(("which", "that", "its", "their")) else phrase


# a setting named by a compound adjective, which sets the paper apart from the field it names
_QUALIFIED = re.compile(r"((?:[\w-]+ ){1,6}?)under (?:the |a )?([a-z]+-[a-z]+) (?:scenarios?|settings?|regimes?|conditions?|environments?)\b")
# the kind of thing made and what it is for, when its premodifiers make no title
_KIND_FOR = re.compile(r"\b(algorithms?|methods?|frameworks?|approach(?:es)?|estimators?|schemes?|procedures?) for "
                       r"(?:solving |tackling |addressing )?(?:the )?([^,;]{5,})")
# a made thing's head, then what it does (`Method modeling X`): read as a fragment unless joined by `for`
_HEAD_DOING = re.compile(r"^((?:[\w-]+ ){0,3}?(?:method|algorithm|approach|framework|architecture|technique|procedure|scheme|"
                         r"strategy|pipeline|mechanism|estimator|protocol)s?) ([a-z]{3,}ing) (?=\S)",
                         re.IGNORECASE)
# what a thing is made of or built on, not what it is for (`Framework comprising X`, `Method using X`)
_MADE_OF = frozenset("comprising containing consisting including featuring involving incorporating integrating using "
                     "leveraging exploiting employing utilizing having requiring relying".split())


def _head_for_doing(title: str) -> str:
    """`Method modeling dynamic graphs` -> `Method for modeling dynamic graphs`: a noun phrase, not a
    fragment, where that still fits a title."""
    match = _HEAD_DOING.match(title)
    doing = match.group(2).casefold() if match else ""
    if not match or doing in _WORDS["nominal_ing"] or doing in _MADE_OF:
        return title
    joined = f"{match.group(1)} for {match.group(2)} {title[match.end():]}"
    if len(joined) > NAME_CHARS or len(joined.split()) > NAME_WORDS:  # `... draft plan | until equilibrium`
        cut = short_phrase(joined)
        joined = cut if re.match(r" (?:until|within|with|in|on|under|across|via|from|at|over) ", joined[len(cut):]) else ""
    return joined if " for " in joined and len(joined.split()) >= len(match.group(1).split()) + 3 else title
# an object that points back, then the setting it is studied in: the setting names the paper
_IN_CONTEXT = re.compile(r"^[^,;]{0,60}?\b(?:this|these|such) [^,;]{0,40}? in the (?:context|setting) of (?:the )?([^,;]{8,})")
# what the authors say they could not do names nothing they made
_NEGATED = re.compile(r" (?:unable to|not able to|fail(?:ed)? to|cannot|can not|do not|did not|never) ")
# the lens a study adopts (`requires a *scaling lens*, which we adopt in a study of X`)
_LENS = re.compile(r"\b(?:a|an|the) [*_]{0,2}([A-Za-z-]{4,})[*_]{0,2} lens\b(?! of)")


def _through_lens(title: str, sentence: str) -> str:
    """`Language model robustness` of a sentence that adopts `a scaling lens` -> `Language model
    robustness through a scaling lens`: the lens is what the paper brings to its topic."""
    title = re.sub(r" through ([a-z-]+) lens$", r" through a \1 lens", title)
    lens = _LENS.search(sentence)
    joined = f"{title} through a {lens.group(1).casefold()} lens" if lens and " lens" not in title else title
    return joined if len(joined) <= NAME_CHARS and len(joined.split()) <= NAME_WORDS else title


def _applied_title(phrase: str) -> str:
    """`SAEs to the real-world task of LLM activation probing in four regimes` (after `by applying`)
    -> `SAEs for LLM activation probing`, or ``""``."""
    tool, _, task = phrase.partition(" to ")
    task = re.sub(r"^(?:the )?(?:[a-z-]+ )?(?:tasks?|problems?) of ", "", task)
    task = re.split(r" (?:in|across|on|under) (?:two|three|four|five|six|several|many|various|multiple|\d+) ", task, maxsplit=1)[0]
    title = short_phrase(f"{_LEADING.sub('', tool)} for {task}")
    return _capitalise(title) if " for " in title else ""
