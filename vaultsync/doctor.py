"""`vaultsync doctor`: find what is wrong with a vault, and say how to fix it.

``diagnose(vault)`` reads the vault (never writes it) and returns ``Finding``s, each naming a
check, a severity, a vault-relative path, what is wrong and what to do. Severities:

- ``error``: Obsidian misreads something, or vaultsync cannot do its job (broken or unshowable
  properties, duplicate ``vaultsync_id``s, seed files that cannot be read);
- ``warning``: needs the user's decision (unresolved links, conflict copies waiting, generated
  regions edited by hand or with broken markers, notes the state does not know);
- ``info``: worth knowing, nothing to do (notes you deleted that vaultsync will not recreate,
  no state yet).

``needs_action(findings)`` is True when any error or warning was found (exit status 1).
Dot-folders (``.obsidian``, ``.vaultsync``, ``.trash``) are not notes, as in Obsidian.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable

from .frontmatter_io import FrontmatterError, read_frontmatter, split_note
from .note_reading import (PROPERTY_FIX, LinkResolver, RegionSpan, find_region, frontmatter_links, has_markers,
                           link_key, link_targets, property_problems)
from .regions import region_sha

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}
CONFLICTS_DIR = ".vaultsync/conflicts"  # where sync.py puts vaultsync's version of a note


@dataclass(frozen=True)
class Finding:
    """One problem: ``path`` is vault-relative (POSIX), or a seed path for seed checks."""

    check: str
    severity: str
    path: str
    message: str
    fix: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def needs_action(findings: Iterable[Finding]) -> bool:
    return any(f.severity in (ERROR, WARNING) for f in findings)


# -- the checks ------------------------------------------------------------------------------
@dataclass
class _Note:
    path: str
    text: str
    frontmatter: dict[str, Any]
    body: str


def diagnose(vault: Path, *, seeds: Path | None = None,
             state_dir: Path | None = None) -> list[Finding]:
    """Every problem found in ``vault``, most severe first.

    ``seeds`` is the seeds folder to try reading (default: the ``seeds`` option of the vault's
    config, if any; the state does not record failed seeds). ``state_dir`` is where the state
    database lives (default: ``state.state_dir()``). Raises ``VaultsyncError`` when ``vault`` is
    not a folder.
    """
    from .errors import VaultsyncError

    vault = Path(vault)
    if not vault.is_dir():
        raise VaultsyncError(f"{vault} is not a folder; pass the vault to check")
    findings: list[Finding] = []
    files, notes = _read_vault(vault, findings)
    try:
        records = _state_records(vault, state_dir)
    except VaultsyncError as error:  # damaged, locked: said, and the vault is checked without it
        findings.append(Finding("state-unusable", WARNING, ".", str(error), "Run vaultsync export: a damaged "
                                "state is set aside and rebuilt from the vault."))
        records = None
    _check_links(files, notes, vault, findings)
    ids = _check_ids(notes, records or {}, findings)
    regions = _check_regions(notes, findings)
    _check_conflicts(vault, findings)
    _check_state(vault, notes, ids, regions, records, findings)
    _check_seeds(vault, seeds, findings)
    return sorted(findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.check, f.path, f.message))


def _walk(root: Path) -> list[str]:
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if not name.startswith("."):
                found.append(Path(folder, name).relative_to(root).as_posix())
    return found


def _read_vault(vault: Path, findings: list[Finding]) -> tuple[list[str], list[_Note]]:
    files, notes = _walk(vault), []
    for rel in files:
        if not rel.endswith(".md"):
            continue
        try:
            text = (vault / rel).read_text("utf-8")
        except UnicodeDecodeError as error:
            findings.append(Finding("note-encoding", ERROR, rel, f"not UTF-8 (byte {error.start})",
                                    "Re-save the note as UTF-8."))
            continue
        except OSError as error:
            findings.append(Finding("note-unreadable", ERROR, rel, f"cannot be read ({error.strerror})",
                                    "Check the file's permissions."))
            continue
        try:
            yaml_text, body = split_note(text)
            frontmatter = read_frontmatter(yaml_text)
        except FrontmatterError as error:
            findings.append(Finding("frontmatter-invalid", ERROR, rel, str(error),
                                    "Fix the YAML between the --- lines (Obsidian shows none of it)."))
            yaml_text, body, frontmatter = None, text, {}
        notes.append(_Note(rel, text, frontmatter, body))
        for check, message in property_problems(frontmatter):
            findings.append(Finding(check, ERROR, rel, message, PROPERTY_FIX[check]))
    return files, notes


def _check_links(files: list[str], notes: list[_Note], vault: Path, findings: list[Finding]) -> None:
    resolver = LinkResolver(files)
    for note in notes:
        missing = sorted({t for t in link_targets(note.body) + frontmatter_links(note.frontmatter)
                          if not resolver.resolves(t, note.path)}, key=str.casefold)
        for target in missing:
            findings.append(Finding("unresolved-link", WARNING, note.path, f"[[{target}]] names no note",
                                    "Create the note, or correct or remove the link."))
    for rel in files:
        if rel.endswith(".canvas"):
            try:
                nodes = json.loads((vault / rel).read_text("utf-8")).get("nodes", [])
            except (OSError, ValueError, AttributeError):
                findings.append(Finding("canvas-invalid", ERROR, rel, "not a JSON Canvas file",
                                        "Delete it; vaultsync rewrites its maps at the next export."))
                continue
            for node in nodes:
                target = node.get("file") if isinstance(node, dict) else None
                if isinstance(target, str) and link_key(target) not in resolver.paths:
                    findings.append(Finding("unresolved-link", WARNING, rel, f"the map shows {target}, "
                                            "which does not exist", "Run vaultsync export to redraw the map."))


def _check_ids(notes: list[_Note], records: dict, findings: list[Finding]) -> dict[str, str]:
    """Report ids carried by several notes; return id -> the note vaultsync updates (the one
    the state records, else the first by path: the sync engine's rule)."""
    by_id: dict[str, list[str]] = defaultdict(list)
    for note in notes:
        vid = note.frontmatter.get("vaultsync_id")
        if isinstance(vid, (str, int)) and str(vid):
            by_id[str(vid)].append(note.path)
    for vid, paths in sorted(by_id.items()):
        known = records.get(vid)
        paths.sort(key=lambda p: (known is None or p != known.path, p))
        for other in paths[1:]:
            findings.append(Finding("duplicate-id", ERROR, other, f"has the same vaultsync_id as {paths[0]}",
                                    "Remove the vaultsync_id property from the copy (or delete the copy); "
                                    "vaultsync updates only one note per id."))
    return {vid: paths[0] for vid, paths in by_id.items()}


def _check_regions(notes: list[_Note], findings: list[Finding]) -> dict[str, RegionSpan]:
    """Report broken markers and regions whose hash differs from their marker's; return spans."""
    spans = {}
    for note in notes:
        span = find_region(note.body)
        if span is None:
            if has_markers(note.body):
                findings.append(Finding("region-broken", WARNING, note.path,
                                        "its vaultsync:begin/end markers were removed, repeated or reordered",
                                        "Restore one %% vaultsync:begin %% line and one %% vaultsync:end %% "
                                        "line around the generated text; vaultsync will not update it till then."))
            continue
        spans[note.path] = span
        if span.sha is not None and region_sha(span.text) != span.sha:
            findings.append(Finding("region-edited", WARNING, note.path, "the generated region was edited by hand",
                                    "Move your text outside the %% vaultsync %% markers (or undo the edit); "
                                    "otherwise the next change vaultsync makes here becomes a conflict."))
    return spans


def _check_conflicts(vault: Path, findings: list[Finding]) -> None:
    root = vault / CONFLICTS_DIR
    if not root.is_dir():
        return
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            rel = Path(folder, name).relative_to(root).as_posix()
            findings.append(Finding("conflict-pending", WARNING, rel,
                                    f"vaultsync could not update it; its version waits in {CONFLICTS_DIR}/{rel}",
                                    "Compare the two, keep your text outside the generated region, run "
                                    f"vaultsync export, then delete {CONFLICTS_DIR}/{rel}."))


def _state_records(vault: Path, state_dir: Path | None) -> dict | None:
    """The state's note records for ``vault``, or ``None`` when it has no state database
    (never creates one, and never sets a damaged one aside: ``StateError`` then)."""
    from . import state as state_mod

    folder = Path(state_dir) if state_dir is not None else state_mod.state_dir()
    if not (folder / f"{state_mod.vault_key(vault)}.sqlite").is_file():
        return None
    state = state_mod.State(vault, folder, repair=False)
    try:
        return state.notes()
    finally:
        state.close()


def _check_state(vault: Path, notes: list[_Note], ids: dict[str, str], spans: dict[str, RegionSpan],
                 records: dict | None, findings: list[Finding]) -> None:
    if records is None:
        if ids:
            findings.append(Finding("state-missing", INFO, ".", "vaultsync has no record of this vault here",
                                    "Nothing to do: the next export rebuilds it (notes you deleted may come back)."))
        return
    known_paths = {n.path for n in notes}
    for rec in sorted(records.values(), key=lambda r: r.path):
        vid = rec.vaultsync_id
        if vid is None and rec.path not in known_paths and not (vault / rec.path).exists():
            findings.append(Finding("state-stale", INFO, rec.path, "vaultsync wrote it but it is gone",
                                    "Nothing to do: the next export writes it again."))
        elif vid is not None and vid not in ids:
            findings.append(Finding("state-deleted", INFO, rec.path, "you deleted this note; vaultsync "
                                    "will not recreate it", "To get it back: vaultsync export --recreate-deleted."))
        elif vid is not None and rec.region_sha and rec.path in spans and spans[rec.path].sha is None:
            if region_sha(spans[rec.path].text) != rec.region_sha:
                findings.append(Finding("region-edited", WARNING, rec.path, "the generated region was edited "
                                        "by hand", "Move your text outside the %% vaultsync %% markers."))
    for vid, path in sorted(ids.items(), key=lambda kv: kv[1]):
        if vid not in records:
            findings.append(Finding("state-unknown", WARNING, path, "carries a vaultsync_id vaultsync has no "
                                    "record of (copied from another vault, or its state was reset)",
                                    "Run vaultsync export to bring the state up to date; if the note is a "
                                    "copy, remove its vaultsync_id."))


def _check_seeds(vault: Path, seeds: Path | None, findings: list[Finding]) -> None:
    from .config import load_config
    from .errors import VaultsyncError
    from .plugins import get_plugin_manager
    from .read import read_seeds

    try:
        config = load_config(vault=vault)
    except VaultsyncError as error:
        findings.append(Finding("config-invalid", ERROR, ".vaultsync/vaultsync.toml", str(error),
                                "Fix the file, or run vaultsync init --force to start again."))
        return
    seeds = seeds or (Path(config.get("seeds")) if config.get("seeds") else None)
    if seeds is None:
        return
    try:
        result = read_seeds(Path(seeds), get_plugin_manager(vault=vault, config=config))
    except VaultsyncError as error:
        findings.append(Finding("seed-unreadable", ERROR, str(seeds), str(error), "Pass the right seeds folder."))
        return
    for line in result.failed:
        findings.append(Finding("seed-unreadable", ERROR, line.split(": ", 1)[0], line.split(": ", 1)[-1],
                                "Fix the file as the message says, then run vaultsync export."))
