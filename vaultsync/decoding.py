"""Turn the bytes of a seed file into text lines, safely and with honest one-line warnings.

Seeds come from anywhere: BOMs, CRLF, UTF-16 exports, stray NUL bytes, invalid UTF-8, binary
files dropped by mistake, files of hundreds of megabytes. The file is streamed (bounded memory):
lines are yielded one by one and a line longer than ``MAX_LINE_CHARS`` is cut, with a warning.
"""

from __future__ import annotations

import codecs
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from .errors import VaultsyncError
from .regular_files import open_regular_file

MAX_LINE_CHARS = 200_000  # a longer "line" is not prose; keep memory bounded
_SNIFF_BYTES = 8192


@dataclass
class DecodedText:
    """Lines of a seed file, decoded; ``problems`` fills in while the lines are consumed."""

    display: str  # the file as named to the user, e.g. "seeds/001.txt"
    encoding: str
    lines: Iterator[tuple[int, str]]  # (1-based line number, text without line ending)
    problems: list[str] = field(default_factory=list)
    skipped_lines: int = 0  # lines longer than ``MAX_LINE_CHARS``, yielded empty (known once read)


_CONTROLS = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def _looks_binary(head: bytes) -> bool:
    if not head:
        return False
    if head.count(b"\x00") > len(head) // 16:
        return True
    # control bytes other than tab, newline, form feed, CR and ESC, counted in C
    controls = len(head) - len(head.translate(None, _CONTROLS))
    return controls > len(head) // 10


def open_seed_text(path: Path, display: str) -> DecodedText:
    """Open ``path`` for reading as text lines. Raise ``VaultsyncError`` when it is not text
    (or not a regular file: see ``regular_files``)."""
    handle = open_regular_file(path, display)
    try:
        head = handle.read(_SNIFF_BYTES)
    except OSError as error:
        handle.close()
        raise VaultsyncError(f"{display}: cannot be read ({error.strerror}); check the file") from None
    encoding = "utf-8"
    skip = 0
    problems: list[str] = []
    if head.startswith(codecs.BOM_UTF8):
        skip = len(codecs.BOM_UTF8)
    elif head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
        problems.append(f"{display}: is UTF-16; read it as such (re-save it as UTF-8 to silence this)")
    elif _looks_binary(head):
        handle.close()
        raise VaultsyncError(f"{display}: looks like a binary file, not text; skipped (remove it from the seeds folder)")
    handle.seek(skip)
    decoded = DecodedText(display, encoding, iter(()), problems)
    decoded.lines = _lines(handle, decoded)
    return decoded


_SURROGATES = re.compile("[\udc80-\udcff]")


def _lines(handle: io.BufferedReader, decoded: DecodedText) -> Iterator[tuple[int, str]]:
    """Yield decoded lines; record the first undecodable byte and NUL bytes as problems."""
    errors = "surrogateescape" if decoded.encoding == "utf-8" else "replace"
    decoder = codecs.getincrementaldecoder(decoded.encoding)(errors=errors)
    offset = handle.tell()  # byte offset of the start of the current line (exact for UTF-8)
    bad_offset = bad_line = None
    line_number = 0
    pending = ""
    nul_lines: list[int] = []
    long_lines: list[int] = []
    try:
        while True:
            chunk = handle.read(1 << 16)
            pending += decoder.decode(chunk, final=not chunk)
            parts = pending.splitlines(keepends=True)
            pending = ""
            if chunk and parts and (not parts[-1].endswith(("\n", "\r")) or parts[-1].endswith("\r")):
                pending = parts.pop()  # incomplete line, or a CRLF split across chunks
                if len(pending) > MAX_LINE_CHARS:
                    line_number += 1
                    long_lines.append(line_number)
                    yield line_number, ""
                    pending = ""
                    offset += sum(_skip_to_line_end(handle, decoder))
            # most text has no undecodable byte (which decodes to a surrogate: UTF-8 refuses to
            # encode it) and no NUL: nothing to look for line by line, and the byte offset moves
            # by the whole batch
            batch = "".join(parts)
            careful = errors != "surrogateescape" or "\x00" in batch
            if not careful:
                try:
                    offset += len(batch.encode("utf-8"))
                except UnicodeEncodeError:
                    careful = True
            for part in parts:
                line_number += 1
                line = part.rstrip("\r\n")
                if careful:
                    if errors == "surrogateescape" and bad_offset is None:
                        match = _SURROGATES.search(line)
                        if match:
                            bad_offset = offset + len(line[: match.start()].encode("utf-8", "surrogateescape"))
                            bad_line = line_number
                    if errors == "surrogateescape":
                        offset += len(part.encode("utf-8", "surrogateescape"))
                        line = _SURROGATES.sub("\ufffd", line)
                    if "\x00" in line:
                        nul_lines.append(line_number)
                        line = line.replace("\x00", "")
                if len(line) > MAX_LINE_CHARS:
                    long_lines.append(line_number)
                    line = ""
                yield line_number, line
            if not chunk:
                break
    except OSError as error:
        decoded.problems.append(f"{decoded.display}: reading stopped at line {line_number} ({error.strerror})")
    finally:
        handle.close()
    if bad_offset is not None:
        decoded.problems.append(
            f"{decoded.display}: byte {bad_offset} (line {bad_line}) is not valid UTF-8; "
            "undecodable bytes became U+FFFD (re-save the file as UTF-8)"
        )
    if nul_lines:
        decoded.problems.append(
            f"{decoded.display}: NUL bytes on line {nul_lines[0]}"
            + (f" and {len(nul_lines) - 1} more" if len(nul_lines) > 1 else "")
            + " were removed (re-save the file as plain text)"
        )
    if long_lines:
        decoded.skipped_lines = len(long_lines)
        decoded.problems.append(
            f"{decoded.display}: line {long_lines[0]} is longer than {MAX_LINE_CHARS:,} characters; "
            "skipped it (one abstract per paragraph, please)"
        )


def _skip_to_line_end(handle: io.BufferedReader, decoder) -> Iterator[int]:
    """Consume bytes up to the next line break (the break itself is kept for the next read)."""
    while True:
        position = handle.tell()
        chunk = handle.read(1 << 16)
        if not chunk:
            return
        cut = min((i for i in (chunk.find(b"\n"), chunk.find(b"\r")) if i >= 0), default=-1)
        if cut >= 0:
            handle.seek(position + cut)
            decoder.reset()
            yield cut
            return
        yield len(chunk)
