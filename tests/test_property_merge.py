"""Properties the user edits in Obsidian (tags, aliases, title) survive every sync: a three-way
merge against what vaultsync last proposed, never a silent revert."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vaultsync.property_merge import merge_properties

values = st.lists(st.sampled_from(["paper", "icml-2026", "to-read", "ml", "A", "B", "C"]), unique=True)


@given(base=values, current=values, new=values)
def test_a_list_keeps_what_the_user_added_and_drops_what_either_side_removed(base, current, new):
    merged = merge_properties({"tags": new}, {"tags": current}, {"tags": base})["tags"]
    assert len(merged) == len(set(merged))
    for value in current:
        if value not in base:
            assert value in merged  # the user added it
    for value in base:
        if value not in new or value not in current:
            assert value not in merged  # vaultsync or the user removed it
    for value in new:
        if value in current or value not in base:
            assert value in merged  # vaultsync's, and the user did not remove it
    assert [v for v in merged if v in new] == [v for v in new if v in merged]  # vaultsync's order first


@given(current=values, new=values)
def test_without_a_base_nothing_in_the_note_is_dropped(current, new):
    merged = merge_properties({"aliases": new}, {"aliases": current}, None)["aliases"]
    assert set(merged) == set(current) | set(new)


def test_a_title_the_user_changed_is_kept_and_vaultsyncs_changes_apply_otherwise():
    base = {"title": "Alpha — old gist"}
    assert merge_properties({"title": "Alpha — new gist"}, {"title": "My title"}, base)["title"] == "My title"
    assert merge_properties({"title": "Alpha — new gist"}, base, base)["title"] == "Alpha — new gist"


def test_a_scalar_tag_written_by_hand_counts_as_a_list():
    merged = merge_properties({"tags": ["paper"]}, {"tags": "to-read"}, {"tags": ["paper"]})
    assert merged["tags"] == ["to-read"]  # "paper" was removed by the user, "to-read" added
