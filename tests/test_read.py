"""Reading seed files: the format, its tolerances, and bad input that must never hurt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultsync.default_plugins.seed_text import parse_collection, parse_seed_lines
from vaultsync.plugins import get_plugin_manager
from vaultsync.read import is_ignored, list_seed_files, read_seeds

ABSTRACT = ("We study graph neural networks for molecular property prediction and show that "
            "message passing with attention improves accuracy on three benchmarks.")
OTHER = ("Large language models can solve combinatorial optimization problems when prompted "
         "with a formulation and a heuristic, as our experiments on routing problems show.")


def parse(text: str, name: str = "x.txt"):
    problems: list[str] = []
    lines = enumerate(text.splitlines(), start=1)
    return parse_seed_lines(lines, name, problems), problems


def write(folder: Path, name: str, data: bytes | str) -> Path:
    path = folder / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


@pytest.fixture(scope="module")
def pm():
    return get_plugin_manager()


@pytest.mark.parametrize("header, venue, year", [
    ("ICML 2026 Papers", "ICML 2026", 2026),
    ("ICML 2026 论文列表", "ICML 2026", 2026),
    ("Artículos de NeurIPS 2025", "NeurIPS 2025", 2025),
    ("Papers from ICLR 2024 (main track)", "ICLR 2024", 2024),
    ("Workshop papers, 2022", None, 2022),
    ("My reading list", None, None),
])
def test_the_header_names_venue_and_year_in_any_language(header, venue, year):
    collection = parse_collection(header)
    assert (collection.name, collection.venue, collection.year) == (header, venue, year)


def test_paragraphs_are_abstracts_and_wrapped_lines_are_joined():
    cut = ABSTRACT.index(" ", 60)
    seed, problems = parse(f"ICML 2026 Papers\n\n{ABSTRACT[:cut]}\n{ABSTRACT[cut + 1:]}\n\n\n\n{OTHER}\n")
    assert [a.text for a in seed.abstracts] == [ABSTRACT, OTHER]
    assert [a.paragraph for a in seed.abstracts] == [1, 2]
    assert [a.line for a in seed.abstracts] == [3, 8]
    assert seed.collection.venue == "ICML 2026" and problems == []


def test_a_file_without_header_is_named_by_its_file_name():
    seed, _ = parse(f"{ABSTRACT}\n\n{OTHER}\n", name="neurips_2025.txt")
    assert len(seed.abstracts) == 2
    assert seed.collection.name == "neurips 2025"
    assert seed.collection.year == 2025


def test_bom_crlf_and_trailing_spaces_are_tolerated(tmp_path, pm):
    write(tmp_path, "a.txt", b"\xef\xbb\xbfICML 2026 Papers  \r\n\r\n" + ABSTRACT.encode() + b"   \r\n\r\n")
    result = read_seeds(tmp_path, pm)
    (seed,) = result.seeds
    assert seed.collection.name == "ICML 2026 Papers"
    assert [a.text for a in seed.abstracts] == [ABSTRACT]
    assert result.problems == [] and result.failed == []


def test_only_txt_and_md_files_are_read_and_scratch_files_are_skipped(tmp_path, pm):
    for name in ("a.txt", "b.md", "c.pdf", ".hidden.txt", "d.txt~", "e.txt.swp", "f.sync-conflict-1.txt"):
        write(tmp_path, name, f"ICML 2026\n\n{ABSTRACT}\n")
    assert [s.path for s in read_seeds(tmp_path, pm).seeds] == ["a.txt", "b.md"]
    assert is_ignored("report (conflicted copy).txt")


def test_the_same_abstract_has_the_same_id_in_any_file():
    one, _ = parse(f"ICML 2026\n\n{ABSTRACT}\n", "a.txt")
    two, _ = parse(f"NeurIPS 2025\n\n{ABSTRACT.upper()[:0] + ABSTRACT}\n", "b.txt")
    assert one.abstracts[0].id == two.abstracts[0].id


@pytest.mark.parametrize("name, data, expected", [
    ("empty.txt", b"", "holds no abstracts"),
    ("binary.txt", bytes(range(256)) * 40, "binary file"),
    ("header-only.txt", b"ICML 2026 Papers\n", "holds no abstracts"),
])
def test_unusable_files_get_one_line_naming_the_file(tmp_path, pm, name, data, expected):
    write(tmp_path, name, data)
    write(tmp_path, "good.txt", f"ICML 2026\n\n{ABSTRACT}\n")
    result = read_seeds(tmp_path, pm)
    messages = result.problems + result.failed
    assert len(messages) == 1 and name in messages[0] and expected in messages[0]
    assert "\n" not in messages[0]
    assert [s.path for s in result.seeds if s.abstracts] == ["good.txt"]


def test_invalid_utf8_names_the_byte_offset_and_keeps_the_rest(tmp_path, pm):
    data = f"ICML 2026\n\n{ABSTRACT}\n\n".encode() + b"Caf\xe9 " + OTHER.encode() + b"\n"
    write(tmp_path, "latin1.txt", data)
    result = read_seeds(tmp_path, pm)
    (seed,) = result.seeds
    assert len(seed.abstracts) == 2 and "\ufffd" in seed.abstracts[1].text
    (problem,) = result.problems
    offset = data.index(b"\xe9")
    assert "latin1.txt" in problem and f"byte {offset}" in problem and "UTF-8" in problem


def test_utf16_with_bom_is_read(tmp_path, pm):
    write(tmp_path, "u16.txt", f"ICML 2026 Papers\n\n{ABSTRACT}\n".encode("utf-16"))
    result = read_seeds(tmp_path, pm)
    assert [a.text for a in result.seeds[0].abstracts] == [ABSTRACT]
    assert "UTF-16" in result.problems[0]


def test_nul_bytes_are_removed_with_a_warning(tmp_path, pm):
    write(tmp_path, "nul.txt", f"ICML 2026\n\n{ABSTRACT}\x00\n".encode())
    result = read_seeds(tmp_path, pm)
    assert result.seeds[0].abstracts[0].text == ABSTRACT
    assert "NUL" in result.problems[0] and "nul.txt" in result.problems[0]


def test_a_one_megabyte_line_is_skipped_not_loaded_as_an_abstract(tmp_path, pm):
    write(tmp_path, "long.txt", "ICML 2026\n\n" + "word " * 220_000 + f"\n\n{ABSTRACT}\n")
    result = read_seeds(tmp_path, pm)
    assert [a.text for a in result.seeds[0].abstracts] == [ABSTRACT]
    assert len(result.problems) == 1 and "long.txt" in result.problems[0]


def test_a_symlink_out_of_the_seeds_folder_is_refused(tmp_path, pm):
    outside = write(tmp_path, "secret.txt", f"ICML 2026\n\n{ABSTRACT}\n")
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "link.txt").symlink_to(outside)
    result = read_seeds(seeds, pm)
    assert result.seeds == [] and "outside the seeds folder" in result.failed[0]


def test_an_unreadable_file_is_named_and_the_others_still_read(tmp_path, pm, monkeypatch):
    write(tmp_path, "locked.txt", f"ICML 2026\n\n{ABSTRACT}\n")
    write(tmp_path, "open.txt", f"ICML 2026\n\n{OTHER}\n")
    real_open = os.open  # (the tests may run as root, whom permissions do not stop)

    def guarded_open(path, *args, **kwargs):
        if str(path).endswith("locked.txt"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_open)
    result = read_seeds(tmp_path, pm)
    assert [s.path for s in result.seeds] == ["open.txt"]
    assert "locked.txt" in result.failed[0] and "permission" in result.failed[0]


def test_a_file_name_that_is_not_utf8_is_read_and_reported(tmp_path, pm):
    name = os.fsdecode(b"caf\xe9.txt")
    (tmp_path / name).write_text(f"ICML 2026\n\n{ABSTRACT}\n", encoding="utf-8")
    result = read_seeds(tmp_path, pm)
    assert len(result.seeds) == 1 and result.seeds[0].path.encode("utf-8")
    assert "not valid UTF-8" in result.problems[0]


def test_a_missing_seeds_folder_is_a_user_error(tmp_path):
    from vaultsync.errors import VaultsyncError

    with pytest.raises(VaultsyncError, match="does not exist"):
        list_seed_files(tmp_path / "nope")


words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
                min_size=1, max_size=12)
# at least 12 words: a token ending in "-" at a wrap point joins the next line's first word (one
# word fewer per wrap, every 3 words at most), and a paragraph of fewer than 8 words is skipped
paragraph = st.lists(words, min_size=12, max_size=40).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(
    paragraphs=st.lists(paragraph, min_size=1, max_size=6),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    gaps=st.integers(min_value=1, max_value=3),
    wrap=st.integers(min_value=3, max_value=30),
)
def test_any_paragraphs_survive_line_endings_wrapping_and_blank_lines(paragraphs, newline, gaps, wrap):
    def wrapped(text: str) -> str:
        tokens = text.split(" ")
        return newline.join(" ".join(tokens[i:i + wrap]) for i in range(0, len(tokens), wrap))

    text = "ICML 2026 Papers" + newline * (gaps + 1) + (newline * (gaps + 1)).join(map(wrapped, paragraphs))
    problems: list[str] = []
    lines = enumerate(text.splitlines(), start=1)
    seed = parse_seed_lines(lines, "p.txt", problems)
    expected = [" ".join(p.split()) for p in paragraphs]
    # a token ending in "-" at a wrap point is joined to the next line: compare without spaces there
    assert [a.text.replace(" ", "") for a in seed.abstracts] == [e.replace(" ", "") for e in expected]
    assert seed.collection.venue == "ICML 2026"


def test_a_huge_file_streams_through_in_bounded_memory(tmp_path, pm):
    """A big seed is read line by line: a 40 MB paragraph is reported, never held in memory."""
    import tracemalloc

    line = ("lorem ipsum dolor sit amet " * 20).strip() + "\n"
    with open(tmp_path / "huge.txt", "w", encoding="utf-8") as out:
        out.write(f"ICML 2026\n\n{ABSTRACT}\n\n")
        for _ in range(40_000_000 // len(line)):
            out.write(line)
        out.write(f"\n{OTHER}\n")
    tracemalloc.start()
    result = read_seeds(tmp_path, pm)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [a.text for a in result.seeds[0].abstracts] == [ABSTRACT, OTHER]
    assert "not an abstract" in result.problems[0] and "huge.txt" in result.problems[0]
    assert peak < 8_000_000, f"peak {peak:,} bytes while reading a 40 MB file"


@pytest.mark.parametrize("header, name, venue, year", [
    ("venue: ICML 2026", "ICML 2026", "ICML 2026", 2026),
    ("Venue:   NeurIPS 2025", "NeurIPS 2025", "NeurIPS 2025", 2025),
    ("venue: ICML\nyear: 2026", "ICML 2026", "ICML 2026", 2026),
    ("name: My reading list\nvenue: ICML 2026", "My reading list", "ICML 2026", 2026),
    ("collection: Reading list 2024", "Reading list 2024", None, 2024),
    ('venue: Inspec: "Test" split #1', 'Inspec: "Test" split #1', 'Inspec: "Test" split #1', None),
])
def test_a_header_may_be_written_as_fields(header, name, venue, year):
    seed, problems = parse(f"{header}\n\n{ABSTRACT}\n")
    assert (seed.collection.name, seed.collection.venue, seed.collection.year) == (name, venue, year)
    assert [a.text for a in seed.abstracts] == [ABSTRACT] and problems == []


def test_a_file_without_a_header_has_no_venue():
    seed, problems = parse(f"{ABSTRACT}\n\n{OTHER}\n", "noheader.txt")
    assert (seed.collection.name, seed.collection.venue) == ("noheader", None)
    assert len(seed.abstracts) == 2 and problems == []


@pytest.mark.parametrize("body", [
    "word " * 70_000,  # one line longer than the decoder reads
    "\n".join(["twelve words of a paragraph that never ends, on and on"] * 6_000),  # a 300 KB paragraph
])
def test_a_huge_paragraph_is_one_message(tmp_path, pm, body):
    write(tmp_path, "huge.txt", f"ICML 2026 Papers\n\n{body}\n")
    result = read_seeds(tmp_path, pm)
    messages = result.problems + result.failed
    assert len(messages) == 1 and "huge.txt" in messages[0], messages


@pytest.mark.parametrize("first, second", [("Foo Workshop", "foo workshop"), ("NUL", "nul")])
def test_collections_named_alike_but_for_case_are_one_note_every_link_resolving(tmp_path, pm, monkeypatch,
                                                                                 first, second):
    from vaultsync.doctor import diagnose
    from vaultsync.pipeline import export

    monkeypatch.setenv("VAULTSYNC_STATE_DIR", str(tmp_path / "state"))
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    write(seeds, "a.txt", f"{first}\n\n{ABSTRACT}\n")
    write(seeds, "b.txt", f"{second}\n\n{OTHER}\n")
    assert {s.collection.name for s in read_seeds(seeds, pm).seeds} == {min(first, second)}
    report = export(seeds, tmp_path / "vault", pm)
    assert report.errors == () and report.warnings == ()
    assert len(list((tmp_path / "vault" / "Collections").glob("*.md"))) == 1
    assert [f for f in diagnose(tmp_path / "vault") if f.check == "unresolved-link"] == []
