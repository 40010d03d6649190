"""The curated vocabulary extractor: finds every known research concept an abstract mentions.

The shipped list lives in ``vaultsync/data/vocabulary.txt``, one entry a line::

    # comment (section headers are comments too)
    Canonical Name | alias | another alias > Broader Concept ; Other Broader

Matching runs in one pass per automaton (pyahocorasick), never a regex per concept:

* every name is expanded once, at load, into the spellings that share its meaning — singular
  and plural of the head noun, British and American spelling, `pre-training`/`pretraining` —
  so the text itself is only case-folded and has hyphens turned into spaces (length-preserving,
  so offsets need no map except where runs of spaces were collapsed);
* names written as acronyms (one token with an inner capital and no digit: `LLMs`, `MoE`,
  `NeRF`) match case-sensitively, so `MoE` never fires on "moe"; all other names match
  case-insensitively;
* matches sit on word boundaries, the longest wins where matches overlap, and nothing inside
  ``$...$`` math or a URL counts.

The user's vault teaches it: ``Vocabulary.for_vault(vault)`` adds the concept notes of
``<vault>/Concepts/*.md`` (their ``title`` and ``aliases``); a user's name wins over the
shipped name of the same concept.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

import ahocorasick

from ..canonical import concept_key, singular
from ..errors import VaultsyncError
from ..hookspecs import hookimpl
from ..records import Abstract, ConceptMention, ExtractContext, Extraction

log = logging.getLogger(__name__)

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "vocabulary.txt"

# Hyphens, en dashes (`Kullback–Leibler`), slashes and underscores join words as a space does;
# em dashes are left alone because they break clauses. Every mapping is one char to one char.
_FOLD = str.maketrans(
    {c: " " for c in "-\u2010\u2011\u2012\u2013\u2212\uFE63\uFF0D_/\t\n\r\f\v\u00a0\u2009\u202f"}
    | {"\u2019": "'"}
)
_SPACE_RUNS = re.compile(r" {2,}")
_MATH_OR_URL = re.compile(r"\$\$.+?\$\$|\$[^$]+\$|https?://\S+|www\.\S+", re.S)
# A head noun inflects before these words: "mixtures of experts", "chains of thought".
_PREPOSITIONS = {"of", "for", "in", "on", "with", "from", "to", "over", "under", "via"}
# `pre-training` is also written `pretraining`; these prefixes close up.
_CLOSING_PREFIXES = re.compile(
    r"\b(pre|post|re|co|non|multi|semi|self|fine|meta|hyper|sub|inter|intra|cross|over|under|"
    r"un|de|bi|tri|uni|anti|auto|micro|macro|mid|mis|out|up|down|few|zero|one)-(?=[a-z])",
    re.I,
)
_IRREGULAR_PLURALS = {
    "index": "indices", "matrix": "matrices", "vertex": "vertices", "criterion": "criteria",
    "phenomenon": "phenomena", "hypothesis": "hypotheses", "analysis": "analyses", "basis": "bases",
    "axis": "axes", "synthesis": "syntheses", "diagnosis": "diagnoses", "corpus": "corpora",
    "optimum": "optima", "maximum": "maxima", "minimum": "minima", "spectrum": "spectra",
    "automaton": "automata", "medium": "media", "curriculum": "curricula", "child": "children",
    "person": "people", "loss": "losses", "bias": "biases", "class": "classes",
    "process": "processes", "lens": "lenses", "datum": "data",
}
# British <-> American spellings by rule; a rule that misfires only adds a spelling nobody writes.
_SPELLING_RULES = (
    (re.compile(r"(?<=\w{3})iz(?=e|ing|ation|ability|able)"), "is"),
    (re.compile(r"(?<=\w{3})is(?=e|ing|ation|ability|able)"), "iz"),
    (re.compile(r"(?<=\w{2})yz(?=e|ing)"), "ys"),
    (re.compile(r"(?<=[^l]e)l(?=ing$|ed$|er$|ers$)"), "ll"),
    (re.compile(r"(?<=\w)ell(?=ing$|ed$|er$|ers$)"), "el"),
    (re.compile(r"(?<=\w{2}[^aeiou])or(?=$|s$|al$|ally$|hood$|ing$|ed$)"), "our"),
    (re.compile(r"(?<=\w{3})our(?=$|s$|al$|ally$|hood$|ing$|ed$)"), "or"),
)
_SPELLING_WORDS = {
    "center": "centre", "centre": "center", "defense": "defence", "defence": "defense",
    "gray": "grey", "grey": "gray", "program": "programme", "programme": "program",
    "analog": "analogue", "analogue": "analog", "catalog": "catalogue", "catalogue": "catalog",
    "license": "licence", "licence": "license", "aging": "ageing", "ageing": "aging",
    "tumor": "tumour", "tumour": "tumor", "esophageal": "oesophageal", "fetal": "foetal",
    "anemia": "anaemia", "edema": "oedema", "pediatric": "paediatric", "hemorrhage": "haemorrhage",
}
_MAX_VARIANTS = 64


@dataclass(frozen=True)
class VocabularyEntry:
    """One concept the vocabulary knows: its canonical name, other names, broader concepts."""

    name: str
    aliases: tuple[str, ...] = ()
    broader: tuple[str, ...] = ()
    origin: str = ""  # where it was read: "vocabulary.txt line 12", "Concepts/Foo.md"

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class VocabularyMatch:
    """One mention: ``surface`` is exactly ``text[start:end]`` of the matched text."""

    entry: VocabularyEntry
    surface: str
    start: int
    end: int


def parse_vocabulary(text: str, origin: str = "vocabulary.txt") -> list[VocabularyEntry]:
    """Read the vocabulary format. Raise ``VaultsyncError`` naming the line of a malformed entry."""
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        names_part, _, broader_part = line.partition(">")
        names = [name.strip() for name in names_part.split("|")]
        broader = [name.strip() for name in broader_part.split(";")] if broader_part else []
        if not all(names) or not all(broader) or "<" in line:
            raise VaultsyncError(
                f"{origin} line {number}: expected `Name | alias > Broader ; Broader`; fix the empty "
                "name or stray separator."
            )
        entries.append(VocabularyEntry(names[0], tuple(names[1:]), tuple(broader), f"{origin} line {number}"))
    return entries


def is_acronym(surface: str) -> bool:
    """True for names matched case-sensitively: one token, no digit, a capital after the first
    letter (`LLMs`, `MoE`, `NeRF`, `RL`). Such names collide with English words when folded."""
    folded = surface.translate(_FOLD).strip()
    return (
        " " not in folded
        and not any(c.isdigit() for c in folded)
        and any(c.isupper() for c in folded[1:])
    )


def surface_patterns(surface: str) -> tuple[list[str], bool]:
    """Every spelling ``surface`` is matched by, and whether matching is case-sensitive."""
    if is_acronym(surface):
        word = surface.strip()
        forms = {word, word + "s"}
        if word.endswith("s") and sum(c.isupper() for c in word) >= 2:
            forms.add(word[:-1])  # `LLMs` listed: `LLM` too
        return sorted(forms), True
    spellings = {surface, _CLOSING_PREFIXES.sub(r"\1", surface)}
    patterns: set[str] = set()
    for spelling in spellings:
        words = _fold_spaces(spelling.translate(_FOLD)).strip().lower().split(" ")
        options = [
            _word_forms(word, inflect=i == len(words) - 1 or words[i + 1] in _PREPOSITIONS)
            for i, word in enumerate(words)
        ]
        for combination in itertools.islice(itertools.product(*options), _MAX_VARIANTS):
            patterns.add(" ".join(combination))
    return sorted(patterns), False


def _word_forms(word: str, inflect: bool) -> list[str]:
    forms = {word}
    if word.endswith(("'s", "s'")):
        forms.add(word[:-2] if word.endswith("'s") else word[:-1])  # `Bayes'`, `Jensen's`
    if len(word) >= 5 and word.isalpha():
        forms.add(_SPELLING_WORDS.get(word, word))
        for rule, replacement in _SPELLING_RULES:
            forms.update({rule.sub(replacement, form) for form in list(forms)})
    if inflect and len(word) >= 3 and word.isalpha():
        for form in list(forms):
            one = singular(form)
            forms.update({one, _plural(one)})
    return sorted(forms)


def _plural(word: str) -> str:
    """The plural that ``canonical.singular`` folds back to ``word``, or ``word`` itself."""
    candidates = [_IRREGULAR_PLURALS.get(word, "")]
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        candidates.append(word[:-1] + "ies")
    if word.endswith(("s", "x", "z", "ch", "sh")):
        candidates.append(word + "es")
    candidates.append(word + "s")
    return next((c for c in candidates if c and singular(c) == word), word)


def _fold_spaces(text: str) -> str:
    return _SPACE_RUNS.sub(" ", text)


class Vocabulary:
    """A set of concepts and the automata that find them in text.

    Build with ``Vocabulary.load()`` (the shipped list, cached), ``Vocabulary.for_vault(vault)``
    (shipped + the vault's concept notes, cached per vault state) or ``Vocabulary(entries)``.
    Later entries win: an entry sharing a name's concept key with an earlier one replaces its
    canonical name and adds its aliases.
    """

    def __init__(self, entries: Iterable[VocabularyEntry]):
        self.entries = _merge(entries)
        self._by_key = {concept_key(n): e for e in self.entries for n in e.names}
        self._sensitive, self._insensitive = _build_automata(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def entry(self, name: str) -> VocabularyEntry | None:
        """The entry one of whose names has ``name``'s concept key, or None."""
        return self._by_key.get(concept_key(name))

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> "Vocabulary":
        """The vocabulary of one file (default: the shipped list), read once per file state."""
        return _load_file(*_file_state(Path(path) if path else DATA_FILE))

    @classmethod
    def for_vault(
        cls, vault: str | os.PathLike[str] | None, extra_file: str | os.PathLike[str] | None = None
    ) -> "Vocabulary":
        """Shipped entries, then ``extra_file``'s, then the vault's concept notes (which win).

        Cached on the vault path and the name, size and mtime of every concept note, so a call
        per abstract costs one directory listing.
        """
        extra = _file_state(Path(extra_file)) if extra_file else None
        if vault is None:
            return _combined(None, (), extra) if extra else cls.load()
        folder = Path(vault) / "Concepts"
        return _combined(str(folder), _folder_signature(folder), extra)

    def match(self, text: str) -> list[VocabularyMatch]:
        """Every entry mentioned in ``text``, in text order, longest match first where they
        overlap; ``surface`` is the text exactly as written."""
        folded = text.translate(_FOLD)
        offsets = None
        if "  " in folded:
            folded, offsets = _collapse_spaces(folded)
        lowered = folded.lower()
        if len(lowered) != len(folded):  # a rare character (`İ`) lowers to two; keep it as is
            lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in folded)
        size = len(folded)
        found = []
        for haystack, automaton in ((lowered, self._insensitive), (folded, self._sensitive)):
            if automaton is None:
                continue
            for last, (length, index) in automaton.iter(haystack):
                start = last - length + 1
                if (start and haystack[start - 1].isalnum()) or (
                    last + 1 < size and haystack[last + 1].isalnum()
                ):
                    continue
                found.append((start, last + 1, index))
        if not found:
            return []
        found.sort(key=lambda m: (m[0] - m[1], m[0]))
        blocked = _blocked_spans(text)
        taken = bytearray(size)
        kept = []
        for start, end, index in found:
            if 1 in taken[start:end]:
                continue
            first, stop = (start, end) if offsets is None else (offsets[start], offsets[end - 1] + 1)
            if blocked and any(s < stop and first < e for s, e in blocked):
                continue
            taken[start:end] = b"\1" * (end - start)
            kept.append(VocabularyMatch(self.entries[index], text[first:stop], first, stop))
        kept.sort(key=lambda m: m.start)
        return kept


