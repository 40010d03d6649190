"""Descriptive titles for papers that name nothing, from the sentence stating the contribution:
``we propose a framework that exploits X`` -> ``Framework exploiting X``; ``we study the
convergence of X`` -> ``Convergence of X``; ``we use X to study Y`` -> ``X for studying Y``."""

from __future__ import annotations

import re

from .contribution_patterns import (_CONTRIBUTION, _by_means, _IN_CONTEXT, _KIND_FOR, _NEGATED, _QUALIFIED,
                                   _ASIDE, _STEP, _achieved, _applied_title, _head_for_doing, _through_lens)
from .short_phrases import (_INNER_ARTICLE, _MODALS, _PREPOSITION, _core, _strip_modifier_end, short_phrase)
from .topics import opening_topic
from .verb_forms import _PLURAL_RELATIVE, _as_gerund, _gerund, _gerund_of_base, _plural_as_gerund, _third_person
from .titles import (_LEADING, _LOOSE_ENDS, _NOT_A_TITLE_START, _VERBS, _WORDS, NAME_CHARS, NAME_WORDS, _capitalise,
                     _cut_at_word, _sentence, _strip_loose_end, _technical, clean_phrase, gist_of)


_RELATIVE_VERB = re.compile(r",? (?:that|which) (?:[a-z]{3,}ly )?([a-z]{2,}[a-z]s)\b(?: and ([a-z]{2,}[a-z]s)\b)?")
_REFERS_BACK = _WORDS["refers_back"]
_GENERIC_TITLE_WORDS = _WORDS["generic_title_words"]


_FILLER_OF = re.compile(
    r"\b(?:the |a )?(?:problems?|task|setting|case|question|challenge|issue|class|family|notion|strengths|benefits|"
    r"advantages|best|variety|wide variety|range|wide range|host|plethora|myriad) of (?:the )?",
    re.IGNORECASE)
_GENERIC_HEAD = re.compile(
    r"^(?:(?:theoretical|analysis|learning|unified|general|new|novel|simple|efficient|effective|rigorous) )?"
    r"(?:framework|method|approach|algorithm|technique|procedure|model|system|theory|paradigm|strategy|scheme|"
    r"pipeline|mechanism|tool|way|solution)s? (?:(?:to|that|which) )?(?=[a-z]+)", re.IGNORECASE)


