"""Shared test settings: in CI, property tests run a fixed set of examples (no flaky reds), and
no test touches the user's own state folder."""

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def _state_folder_of_the_tests(tmp_path_factory):
    """State (vaults' databases, the vocabulary's automata) goes to a temporary folder unless a
    test names its own; never to the platform's user state folder."""
    before = os.environ.get("VAULTSYNC_STATE_DIR")
    os.environ["VAULTSYNC_STATE_DIR"] = str(tmp_path_factory.mktemp("state"))
    yield
    if before is None:
        os.environ.pop("VAULTSYNC_STATE_DIR", None)
    else:
        os.environ["VAULTSYNC_STATE_DIR"] = before