def _collapse_spaces(folded: str) -> tuple[str, list[int]]:
    """``folded`` with runs of spaces cut to one, and each kept char's index in ``folded``."""
    pieces, offsets, position = [], [], 0
    for run in _SPACE_RUNS.finditer(folded):
        pieces.append(folded[position : run.start() + 1])
        offsets.extend(range(position, run.start() + 1))
        position = run.end()
    pieces.append(folded[position:])
    offsets.extend(range(position, len(folded)))
    return "".join(pieces), offsets


def _blocked_spans(text: str) -> list[tuple[int, int]]:
    if "$" not in text and "http" not in text and "www." not in text:
        return []
    return [m.span() for m in _MATH_OR_URL.finditer(text)]


def _merge(entries: Iterable[VocabularyEntry]) -> tuple[VocabularyEntry, ...]:
    merged: list[VocabularyEntry] = []
    owner: dict[str, int] = {}
    for entry in entries:
        keys = [concept_key(name) for name in entry.names]
        hit = next((owner[k] for k in keys if k in owner), None)
        if hit is not None:
            old = merged[hit]
            names = _unique((*entry.names, *old.names))
            entry = VocabularyEntry(names[0], names[1:], entry.broader or old.broader, entry.origin)
            merged[hit] = entry
        else:
            hit = len(merged)
            merged.append(entry)
        owner.update((concept_key(name), hit) for name in entry.names)
    canonical = {key: merged[index].name for key, index in owner.items()}
    resolved = []
    for entry in merged:  # broader names point at canonical names once every entry is known
        broader = _unique(canonical.get(concept_key(b), b) for b in entry.broader)
        resolved.append(
            VocabularyEntry(entry.name, entry.aliases, tuple(b for b in broader if b != entry.name), entry.origin)
        )
    return tuple(resolved)


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(concept_key(name) if not is_acronym(name) else name, name)
    return tuple(seen.values())


