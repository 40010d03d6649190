"""Concept and naming quality on hand-labelled abstracts (issue 3's measures). Prints figures.

    python benchmarks/concept_quality.py [--gold ../shared/benchmarks/icml2026-dev] [--seeds seeds]
                                         [--sample 40] [--show-misses]

Name accuracy, acronym-pair recall, concept recall (a gold concept counts when a linked concept,
one of its aliases, or one of its broader concepts, up the hierarchy, matches after canonicalisation), junk count,
and a seeded random sample of (paper, linked concept) pairs to judge precision by reading.
The labels are for measuring only: nothing in vaultsync reads them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vaultsync.canonical import concept_key  # noqa: E402
from vaultsync.default_plugins.acronyms import find_acronym_definitions  # noqa: E402
from vaultsync.extract import extract_all  # noqa: E402
from vaultsync.link import LinkOptions, link  # noqa: E402
from vaultsync.plugins import promoted_phrases  # noqa: E402
from vaultsync.plugins import get_plugin_manager  # noqa: E402
from vaultsync.read import read_seeds  # noqa: E402
from vaultsync.records import ExtractContext  # noqa: E402


def load_gold(folder: Path) -> dict[tuple[str, int], dict]:
    gold = {}
    for path in sorted(folder.glob("*_gold.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            gold[(item["seed_file"], item["index"] + 1)] = item
    return gold


def ancestors(concept, concepts: dict) -> set[str]:
    """Every broader concept up the hierarchy (`Offline RL` -> `RL` -> ...)."""
    seen: set[str] = set()
    todo = list(concept.broader)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(concepts[name].broader if name in concepts else ())
    return seen


def acronym_found(text: str, short: str, long: str) -> bool:
    want_short = short.rstrip("s").casefold()
    want_long = concept_key(long)
    for found in find_acronym_definitions(text):
        if found.short.rstrip("s").casefold() != want_short:
            continue
        got = concept_key(found.long)
        if got == want_long or got.startswith(want_long) or want_long.startswith(got) and len(got) > 0.8 * len(want_long):
            return True
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=ROOT.parent / "shared/benchmarks/icml2026-dev")
    parser.add_argument("--seeds", type=Path, default=ROOT / "seeds")
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    if not args.gold.is_dir():
        print(f"gold labels not found at {args.gold}; pass --gold")
        return 2
    gold = load_gold(args.gold)

    pm = get_plugin_manager()
    read = read_seeds(args.seeds, pm)
    abstracts = [a for s in read.seeds for a in s.abstracts]
    extract_all(abstracts[:1], pm, ExtractContext(), workers=1)  # load the vocabulary, word lists
    started = time.perf_counter()
    extracted = extract_all(abstracts, pm, ExtractContext(), workers=1)
    extract_seconds = time.perf_counter() - started
    model = link(abstracts, extracted, LinkOptions(promote_phrases=lambda mentions: promoted_phrases(pm, mentions)))
    by_source = {(p.abstract.seed.split("/")[-1], p.abstract.paragraph): p for p in model.papers}
    extracted_by_id = {a.id: e for a, e in zip(abstracts, extracted)}
    concepts = {c.name: c for c in model.concepts}

    names_ok = names_total = 0
    acr_ok = acr_total = 0
    recall_ok = recall_total = 0
    misses: list[str] = []
    for key, item in sorted(gold.items()):
        paper = by_source.get(key)
        if paper is None:
            misses.append(f"no paper for {key}")
            continue
        ours = extracted_by_id[paper.id].name.name
        names_total += 1
        if (ours or None) == item["name"]:
            names_ok += 1
        else:
            misses.append(f"name {key}: ours {ours!r} gold {item['name']!r}")
        for short, long in item["acronyms"]:
            acr_total += 1
            if acronym_found(paper.abstract.text, short, long):
                acr_ok += 1
            else:
                misses.append(f"acronym {key}: {short} = {long}")
        linked_keys = set()
        for name in (*paper.concepts, *paper.fields):  # a broad field the note links counts too
            concept = concepts[name]
            linked_keys.add(concept_key(name))
            linked_keys.update(concept_key(a) for a in concept.aliases)
            linked_keys.update(concept_key(b) for b in ancestors(concept, concepts))
        for must in item["must_concepts"]:
            recall_total += 1
            if concept_key(must) in linked_keys:
                recall_ok += 1
            else:
                misses.append(f"concept {key}: {must}  (linked: {', '.join(paper.concepts)})")

    concept_keys = {}
    for concept in model.concepts:
        for spelling in (concept.name, *concept.aliases):
            concept_keys[concept_key(spelling)] = concept.name
    junk = sorted({(j, concept_keys[concept_key(j)]) for item in gold.values() for j in item["junk"]
                   if concept_key(j) in concept_keys})

    pct = lambda ok, total: f"{100 * ok / max(total, 1):.1f} % ({ok}/{total})"  # noqa: E731
    print(f"papers {len(model.papers)} · concepts {len(model.concepts)} · "
          f"mean concepts/paper {sum(len(p.concepts) for p in model.papers) / max(len(model.papers), 1):.1f}")
    print(f"name accuracy        {pct(names_ok, names_total)}   target ≥ 95 %")
    print(f"acronym-pair recall  {pct(acr_ok, acr_total)}   target ≥ 95 %")
    print(f"concept recall       {pct(recall_ok, recall_total)}   target ≥ 70 %")
    print(f"junk concepts        {len(junk)}   target 0" + (f": {junk}" if junk else ""))
    print(f"extract speed        {len(abstracts) / extract_seconds:,.0f} abstracts/s (all extractors, one core, "
          f"data loaded; {len(abstracts)} abstracts, so noisy: benchmarks/extract_speed.py measures it properly)")
    if args.show_misses:
        print("\n".join(["", "misses:"] + misses))
    if args.sample:
        pairs = [(p.name, c) for p in model.papers for c in p.concepts]
        rng = random.Random(args.seed)
        print(f"\n{args.sample} random (paper, linked concept) pairs (seed {args.seed}) to judge by reading:")
        for paper, concept in sorted(rng.sample(pairs, min(args.sample, len(pairs)))):
            print(f"  {paper[:50]:50}  {concept}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
