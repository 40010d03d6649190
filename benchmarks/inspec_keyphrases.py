"""Keyphrase extraction on the Inspec test split (Hulth 2003): our ranker against YAKE.

Protocol (/work/shared/benchmarks/inspec/README.md): lowercase predictions and gold, split on
non-alphanumerics, Porter-stem each token (nltk); deduplicate predictions after stemming, then
cut at k; per document P@k = hits / #predictions and R@k = hits / #gold (absent keys included);
F1 per document, macro-averaged. Also prints extraction speed.

    .venv/bin/python benchmarks/inspec_keyphrases.py [--data PATH] [--no-yake]

Evaluation only: the data is never shipped in the package, and the extractor knows nothing of it.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

DEFAULT_DATA = Path("/work/shared/benchmarks/inspec/test.jsonl")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def load(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def make_normaliser():
    from nltk.stem.porter import PorterStemmer

    stemmer = PorterStemmer()
    cache: dict[str, str] = {}

    def stem(token: str) -> str:
        if token not in cache:
            cache[token] = stemmer.stem(token)
        return cache[token]

    def normalise(phrase: str) -> str:
        return " ".join(stem(t) for t in _NON_ALNUM.split(phrase.lower()) if t)

    return normalise


def f1_at(
    predictions: list[list[str]], golds: list[list[str]], k: int, normalise
) -> tuple[float, float, float]:
    """Macro-averaged (P@k, R@k, F1@k) in percent, following the README protocol."""
    precisions, recalls, f1s = [], [], []
    for predicted, gold in zip(predictions, golds, strict=True):
        gold_set = {g for g in (normalise(x) for x in gold) if g}
        seen: list[str] = []
        for phrase in predicted:
            stemmed = normalise(phrase)
            if stemmed and stemmed not in seen:
                seen.append(stemmed)
        top = seen[:k]
        hits = sum(1 for p in top if p in gold_set)
        p = hits / len(top) if top else 0.0
        r = hits / len(gold) if gold else 0.0
        precisions.append(p)
        recalls.append(r)
        f1s.append(2 * p * r / (p + r) if p + r else 0.0)
    return tuple(100 * statistics.fmean(v) for v in (precisions, recalls, f1s))


def report(name: str, predictions, golds, normalise, seconds: float, docs: int) -> None:
    p5, r5, f5 = f1_at(predictions, golds, 5, normalise)
    p10, r10, f10 = f1_at(predictions, golds, 10, normalise)
    print(f"{name:<22} F1@5 {f5:5.1f} (P {p5:4.1f} R {r5:4.1f})   "
          f"F1@10 {f10:5.1f} (P {p10:4.1f} R {r10:4.1f})   {docs / seconds:8.0f} docs/s")


def candidate_speed(texts: list[str], repeat: int = 3) -> tuple[float, float]:
    """Abstracts per second for candidate extraction + generic filtering: (cold caches, best warm)."""
    from vaultsync.canonical import concept_key
    from vaultsync.default_plugins import phrases
    from vaultsync.generic import is_generic, word_commonness

    for cache in (is_generic, concept_key, word_commonness):
        cache.cache_clear()
    for table in (phrases._FLAGS, phrases._CODES, *phrases._STRETCHES):
        table.clear()
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        for text in texts:
            [p for p in phrases.candidate_phrases(text) if not is_generic(p.text)]
        timings.append(time.perf_counter() - start)
    return len(texts) / timings[0], len(texts) / min(timings[1:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, help="Inspec test.jsonl (positional form of --data).")
    parser.add_argument("--data", dest="data_option", type=Path, help="Inspec test.jsonl.")
    parser.add_argument("--no-yake", action="store_true", help="Skip the YAKE baseline.")
    args = parser.parse_args(argv)
    path = args.data_option or args.data or DEFAULT_DATA
    if not path.exists():
        print(f"skipped: Inspec data not found at {path} (pass --data PATH)")
        return 0

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from vaultsync.default_plugins.phrase_concepts import rank_keyphrases

    records = load(path)
    texts = [r["text"] for r in records]
    golds = [r["keyphrases"] for r in records]
    normalise = make_normaliser()
    print(f"Inspec test: {len(texts)} documents, {sum(map(len, golds))} gold keyphrases")

    start = time.perf_counter()
    ours = rank_keyphrases(texts, k=10)
    report("vaultsync rank_keyphrases", ours, golds, normalise, time.perf_counter() - start, len(texts))

    if not args.no_yake:
        import yake

        extractor = yake.KeywordExtractor(lan="en", n=3, top=10)
        start = time.perf_counter()
        theirs = [[kw for kw, _ in extractor.extract_keywords(t)] for t in texts]
        report("YAKE (n=3, top=10)", theirs, golds, normalise, time.perf_counter() - start, len(texts))

    print("published (F1@10): TF-IDF 36.5, EmbedRank 35.6, PromptRank 37.9")
    # Speed on abstracts of the size vaultsync sees (~1,300 characters): Inspec texts joined in
    # threes and cut at the last word boundary before 1,350 characters.
    long_texts = [
        " ".join(texts[i:i + 3])[:1350].rsplit(" ", 1)[0] for i in range(0, len(texts) - 2, 3)
    ] * 6
    mean_chars = statistics.fmean(map(len, long_texts))
    cold, warm = candidate_speed(long_texts)
    print(f"candidates + generic filter: {warm:,.0f} abstracts/s on one core with warm word caches, "
          f"{cold:,.0f} cold ({len(long_texts)} abstracts of {mean_chars:,.0f} characters on average)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
