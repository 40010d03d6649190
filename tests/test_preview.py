"""The watcher's preview: a new seed file's notes written at once, before the full run.

``Exporter.preview`` links only the new papers, against the concepts the vault already has; the
full ``run`` that follows must leave the vault exactly as a run without the preview would.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from vaultsync.pipeline import Exporter, ExportOptions
from vaultsync.plugins import get_plugin_manager
from vaultsync.records import text_id

ROOT = Path(__file__).resolve().parents[1]
FIRST, SECOND = "000_923012a2bb372482.txt", "001_476b98bb6ff612ae.txt"


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".vaultsync" not in p.parts}


def paragraphs(name: str) -> list[str]:
    return (ROOT / "seeds" / name).read_text("utf-8").split("\n\n")


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    """A vault exported from the first bundled seed file, and a second file to drop in."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    shutil.copy(ROOT / "seeds" / FIRST, seeds / FIRST)
    return seeds, tmp_path


def exported_then(corpus, step, name: str, monkeypatch) -> tuple[dict[str, bytes], list]:
    """Export the seeds to a fresh vault, drop ``SECOND`` in, let ``step`` bring it in."""
    seeds, tmp = corpus
    vault = tmp / name
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp / f"state-{name}"))
    folder = tmp / f"seeds-{name}"
    shutil.copytree(seeds, folder)
    with Exporter(folder, vault, get_plugin_manager(), ExportOptions()) as exporter:
        exporter.run()
        exporter.warm()
        shutil.copy(ROOT / "seeds" / SECOND, folder / SECOND)
        seen = step(exporter, vault)
    return tree(vault), seen


def test_the_preview_writes_the_new_papers_and_the_full_run_ends_where_it_would_have(corpus, monkeypatch):
    def with_preview(exporter, vault):
        preview = exporter.preview([SECOND])
        papers = {p.name for p in (vault / "Papers").glob("*.md")}
        exporter.run(changed=[SECOND])
        return [preview, papers]

    def without(exporter, vault):
        exporter.run(changed=[SECOND])
        return []

    previewed, (preview, papers_after_preview) = exported_then(corpus, with_preview, "a", monkeypatch)
    plain, _ = exported_then(corpus, without, "b", monkeypatch)

    new_ids = {text_id(p) for p in paragraphs(SECOND)[1:] if p.strip()}
    assert preview is not None and len(preview.created) == len(new_ids) > 0
    assert all(path.startswith("Papers/") for path in preview.created)
    assert {Path(p).name for p in preview.created} <= papers_after_preview
    assert previewed == plain


def test_a_previewed_note_links_the_concepts_the_vault_has(corpus, monkeypatch):
    def step(exporter, vault):
        preview = exporter.preview([SECOND])
        return [(vault / path).read_text("utf-8") for path in preview.created]

    _, notes = exported_then(corpus, step, "a", monkeypatch)
    linked = [re.findall(r"\[\[([^\]|]+)", note.split("\n---\n", 1)[1]) for note in notes]
    assert sum(bool(links) for links in linked) >= len(notes) // 2  # most papers link concepts
    concepts = {p.stem for p in (corpus[1] / "a" / "Concepts").glob("*.md")}
    papers = {p.stem for p in (corpus[1] / "a" / "Papers").glob("*.md")}
    collections = {p.stem for p in (corpus[1] / "a" / "Collections").glob("*.md")}
    for links in linked:  # every link resolves to a note already in the vault
        assert set(links) <= concepts | papers | collections, set(links) - concepts - papers - collections


def test_an_edited_abstract_is_not_previewed(corpus, monkeypatch):
    def step(exporter, vault):
        text = (exporter.seeds_dir / FIRST).read_text("utf-8")
        (exporter.seeds_dir / FIRST).write_text(text.replace(" the ", " a ", 1), "utf-8")
        before = tree(vault)
        return [exporter.preview([FIRST]), before == tree(vault)]

    _, (preview, untouched) = exported_then(corpus, step, "a", monkeypatch)
    assert preview is None and untouched


