"""A whole `vaultsync watch` round at scale, stage by stage: a new 20-abstract seed file dropped
into a large corpus, until its round has written everything (papers, concepts, collection,
index, maps, digest).

    python benchmarks/watch_round.py [--papers 20000] [--rounds 8] [--keep DIR] [--code DIR]

Writes a synthetic corpus (``benchmarks/corpus.py``), exports it once (a fresh vault), then runs
the real ``Watcher`` in this process (its observers started, as `vaultsync watch` does) and drops
new seed files one at a time; each round is ``Watcher._run({file})``: the preview of the new
papers, then the full run. It prints each round's stages (read, extract, link, render, write,
finish: from the exporter's progress calls) and the p50/p95 of the whole round and of
render + write + finish over the rounds after the first (the first round after a start has no
earlier run in this process to compare its notes with). ``--code DIR``: import vaultsync from
DIR (another checkout), for an A/B in the same minutes. Target (issue 22): the whole round
p95 ≤ 1 s once the link stage is incremental; the render + write + finish part is what this
measures of the sync's share.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=8, help="new seed files, one round each")
    parser.add_argument("--keep", type=Path, help="build the corpus here and keep it (reused if present)")
    parser.add_argument("--code", type=Path, help="import vaultsync from this checkout")
    parser.add_argument("--profile", action="store_true", help="print a profile of the last round")
    parser.add_argument("--verify", action="store_true",
                        help="then export the same seeds to a fresh vault: the two must be byte-identical "
                             "(but New papers.md, and the notes of concepts the rounds made and later "
                             "unmade, kept marked removed)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.code.resolve() if args.code else ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import vaultsync
    from corpus import write_corpus
    from vaultsync.pipeline import Exporter, ExportOptions, export
    from vaultsync.plugins import get_plugin_manager
    from vaultsync.watch import Watcher, WatchOptions

    print(f"vaultsync from {Path(vaultsync.__file__).parent}", flush=True)
    base = args.keep or Path(tempfile.mkdtemp(prefix="watch-round-"))
    corpus = base / f"corpus-{args.papers}"
    if not corpus.is_dir():
        started = time.perf_counter()
        write_corpus(corpus / "tmp", args.papers)
        (corpus / "tmp").rename(corpus / "seeds")
        print(f"corpus: {args.papers} abstracts in {time.perf_counter() - started:.0f} s", flush=True)
    work = base / f"run-{os.getpid()}"
    seeds, vault = work / "seeds", work / "vault"
    shutil.copytree(corpus / "seeds", seeds)
    os.environ["VAULTSYNC_STATE_DIR"] = str(work / "state")
    started = time.perf_counter()
    export(seeds, vault, get_plugin_manager())
    print(f"export of {args.papers} papers: {time.perf_counter() - started:.1f} s", flush=True)

    marks: list[tuple[str, float]] = []

    def progress(stage: str, done, total) -> None:
        if done is None:
            marks.append((stage, time.perf_counter()))

    rows = []
    with Exporter(seeds, vault, get_plugin_manager(), ExportOptions(progress=progress)) as exporter:
        watcher = Watcher(exporter, WatchOptions(say=lambda line: None, warn=lambda line: print(line)))
        watcher.start()
        try:
            watcher.catch_up()
            watcher.prepare()  # (the corpus linked, as ``serve`` does before the first file)
            print(f"watching ({watcher.mode}); vault events: {getattr(exporter, 'touches', None) is not None}",
                  flush=True)
            for index in range(args.rounds):
                path, = write_corpus(work / "new", 20, seed=1000 + index, start=90_000 + index)
                target = seeds / path.name
                os.replace(path, target)
                deadline = time.monotonic() + 30
                batch = None
                while time.monotonic() < deadline and not (batch and target.name in batch.paths):
                    batch = watcher._queue.take(0.2)  # (settled, as ``serve`` takes it)
                if not (batch and target.name in batch.paths):
                    raise SystemExit(f"the watcher never saw {target.name}")
                del marks[:]
                begun = time.perf_counter()
                if args.profile and index == args.rounds - 1:
                    import cProfile
                    import pstats

                    profiler = cProfile.Profile()
                    report = profiler.runcall(watcher._run, set(batch.paths))
                    pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
                    pstats.Stats(profiler).sort_stats("cumulative").print_stats(
                        "digest|run_cache|sync_run|sync.py|state|pipeline|render|canvas", 45)
                else:
                    report = watcher._run(set(batch.paths))
                ended = time.perf_counter()
                stages: dict[str, float] = {}
                for (stage, at), (_, then) in zip(marks, [*marks[1:], ("end", ended)]):
                    stages[stage] = stages.get(stage, 0.0) + then - at
                first = marks[0][1] if marks else ended
                stages["preview"] = first - begun  # (before the full run's first stage)
                written = (len(report.created) + len(report.updated)) if report else -1
                rows.append((ended - begun, stages))
                print(f"round {index + 1}: {ended - begun:6.2f} s  " + "  ".join(
                    f"{name} {stages.get(name, 0.0):.2f}" for name in
                    ("preview", "read", "extract", "link", "render", "write", "finish"))
                    + f"  ({written} notes written)", flush=True)
                watcher.prepare()
            if args.verify and getattr(exporter, "touches", None) is not None:
                # a run that checks every note: it must find nothing the rounds left undone
                exporter.touches.lose()
                check = exporter.run(changed=[target.name])
                print(f"verify: a run checking every note wrote {sorted(check.created + check.updated)[:10]}"
                      f" ({len(check.created) + len(check.updated)} notes)", flush=True)
        finally:
            watcher.close()
    later = rows[1:] or rows
    whole = [r for r, _ in later]
    tail = [sum(s.get(k, 0.0) for k in ("render", "write", "finish")) for _, s in later]
    print(f"rounds 2-{len(rows)}: whole round p50 {statistics.median(whole):.2f} s, p95 {percentile(whole, 95):.2f} s; "
          f"render+write+finish p50 {statistics.median(tail):.3f} s, p95 {percentile(tail, 95):.3f} s")
    for name in ("link", "render", "write", "finish"):
        values = [s.get(name, 0.0) for _, s in later]
        print(f"  {name:7s} p50 {statistics.median(values):.3f} s  p95 {percentile(values, 95):.3f} s")
    if args.verify:
        os.environ["VAULTSYNC_STATE_DIR"] = str(work / "state-verify")
        export(seeds, work / "verify", get_plugin_manager())

        def tree(folder: Path) -> dict[str, bytes]:
            return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
                    if p.is_file() and ".vaultsync" not in p.parts and p.name != "New papers.md"}
        watched, fresh = tree(vault), tree(work / "verify")
        differ = sorted(p for p in watched.keys() | fresh.keys() if watched.get(p) != fresh.get(p))
        # a note the rounds wrote for a concept that later no longer had one stays, marked removed
        # (the sync never deletes a note: the user may have written in it): history, not a difference
        history = [p for p in differ if p not in fresh and b"\nstatus: removed\n" in watched[p].split(b"\n---", 1)[0]]
        differ = [p for p in differ if p not in history]
        print(f"verify: {len(watched)} files; {len(differ)} differ from a one-shot export of the same seeds"
              + (f": {differ[:10]}" if differ else "")
              + (f"; {len(history)} only in the watched vault, marked removed: {history[:5]}" if history else ""))
        if differ:
            import difflib

            for path in differ[:3]:
                sys.stdout.writelines(difflib.unified_diff(
                    fresh.get(path, b"").decode("utf-8", "replace").splitlines(True),
                    watched.get(path, b"").decode("utf-8", "replace").splitlines(True), "one-shot", "watched"))
            print(f"kept in {work}")
            return 1
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