def _build_automata(entries: tuple[VocabularyEntry, ...]):
    sensitive, insensitive = ahocorasick.Automaton(), ahocorasick.Automaton()
    for index, entry in enumerate(entries):
        for name in entry.names:
            patterns, is_sensitive = surface_patterns(name)
            automaton = sensitive if is_sensitive else insensitive
            for pattern in patterns:
                if pattern.strip():
                    automaton.add_word(pattern, (len(pattern), index))
    built = []
    for automaton in (sensitive, insensitive):
        if len(automaton):
            automaton.make_automaton()
            built.append(automaton)
        else:
            built.append(None)
    return built


def _file_state(path: Path) -> tuple[str, int, int]:
    try:
        stat = path.stat()
    except OSError as error:
        raise VaultsyncError(f"{path}: cannot read the vocabulary file ({error.strerror}); fix the path.") from None
    return str(path), stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=16)
def _read_file(path: str, mtime: int, size: int) -> tuple[VocabularyEntry, ...]:
    text = Path(path).read_text(encoding="utf-8")
    return tuple(parse_vocabulary(text, Path(path).name))


@lru_cache(maxsize=16)
def _load_file(path: str, mtime: int, size: int) -> Vocabulary:
    return Vocabulary(_read_file(path, mtime, size))


# folder -> (when last listed, folder mtime, signature): listing every note costs a stat per
# note, so within a couple of seconds an unchanged folder mtime is trusted instead.
_SIGNATURES: dict[str, tuple[float, int, tuple]] = {}
_RELIST_AFTER = 2.0


