"""Would a compiled core make vaultsync fast enough (issue 7)? Compile the hot modules as they are
with Cython and time the same full export with and without them. Prints figures.

    .venv/bin/pip install cython
    .venv/bin/python benchmarks/compiled_core.py [--papers 20000] [--repeat 2] [--work DIR]

What it does:
- copies ``vaultsync/`` into ``WORK/compiled/`` and compiles ``MODULES`` there with Cython
  (``cythonize -i``, annotations not used as C types), so every Python line stays as written;
- checks that both trees export the bundled seeds to the very same bytes;
- exports the same generated corpus with each tree, alternating, each in its own process with a
  fresh state, and prints each stage's CPU time (the figure a busy machine moves least) and the
  ratio of the two.

pluggy registers only Python functions as hook implementations, so a compiled module that
implements a hook is compiled under another name (``_phrases_compiled``) and its module keeps
everything of it plus a one-line Python function per hook that calls the compiled one.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from export_scale import corpus, describe, export_stages  # noqa: E402

# where the profiles of issue 7 spend the time: the extractors, link, Markdown, the writer
MODULES = (
    "canonical", "generic", "names", "concept_index", "link",
    "default_plugins/phrases", "default_plugins/naming", "default_plugins/acronyms", "default_plugins/vocabulary",
    "markdown_tokens", "markdown", "latex", "regions", "frontmatter_io", "write", "sync",
    "default_plugins/obsidian", "views/digest",
)


def _hooks(module_name: str) -> list[tuple[str, dict, list[str]]]:
    """(name, hookimpl options, parameters) of each hook implementation ``module_name`` defines."""
    import importlib

    module = importlib.import_module(module_name)
    found = []
    for name, value in vars(module).items():
        opts = getattr(value, "vaultsync_impl", None)
        if opts is not None and inspect.isfunction(value) and value.__module__ == module_name:
            found.append((name, dict(opts), list(inspect.signature(value).parameters)))
    return found


def _source_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "vaultsync").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def compiled_tree(work: Path) -> Path:
    """``work/compiled``: this checkout's package with ``MODULES`` compiled (built once per source)."""
    tree = work / "compiled"
    stamp = tree / ".built"
    digest = _source_digest()
    if stamp.exists() and stamp.read_text() == digest:
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(ROOT / "vaultsync", tree / "vaultsync", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    sources = []
    for relative in MODULES:
        path = tree / "vaultsync" / f"{relative}.py"
        hooks = _hooks("vaultsync." + relative.replace("/", "."))
        if not hooks:
            sources.append(path)
            continue
        inner = f"_{path.stem}_compiled"
        compiled = path.with_name(inner + ".py")
        path.rename(compiled)
        sources.append(compiled)
        lines = ["from vaultsync.hookspecs import hookimpl", f"from . import {inner} as _compiled", "",
                 'globals().update({k: v for k, v in vars(_compiled).items() if not k.startswith("__")})', ""]
        for name, opts, params in hooks:
            options = {k: v for k, v in opts.items() if v}
            args = ", ".join(params)
            lines += ["", f"@hookimpl(**{options!r})", f"def {name}({args}):", f"    return _compiled.{name}({args})", ""]
        path.write_text("\n".join(lines), "utf-8")
    print(f"compiling {len(sources)} modules with Cython (a few minutes, once) ...", flush=True)
    subprocess.run([sys.executable, "-c", "from Cython.Build.Cythonize import main; main()",
                    "-i", "-q", "-3", "-j", str(os.cpu_count() or 1), "-X", "annotation_typing=False",
                    *map(str, sources)], check=True, capture_output=True, cwd=tree)
    stamp.write_text(digest)
    return tree


def same_output(tree: Path, work: Path) -> int:
    """How many files differ between the two trees' exports of the bundled seeds."""
    vaults = []
    for code in (ROOT, tree):
        vault = Path(tempfile.mkdtemp(dir=work)) / "vault"
        env = {**os.environ, "PYTHONPATH": str(code), "SOURCE_DATE_EPOCH": "1796083200",
               "VAULTSYNC_STATE_DIR": tempfile.mkdtemp(dir=work)}
        subprocess.run([sys.executable, "-m", "vaultsync", "export", str(ROOT / "seeds"), str(vault), "-q"],
                       env=env, check=True, cwd=code)
        vaults.append({p.relative_to(vault): p.read_bytes() for p in vault.rglob("*") if p.is_file()})
    pure, compiled = vaults
    return sum(pure.get(p) != compiled.get(p) for p in {*pure, *compiled})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20_000, help="Abstracts in the corpus.")
    parser.add_argument("--repeat", type=int, default=1, help="Rounds (each exports with both trees).")
    parser.add_argument("--work", type=Path, default=None, help="Folder for the corpus, the build and vaults.")
    args = parser.parse_args()
    try:
        import Cython
    except ImportError:
        sys.exit("compiled_core.py needs Cython: pip install cython")
    work = (args.work or Path(tempfile.mkdtemp(prefix="vaultsync-compiled-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    print(f"work folder {work}; {os.cpu_count()} CPUs; python {sys.version.split()[0]}; Cython {Cython.__version__}")
    tree = compiled_tree(work)
    differ = same_output(tree, work)
    print(f"bundled seeds exported by both trees: {'the same bytes' if not differ else f'{differ} files differ'}")
    seeds = corpus(work, args.papers)
    totals: dict[str, dict[str, float]] = {"pure": {}, "compiled": {}}
    for round_ in range(1, args.repeat + 1):
        for label, code in (("pure", ROOT), ("compiled", tree)):
            vault, state = work / f"vault-{label}", work / f"state-{label}"
            shutil.rmtree(vault, ignore_errors=True)
            shutil.rmtree(state, ignore_errors=True)
            seconds, peak, _, stages, _ = export_stages(seeds, vault, state, code=code)
            print(f"round {round_}, {label:8}: full export of {args.papers:,} abstracts {seconds:6.2f} s; "
                  f"peak RSS {peak:.0f} MB\n{describe(stages)}", flush=True)
            for name, _, here, workers in stages:
                totals[label][name] = totals[label].get(name, 0.0) + here + workers
    print("\nCPU by stage over all rounds (pure / compiled = how much faster compiling made it):")
    for stage in totals["pure"]:
        pure, compiled = totals["pure"][stage], totals["compiled"].get(stage, 0.0)
        print(f"  {stage:8} {pure:7.2f} s / {compiled:7.2f} s = {pure / compiled if compiled else 0:.2f}x")
    pure, compiled = sum(totals["pure"].values()), sum(totals["compiled"].values())
    print(f"  {'all':8} {pure:7.2f} s / {compiled:7.2f} s = {pure / compiled:.2f}x")


if __name__ == "__main__":
    main()
