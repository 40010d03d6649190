"""Note names: safe on every file system Obsidian runs on, and unique within a folder."""

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultsync.names import NameRegistry, name_key, safe_note_name

FORBIDDEN = set('*"\\/<>:|?#^[]')
RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$", re.IGNORECASE)

# Text that hits the rules often: forbidden characters, dots, spaces, reserved words, accents.
tricky = st.lists(
    st.sampled_from(
        list('*"\\/<>:|?#^[]%. \t\n\x00\x1f\x7f\x85\u200b\u202eaAzZ09-_()éé\u0301ß\u0130İ日本😀')
        + ["CON", "nul", "Lpt1", "com¹", "..", "[[", "]]", "%%"]
    ),
    max_size=60,
).map("".join)
any_text = st.one_of(st.text(max_size=300), tricky)


def assert_safe(name: str, max_bytes: int = 200) -> None:
    assert name, "never empty"
    assert not FORBIDDEN & set(name), name
    assert not any(unicodedata.category(c) in ("Cc", "Cs") for c in name), name
    assert "%%" not in name and "[[" not in name and "]]" not in name
    assert len(name.encode("utf-8")) <= max_bytes
    assert unicodedata.is_normalized("NFC", name)
    assert not name.startswith("."), "a leading dot hides the file"
    assert not name.endswith((".", " ")), "Windows drops trailing dots and spaces"
    assert name == name.strip() and "  " not in name
    assert not RESERVED.match(name.split(".")[0].strip()), f"{name!r} is a Windows device name"


@given(any_text)
@settings(max_examples=400)
def test_safe_note_name_always_passes_the_rules(text):
    assert_safe(safe_note_name(text))


@given(any_text, st.integers(min_value=16, max_value=80))
def test_safe_note_name_respects_any_byte_cap(text, max_bytes):
    assert_safe(safe_note_name(text, max_bytes=max_bytes), max_bytes)


@given(any_text)
@settings(max_examples=400)
def test_safe_note_name_is_idempotent(text):
    once = safe_note_name(text)
    assert safe_note_name(once) == once


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AVI-Bench: Toward Human-like Audio-Visual", "AVI-Bench - Toward Human-like Audio-Visual"),
        ("Encoder/Decoder models", "Encoder-Decoder models"),
        ("../../etc/passwd", "etc-passwd"),
        ("..", "Untitled"),
        ("   ", "Untitled"),
        (".hidden note.", "hidden note"),
        ("CON", "CON_"),
        ("nul.txt", "nul_.txt"),
        ("COM1", "COM1_"),
        ("Console", "Console"),
        ("[[Link]] and %% comment %%", "Link and % comment %"),
        ("What is #1? A ^block | or not", "What is 1 A block-or not"),
        ('The "Observability Paradox"', "The 'Observability Paradox'"),
        ("line\nbreak\ttab", "line break tab"),
        ("Cafe\u0301", "Café"),
        ("lone \ud800 surrogate", "lone surrogate"),
    ],
)
def test_safe_note_name_examples(text, expected):
    assert safe_note_name(text) == expected


def test_long_names_are_cut_at_a_word_and_never_inside_a_character():
    name = safe_note_name("Müntz-Szász networks " * 20)
    assert len(name.encode("utf-8")) <= 200
    assert name.endswith(("networks", "Müntz-Szász"))
    one_word = safe_note_name("é" * 150)
    assert one_word == "é" * 100


def test_tiny_byte_caps_are_refused():
    with pytest.raises(ValueError):
        safe_note_name("x", max_bytes=4)


def test_registry_numbers_collisions_case_and_normalisation_insensitively():
    registry = NameRegistry()
    assert registry.claim("PRISM") == "PRISM"
    assert registry.claim("prism") == "prism (2)"
    assert registry.claim("Cafe\u0301") == "Café"
    assert registry.claim("CAFÉ") == "CAFÉ (2)"


def test_registry_prefers_a_hint_from_the_paper_over_a_number():
    registry = NameRegistry()
    registry.claim("PRISM", hints=["a spectral imaging benchmark"])
    hint = "a novel 3D representation learning paradigm for pre-training"
    second = registry.claim("PRISM", hints=[hint + " on geodesic metrics"])
    assert second == f"PRISM ({hint})", "cut to 60 characters, without a dangling `on`"
    assert registry.claim("PRISM", hints=[hint + " on"]) == "PRISM (2)"


def test_registry_avoids_reserved_names_of_existing_notes():
    registry = NameRegistry()
    registry.reserve("Grouter")
    assert "GROUTER" in registry
    assert registry.claim("grouter") == "grouter (2)"


def test_registry_is_deterministic():
    names = ["A", "a", "B", "A", "b"]
    first, second = NameRegistry(), NameRegistry()
    assert [first.claim(n) for n in names] == [second.claim(n) for n in names]


@given(st.lists(st.tuples(any_text, st.lists(st.text(max_size=80), max_size=2)), max_size=30),
       st.lists(any_text, max_size=5))
@settings(max_examples=200)
def test_registry_never_hands_out_colliding_names(claims, reserved):
    registry = NameRegistry(max_bytes=40)
    for name in reserved:
        registry.reserve(name)
    given_out = [registry.claim(name, hints) for name, hints in claims]
    keys = [name_key(n) for n in given_out]
    assert len(set(keys)) == len(keys)
    assert not {name_key(n) for n in reserved} & set(keys)
    for name in given_out:
        assert_safe(name, 40)


def test_registry_hints_that_repeat_the_name_are_used_without_it():
    registry = NameRegistry()
    registry.claim("PRISM")
    assert registry.claim("PRISM", hints=["PRISM — a 3D representation learning paradigm"]) == (
        "PRISM (a 3D representation learning paradigm)"
    )


def test_numbers_continue_where_the_last_claim_stopped_and_skip_reserved_ones():
    registry = NameRegistry()
    registry.reserve("PRISM (3)")
    first = [registry.claim("PRISM") for _ in range(3)]
    other = registry.copy()
    registry.reserve("prism (5)")
    assert first == ["PRISM", "PRISM (2)", "PRISM (4)"]
    assert [registry.claim("PRISM") for _ in range(2)] == ["PRISM (6)", "PRISM (7)"]
    assert other.claim("PRISM") == "PRISM (5)"  # a copy goes its own way


@given(st.text(alphabet=st.characters(max_codepoint=0x7f), max_size=40), st.integers(16, 60))
def test_an_already_safe_ascii_name_is_kept_as_the_rules_would_keep_it(text, max_bytes):
    from vaultsync import names

    if names._already_safe(text, max_bytes):
        names_before = names._already_safe
        names._already_safe = lambda *_: False  # the full rules
        try:
            assert safe_note_name(text, max_bytes) == text
        finally:
            names._already_safe = names_before
