"""Note names against published titles (issue 16's measures), on abstracts nobody tuned on. Prints figures.

    python benchmarks/name_quality.py [--dev ../shared/benchmarks/icml2025-dev] [--show 40] [--list]

Reads ``abstracts.jsonl`` (abstracts with their published titles), names every abstract with the
installed naming rule (the extract stage, as an export runs it) and reports:

* **name accuracy**: among papers whose published title is ``Name: subtitle`` and whose abstract
  uses ``Name`` (a short name, at most four words), how often our name is ``Name`` (case, dashes
  and spaces aside);
* **markup**: names or titles that carry HTML, LaTeX or Markdown markup, or entity debris;
* **first words**: names of papers that name nothing, made of the abstract's first words;
* **long names**: names over 60 characters or 8 words (a descriptive title should be short).

The titles are for measuring only: nothing in vaultsync reads them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vaultsync.extract import extract_all  # noqa: E402
from vaultsync.plugins import get_plugin_manager  # noqa: E402
from vaultsync.records import Abstract, Collection, ExtractContext  # noqa: E402

_TAG = re.compile(r"</?[A-Za-z][^<>]{0,40}>")
_MARKUP = re.compile(r"</?[a-z]+>|&[a-z]+;|&#\d+;|\\[a-zA-Z]+|[*_`${}]|\bem\b-|-em\b|\bb-|-b\b")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2212-]")


def fold(text: str) -> str:
    """Two spellings of one name compare equal: NFC, case, dashes and spaces aside."""
    text = unicodedata.normalize("NFKC", text).replace("$", "").replace("^", "").replace("{", "").replace("}", "")
    return re.sub(r"\s+", "", _DASHES.sub("", text)).casefold()


def title_name(title: str, abstract: str) -> str | None:
    """``Name`` when the published title is ``Name: subtitle`` and the abstract uses it."""
    if ":" not in title:
        return None
    name = title.split(":", 1)[0].strip()
    plain = _TAG.sub("", abstract)
    if not name or len(name.split()) > 4 or not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", plain):
        return None
    return name


def first_words(name: str, abstract: str) -> bool:
    """Is the name the abstract's opening words (the first four, in order)?"""
    words = re.findall(r"\w+", _TAG.sub("", abstract).casefold())[:4]
    got = re.findall(r"\w+", name.casefold())[:4]
    return len(got) >= 3 and got == words[:len(got)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", type=Path, default=ROOT.parent / "shared/benchmarks/icml2025-dev")
    parser.add_argument("--show", type=int, default=30, help="How many misses of each kind to print.")
    parser.add_argument("--list", action="store_true", help="Print every name beside its published title.")
    args = parser.parse_args()
    source = args.dev / "abstracts.jsonl"
    if not source.is_file():
        print(f"{source} not found; pass --dev")
        return 2
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    collection = Collection("ICML 2025 Papers", "ICML 2025", 2025)
    abstracts = [Abstract(" ".join(r["abstract"].split()), "dev.txt", i + 1, 1, collection) for i, r in enumerate(rows)]
    extracted = extract_all(abstracts, get_plugin_manager(), ExtractContext(), workers=1)

    right = total = 0
    misses, markup, opening, long = [], [], [], []
    for row, abstract, found in zip(rows, abstracts, extracted):
        name = found.name.name or found.name.title
        want = title_name(row["title"], row["abstract"])
        if want:
            total += 1
            if found.name.name and fold(found.name.name) == fold(want):
                right += 1
            else:
                misses.append(f"  {want!r:28} ours {found.name.name!r}  ({row['id']})")
        if _MARKUP.search(name) or _MARKUP.search(found.name.title.replace("—", "")):
            markup.append(f"  {found.name.title!r}  ({row['id']})")
        if not found.name.name and first_words(name, abstract.text):
            opening.append(f"  {name!r}  ({row['id']})")
        if len(name) > 60 or len(name.split()) > 8:
            long.append(f"  {name!r}  ({row['id']})")
        if args.list:
            print(f"{name[:70]:70} | {row['title'][:70]}")

    named = sum(1 for f in extracted if f.name.name)
    n = len(rows)
    print(f"abstracts {n} · named after a method/benchmark/dataset {named} ({100 * named / n:.0f} %) · "
          f"descriptive titles {n - named}")
    print(f"name accuracy (title `Name: subtitle`)  {100 * right / max(total, 1):.1f} % ({right}/{total})   target ≥ 95 %")
    print(f"names or titles with markup             {len(markup)} of {n}   target 0")
    print(f"names that are the first words          {len(opening)} of {n}   target 0")
    print(f"names over 60 characters or 8 words     {len(long)} of {n}")
    for label, rows_ in (("misses", misses), ("markup", markup), ("first words", opening), ("long", long)):
        if rows_ and args.show:
            print(f"\n{label}:")
            print("\n".join(rows_[:args.show]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
