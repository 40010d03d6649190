"""What's new: `New papers.md` and the daily note, after each sync."""

from __future__ import annotations

import datetime as dt
import json
from typing import Iterable

import pytest

from vaultsync.records import SyncReport
from vaultsync.regions import render_note
from vaultsync.views.daily_note import entry_key, format_moment
import vaultsync.views.digest as digest_mod
from vaultsync.views.digest import (DIGEST_NOTE, SEEN_FILE, DigestEntry, _seen_text, append_to_daily_note, digest_body,
                                    digest_date, update_digest,
                                    vaultsync_sync_finished)

DAY1, DAY2 = dt.date(2026, 5, 14), dt.date(2026, 5, 15)


def write_paper(vault, name, vid, collection="ICML 2026 Papers", concepts=("A", "B", "C", "D"),
                title=None):
    fm = {"vaultsync_id": vid, "type": "paper", "title": title or f"{name} — does {name.lower()} things",
          "collection": f"[[{collection}]]", "concepts": [f"[[{c}]]" for c in concepts], "tags": ["paper"]}
    path = vault / "Papers" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_note(fm, f"# {name}\n"), "utf-8")
    return f"Papers/{name}.md"


def digest_text(vault):
    return (vault / DIGEST_NOTE).read_text("utf-8")


def test_new_papers_are_listed_by_day_and_collection(tmp_path):
    a = write_paper(tmp_path, "Alpha", "id-a")
    b = write_paper(tmp_path, "Beta", "id-b", collection="NeurIPS 2025", concepts=("X",))
    concept = tmp_path / "Concepts" / "A.md"
    concept.parent.mkdir()
    concept.write_text(render_note({"type": "concept"}, "# A\n"))
    result = update_digest(tmp_path, SyncReport(created=(b, a, "Concepts/A.md")), today=DAY1)
    assert result.written == (DIGEST_NOTE,)
    text = digest_text(tmp_path)
    assert text.startswith("---\ntype: digest\n")
    assert "%% vaultsync:begin sha=" in text and text.rstrip().endswith("%% vaultsync:end %%")
    body = text[text.index("## 2026-05-14"):]
    assert body.index("### [[ICML 2026 Papers]]") < body.index("- [[Alpha]]") < body.index("### [[NeurIPS 2025]]")
    assert "- [[Alpha]] — does alpha things · [[A]], [[B]], [[C]]\n" in text  # top three concepts
    assert "- [[Beta]] — does beta things · [[X]]\n" in text
    assert "[[A]]\n" not in text.split("- [[Alpha]]")[0]  # the concept note is not a paper


def test_history_accumulates_newest_day_first_and_a_paper_appears_once_a_day(tmp_path):
    a, b = write_paper(tmp_path, "Alpha", "id-a"), write_paper(tmp_path, "Beta", "id-b")
    update_digest(tmp_path, SyncReport(created=(a,)), today=DAY1)
    update_digest(tmp_path, SyncReport(created=(a, b)), today=DAY1)
    text = digest_text(tmp_path)
    assert text.count("- [[Alpha]]") == 1 and text.count("- [[Beta]]") == 1
    assert text.count("## 2026-05-14") == 1
    c = write_paper(tmp_path, "Gamma", "id-c")
    update_digest(tmp_path, SyncReport(created=(c,)), today=DAY2)
    text = digest_text(tmp_path)
    assert text.index("## 2026-05-15") < text.index("- [[Gamma]]") < text.index("## 2026-05-14")
    assert text.index("## 2026-05-14") < text.index("- [[Alpha]]")


def test_the_users_text_around_and_inside_the_region_is_kept(tmp_path):
    a, b = write_paper(tmp_path, "Alpha", "id-a"), write_paper(tmp_path, "Beta", "id-b")
    update_digest(tmp_path, SyncReport(created=(a,)), today=DAY1)
    text = digest_text(tmp_path)
    text = text.replace("---\n%% vaultsync:begin", "---\nMy reading plan.\n%% vaultsync:begin")
    text = text.replace("does alpha things", "does alpha things (read it!)") + "\nMy notes.\n"
    text = text.replace("tags:", "rating: 5\ntags:")
    (tmp_path / DIGEST_NOTE).write_text(text)
    update_digest(tmp_path, SyncReport(created=(b,)), today=DAY2)
    new = digest_text(tmp_path)
    assert "My reading plan.\n%% vaultsync:begin" in new and new.endswith("%% vaultsync:end %%\n\nMy notes.\n")
    assert "(read it!)" in new and "rating: 5" in new and "- [[Beta]]" in new


