"""vaultsync plugin: the datasets and benchmarks a paper uses.

Two ways to find one:

* a curated list of well-known datasets and benchmarks, with their other spellings
  (``MS COCO`` and ``COCO``, ``ImageNet-1k`` and ``ImageNet``), matched as whole words;
* patterns around a coined name: ``the X benchmark``, ``X dataset``, ``X corpus``, ``the X suite``
  where ``X`` looks like a name (capitals inside, or digits: ``AVI-Bench``, ``WildVid-2K``).

Each becomes a ``ConceptMention(kind="dataset")`` (so shared datasets get concept notes linking
their papers) and the paper's ``datasets`` property lists them. Config, in ``[datasets]``:
``extra = ["MyData", ...]`` adds names to the curated list; ``patterns = false`` keeps only it.
"""

from __future__ import annotations

import re
from typing import Iterable

from vaultsync.hookspecs import hookimpl
from vaultsync.records import Abstract, ConceptMention, ExtractContext, Extraction, frozen_mapping

# canonical name -> other spellings found in abstracts
KNOWN: dict[str, tuple[str, ...]] = {
    "ImageNet": ("ImageNet-1k", "ImageNet-1K", "ImageNet-21k", "ILSVRC"),
    "COCO": ("MS COCO", "MS-COCO", "MSCOCO"),
    "CIFAR-10": ("CIFAR10",),
    "CIFAR-100": ("CIFAR100",),
    "MNIST": (),
    "Fashion-MNIST": (),
    "SVHN": (),
    "CelebA": (),
    "FFHQ": (),
    "LSUN": (),
    "ADE20K": (),
    "Cityscapes": (),
    "Pascal VOC": ("PASCAL VOC", "VOC"),
    "KITTI": (),
    "nuScenes": (),
    "ScanNet": (),
    "ShapeNet": (),
    "Kinetics-400": ("Kinetics",),
    "LAION-5B": ("LAION",),
    "Visual Genome": (),
    "VQAv2": ("VQA v2",),
    "Flickr30k": (),
    "LibriSpeech": (),
    "Common Voice": (),
    "GLUE": (),
    "SuperGLUE": (),
    "SQuAD": (),
    "MMLU": (),
    "GSM8K": (),
    "MATH": (),
    "HumanEval": (),
    "MBPP": (),
    "SWE-bench": ("SWE-Bench",),
    "BIG-bench": ("BIG-Bench", "BBH"),
    "HellaSwag": (),
    "TruthfulQA": (),
    "Natural Questions": (),
    "TriviaQA": (),
    "HotpotQA": (),
    "MS MARCO": (),
    "WikiText-103": ("WikiText",),
    "Penn Treebank": (),
    "C4": (),
    "The Pile": (),
    "WMT": (),
    "D4RL": (),
    "Atari 100k": (),
    "OGB": ("Open Graph Benchmark",),
    "UCI": (),
}

_NAME = r"[A-Za-z0-9][\w.+-]*"
_PATTERN = re.compile(
    rf"\b(?:the\s+)?(?P<name>{_NAME}(?:\s+{_NAME})?)\s+(?:benchmark|dataset|corpus|suite)s?\b"
)
# Words that sit before "benchmark" or "dataset" without being a name.
_NOT_NAMES = {"a", "an", "the", "this", "that", "our", "new", "large", "public", "real", "each",
              "standard", "synthetic", "existing", "several", "multiple", "popular", "two", "three"}


def _looks_like_name(word: str) -> bool:
    """Coined names mix case or digits: ``AVI-Bench``, ``WildVid-2K``, ``GSM8K`` — not ``Video``."""
    return any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])


def known_patterns(extra: Iterable[str] = ()) -> list[tuple[str, re.Pattern[str]]]:
    """(canonical name, whole-word pattern of every spelling), longest spelling first."""
    table = dict(KNOWN)
    for name in extra:
        table.setdefault(name, ())
    found = []
    for name, spellings in table.items():
        for spelling in sorted({name, *spellings}, key=len, reverse=True):
            found.append((name, re.compile(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])")))
    return sorted(found, key=lambda item: -len(item[1].pattern))


def find_datasets(text: str, extra: Iterable[str] = (), patterns: bool = True) -> dict[str, list[str]]:
    """Dataset name -> spellings found in ``text``, in order of first mention."""
    found: dict[str, list[str]] = {}
    taken: list[tuple[int, int]] = []
    hits: list[tuple[int, str, str]] = []
    for name, pattern in known_patterns(extra):
        for match in pattern.finditer(text):
            if any(s < match.end() and match.start() < e for s, e in taken):
                continue  # inside a longer spelling already found ("MS COCO" vs "COCO")
            taken.append(match.span())
            hits.append((match.start(), name, match.group()))
    if patterns:
        for match in _PATTERN.finditer(text):
            words = match.group("name").split()
            # keep the trailing name-like words: "the new AVI-Bench benchmark" -> "AVI-Bench"
            while words and (words[0].lower() in _NOT_NAMES or not _looks_like_name(words[0])):
                words.pop(0)
            if not words or not all(_looks_like_name(w) for w in words):
                continue
            surface = " ".join(words)
            start = match.start("name") + match.group("name").rindex(surface)
            if any(s < start + len(surface) and start < e for s, e in taken):
                continue
            hits.append((start, surface, surface))
    for _, name, surface in sorted(hits):
        spellings = found.setdefault(name, [])
        if surface not in spellings:
            spellings.append(surface)
    return found


@hookimpl
def vaultsync_extract(abstract: Abstract, context: ExtractContext) -> Extraction | None:
    options = context.options("datasets")
    found = find_datasets(abstract.text, options.get("extra", ()), options.get("patterns", True))
    if not found:
        return None
    mentions = tuple(
        ConceptMention(name=name, kind="dataset", surfaces=tuple(surfaces),
                       aliases=tuple(s for s in surfaces if s != name), canonical=name in KNOWN)
        for name, surfaces in found.items()
    )
    return Extraction(concepts=mentions, metadata=frozen_mapping({"datasets": tuple(found)}))