def _title_from(phrase: str, reads: str, verb: str, at_word: bool = False) -> str:
    """A short descriptive title from the words after a contribution verb, or ``""``; ``at_word``:
    cut at a word when no phrase boundary leaves it short enough."""
    if reads == "position":  # ICML's convention: `Position: graph learning will lose relevance`
        claim = _cut_at_word(_core(phrase.split("…")[0]), 10, 70)
        return f"Position: {_capitalise(_strip_loose_end(claim))}" if len(claim.split()) >= 3 else ""
    if reads == "use":
        made = _MADE.search(phrase)  # `we exploit X to introduce a framework for Y` -> what it introduces
        return _title_from(phrase[made.end():], "object", "") if made else _tool_for(phrase)
    both = _AND_MADE.search(phrase) if reads == "topic" else None
    if both:  # `we study X and present algorithms that find Y` -> `Algorithms for X`
        made = re.split(r",? (?:that|which|where|to) ", _LEADING.sub("", phrase[both.end():]), maxsplit=1)[0]
        made = _capitalise(made) if _HEAD_ONLY.fullmatch(made.casefold()) else _title_from(phrase[both.end():], "object", "")
        studied = _title_from(phrase[:both.start()], reads, verb)
        return _head_for(made, studied) if made and studied else studied
    used = phrase.split(" ", 1)
    if used[0].removesuffix("ing") + "e" in _USE_VERBS or used[0] in ("using", "applying", "employing", "utilizing"):
        return _tool_for(used[1]) if len(used) == 2 else ""  # `we propose using X to Y`: never `Using X`
    if reads == "topic" and verb.startswith("extend"):  # `we extend X to dynamic settings` -> `X for ...`
        phrase = phrase.replace(" to ", " for ", 1)
    phrase = _ASIDE.sub(r"\1 ", re.split(r",? in (?:a|such a) (?:way|manner)\b", phrase, maxsplit=1)[0])  # (how, not what)
    context = _IN_CONTEXT.search(phrase)  # `foundations for this phenomenon in the context of Q-learners` -> `Q-learners`
    phrase = context.group(1) if context else phrase
    if reads == "claim":
        return _claimed(phrase)
    if reads == "applied":
        return _applied_title(phrase)
    if reads == "how" and verb in _USE_VERBS:
        return ""
    if reads == "how":  # `we show how to design X` -> `Designing X`
        phrase = f"{_gerund_of_base(verb)} {phrase}"
    elif reads == "action":
        if verb in _NOT_ACTIONS or verb.endswith(("ly", "ed")):
            return ""
        phrase = f"{_gerund_of_base(verb)} {phrase}"
    else:
        phrase = _reshaped(_LEADING.sub("", phrase))
    phrase = _ADVERBS_TO.sub(" to ", _MANNER.sub("", phrase))  # `for approximately solving X` -> `for solving X`: what, not how
    named = _NAMED_AFTER.match(phrase)  # `a more nuanced problem — robust policy learning under X` -> what it names
    phrase = named.group(1) if named else phrase
    phrase = _FILLER_OF.sub("", phrase) if " of " in phrase else phrase
    tool = _GENERIC_WITH_TOOL.match(phrase) if reads == "object" else None
    if tool and _tool_for(_ADVERBS_TO.sub(" to ", phrase[tool.end():])):  # `a method that leverages X to estimate Y`
        return _tool_for(_ADVERBS_TO.sub(" to ", phrase[tool.end():]))  # -> `X for estimating Y`
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
            study = first.rstrip("s") in _STUDY_VERBS and len(rest_words) == 2  # `a framework to study X` -> `X`
            verb = "" if study else _gerund_of_base(first) if generic.group(0).rstrip().endswith(("to", "can")) or first not in \
                _NOT_ACTIONS and not first.endswith("s") else _gerund(first) if first.endswith("s") else first
            phrase = f"{verb} {rest_words[1] if len(rest_words) == 2 else ''}".lstrip()
    qualified = _QUALIFIED.match(phrase)  # `robust learning under cost-sensitive scenarios` -> `cost-sensitive robust learning`
    phrase = f"{qualified.group(2)} {qualified.group(1)}{phrase[qualified.end():]}" if qualified else phrase
    phrase = _by_means(phrase)  # `enhancing X by averaging Z` -> `averaging Z for X`; `performing X through Y` -> `Y`
    words = phrase.split()
    if not words or words[0].casefold() in _NOT_A_TITLE_START:
        return ""
    title = short_phrase(phrase)
    kind = _KIND_FOR.search(_core(phrase)) if not title and reads == "object" else None
    before = phrase[:kind.start()] if kind else ""
    if kind and (re.search(r"\w- (?:and|or) ", before) or len(before.split()) >= 6) and not re.search(r"'s | of ", before):  # `a provably secure sample- and communication-efficient ... algorithm for solving X` -> `Algorithm for X`
        title = short_phrase(f"{kind.group(1)} for {kind.group(2)}")
    head = re.search(r"(?:framework|method|approach|algorithm|technique|procedure|model|system|strategy|scheme|pipeline)s?",
                     generic.group(0)) if generic and phrase.split(" ", 1)[0].endswith("ing") else None
    if head and title and len(title.split()) <= 3:  # `Recovering underlying graph` alone reads as a fragment
        joined = f"{head.group(0)} {'for ' if generic.group(0).rstrip().endswith('to') else ''}{title}"
        title = joined if len(joined) <= NAME_CHARS else title
    if not title and at_word:
        cut = _strip_modifier_end(_cut_at_word(_core(phrase.split("…")[0]), NAME_WORDS, NAME_CHARS))
        following = phrase[len(cut):].split(maxsplit=1)
        if following and not _BOUNDARY.match(following[0]):
            return ""  # (a cut inside a noun phrase: `a framework for deep | networks`)
        title = _INNER_ARTICLE.sub(" ", cut)
    elif title and len(title) < len(_core(phrase)) and not _PREPOSITION.search(title) and " of " not in title and not qualified:
        title = _with_complement(phrase, title)  # `Sandbox suite` -> `Sandbox suite for data-model co-development`
    kept = [w.strip(",.;:").casefold() for w in title.split()]
    if _EMPTY_PURPOSE.search(title.casefold()):
        return ""  # `Benchmark to lay groundwork for analysis`: a motivation, not what it is
    if len(kept) < 2 or _REFERS_BACK.intersection(kept) or all(w in _GENERIC_TITLE_WORDS for w in kept) \
            or _vague(title.split()) or any(_GLUED.search(w) for w in kept) \
            or not (_technical(title.split()) or len(kept) >= 3 and sum(w not in _GENERIC_TITLE_WORDS for w in kept) >= 2):
        return ""
    head, _, last = title.rpartition(" and ")  # `adversarial bandits and bandits (with X)`: a conjunct cut from its modifier
    title = head if head and " " not in last and last in head.split() else title
    return _capitalise(_plain_head(_head_for_doing(title)))