def test_only_papers_whose_abstract_changed_count_as_updates(tmp_path):
    a, b = write_paper(tmp_path, "Alpha", "id-a"), write_paper(tmp_path, "Beta", "id-b")
    # no record yet: an update is not news, and the ids now in the vault are remembered
    assert update_digest(tmp_path, SyncReport(updated=(a,)), today=DAY1).entries == ()
    assert not (tmp_path / DIGEST_NOTE).exists()
    assert json.loads((tmp_path / SEEN_FILE).read_text())["papers"] == ["id-a", "id-b"]
    write_paper(tmp_path, "Alpha", "id-a2")  # its abstract was edited: the id changed
    result = update_digest(tmp_path, SyncReport(updated=(a, b)), today=DAY1)
    assert [e.paper for e in result.entries] == ["Alpha"]
    assert "- [[Alpha]] (abstract edited) — does alpha things" in digest_text(tmp_path)


def test_nothing_new_writes_nothing(tmp_path):
    assert update_digest(tmp_path, SyncReport(), today=DAY1).written == ()
    assert list(tmp_path.iterdir()) == []  # not even the record of seen papers


def test_a_note_with_broken_markers_is_not_clobbered(tmp_path):
    a = write_paper(tmp_path, "Alpha", "id-a")
    (tmp_path / DIGEST_NOTE).write_text("My own page about new papers.\n")
    result = update_digest(tmp_path, SyncReport(created=(a,)), today=DAY1)
    assert (tmp_path / DIGEST_NOTE).read_text() == "My own page about new papers.\n"
    assert "not updated" in result.problems[0]
    assert "- [[Alpha]]" in (tmp_path / ".vaultsync/conflicts" / DIGEST_NOTE).read_text()


def test_today_honours_source_date_epoch(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(dt.datetime(2026, 5, 14, 23, tzinfo=dt.timezone.utc).timestamp())))
    assert digest_date() == DAY1
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert digest_date(dt.datetime(2027, 1, 2, 3)) == dt.date(2027, 1, 2)


@pytest.mark.parametrize("fmt, expected", [
    ("YYYY-MM-DD", "2026-05-04"), ("YY/M/D", "26/5/4"), ("dddd, MMMM Do YYYY", "Monday, May 4th 2026"),
    ("ddd D MMM", "Mon 4 May"), ("[Week of] YYYY-MM-DD", "Week of 2026-05-04"), ("YYYY/MM/[Day] DD", "2026/05/Day 04"),
])
def test_moment_formats(fmt, expected):
    assert format_moment(fmt, dt.date(2026, 5, 4)) == expected


@pytest.mark.parametrize("day, suffix", [(1, "1st"), (2, "2nd"), (3, "3rd"), (11, "11th"), (12, "12th"),
                                          (13, "13th"), (21, "21st"), (22, "22nd"), (23, "23rd"), (30, "30th")])
def test_ordinal_days(day, suffix):
    assert format_moment("Do", dt.date(2026, 1, day)) == suffix


LINES = ["- [[Alpha]] — does alpha things · [[A]]", "- [[Beta]] — does beta things"]


def test_without_daily_note_settings_only_an_existing_note_is_appended_to(tmp_path):
    assert append_to_daily_note(tmp_path, LINES, DAY1) is None
    assert list(tmp_path.iterdir()) == []
    note = tmp_path / "2026-05-14.md"
    note.write_text("---\nmood: good\n---\nMet Ana.", "utf-8")
    assert append_to_daily_note(tmp_path, LINES, DAY1) == "2026-05-14.md"
    text = note.read_text("utf-8")
    assert text.startswith("---\nmood: good\n---\nMet Ana.\n\n%% vaultsync:begin sha=")
    assert "[[New papers]]" in text and LINES[0] in text and text.endswith("%% vaultsync:end %%\n")


