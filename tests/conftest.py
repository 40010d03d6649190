"""Shared test settings: in CI, property tests run a fixed set of examples (no flaky reds), no
test touches the user's own state folder, and plugins installed in the environment (the README's
plugin example) are not loaded unless a test asks for them: the tests check vaultsync itself."""

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


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