def test_a_preview_forgets_no_cached_extraction(corpus, monkeypatch):
    """A paper whose note the user deleted is still in its seed: the next run reads its cached
    extraction. A preview knows only the linked papers, so it must not forget the others."""
    seeds, tmp = corpus
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp / "state"))
    vault = tmp / "vault"
    with Exporter(seeds, vault, get_plugin_manager(), ExportOptions()) as exporter:
        exporter.run()
        gone = sorted((vault / "Papers").glob("*.md"))[0]
        gone_id = re.search(r"^vaultsync_id: (\S+)$", gone.read_text("utf-8"), re.M)[1]
        gone.unlink()  # the user deletes a paper's note
        exporter.session.refresh()  # (as the watcher does before each round)
        exporter.run()
        exporter.warm()
        def cached() -> set[str]:
            return {row[0] for row in exporter.session.state._db.execute("SELECT id FROM extractions")}

        assert gone_id in cached() and gone_id not in {p.id for p in exporter._model.papers}
        shutil.copy(ROOT / "seeds" / SECOND, seeds / SECOND)
        assert exporter.preview([SECOND]) is not None
        assert gone_id in cached()
        assert not gone.exists()


def test_no_preview_before_the_corpus_is_linked(corpus, monkeypatch):
    seeds, tmp = corpus
    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp / "state"))
    with Exporter(seeds, tmp / "vault", get_plugin_manager(), ExportOptions()) as exporter:
        assert exporter.preview([FIRST]) is None
        assert not (tmp / "vault" / "Papers").exists()


def test_a_round_is_put_off_when_more_files_change_and_reported_once_done(tmp_path, monkeypatch):
    """While a round's full run has not begun writing, a newer change puts it off: the files'
    notes were previewed already, and the redone round reports each file's papers once."""
    from vaultsync.watch import Watcher, WatchOptions

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    seeds, vault = tmp_path / "seeds", tmp_path / "vault"
    seeds.mkdir()
    shutil.copy(ROOT / "seeds" / FIRST, seeds / FIRST)
    said: list[str] = []
    with Exporter(seeds, vault, get_plugin_manager(), ExportOptions()) as exporter:
        watcher = Watcher(exporter, WatchOptions(say=said.append, warn=said.append))
        watcher.catch_up()
        head, *rest = paragraphs(SECOND)
        (seeds / "a.txt").write_text("\n\n".join([head, *rest[:3]]), "utf-8")
        watcher._queue = ["another file changed meanwhile"]  # what the observer's queue holds
        assert watcher._run({"a.txt"}) is None  # put off before writing ...
        previewed = {p.name for p in (vault / "Papers").glob("*.md")}
        assert not any("a.txt" in line for line in said)
        (seeds / "b.txt").write_text("\n\n".join([head, *rest[3:5]]), "utf-8")
        watcher._queue = []
        report = watcher._run({"a.txt", "b.txt"})  # ... and redone with the newer file
    assert report is not None and watcher.runs == 2
    assert len(previewed) == len(paragraphs(FIRST)) - 1 + 3  # a.txt's notes were written at once
    assert [line.split(" · ")[0] for line in said if "from" in line] == [
        f"+3 papers from {seeds / 'a.txt'}", f"+2 papers from {seeds / 'b.txt'}"]


def test_papers_previewed_by_a_watcher_killed_before_its_round_ended_are_still_news(corpus, monkeypatch):
    """Killed after its preview, while its full round was writing: the next export lists the
    previewed papers in `New papers.md` as new (not as edited abstracts), like a round that ended."""
    from vaultsync.sync_run import SyncRun

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")

    def killed_after_the_preview(exporter, vault):
        exporter.preview([SECOND])
        with monkeypatch.context() as patch:
            patch.setattr(SyncRun, "save_state", lambda *args: (_ for _ in ()).throw(KeyboardInterrupt()))
            with pytest.raises(KeyboardInterrupt):
                exporter.run(changed=[SECOND])
        return []

    def uninterrupted(exporter, vault):
        exporter.run(changed=[SECOND])
        return []

    seeds, tmp = corpus
    exported_then(corpus, killed_after_the_preview, "killed", monkeypatch)
    with Exporter(tmp / "seeds-killed", tmp / "killed", get_plugin_manager(), ExportOptions()) as exporter:
        exporter.run()  # the next start
    exported_then(corpus, uninterrupted, "plain", monkeypatch)
    digest = (tmp / "killed" / "New papers.md").read_text("utf-8")
    assert "(abstract edited)" not in digest
    assert digest == (tmp / "plain" / "New papers.md").read_text("utf-8")
