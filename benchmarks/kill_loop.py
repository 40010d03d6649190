"""`kill -9` over `vaultsync export` and `vaultsync watch` at random moments, again and again:
does one clean run afterwards always leave the vault exactly as a never-killed run would?

    python benchmarks/kill_loop.py [--papers 300] [--kills 60] [--seed 19] [--keep DIR]

Generates a corpus (``benchmarks/corpus.py``), exports it once (the *base*: vault and state),
and for each kind of change to the seeds -- a new seed file, abstracts edited in one and added to
another, a seed file deleted -- makes a *reference*: the base, the change, one clean export.
Then, round after round, it restores the base, makes a change at random and

- ``export``: runs the real ``vaultsync export`` and sends it SIGKILL at a random moment of the
  time a clean run takes, or
- ``watch``: starts the real ``vaultsync watch``, makes the change once it is watching (now and
  then before: a kill during its catch-up), and sends it SIGKILL at a random moment of the time
  its round takes;

then runs one clean ``vaultsync export`` and compares every file of the vault (the writer lock
aside) with the reference. A round whose process had already finished when the signal came is
not a kill. Prints one line per kill and ends with "N kills, M identical".
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from corpus import write_corpus  # noqa: E402

EPOCH = "1796083200"  # a fixed day for New papers.md
CHANGES = ("add", "edit", "delete")


def vaultsync(*args: str, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "vaultsync", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def clean_export(work: Path, env: dict) -> float:
    started = time.perf_counter()
    process = vaultsync("export", str(work / "seeds"), str(work / "vault"), "--quiet", env=env)
    _, err = process.communicate(timeout=900)
    if process.returncode != 0:
        raise SystemExit(f"a clean export failed ({process.returncode}):\n{err[-3000:]}")
    return time.perf_counter() - started


def files_of(vault: Path) -> dict[str, bytes]:
    """Every file of the vault but the writer lock's, by vault path."""
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*"))
            if p.is_file() and not p.name.startswith("lock")}


def differences(mine: dict[str, bytes], reference: dict[str, bytes]) -> list[str]:
    return sorted(set(mine) ^ set(reference)) + sorted(p for p in mine if p in reference and mine[p] != reference[p])


class Bench:
    def __init__(self, root: Path, papers: int, rng: random.Random):
        self.root, self.rng = root, rng
        self.work, self.base, self.extra = root / "work", root / "base", root / "extra"
        self.env = {**os.environ, "VAULTSYNC_STATE_DIR": str(self.work / "state"), "SOURCE_DATE_EPOCH": EPOCH,
                    "PYTHONPATH": str(ROOT)}
        write_corpus(self.work / "seeds", papers, seed=7)
        write_corpus(self.extra, 20, seed=99, start=900)
        print(f"base: exporting {papers} abstracts ...", flush=True)
        clean_export(self.work, self.env)
        shutil.copytree(self.work, self.base)  # seeds, vault, state: at the same paths when restored
        self.references: dict[str, dict[str, bytes]] = {}
        self.export_time: dict[str, float] = {}
        for change in CHANGES:
            self.restore()
            self.change(change)
            self.export_time[change] = clean_export(self.work, self.env)
            self.references[change] = files_of(self.work / "vault")
            print(f"reference '{change}': a clean export takes {self.export_time[change]:.1f} s", flush=True)
        self.round_time = {change: self.measure_watch_round(change) for change in CHANGES}

    def restore(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)
        shutil.copytree(self.base, self.work)

    def change(self, change: str) -> None:
        seeds = self.work / "seeds"
        files = sorted(seeds.glob("*.txt"))
        if change == "add":  # renamed into place, as a careful writer does
            staged = self.work / "incoming.tmp"
            shutil.copy(next(self.extra.glob("*.txt")), staged)
            os.replace(staged, seeds / "00900_new.txt")
        elif change == "edit":
            header, *abstracts = files[1].read_text("utf-8").rstrip("\n").split("\n\n")
            for i in (0, 3, 7):
                abstracts[i] += " In a revised version we also report results on two further datasets."
            files[1].write_text("\n\n".join([header, *abstracts]) + "\n", "utf-8")
            more = files[2].read_text("utf-8").rstrip("\n") + "\n\n" + next(self.extra.glob("*.txt")).read_text(
                "utf-8").split("\n\n")[1].strip() + "\n"
            files[2].write_text(more, "utf-8")
        else:
            files[0].unlink()

    def start_watch(self) -> tuple[subprocess.Popen, list[str]]:
        process = vaultsync("watch", str(self.work / "seeds"), str(self.work / "vault"), env=self.env)
        lines: list[str] = []
        threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True).start()
        threading.Thread(target=lambda: process.stderr.read(), daemon=True).start()
        return process, lines

    @staticmethod
    def wait_for(lines: list[str], words: str, process: subprocess.Popen, since: int = 0,
                 timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while not any(words in line for line in list(lines)[since:]):
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the watcher never said {words!r}: {lines}")
            time.sleep(0.02)

    def measure_watch_round(self, change: str) -> float:
        """How long the watcher takes from the change to its change line."""
        self.restore()
        process, lines = self.start_watch()
        try:
            self.wait_for(lines, "caught up", process)
            count = len(lines)
            started = time.perf_counter()
            self.change(change)
            self.wait_for(lines, " conflict", process, since=count)  # the round's change line
            return time.perf_counter() - started
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(60)

    def kill_export(self, change: str) -> bool:
        self.change(change)
        process = vaultsync("export", str(self.work / "seeds"), str(self.work / "vault"), "--quiet", env=self.env)
        time.sleep(self.rng.uniform(0.0, self.export_time[change]))
        return self.kill(process)

    def kill_watch(self, change: str) -> bool:
        process, lines = self.start_watch()
        if self.rng.random() < 0.15:  # a kill while it catches up: the change came before it started
            self.change(change)
            time.sleep(self.rng.uniform(0.0, self.export_time[change]))
            return self.kill(process)
        self.wait_for(lines, "caught up", process)
        self.change(change)
        time.sleep(self.rng.uniform(0.0, self.round_time[change]))
        return self.kill(process)

    @staticmethod
    def kill(process: subprocess.Popen) -> bool:
        alive = process.poll() is None
        process.send_signal(signal.SIGKILL)
        process.wait(60)
        for stream in (process.stdout, process.stderr):
            try:
                stream.close()
            except Exception:
                pass
        return alive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=300, help="Abstracts in the base corpus.")
    parser.add_argument("--kills", type=int, default=60, help="How many processes to kill.")
    parser.add_argument("--seed", type=int, default=19, help="Random seed of the kill moments and changes.")
    parser.add_argument("--keep", type=Path, help="Work in this folder and keep it (default: a temp folder).")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="vaultsync-kill-loop-"))
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    rng = random.Random(args.seed)
    try:
        bench = Bench(root, args.papers, rng)
        kills = identical = finished = 0
        while kills < args.kills:
            command, change = rng.choice(("export", "watch")), rng.choice(CHANGES)
            bench.restore()
            killed = bench.kill_export(change) if command == "export" else bench.kill_watch(change)
            if not killed:
                finished += 1
                continue
            kills += 1
            clean_export(bench.work, bench.env)
            diff = differences(files_of(bench.work / "vault"), bench.references[change])
            identical += not diff
            print(f"kill {kills:3d}: {command:6s} {change:6s} -> "
                  + ("identical" if not diff else f"{len(diff)} files differ, e.g. {diff[:4]}"), flush=True)
        print(f"({finished} rounds finished before their signal came; not counted)")
        print(f"{kills} kills, {identical} identical")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
