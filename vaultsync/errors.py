"""The one exception type vaultsync raises for problems a user can act on."""


class VaultsyncError(Exception):
    """A user-facing error: its message is one sentence naming the file and what to do.

    The CLI prints it on one line and exits with status 1; no traceback.
    """
