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
