"""An abstract's id: the normalised text it hashes must never change (ids live in every vault)."""

from __future__ import annotations

import re
import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from vaultsync.records import normalise_text

WHITESPACE = "".join(chr(c) for c in range(sys.maxunicode + 1) if re.fullmatch(r"\s", chr(c)))


def regex_form(text: str) -> str:
    """How normalise_text read before it split on whitespace instead of substituting a regex."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip().casefold()


def test_whitespace_is_the_same_set_of_characters_for_split_and_the_regex():
    assert WHITESPACE == "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())


@given(st.text(alphabet=st.sampled_from(WHITESPACE + "aB1é\u0301ẞ.-\u200b\x00"), max_size=40) | st.text(max_size=60))
def test_the_normalised_text_is_the_regex_form(text):
    normalise_text.cache_clear()
    assert normalise_text(text) == regex_form(text)
