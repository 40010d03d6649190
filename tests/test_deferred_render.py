"""A note rendered from the same inputs as in the last run is not rendered again (``DeferredNote``):
the vault ends exactly as when every note is rendered, and a user's edit or deletion of a note is
still seen."""

from __future__ import annotations

import dataclasses
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from vaultsync.default_plugins import obsidian
from vaultsync.pipeline import Exporter, ExportOptions, export
from vaultsync.plugins import get_plugin_manager
from vaultsync.records import CollectionInfo, Concept, DeferredNote, Paper
from vaultsync.render import render_lazily
from vaultsync.write import file_signature

ROOT = Path(__file__).resolve().parents[1]
FIRST, SECOND = "000_923012a2bb372482.txt", "001_476b98bb6ff612ae.txt"


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".vaultsync" not in p.parts}


@pytest.fixture
def seeds(tmp_path) -> Path:
    folder = tmp_path / "seeds"
    folder.mkdir()
    shutil.copy(ROOT / "seeds" / FIRST, folder / FIRST)
    return folder


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    """The names of the notes the built-in renderer renders."""
    seen: list[str] = []
    for name in ("render_paper", "render_concept", "render_collection"):
        original = getattr(obsidian, name)

        def counted(subject, model, original=original):
            seen.append(subject.name)
            return original(subject, model)
        monkeypatch.setattr(obsidian, name, counted)
    return seen


def _edit_a_paragraph(seeds: Path) -> None:
    path = seeds / FIRST
    head, first, *rest = path.read_text("utf-8").split("\n\n")
    path.write_text("\n\n".join([head, first.replace(" the ", " a ", 1), *rest]), "utf-8")


STEPS = {
    "a new seed file": lambda seeds: shutil.copy(ROOT / "seeds" / SECOND, seeds / SECOND),
    "an edited paragraph": _edit_a_paragraph,
    "a removed seed file": lambda seeds: (seeds / SECOND).unlink(),
}


def test_skipping_unchanged_notes_writes_what_rendering_every_note_writes(seeds, tmp_path, monkeypatch):
    def run_all(name: str, slow: bool) -> list:
        folder = tmp_path / f"seeds-{name}"
        shutil.copytree(seeds, folder)
        monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / f"state-{name}"))
        if slow:
            monkeypatch.setenv("VAULTSYNC_SLOW_PATH", "1")  # renders every note
        else:
            monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)
        vault = tmp_path / name
        steps = [export(folder, vault, get_plugin_manager())]
        for step in STEPS.values():
            step(folder)
            report = export(folder, vault, get_plugin_manager())
            steps.append((report, tree(vault)))
        return steps

    fast, slow = run_all("fast", slow=False), run_all("slow", slow=True)
    for (got, got_tree), (want, want_tree) in zip(fast[1:], slow[1:]):
        assert not got.errors and not got.conflicts
        assert got_tree == want_tree
        assert (got.created, got.updated, got.removed, got.unchanged) == (
            want.created, want.updated, want.removed, want.unchanged)
    assert any(report.created for report, _ in fast[1:]) and any(report.removed for report, _ in fast[1:])


def test_a_run_renders_only_the_notes_whose_inputs_changed(seeds, tmp_path, monkeypatch, renders):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)
    vault = tmp_path / "vault"
    with Exporter(seeds, vault, get_plugin_manager()) as exporter:
        first = exporter.run()
        assert len(renders) == len(first.created) - 1 - sum(p.startswith("Maps/") for p in first.created)  # Index
        renders.clear()
        again = exporter.run(changed=[FIRST])  # read and linked again; nothing new
        assert renders == [] and not again.created and not again.updated
        shutil.copy(ROOT / "seeds" / SECOND, seeds / SECOND)
        added = exporter.run()
    written = {Path(p).stem for p in added.created + added.updated if p.endswith(".md")}
    assert set(renders) == written - {"Index"}  # no note rendered for nothing


