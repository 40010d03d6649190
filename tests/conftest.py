"""Shared test settings: property tests run a fixed set of examples and no deadline (no flaky
reds, nothing timed; `VAULTSYNC_HYPOTHESIS=explore` searches afresh on each run, to look for
new counterexamples), no test touches the user's own state folder, and plugins installed in the
environment (the README's plugin example) are not loaded unless a test asks for them: the tests
check vaultsync itself."""

import os

import pytest
from hypothesis import settings

settings.register_profile("fixed", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile("explore" if os.environ.get("VAULTSYNC_HYPOTHESIS") == "explore" else "fixed")


@pytest.fixture(autouse=True, scope="session")
def _isolated_from_the_users_setup(tmp_path_factory):
    """State (vaults' databases, the vocabulary's automata) goes to a temporary folder unless a
    test names its own; never to the platform's user state folder."""
    settings_before = {name: os.environ.get(name) for name in ("VAULTSYNC_STATE_DIR", "VAULTSYNC_LOAD_PLUGINS")}
    os.environ["VAULTSYNC_STATE_DIR"] = str(tmp_path_factory.mktemp("state"))
    os.environ.setdefault("VAULTSYNC_LOAD_PLUGINS", "")  # no installed plugin, unless asked for
    yield
    for name, before in settings_before.items():
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before