_UNDERSTANDING = re.compile(r"^(?:[a-z]+ )?understanding of (?:the )?(?=\S+ \S)", re.IGNORECASE)
_EMPTY_HEAD = re.compile(r"(?<=[a-z]{3}(?:ing|ion|ics)) (?:problems?|setups?|settings?)(?=$| (?:with|under|in|on|for|over)\b)")


def _plain_head(title: str) -> str:
    """The title as a researcher says it: `Fundamental understanding of X` -> `Understanding X`;
    `Convex optimization problem` -> `Convex optimization`, `Logistic bandit problems` -> `Logistic
    bandits` (the head adds nothing to a field's name)."""
    title = _UNDERSTANDING.sub("understanding ", title, count=1)
    if re.search(r"\b(?:solv|address|tackl)ing\b", title):
        return title  # (`for solving X regression problems`: one solves problems)
    plain = _EMPTY_HEAD.sub("", re.sub(r"\bbandit problems?\b", "bandits", title, count=1), count=1)
    return title if plain != title and _names_a_concept(plain) else plain  # (a paper is not the concept's note)


def _names_a_concept(title: str) -> bool:
    """Is ``title`` the name of a concept the vocabulary knows (`Online convex optimization`)?"""
    from .vocabulary import Vocabulary  # (loaded once, cached)

    return Vocabulary.load().entry(title) is not None


_NOT_ACTIONS = _WORDS["not_actions"]
_EMPTY_PURPOSE = re.compile(r"\b(?:lay|laying|pave|paving|set|setting) (?:the )?(?:groundwork|way|stage|foundations?)\b")
_MANNER = re.compile(r"\b[a-z]{3,}(?:al|ive|ate|ent|ous|ant|ful|ic|ble|ise|ct)ly (?=[a-z]{3,}ing\b)")
_VAGUE_HEADS = _WORDS["vague_heads"]
_PURPOSE = re.compile(r" (?:(?:specifically|particularly|explicitly) )?(?:tailored|designed|developed|intended|suited|"
                      r"dedicated|built|crafted|customi[sz]ed|speciali[sz]ed) (?:for(?= )|to (?:[a-z]+ly )?([a-z]{3,})(?= ))")
_MODAL_RELATIVE = re.compile(r",? (?:that|which) (?:can|could|may|will) (?!be |not |also |only |then |both |further )([a-z]{3,})\b"
                             r"(?: and ([a-z]{3,})\b)?")
_BOUNDARY = re.compile(r"(?:for|in|on|with|via|under|from|across|without|between|among|through|by|using|to|into|over|that|"
                       r"which|where|whose|while|as|and|or)$|[,;:(—–]")
_GLUED = re.compile(r"^(?:an?|the)-|^[-/]|[-/]$")  # debris of math a title cannot show: `an-DP`, `ratio of ρ/`