def test_a_note_the_user_edited_is_rendered_and_merged(seeds, tmp_path, monkeypatch, renders):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)
    vault = tmp_path / "vault"
    with Exporter(seeds, vault, get_plugin_manager()) as exporter:
        exporter.run()
        note = sorted((vault / "Papers").glob("*.md"))[0]
        note.write_text(note.read_text("utf-8") + "\nMy own remark.\n", "utf-8")
        inside = sorted((vault / "Concepts").glob("*.md"))[0]
        inside.write_text(inside.read_text("utf-8").replace("## Papers", "## My papers"), "utf-8")
        gone = sorted((vault / "Papers").glob("*.md"))[1]
        gone.unlink()
        renders.clear()
        report = exporter.run(changed=[FIRST])
    assert sorted(renders) == sorted([note.stem, inside.stem])  # the deleted note is not rendered
    assert note.read_text("utf-8").endswith("\nMy own remark.\n") and not report.updated
    assert "## My papers" in inside.read_text("utf-8")  # edited in the region: kept
    assert not gone.exists()


def test_a_deferred_note_is_the_note_it_renders(seeds, tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)
    pm = get_plugin_manager()
    with Exporter(seeds, tmp_path / "vault", pm, ExportOptions(dry_run=True)) as exporter:
        _, _, model = exporter._read_extract_link()
    deferred = [f for f in render_lazily(model, "obsidian", pm, defer=True) if isinstance(f, DeferredNote)]
    plain = {f.vaultsync_id: f for f in render_lazily(model, "obsidian", pm)}
    assert len(deferred) == len(model.papers) + len(model.concepts) + len(model.collections)
    for note in deferred:
        rendered = note.render()
        assert rendered == plain[note.vaultsync_id]
        assert (note.path, note.vaultsync_id, note.kind) == (rendered.path, rendered.vaultsync_id, rendered.kind)


def _linked(seeds, tmp_path, pm):
    """The model a run links from ``seeds`` (a dry run: nothing written)."""
    with Exporter(seeds, tmp_path / "vault", pm, ExportOptions(dry_run=True)) as exporter:
        return exporter._read_extract_link()[2]


def test_a_plugin_rendering_notes_turns_deferring_off(seeds, tmp_path, monkeypatch):
    from vaultsync.hookspecs import hookimpl

    class Plugin:
        @hookimpl
        def vaultsync_render_note(self, subject, format, model):
            return None

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    pm = get_plugin_manager()
    model = _linked(seeds, tmp_path, pm)
    pm.register(Plugin(), name="mine")
    try:
        assert not any(isinstance(f, DeferredNote) for f in render_lazily(model, "obsidian", pm, defer=True))
    finally:
        pm.unregister(name="mine")


def _other(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple):
        return value + (value[0] if value else "x",)
    return {**value, "extra": "x"}  # metadata


