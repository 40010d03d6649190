"""Verb forms the descriptive titles need: `exploits` -> `exploiting`, `rebalance` -> `rebalancing`."""

from __future__ import annotations

import re

from .titles import _WORDS


def _gerund(verb: str) -> str:
    """``exploits`` -> ``exploiting``, ``uses`` -> ``using``, ``maps`` -> ``mapping``."""
    return _gerund_of_base(verb[:-1])


def _gerund_of_base(stem: str) -> str:
    """``rebalance`` -> ``rebalancing``, ``map`` -> ``mapping``, ``study`` -> ``studying``."""
    if stem.endswith("ie"):
        return stem[:-2] + "ying"
    if stem.endswith(("che", "she", "sse", "xe", "ze")):
        return stem[:-1] + "ing"
    if stem.endswith("e") and not stem.endswith(("ee", "ye", "oe")):
        return stem[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", stem) or stem.endswith(("trol", "mit", "fer")) and not stem.endswith(("ffer", "limit")):
        return stem + stem[-1] + "ing"
    return stem + "ing"


def _as_gerund(match: re.Match) -> str:
    verb = match.group(1)
    if verb.endswith(("ss", "us", "is", "ous")) or verb in ("has", "does", "was", "models", "features", "needs"):
        return match.group(0)
    return " " + _gerund(verb) + (f" and {_gerund(match.group(2))}" if match.group(2) else "")


def _third_person(verb: str) -> str:
    if verb.endswith("s"):
        return verb
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    if verb.endswith(("ss", "sh", "ch", "x", "z")):
        return verb + "es"
    return verb + "s"


_PLURAL_RELATIVE = re.compile(r"\b(algorithms|methods|approaches|techniques|procedures|schemes|strategies|frameworks|estimators)"
                              r",? (?:that|which) (?:[a-z]{3,}ly )?([a-z]{3,}[^s\W])\b(?: and ([a-z]{3,}[^s\W])\b)?")
_NOT_BASE_VERBS = frozenset("are were have had did not need cannot can could may might will would shall should must".split())


def _plural_as_gerund(match: re.Match) -> str:
    """`methods that learn X` -> `methods learning X` (never `that are`, `that can`, `that improved`)."""
    verbs = [verb for verb in match.groups()[1:] if verb]
    if any(verb in _NOT_BASE_VERBS | _WORDS["not_actions"] or verb.endswith(("ed", "ly")) for verb in verbs):
        return match.group(0)
    return f"{match.group(1)} " + " and ".join(_gerund_of_base(verb) for verb in verbs)