_CALLED_HEAD = re.compile(r"(?:[\w-]+ ){1,4}?(?:called|named|dubbed|termed) (?=[\w-]+ [\w-]+)")
_MADE = re.compile(rf"^[^,;]{{3,120}}? to (?:{_VERBS}) (?=(?:a|an|the|[a-z-]+) )")
_AND_MADE = re.compile(rf" and (?:then |also )?(?:{_VERBS}) (?=(?:a|an|the|[a-z-]+) )")
_GENERIC_WITH_TOOL = re.compile(r"(?:[\w-]+ ){0,2}(?:framework|method|approach|algorithm|technique|procedure|model|scheme)s? "
                                r"(?:(?:that|which) )?(?:uses?|using|leverages?|leveraging|exploits?|exploiting|employs?|"
                                r"employing|with|based on) (?=[^,;]{3,60}? to [a-z])")
_ADVERBS_TO = re.compile(r" to (?:[a-z]+ly (?:and [a-z]+ly )?)?(?=[a-z]{3,} )")
_SEEN_AS = re.compile(r" by (?:viewing|modell?ing|treating|casting|framing|formulating|interpreting|representing) "
                      r"((?:[\w-]+ ){1,5}?as (?:a |an )?[\w-]+ [\w -]+)")
_WHICH_DO = re.compile(r"(?:which|what) ((?:[\w-]+ ){0,2}?[\w-]+s) (?:(?:most|more|best|[a-z]+ly) )*([a-z]{3,}) ")
_ABILITY = re.compile(r"(?:(?:the|their) )?(?:[a-z-]+ )?(?:ability|abilities|capability|capabilities|capacity) of "
                      r"((?:[\w-]+ ){0,2}?[\w-]+) to ([a-z]{3,}) ")
_AND_VERB = re.compile(rf"^and (?:[a-z]+ly )?{_VERBS} (?=[a-z-]+ )")
_TO_VERB = re.compile(r"to ([a-z]{3,}) ")
_CLAIMED_RELATIVE = re.compile(r",? (?:that|which) (?:[a-z]+ly )?(?:achieves?|attains?|outperforms?|surpass(?:es)?|matches|"
                               r"reach(?:es)?|exceeds?|beats?|rivals?)\b")


def _reshaped(phrase: str) -> str:
    """The object of a contribution verb read as a title: `to speed up X` -> `speeding up X`; `a
    framework that exploits X` / `that can exploit X` -> `framework exploiting X`; `a suite
    tailored for X` -> `suite for X`; `designed to detect X` -> `for detecting X`."""
    called = _CALLED_HEAD.match(phrase)  # `a framework called detect-then-impute conformal prediction` -> what it is called
    if called:
        phrase = phrase[called.end():]
    phrase = re.sub(r"^((?:[\w-]+ ){0,3}?(?:analys[ie]s|insights?|experiments|evidence) )to (?:better )?(?:understand|study|"
                    r"analy[sz]e|investigate|explain) (?:the )?", r"\1of ", phrase, count=1)  # `analyses to understand X` -> `analyses of X`
    phrase = re.sub(r"^((?:an? |the )?(?:[\w-]+ ){0,3}(?:dataset|corpus|collection|benchmark|suite)s?) (?:containing|comprising|"
                    r"consisting of) ", r"\1 of ", phrase, count=1)  # `a dataset containing X` -> `dataset of X`
    seen = _SEEN_AS.search(phrase)  # `X by viewing Y as Z` -> `Y as Z`: the paper's lens says more than its topic
    phrase = seen.group(1) if seen else phrase
    which = _WHICH_DO.match(phrase)  # `which factors most strongly influence X` -> `factors influencing X`
    if which and which.group(2) not in _NOT_ACTIONS | _MODALS:
        phrase = f"{which.group(1)} {_gerund_of_base(which.group(2))} {phrase[which.end():]}"
    able = _ABILITY.match(phrase)  # `the ability of transformers to learn X` -> `transformers learning X`
    if able and able.group(2) not in _NOT_ACTIONS | _MODALS:
        phrase = f"{able.group(1)} {_gerund_of_base(able.group(2))} {phrase[able.end():]}"
    if phrase.startswith("and "):  # `we formulate and design X`
        phrase = _AND_VERB.sub("", phrase)
    to_verb = _TO_VERB.match(phrase)
    if to_verb and to_verb.group(1) not in _NOT_ACTIONS | _MODALS | _NOT_A_TITLE_START:
        phrase = f"{_gerund_of_base(to_verb.group(1))} {phrase[to_verb.end():]}"
    if " that " in phrase or " which " in phrase:
        phrase = _CLAIMED_RELATIVE.split(phrase, maxsplit=1)[0]  # `a model that achieves an FID of 2.2`: a result, not what it is
        phrase = _MODAL_RELATIVE.sub(lambda m: " " + " and ".join(_gerund_of_base(v) for v in m.groups() if v), phrase,
                                     count=1)
        phrase = _RELATIVE_VERB.sub(_as_gerund, phrase, count=1)
        phrase = _PLURAL_RELATIVE.sub(_plural_as_gerund, phrase, count=1)  # `algorithms that control X`
    if "ed for " not in phrase and "ed to " not in phrase and "built " not in phrase:
        return phrase
    return _PURPOSE.sub(lambda m: " for" + (f" {_gerund_of_base(m.group(1))}" if m.group(1) else ""), phrase, count=1)