def test_daily_note_settings_say_where_and_the_note_is_created_from_the_template(tmp_path):
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian/daily-notes.json").write_text(json.dumps(
        {"folder": "Journal/", "format": "YYYY/MMMM/Do", "template": "Templates/Day"}))
    (tmp_path / "Templates").mkdir()
    (tmp_path / "Templates/Day.md").write_text("# {{title}} ({{date:dddd}})\n\n## Log\n")
    rel = append_to_daily_note(tmp_path, LINES[:1], DAY1)
    assert rel == "Journal/2026/May/14th.md"
    text = (tmp_path / rel).read_text()
    assert text.startswith("# 14th (Thursday)\n\n## Log\n\n%% vaultsync:begin")
    # a later sync the same day adds only the lines the note lacks; the user's text stays
    (tmp_path / rel).write_text(text + "\nEvening: read Alpha.\n")
    assert append_to_daily_note(tmp_path, LINES, DAY1) == rel
    text = (tmp_path / rel).read_text()
    assert text.count("- [[Alpha]]") == 1 and "- [[Beta]]" in text
    assert text.endswith("%% vaultsync:end %%\n\nEvening: read Alpha.\n")
    assert append_to_daily_note(tmp_path, LINES, DAY1) is None  # nothing to add


def test_the_hook_appends_to_the_daily_note_when_the_config_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1778716800")  # 2026-05-14
    a = write_paper(tmp_path, "Alpha", "id-a")
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian/daily-notes.json").write_text("{}")
    vaultsync_sync_finished(report=SyncReport(created=(a,)), vault=tmp_path, config={})
    assert "- [[Alpha]]" in digest_text(tmp_path) and not (tmp_path / "2026-05-14.md").exists()
    b = write_paper(tmp_path, "Beta", "id-b")
    vaultsync_sync_finished(report=SyncReport(created=(b,)), vault=tmp_path, config={"digest": {"daily": True}})
    assert "- [[Beta]]" in (tmp_path / "2026-05-14.md").read_text()


def test_links_in_the_history_follow_a_renamed_paper_and_a_deleted_concept_is_unlinked(tmp_path, monkeypatch):
    """End to end: the user renames a paper note in a file manager and deletes a concept note;
    the next sync's ``New papers.md`` links the new name and no longer links the deleted note."""
    from pathlib import Path

    from vaultsync.doctor import diagnose
    from vaultsync.frontmatter_io import read_frontmatter, split_note
    from vaultsync.pipeline import export
    from vaultsync.plugins import get_plugin_manager

    root = Path(__file__).resolve().parents[1]
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    seeds, vault = tmp_path / "seeds", tmp_path / "vault"
    seeds.mkdir()
    seed = (root / "seeds/000_923012a2bb372482.txt").read_text(encoding="utf-8")
    (seeds / "a.txt").write_text("\n\n".join(seed.split("\n\n")[:4]) + "\n", encoding="utf-8")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1778716800")  # DAY1
    export(seeds, vault, get_plugin_manager())
    note = sorted((vault / "Papers").glob("*.md"))[0]
    concepts = read_frontmatter(split_note(note.read_text("utf-8"))[0])["concepts"]
    deleted = concepts[0][2:-2]
    assert f"[[{note.stem}]]" in digest_text(vault) and f"[[{deleted}]]" in digest_text(vault)
    note.rename(note.with_name("My own name.md"))
    (vault / "Concepts" / f"{deleted}.md").unlink()
    (seeds / "a.txt").write_text(seed, encoding="utf-8")  # a later day: more papers
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1778803200")  # DAY2
    export(seeds, vault, get_plugin_manager())
    text = digest_text(vault)
    assert "## 2026-05-14" in text and "[[My own name]]" in text
    assert f"[[{note.stem}]]" not in text and f"[[{deleted}]]" not in text and f"[[{deleted}|" not in text
    assert [f for f in diagnose(vault) if f.check == "unresolved-link" and f.path == DIGEST_NOTE] == []


def _fresh_body(region, entries, today):
    """``digest_body`` parsing ``region`` afresh (what it makes without its last body)."""
    digest_mod._last_body = None
    return digest_body(region, entries, today)


