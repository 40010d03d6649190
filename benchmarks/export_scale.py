"""Export at the scale of every ML conference at once (issue 7). Prints figures; times nothing in tests.

    .venv/bin/python benchmarks/export_scale.py [--papers 20000] [--big] [--repeat 2] [--work DIR] [--code DIR]

Each export runs as its own ``python -m vaultsync export`` process (state in a temp folder via
``VAULTSYNC_STATE_DIR``), timed end to end, with the child's peak RSS. Every figure is printed
next to the **floor** measured in the same run: plain Python writing the same number of
note-sized files atomically (temp file + ``os.replace``, same folders), so ratios survive the
drift of a shared machine. Figures: full export; no-op re-export; one new 20-abstract seed file
(and how many files it rewrote); a concept note the user edits (a lesson); start-up (import) time; extraction with and without the pool;
``--big`` adds the 100,000-abstract export and its ratio to the 20,000 one.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from corpus import write_corpus  # noqa: E402

PYTHON = sys.executable
_PEAK = ("import resource, subprocess, sys; code = subprocess.call(sys.argv[1:]); "
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)")


def corpus(work: Path, papers: int) -> Path:
    folder = work / f"corpus-{papers}"
    if not (folder / ".done").exists():
        shutil.rmtree(folder, ignore_errors=True)
        write_corpus(folder, papers, seed=7)
        (folder / ".done").write_text("")
    return folder


def user_env() -> dict[str, str]:
    """This environment as a user's shell has it: Python caches its bytecode (this machine sets
    PYTHONDONTWRITEBYTECODE, which makes every process compile vaultsync's sources: ~0.1 s more)."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def write_floor(n_files: int, work: Path, fsync: bool = False) -> float:
    """Seconds plain Python takes to write ``n_files`` note-sized files atomically."""
    root = Path(tempfile.mkdtemp(dir=work))
    data = b"x" * 1500
    start = time.perf_counter()
    folders = [root / "Papers", root / "Concepts"]
    for folder in folders:
        folder.mkdir()
    for i in range(n_files):
        folder = folders[i % 3 == 0]
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, folder / f"Note {i}.md")
    elapsed = time.perf_counter() - start
    shutil.rmtree(root)
    return elapsed


_STAGE = re.compile(r"vaultsync\.pipeline: (\S+) took ([\d.]+) s \(CPU: ([\d.]+) s in this process, "
                    r"([\d.]+) s in workers\)")


_KEPT = re.compile(r"other lessons: (\d+) of (\d+) extractions still hold")


def export_stages(seeds: Path, vault: Path, state: Path, code: Path = ROOT
                  ) -> tuple[float, float, int, list[tuple[str, float, float, float]], str]:
    """(seconds, peak RSS in MB, exit status, stages, what it said of lessons) of one `vaultsync
    export` process running the ``vaultsync`` package found in folder ``code`` (this checkout's
    by default).

    The stages are what ``-v`` logs: each one's name, wall time and the CPU time it used in the
    process and in its workers -- CPU time barely moves with the machine's load."""
    env = {**user_env(), "VAULTSYNC_STATE_DIR": str(state), "PYTHONPATH": str(code)}
    cmd = [PYTHON, "-c", _PEAK, PYTHON, "-m", "vaultsync", "export", str(seeds), str(vault), "-q", "-v"]
    start = time.perf_counter()
    # (run in ``code``: ``python -m`` imports the current folder's package before PYTHONPATH's)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, cwd=code)
    elapsed = time.perf_counter() - start
    peak_kb, status = out.stdout.split()[-2:]
    stages = [(m[1], float(m[2]), float(m[3]), float(m[4])) for m in _STAGE.finditer(out.stderr)]
    kept = _KEPT.search(out.stderr)
    kept = f"; {kept[1]} of {kept[2]} cached extractions kept under new lessons" if kept else ""
    return elapsed, int(peak_kb) / 1024, int(status), stages, kept


def describe(stages: list[tuple[str, float, float, float]], kept: str = "") -> str:
    """``export_stages``' stages as one line to print."""
    cpu = sum(here + workers for _, _, here, workers in stages)
    text = ", ".join(f"{name} {wall:.2f} s (CPU {here:.2f}" + (f" + {workers:.2f} in workers)" if workers else ")")
                     for name, wall, here, workers in stages)
    return f"  stages: {text}; CPU in all {cpu:.2f} s{kept}"


def run_export(seeds: Path, vault: Path, state: Path, code: Path = ROOT) -> tuple[float, float, int, str]:
    """``export_stages``, with the stages as one line to print."""
    elapsed, peak, status, stages, kept = export_stages(seeds, vault, state, code)
    return elapsed, peak, status, describe(stages, kept)


def snapshot(vault: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(vault).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in vault.rglob("*") if p.is_file() and ".vaultsync" not in p.parts}


def startup(checkout: Path = ROOT) -> float:
    """Import time of the CLI: `import vaultsync.cli` minus a bare interpreter, best of 5."""
    def best(code: str) -> float:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([PYTHON, "-c", code], check=True, env={**user_env(), "PYTHONPATH": str(checkout)},
                           cwd=checkout)
            times.append(time.perf_counter() - start)
        return min(times)
    return best("import vaultsync.cli, vaultsync.pipeline") - best("pass")