_CLAIM_VERB = re.compile(r" (?:(?:can|could|may|will|would) (?:[a-z]+ly )?([a-z]{3,})|(?:[a-z]+ly )?([a-z]{3,}s)(?= (?:a|an|the|its|their|this|these|such|[a-z]+ly) ))\b")
_REMEDIES = frozenset("mitigate alleviate resolve address solve fix overcome reduce remedy prevent cure".split())
_HEADED = re.compile(r"(?:(?:a|an|the) )?(?:[\w-]+ ){0,3}(?:strategy|method|approach|algorithm|framework|model|scheme|procedure|"
                     r"technique|estimator|architecture|objective|loss|policy|rule|schedule|mechanism|module|regulari[sz]er|sampler|"
                     r"protocol|pipeline|initiali[sz]ation)\b")


def _claimed(phrase: str) -> str:
    """The title a claim gives (`we show that ...`): its subject when that is something made (`a
    suitable strategy for choosing X enhances Y` -> `Strategy for choosing X`), else the subject
    doing what it is shown to do (`deep networks can achieve X` -> `Deep networks achieving X`)."""
    verb = _CLAIM_VERB.search(phrase)
    base = (verb.group(1) or verb.group(2)) if verb else ""
    if not verb or verb.start() == 0 or "," in phrase[:verb.start()] or base in ("has", "does", "was", "is", "be", "not") \
            or base in _NOT_ACTIONS:
        return _achieved(base, phrase[verb.end():]) if verb and verb.start() and "," not in phrase[:verb.start()] else ""
    subject = phrase[:verb.start()]
    if subject.split(" ", 1)[0] in ("any", "every", "all", "each", "no", "some", "most", "many", "this", "it"):
        return ""  # (a claim about any policy is a property, not a thing the paper makes)
    if verb.group(2):
        base = base[:-2] if base.endswith(("ches", "shes", "sses", "xes")) else base[:-1]
    if _HEADED.match(subject) or base in _REMEDIES:  # `simple normalization of X mitigates this` -> the remedy
        return _title_from(subject, "object", "")
    doing = f"{subject} {_gerund_of_base(base)}{phrase[verb.end():]}"
    title = _title_from(doing, "object", "", at_word=True) if len(subject.split()) <= 4 else ""
    return title if _gerund_of_base(base) in title.casefold().split() else _achieved(base, phrase[verb.end():])


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
    tool, _, rest = re.sub(r"^(?:the )?(?:concept|idea|notion) of ", "", phrase).partition(" to ")
    verb, _, rest = re.sub(r"^[a-z]{4,}ly ", "", rest).partition(" ")  # (`to collaboratively learn X`: how, not what)
    tool = re.split(r" (?:in|of|on|from|with|across) ", tool, maxsplit=1)[0] if len(tool.split()) > 3 else tool
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


