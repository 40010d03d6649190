"""The user-edit merge and the frontmatter round-trip: what survives a re-sync."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultsync.frontmatter_flat import read_flat
from vaultsync.frontmatter_io import (FrontmatterError, dump_frontmatter, merge_frontmatter,
                                      read_frontmatter, split_note)
from vaultsync.regions import END_MARKER, merge_note, render_note

TRICKY = [
    "yes", "no", "on", "off", "y", "n", "Yes", "NO", "true", "False", "null", "Null", "~", "",
    "1e3", "1E3", "0o17", "0x1F", "017", "1_000", "1:20", ".5", "+1", "-0", ".inf", ".nan",
    "2024-01-01", "2024-01-01 10:00:00", "2026", "3.14", "123e4567", "=", "<<",
    "---", "...", "--- x", "a: b", "a:b", "#tag", "a #b", "[[Concept]]", "[x", "{x}", "*ref",
    "&anchor", "!tag", "%TAG", "@home", "`code`", "|", ">", "'q'", '"dq"', "- item", "? k",
    "tab\there", "line\nbreak", "trailing ", " leading", "Ünïcødé — “quotes”", "日本語の論文",
    "emoji 🧪", "back\\slash", "ends with colon:", "a,b", "\u2028sep", "\x85nel", "\ufeffbom",
]

texts = st.one_of(
    st.sampled_from(TRICKY),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
    st.builds(lambda a, b: a + b, st.sampled_from(TRICKY), st.text(max_size=8)),
)
scalars = st.one_of(texts, st.integers(-10**12, 10**12), st.booleans(), st.none(),
                    st.floats(allow_nan=False, allow_infinity=False))
values = st.one_of(scalars, st.lists(texts, max_size=4))
keys = st.one_of(st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True), texts)


@given(st.dictionaries(keys, values, max_size=8))
def test_frontmatter_round_trip_gives_the_same_values(data):
    text = dump_frontmatter(data)
    assert read_frontmatter(text) == data
    assert list(read_frontmatter(text)) == list(data)
    # The YAML cannot end the frontmatter early: no line of it is a bare fence.
    note = f"---\n{text}---\nbody\n"
    assert split_note(note) == (text, "body\n")


@given(st.lists(texts, max_size=6))
def test_long_lists_and_strings_are_never_wrapped(items):
    long = " ".join(items) * 20
    text = dump_frontmatter({"title": long, "aliases": items})
    assert read_frontmatter(text) == {"title": long, "aliases": items}
    assert text.count("\n") == 2 + len(items)


# Lines like the ones vaultsync writes, and near misses of them (spacing, quoting, comments,
# escapes, YAML 1.1 words, line endings): the fast reader must read each text exactly as PyYAML
# does, or hand it to PyYAML.
_line_values = st.one_of(
    texts, st.sampled_from(TRICKY),
    st.builds(lambda t: '"' + t + '"', texts),
    st.builds(lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"', texts),
    st.from_regex(r"-?[0-9]{1,4}(\.[0-9]{0,2})?", fullmatch=True),
    st.sampled_from(["[]", "[ ]", "true", "false", "null", "-0", "0.0", "-3.0", '"\\t"', "'x'"]),
)
_line_keys = st.one_of(st.from_regex(r"[a-z][a-z_ ]{0,8}", fullmatch=True), st.sampled_from(TRICKY))
_flat_lines = st.lists(st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", _line_keys, _line_values),
    st.builds(lambda k: f"{k}:", _line_keys),
    st.builds(lambda v: f"  - {v}", _line_values),
    st.sampled_from(["", "# note", "- x", "   - y", " - z", "k:  v", "k: v # c", "k: v\r", "k:\t1",
                     "k: |", "  more", "...", "---"]),
), max_size=8)


_simple_keys = st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True)
_printable = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FFF, blacklist_categories=("Cs", "Cc")),
                     max_size=20)
_flat_scalars = st.one_of(_printable, st.sampled_from(TRICKY), st.integers(-10**6, 10**6), st.booleans(),
                          st.none(), st.integers(-999, 999).map(float))
_flat_values = st.one_of(_flat_scalars, st.lists(_flat_scalars, max_size=3))
# A note vaultsync wrote, then one line of it changed into another line (or a near miss).
_edited_notes = st.builds(
    lambda data, at, line: _replace_line(dump_frontmatter(data).split("\n")[:-1], at, line),
    st.dictionaries(_simple_keys, _flat_values, min_size=1, max_size=6), st.integers(0, 20),
    st.one_of(st.none(), _flat_lines.map(lambda lines: lines[0] if lines else "")),
)


def _replace_line(lines: list[str], at: int, line: str | None) -> list[str]:
    if line is not None:
        lines[at % len(lines)] = line
    return lines


@settings(max_examples=400)
@given(st.one_of(_flat_lines, _edited_notes), st.booleans())
def test_the_fast_frontmatter_reader_reads_what_pyyaml_reads(lines, final_newline):
    text = "\n".join(lines) + ("\n" if final_newline else "")
    fast = read_flat(text)
    if fast is None:
        return
    for loader in {yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)}:
        expected = yaml.load(text, Loader=loader)
        assert fast == expected and list(fast) == list(expected), (text, loader)
        assert [type(v) for v in fast.values()] == [type(v) for v in expected.values()]


@given(st.dictionaries(st.one_of(_simple_keys, keys), st.one_of(values, _flat_values), max_size=8))
def test_the_fast_reader_reads_the_flat_notes_vaultsync_writes(data):
    text = dump_frontmatter(data)
    fast = read_flat(text)
    if fast is not None:
        assert fast == yaml.load(text, Loader=yaml.SafeLoader) == data


NEAR_MISSES = [*TRICKY, "007", "-01", "0123", "1_0", "+5", "1.", "1.50", "1.0e3", "-0.0", "0.0", "12.0",
               "true ", "True", "NULL", '"a\\tb"', '"a\\\\b"', '"a\\"b"', '"\\u00e9"', '"x" # c', "'x'",
               '"unterminated', '""', '"  spaced  "', "[]", "[a]", "{}", "x # c", "a  b", "é", "a'b"]


@pytest.mark.parametrize("scalar", NEAR_MISSES)
def test_the_fast_reader_reads_each_scalar_as_pyyaml_or_not_at_all(scalar):
    for text in (f"k: {scalar}\n", f"k:\n  - {scalar}\n", f"a: 1\nk: {scalar}\nz:\n  - x\n"):
        fast = read_flat(text)
        if fast is not None:
            try:
                expected = yaml.load(text, Loader=yaml.SafeLoader)
            except yaml.YAMLError:
                raise AssertionError(f"read {text!r}, which PyYAML rejects") from None
            assert fast == expected and type(fast["k"]) is type(expected["k"]), text


def test_the_fast_reader_takes_a_typical_paper_note():
    meta = {"vaultsync_id": "edafe1a2ac5e0b4f", "type": "paper", "title": "AOEPT — a prompt: fashion",
            "aliases": ["AOEPT", "MCP"], "collection": "[[ICML 2026 Papers]]", "year": 2026,
            "concepts": ["[[Prompt Tuning]]"], "urls": [], "score": 3.0, "draft": False, "x": None}
    assert read_flat(dump_frontmatter(meta)) == meta


def _npm_yaml() -> Path | None:
    home = Path(os.environ.get("VAULTCHECK_HOME")
                or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vaultcheck")
    script = Path(__file__).resolve().parents[2] / "shared/tools/vaultcheck/yamlparse.js"
    if shutil.which("node") and (home / "node_modules/yaml").is_dir() and script.is_file():
        return home
    return None


@pytest.mark.skipif(_npm_yaml() is None, reason="npm yaml (Obsidian's parser) not installed")
def test_obsidians_yaml_parser_reads_the_same_values():
    home = _npm_yaml()
    script = Path(__file__).resolve().parents[2] / "shared/tools/vaultcheck/yamlparse.js"
    blocks = [{"id": str(i), "text": dump_frontmatter({"v": s, "l": [s]})}
              for i, s in enumerate(TRICKY)]
    proc = subprocess.run(["node", str(script)], input=json.dumps(blocks), text=True,
                          capture_output=True, env={**os.environ, "NODE_PATH": str(home / "node_modules")},
                          check=True)
    results = json.loads(proc.stdout)["results"]
    for s, res in zip(TRICKY, results):
        assert res["ok"], (s, res["errors"])
        assert res["value"] == {"v": s, "l": [s]}, s


# --------------------------------------------------------------------- region merge

def _no_markers(s: str) -> bool:
    return "%% vaultsync:" not in s


user_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60).filter(_no_markers)
bodies = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60).filter(_no_markers)


@settings(suppress_health_check=[HealthCheck.filter_too_much])
@given(before=user_text, after=user_text, body1=bodies, body2=bodies,
       title1=texts, title2=texts, extra=st.dictionaries(
           st.from_regex(r"my_[a-z]{1,6}", fullmatch=True), values, max_size=3))
def test_merge_keeps_user_text_outside_the_region_byte_for_byte(before, after, body1, body2,
                                                                 title1, title2, extra):
    before = before + "\n" if before else ""  # the begin marker stays on its own line
    fm1 = {"vaultsync_id": "abc", "title": title1}
    note = render_note(fm1, body1)
    yaml_text, rest = split_note(note)
    user_yaml = yaml_text + dump_frontmatter(extra)
    annotated = f"---\n{user_yaml}---\n{before}{rest}{after}"

    result = merge_note(annotated, {"vaultsync_id": "abc", "title": title2}, body2)

    assert result.conflict is None
    new_yaml, new_rest = split_note(result.text)
    assert read_frontmatter(new_yaml) == {"vaultsync_id": "abc", "title": title2, **extra}
    assert new_yaml.endswith(dump_frontmatter(extra))  # the user's keys, verbatim, in order
    assert new_rest.startswith(before)
    assert new_rest.endswith(END_MARKER + "\n" + after)
    again = merge_note(result.text, {"vaultsync_id": "abc", "title": title2}, body2)
    assert again.text == result.text


@given(before=user_text, after=user_text, body=bodies, edit=bodies)
def test_an_edit_inside_the_region_is_never_overwritten(before, after, body, edit):
    note = render_note({"vaultsync_id": "abc"}, body)
    normal = body if body.endswith("\n") or not body else body + "\n"
    edited_region = edit if edit.endswith("\n") or not edit else edit + "\n"
    edited = note.replace("\n" + normal + END_MARKER, "\n" + edited_region + END_MARKER, 1)
    result = merge_note(edited, {"vaultsync_id": "abc"}, body + "new sentence\n")
    if edited_region == normal:
        assert result.conflict is None
    else:
        assert result.text is None and "edited inside" in result.conflict
        assert "new sentence" in result.proposed


def test_an_edit_inside_an_unchanged_region_is_kept():
    note = render_note({"vaultsync_id": "abc"}, "generated\n")
    edited = note.replace("generated\n", "generated, and my correction\n")
    result = merge_note(edited, {"vaultsync_id": "abc", "title": "T"}, "generated\n")
    assert result.conflict is None
    assert "my correction" in result.text and "title: T" in result.text


@pytest.mark.parametrize("damage", [
    lambda t: t.replace("%% vaultsync:begin", "vaultsync begin"),
    lambda t: t.replace(END_MARKER + "\n", ""),
    lambda t: t + "%% vaultsync:end %%\n",
])
def test_removed_or_repeated_markers_are_a_conflict(damage):
    note = damage(render_note({"vaultsync_id": "abc"}, "generated\n"))
    result = merge_note(note, {"vaultsync_id": "abc"}, "new\n")
    assert result.text is None and "markers" in result.conflict


@pytest.mark.parametrize("broken", [
    "---\ntitle: [unclosed\n---\nbody\n",
    "---\n- a list\n---\nbody\n",
    "---\ntitle: no closing fence\n",
    "---\ntitle: a\ntitle: b\n\tbad: tab\n---\n",
])
def test_broken_yaml_is_a_conflict_not_a_crash(broken):
    result = merge_note(broken, {"vaultsync_id": "abc"}, "new\n")
    assert result.text is None and result.conflict


def test_user_keys_keep_their_text_order_and_comments():
    yaml_text = ("# my comment\nrating: 5   # out of 5\nvaultsync_id: abc\ntitle: Old\n"
                 "mine:\n- b\n- a\nstale: x\ntype: paper\nnotes: |\n  line one\n  line two\n")
    merged = merge_frontmatter(yaml_text, {"vaultsync_id": "abc", "type": "paper",
                                           "title": "New", "year": 2026}, ["stale"])
    assert merged == ("# my comment\nrating: 5   # out of 5\nvaultsync_id: abc\ntitle: New\n"
                      "year: 2026\nmine:\n- b\n- a\ntype: paper\nnotes: |\n  line one\n  line two\n")


def test_owned_keys_go_first_in_a_note_that_has_none():
    merged = merge_frontmatter("mine: 1\n", {"vaultsync_id": "abc", "type": "paper"})
    assert merged == "vaultsync_id: abc\ntype: paper\nmine: 1\n"


def test_frontmatter_only_update_keeps_the_body_and_crlf():
    note = "---\r\nvaultsync_id: abc\r\n---\r\nbody\r\n%% not ours %%\r\n"
    result = merge_note(note, {"vaultsync_id": "abc"}, None)
    assert result.text == note
    result = merge_note(note, {"vaultsync_id": "abc", "status": "removed"}, None)
    assert result.text.endswith("---\nbody\r\n%% not ours %%\r\n")
    assert "status: removed" in result.text


def test_crlf_note_merges_and_keeps_user_text():
    note = render_note({"vaultsync_id": "abc"}, "one\n").replace("\n", "\r\n") + "mine\r\n"
    result = merge_note(note, {"vaultsync_id": "abc"}, "one\n")
    assert result.conflict is None and result.text.endswith("mine\r\n")


def test_a_body_holding_a_marker_is_refused():
    with pytest.raises(ValueError):
        render_note({}, "x\n%% vaultsync:end %%\n")


def test_split_note_rejects_an_unterminated_fence():
    with pytest.raises(FrontmatterError):
        split_note("---\na: 1\n")
    assert split_note("no frontmatter\n---\n") == (None, "no frontmatter\n---\n")


def test_dumped_yaml_is_plain_where_it_is_safe():
    text = dump_frontmatter({"type": "paper", "title": "Sparse Mixture of Experts",
                             "year": 2026, "collection": "[[ICML 2026]]", "flag": "yes"})
    assert text == ('type: paper\ntitle: Sparse Mixture of Experts\nyear: 2026\n'
                    'collection: "[[ICML 2026]]"\nflag: "yes"\n')
    assert yaml.safe_load(text)["flag"] == "yes"


_MARKER_PIECES = ["%% vaultsync:begin sha=abc %%", "%% vaultsync:end %%", " %% vaultsync:end %%", "x%% vaultsync:begin %%",
                  "%% vaultsync:begin %% ", "%% vaultsync:end %%\r", "%% vaultsync:", "%% vaultsync:endx %%", "text", ""]


@given(st.lists(st.sampled_from(_MARKER_PIECES), max_size=8), st.sampled_from(["\n", "\r\n", ""]))
def test_marker_lines_finds_what_a_scan_of_every_line_finds(pieces, eol):
    from vaultsync.regions import _ANY_MARKER, BEGIN_LINE, END_LINE, marker_lines

    text = eol.join(pieces)
    for pattern in (BEGIN_LINE, END_LINE, _ANY_MARKER):
        assert [(m.span(), m.groups()) for m in marker_lines(pattern, text)] == \
            [(m.span(), m.groups()) for m in pattern.finditer(text)]
