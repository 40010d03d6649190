"""How many related papers each paper note shows, on real abstracts (issue 18). Prints figures.

    .venv/bin/python benchmarks/related_quality.py [--abstracts ../shared/benchmarks/icml2025-dev/abstracts.jsonl]
                                                   [--code DIR] [--work DIR] [--show 40]

Writes the abstracts as seed files (header ``ICML 2025 Papers``, one abstract per paragraph,
whitespace collapsed), exports a vault with the ``vaultsync`` package of folder ``--code`` (this
checkout's by default: pass a checkout of ``main`` to measure before), and prints how many papers
show 0, 1-2 and 3-5 related papers, the mean, and a proxy of precision: the share of related
pairs whose published titles share a content word. ``--show N`` prints N related pairs (titles
and the reason shown) to read by eye. The quality figure that counts is judged blind
(``../shared/tools/blindjudge``); this script only counts. Development data: tune no rule to it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "benchmarks" / "icml2025-dev" / "abstracts.jsonl"
if not DEFAULT.exists():
    DEFAULT = Path("/work/shared/benchmarks/icml2025-dev/abstracts.jsonl")
PER_FILE = 50

_FRONTMATTER = re.compile(r"\A---\n(.*?)\n---\n(.*)\Z", re.S)
_LINK = re.compile(r"\[\[([^\]|#]+)(?:\|[^\]]*)?\]\]")
_WORD = re.compile(r"[a-z][a-z0-9]+")
_TITLE_STOP = set("""a an and are as at by for from in into is it its of on or over the to under via
with without towards toward through using learning model models neural network networks deep data
efficient improved improving new approach method methods framework large language beyond when what
how can do does better more less one all your not""".split())


def write_seeds(abstracts: Path, folder: Path) -> list[dict]:
    """The abstracts as seed files of ``PER_FILE`` paragraphs; returns the records in order."""
    records = [json.loads(line) for line in abstracts.read_text(encoding="utf-8").splitlines() if line.strip()]
    folder.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(records), PER_FILE):
        chunk = records[start:start + PER_FILE]
        paragraphs = [" ".join(r["abstract"].split()) for r in chunk]
        (folder / f"icml2025_{start // PER_FILE:03d}.txt").write_text(
            "ICML 2025 Papers\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return records


def export(seeds: Path, vault: Path, code: Path) -> None:
    env = {**os.environ, "VAULTSYNC_STATE_DIR": str(vault.parent / "state"), "PYTHONPATH": str(code),
           "SOURCE_DATE_EPOCH": "1796083200"}
    subprocess.run([sys.executable, "-m", "vaultsync", "export", str(seeds), str(vault), "-q"],
                   env=env, check=True, cwd=code)


def read_papers(vault: Path) -> dict[str, tuple[dict, str]]:
    """{note stem: (frontmatter, generated body)} of every paper note."""
    out = {}
    for path in sorted((vault / "Papers").glob("*.md")):
        match = _FRONTMATTER.match(path.read_text(encoding="utf-8"))
        if match:
            out[path.stem] = (yaml.safe_load(match.group(1)), match.group(2))
    return out


def title_words(title: str) -> set[str]:
    return {w.rstrip("s") for w in _WORD.findall(title.casefold()) if w not in _TITLE_STOP and len(w) > 2}


def reasons(body: str) -> dict[str, str]:
    """{linked stem: what its line says after the link} in the `## Related papers` section."""
    section = body.split("## Related papers", 1)[1] if "## Related papers" in body else ""
    out = {}
    for line in section.splitlines():
        match = re.match(r"- \[\[([^\]|]+)(?:\|[^\]]*)?\]\](?: — (.*))?", line)
        if match:
            out[match.group(1)] = match.group(2) or ""
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abstracts", type=Path, default=DEFAULT)
    parser.add_argument("--code", type=Path, default=ROOT, help="folder holding the vaultsync package to run")
    parser.add_argument("--work", type=Path, default=None, help="folder for seeds and vault (a temp one if unset)")
    parser.add_argument("--show", type=int, default=0, help="print this many related pairs to read")
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="related-quality-"))
    seeds, vault = work / "seeds", work / "vault"
    records = write_seeds(args.abstracts, seeds)
    export(seeds, vault, args.code.resolve())

    papers = read_papers(vault)
    title_of = {}
    for stem, (fm, _) in papers.items():
        seed, paragraph = re.match(r"icml2025_(\d+)\.txt, paragraph (\d+)", fm["source"]).groups()
        title_of[stem] = records[int(seed) * PER_FILE + int(paragraph) - 1]["title"]
    counts = {stem: [m.group(1) for item in fm.get("related") or [] for m in _LINK.finditer(item)]
              for stem, (fm, _) in papers.items()}
    n = len(counts)
    zero = sum(1 for r in counts.values() if not r)
    few = sum(1 for r in counts.values() if 1 <= len(r) <= 2)
    many = sum(1 for r in counts.values() if len(r) >= 3)
    pairs = [(a, b) for a, related in counts.items() for b in related if b in title_of]
    overlap = sum(1 for a, b in pairs if title_words(title_of[a]) & title_words(title_of[b]))
    print(f"{n} papers ({args.code}): 0 related {zero} ({zero / n:.0%}), 1-2 {few} ({few / n:.0%}), "
          f"3-5 {many} ({many / n:.0%}); mean {sum(map(len, counts.values())) / n:.2f}")
    print(f"related pairs {len(pairs)}; titles share a content word: {overlap} "
          f"({overlap / max(len(pairs), 1):.0%})")
    if args.show:
        rng = random.Random(args.seed)
        for a, b in rng.sample(pairs, min(args.show, len(pairs))):
            why = reasons(papers[a][1]).get(b, "")
            print(f"\n  A: {title_of[a]}\n  B: {title_of[b]}\n     {why}")
    print(f"(vault: {vault})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
