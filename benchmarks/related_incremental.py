"""The related index at scale: a fresh build against the previous score's, and one update (issue 22).
Prints figures.

    python benchmarks/corpus.py --papers 20000 --out /tmp/c20k
    python benchmarks/related_incremental.py capture --seeds /tmp/c20k --out /tmp/c20k.pickle
    python benchmarks/related_incremental.py measure --inputs /tmp/c20k.pickle [--old REV] [--new 20]

``capture`` exports the seeds once (to a temporary vault) and keeps what ``link`` hands the
relatedness index: each paper's ``text_terms``, concept names, the phrase-only concepts and the
aliases. ``measure`` builds, each in a child process of its own (so that its peak RSS is its
own): the previous score's ``RelatednessIndex(...).related_all()`` (the file ``vaultsync/related.py``
at git revision ``--old``), this one's fresh build of all papers, and this one's build of all but
``--new`` papers followed by one ``update()`` adding them (the papers whose lists changed, and
the update checked against the fresh build).
"""

from __future__ import annotations

import argparse
import importlib.util
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def capture(seeds: Path, out: Path) -> None:
    from vaultsync import link
    from vaultsync.pipeline import ExportOptions, export
    from vaultsync.plugins import get_plugin_manager

    class Recording(link.RelatedIndex):
        """The linker's index, keeping the inputs of its first update (a fresh link's: all of them)."""

        def update(self, texts={}, concepts={}, phrases={}, aliases={}):
            if not out.exists():
                with out.open("wb") as f:
                    pickle.dump(({k: dict(v) for k, v in texts.items() if v is not None},
                                 {k: tuple(v) for k, v in concepts.items()},
                                 sorted(name for name, flag in phrases.items() if flag),
                                 {k: tuple(v) for k, v in aliases.items() if v}), f, protocol=5)
            return super().update(texts, concepts, phrases, aliases)

    out.unlink(missing_ok=True)
    link.RelatedIndex = Recording
    with tempfile.TemporaryDirectory() as vault:
        export(seeds, Path(vault) / "vault", get_plugin_manager(), ExportOptions())
    print(f"captured {out} ({out.stat().st_size / 1e6:.0f} MB)")


def _old_module(rev: str):
    source = subprocess.run(["git", "show", f"{rev}:vaultsync/related.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "related_old.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("vaultsync.related_old", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def child(kind: str, inputs: Path, rev: str, new: int) -> None:
    with inputs.open("rb") as f:
        terms, concepts, phrases, aliases = pickle.load(f)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if kind == "old":
        module = _old_module(rev)
        start = time.perf_counter()
        lists = module.RelatednessIndex(terms, concepts, phrases, aliases).related_all()
        took = time.perf_counter() - start
        extra = ""
    else:
        from vaultsync.related_index import RelatedIndex

        ids = list(terms)
        kept = ids[:-new] if kind == "update" else ids
        index = RelatedIndex()
        start = time.perf_counter()
        index.update({pid: terms[pid] for pid in kept}, {pid: concepts[pid] for pid in kept if pid in concepts},
                     dict.fromkeys(phrases, True), aliases)
        took = time.perf_counter() - start
        lists = index.related_all()
        extra = ""
        if kind == "update":
            added = ids[-new:]
            shown = {pid: [(r.id, r.shares) for r in rel] for pid, rel in lists.items()}
            start = time.perf_counter()
            changed = index.update({pid: terms[pid] for pid in added},
                                   {pid: concepts[pid] for pid in added if pid in concepts})
            step = time.perf_counter() - start
            lists = index.related_all()
            notes = sum(1 for pid in changed if pid in shown and shown[pid] != [(r.id, r.shares) for r in lists[pid]])
            fresh = RelatedIndex()
            fresh.update(terms, {pid: c for pid, c in concepts.items() if pid in terms},
                         dict.fromkeys(phrases, True), aliases)
            extra = (f"; update adding {new}: {step:.3f} s, {len(changed)} papers' lists changed"
                     f" ({len(set(changed) - set(added))} existing; {notes} of them with other papers or"
                     f" reasons, not only scores), equal to a fresh build:"
                     f" {lists == fresh.related_all()}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    links = sum(len(v) for v in lists.values())
    print(f"{kind:7s} {len(terms)} papers: build {took:.2f} s, peak RSS {peak:.0f} MB (inputs loaded:"
          f" {rss0:.0f} MB), {links} related links{extra}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["capture", "measure", "child"])
    parser.add_argument("--seeds", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--inputs", type=Path)
    parser.add_argument("--old", default="ea7e636")
    parser.add_argument("--new", type=int, default=20)
    parser.add_argument("--kind", default="new")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    if args.what == "capture":
        capture(args.seeds, args.out)
    elif args.what == "child":
        child(args.kind, args.inputs, args.old, args.new)
    else:
        for _ in range(args.rounds):  # A/B in the same minutes
            for kind in ("old", "new", "update"):
                subprocess.run([sys.executable, __file__, "child", "--kind", kind, "--inputs", str(args.inputs),
                                "--old", args.old, "--new", str(args.new)], check=True)


if __name__ == "__main__":
    main()
