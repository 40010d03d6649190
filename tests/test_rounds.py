"""A watcher's rounds: put off while more seed files change, and a round killed while writing
leaves news that the next start reports as news. (A round is one run of the linker kept between
runs: ``tests/test_order_free.py`` compares rounds with a one-shot export.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vaultsync.pipeline import Exporter, ExportOptions
from vaultsync.plugins import get_plugin_manager

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


def test_a_round_is_put_off_when_more_files_change_and_reported_once_done(tmp_path, monkeypatch):
    """While a round has not begun writing, a newer change puts it off (nothing written), and the
    redone round reports each file's papers once."""
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
        written = {p.name for p in (vault / "Papers").glob("*.md")}
        assert not any("a.txt" in line for line in said)
        (seeds / "b.txt").write_text("\n\n".join([head, *rest[3:5]]), "utf-8")
        watcher._queue = []
        report = watcher._run({"a.txt", "b.txt"})  # ... and redone with the newer file
    assert report is not None and watcher.runs == 2
    assert len(written) == len(paragraphs(FIRST)) - 1  # a.txt's notes waited for the round
    assert [line.split(" · ")[0] for line in said if "from" in line] == [
        f"+3 papers from {seeds / 'a.txt'}", f"+2 papers from {seeds / 'b.txt'}"]


def test_papers_of_a_round_killed_while_writing_are_still_news(corpus, monkeypatch):
    """Killed while its round was writing: the next export lists the round's papers in
    `New papers.md` as new (not as edited abstracts), like a round that ended."""
    from vaultsync.sync_run import SyncRun

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")

    def killed_while_writing(exporter, vault):
        with monkeypatch.context() as patch:
            patch.setattr(SyncRun, "save_state", lambda *args: (_ for _ in ()).throw(KeyboardInterrupt()))
            with pytest.raises(KeyboardInterrupt):
                exporter.run(changed=[SECOND])
        return []

    def uninterrupted(exporter, vault):
        exporter.run(changed=[SECOND])
        return []

    seeds, tmp = corpus
    exported_then(corpus, killed_while_writing, "killed", monkeypatch)
    with Exporter(tmp / "seeds-killed", tmp / "killed", get_plugin_manager(), ExportOptions()) as exporter:
        exporter.run()  # the next start
    exported_then(corpus, uninterrupted, "plain", monkeypatch)
    digest = (tmp / "killed" / "New papers.md").read_text("utf-8")
    assert "(abstract edited)" not in digest
    assert digest == (tmp / "plain" / "New papers.md").read_text("utf-8")
