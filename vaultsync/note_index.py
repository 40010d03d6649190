"""The vault session's index of notes: id -> (path, type), with the views a run asks of it
(names, types, paths) mended for the notes that changed instead of built again from every note."""

from __future__ import annotations

from typing import Mapping

from .vault_scan import note_stem


class NoteIndex(dict):
    """id -> (path, type), remembering which ids changed since ``views`` last looked, so that the
    views a run asks for before each round (names, types, paths of 20,000 notes) are mended, not
    rebuilt. Only ``[]=``, ``del`` and ``pop`` change it (what the session and ``sync_run`` use)."""

    def __init__(self, items: Mapping[str, tuple[str, str | None]]):
        super().__init__(items)
        # id -> whether it moved to the end of the index (added or deleted) rather than changed
        # in place: the views keep the index's order
        self._changed: dict[str, bool] = {}
        self._views: tuple | None = None  # (names, kinds, paths, and the index they were made from)

    def __setitem__(self, vid: str, value: tuple[str, str | None]) -> None:
        if vid in self:
            self._changed.setdefault(vid, False)
        else:
            self._changed.pop(vid, None)
            self._changed[vid] = True
        super().__setitem__(vid, value)

    def __delitem__(self, vid: str) -> None:
        super().__delitem__(vid)
        self._changed.pop(vid, None)
        self._changed[vid] = True

    def pop(self, vid: str, *default):
        if vid in self:
            self._changed.pop(vid, None)
            self._changed[vid] = True
        return super().pop(vid, *default)

    def _untracked(method):  # noqa: N805 - (other changes: the views are made again)
        def change(self, *args, **kwargs):
            self._views = None
            return method(self, *args, **kwargs)
        return change

    update, setdefault, clear, popitem, __ior__ = map(
        _untracked, (dict.update, dict.setdefault, dict.clear, dict.popitem, dict.__ior__))
    del _untracked

    def views(self) -> tuple[dict[str, str], dict[str, str | None], dict[str, int]]:
        """(id -> note stem, id -> type, path -> how many ids are there), in the index's order;
        the caller must not change them."""
        if self._views is None:
            self._changed.clear()
            names = {vid: note_stem(path.rpartition("/")[2]) for vid, (path, _) in self.items()}
            kinds = {vid: kind for vid, (_, kind) in self.items()}
            paths: dict[str, int] = {}
            for path, _ in self.values():
                paths[path] = paths.get(path, 0) + 1
            self._views = names, kinds, paths, dict(self)
        names, kinds, paths, seen = self._views
        changed, self._changed = self._changed, {}
        for vid, moved in changed.items():
            if vid in seen:  # what the views had of it goes
                path = seen.pop(vid)[0]
                paths[path] -= 1
                if not paths[path]:
                    del paths[path]
                if moved:
                    del names[vid], kinds[vid]
            if vid in self:
                path, kind = seen[vid] = self[vid]
                names[vid], kinds[vid] = note_stem(path.rpartition("/")[2]), kind
                paths[path] = paths.get(path, 0) + 1
        return names, kinds, paths