def _folder_signature(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """Name, mtime and size of every note in ``folder`` (empty when there is no folder)."""
    try:
        folder_mtime = folder.stat().st_mtime_ns
    except OSError:
        return ()
    now = time.monotonic()
    cached = _SIGNATURES.get(str(folder))
    if cached and cached[1] == folder_mtime and now - cached[0] < _RELIST_AFTER:
        return cached[2]
    try:
        with os.scandir(folder) as notes:
            signature = tuple(sorted(
                (n.name, n.stat().st_mtime_ns, n.stat().st_size)
                for n in notes if n.name.endswith(".md") and n.is_file()
            ))
    except OSError:
        signature = ()
    _SIGNATURES[str(folder)] = (now, folder_mtime, signature)
    return signature


@lru_cache(maxsize=8)
def _combined(folder: str | None, signature: tuple, extra: tuple[str, int, int] | None) -> Vocabulary:
    entries = list(_read_file(*_file_state(DATA_FILE)))
    if extra:
        entries.extend(_read_file(*extra))
    if folder:
        entries.extend(read_concept_notes(Path(folder), [name for name, _, _ in signature]))
    return Vocabulary(entries)


def read_concept_notes(folder: Path, names: Iterable[str] | None = None) -> list[VocabularyEntry]:
    """Entries for the concept notes of ``folder``; notes with broken YAML or another ``type``
    are skipped (a user's half-typed note must not stop an export)."""
    import frontmatter  # only vaults need it; keeps shipped-list loading lean

    entries = []
    for name in names if names is not None else sorted(p.name for p in folder.glob("*.md")):
        path = folder / name
        try:
            meta: Mapping[str, Any] = frontmatter.load(str(path)).metadata
        except Exception as error:  # noqa: BLE001 - YAML, encoding and I/O errors all mean "skip"
            log.debug("skipping concept note %s: %s", path, error)
            continue
        if meta.get("type", "concept") != "concept" or meta.get("status") == "removed":
            continue
        title = str(meta.get("title") or path.stem).strip()
        aliases = tuple(a for a in (_link_text(x) for x in _as_list(meta.get("aliases"))) if a)
        broader = tuple(b for b in (_link_text(x) for x in _as_list(meta.get("broader"))) if b)
        if title:
            entries.append(VocabularyEntry(title, aliases, broader, f"Concepts/{name}"))
    return entries


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _link_text(value: Any) -> str:
    """`[[Large Language Models|LLMs]]` -> `Large Language Models`; plain strings unchanged."""
    text = str(value).strip()
    if text.startswith("[[") and text.endswith("]]"):
        text = text[2:-2].split("|", 1)[0].split("#", 1)[0]
    return text.strip()


def mentions(matches: Iterable[VocabularyMatch]) -> tuple[ConceptMention, ...]:
    """One ``ConceptMention`` per entry, in order of first mention; score = number of mentions."""
    grouped: dict[str, list[VocabularyMatch]] = {}
    for match in matches:
        grouped.setdefault(match.entry.name, []).append(match)
    return tuple(
        ConceptMention(
            name=found[0].entry.name,
            kind="vocabulary",
            surfaces=tuple(dict.fromkeys(m.surface for m in found)),
            aliases=found[0].entry.aliases,
            score=float(len(found)),
            broader=found[0].entry.broader,
            canonical=True,
        )
        for found in grouped.values()
    )


@hookimpl
def vaultsync_extract(abstract: Abstract, context: ExtractContext) -> Extraction | None:
    """Concepts of the curated vocabulary (and the vault's concept notes) that the abstract names.

    Options (section ``vocabulary``): ``enabled = false`` turns it off; ``extra_file`` names
    another file in the vocabulary format (relative paths are relative to the vault).
    """
    options = context.options("vocabulary")
    if options.get("enabled", True) is False:
        return None
    extra = options.get("extra_file")
    if extra:
        extra = Path(extra).expanduser()
        if not extra.is_absolute() and context.vault:
            extra = Path(context.vault) / extra
    found = Vocabulary.for_vault(context.vault, extra).match(abstract.text)
    return Extraction(concepts=mentions(found)) if found else None