_NAMED_AFTER = re.compile(r"(?:[\w-]+ ){0,4}(?:problem|question|task|challenge|setting|scenario|phenomenon)"
                          r"(?: ?[—–:] ?| -- )(.{10,})")
# a result whose object is a property any paper has (`Guarantees for linear convergence`): what the
# paper studies says more
_GENERIC_RESULT = re.compile(r"(?:[\w-]+ ){0,2}(?:guarantees?|bounds?|rates?|analysis|results?)(?: (?:for|of|on) (?:[\w-]+ )?"
                             r"(?:convergence|generalization|optimality|consistency|robustness|stability|efficiency))?")
_STUDY_VERBS = frozenset({"study", "analyze", "analyse", "understand", "investigate", "examine", "explore", "characterize"})
_HEAD_ONLY = re.compile(r"(?:(?!(?:using|leveraging|exploiting|based|via|with|for|of) )[\w-]+ ){0,3}(?:model|estimator|algorithm|method|procedure|framework|approach|technique|"
                        r"scheme|strategy|loss|metric|system|architecture|network|pipeline)s?")


_RESULT_HEADS = _WORDS["result_heads"]
_BUILDS_ON = re.compile(r"(?:[\w-]+ ){0,2}(?:" + "|".join(sorted(_WORDS["builds_on_heads"])) + r") of ", re.IGNORECASE)
_NEEDS_COMPLEMENT = _WORDS["needs_complement"]
_COMPLEMENT_STARTS = frozenset("between in of from on under when within across among introduced caused induced incurred "
                               "arising due".split())


def _cut_from_complement(title: str, phrase: str) -> bool:
    """Does the title end in a noun that says nothing without the modifier the cut left behind
    (`Mathematical analysis of error` | `introduced by removing X`)?"""
    last = title.rsplit(" ", 1)[-1]
    if last.casefold() not in _NEEDS_COMPLEMENT or not last.islower():  # (`Treatment Effect`: a name)
        return False
    nth = title.casefold().split().count(last.casefold())  # (`Transferability error to measure error`: the second)
    after = re.findall(rf"\b{re.escape(last.casefold())}\b(?: \([^()]*\))?(?: ([a-z]+))?", phrase.casefold())
    return len(after) >= nth and after[nth - 1] in _COMPLEMENT_STARTS


def _proved_result(title: str) -> bool:
    """Is the title a result the paper proves (`Upper bound for EMI difference`, `Convergence rate
    and iteration complexity of X`, `Distribution estimation error bound`), headed by a result noun
    before its first preposition? What the paper studies or proposes names it better."""
    words = title.casefold().split()
    at = next((i for i, word in enumerate(words) if i and word in _HEAD_ENDS), len(words))
    return at > 0 and (words[at - 1] in _RESULT_HEADS or "and" in words[:at] and words[words.index("and") - 1] in _RESULT_HEADS)


def _head_for(head: str, topic: str) -> str:
    """`Lifting method` for the topic `Tensor completion` -> `Lifting method for tensor completion`, when
    the head is not a generic result and that fits a title; else the topic."""
    if _GENERIC_RESULT.fullmatch(head.casefold()) or _proved_result(head) or _BUILDS_ON.match(head) \
            or set(head.casefold().split()) & set(topic.casefold().split()):
        return topic
    if all(re.fullmatch(r"[A-Z][a-z]+(?:-[A-Za-z]+)?", word) for word in topic.split()):
        topic = topic.lower()  # (`Active Feature Acquisition` said inside a title)
    first = topic.split(" ", 1)[0]
    joined = f"{head} for {first.lower() if first[1:].islower() else first}{topic[len(first):]}"
    return joined if len(joined) <= NAME_CHARS and len(joined.split()) <= NAME_WORDS else topic