def test_a_digest_given_back_the_body_it_made_writes_what_a_fresh_parse_writes():
    # a watcher's rounds: each call is given the body the last one made, whose parse it kept;
    # the result must be what parsing that body gives (a paper again, a collection emptied and
    # filled again, a line that does not read back as one line, a user's edit, another day)
    day = dt.date(2024, 5, 1)
    rounds = [
        (day, [DigestEntry("[[B]]", "p1", "- [[p1]] — one"), DigestEntry("[[A]]", "p2", "- [[p2]] — two")]),
        (day, [DigestEntry("[[C]]", "P1", "- [[P1]] (abstract edited) — one again")]),  # [[B]] emptied
        (day, [DigestEntry("[[B]]", "p6", "- [[p6]] — six")]),
        (day, [DigestEntry("[[A]]", "p3", "- [[p3]] — a title\nwith a line break")]),  # does not read back
        (day, [DigestEntry("[[A]]", "p4", "- [[p4]] — four"), DigestEntry("[[D]]\u2028x", "p5", "- [[p5]]")]),
        (day, [DigestEntry("[[A]]", "p7", "- [[p7]] — seven")]),
        (day, [DigestEntry("[[A]]", "p2", "- [[p2]] — two, edited")]),
        (day + dt.timedelta(days=1), [DigestEntry("[[A]]", "p8", "- [[p8]]")]),
    ]
    region, hits = "## 2024-04-30\n\n### [[Old]]\n\n- [[p0]] — zero\n", 0
    for number, (today, entries) in enumerate(rounds):
        hits += digest_mod._last_body is not None and digest_mod._last_body[1] == region
        expected = _reference_body(region, entries, today)
        region = digest_body(region, entries, today)
        assert region == expected, number
        if number == 5:
            region = region.replace("— four", "— FOUR")  # the user's edit: parsed afresh
    assert hits >= 4  # (the kept parse was used)


def test_the_seen_file_is_written_as_json_with_no_indent_writes_it():
    for ids in ([], ["a"], ["a", 'b"\\', "é\u2028\n"]):
        assert _seen_text(ids) == json.dumps({"papers": ids}, indent=0) + "\n"


# digest_body and _today_section as they were before the parse was kept (the reference)
def _reference_body(region: str | None, entries: Iterable[DigestEntry], today: dt.date) -> str:
    """The digest region: the intro, today's section (old and new entries), then earlier days
    exactly as ``region`` has them."""
    lines = (region or "").splitlines()
    starts = [i for i, line in enumerate(lines) if digest_mod._DAY.match(line)] + [len(lines)]
    days = [(lines[a], lines[a + 1:b]) for a, b in zip(starts, starts[1:])]
    heading = f"## {today.isoformat()}"
    todays = next((block for head, block in days if head.strip() == heading), [])
    parts = [digest_mod.INTRO, _reference_today(heading, todays, entries)]
    for head, block in days:
        if head.strip() != heading:
            parts.append("\n".join([head, *block]).strip("\n") + "\n")
    return "\n".join(parts)


def _reference_today(heading: str, old: list[str], entries: Iterable[DigestEntry]) -> str:
    sections: dict[str, list[str]] = {}
    current = None
    for line in old:
        found = digest_mod._COLLECTION.match(line)
        if found:
            current = found.group(1)
            sections.setdefault(current, [])
        elif line.strip():
            sections.setdefault(current or "Other papers", []).append(line)
    new_by_collection: dict[str, list[DigestEntry]] = {}
    for entry in entries:
        new_by_collection.setdefault(f"{entry.collection}", []).append(entry)
    # once per day: the newer line replaces the older (lines are dropped by key, not rescanned)
    numbered: dict[str, list[tuple[int, str]]] = {collection: [] for collection in sections}
    by_key: dict[str | None, list[int]] = {}
    dropped: set[int] = set()
    serial = 0
    for collection, lines in sections.items():
        for line in lines:
            numbered[collection].append((serial, line))
            by_key.setdefault(entry_key(line), []).append(serial)
            serial += 1
    for collection, items in sorted(new_by_collection.items(), key=lambda kv: kv[0].casefold()):
        for entry in sorted(items, key=lambda e: (e.paper.casefold(), e.paper)):
            dropped.update(by_key.pop(entry.paper.casefold(), ()))
            numbered.setdefault(collection, []).append((serial, entry.line))
            by_key.setdefault(entry_key(entry.line), []).append(serial)
            serial += 1
    out = [heading, ""]
    for collection, numbered_lines in numbered.items():
        lines = [line for number, line in numbered_lines if number not in dropped]
        if lines:
            out += [f"### {collection}", "", *lines, ""]
    return "\n".join(out).rstrip("\n") + "\n"
