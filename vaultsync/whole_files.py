"""What vaultsync wrote into the files it owns whole, remembered in the vault itself.

A map (``Maps/*.canvas``) or a data dump has no region markers and no frontmatter: vaultsync can
tell its own bytes from a user's rearranging only by remembering what it wrote. The state
database remembers, but a vault must survive losing its state (deleted, damaged, another
machine): without a record, every map the seeds changed since would look rearranged by the user
and be frozen. So the hashes also live in ``.vaultsync/whole-files.json``.

A file's new hash is added (durably) before the file is renamed into place, and its older hash
dropped once the run is saved: after a kill at any moment, the file holds bytes a recorded hash
names.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Iterable

from .errors import VaultsyncError
from .write import write_bytes_atomically

log = logging.getLogger(__name__)

LEDGER_FILE = ".vaultsync/whole-files.json"


class WholeFileLedger:
    """vault path -> the hashes of the bytes vaultsync wrote there (the last, and during a run
    the one it is writing). ``writes``: False in a dry run, which changes nothing."""

    def __init__(self, root: Path, writes: bool = True):
        self.root, self.writes = root, writes
        try:
            data = json.loads((root / LEDGER_FILE).read_text(encoding="utf-8"))
            self._hashes: dict[str, list[str]] = {str(k): [str(h) for h in v] for k, v in data.items()}
        except (OSError, ValueError, AttributeError, TypeError):
            self._hashes = {}

    def wrote(self, rel: str, sha: str) -> bool:
        """Whether vaultsync wrote these bytes (of hash ``sha``) at ``rel``."""
        return sha in self._hashes.get(rel, ())

    def hashes(self, rel: str) -> tuple[str, ...]:
        """The hashes of the bytes vaultsync wrote at ``rel`` (see ``wrote``)."""
        return tuple(self._hashes.get(rel, ()))

    def expect(self, written: Iterable[tuple[str, str]]) -> None:
        """Record (path, hash) pairs about to be written, before they are renamed into place."""
        added = False
        for rel, sha in written:
            hashes = self._hashes.setdefault(rel, [])
            if sha not in hashes:
                hashes.append(sha)
                added = True
        if added:
            self._save()

    def settle(self) -> None:
        """Keep only the latest hash of each file (the run that wrote them is saved)."""
        if any(len(hashes) > 1 for hashes in self._hashes.values()):
            self._hashes = {rel: hashes[-1:] for rel, hashes in self._hashes.items()}
            self._save()

    def _save(self) -> None:
        if not self.writes:
            return
        text = json.dumps(dict(sorted(self._hashes.items())), indent=1, ensure_ascii=False) + "\n"
        try:
            write_bytes_atomically(LEDGER_FILE, text.encode("utf-8"), vault=self.root)
        except (OSError, VaultsyncError) as error:  # the state still knows; only its loss would cost
            log.warning("%s could not be written (%s)", LEDGER_FILE, error)