def pool_figures(seeds: Path, n: int = 4000) -> tuple[float, float]:
    from vaultsync.collector import collector_paused
    from vaultsync.extract import extract_all
    from vaultsync.plugins import get_plugin_manager
    from vaultsync.read import read_seeds
    from vaultsync.records import ExtractContext

    pm = get_plugin_manager()
    abstracts = [a for s in read_seeds(seeds, pm).seeds for a in s.abstracts][:n]
    extract_all(abstracts[:200], pm, ExtractContext(), workers=1)  # warm caches and tables
    out = []
    for workers in (1, 2):
        start = time.perf_counter()
        with collector_paused():  # as the runner does
            extract_all(abstracts, pm, ExtractContext(), workers=workers)
        out.append(time.perf_counter() - start)
    return out[0], out[1]


def scale_figures(work: Path, papers: int, repeat: int, code: Path = ROOT) -> float:
    seeds = corpus(work, papers)
    print(f"\n== {papers:,} abstracts ({len(list(seeds.glob('*.txt')))} seed files)")
    fulls = []
    for attempt in range(repeat):
        vault, state = work / f"vault-{papers}", work / f"state-{papers}"
        shutil.rmtree(vault, ignore_errors=True)
        shutil.rmtree(state, ignore_errors=True)
        seconds, peak, status, stages = run_export(seeds, vault, state, code)
        files = sum(1 for _ in vault.rglob("*.md")) + sum(1 for _ in vault.rglob("*.canvas"))
        floor = write_floor(files, work)
        fulls.append(seconds)
        print(f"full export: {seconds:7.2f} s = {papers / seconds:6.0f} abstracts/s; {files} files; "
              f"floor {floor:.2f} s; ratio {seconds / floor:5.1f}x; peak RSS {peak:.0f} MB (exit {status})")
        print(stages)
    for attempt in range(repeat):
        seconds, peak, _, _ = run_export(seeds, vault, state, code)
        print(f"no-op re-export: {seconds:7.2f} s; peak RSS {peak:.0f} MB")
    extra = work / f"extra-{papers}"
    shutil.rmtree(extra, ignore_errors=True)
    new_seed = write_corpus(extra, 20, seed=99, start=90_000)[0]
    before = snapshot(vault)
    shutil.copy(new_seed, seeds / new_seed.name)
    try:
        seconds, _, _, stages = run_export(seeds, vault, state, code)
    finally:
        (seeds / new_seed.name).unlink()
    after = snapshot(vault)
    written = [p for p in after if before.get(p) != after[p]]
    kinds = {k: sum(p.startswith(k) for p in written) for k in ("Papers/", "Concepts/", "Collections/", "Maps/")}
    floor = write_floor(max(len(written), 1), work)
    print(f"one new seed file (20 abstracts): {seconds:7.2f} s; wrote {len(written)} files {kinds}; "
          f"floor for those {floor:.3f} s")
    print(stages)
    # the user edits a concept note (a remark in its body): a lesson for the vocabulary
    note = max((vault / "Concepts").glob("*.md"), key=lambda p: p.stat().st_size)  # the most papers
    note.write_text(note.read_text("utf-8") + "\nMy own remark.\n", "utf-8")
    seconds, _, _, stages = run_export(seeds, vault, state, code)
    print(f"one concept note edited by the user ({note.stem}): {seconds:7.2f} s")
    print(stages)
    return min(fulls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20_000, help="Abstracts in the main corpus.")
    parser.add_argument("--big", action="store_true", help="Also export 100,000 abstracts (slow).")
    parser.add_argument("--repeat", type=int, default=1, help="Runs of each export figure.")
    parser.add_argument("--work", type=Path, default=None, help="Folder for corpora and vaults (default: a temp folder).")
    parser.add_argument("--code", type=Path, default=ROOT,
                        help="Run the exports with the vaultsync of this checkout (an A/B in the same minutes).")
    args = parser.parse_args()
    code = args.code.resolve()
    work = (args.work or Path(tempfile.mkdtemp(prefix="vaultsync-bench-"))).resolve()  # (exports run elsewhere)
    work.mkdir(parents=True, exist_ok=True)
    print(f"work folder {work}; {os.cpu_count()} CPUs; python {sys.version.split()[0]}")
    print(f"vaultsync from {code}")
    print(f"start-up (import vaultsync.cli + pipeline, minus bare python): {startup(code):.3f} s")
    one, two = pool_figures(corpus(work, args.papers))
    print(f"extract 4,000 abstracts: 1 process {one:.2f} s, pool of 2 {two:.2f} s ({one / two:.2f}x)")
    base = scale_figures(work, args.papers, args.repeat, code)
    if args.big:
        big = scale_figures(work, 100_000, 1, code)
        print(f"\ngrowth: 100,000 took {big / base:.2f}x the {args.papers:,} time (target <= 5.5x)")


if __name__ == "__main__":
    main()