def test_the_inputs_key_covers_every_field_the_renderer_may_read(seeds, tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    with Exporter(seeds, tmp_path / "vault", get_plugin_manager(), ExportOptions(dry_run=True)) as exporter:
        _, _, model = exporter._read_extract_link()
    # a paper listing another, with the reason shown (the bundled seeds may relate none)
    paper = dataclasses.replace(model.papers[0], related=(model.papers[1].id,), related_shares=("Graphs",))
    concept = next(c for c in model.concepts if c.papers and c.broader)
    collection = model.collections[0]
    variants = []
    for subject in (paper, concept, collection):
        for f in dataclasses.fields(subject):
            value = getattr(subject, f.name)
            if dataclasses.is_dataclass(value):  # the abstract, its collection
                for g in dataclasses.fields(value):
                    inner = getattr(value, g.name)
                    if dataclasses.is_dataclass(inner):
                        inner = {h.name: getattr(inner, h.name) for h in dataclasses.fields(inner)}
                        for name, v in inner.items():
                            changed = dataclasses.replace(getattr(value, g.name), **{name: _other(v or 1)})
                            variants.append(dataclasses.replace(subject, **{
                                f.name: dataclasses.replace(value, **{g.name: changed})}))
                    else:
                        variants.append(dataclasses.replace(subject, **{
                            f.name: dataclasses.replace(value, **{g.name: _other(inner)})}))
            elif f.name not in ("related", "papers"):  # ids of papers the model must know
                variants.append(dataclasses.replace(subject, **{f.name: _other(value)}))
    # a paper of another text is another paper (id): let the model place it in the same collection
    anywhere = dataclasses.replace(model)
    anywhere.caches["collection_by_id"] = defaultdict(lambda: model.collection_of(paper.id))
    for variant in variants:
        original = {Paper: paper, Concept: concept, CollectionInfo: collection}[type(variant)]
        assert obsidian.inputs_key(variant, anywhere) != obsidian.inputs_key(original, anywhere), variant
    # what it lists of other papers: their names and gists
    listed = model.paper(paper.related[0])
    renamed = dataclasses.replace(model, papers=tuple(
        dataclasses.replace(p, gist=p.gist + "x") if p is listed else p for p in model.papers))
    assert obsidian.inputs_key(paper, renamed) != obsidian.inputs_key(paper, model)
    assert obsidian.inputs_key(dataclasses.replace(paper, metadata={"x": object()}), model) is None


def test_a_plugin_format_wrapping_the_built_in_one_gets_rendered_notes(seeds, tmp_path, monkeypatch):
    from vaultsync.hookspecs import hookimpl

    class Wrapped:
        name, description = "wrapped", "The obsidian format, notes upper-cased."

        def render(self, model, context):
            for f in obsidian.ObsidianFormat().render(model, context):
                yield dataclasses.replace(f, body=f.body.upper())

    class Plugin:
        @hookimpl
        def vaultsync_register_formats(self, register):
            register(Wrapped())

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    pm = get_plugin_manager()
    model = _linked(seeds, tmp_path, pm)
    pm.register(Plugin(), name="wrapped")
    try:
        files = list(render_lazily(model, "wrapped", pm, defer=True))
    finally:
        pm.unregister(name="wrapped")
    assert files and not any(isinstance(f, DeferredNote) for f in files)


def test_a_copied_vault_is_not_rendered_again_and_is_signed_anew(seeds, tmp_path, monkeypatch, renders):
    """Copied, restored or pulled with git, a vault's notes have new inodes and times but the
    bytes vaultsync wrote: they are recognised by their hash, and their new signature recorded."""
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)
    vault = tmp_path / "vault"
    with Exporter(seeds, vault, get_plugin_manager()) as exporter:
        exporter.run()
        notes = sorted(vault.rglob("*.md"))
        for note in notes:  # a new file (a new inode) with the same bytes
            data = note.read_bytes()
            note.unlink()
            note.write_bytes(data)
        edited = notes[-1]
        edited.write_text(edited.read_text("utf-8") + "\nMine.\n", "utf-8")
        renders.clear()
        report = exporter.run(changed=[FIRST])
        assert renders == [edited.stem] and not report.updated and not report.created
        assert edited.read_text("utf-8").endswith("\nMine.\n")
        records = {rec.path: rec for rec in exporter.session.state.notes().values()}
    ours = [n for n in notes if n.relative_to(vault).as_posix() in records]  # not the digest's note
    assert len(ours) == len(notes) - 1
    assert all(records[n.relative_to(vault).as_posix()].signature == file_signature(n) for n in ours)


def test_a_plugin_format_that_declares_deferred_rendering_may_defer(seeds, tmp_path, monkeypatch):
    from vaultsync.hookspecs import hookimpl

    asked = []

    class Deferring:
        name, description = "deferring", "Says whether it may defer."
        supports_deferred_render = True

        def render(self, model, context):
            asked.append(context.may_defer)
            return iter(())

    class Plugin:
        @hookimpl
        def vaultsync_register_formats(self, register):
            register(Deferring())

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("VAULTSYNC_SLOW_PATH", raising=False)
    pm = get_plugin_manager()
    model = _linked(seeds, tmp_path, pm)
    pm.register(Plugin(), name="deferring")
    try:
        list(render_lazily(model, "deferring", pm, defer=True))  # obsidian's renderer is not this module's
        pm.unregister(name="obsidian")
        list(render_lazily(model, "deferring", pm, defer=True))
    finally:
        pm.unregister(name="deferring")
    assert asked == [False, True]