def _extended(text: str, bounds: list[tuple[int, int]], phrase: str) -> str:
    """`we extend it to diffusion models`, where the abstract opens on speculative sampling ->
    `Speculative sampling for diffusion models`, when that fits a title; else ``""``."""
    topic, where = opening_topic(text, bounds), _title_from(phrase, "topic", "")
    joined = f"{topic} for {where[:1].lower() if where[1:2].islower() else where[:1]}{where[1:]}"
    return joined if topic and where and len(joined) <= NAME_CHARS and len(joined.split()) <= NAME_WORDS else ""


def contribution_title(text: str, low: str, bounds: list[tuple[int, int]]) -> tuple[str, str]:
    """(title, gist) of a paper that names nothing, from the sentence stating its contribution:
    ``we propose a framework that exploits X`` -> ``Framework exploiting X``; ``we study the
    convergence of X`` -> ``Convergence of X``; ``we rebalance the load across devices`` ->
    ``Rebalancing the load across devices``. The title is a noun phrase of at most 8 words and 60
    characters, never a clause that needs its sentence (`these issues`) and never the abstract's
    opening words; the gist is one clause of at most 20 words. When no sentence states a
    contribution, the title is the paper's strongest terms (``""`` when it has none)."""
    cut_short: tuple[str, str] | None = None  # a title cut at a word: better than none
    vague: tuple[str, str] | None = None  # `Analysis of error` (| `introduced by X`): any other sentence says more
    head_only: tuple[str, str] | None = None  # `Doubly-robust estimator`: what the paper studies says more
    for pattern, reads, needs in _CONTRIBUTION:
        if needs and not any(map(low.__contains__, needs)):
            continue  # (a few substring tests are cheaper than a scan that cannot match)
        for match in pattern.finditer(low):
            if reads == "object" and " how to " in match.group(0) or _NEGATED.search(match.group(0)):
                continue  # (`we show how to design X`: read as how; `we are unable to design X`: not made)
            if head_only and reads != "topic" and not (reads in ("action", "how") and _proved_result(head_only[0])):
                break
            start, end = _sentence(bounds, match.end() - 1)
            if _STEP.match(low, start + 1, match.end()):
                continue  # (`To derive the second bound, we study X`: a step towards the contribution, not it)
            phrase = clean_phrase(text[match.end() - 1:end], 400)
            verb = match.group(1) if pattern.groups else ""
            said = f"{_third_person(verb)} {phrase}" if verb else phrase
            title = _title_from(phrase, reads, verb) if reads != "extend" else _extended(text, bounds, phrase)
            title = _through_lens(title, text[start:end]) if title and reads == "topic" and " lens" in low[start:end + 1] else title
            if title and _cut_from_complement(title, phrase):
                vague, title = vague or (title, gist_of(f"{_third_person(verb)} {phrase}" if verb else phrase)), ""
                continue
            said = f"extends {title.split(' for ')[0].lower()} to {phrase}" if reads == "extend" and title else said
            if title and not head_only and reads == "object" and (_HEAD_ONLY.fullmatch(title.casefold()) or _BUILDS_ON.match(title)
                                                                  or _GENERIC_RESULT.fullmatch(title.casefold())
                                                                  or _proved_result(title)):
                head_only = (title, gist_of(said))
            elif title:
                if head_only and not _proved_result(head_only[0]):
                    return _head_for(head_only[0], title), head_only[1]
                return title, gist_of(said)
            if cut_short is None and reads == "object":
                title = _title_from(phrase, reads, verb, at_word=True)
                cut_short = (title, gist_of(said)) if title else None
    if head_only and _proved_result(head_only[0]):
        return head_only  # (no sentence says more: the result, never the opening words)
    if head_only:  # `Non-parametric procedure` for the topic the abstract opens with
        joined = _head_for(head_only[0], opening_topic(text, bounds) or head_only[0])
        return (joined if " for " in joined else head_only[0]), head_only[1]  # (never the opening words alone)
    if cut_short or vague:
        return cut_short or vague
    sentences = [text[start:end] for start, end in bounds[:3]] or [text]
    return "", gist_of(clean_phrase(sentences[0], 400))

