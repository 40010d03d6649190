"""Generate a realistic corpus of ML abstracts at any size, as seed files. Deterministic per seed.

    python benchmarks/corpus.py --papers 20000 --out /tmp/corpus [--seed 7]

Abstracts recombine real sentences (the bundled ``seeds/*.txt`` and the Inspec abstracts of
``../shared/benchmarks/inspec/test.jsonl``, read from there, never copied) around fresh method
names and acronyms ("we propose ZorbNet (Zonal Orbit Networks)"), and mention shared concepts
(Inspec keyphrases, vocabulary names, field acronyms) drawn from Zipf-like distributions, so a few
concepts are everywhere and most are rare, as in a real conference. Written as seed files of 20
abstracts, each headed by one of a few venues and years (``ICML 2024 Papers``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSPEC = ROOT.parent / "shared" / "benchmarks" / "inspec" / "test.jsonl"
if not INSPEC.exists():
    INSPEC = Path("/work/shared/benchmarks/inspec/test.jsonl")
VOCABULARY = ROOT / "vaultsync" / "data" / "vocabulary.txt"
PER_FILE = 20
VENUES = ("ICML", "NeurIPS", "ICLR", "AAAI", "CVPR", "ACL", "AISTATS", "COLT")
YEARS = tuple(range(2019, 2027))

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_SYLLABLES = ("zor", "bel", "ka", "mi", "tra", "vex", "lu", "qua", "dro", "fen", "syl", "gra",
              "pho", "ner", "tal", "vi", "ox", "ry", "mun", "cel", "dax", "pri", "hol", "zen")
_SUFFIXES = ("Net", "Former", "GPT", "Diff", "Bench", "RL", "Flow", "GAN", "Fusion", "Mamba", "")
_HEADS = ("framework", "method", "model", "benchmark", "algorithm", "architecture", "approach")
_METHOD = (
    "In this paper, we propose {name} ({long}), a {head} that {clause}.",
    "We introduce {long} ({acr}), a novel {head} for {concept}.",
    "To this end, we present {name}, a {head} that {clause}.",
    "This paper develops {long} ({acr}), which {clause}.",
)
_CONCEPT = (
    "Our analysis centres on {a} and {b}.",
    "We study how {a} interacts with {b} in practice.",
    "Experiments cover {a}, {b} and {c}.",
    "The approach combines {a} with {b}.",
)
_BUILD_ON = (
    "Building on {long} ({acr}), we revisit {a}.",
    "Unlike prior work on {long} ({acr}), our method scales to {a}.",
    "We compare against {name} and strong baselines on {a}.",
)
_CLAUSES = ("exploits {a}", "unifies {a} and {b}", "learns {a} from {b}", "scales {a} to large models",
            "improves {a} without extra supervision", "adapts {a} to new domains")


def _zipf(rng: random.Random, items: list, s: float = 1.05) -> list[float]:
    """Cumulative Zipf weights over ``items`` in a seeded random order (rank 1 most common)."""
    rng.shuffle(items)
    return list(itertools.accumulate(1.0 / (rank ** s) for rank in range(1, len(items) + 1)))


class CorpusGenerator:
    """Draws abstracts one at a time; the same seed gives the same abstracts."""

    def __init__(self, seed: int = 7):
        self.rng = rng = random.Random(seed)
        abstracts = [json.loads(line)["abstract"] for line in INSPEC.read_text(encoding="utf-8").splitlines()]
        for path in sorted((ROOT / "seeds").glob("*.txt")):
            abstracts += [p for p in path.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()]
        keyphrases = sorted({k for line in INSPEC.read_text(encoding="utf-8").splitlines()
                             for k in json.loads(line)["keyphrases"] if 2 <= len(k.split()) <= 4})
        sentences = sorted({" ".join(s.split()).rstrip(".") + "." for a in abstracts for s in _SENTENCE.split(a)
                            if 8 <= len(s.split()) <= 45 and "\n" not in s.strip()})
        self.sentences, self.sentence_w = sentences, _zipf(rng, sentences)
        vocab = sorted({line.split("|")[0].split(">")[0].strip() for line in
                        VOCABULARY.read_text(encoding="utf-8").splitlines() if line.strip() and line[0] != "#"})
        concepts = keyphrases + [v for v in vocab if len(v) > 3]
        self.concepts, self.concept_w = concepts, _zipf(rng, concepts, 1.1)
        words = sorted({w.capitalize() for k in keyphrases for w in k.split() if w.isalpha() and len(w) > 3})
        self.by_initial: dict[str, list[str]] = {}
        for word in words:
            self.by_initial.setdefault(word[0], []).append(word)
        self.used: set[str] = set()
        # field acronyms every venue reuses (shared concepts); Zipf-distributed too
        self.field = [self._fresh(rng.randint(2, 4)) for _ in range(400)]
        self.field_w = _zipf(rng, self.field, 1.2)
        self.methods: list[tuple[str, str, str]] = []  # earlier papers' methods, cited later

    def _fresh(self, n_words: int) -> tuple[str, str, str]:
        """(coined name, long form, acronym): ``ZorbNet``, ``Zonal Orbit Networks``, ``ZON``."""
        rng = self.rng
        while True:
            stem = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3))).capitalize()
            name = stem + rng.choice(_SUFFIXES)
            if name not in self.used and len(name) > 3 and any(c.isupper() for c in name[1:] + "X" * (name == stem)):
                break
        self.used.add(name)
        initials = [c for c in name if c.isupper()]  # the long form spells out the name's capitals
        initials += [rng.choice("ABCDEFGHILMNOPRSTUV") for _ in range(n_words - len(initials))]
        long = " ".join(rng.choice(self.by_initial.get(c, ["Adaptive"])) for c in initials)
        return name, long, "".join(w[0] for w in long.split())

    def _pick(self, items: list, weights: list[float]):
        return self.rng.choices(items, cum_weights=weights)[0]

    def _concepts(self, n: int) -> dict[str, str]:
        return {k: self._pick(self.concepts, self.concept_w).lower() for k in "abc"[:n]}

    def abstract(self) -> str:
        rng = self.rng
        name, long, acr = self._fresh(rng.randint(2, 4))
        parts = [self._pick(self.sentences, self.sentence_w)]
        c = self._concepts(3)
        clause = rng.choice(_CLAUSES).format(**c)
        parts.append(rng.choice(_METHOD).format(name=name, long=long, acr=acr, head=rng.choice(_HEADS),
                                                clause=clause, concept=c["a"]))
        parts += [self._pick(self.sentences, self.sentence_w) for _ in range(rng.randint(2, 5))]
        parts.append(rng.choice(_CONCEPT).format(**self._concepts(3)))
        if rng.random() < 0.6:
            f_name, f_long, f_acr = self._pick(self.field, self.field_w)
            if self.methods and rng.random() < 0.3:
                f_name, f_long, f_acr = rng.choice(self.methods[-2000:])
            parts.append(rng.choice(_BUILD_ON).format(name=f_name, long=f_long, acr=f_acr, **self._concepts(1)))
        parts.append(self._pick(self.sentences, self.sentence_w))
        self.methods.append((name, long, acr))
        return " ".join(parts)


def write_corpus(out: Path, papers: int, seed: int = 7, start: int = 0) -> list[Path]:
    """Write ``papers`` abstracts as seed files of 20 into ``out``; return the files written.

    ``start`` numbers the first file (to add files to an existing corpus, use another ``seed``)."""
    out.mkdir(parents=True, exist_ok=True)
    gen = CorpusGenerator(seed)
    written = []
    for index in range(start, start + (papers + PER_FILE - 1) // PER_FILE):
        venue, year = gen.rng.choice(VENUES), gen.rng.choice(YEARS)
        count = min(PER_FILE, papers - (index - start) * PER_FILE)
        text = f"{venue} {year} Papers\n\n" + "\n\n".join(gen.abstract() for _ in range(count)) + "\n"
        path = out / f"{index:05d}_{venue.lower()}_{year}.txt"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20_000, help="How many abstracts to write.")
    parser.add_argument("--out", type=Path, required=True, help="Folder to write the seed files into.")
    parser.add_argument("--seed", type=int, default=7, help="Random seed (same seed, same corpus).")
    parser.add_argument("--clean", action="store_true", help="Empty the folder first.")
    args = parser.parse_args()
    if args.clean and args.out.exists():
        shutil.rmtree(args.out)
    files = write_corpus(args.out, args.papers, args.seed)
    print(f"wrote {args.papers} abstracts in {len(files)} seed files to {args.out}")


if __name__ == "__main__":
    main()
