"""Shared test settings: in CI, property tests run a fixed set of examples (no flaky reds)."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
