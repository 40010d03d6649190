"""YAML frontmatter: split a note, read it tolerantly, write it so every reader agrees.

Obsidian parses frontmatter with the npm ``yaml`` package (YAML 1.2 core schema); PyYAML and
many tools read YAML 1.1. ``dump_frontmatter`` writes a string plain only when both read it as
the same string, and double-quotes it otherwise (``yes``, ``on``, ``1e3``, ``0o17``, ``2024-01-01``,
``null``, ``~``, ``"2026"``, ``"[[Link]]"``, anything with ``: `` or ``#``...). Nothing is wrapped.

``merge_frontmatter`` replaces the keys vaultsync owns and keeps every other key's text exactly
as the user wrote it (comments and formatting included), in the user's order.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable, Mapping, Sequence

import yaml

from .frontmatter_flat import STR_TAG, dump_flat, flat_enabled, plain_is_safe, read_flat

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MISSING = object()
class FrontmatterError(ValueError):
    """The frontmatter cannot be read: unterminated, not YAML, or not a mapping."""


def split_note(text: str) -> tuple[str | None, str]:
    """Split a note into (frontmatter YAML text, body).

    The frontmatter is the text between a first line ``---`` and the next line ``---``, with its
    line endings; the body is everything after the closing fence line, byte for byte.
    Returns ``(None, text)`` when the note has no frontmatter. Raises ``FrontmatterError`` when
    the opening fence is never closed.
    """
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if first.rstrip() != "---":
        return None, text
    start = first_end + 1 if first_end >= 0 else len(text)
    fence = _FENCE_LINE.search(text, start)
    if fence is None:
        raise FrontmatterError("the frontmatter has no closing '---' line")
    return text[start:fence.start()], text[fence.end():]


# A line that is ``---`` once trailing whitespace is stripped (``str.rstrip``'s whitespace is
# ``\s``'s), with its line ending.
_FENCE_LINE = re.compile(r"^---[^\S\n]*(?:\n|\Z)", re.M)


def read_frontmatter(yaml_text: str | None) -> dict[str, Any]:
    """Parse frontmatter YAML into a dict; ``{}`` for none or empty. Raises ``FrontmatterError``."""
    if yaml_text is None or not yaml_text.strip():
        return {}
    flat = read_flat(yaml_text) if flat_enabled() else None
    if flat is not None:
        return flat
    try:
        data = yaml.load(yaml_text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (frontmatter line {mark.line + 1})" if mark else ""
        raise FrontmatterError(f"the frontmatter is not valid YAML{where}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError("the frontmatter is not a list of properties")
    return data


class _Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        # `key:\n  - item` like Obsidian writes lists, rather than PyYAML's indentless default.
        return super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar(STR_TAG, value, style=None if plain_is_safe(value) else '"')


def _represent_float(dumper: yaml.SafeDumper, value: float) -> yaml.ScalarNode:
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        text = f"{value:.1f}"  # 3.0, readable as a float by both parsers
    else:
        text = dumper.represent_float(value).value
    return dumper.represent_scalar("tag:yaml.org,2002:float", text)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(float, _represent_float)
_Dumper.add_representer(tuple, yaml.SafeDumper.represent_list)


def _plain_data(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_data(v) for v in value]
    return value


def dump_frontmatter(data: Mapping[str, Any]) -> str:
    """YAML text for ``data`` (no fences), keys in the given order, one key per top-level line.

    Values should be scalars or flat lists of scalars (what Obsidian's Properties view shows);
    nested values are written too (for keys a user wrote), in block style.
    """
    if not data:
        return ""
    fast = dump_flat(data) if flat_enabled() else None
    if fast is not None:
        return fast
    return yaml.dump(
        _plain_data(data), Dumper=_Dumper, sort_keys=False, allow_unicode=True,
        width=1 << 30, default_flow_style=False,
    )


def _key_blocks(yaml_text: str) -> list[tuple[Any, str]] | None:
    """Cut frontmatter into (key, text) blocks, one per top-level key, text verbatim.

    Lines before the first key form a block with key ``None``; comments and blank lines after a
    value belong to that key's block. Returns ``None`` when the text cannot be cut cleanly
    (flow mapping, several keys on a line, duplicate or non-scalar keys).
    """
    try:
        node = yaml.compose(yaml_text, Loader=_Loader)
    except yaml.YAMLError:
        return None
    if node is None:
        return [(None, yaml_text)] if yaml_text else []
    if not isinstance(node, yaml.MappingNode) or node.flow_style:
        return None
    lines = yaml_text.splitlines(keepends=True)
    starts: list[tuple[Any, int]] = []
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            return None
        line = key_node.start_mark.line
        if starts and line <= starts[-1][1]:
            return None
        starts.append((key_node.value, line))
    keys = [k for k, _ in starts]
    if len(set(keys)) != len(keys):
        return None
    blocks: list[tuple[Any, str]] = []
    if starts and starts[0][1] > 0:
        blocks.append((None, "".join(lines[: starts[0][1]])))
    for i, (key, line) in enumerate(starts):
        end = starts[i + 1][1] if i + 1 < len(starts) else len(lines)
        text = "".join(lines[line:end])
        blocks.append((key, text if text.endswith("\n") else text + "\n"))
    return blocks


def _flat_blocks(yaml_text: str) -> list[tuple[Any, str]]:
    """``_key_blocks`` of frontmatter that ``read_flat`` reads, without PyYAML's composer (0.1 ms
    a note): each of its lines is a key's (``key: ...``, ``key:``, the key plain and unique) or an
    item of the list of the key above (``  - ...``), and ``\n`` is its only line break (its
    scalars have no control characters, U+0085, U+2028 or U+2029), so a block starts at each line
    but the items."""
    blocks: list[tuple[Any, list[str]]] = []
    for line in yaml_text.splitlines(keepends=True):
        if line.startswith("  - "):
            blocks[-1][1].append(line)
        else:
            blocks.append((line.partition(":")[0], [line]))
    cut = [(key, "".join(lines)) for key, lines in blocks]
    return [(key, text if text.endswith("\n") else text + "\n") for key, text in cut]


def merge_frontmatter(
    yaml_text: str | None, new: Mapping[str, Any], owned_keys: Iterable[str] = ()
) -> str:
    """Frontmatter text with vaultsync's keys set to ``new`` and every other key kept.

    Keys in ``new`` or ``owned_keys`` belong to vaultsync: a key in ``new`` is rewritten in
    place; an owned key missing from ``new`` is removed; a key in ``new`` the note lacks is
    inserted after the owned key that precedes it in ``new`` (at the top when none does). Every
    other key keeps its text exactly, in the user's order. Raises ``FrontmatterError`` when
    ``yaml_text`` is not valid frontmatter.
    """
    flat = read_flat(yaml_text) if yaml_text and flat_enabled() else None  # (what vaultsync wrote)
    old = flat if flat is not None else read_frontmatter(yaml_text)
    owned = set(new) | set(owned_keys)
    order = list(new)
    blocks = _flat_blocks(yaml_text) if flat is not None else _key_blocks(yaml_text or "")
    merged = _merge_blocks(blocks, old, new, owned, order) if blocks is not None else None
    if merged is None or not _reads_as(merged, old, new, owned):
        # Could not keep the user's text verbatim: rewrite every key, keeping values and order.
        values = {k: v for k, v in old.items() if k not in owned or k in new}
        merged = dump_frontmatter(_insert_new(values, new, order))
    return merged


def _insert_new(values: dict[str, Any], new: Mapping[str, Any], order: Sequence[str]) -> dict:
    """``values`` with ``new`` applied, new keys placed as ``merge_frontmatter`` says."""
    present = [k for k in order if k in values]
    out: dict[str, Any] = {} if present else {k: new[k] for k in order}
    lead = order[: order.index(present[0])] if present else []
    for k, v in values.items():
        if present and k == present[0]:
            out.update({m: new[m] for m in lead})
        out[k] = new.get(k, v)
        if k in new:
            out.update({m: new[m] for m in _following_new(k, order, values)})
    return out


def _following_new(key: str, order: Sequence[str], present: Iterable[Any]) -> list[str]:
    """Keys of ``order`` right after ``key`` that ``present`` lacks (they are inserted after it)."""
    present = set(present)
    i = order.index(key) + 1
    out = []
    while i < len(order) and order[i] not in present:
        out.append(order[i])
        i += 1
    return out


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types (``1``, ``1.0`` and ``True`` differ), lists item by item."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _merge_blocks(blocks, old, new, owned, order) -> str:
    present = [k for k, _ in blocks if k is not None]
    parts: list[str] = []
    top = [] if any(k in present for k in order) else list(order)
    # New keys before the first owned key the note has go just before it.
    first_present = next((k for k in order if k in present), None)
    lead = order[: order.index(first_present)] if first_present else []
    if top:
        parts.append(dump_frontmatter({k: new[k] for k in top}))
    for key, text in blocks:
        if key is not None and key == first_present and lead:
            parts.append(dump_frontmatter({k: new[k] for k in lead}))
        if key is None or key not in owned:
            parts.append(text)
        elif key in new:
            # An unchanged value keeps the note's own text (line endings, comments, style).
            same = _same(old.get(key, _MISSING), new[key])
            parts.append(text if same else dump_frontmatter({key: new[key]}))
            parts.append(dump_frontmatter({m: new[m] for m in _following_new(key, order, present)}))
    return "".join(parts)


def _reads_as(text: str, old: Mapping, new: Mapping, owned: set) -> bool:
    """True when ``text`` holds the user's keys unchanged (values and order) and ``new``."""
    try:
        got = read_frontmatter(text)
    except FrontmatterError:
        return False
    want = {k: v for k, v in old.items() if k not in owned}
    user_order = list(want)
    want.update(_plain_data(new))
    return _same(got, want) and [k for k in got if k not in owned] == user_order


def note_head(path: str, limit: int = 65536) -> dict[str, str]:
    """The ``vaultsync_id`` and ``type`` of a note, read from its first ``limit`` bytes.

    Fast and tolerant: looks only at top-level ``key: value`` lines of the frontmatter, never
    raises on broken YAML or bad bytes. Returns ``{}`` when the note has no frontmatter.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(limit).decode("utf-8", "replace")
    except OSError:
        return {}
    if not head.startswith("---"):
        return {}
    out: dict[str, str] = {}
    for line in head.splitlines()[1:]:
        if line.rstrip() == "---":
            break
        m = _HEAD_KEY.match(line)
        if m and m.group(1) not in out:
            out[m.group(1)] = m.group(2).strip().strip("\"'")
    return out


_HEAD_KEY = re.compile(r"(vaultsync_id|type|status)\s*:\s*(.*?)\s*$")
