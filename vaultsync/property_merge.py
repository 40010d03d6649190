"""Properties vaultsync writes and the user edits too: a three-way merge, never a silent revert.

Obsidian's Properties view edits ``tags`` and ``aliases`` in place, and a user may retitle a
note. vaultsync owns these keys (it rewrites them at every sync), so each sync merges its new
values (``new``) with the note's (``current``) against what it proposed last time (``base``,
kept in the state as ``proposal``):

- a list (``tags``, ``aliases``): the values the user added are kept (after vaultsync's), the
  values the user removed stay removed, the values vaultsync drops are dropped;
- ``title``: a title the user changed is kept.

Without a base (a note vaultsync has no record of: a deleted state) nothing is taken from the
user: a value the note has and vaultsync would not write is kept, as if the user had added it.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

MERGED_LISTS = ("tags", "aliases")
KEPT_SCALARS = ("title",)
_KEYS = MERGED_LISTS + KEPT_SCALARS


def proposal(frontmatter: Mapping[str, Any] | None) -> str | None:
    """What vaultsync proposes for the merged keys of ``frontmatter``, as stored in the state
    (the ``base`` of the next merge); None when it writes none of them."""
    if not frontmatter:
        return None
    values = {key: list(value) if isinstance(value, (list, tuple)) else value
              for key, value in frontmatter.items() if key in _KEYS}
    return json.dumps(values, ensure_ascii=False, sort_keys=True, default=str) if values else None


def merge_base(stored: str | None, current: Mapping[str, Any], untouched: bool) -> dict[str, Any] | None:
    """The base of a merge: the ``proposal`` the state stored; else, for a note ``untouched``
    since vaultsync wrote it (a state from before proposals were stored), its ``current``
    values; else None (unknown)."""
    try:
        values = json.loads(stored) if stored else None
    except ValueError:
        values = None
    if isinstance(values, dict):
        return values
    return {key: current[key] for key in _KEYS if key in current} if untouched else None


def merge_properties(new: Mapping[str, Any], current: Mapping[str, Any] | None,
                     base: Mapping[str, Any] | None) -> dict[str, Any]:
    """``new`` (vaultsync's frontmatter) with the user's edits of the merged keys in ``current``
    (the note's frontmatter) kept, judged against ``base`` (what vaultsync proposed when it last
    wrote the note; None: unknown)."""
    merged = dict(new)
    if not current:
        return merged
    for key in MERGED_LISTS:
        if key in merged and key in current and isinstance(merged[key], (list, tuple)):
            merged[key] = _merged_list(list(merged[key]), _as_list(current[key]),
                                       _as_list(base[key]) if base is not None and key in base else None)
    for key in KEPT_SCALARS:
        if key in merged and key in current and current[key] != merged[key]:
            if base is None or key not in base or current[key] != base[key]:
                merged[key] = current[key]  # the user's (or, without a base, possibly theirs)
    return merged


def _merged_list(new: list, current: list, base: list | None) -> list:
    if base is None:
        added, removed = [v for v in current if v not in new], ()
    else:
        added = [v for v in current if v not in base and v not in new]
        removed = [v for v in base if v not in current]
    return [v for v in new if v not in removed] + list(dict.fromkeys(added))


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]
