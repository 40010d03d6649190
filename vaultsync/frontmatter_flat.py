"""Flat frontmatter -- what vaultsync writes: ``key: scalar`` and ``key:`` then ``  - scalar``
lines -- read and written directly, not through PyYAML: exactly PyYAML's values and bytes, at a
fraction of the cost (an export reads and writes tens of thousands of notes). Anything else is
left to PyYAML (``frontmatter_io``)."""

from __future__ import annotations

import functools
import math
import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator, Mapping

import yaml

STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()
_MISSING = object()

# YAML 1.2 core schema: plain scalars that are not strings there (npm yaml, Obsidian).
_CORE_NOT_STR = re.compile(
    r"null|Null|NULL|~|true|True|TRUE|false|False|FALSE"
    r"|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"
    r"|[-+]?\.(inf|Inf|INF)|\.nan|\.NaN|\.NAN"
)
# Conservative plain style: starts with a letter or digit, then letters, digits and a few
# punctuation marks that mean nothing to YAML in the middle of a plain scalar.
_PLAIN_OK = re.compile(r"[^\W_][\w .,()/+'-]*(?<! )")


# Off only inside ``flat_yaml(False)`` (``Speedups.flat_yaml``).
_FLAT_YAML: ContextVar[bool] = ContextVar("vaultsync_flat_yaml", default=True)


def flat_enabled() -> bool:
    return _FLAT_YAML.get()


@contextmanager
def flat_yaml(enabled: bool) -> Iterator[None]:
    """Within the block, flat frontmatter is read and written directly (``enabled``) or by PyYAML."""
    token = _FLAT_YAML.set(enabled)
    try:
        yield
    finally:
        _FLAT_YAML.reset(token)


_FLAT_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLAT_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.0")
_FLAT_QUOTED = re.compile(r'"((?:[^"\\]|\\[\\"])*)"')
_FLAT_UNESCAPE = re.compile(r"\\(.)")
_FLAT_WORDS = {"true": True, "false": False, "null": None}


def read_flat(yaml_text: str) -> dict[str, Any] | None:
    """The frontmatter ``dump_frontmatter`` writes for flat data (``key: scalar``, ``key: []``,
    ``key:`` then ``  - scalar`` lines), read without PyYAML -- what a digest or a re-export
    reads back from tens of thousands of notes. Exactly what YAML reads, or None for any line
    outside that narrow form (comments, other indents, duplicate keys, other scalars...), which
    PyYAML then reads."""
    data: dict[str, Any] = {}
    items: list | None = None  # the list being read, after a ``key:`` line
    for line in yaml_text.split("\n")[:-1] if yaml_text.endswith("\n") else yaml_text.split("\n"):
        if line.startswith("  - ") and items is not None:
            value = _flat_value(line[4:])
            if value is _MISSING:
                return None
            items.append(value)
            continue
        if items is not None and not items:
            return None  # ``key:`` with no items is null in YAML: rare, left to PyYAML
        items = None
        key, colon, rest = line.partition(":")
        if not colon or key in data or not plain_is_safe(key):
            return None
        if not rest:
            items = data[key] = []
        elif rest == " []":
            data[key] = []
        elif rest.startswith(" "):
            value = _flat_value(rest[1:])
            if value is _MISSING:
                return None
            data[key] = value
        else:
            return None
    if items is not None and not items:
        return None
    return data


@functools.lru_cache(maxsize=65_536)  # links, tags, collections: the same in many notes
def _flat_value(text: str) -> Any:
    """A scalar as ``_flat_scalar`` writes it, read back; ``_MISSING`` for anything else."""
    if text.startswith('"'):
        m = _FLAT_QUOTED.fullmatch(text)
        if m is None:
            return _MISSING
        value = m.group(1)
        if "\\" in value:
            value = _FLAT_UNESCAPE.sub(r"\1", value)
        return value if _QUOTED_AS_IS.fullmatch(value) else _MISSING
    if plain_is_safe(text):
        return text
    if text in _FLAT_WORDS:
        return _FLAT_WORDS[text]
    if _FLAT_INT.fullmatch(text):
        return int(text)
    if _FLAT_FLOAT.fullmatch(text):
        return float(text)
    return _MISSING


@functools.lru_cache(maxsize=65_536)  # keys, tags, links: the same strings in every note
def plain_is_safe(value: str) -> bool:
    """True when ``value`` written unquoted reads back as the same string in YAML 1.1 and 1.2."""
    if not _PLAIN_OK.fullmatch(value) or _CORE_NOT_STR.fullmatch(value):
        return False
    return _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == STR_TAG


# Characters PyYAML writes as themselves inside a double-quoted scalar (allow_unicode=True).
_QUOTED_AS_IS = re.compile("[^\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff"
                           "\U00010000-\U0010ffff]*")


def _flat_scalar(value: Any) -> str | None:
    """``value`` as ``dump_frontmatter``'s YAML writes it, or None when only PyYAML knows how."""
    kind = type(value)
    if kind is str:
        return _flat_string(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    if kind is float and math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return f"{value:.1f}"
    return None


@functools.lru_cache(maxsize=65_536)  # links, tags, collections: the same in many notes
def _flat_string(value: str) -> str | None:
    if plain_is_safe(value):
        return value
    if _QUOTED_AS_IS.fullmatch(value):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return None


def dump_flat(data: Mapping[str, Any]) -> str | None:
    """The common case of ``dump_frontmatter`` (string keys; scalars and lists of scalars),
    written directly: the same text PyYAML writes, at a small fraction of its cost (an export
    writes tens of thousands of notes). None for anything else, which PyYAML then writes."""
    out = []
    for key, value in data.items():
        if type(key) is not str or len(key) >= 128 or not plain_is_safe(key):
            return None
        # strings first, without ``_flat_scalar``'s dispatch: most values and items are strings
        if type(value) is str:
            scalar = _flat_string(value)
        elif isinstance(value, (list, tuple)):
            if not value:
                out.append(f"{key}: []\n")
                continue
            items = [_flat_string(item) if type(item) is str else _flat_scalar(item) for item in value]
            if None in items:
                return None
            out.append(f"{key}:\n  - " + "\n  - ".join(items) + "\n")
            continue
        else:
            scalar = _flat_scalar(value)
        if scalar is None:
            return None
        out.append(f"{key}: {scalar}\n")
    return "".join(out)
