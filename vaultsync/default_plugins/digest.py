"""The built-in "what's new" digest: `New papers.md` (and the daily note), after every sync."""

from ..views.digest import vaultsync_sync_finished  # noqa: F401  (the hook implementation)
